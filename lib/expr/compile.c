/* SPDX-License-Identifier: MIT */
/*
 * compile.c - rbtrace-watch.so: watch expressions, compiled and evaluated
 * inside the traced program; this file is the compile side, eval.c the
 * hook side, expr.h what they share.
 *
 * librbtrace's worker thread dlopen()s this module on the process's first
 * watch (see watch.c), so libdw and the DWARF index cost nothing until
 * then.  compile(), in that thread, parses C expression text into a small
 * typed tree; the variables and types come from DWARF (libdwfl on the
 * process's own mappings), or, for objects without debug information, from
 * the symbol tables, where a variable has an address but no type and must
 * be cast.  All of that runs under one mutex and allocates.  eval()
 * (eval.c) then runs in the watched thread at its hooks without locks or
 * allocation (tests/hookside.sh checks its imports): it walks the tree,
 * reads the program's memory with process_vm_readv() on
 * itself (a bad address is an error, never a fault), finds thread-locals
 * through its own thread pointer, and formats the value as gdb prints it.
 *
 * Grammar (C, without calls or assignment):
 *
 *   expr     := additive [ "/" ("x" | "d") ]       output format suffix
 *   additive := mult { ("+" | "-") mult }
 *   mult     := unary { ("*" | "/") unary }
 *   unary    := ("*" | "&" | "-" | "+") unary | "(" typename ")" unary
 *             | "sizeof" unary | "sizeof" "(" typename ")" | postfix
 *   postfix  := primary { "." name | "->" name | "[" expr "]" }
 *   primary  := name | "'" file "'" "::" name | integer | 'c' | "(" expr ")"
 *   typename := [const] base-or-tag-or-typedef [const] { "*" [const] }
 *
 * A name is a variable or a function; where several files define it, the
 * value starts with a note saying which one it is (see x_note()).
 * Addresses print with the symbol they are in, from a table of the
 * modules' symbols made at compile time for the expressions that print
 * addresses (see x_atab_get()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/debugfile.h"
#include "expr.h"

#define BASE(n, k, s, sz) { .kind = (k), .sign = (s), .size = (sz), .name = (n) }
struct xtype x_void = BASE("void", XK_VOID, false, 1);
struct xtype x_char = BASE("char", XK_CHAR, true, 1);
struct xtype x_schar = BASE("signed char", XK_CHAR, true, 1);
struct xtype x_uchar = BASE("unsigned char", XK_CHAR, false, 1);
struct xtype x_short = BASE("short", XK_INT, true, 2);
struct xtype x_ushort = BASE("unsigned short", XK_INT, false, 2);
struct xtype x_int = BASE("int", XK_INT, true, 4);
struct xtype x_uint = BASE("unsigned int", XK_INT, false, 4);
struct xtype x_long = BASE("long", XK_INT, true, 8);
struct xtype x_ulong = BASE("unsigned long", XK_INT, false, 8);
struct xtype x_llong = BASE("long long", XK_INT, true, 8);
struct xtype x_ullong = BASE("unsigned long long", XK_INT, false, 8);
struct xtype x_bool = BASE("_Bool", XK_BOOL, false, 1);
struct xtype x_float = BASE("float", XK_FLOAT, true, 4);
struct xtype x_double = BASE("double", XK_FLOAT, true, 8);
struct xtype x_ldouble = BASE("long double", XK_FLOAT, true, 16);
struct xtype x_int8 = BASE("int8_t", XK_INT, true, 1);
struct xtype x_uint8 = BASE("uint8_t", XK_INT, false, 1);
struct xtype x_int16 = BASE("int16_t", XK_INT, true, 2);
struct xtype x_uint16 = BASE("uint16_t", XK_INT, false, 2);
struct xtype x_int32 = BASE("int32_t", XK_INT, true, 4);
struct xtype x_uint32 = BASE("uint32_t", XK_INT, false, 4);
struct xtype x_int64 = BASE("int64_t", XK_INT, true, 8);
struct xtype x_uint64 = BASE("uint64_t", XK_INT, false, 8);
struct xtype x_size = BASE("size_t", XK_INT, false, 8);
struct xtype x_ssize = BASE("ssize_t", XK_INT, true, 8);
struct xtype x_intptr = BASE("intptr_t", XK_INT, true, 8);
struct xtype x_uintptr = BASE("uintptr_t", XK_INT, false, 8);
struct xtype x_boolname = BASE("bool", XK_BOOL, false, 1);
/* What gdb calls a symbol of an object without debug information. */
struct xtype x_nodata = BASE("<data variable, no debug info>", XK_VOID, false, 1);
struct xtype x_notext = { .kind = XK_FUNC, .size = 1, .nodebug = true,
				 .name = "<text variable, no debug info>" };
#undef BASE

/* Names a cast may use without debug information. */
static struct xtype *const x_named[] = {
	&x_int8, &x_uint8, &x_int16, &x_uint16, &x_int32, &x_uint32,
	&x_int64, &x_uint64, &x_size, &x_ssize, &x_intptr, &x_uintptr,
	&x_boolname,
};

/* -------------------------------------------------------------------------
 * Allocation: everything compile() makes lives until the process ends
 * (types are shared between programs) or in its program's arena.
 */

static pthread_mutex_t x_lock = PTHREAD_MUTEX_INITIALIZER;

static void *x_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	return p;
}

static char *x_strdup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/*
 * Types live as long as the process: programs compiled before the index
 * is made again keep theirs.  All stay on one list, so none is lost.
 */
static struct xtype *x_types;

static struct xtype *x_type_new(void)
{
	struct xtype *t = x_alloc(sizeof(*t));

	if (t != NULL) {
		t->all = x_types;
		x_types = t;
	}
	return t;
}

/* Made once per type (under x_lock), so compiling again allocates no type. */
static struct xtype *x_pointer_to(struct xtype *t)
{
	struct xtype *p;

	if (t->ptr != NULL)
		return t->ptr;
	p = x_type_new();
	if (p == NULL)
		return NULL;
	p->kind = XK_PTR;
	p->size = 8;
	p->target = t;
	t->ptr = p;
	return p;
}

/* -------------------------------------------------------------------------
 * DWARF: the process's own modules, an index of global variables and
 * named types, and types converted to struct xtype (cached per DIE).
 */

/* A source file: a compilation unit, or an STT_FILE symbol. */
struct xcu {
	char		*name;		/* as the compiler was given it */
	char		*dir;		/* DW_AT_comp_dir; NULL: none */
	struct xcu	*next;
};

struct xsym {
	const char	*name;
	Dwfl_Module	*mod;
	Dwarf		*dw;
	Dwarf_Off	 off;		/* DIE; 0 for a symbol-table entry */
	Dwarf_Addr	 bias;
	uint64_t	 addr;		/* variables, functions */
	bool		 tls;
	bool		 defined;	/* has an address (variables, functions) */
	bool		 global;
	int		 rank;		/* lower wins, see x_rank() */
	int		 tag;		/* DW_TAG_variable, _subprogram, _typedef, ... */
	struct xcu	*cu;		/* its source file; NULL: not known */
	unsigned	 seq;		/* order of the debug information */
	struct xsym	*next;
};

struct xtcache {
	Dwarf		*dw;
	Dwarf_Off	 off;
	struct xtype	*t;
	struct xtcache	*next;
};

#define X_HASH	4096
static char *x_debuginfo_path;

/*
 * Separate debug information from this machine only, found and checked
 * as rbmon finds it for the stacks (common/debugfile.c): never from
 * debuginfod servers (dwfl_standard_find_debuginfo()'s last resort):
 * loading their client brings libcurl, a TLS library and their exit
 * handlers into the traced program, which the program's exit() then runs
 * under a compile.
 */
static int x_find_debuginfo(Dwfl_Module *mod, void **user, const char *modname,
			    Dwarf_Addr base, const char *file, const char *link,
			    GElf_Word crc, char **found)
{
	return rb_debugfile_find(mod, user, modname, base, file, link, crc,
				 found, rb_debugfile_open);
}

static const Dwfl_Callbacks x_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = x_find_debuginfo,
	.debuginfo_path = &x_debuginfo_path,
};
static Dwfl *x_dwfl;
static struct xsym *x_vars[X_HASH];	/* variables */
static struct xsym *x_tags[X_HASH];	/* struct/union/enum tags, typedefs */
static struct xsym *x_elfsyms[X_HASH];	/* symbol tables: no type */
static struct xtcache *x_tcache[X_HASH];
static struct xcu *x_cus;		/* every source file indexed */
static struct xcu *x_main_cu;		/* the one that defines main() */
static unsigned x_seq;
static Dwfl_Module *x_main;		/* the executable */
static bool x_all;			/* the libraries are indexed too */
static char x_main_why[160];		/* why x_main has no ELF, or "" */
static bool x_index_rest(void);
static unsigned long long x_adds, x_subs;	/* dl_phdr_info, last look */
static unsigned long long x_dw_adds, x_dw_subs;	/* ... when x_dwfl was made */

/*
 * Which of several variables or functions of one name an expression
 * means, as gdb chooses: a definition before a declaration, a global
 * before a static, the executable's before a library's (x_before() then
 * orders those of one rank).
 */
static int x_rank(Dwfl_Module *mod, bool defined, bool global)
{
	return (defined ? 0 : 4) + (global ? 0 : 2) + (mod == x_main ? 0 : 1);
}

static unsigned x_hash(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h & (X_HASH - 1);
}

static struct xcu *x_cu_new(const char *name, const char *dir)
{
	struct xcu *cu;

	if (name == NULL || name[0] == '\0' || (cu = x_alloc(sizeof(*cu))) == NULL)
		return NULL;
	cu->name = x_strdup(name);
	cu->dir = dir != NULL && name[0] != '/' ? x_strdup(dir) : NULL;
	if (cu->name == NULL) {
		free(cu->dir);
		free(cu);
		return NULL;
	}
	cu->next = x_cus;
	x_cus = cu;
	return cu;
}

static void x_add(struct xsym **tab, const struct xsym *s)
{
	struct xsym *n = x_alloc(sizeof(*n));
	unsigned h;

	if (n == NULL)
		return;
	*n = *s;
	n->seq = x_seq++;
	n->name = x_strdup(s->name);
	if (n->name == NULL) {
		free(n);
		return;
	}
	h = x_hash(n->name);
	n->next = tab[h];
	tab[h] = n;
}

/* The location of a variable DIE: an address, or a TLS offset. */
static int x_location(Dwarf_Die *die, Dwarf_Addr bias, uint64_t *addr,
		      bool *tls)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_attr(die, DW_AT_location, &at) == NULL ||
	    dwarf_getlocation(&at, &ops, &nops) != 0 || nops == 0)
		return -1;
	if (nops == 1 && ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number + bias;
		*tls = false;
		return 0;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_addrx ||
			  ops[0].atom == DW_OP_GNU_addr_index)) {
		Dwarf_Attribute res;
		Dwarf_Addr a;

		if (dwarf_getlocation_attr(&at, &ops[0], &res) != 0 ||
		    dwarf_formaddr(&res, &a) != 0)
			return -1;
		*addr = a + bias;
		*tls = false;
		return 0;
	}
	if (nops == 2 && (ops[1].atom == DW_OP_form_tls_address ||
			  ops[1].atom == DW_OP_GNU_push_tls_address) &&
	    (ops[0].atom == DW_OP_const8u || ops[0].atom == DW_OP_const4u ||
	     ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_const1u ||
	     ops[0].atom == DW_OP_const2u)) {
		*addr = ops[0].number;
		*tls = true;
		return 0;
	}
	return -1;
}

/* Where a function starts: its entry, else its lowest address. */
static int x_entry(Dwarf_Die *die, Dwarf_Addr *pc)
{
	Dwarf_Addr base, end;
	ptrdiff_t off;

	if (dwarf_entrypc(die, pc) == 0 || dwarf_lowpc(die, pc) == 0)
		return 0;
	off = dwarf_ranges(die, 0, &base, pc, &end);
	return off > 0 ? 0 : -1;
}

static void x_index_die(Dwfl_Module *mod, Dwarf *dw, Dwarf_Addr bias,
			struct xcu *cu, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	struct xsym s;
	const char *name;
	int tag = dwarf_tag(die);

	switch (tag) {
	case DW_TAG_variable:
	case DW_TAG_subprogram:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		break;
	default:
		return;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &at) == NULL ||
	    (name = dwarf_formstring(&at)) == NULL)
		return;
	memset(&s, 0, sizeof(s));
	s.name = name;
	s.mod = mod;
	s.dw = dw;
	s.off = dwarf_dieoffset(die);
	s.bias = bias;
	s.tag = tag;
	s.cu = cu;
	if (tag == DW_TAG_variable || tag == DW_TAG_subprogram) {
		Dwarf_Attribute ext;
		Dwarf_Addr pc;

		s.global = dwarf_attr_integrate(die, DW_AT_external, &ext) != NULL;
		if (tag == DW_TAG_variable)
			s.defined = x_location(die, bias, &s.addr, &s.tls) == 0;
		else if (!dwarf_hasattr(die, DW_AT_declaration) &&
			 x_entry(die, &pc) == 0) {
			s.defined = true;
			s.addr = pc + bias;
		}
		if (!s.defined && !dwarf_hasattr_integrate(die, DW_AT_declaration))
			return;
		s.rank = x_rank(mod, s.defined, s.global);
		if (tag == DW_TAG_subprogram && s.defined && s.global &&
		    mod == x_main && strcmp(name, "main") == 0)
			x_main_cu = cu;
		x_add(x_vars, &s);
		return;
	}
	s.rank = mod == x_main ? 0 : 1;
	if (dwarf_hasattr(die, DW_AT_declaration))
		return;
	x_add(x_tags, &s);
}

/*
 * Variables and functions of the symbol table.  A local symbol belongs to
 * the source file named by the STT_FILE symbol before it.
 */
static void x_index_symtab(Dwfl_Module *mod)
{
	int i, n = dwfl_module_getsymtab(mod);
	struct xcu *file = NULL;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name;
		struct xsym s;
		int type;

		name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
					       NULL, NULL);
		if (name == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			file = x_cu_new(name, NULL);
			continue;
		}
		if (name[0] == '\0' || sym.st_shndx == SHN_UNDEF)
			continue;
		if (type != STT_OBJECT && type != STT_TLS && type != STT_COMMON &&
		    type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		memset(&s, 0, sizeof(s));
		s.name = name;
		s.mod = mod;
		s.tag = type == STT_FUNC || type == STT_GNU_IFUNC ?
			DW_TAG_subprogram : DW_TAG_variable;
		s.tls = type == STT_TLS;
		s.addr = s.tls ? sym.st_value : addr;
		s.defined = true;
		s.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		s.cu = s.global ? NULL : file;
		s.rank = x_rank(mod, true, s.global);
		if (s.tls)
			dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
						NULL, &s.bias);
		x_add(x_elfsyms, &s);
	}
}

static int x_index_module(Dwfl_Module *mod, void **user, const char *name,
			  Dwarf_Addr start, void *arg)
{
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t hsize;

	(void)start;
	/* arg: NULL for the executable alone, else every module not done */
	if (*user != NULL || (arg == NULL) != (mod == x_main))
		return DWARF_CB_OK;
	*user = (void *)1;
	/* Our own objects: their statics are not the program's. */
	if (name != NULL) {
		const char *b = strrchr(name, '/');

		b = b != NULL ? b + 1 : name;
		if (strncmp(b, "librbtrace.so", 13) == 0 ||
		    strcmp(b, RB_WATCH_MODULE) == 0)
			return DWARF_CB_OK;
	}
	x_index_symtab(mod);
	dw = dwfl_module_getdwarf(mod, &bias);
	if (dw == NULL)
		return DWARF_CB_OK;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) != NULL &&
		    dwarf_child(&cu, &child) == 0) {
			Dwarf_Attribute at;
			struct xcu *file = x_cu_new(dwarf_diename(&cu),
				dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at)));

			do
				x_index_die(mod, dw, bias, file, &child);
			while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return DWARF_CB_OK;
}

static int x_phdr_count(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	x_adds = info->dlpi_adds;
	x_subs = info->dlpi_subs;
	return 1;
}

static void x_forget(struct xsym **tab)
{
	size_t i;

	for (i = 0; i < X_HASH; i++)
		while (tab[i] != NULL) {
			struct xsym *n = tab[i]->next;

			free((char *)tab[i]->name);
			free(tab[i]);
			tab[i] = n;
		}
}

/* Why the kernel hides this process's /proc files from it, or "". */
static const char *x_undumpable(void)
{
	if (prctl(PR_GET_DUMPABLE) != 0)
		return "";
	return "; the process is not dumpable: it changed its user or group id, "
	       "or called prctl(PR_SET_DUMPABLE, 0)";
}

/*
 * The process's objects as /proc/PID/maps lists them.  elfutils reads
 * /proc/PID/auxv first (for the vDSO), which the kernel gives to root,
 * mode 0400, once the process is no longer dumpable (it changed its user
 * or group id): maps stays readable to the process itself, and the vDSO
 * holds nothing to watch.  Return: 0, an errno value or -1 (libdwfl's).
 */
static int x_report(Dwfl *dwfl)
{
	FILE *f;
	int r;

	dwfl_report_begin(dwfl);
	r = dwfl_linux_proc_report(dwfl, getpid());
	if (r == EACCES || r == EPERM) {
		dwfl_report_begin(dwfl);
		f = fopen("/proc/self/maps", "re");
		if (f == NULL)
			r = errno;
		else {
			r = dwfl_linux_proc_maps_report(dwfl, f);
			fclose(f);
		}
	}
	dwfl_report_end(dwfl, NULL, NULL);
	return r;
}

/*
 * Index the process's objects: at the first compile, and again when an
 * expression names something unknown and objects were loaded or unloaded
 * since.  Types already made stay valid: they point into nothing of the
 * Dwfl.
 */
static int x_index(bool again)
{
	Dwarf_Addr bias;
	size_t i;
	int r;

	dl_iterate_phdr(x_phdr_count, NULL);
	if (x_dwfl != NULL &&
	    (!again || (x_dw_adds == x_adds && x_dw_subs == x_subs)))
		return 0;
	if (x_dwfl != NULL) {
		dwfl_end(x_dwfl);
		x_dwfl = NULL;
		x_forget(x_vars);
		x_forget(x_tags);
		x_forget(x_elfsyms);
		while (x_cus != NULL) {
			struct xcu *n = x_cus->next;

			free(x_cus->name);
			free(x_cus->dir);
			free(x_cus);
			x_cus = n;
		}
		x_main_cu = NULL;
		for (i = 0; i < X_HASH; i++)
			while (x_tcache[i] != NULL) {
				struct xtcache *n = x_tcache[i]->next;

				free(x_tcache[i]);
				x_tcache[i] = n;
			}
	}
	x_dw_adds = x_adds;
	x_dw_subs = x_subs;
	x_dwfl = dwfl_begin(&x_cb);
	if (x_dwfl == NULL)
		return -1;
	r = x_report(x_dwfl);
	if (r != 0) {
		dwfl_end(x_dwfl);
		x_dwfl = NULL;
		return r;
	}
	x_main = dwfl_addrmodule(x_dwfl, (Dwarf_Addr)getauxval(AT_ENTRY));
	x_main_why[0] = '\0';
	if (x_main != NULL && dwfl_module_getelf(x_main, &bias) == NULL) {
		/* e.g. mode 0700, and the process has left root's user id */
		const char *name = dwfl_module_info(x_main, NULL, NULL, NULL,
						    NULL, NULL, NULL, NULL);
		int fd = name != NULL ? open(name, O_RDONLY | O_CLOEXEC) : -1;

		if (fd >= 0)
			close(fd);
		else if (name != NULL)
			snprintf(x_main_why, sizeof(x_main_why),
				 "user %d cannot read the executable %s: %s",
				 (int)geteuid(), name, strerror(errno));
	}
	x_all = false;
	dwfl_getmodules(x_dwfl, x_index_module, NULL, 0);
	return 0;
}

/*
 * The libraries, on the first name the executable does not have: their
 * debug information (libc's, with its debug package installed) can be
 * many times the program's.
 */
static bool x_index_rest(void)
{
	if (x_all || x_dwfl == NULL)
		return false;
	x_all = true;
	dwfl_getmodules(x_dwfl, x_index_module, (void *)1, 0);
	return true;
}

static struct xsym *x_find(struct xsym **tab, const char *name, int tag)
{
	struct xsym *s, *best = NULL;

	do {
		for (s = tab[x_hash(name)]; s != NULL; s = s->next) {
			if (strcmp(s->name, name) != 0 ||
			    (tag != 0 && s->tag != tag))
				continue;
			if (best == NULL || s->rank < best->rank)
				best = s;
		}
	} while (best == NULL && x_index_rest());
	return best;
}

static struct xtype *x_dwtype(Dwarf *dw, Dwarf_Die *die);

static struct xtype *x_dwtype_of(Dwarf *dw, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (dwarf_attr_integrate(die, DW_AT_type, &at) == NULL ||
	    dwarf_formref_die(&at, &t) == NULL)
		return &x_void;
	return x_dwtype(dw, &t);
}

static uint64_t x_udata(Dwarf_Die *die, int name, uint64_t dflt)
{
	Dwarf_Attribute at;
	Dwarf_Word w;

	if (dwarf_attr_integrate(die, name, &at) == NULL ||
	    dwarf_formudata(&at, &w) != 0)
		return dflt;
	return w;
}

static void x_dw_members(Dwarf *dw, Dwarf_Die *die, struct xtype *t)
{
	Dwarf_Die c;
	size_t n = 0, i = 0;

	if (dwarf_child(die, &c) != 0)
		return;
	do
		n += dwarf_tag(&c) == DW_TAG_member;
	while (dwarf_siblingof(&c, &c) == 0);
	t->mem = x_alloc(n * sizeof(*t->mem));
	if (t->mem == NULL || dwarf_child(die, &c) != 0)
		return;
	do {
		struct xmember *m;
		Dwarf_Attribute at;

		if (dwarf_tag(&c) != DW_TAG_member || i >= n)
			continue;
		m = &t->mem[i++];
		m->name = x_strdup(dwarf_diename(&c));
		m->off = 0;
		if (dwarf_attr(&c, DW_AT_data_member_location, &at) != NULL) {
			Dwarf_Word w;
			Dwarf_Op *ops;
			size_t nops;

			if (dwarf_formudata(&at, &w) == 0)
				m->off = w;
			else if (dwarf_getlocation(&at, &ops, &nops) == 0 &&
				 nops == 1 && ops[0].atom == DW_OP_plus_uconst)
				m->off = ops[0].number;
		}
		m->type = x_dwtype_of(dw, &c);
		m->bitsize = (uint32_t)x_udata(&c, DW_AT_bit_size, 0);
		if (m->bitsize != 0) {
			uint64_t bo = x_udata(&c, DW_AT_data_bit_offset, UINT64_MAX);

			if (bo != UINT64_MAX) {
				m->off = bo / 8;
				m->bitoff = (uint32_t)(bo % 8);
			} else {
				/* DWARF 2 style: from the storage unit's high end */
				uint64_t bsz = x_udata(&c, DW_AT_byte_size,
						       x_sizeof(m->type));
				uint64_t o = x_udata(&c, DW_AT_bit_offset, 0);

				m->bitoff = (uint32_t)(bsz * 8 - o - m->bitsize);
			}
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	t->nmem = i;
}

static void x_dw_enums(Dwarf_Die *die, struct xtype *t)
{
	Dwarf_Die c;
	size_t n = 0, i = 0;

	if (dwarf_child(die, &c) != 0)
		return;
	do
		n += dwarf_tag(&c) == DW_TAG_enumerator;
	while (dwarf_siblingof(&c, &c) == 0);
	t->en = x_alloc(n * sizeof(*t->en));
	if (t->en == NULL || dwarf_child(die, &c) != 0)
		return;
	do {
		Dwarf_Attribute at;
		Dwarf_Sword sv;
		Dwarf_Word uv;

		if (dwarf_tag(&c) != DW_TAG_enumerator || i >= n ||
		    dwarf_attr(&c, DW_AT_const_value, &at) == NULL)
			continue;
		t->en[i].name = x_strdup(dwarf_diename(&c));
		if (dwarf_formsdata(&at, &sv) == 0)
			t->en[i].val = sv;
		else if (dwarf_formudata(&at, &uv) == 0)
			t->en[i].val = (int64_t)uv;
		i++;
	} while (dwarf_siblingof(&c, &c) == 0);
	t->nen = i;
}

static struct xtype *x_dw_array(Dwarf *dw, Dwarf_Die *die, struct xtype *t)
{
	struct xtype *elem = x_dwtype_of(dw, die), *cur = t;
	Dwarf_Die c;
	int dims = 0;

	/* t is the outermost dimension; inner ones become nested arrays */
	if (dwarf_child(die, &c) == 0) {
		do {
			struct xtype *a;
			Dwarf_Attribute at;
			Dwarf_Word w;
			Dwarf_Sword sw;

			if (dwarf_tag(&c) != DW_TAG_subrange_type)
				continue;
			a = dims == 0 ? t : x_type_new();
			if (a == NULL)
				break;
			a->kind = XK_ARRAY;
			if (dwarf_attr(&c, DW_AT_count, &at) != NULL &&
			    dwarf_formudata(&at, &w) == 0) {
				a->count = w;
				a->sized = true;
			} else if (dwarf_attr(&c, DW_AT_upper_bound, &at) != NULL) {
				/* data1..8 are unsigned here; sdata may be -1 */
				if (dwarf_whatform(&at) == DW_FORM_sdata ||
				    dwarf_whatform(&at) == DW_FORM_implicit_const) {
					if (dwarf_formsdata(&at, &sw) == 0 && sw >= -1) {
						a->count = (uint64_t)sw + 1;
						a->sized = true;
					}
				} else if (dwarf_formudata(&at, &w) == 0 &&
					   w < UINT64_MAX) {
					a->count = w + 1;
					a->sized = true;
				}
			}
			if (cur != a)
				cur->target = a;
			cur = a;
			dims++;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (dims == 0)
		t->kind = XK_ARRAY;
	cur->target = elem;
	for (cur = t; cur != NULL && cur->kind == XK_ARRAY; cur = cur->target)
		if (cur->target == elem || x_strip(cur->target)->kind != XK_ARRAY)
			break;
	return t;
}

/* A function type's parameters, "..." and whether it is prototyped. */
static void x_dw_params(Dwarf *dw, Dwarf_Die *die, struct xtype *t)
{
	Dwarf_Attribute at;
	Dwarf_Die c;
	size_t n = 0, i = 0;
	bool flag;

	t->proto = dwarf_attr_integrate(die, DW_AT_prototyped, &at) != NULL &&
		   dwarf_formflag(&at, &flag) == 0 && flag;
	if (dwarf_child(die, &c) != 0)
		return;
	do
		n += dwarf_tag(&c) == DW_TAG_formal_parameter;
	while (dwarf_siblingof(&c, &c) == 0);
	t->param = n > 0 ? x_alloc(n * sizeof(*t->param)) : NULL;
	if ((n > 0 && t->param == NULL) || dwarf_child(die, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
			t->varargs = true;
		else if (dwarf_tag(&c) == DW_TAG_formal_parameter && i < n)
			t->param[i++] = x_dwtype_of(dw, &c);
	} while (dwarf_siblingof(&c, &c) == 0);
	t->nparam = i;
}

/* A struct declared here but defined elsewhere: find the definition. */
static struct xtype *x_dw_complete(int tag, const char *name)
{
	struct xsym *s;
	Dwarf_Die d;

	if (name == NULL || (s = x_find(x_tags, name, tag)) == NULL ||
	    dwarf_offdie(s->dw, s->off, &d) == NULL)
		return NULL;
	return x_dwtype(s->dw, &d);
}

static struct xtype *x_dwtype(Dwarf *dw, Dwarf_Die *die)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	unsigned h = (unsigned)((off ^ (uintptr_t)dw) & (X_HASH - 1));
	struct xtcache *c;
	struct xtype *t;
	int tag = dwarf_tag(die);

	for (c = x_tcache[h]; c != NULL; c = c->next)
		if (c->dw == dw && c->off == off)
			return c->t;
	c = x_alloc(sizeof(*c));
	if (c == NULL)
		return &x_void;
	t = x_type_new();
	if (t == NULL) {
		free(c);
		return &x_void;
	}
	/* cached before its parts, so a type that refers to itself ends */
	c->dw = dw;
	c->off = off;
	c->t = t;
	c->next = x_tcache[h];
	x_tcache[h] = c;
	t->name = x_strdup(dwarf_diename(die));
	t->size = x_udata(die, DW_AT_byte_size, 0);
	switch (tag) {
	case DW_TAG_base_type:
		switch (x_udata(die, DW_AT_encoding, 0)) {
		case DW_ATE_boolean:
			t->kind = XK_BOOL;
			break;
		case DW_ATE_float:
			t->kind = XK_FLOAT;
			t->sign = true;
			break;
		case DW_ATE_signed_char:
			t->kind = t->size == 1 ? XK_CHAR : XK_INT;
			t->sign = true;
			break;
		case DW_ATE_unsigned_char:
			t->kind = t->size == 1 ? XK_CHAR : XK_INT;
			break;
		case DW_ATE_signed:
			t->kind = XK_INT;
			t->sign = true;
			break;
		default:
			t->kind = XK_INT;
			break;
		}
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = XK_PTR;
		t->size = 8;
		t->target = x_dwtype_of(dw, die);
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		t->kind = XK_QUAL;
		t->name = tag == DW_TAG_const_type ? "const" :
			  tag == DW_TAG_volatile_type ? "volatile" :
			  tag == DW_TAG_restrict_type ? "restrict" : "_Atomic";
		t->target = x_dwtype_of(dw, die);
		break;
	case DW_TAG_typedef:
		t->kind = XK_TYPEDEF;
		t->target = x_dwtype_of(dw, die);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		t->kind = tag == DW_TAG_union_type ? XK_UNION : XK_STRUCT;
		if (dwarf_hasattr(die, DW_AT_declaration)) {
			struct xtype *full = x_dw_complete(
				tag == DW_TAG_class_type ? DW_TAG_structure_type : tag,
				t->name);

			if (full != NULL && full != t) {
				c->t = full;
				return full;
			}
			break;
		}
		t->complete = true;
		x_dw_members(dw, die, t);
		break;
	case DW_TAG_enumeration_type:
		t->kind = XK_ENUM;
		{
			struct xtype *u = x_strip(x_dwtype_of(dw, die));

			t->sign = u->kind != XK_VOID ? u->sign : true;
			if (t->size == 0)
				t->size = u->size ? u->size : 4;
		}
		x_dw_enums(die, t);
		break;
	case DW_TAG_array_type:
		x_dw_array(dw, die, t);
		break;
	case DW_TAG_subroutine_type:
	case DW_TAG_subprogram:
		t->kind = XK_FUNC;
		t->size = 1;
		t->target = x_dwtype_of(dw, die);
		x_dw_params(dw, die, t);
		break;
	default:
		t->kind = XK_VOID;
		t->size = 1;
		break;
	}
	return t;
}

/* -------------------------------------------------------------------------
 * Addresses to symbols, "0x4c6f20 <counter>", read at evaluation without
 * locks: a table of every module's symbols (gdb's minimal symbols), made
 * under x_lock for the programs that print addresses and never changed
 * after; a program holds a reference, the last one frees a replaced table.
 */

static struct xatab *x_atab;		/* the newest, under x_lock */

static void x_atab_free(struct xatab *a)
{
	size_t i;

	for (i = 0; i < a->nmod; i++) {
		free(a->mod[i].sym);
		free(a->mod[i].sec);
	}
	free(a->mod);
	free(a->names);
	free(a);
}

/* A program is done with its table (any thread, no lock). */
static void x_atab_put(struct xatab *a)
{
	/* acq_rel: every user's reads come before the free; pairs with x_atab_new()'s fetch_or. */
	if (a != NULL && __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) == XA_STALE)
		x_atab_free(a);
}

static int x_asec_cmp(const void *a, const void *b)
{
	const struct xasec *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int x_amod_cmp(const void *a, const void *b)
{
	const struct xamod *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* gdb sorts its minimal symbols by address, then by name. */
static int x_addr_cmp(const void *a, const void *b, void *names)
{
	const struct xaddr *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp((char *)names + x->name, (char *)names + y->name);
}

static int x_atab_module(Dwfl_Module *mod, void **user, const char *name,
			 Dwarf_Addr start, void *arg)
{
	struct xatab *a = arg;
	struct xamod *m;
	Dwarf_Addr lo, hi, bias;
	Elf_Scn *scn = NULL;
	Elf *elf;
	size_t cap = 0;
	int i, n;

	(void)user, (void)name, (void)start;
	if (a->nmod == a->capmod) {
		size_t c = a->capmod ? a->capmod * 2 : 32;
		struct xamod *nm = realloc(a->mod, c * sizeof(*nm));

		if (nm == NULL)
			return DWARF_CB_ABORT;
		a->mod = nm;
		a->capmod = c;
	}
	m = &a->mod[a->nmod];
	memset(m, 0, sizeof(*m));
	if (dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL) == NULL ||
	    (elf = dwfl_module_getelf(mod, &bias)) == NULL)
		return DWARF_CB_OK;
	m->lo = lo;
	m->hi = hi;
	/* gdb's obj_sections: an address outside them has no symbol */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_ALLOC) ||
		    (sh.sh_flags & SHF_TLS) || sh.sh_size == 0)
			continue;
		if (m->nsec == cap) {
			struct xasec *ns;

			cap = cap ? cap * 2 : 32;
			ns = realloc(m->sec, cap * sizeof(*ns));
			if (ns == NULL)
				goto fail;
			m->sec = ns;
		}
		m->sec[m->nsec].lo = sh.sh_addr + bias;
		m->sec[m->nsec].hi = sh.sh_addr + bias + sh.sh_size;
		m->sec[m->nsec].code = (sh.sh_flags & SHF_EXECINSTR) != 0;
		m->nsec++;
	}
	if (m->nsec == 0)
		return DWARF_CB_OK;
	qsort(m->sec, m->nsec, sizeof(*m->sec), x_asec_cmp);
	/* .bss past the file's pages is not in the module's mappings */
	for (i = 0; i < (int)m->nsec; i++) {
		if (m->sec[i].lo < m->lo)
			m->lo = m->sec[i].lo;
		if (m->sec[i].hi > m->hi)
			m->hi = m->sec[i].hi;
	}
	n = dwfl_module_getsymtab(mod);
	cap = 0;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *sname;
		struct xaddr *x;
		size_t len;
		int type, sec;

		sname = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
						NULL, NULL);
		type = GELF_ST_TYPE(sym.st_info);
		if (sname == NULL || sname[0] == '\0' || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    (sec = x_asec_find(m, addr)) < 0)
			continue;
		if (m->nsym == cap) {
			struct xaddr *ns;

			cap = cap ? cap * 2 : 256;
			ns = realloc(m->sym, cap * sizeof(*ns));
			if (ns == NULL)
				goto fail;
			m->sym = ns;
		}
		len = strlen(sname) + 1;
		if (a->nnames + len > a->capnames) {
			size_t c = a->capnames ? a->capnames : 65536;
			char *nn;

			while (a->nnames + len > c)
				c *= 2;
			if (c > UINT32_MAX || (nn = realloc(a->names, c)) == NULL)
				goto fail;
			a->names = nn;
			a->capnames = c;
		}
		x = &m->sym[m->nsym++];
		x->addr = addr;
		x->size = sym.st_size;
		x->name = (uint32_t)a->nnames;
		x->sec = (uint16_t)sec;
		x->kind = !m->sec[sec].code ? XA_DATA :
			  type == STT_GNU_IFUNC ? XA_IFUNC :
			  GELF_ST_BIND(sym.st_info) == STB_LOCAL ? XA_FILE_TEXT : XA_TEXT;
		memcpy(a->names + a->nnames, sname, len);
		a->nnames += len;
	}
	a->nmod++;
	return DWARF_CB_OK;
fail:
	free(m->sym);
	free(m->sec);
	return DWARF_CB_ABORT;
}

/*
 * The table for a program compiled now (under x_lock), with a reference:
 * made again when objects were loaded or unloaded since the last one.
 */
static struct xatab *x_atab_get(void)
{
	struct xatab *a, *old = x_atab;
	size_t i;

	if (old == NULL || old->adds != x_adds || old->subs != x_subs) {
		if (x_index(true) != 0 || x_dwfl == NULL)
			return NULL;
		a = x_alloc(sizeof(*a));
		if (a == NULL)
			return NULL;
		if (dwfl_getmodules(x_dwfl, x_atab_module, a, 0) != 0) {
			x_atab_free(a);
			return NULL;
		}
		/* after libdwfl's own dlopen() of its debuginfod client */
		dl_iterate_phdr(x_phdr_count, NULL);
		a->adds = x_adds;
		a->subs = x_subs;
		for (i = 0; i < a->nmod; i++)
			qsort_r(a->mod[i].sym, a->mod[i].nsym, sizeof(struct xaddr),
				x_addr_cmp, a->names);
		qsort(a->mod, a->nmod, sizeof(*a->mod), x_amod_cmp);
		x_atab = a;
		/*
		 * acq_rel: whoever finds the count at zero frees; the
		 * programs' x_atab_put() may be at it meanwhile.
		 */
		if (old != NULL &&
		    (__atomic_fetch_or(&old->refs, XA_STALE, __ATOMIC_ACQ_REL) & ~XA_STALE) == 0)
			x_atab_free(old);
	}
	/* Relaxed: a table still current is not freed; x_lock orders the rest. */
	__atomic_add_fetch(&x_atab->refs, 1, __ATOMIC_RELAXED);
	return x_atab;
}

/* -------------------------------------------------------------------------
 * Parsing.
 */

enum xtok { T_END, T_NAME, T_INT, T_CHARLIT, T_PUNCT, T_SCOPE, T_BAD };

struct xparse {
	struct xprog	*p;
	const char	*s, *end;
	enum xtok	 tok;
	char		 name[128];
	char		 file[256];	/* T_SCOPE: 'file':: */
	uint64_t	 ival;
	char		 punct[3];
	const char	*at;		/* where the token started */
	bool		 failed;
};

static void x_fail(struct xparse *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void x_fail(struct xparse *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	va_start(ap, fmt);
	vsnprintf(ps->p->err, sizeof(ps->p->err), fmt, ap);
	va_end(ap);
}

static void x_syntax(struct xparse *ps)
{
	if (ps->tok == T_BAD)
		x_fail(ps, "bad token at \"%.*s\"",
		       (int)(ps->end - ps->at > 20 ? 20 : ps->end - ps->at),
		       ps->at);
	else if (ps->tok == T_END)
		x_fail(ps, "syntax error at end of expression");
	else
		x_fail(ps, "syntax error at \"%.*s\"",
		       (int)(ps->end - ps->at > 20 ? 20 : ps->end - ps->at),
		       ps->at);
}

static int x_escape(const char **sp, const char *end, uint64_t *v)
{
	const char *s = *sp;

	if (s >= end)
		return -1;
	if (*s != '\\') {
		*v = (unsigned char)*s;
		*sp = s + 1;
		return 0;
	}
	if (++s >= end)
		return -1;
	switch (*s) {
	case 'n': *v = '\n'; break;
	case 't': *v = '\t'; break;
	case 'r': *v = '\r'; break;
	case '0': *v = 0; break;
	case '\\': *v = '\\'; break;
	case '\'': *v = '\''; break;
	case '"': *v = '"'; break;
	case 'a': *v = '\a'; break;
	case 'b': *v = '\b'; break;
	case 'f': *v = '\f'; break;
	case 'v': *v = '\v'; break;
	case 'e': *v = 27; break;
	default: return -1;
	}
	*sp = s + 1;
	return 0;
}

/* gdb's 'file.c'::name: the quoted file, if "::" follows it. */
static bool x_scope(struct xparse *ps, const char **sp)
{
	const char *s = *sp + 1, *q, *c;

	q = memchr(s, '\'', (size_t)(ps->end - s));
	if (q == NULL || q == s)
		return false;
	for (c = q + 1; c < ps->end && isspace((unsigned char)*c); c++)
		;
	if (ps->end - c < 2 || c[0] != ':' || c[1] != ':')
		return false;
	if ((size_t)(q - s) >= sizeof(ps->file))
		return false;
	memcpy(ps->file, s, (size_t)(q - s));
	ps->file[q - s] = '\0';
	*sp = c + 2;
	return true;
}

static void x_next(struct xparse *ps)
{
	const char *s = ps->s;

	while (s < ps->end && isspace((unsigned char)*s))
		s++;
	ps->at = s;
	if (s >= ps->end) {
		ps->tok = T_END;
		ps->s = s;
		return;
	}
	if (isalpha((unsigned char)*s) || *s == '_') {
		size_t n = 0;

		while (s < ps->end && (isalnum((unsigned char)*s) || *s == '_')) {
			if (n + 1 < sizeof(ps->name))
				ps->name[n++] = *s;
			s++;
		}
		ps->name[n] = '\0';
		ps->tok = T_NAME;
	} else if (isdigit((unsigned char)*s)) {
		char buf[64], *e;
		size_t n = 0;

		while (s < ps->end && isalnum((unsigned char)*s) && n + 1 < sizeof(buf))
			buf[n++] = *s++;
		buf[n] = '\0';
		errno = 0;
		ps->ival = strtoull(buf, &e, 0);
		while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
			e++;
		ps->tok = errno != 0 || *e != '\0' ? T_BAD : T_INT;
	} else if (*s == '\'' && x_scope(ps, &s)) {
		ps->tok = T_SCOPE;
	} else if (*s == '\'') {
		s++;
		if (x_escape(&s, ps->end, &ps->ival) != 0 || s >= ps->end ||
		    *s != '\'')
			ps->tok = T_BAD;
		else {
			ps->tok = T_CHARLIT;
			s++;
		}
	} else {
		ps->tok = T_PUNCT;
		ps->punct[0] = *s++;
		ps->punct[1] = '\0';
		if (ps->punct[0] == '-' && s < ps->end && *s == '>') {
			ps->punct[1] = '>';
			ps->punct[2] = '\0';
			s++;
		}
		if (strchr("+-*/&().[]", ps->punct[0]) == NULL)
			ps->tok = T_BAD;
	}
	ps->s = s;
}

static bool x_is(struct xparse *ps, const char *p)
{
	return ps->tok == T_PUNCT && strcmp(ps->punct, p) == 0;
}

static struct xnode *x_node(struct xparse *ps, enum xop op)
{
	struct xnode *n;

	if (ps->failed)
		return NULL;
	n = x_alloc(sizeof(*n));
	if (n == NULL) {
		x_fail(ps, "out of memory");
		return NULL;
	}
	n->op = op;
	n->next = ps->p->nodes;
	ps->p->nodes = n;
	return n;
}

/* Type names. */

static bool x_keyword_type(const char *w)
{
	static const char *const kw[] = {
		"void", "char", "short", "int", "long", "signed", "unsigned",
		"float", "double", "_Bool", "struct", "union", "enum", "const",
		"volatile",
	};
	size_t i;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strcmp(w, kw[i]) == 0)
			return true;
	return false;
}

static struct xtype *x_named_type(const char *w)
{
	struct xsym *s;
	Dwarf_Die d;
	size_t i;

	if (x_find(x_vars, w, 0) != NULL || x_find(x_elfsyms, w, 0) != NULL)
		return NULL;	/* a variable: not a type name */
	s = x_find(x_tags, w, DW_TAG_typedef);
	if (s == NULL)
		s = x_find(x_tags, w, DW_TAG_base_type);
	if (s != NULL && dwarf_offdie(s->dw, s->off, &d) != NULL)
		return x_dwtype(s->dw, &d);
	for (i = 0; i < sizeof(x_named) / sizeof(x_named[0]); i++)
		if (strcmp(w, x_named[i]->name) == 0)
			return x_named[i];
	return NULL;
}

static bool x_type_start(struct xparse *ps)
{
	return ps->tok == T_NAME &&
	       (x_keyword_type(ps->name) || x_named_type(ps->name) != NULL);
}

static struct xtype *x_parse_type(struct xparse *ps)
{
	int nsigned = 0, nunsigned = 0, nshort = 0, nlong = 0, nint = 0,
	    nchar = 0;
	struct xtype *t = NULL;
	bool any = false;

	while (ps->tok == T_NAME) {
		const char *w = ps->name;

		if (strcmp(w, "const") == 0 || strcmp(w, "volatile") == 0) {
			x_next(ps);
			continue;
		}
		if (strcmp(w, "signed") == 0)
			nsigned++;
		else if (strcmp(w, "unsigned") == 0)
			nunsigned++;
		else if (strcmp(w, "short") == 0)
			nshort++;
		else if (strcmp(w, "long") == 0)
			nlong++;
		else if (strcmp(w, "int") == 0)
			nint++;
		else if (strcmp(w, "char") == 0)
			nchar++;
		else if (t == NULL && (!any || (strcmp(w, "double") == 0 &&
						nlong == 1 && nsigned + nunsigned +
						nshort + nint + nchar == 0)) &&
			 (strcmp(w, "void") == 0 || strcmp(w, "float") == 0 ||
			  strcmp(w, "double") == 0 || strcmp(w, "_Bool") == 0)) {
			t = w[0] == 'v' ? &x_void : w[0] == 'f' ? &x_float :
			    w[0] == 'd' ? &x_double : &x_bool;
		} else if (t == NULL && !any &&
			   (strcmp(w, "struct") == 0 || strcmp(w, "union") == 0 ||
			    strcmp(w, "enum") == 0)) {
			int tag = w[0] == 's' ? DW_TAG_structure_type :
				  w[0] == 'u' ? DW_TAG_union_type :
				  DW_TAG_enumeration_type;
			const char *kw = w[0] == 's' ? "struct" :
					 w[0] == 'u' ? "union" : "enum";
			struct xsym *s;
			Dwarf_Die d;

			x_next(ps);
			if (ps->tok != T_NAME) {
				x_syntax(ps);
				return NULL;
			}
			s = x_find(x_tags, ps->name, tag);
			if (s == NULL || dwarf_offdie(s->dw, s->off, &d) == NULL) {
				x_fail(ps, "no %s \"%s\" in the program's debug information",
				       kw, ps->name);
				return NULL;
			}
			t = x_dwtype(s->dw, &d);
		} else if (t == NULL && !any && x_named_type(w) != NULL) {
			t = x_named_type(w);
		} else
			break;
		any = true;
		x_next(ps);
	}
	if (t == NULL) {
		if (nchar)
			t = nunsigned ? &x_uchar : nsigned ? &x_schar : &x_char;
		else if (nshort)
			t = nunsigned ? &x_ushort : &x_short;
		else if (nlong >= 2)
			t = nunsigned ? &x_ullong : &x_llong;
		else if (nlong == 1 && t == NULL)
			t = nunsigned ? &x_ulong : &x_long;
		else if (nint || nsigned || nunsigned)
			t = nunsigned ? &x_uint : &x_int;
		else if (nlong == 1 && t == &x_double)
			t = &x_ldouble;
	} else if (t == &x_double && nlong == 1) {
		t = &x_ldouble;
	} else if (nsigned + nunsigned + nshort + nlong + nint + nchar != 0) {
		x_fail(ps, "bad type name");
		return NULL;
	}
	if (t == NULL) {
		x_syntax(ps);
		return NULL;
	}
	for (;;) {
		if (x_is(ps, "*")) {
			t = x_pointer_to(t);
			if (t == NULL) {
				x_fail(ps, "out of memory");
				return NULL;
			}
			x_next(ps);
		} else if (ps->tok == T_NAME && (strcmp(ps->name, "const") == 0 ||
						 strcmp(ps->name, "volatile") == 0)) {
			x_next(ps);
		} else
			break;
	}
	return t;
}

/* Type checking. */

static const char *x_tn(struct xtype *t, char *buf, size_t n)
{
	x_typename(buf, n, t);
	return buf;
}

static bool x_need_typed(struct xparse *ps, struct xnode *n)
{
	if (n == NULL || ps->failed)
		return false;
	if (n->untyped) {
		x_fail(ps, "\"%s\" has no debug info; cast it to its type, e.g. (int)%s",
		       n->name, n->name);
		return false;
	}
	return true;
}

static struct xnode *x_parse_expr(struct xparse *ps);
static struct xnode *x_parse_unary(struct xparse *ps);

/*
 * gdb's 'dir/file.c'::name: the file's name as compiled, or with its
 * compilation directory, ends with the one given, after a "/".
 */
static bool x_path_match(const char *path, const char *want)
{
	size_t n = strlen(path), k = strlen(want);

	if (n < k || strcmp(path + n - k, want) != 0)
		return false;
	return n == k || (want[0] != '/' && path[n - k - 1] == '/');
}

static bool x_cu_match(const struct xcu *cu, const char *want)
{
	char full[4096];

	if (cu == NULL)
		return false;
	if (x_path_match(cu->name, want))
		return true;
	if (cu->dir == NULL ||
	    (size_t)snprintf(full, sizeof(full), "%s/%s", cu->dir, cu->name) >= sizeof(full))
		return false;
	return x_path_match(full, want);
}

static const char *x_modname(Dwfl_Module *mod)
{
	const char *name = mod != NULL ?
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;

	return name != NULL ? name : "?";
}

/* A symbol of that file, or of that object (the program, a library). */
static bool x_sym_match(const struct xsym *s, const char *want)
{
	return x_cu_match(s->cu, want) || x_path_match(x_modname(s->mod), want);
}

static int x_module_named(Dwfl_Module *mod, void **user, const char *name,
			  Dwarf_Addr start, void *arg)
{
	(void)mod, (void)user, (void)start;
	return name != NULL && x_path_match(name, arg) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static bool x_file_known(const char *want)
{
	struct xcu *cu;

	do {
		for (cu = x_cus; cu != NULL; cu = cu->next)
			if (x_cu_match(cu, want))
				return true;
		if (x_dwfl != NULL &&
		    dwfl_getmodules(x_dwfl, x_module_named, (void *)want, 0) != 0)
			return true;
	} while (x_index_rest());
	return false;
}

/* The variables and functions of a name: the one meant, and the others. */
struct xpick {
	struct xsym	*best;
	struct xsym	*alt[64];	/* definitions elsewhere, best first */
	size_t		 nalt;
	size_t		 more;		/* others past alt[] */
};

/*
 * Which of two of one name comes first: x_rank(), then the file of
 * main() (the one gdb reads first), then the order of the debug
 * information.
 */
static bool x_before(const struct xsym *a, const struct xsym *b)
{
	bool am = x_main_cu != NULL && a->cu == x_main_cu;
	bool bm = x_main_cu != NULL && b->cu == x_main_cu;

	if (a->rank != b->rank)
		return a->rank < b->rank;
	if (am != bm)
		return am;
	return a->seq < b->seq;
}

static bool x_same_place(const struct xsym *a, const struct xsym *b)
{
	return a->addr == b->addr && a->tls == b->tls &&
	       (!a->tls || a->bias == b->bias);
}

static void x_collect(struct xsym **tab, const char *name, const char *file,
		      bool global, struct xpick *pk)
{
	struct xsym *s;
	size_t i, j;

	memset(pk, 0, sizeof(*pk));
	for (s = tab[x_hash(name)]; s != NULL; s = s->next) {
		if (strcmp(s->name, name) != 0 ||
		    (s->tag != DW_TAG_variable && s->tag != DW_TAG_subprogram) ||
		    (global && !s->global) ||
		    (file != NULL && !x_sym_match(s, file)))
			continue;
		if (pk->best == NULL || x_before(s, pk->best))
			pk->best = s;
	}
	if (pk->best == NULL || !pk->best->defined)
		return;
	for (s = tab[x_hash(name)]; s != NULL; s = s->next) {
		if (strcmp(s->name, name) != 0 || !s->defined ||
		    (s->tag != DW_TAG_variable && s->tag != DW_TAG_subprogram) ||
		    (global && !s->global) ||
		    (file != NULL && !x_sym_match(s, file)) ||
		    x_same_place(s, pk->best))
			continue;
		/* the libraries are indexed only for names the program lacks */
		if (pk->best->mod == x_main && s->mod != x_main)
			continue;
		/* one per place (a common symbol is in every file using it) */
		for (i = 0; i < pk->nalt && !x_same_place(s, pk->alt[i]); i++)
			;
		if (i < pk->nalt) {
			if (x_before(s, pk->alt[i]))
				pk->alt[i] = s;
			continue;
		}
		if (pk->nalt == sizeof(pk->alt) / sizeof(pk->alt[0])) {
			pk->more++;
			continue;
		}
		pk->alt[pk->nalt++] = s;
	}
	for (i = 1; i < pk->nalt; i++)
		for (j = i; j > 0 && x_before(pk->alt[j], pk->alt[j - 1]); j--) {
			s = pk->alt[j];
			pk->alt[j] = pk->alt[j - 1];
			pk->alt[j - 1] = s;
		}
}

static struct xsym *x_pick(struct xsym **tab, const char *name,
			   const char *file, bool global, struct xpick *pk)
{
	do
		x_collect(tab, name, file, global, pk);
	while (pk->best == NULL && x_index_rest());
	return pk->best;
}

static void x_note_add(char *note, const char *s)
{
	size_t n = strlen(note);

	for (; *s != '\0' && n + 5 < X_NOTE; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			n += (size_t)snprintf(note + n, X_NOTE - n, "\\%03o", c);
		else
			note[n++] = (char)c;
	}
	note[n] = '\0';
}

/*
 * The shortest end of s's file name (with its directory if need be) that
 * names none of the others, into buf; false if there is none.
 */
static bool x_label(const struct xsym *s, const struct xpick *pk,
		    char *buf, size_t n)
{
	const char *path = buf, *suf = buf;
	bool alone = false;
	long i, k;

	if (s->cu == NULL) {
		/* a global of an object without debug info: its object */
		const char *b = strrchr(x_modname(s->mod), '/');

		snprintf(buf, n, "%s", b != NULL ? b + 1 : x_modname(s->mod));
		return true;
	}
	if (s->cu->dir == NULL ||
		 (size_t)snprintf(buf, n, "%s/%s", s->cu->dir, s->cu->name) >= n)
		snprintf(buf, n, "%s", s->cu->name);
	for (i = (long)strlen(path) - 1; i >= -1 && !alone; i--) {
		if (i >= 0 && path[i] != '/')
			continue;
		suf = path + i + 1;
		if (*suf == '\0')
			continue;
		alone = true;
		for (k = -1; k < (long)pk->nalt && alone; k++) {
			const struct xsym *o = k < 0 ? pk->best : pk->alt[k];

			alone = o == s || !x_sym_match(o, suf);
		}
	}
	memmove(buf, suf, strlen(suf) + 1);
	return alone;
}

/*
 * "'a/util.c'" (with ::name), and the address where the file names do
 * not tell them apart.
 */
static void x_note_place(char *note, const struct xsym *s,
			 const struct xpick *pk, const char *name)
{
	char path[4096];
	bool alone = x_label(s, pk, path, sizeof(path));

	x_note_add(note, "'");
	x_note_add(note, path);
	x_note_add(note, "'");
	if (name != NULL) {
		x_note_add(note, "::");
		x_note_add(note, name);
	}
	if (!alone && !s->tls) {
		snprintf(path, sizeof(path), " at 0x%" PRIx64, s->addr);
		x_note_add(note, path);
	}
}


/*
 * A name that several definitions have: the value says which one it is
 * and where the others are, "<'a/util.c'::level; also in 'b/util.c'> ".
 */
static void x_note(struct xparse *ps, const char *name, const struct xpick *pk)
{
	char *note = ps->p->note;
	size_t i;

	if (pk->nalt == 0 || strlen(note) + 64 > X_NOTE)
		return;
	x_note_add(note, "<");
	x_note_place(note, pk->best, pk, name);
	x_note_add(note, "; also in ");
	for (i = 0; i < pk->nalt && i < X_ALTS; i++) {
		if (i > 0)
			x_note_add(note, ", ");
		x_note_place(note, pk->alt[i], pk, NULL);
	}
	if (pk->nalt + pk->more > X_ALTS) {
		char more[32];

		snprintf(more, sizeof(more), " and %zu more",
			 pk->nalt + pk->more - X_ALTS);
		x_note_add(note, more);
	}
	x_note_add(note, "> ");
}

static int x_tls_modid(uint64_t bias, size_t *modid);

/* A thread-local's module, for the evaluating thread to find its block. */
static struct xnode *x_var_tls(struct xparse *ps, struct xnode *n)
{
	if (n->tls && x_tls_modid(n->bias, &n->modid) != 0) {
		x_fail(ps, "thread-local \"%s\": this C library's thread-local storage is not known",
		       n->name);
		return NULL;
	}
	return n;
}

static struct xnode *x_var(struct xparse *ps, const char *name, const char *file)
{
	struct xpick pk;
	struct xsym *s;
	struct xnode *n;
	Dwarf_Die d;

	if (file != NULL && !x_file_known(file)) {
		x_fail(ps, "no source file \"%s\" in the program", file);
		return NULL;
	}
	n = x_node(ps, XO_VAR);
	if (n == NULL)
		return NULL;
	n->name = x_strdup(name);
	n->lval = true;
	s = x_pick(x_vars, name, file, false, &pk);
	if (s == NULL && file != NULL)	/* gdb: a global, seen from the file */
		s = x_pick(x_vars, name, NULL, true, &pk);
	if (s != NULL && !s->defined) {
		/* declared here, defined in an object without DWARF */
		struct xsym *e = x_find(x_elfsyms, name, s->tag);

		if (e != NULL && dwarf_offdie(s->dw, s->off, &d) != NULL) {
			n->type = s->tag == DW_TAG_subprogram ?
				  x_dwtype(s->dw, &d) : x_dwtype_of(s->dw, &d);
			n->addr = e->addr;
			n->tls = e->tls;
			n->bias = e->bias;
			return x_var_tls(ps, n);
		}
		s = NULL;
	}
	if (s != NULL && dwarf_offdie(s->dw, s->off, &d) != NULL) {
		n->type = s->tag == DW_TAG_subprogram ?
			  x_dwtype(s->dw, &d) : x_dwtype_of(s->dw, &d);
		n->addr = s->addr;
		n->tls = s->tls;
		n->bias = s->bias;
		x_note(ps, name, &pk);
		return x_var_tls(ps, n);
	}
	s = x_pick(x_elfsyms, name, file, false, &pk);
	if (s == NULL && file != NULL)
		s = x_pick(x_elfsyms, name, NULL, true, &pk);
	if (s == NULL) {
		if (file != NULL)
			x_fail(ps, "no symbol \"%s\" in \"%s\"", name, file);
		else
			x_fail(ps, "no symbol \"%s\"", name);
		return NULL;
	}
	if (s->tag == DW_TAG_subprogram) {
		n->type = &x_notext;
	} else {
		n->untyped = true;
		n->type = &x_int;
	}
	n->addr = s->addr;
	n->tls = s->tls;
	n->bias = s->bias;
	x_note(ps, name, &pk);
	return x_var_tls(ps, n);
}

static struct xnode *x_parse_primary(struct xparse *ps)
{
	struct xnode *n;

	switch (ps->tok) {
	case T_NAME:
		if (x_keyword_type(ps->name)) {
			x_syntax(ps);
			return NULL;
		}
		n = x_var(ps, ps->name, NULL);
		x_next(ps);
		return n;
	case T_SCOPE: {
		char file[sizeof(ps->file)];

		memcpy(file, ps->file, sizeof(file));
		x_next(ps);
		if (ps->tok != T_NAME || x_keyword_type(ps->name) ||
		    strcmp(ps->name, "sizeof") == 0) {
			x_syntax(ps);
			return NULL;
		}
		n = x_var(ps, ps->name, file);
		x_next(ps);
		return n;
	}
	case T_INT:
	case T_CHARLIT:
		n = x_node(ps, XO_INT);
		if (n == NULL)
			return NULL;
		n->ival = ps->ival;
		n->type = ps->tok == T_CHARLIT ? &x_char :
			  ps->ival <= INT32_MAX ? &x_int :
			  ps->ival <= INT64_MAX ? &x_long : &x_ulong;
		x_next(ps);
		return n;
	case T_PUNCT:
		if (x_is(ps, "(")) {
			x_next(ps);
			n = x_parse_expr(ps);
			if (!ps->failed && !x_is(ps, ")"))
				x_syntax(ps);
			x_next(ps);
			return ps->failed ? NULL : n;
		}
		/* fall through */
	default:
		if (ps->tok == T_BAD)
			x_fail(ps, "bad token at \"%.*s\"",
			       (int)(ps->end - ps->at > 20 ? 20 : ps->end - ps->at),
			       ps->at);
		else
			x_syntax(ps);
		return NULL;
	}
}

static const struct xmember *x_member(struct xtype *st, const char *name,
				      uint64_t *extra)
{
	size_t i;

	for (i = 0; i < st->nmem; i++) {
		const struct xmember *m = &st->mem[i];
		struct xtype *mt = x_strip(m->type);

		if (m->name != NULL && strcmp(m->name, name) == 0) {
			*extra = 0;
			return m;
		}
		if (m->name == NULL &&
		    (mt->kind == XK_STRUCT || mt->kind == XK_UNION)) {
			const struct xmember *in = x_member(mt, name, extra);

			if (in != NULL) {
				*extra += m->off;
				return in;
			}
		}
	}
	return NULL;
}

static struct xnode *x_parse_postfix(struct xparse *ps)
{
	struct xnode *n = x_parse_primary(ps);
	char tn[256];

	while (!ps->failed && (x_is(ps, ".") || x_is(ps, "->") || x_is(ps, "["))) {
		struct xnode *m;

		if (!x_need_typed(ps, n))
			return NULL;
		if (x_is(ps, "[")) {
			struct xtype *t = x_strip(n->type);

			x_next(ps);
			m = x_node(ps, XO_INDEX);
			if (m == NULL)
				return NULL;
			m->a = n;
			m->b = x_parse_expr(ps);
			if (ps->failed)
				return NULL;
			if (!x_is(ps, "]")) {
				x_syntax(ps);
				return NULL;
			}
			x_next(ps);
			if (!x_need_typed(ps, m->b))
				return NULL;
			if (t->kind != XK_ARRAY && t->kind != XK_PTR) {
				x_fail(ps, "cannot index %s", x_tn(n->type, tn, sizeof(tn)));
				return NULL;
			}
			if (!x_integer(x_strip(m->b->type))) {
				x_fail(ps, "array index is not an integer");
				return NULL;
			}
			if (x_strip(t->target)->kind == XK_VOID) {
				x_fail(ps, "cannot index %s", x_tn(n->type, tn, sizeof(tn)));
				return NULL;
			}
			m->type = t->target;
			m->lval = true;
			n = m;
			continue;
		}
		{
			bool arrow = x_is(ps, "->");
			struct xtype *t = x_strip(n->type);
			uint64_t extra;
			const struct xmember *mem;
			struct xnode *base = n;

			x_next(ps);
			if (ps->tok != T_NAME) {
				x_syntax(ps);
				return NULL;
			}
			if (arrow) {
				if (t->kind != XK_PTR ||
				    (x_strip(t->target)->kind != XK_STRUCT &&
				     x_strip(t->target)->kind != XK_UNION)) {
					x_fail(ps, "\"->\" needs a pointer to a struct or union, not %s",
					       x_tn(n->type, tn, sizeof(tn)));
					return NULL;
				}
				base = x_node(ps, XO_DEREF);
				if (base == NULL)
					return NULL;
				base->a = n;
				base->type = t->target;
				base->lval = true;
				t = x_strip(t->target);
			} else if (t->kind != XK_STRUCT && t->kind != XK_UNION) {
				x_fail(ps, "\".\" needs a struct or union, not %s",
				       x_tn(n->type, tn, sizeof(tn)));
				return NULL;
			}
			if (!t->complete) {
				x_fail(ps, "%s is incomplete (no definition in the debug information)",
				       x_tn(t, tn, sizeof(tn)));
				return NULL;
			}
			mem = x_member(t, ps->name, &extra);
			if (mem == NULL) {
				x_fail(ps, "no member \"%s\" in %s", ps->name,
				       x_tn(t, tn, sizeof(tn)));
				return NULL;
			}
			m = x_node(ps, XO_MEMBER);
			if (m == NULL)
				return NULL;
			m->a = base;
			m->mem = mem;
			m->ival = extra;
			m->type = mem->type;
			m->lval = base->lval;
			n = m;
			x_next(ps);
		}
	}
	return n;
}

/*
 * sizeof expr, sizeof(type): an unsigned long, as in gdb; the expression
 * is not evaluated.
 */
static struct xnode *x_parse_sizeof(struct xparse *ps)
{
	struct xtype *t = NULL;
	struct xnode *n;

	x_next(ps);
	if (x_is(ps, "(")) {
		struct xparse save = *ps;

		x_next(ps);
		if (x_type_start(ps)) {
			t = x_parse_type(ps);
			if (ps->failed)
				return NULL;
			if (!x_is(ps, ")")) {
				x_syntax(ps);
				return NULL;
			}
			x_next(ps);
		} else
			*ps = save;
	}
	if (t == NULL) {
		struct xnode *a = x_parse_unary(ps);

		if (!x_need_typed(ps, a))
			return NULL;
		t = a->type;
	}
	n = x_node(ps, XO_INT);
	if (n == NULL)
		return NULL;
	n->ival = x_sizeof(t);
	n->type = &x_ulong;
	return n;
}

static struct xnode *x_parse_unary(struct xparse *ps)
{
	struct xnode *n, *a;
	char tn[256];

	if (ps->failed)
		return NULL;
	if (x_is(ps, "(")) {
		/* a cast, if a type name follows */
		struct xparse save = *ps;

		x_next(ps);
		if (x_type_start(ps)) {
			struct xtype *t = x_parse_type(ps), *ts;

			if (ps->failed)
				return NULL;
			if (!x_is(ps, ")")) {
				x_syntax(ps);
				return NULL;
			}
			x_next(ps);
			a = x_parse_unary(ps);
			if (ps->failed || a == NULL)
				return NULL;
			ts = x_strip(t);
			n = x_node(ps, XO_CAST);
			if (n == NULL)
				return NULL;
			n->a = a;
			n->type = t;
			if (a->untyped) {
				/* gdb: a cast says what the symbol's memory holds */
				n->lval = true;
				n->untyped = false;
				return n;
			}
			if (!x_scalar(ts)) {
				if (ts == x_strip(a->type)) {
					n->lval = a->lval;
					return n;
				}
				x_fail(ps, "cannot cast %s to %s",
				       x_tn(a->type, tn, sizeof(tn)),
				       x_tn(t, tn + 128, sizeof(tn) - 128));
				return NULL;
			}
			if (!x_scalar(x_strip(a->type)) &&
			    !(ts->kind == XK_PTR && x_strip(a->type)->kind == XK_ARRAY) &&
			    !(ts->kind != XK_FLOAT && x_strip(a->type)->kind == XK_FUNC)) {
				x_fail(ps, "cannot cast %s to %s",
				       x_tn(a->type, tn, sizeof(tn)),
				       x_tn(t, tn + 128, sizeof(tn) - 128));
				return NULL;
			}
			return n;
		}
		*ps = save;
		return x_parse_postfix(ps);
	}
	if (ps->tok == T_NAME && strcmp(ps->name, "sizeof") == 0)
		return x_parse_sizeof(ps);
	if (x_is(ps, "*") || x_is(ps, "&") || x_is(ps, "-") || x_is(ps, "+")) {
		char op = ps->punct[0];
		struct xtype *t;

		x_next(ps);
		a = x_parse_unary(ps);
		if (a == NULL || ps->failed)
			return NULL;
		if (op == '&') {
			if (!a->lval) {
				x_fail(ps, "cannot take the address of a value that is not in memory");
				return NULL;
			}
			n = x_node(ps, XO_ADDR);
			if (n == NULL)
				return NULL;
			n->a = a;
			n->type = x_pointer_to(a->untyped ? &x_nodata : a->type);
			if (n->type == NULL) {
				x_fail(ps, "out of memory");
				return NULL;
			}
			return n;
		}
		if (!x_need_typed(ps, a))
			return NULL;
		t = x_strip(a->type);
		if (op == '+')
			return a;
		if (op == '-') {
			if (!x_integer(t) && t->kind != XK_FLOAT) {
				x_fail(ps, "cannot negate %s", x_tn(a->type, tn, sizeof(tn)));
				return NULL;
			}
			n = x_node(ps, XO_NEG);
			if (n == NULL)
				return NULL;
			n->a = a;
			n->type = t->kind == XK_FLOAT ? (t->size == 4 ? &x_float : &x_double) :
				  t->size == 8 ? (t->sign ? &x_long : &x_ulong) :
				  t->size == 4 && !t->sign && t->kind == XK_INT ? &x_uint : &x_int;
			return n;
		}
		if (t->kind == XK_FUNC)
			return a;	/* *main is main, as in C */
		if ((t->kind != XK_PTR && t->kind != XK_ARRAY) ||
		    x_strip(t->target)->kind == XK_VOID) {
			x_fail(ps, "cannot dereference %s", x_tn(a->type, tn, sizeof(tn)));
			return NULL;
		}
		n = x_node(ps, XO_DEREF);
		if (n == NULL)
			return NULL;
		n->a = a;
		n->type = t->target;
		n->lval = true;
		return n;
	}
	return x_parse_postfix(ps);
}

static struct xtype *x_arith(struct xtype *a, struct xtype *b)
{
	if (a->kind == XK_FLOAT || b->kind == XK_FLOAT) {
		/* computed in double; float stays float, as in C */
		uint64_t fa = a->kind == XK_FLOAT ? a->size : 0;
		uint64_t fb = b->kind == XK_FLOAT ? b->size : 0;

		return (fa > fb ? fa : fb) == 4 ? &x_float : &x_double;
	}
	if (a->size == 8 || b->size == 8)
		return ((a->size == 8 && !a->sign) || (b->size == 8 && !b->sign)) ?
		       &x_ulong : &x_long;
	if ((a->size == 4 && !a->sign && a->kind == XK_INT) ||
	    (b->size == 4 && !b->sign && b->kind == XK_INT))
		return &x_uint;
	return &x_int;
}

static struct xnode *x_binary(struct xparse *ps, char op, struct xnode *a,
			      struct xnode *b)
{
	struct xtype *ta, *tb;
	struct xnode *n;
	char tn[256];

	if (!x_need_typed(ps, a) || !x_need_typed(ps, b))
		return NULL;
	ta = x_strip(a->type);
	tb = x_strip(b->type);
	n = x_node(ps, op == '+' ? XO_ADD : op == '-' ? XO_SUB :
		       op == '*' ? XO_MUL : XO_DIV);
	if (n == NULL)
		return NULL;
	n->a = a;
	n->b = b;
	if (ta->kind == XK_ARRAY)
		ta = x_pointer_to(ta->target);
	else if (ta->kind == XK_FUNC)
		ta = x_pointer_to(ta);
	if (tb->kind == XK_ARRAY)
		tb = x_pointer_to(tb->target);
	else if (tb->kind == XK_FUNC)
		tb = x_pointer_to(tb);
	if (ta == NULL || tb == NULL) {
		x_fail(ps, "out of memory");
		return NULL;
	}
	if ((op == '+' || op == '-') && ta->kind == XK_PTR && x_integer(tb)) {
		n->type = ta;
		return n;
	}
	if (op == '+' && tb->kind == XK_PTR && x_integer(ta)) {
		n->a = b;
		n->b = a;
		n->type = tb;
		return n;
	}
	if (op == '-' && ta->kind == XK_PTR && tb->kind == XK_PTR) {
		n->type = &x_long;
		return n;
	}
	if ((x_integer(ta) || ta->kind == XK_FLOAT) &&
	    (x_integer(tb) || tb->kind == XK_FLOAT)) {
		n->type = x_arith(ta, tb);
		return n;
	}
	{
		char tn2[256];

		x_fail(ps, "cannot apply \"%c\" to %s and %s", op,
		       x_tn(a->type, tn, sizeof(tn)), x_tn(b->type, tn2, sizeof(tn2)));
	}
	return NULL;
}

static struct xnode *x_parse_mult(struct xparse *ps)
{
	struct xnode *n = x_parse_unary(ps);

	while (!ps->failed && (x_is(ps, "*") || x_is(ps, "/"))) {
		char op = ps->punct[0];

		if (op == '/') {
			/* a trailing "/x" or "/d" is the output format */
			struct xparse save = *ps;

			x_next(ps);
			if (ps->tok == T_NAME && (strcmp(ps->name, "x") == 0 ||
						  strcmp(ps->name, "d") == 0)) {
				char f = ps->name[0];

				x_next(ps);
				if (ps->tok == T_END) {
					ps->p->fmt = f;
					return n;
				}
			}
			*ps = save;
		}
		x_next(ps);
		n = x_binary(ps, op, n, x_parse_unary(ps));
	}
	return n;
}

static struct xnode *x_parse_expr(struct xparse *ps)
{
	struct xnode *n = x_parse_mult(ps);

	while (!ps->failed && (x_is(ps, "+") || x_is(ps, "-"))) {
		char op = ps->punct[0];

		x_next(ps);
		n = x_binary(ps, op, n, x_parse_mult(ps));
	}
	return n;
}

struct x_tls_find {
	uint64_t	 bias;
	size_t		 modid;
};

static int x_tls_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct x_tls_find *f = arg;

	(void)size;
	if ((uint64_t)info->dlpi_addr != f->bias || info->dlpi_tls_modid == 0)
		return 0;
	f->modid = info->dlpi_tls_modid;
	return 1;
}

static int x_tls_state;		/* 1 x_tls_block() agrees with glibc, -1 not */

static int x_tls_check_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t b;

	(void)size, (void)arg;
	if (info->dlpi_tls_modid == 0 || info->dlpi_tls_data == NULL)
		return 0;
	x_tls_state = x_tls_block(info->dlpi_tls_modid, &b) == 0 &&
		      b == (uint64_t)(uintptr_t)info->dlpi_tls_data ? 1 : -1;
	return 1;
}

/*
 * At compile time (under x_lock): the module id of a thread-local of the
 * module loaded at @bias, for x_tls_block() in the evaluating thread.
 */
static int x_tls_modid(uint64_t bias, size_t *modid)
{
	struct x_tls_find f = { bias, 0 };

	if (x_tls_state == 0)
		dl_iterate_phdr(x_tls_check_cb, NULL);
	if (x_tls_state < 0)
		return -1;
	dl_iterate_phdr(x_tls_cb, &f);
	*modid = f.modid;
	return 0;
}

/* -------------------------------------------------------------------------
 * The module's interface.
 */

static int x_parse(struct xprog *p)
{
	struct xparse ps;

	memset(&ps, 0, sizeof(ps));
	p->fmt = 0;
	p->note[0] = '\0';
	ps.p = p;
	ps.s = p->text;
	ps.end = p->text + p->len;
	if (memchr(p->text, '\0', p->len) != NULL) {
		x_fail(&ps, "NUL byte in the expression");
		return -1;
	}
	x_next(&ps);
	if (ps.tok == T_END)
		x_fail(&ps, "empty expression");
	p->root = ps.failed ? NULL : x_parse_expr(&ps);
	if (!ps.failed && ps.tok != T_END)
		x_syntax(&ps);
	if (!ps.failed && p->root != NULL && p->root->untyped)
		x_need_typed(&ps, p->root);
	if (ps.failed)
		p->root = NULL;
	return ps.failed ? -1 : 0;
}

/* Whether values of a type show addresses (pointers, functions). */
static bool x_has_addr(struct xtype *t)
{
	size_t i;

	t = x_strip(t);
	if (t->hasaddr != 0)
		return t->hasaddr > 0;
	if (t->kind == XK_PTR || t->kind == XK_FUNC) {
		t->hasaddr = 1;
		return true;
	}
	t->hasaddr = -1;	/* also while looking, against cycles */
	if (t->kind == XK_ARRAY && x_has_addr(t->target))
		t->hasaddr = 1;
	for (i = 0; i < t->nmem && t->hasaddr < 0; i++)
		if (x_has_addr(t->mem[i].type))
			t->hasaddr = 1;
	return t->hasaddr > 0;
}

static void *x_compile(const char *expr, size_t len)
{
	struct xprog *p = x_alloc(sizeof(*p));
	int r;

	if (p == NULL)
		return NULL;
	p->text = malloc(len + 1);
	if (p->text == NULL) {
		free(p);
		return NULL;
	}
	memcpy(p->text, expr, len);
	p->text[len] = '\0';
	p->len = len;
	pthread_mutex_lock(&x_lock);
	x_memfd_open();
	r = x_index(false);
	if (r != 0)
		snprintf(p->err, sizeof(p->err),
			 "cannot read this process's objects in /proc/%d: %s%s",
			 (int)getpid(), r > 0 ? strerror(r) : dwfl_errmsg(-1),
			 x_undumpable());
	else if (x_parse(p) != 0 && strncmp(p->err, "no ", 3) == 0 &&
		 x_index(true) == 0 && x_dwfl != NULL) {
		/* something unknown: maybe in an object loaded since */
		p->err[0] = '\0';
		x_parse(p);
	}
	if (p->root == NULL && x_main_why[0] != '\0' &&
	    strncmp(p->err, "no symbol", 9) == 0) {
		size_t n = strlen(p->err);

		snprintf(p->err + n, sizeof(p->err) - n, " (%s)", x_main_why);
	}
	if (p->root != NULL && p->fmt == 0 && x_has_addr(p->root->type))
		p->atab = x_atab_get();
	pthread_mutex_unlock(&x_lock);
	return p;
}

static int x_same(const void *prog, const char *expr, size_t len)
{
	const struct xprog *p = prog;

	return p->len == len && memcmp(p->text, expr, len) == 0;
}

static void x_release(void *prog)
{
	struct xprog *p = prog;
	struct xnode *n, *next;

	if (p == NULL)
		return;
	x_atab_put(p->atab);
	for (n = p->nodes; n != NULL; n = next) {
		next = n->next;
		free((char *)n->name);
		free(n);
	}
	free(p->text);
	free(p);
}

/* A fork while another thread compiles must not leave the child's lock held. */
static void x_prepare(void)
{
	pthread_mutex_lock(&x_lock);
}

static void x_after(void)
{
	pthread_mutex_unlock(&x_lock);
}

__attribute__((constructor)) static void x_init(void)
{
	pthread_atfork(x_prepare, x_after, x_after);
}

static const struct rb_watch_ops x_ops = {
	.abi = RB_WATCH_ABI,
	.compile = x_compile,
	.same = x_same,
	.eval = x_evaluate,
	.release = x_release,
};

EXPORT const struct rb_watch_ops *rbtrace_watch_ops(void);
EXPORT const struct rb_watch_ops *rbtrace_watch_ops(void)
{
	return &x_ops;
}
