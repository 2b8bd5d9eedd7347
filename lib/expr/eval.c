/* SPDX-License-Identifier: MIT */
/*
 * eval.c - the hook side of rbtrace-watch.so: a compiled expression
 * evaluated by the watched thread at its hooks, and its value formatted as
 * gdb prints it.  No allocation, no lock, no call that may take either
 * (the build checks its imports: tests/hookside.sh); the program's
 * memory is read with process_vm_readv() on itself, so that a bad
 * address is an error, never a fault.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "expr.h"

static void x_fmtname(char *buf, size_t n, struct xtype *t, const char *inner);


/* The C spelling of a type, as gdb puts it in "(type) 0x..." */
void x_typename(char *buf, size_t n, struct xtype *t)
{
	x_fmtname(buf, n, t, "");
}

static void x_fmtname(char *buf, size_t n, struct xtype *t, const char *inner)
{
	char in[256];

	if (t == NULL)
		t = &x_void;
	switch (t->kind) {
	case XK_PTR:
		if (t->target != NULL && (x_strip(t->target)->kind == XK_ARRAY ||
					  (x_strip(t->target)->kind == XK_FUNC &&
					   !x_strip(t->target)->nodebug)) &&
		    t->target->kind != XK_TYPEDEF)
			snprintf(in, sizeof(in), "(*%s)", inner);
		else
			snprintf(in, sizeof(in), "*%s", inner);
		x_fmtname(buf, n, t->target, in);
		return;
	case XK_ARRAY:
		if (t->sized)
			snprintf(in, sizeof(in), "%s[%" PRIu64 "]", inner, t->count);
		else
			snprintf(in, sizeof(in), "%s[]", inner);
		x_fmtname(buf, n, t->target, in);
		return;
	case XK_FUNC:
		if (t->nodebug)
			break;
		/* gdb: "int (int, char **)", "void (*)(int)", "int (*)()" */
		{
			char args[256];
			size_t i, k = 0;

			args[0] = '\0';
			for (i = 0; i < t->nparam && k < sizeof(args); i++) {
				char one[256];

				x_typename(one, sizeof(one), t->param[i]);
				k += (size_t)snprintf(args + k, sizeof(args) - k, "%s%s",
						      i > 0 ? ", " : "", one);
			}
			if (t->nparam > 0 && t->varargs && k < sizeof(args))
				snprintf(args + k, sizeof(args) - k, ", ...");
			else if (t->nparam == 0 && t->proto)
				snprintf(args, sizeof(args), "void");
			snprintf(in, sizeof(in), "%s(%s)", inner, args);
		}
		x_fmtname(buf, n, t->target, in);
		return;
	case XK_QUAL:
		if (x_strip(t->target)->kind == XK_PTR) {
			snprintf(in, sizeof(in), " %s%s", t->name, inner);
			x_fmtname(buf, n, t->target, in);
		} else {
			char sub[256];

			x_fmtname(sub, sizeof(sub), t->target, "");
			snprintf(buf, n, "%s %s%s%s", t->name, sub,
				 inner[0] != '\0' ? " " : "", inner);
		}
		return;
	case XK_STRUCT:
	case XK_UNION:
	case XK_ENUM:
		snprintf(buf, n, "%s %s%s%s",
			 t->kind == XK_STRUCT ? "struct" :
			 t->kind == XK_UNION ? "union" : "enum",
			 t->name != NULL ? t->name : "{...}",
			 inner[0] != '\0' ? " " : "", inner);
		return;
	default:
		break;
	}
	snprintf(buf, n, "%s%s%s", t->name != NULL ? t->name : "?",
		 inner[0] != '\0' ? " " : "", inner);
}

/* The allocated section of @m that holds @a, or -1. */
int x_asec_find(const struct xamod *m, uint64_t a)
{
	size_t lo = 0, hi = m->nsec;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->sec[mid].hi <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nsec && m->sec[lo].lo <= a ? (int)lo : -1;
}

/*
 * The symbol an address is in, as gdb's lookup_minimal_symbol_by_pc_section()
 * and build_address_symbolic() find it: the last symbol of its section at or
 * below it (by name among equal addresses, a global function preferred),
 * skipping those without a size; it must hold the address, else the nearest
 * such zero-sized one is taken if it is code.  No lock, no allocation.
 */
static const struct xaddr *x_atab_find(const struct xatab *a, uint64_t pc,
				       uint64_t *off)
{
	const struct xamod *m;
	const struct xaddr *x;
	size_t lo = 0, hi;
	long i, bz = -1;
	int sec;

	if (a == NULL)
		return NULL;
	hi = a->nmod;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->mod[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	m = &a->mod[lo - 1];
	if (pc >= m->hi || (sec = x_asec_find(m, pc)) < 0)
		return NULL;
	lo = 0;
	hi = m->nsym;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->sym[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = (long)lo - 1; i >= 0; i--) {
		x = &m->sym[i];
		if (x->addr < m->sec[sec].lo) {
			i = -1;
			break;
		}
		if (x->sec != sec)
			continue;
		if (i > 0 && x->kind != XA_TEXT && x[-1].kind == XA_TEXT &&
		    x[-1].size == x->size && x[-1].addr == x->addr &&
		    x[-1].sec == x->sec)
			continue;
		if (x->size == 0) {
			if (bz < 0)
				bz = i;
			continue;
		}
		break;
	}
	if (i < 0)
		i = bz;
	else if (pc >= m->sym[i].addr + m->sym[i].size)
		i = bz;
	if (i < 0)
		return NULL;
	x = &m->sym[i];
	if (x->size == 0 && x->kind == XA_DATA)
		return NULL;
	*off = pc - x->addr;
	return x;
}

/* -------------------------------------------------------------------------
 * Reading the program's memory.
 */

static int x_memfd = -1;		/* /proc/self/mem of x_memfd_pid */
static pid_t x_memfd_pid;
static bool x_use_memfd;		/* process_vm_readv() is not allowed */

/* A fork child has the parent's descriptor, opened on the parent's memory. */
void x_memfd_open(void)
{
	if (x_memfd >= 0 && x_memfd_pid == getpid())
		return;
	if (x_memfd >= 0)
		close(x_memfd);
	x_memfd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	x_memfd_pid = getpid();
}

static size_t x_readmem(uint64_t addr, void *buf, size_t n)
{
	struct iovec l = { buf, n }, r = { (void *)(uintptr_t)addr, n };
	ssize_t got;

	if (n == 0)
		return 0;
	if (!x_use_memfd) {
		got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		if (got >= 0)
			return (size_t)got;
		if (errno != EPERM && errno != ENOSYS)
			return 0;
		x_use_memfd = true;
	}
	if (x_memfd < 0 || x_memfd_pid != getpid())
		return 0;	/* compile() opens it, in this process */
	got = pread(x_memfd, buf, n, (off_t)addr);
	return got > 0 ? (size_t)got : 0;
}

/* n bytes at addr, through the program's window; false: unreadable. */
static bool x_read(struct xprog *p, uint64_t addr, void *buf, size_t n)
{
	if (n > X_WINDOW)
		return x_readmem(addr, buf, n) == n;
	if (!(p->wlen != 0 && addr >= p->wbase && addr - p->wbase <= p->wlen &&
	      p->wlen - (addr - p->wbase) >= n)) {
		p->wbase = addr;
		p->wlen = x_readmem(addr, p->window, X_WINDOW);
		if (p->wlen < n)
			p->wlen = x_readmem(addr, p->window, n);
		if (p->wlen < n) {
			p->wlen = 0;
			return false;
		}
	}
	memcpy(buf, p->window + (addr - p->wbase), n);
	return true;
}

/* -------------------------------------------------------------------------
 * Thread-local variables: the block of a module in the evaluating thread,
 * found without a lock or an allocation (dl_iterate_phdr() takes the
 * loader's lock, __tls_get_addr() may allocate).
 */

/*
 * As glibc's _dl_tls_get_addr_soft() finds it: the thread pointer's
 * control block (x86_64 tcbhead_t: tcb, dtv, self) holds the thread's DTV,
 * whose entry @modid (16 bytes each) starts with the module's block,
 * (void *)-1 while the thread has not needed it; dtv[-1] counts the
 * entries.  Read without faulting; x_tls_modid() checked the layout.
 */
int x_tls_block(size_t modid, uint64_t *block)
{
#if defined(__x86_64__)
	uint64_t tp, dtv, n, b;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	if (modid == 0 || x_readmem(tp + 8, &dtv, 8) != 8 ||
	    x_readmem(dtv - 16, &n, 8) != 8 || modid > n ||
	    x_readmem(dtv + 16 * (uint64_t)modid, &b, 8) != 8 ||
	    b == 0 || b == UINT64_MAX)
		return -1;
	*block = b;
	return 0;
#else
	(void)modid, (void)block;
	return -1;
#endif
}

/* -------------------------------------------------------------------------
 * Evaluation.
 */

struct xval {
	struct xtype	*type;
	bool		 lval;
	uint64_t	 addr;		/* lval */
	uint64_t	 u;		/* scalar rvalue: integer or pointer */
	double		 d;		/* float rvalue */
};

static int x_eerr(struct xprog *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int x_eerr(struct xprog *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->eerr, p->eerrsz, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t x_sext(uint64_t v, uint64_t size)
{
	if (size >= 8 || size == 0)
		return v;
	if (v & (1ull << (size * 8 - 1)))
		v |= ~0ull << (size * 8);
	return v;
}

static uint64_t x_zext(uint64_t v, uint64_t size)
{
	return size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

/* Load a scalar lvalue's bits. */
static int x_load(struct xprog *p, struct xval *v)
{
	struct xtype *t = x_strip(v->type);
	uint8_t buf[16] = { 0 };
	uint64_t size = t->size;

	if (!v->lval)
		return 0;
	if (t->kind == XK_ARRAY || t->kind == XK_FUNC) {
		/* an array or a function used as a value is its address */
		v->u = v->addr;
		v->lval = false;
		return 0;
	}
	if (size == 0 || size > 16)
		return x_eerr(p, "cannot use a value of %" PRIu64 " bytes here", size);
	if (!x_read(p, v->addr, buf, size))
		return x_eerr(p, "cannot read 0x%" PRIx64, v->addr);
	if (t->kind == XK_FLOAT) {
		if (size == 4) {
			float f;

			memcpy(&f, buf, 4);
			v->d = f;
		} else if (size == 8) {
			memcpy(&v->d, buf, 8);
		} else {
			long double ld;

			memcpy(&ld, buf, sizeof(ld) < 16 ? sizeof(ld) : 16);
			v->d = (double)ld;
		}
	} else {
		uint64_t u = 0;

		memcpy(&u, buf, size > 8 ? 8 : size);
		v->u = t->sign ? x_sext(u, size) : x_zext(u, size);
	}
	v->lval = false;
	return 0;
}

static int x_eval(struct xprog *p, const struct xnode *n, struct xval *v);

static int x_eval_scalar(struct xprog *p, const struct xnode *n, struct xval *v)
{
	if (x_eval(p, n, v) != 0)
		return -1;
	return x_load(p, v);
}

static double x_as_double(const struct xval *v)
{
	struct xtype *t = x_strip(v->type);

	if (t->kind == XK_FLOAT)
		return v->d;
	return t->sign ? (double)(int64_t)v->u : (double)v->u;
}

/*
 * A float as an integer, as gdb converts one (target_float_to_longest()):
 * saturated to long's range, NaN to its maximum.  C leaves converting a
 * value out of the type's range undefined.
 */
static int64_t x_to_long(double d)
{
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		return (int64_t)d;
	return d < 0 ? INT64_MIN : INT64_MAX;
}

static int x_eval(struct xprog *p, const struct xnode *n, struct xval *v)
{
	struct xval a, b;
	struct xtype *t;

	memset(v, 0, sizeof(*v));
	v->type = n->type;
	switch (n->op) {
	case XO_VAR:
		v->lval = true;
		v->addr = n->addr;
		if (n->tls) {
			uint64_t block;

			if (x_tls_block(n->modid, &block) != 0)
				return x_eerr(p, "thread-local \"%s\" has no storage in this thread",
					      n->name);
			v->addr = block + n->addr;
		}
		return 0;
	case XO_INT:
		v->u = n->ival;
		return 0;
	case XO_MEMBER:
		if (x_eval(p, n->a, &a) != 0)
			return -1;
		if (!a.lval)
			return x_eerr(p, "member of a value not in memory");
		v->lval = true;
		v->addr = a.addr + n->ival + n->mem->off;
		if (n->mem->bitsize != 0) {
			/* a bit-field is loaded here, as an rvalue */
			uint64_t bits = 0, u;
			uint64_t nbytes = (n->mem->bitoff + n->mem->bitsize + 7) / 8;
			struct xtype *mt = x_strip(n->type);

			if (nbytes > 8 || !x_read(p, v->addr, &bits, nbytes))
				return x_eerr(p, "cannot read 0x%" PRIx64, v->addr);
			u = bits >> n->mem->bitoff;
			if (n->mem->bitsize < 64)
				u &= (1ull << n->mem->bitsize) - 1;
			if (mt->sign && n->mem->bitsize < 64 &&
			    (u & (1ull << (n->mem->bitsize - 1))))
				u |= ~0ull << n->mem->bitsize;
			v->lval = false;
			v->u = u;
		}
		return 0;
	case XO_INDEX:
	case XO_DEREF: {
		uint64_t base, idx = 0, esz;

		if (x_eval(p, n->a, &a) != 0)
			return -1;
		t = x_strip(a.type);
		if (t->kind == XK_ARRAY) {
			if (!a.lval)
				return x_eerr(p, "array not in memory");
			base = a.addr;
		} else {
			if (x_load(p, &a) != 0)
				return -1;
			base = a.u;
		}
		if (n->op == XO_INDEX) {
			if (x_eval_scalar(p, n->b, &b) != 0)
				return -1;
			idx = b.u;
		}
		esz = x_sizeof(n->type);
		v->lval = true;
		v->addr = base + idx * esz;
		return 0;
	}
	case XO_ADDR:
		if (x_eval(p, n->a, &a) != 0)
			return -1;
		v->u = a.addr;
		return 0;
	case XO_CAST:
		if (x_eval(p, n->a, &a) != 0)
			return -1;
		if (n->lval) {
			/* reinterpretation of memory (untyped symbol, same type) */
			v->lval = true;
			v->addr = a.addr;
			return 0;
		}
		if (x_load(p, &a) != 0)
			return -1;
		t = x_strip(n->type);
		if (t->kind == XK_FLOAT) {
			v->d = x_as_double(&a);
			if (t->size == 4)
				v->d = (float)v->d;
		} else if (x_strip(a.type)->kind == XK_FLOAT) {
			/* gdb: through long, then the type's low bytes */
			uint64_t l = (uint64_t)x_to_long(a.d);

			v->u = t->kind == XK_BOOL ? l != 0 :
			       t->sign ? x_sext(x_zext(l, t->size), t->size) :
			       x_zext(l, t->size);
		} else if (t->kind == XK_BOOL) {
			v->u = a.u != 0;
		} else {
			v->u = t->sign ? x_sext(x_zext(a.u, t->size), t->size) :
				x_zext(a.u, t->size);
		}
		return 0;
	case XO_NEG:
		if (x_eval_scalar(p, n->a, &a) != 0)
			return -1;
		if (x_strip(n->type)->kind == XK_FLOAT)
			v->d = -x_as_double(&a);
		else
			v->u = x_zext(-a.u, x_strip(n->type)->size);
		if (x_strip(n->type)->sign)
			v->u = x_sext(v->u, x_strip(n->type)->size);
		return 0;
	default:
		break;
	}
	/* binary */
	if (x_eval_scalar(p, n->a, &a) != 0 || x_eval_scalar(p, n->b, &b) != 0)
		return -1;
	t = x_strip(n->type);
	if (t->kind == XK_PTR) {
		uint64_t esz = x_sizeof(t->target);

		if (esz == 0)
			esz = 1;
		v->u = n->op == XO_ADD ? a.u + b.u * esz : a.u - b.u * esz;
		return 0;
	}
	if (x_strip(a.type)->kind == XK_PTR) {
		/* pointer - pointer */
		uint64_t esz = x_sizeof(x_strip(a.type)->target);

		if (esz == 0)
			esz = 1;
		/* modulo 2^64, then divided as signed, as gdb does */
		v->u = esz > INT64_MAX ? 0 :
		       (uint64_t)((int64_t)(a.u - b.u) / (int64_t)esz);
		return 0;
	}
	if (t->kind == XK_FLOAT) {
		double x = x_as_double(&a), y = x_as_double(&b);

		if (n->op == XO_DIV && y == 0)
			return x_eerr(p, "division by zero");
		v->d = n->op == XO_ADD ? x + y : n->op == XO_SUB ? x - y :
		       n->op == XO_MUL ? x * y : x / y;
		return 0;
	}
	if (n->op == XO_DIV && x_zext(b.u, t->size) == 0)
		return x_eerr(p, "division by zero");
	switch (n->op) {
	case XO_ADD: v->u = a.u + b.u; break;
	case XO_SUB: v->u = a.u - b.u; break;
	case XO_MUL: v->u = a.u * b.u; break;
	default:
		if (t->sign) {
			int64_t x = (int64_t)x_sext(x_zext(a.u, t->size), t->size);
			int64_t y = (int64_t)x_sext(x_zext(b.u, t->size), t->size);

			v->u = (x == INT64_MIN && y == -1) ? (uint64_t)x :
				(uint64_t)(x / y);
		} else
			v->u = x_zext(a.u, t->size) / x_zext(b.u, t->size);
		break;
	}
	v->u = t->sign ? x_sext(x_zext(v->u, t->size), t->size) :
		x_zext(v->u, t->size);
	return 0;
}

/* -------------------------------------------------------------------------
 * Formatting.
 */

static void x_out(struct xprog *p, const char *s, size_t n)
{
	if (p->full || n == 0)
		return;
	if (p->out + n > X_OUT_MAX) {
		n = X_OUT_MAX - p->out;
		p->full = true;
	}
	if (p->put(p->ctx, s, n) != 0)
		p->full = true;
	p->out += n;
}

static void x_outs(struct xprog *p, const char *s)
{
	x_out(p, s, strlen(s));
}

static void x_outf(struct xprog *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void x_outf(struct xprog *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		x_out(p, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* One character as C would write it inside quotes q. */
static void x_outc(struct xprog *p, unsigned char c, char q)
{
	char buf[8];

	switch (c) {
	case '\n': x_outs(p, "\\n"); return;
	case '\t': x_outs(p, "\\t"); return;
	case '\r': x_outs(p, "\\r"); return;
	case '\a': x_outs(p, "\\a"); return;
	case '\b': x_outs(p, "\\b"); return;
	case '\f': x_outs(p, "\\f"); return;
	case '\v': x_outs(p, "\\v"); return;
	case 27: x_outs(p, "\\033"); return;
	case '\\': x_outs(p, "\\\\"); return;
	default: break;
	}
	if (c == (unsigned char)q) {
		buf[0] = '\\';
		buf[1] = q;
		x_out(p, buf, 2);
	} else if (c < 0x20 || c >= 0x7f) {
		snprintf(buf, sizeof(buf), "\\%03o", c);
		x_outs(p, buf);
	} else {
		buf[0] = (char)c;
		x_out(p, buf, 1);
	}
}

/* A C string at addr, up to its NUL or max bytes: "...". */
static void x_string(struct xprog *p, uint64_t addr, uint64_t max)
{
	uint64_t i, lim = max < X_ELEMENTS ? max : X_ELEMENTS;
	unsigned char c;

	if (lim > 0 && !x_read(p, addr, &c, 1)) {
		x_outf(p, "<error: cannot read 0x%" PRIx64 ">", addr);
		return;
	}
	x_outs(p, "\"");
	for (i = 0; i < lim && !p->full; i++) {
		if (!x_read(p, addr + i, &c, 1)) {
			x_outf(p, "\"<error: cannot read 0x%" PRIx64 ">", addr + i);
			return;
		}
		if (c == 0)
			break;
		x_outc(p, c, '"');
	}
	x_outs(p, "\"");
	if (i == lim && lim < max)
		x_outs(p, "...");
}

/* " <counter>", " <buf+8>": the symbol an address is in, as gdb says it. */
static void x_symbolize(struct xprog *p, uint64_t addr)
{
	const struct xaddr *x;
	const char *s;
	uint64_t off = 0;

	if ((x = x_atab_find(p->atab, addr, &off)) == NULL)
		return;
	x_outs(p, " <");
	for (s = p->atab->names + x->name; *s != '\0' && !p->full; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f)
			x_outf(p, "\\%03o", c);
		else
			x_out(p, s, 1);
	}
	if (off != 0)
		x_outf(p, "+%" PRIu64, off);
	x_outs(p, ">");
}

/*
 * gdb writes the type before a pointer at top level, "(int *) 0x...",
 * but for a plain (unnamed) pointer to a type named char, whose string
 * says enough.
 */
static bool x_char_pointer(struct xtype *decl)
{
	struct xtype *t = decl;

	while (t != NULL && t->kind == XK_QUAL)
		t = t->target;
	if (t == NULL || t->kind != XK_PTR)
		return false;
	for (t = t->target; t != NULL && t->kind == XK_QUAL; t = t->target)
		;
	return t != NULL && t->name != NULL && strcmp(t->name, "char") == 0 &&
	       t->kind != XK_TYPEDEF;
}

static void x_int_text(struct xprog *p, struct xtype *t, uint64_t u)
{
	if (p->fmt == 'x')
		x_outf(p, "0x%" PRIx64, x_zext(u, t->size));
	else if (t->sign)
		x_outf(p, "%" PRId64, (int64_t)u);
	else
		x_outf(p, "%" PRIu64, u);
}

static void x_float_text(struct xprog *p, struct xtype *t, const uint8_t *b)
{
	if (t->size == 4) {
		float f;

		memcpy(&f, b, 4);
		x_outf(p, "%.9g", (double)f);
	} else if (t->size == 8) {
		double d;

		memcpy(&d, b, 8);
		x_outf(p, "%.17g", d);
	} else {
		long double ld;

		memcpy(&ld, b, sizeof(ld) < 16 ? sizeof(ld) : 16);
		x_outf(p, "%.21Lg", ld);
	}
}

/* A scalar from its bytes; top: the whole value, gdb's "(type) 0x..." */
static void x_scalar_text(struct xprog *p, struct xtype *decl, const uint8_t *b,
			  bool top)
{
	struct xtype *t = x_strip(decl);
	uint64_t u = 0;
	size_t i;

	if (t->kind == XK_FLOAT) {
		x_float_text(p, t, b);
		return;
	}
	memcpy(&u, b, t->size > 8 ? 8 : t->size);
	u = t->sign ? x_sext(u, t->size) : x_zext(u, t->size);
	switch (t->kind) {
	case XK_BOOL:
		if (p->fmt == 'x')
			x_outf(p, "0x%" PRIx64, u);
		else if (u <= 1)
			x_outs(p, u ? "true" : "false");
		else
			x_outf(p, "%" PRIu64, u);
		return;
	case XK_CHAR:
		x_int_text(p, t, u);
		if (p->fmt == 0) {
			x_outs(p, " '");
			x_outc(p, (unsigned char)u, '\'');
			x_outs(p, "'");
		}
		return;
	case XK_ENUM:
		if (p->fmt == 0)
			for (i = 0; i < t->nen; i++)
				if ((uint64_t)t->en[i].val == u ||
				    x_zext((uint64_t)t->en[i].val, t->size) ==
				    x_zext(u, t->size)) {
					x_outs(p, t->en[i].name ? t->en[i].name : "?");
					return;
				}
		x_int_text(p, t, u);
		return;
	case XK_PTR: {
		struct xtype *to = x_strip(t->target);

		/* /x, /d: the number alone, as gdb */
		if (p->fmt == 'x') {
			x_outf(p, "0x%" PRIx64, u);
			return;
		}
		if (p->fmt == 'd') {
			x_outf(p, "%" PRId64, (int64_t)u);
			return;
		}
		if (top && !x_char_pointer(decl)) {
			char tn[256];

			x_typename(tn, sizeof(tn), decl);
			x_outf(p, "(%s) ", tn);
		}
		x_outf(p, "0x%" PRIx64, u);
		x_symbolize(p, u);
		if (to->kind == XK_CHAR && u != 0) {
			x_outs(p, " ");
			x_string(p, u, UINT64_MAX);
		}
		return;
	}
	default:
		x_int_text(p, t, u);
		return;
	}
}

static void x_value_at(struct xprog *p, struct xtype *decl, uint64_t addr,
		       int depth, bool top);

static void x_array_at(struct xprog *p, struct xtype *t, uint64_t addr, int depth)
{
	struct xtype *et = t->target, *es = x_strip(et);
	uint64_t esz = x_sizeof(et), i, shown = 0, n = t->count;

	if (es->kind == XK_CHAR && p->fmt == 0) {
		x_string(p, addr, t->sized ? n : 0);
		return;
	}
	if (!t->sized || n == 0 || esz == 0) {
		x_outs(p, "{}");
		return;
	}
	x_outs(p, "{");
	for (i = 0; i < n && !p->full; ) {
		uint64_t run = 1;

		if (shown >= X_ELEMENTS) {
			x_outs(p, "...");
			break;
		}
		if (i > 0)
			x_outs(p, ", ");
		/* collapse repeats of a scalar, as gdb does */
		if (x_scalar(es) && esz <= 16) {
			uint8_t a[16], b[16];

			if (x_read(p, addr + i * esz, a, esz)) {
				while (i + run < n &&
				       x_read(p, addr + (i + run) * esz, b, esz) &&
				       memcmp(a, b, esz) == 0)
					run++;
			}
		}
		if (run >= X_REPEATS) {
			x_value_at(p, et, addr + i * esz, depth + 1, false);
			x_outf(p, " <repeats %" PRIu64 " times>", run);
			i += run;
			shown += X_REPEATS;
		} else {
			x_value_at(p, et, addr + i * esz, depth + 1, false);
			i++;
			shown++;
		}
	}
	x_outs(p, "}");
}

static void x_struct_at(struct xprog *p, struct xtype *t, uint64_t addr, int depth)
{
	size_t i;

	if (!t->complete) {
		x_outs(p, "<incomplete type>");
		return;
	}
	if (depth >= X_DEPTH) {
		x_outs(p, "{...}");
		return;
	}
	x_outs(p, "{");
	for (i = 0; i < t->nmem && !p->full; i++) {
		const struct xmember *m = &t->mem[i];

		if (i > 0)
			x_outs(p, ", ");
		if (m->name != NULL) {
			x_outs(p, m->name);
			x_outs(p, " = ");
		}
		if (m->bitsize != 0) {
			uint64_t bits = 0, u;
			uint64_t nb = (m->bitoff + m->bitsize + 7) / 8;
			struct xtype *mt = x_strip(m->type);
			uint8_t b[8];

			if (nb > 8 || !x_read(p, addr + m->off, &bits, nb)) {
				x_outf(p, "<error: cannot read 0x%" PRIx64 ">",
				       addr + m->off);
				continue;
			}
			u = bits >> m->bitoff;
			if (m->bitsize < 64)
				u &= (1ull << m->bitsize) - 1;
			if (mt->sign && m->bitsize < 64 &&
			    (u & (1ull << (m->bitsize - 1))))
				u |= ~0ull << m->bitsize;
			memcpy(b, &u, 8);
			x_scalar_text(p, m->type, b, false);
			continue;
		}
		x_value_at(p, m->type, addr + m->off, depth + 1, false);
	}
	x_outs(p, "}");
}

static void x_value_at(struct xprog *p, struct xtype *decl, uint64_t addr,
		       int depth, bool top)
{
	struct xtype *t = x_strip(decl);
	uint8_t b[16];

	switch (t->kind) {
	case XK_STRUCT:
	case XK_UNION:
		x_struct_at(p, t, addr, depth);
		return;
	case XK_ARRAY:
		if (depth >= X_DEPTH) {
			x_outs(p, "{...}");
			return;
		}
		x_array_at(p, t, addr, depth);
		return;
	case XK_FUNC:
		if (p->fmt != 0) {
			/* gdb: a function's first byte */
			uint8_t c;

			if (!x_read(p, addr, &c, 1)) {
				x_outf(p, "<error: cannot read 0x%" PRIx64 ">", addr);
				return;
			}
			x_int_text(p, p->fmt == 'd' ? &x_schar : &x_uchar,
				   p->fmt == 'd' ? x_sext(c, 1) : c);
			return;
		}
		{
			char tn[256];

			x_typename(tn, sizeof(tn), decl);
			x_outf(p, "{%s} 0x%" PRIx64, tn, addr);
		}
		x_symbolize(p, addr);
		return;
	case XK_VOID:
		x_outs(p, "void");
		return;
	default:
		if (t->size == 0 || t->size > 16) {
			x_outs(p, "<unsupported type>");
			return;
		}
		if (!x_read(p, addr, b, t->size)) {
			x_outf(p, "<error: cannot read 0x%" PRIx64 ">", addr);
			return;
		}
		x_scalar_text(p, decl, b, top);
		return;
	}
}

int x_evaluate(void *prog, rb_watch_sink put, void *ctx, char *err,
	       size_t errsz)
{
	struct xprog *p = prog;
	struct xval v;
	struct xtype *t;
	uint8_t b[16];

	if (p->root == NULL) {
		snprintf(err, errsz, "%s", p->err);
		return -1;
	}
	p->eerr = err;
	p->eerrsz = errsz;
	p->wlen = 0;		/* a fresh look at memory every time */
	p->put = put;
	p->ctx = ctx;
	p->out = 0;
	p->full = false;
	if (x_eval(p, p->root, &v) != 0)
		return -1;
	x_outs(p, p->note);
	t = x_strip(v.type);
	if (v.lval) {
		/* the value itself must be there: its first byte at least */
		uint64_t size = x_sizeof(v.type);

		if (!x_read(p, v.addr, b, size == 0 ? 1 : size > 16 ? 1 : size))
			return x_eerr(p, "cannot read 0x%" PRIx64, v.addr);
		x_value_at(p, v.type, v.addr, 0, true);
	} else {
		if (t->kind == XK_FLOAT) {
			if (t->size == 4) {
				float f = (float)v.d;

				memcpy(b, &f, 4);
			} else {
				double d = v.d;
				struct xtype *dt = &x_double;

				memcpy(b, &d, 8);
				x_scalar_text(p, dt, b, true);
				goto done;
			}
		} else
			memcpy(b, &v.u, 8);
		x_scalar_text(p, v.type, b, true);
	}
done:
	if (p->full)
		put(ctx, "...", 3);	/* past X_OUT_MAX: say it was cut */
	return 0;
}
