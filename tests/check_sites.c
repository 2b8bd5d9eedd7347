/* SPDX-License-Identifier: MIT */
/*
 * check_sites: the x86-64 length decoder on its odd cases, the site table
 * of this program's own instrumented code (tests/sites/instr.c) with
 * this_fn right for an inlined function, none in a function that jumps
 * into one of its instructions, a dlopen()ed object's table
 * read from memory as the loader left it, and the cache: used when valid,
 * ignored and rebuilt when corrupt, truncated, or naming a site that is
 * not a call of the hook it claims.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "lib/dyn/sites.h"
#include "lib/dyn/x86len.h"

int		sites_leaf(int);
int		sites_outer(int);
int		sites_many(int);
uintptr_t	sites_inlined_addr(void);

static unsigned long hook_calls;

/*
 * A function that jumps into the middle of one of its instructions: its
 * linear decode is not what runs, so its call of the hook is no site.
 */
void	sites_overlap(void);
__asm__(
	".text\n"
	".globl sites_overlap\n"
	".type sites_overlap, @function\n"
	"sites_overlap:\n"
	".cfi_startproc\n"
	"	lea sites_overlap(%rip), %rdi\n"
	"	call __cyg_profile_func_enter\n"
	"	jmp 1f + 1\n"
	"1:	movl $0xc3909090, %eax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sites_overlap, . - sites_overlap\n");

__attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	hook_calls++;
}

__attribute__((no_instrument_function)) void
__cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	hook_calls++;
}

struct dec_case {
	const char	*hex;
	int		 len;
};

static const struct dec_case dec_cases[] = {
	{ "90", 1 },
	{ "c3", 1 },
	{ "e8 00 00 00 00", 5 },			/* call rel32 */
	{ "ff 15 00 00 00 00", 6 },			/* call *(%rip) */
	{ "ff 14 25 00 10 00 00", 7 },			/* call *abs32 */
	{ "67 e8 00 00 00 00", 6 },			/* addr32 call */
	{ "48 8d 3d 00 00 00 00", 7 },			/* lea (%rip),%rdi */
	{ "f6 c1 01", 3 },				/* test $1,%cl */
	{ "f6 d1", 2 },					/* not %cl */
	{ "f7 c1 01 00 00 00", 6 },			/* test $1,%ecx */
	{ "66 f7 c1 01 00", 5 },			/* test $1,%cx */
	{ "f7 d9", 2 },					/* neg %ecx */
	{ "a0 00 00 00 00 00 00 00 00", 9 },		/* movabs moffs,%al */
	{ "67 a1 00 00 00 00", 6 },			/* addr32 moffs32 */
	{ "c8 10 00 01", 4 },				/* enter $16,$1 */
	{ "66 b8 01 00", 4 },				/* mov $1,%ax */
	{ "48 b8 01 00 00 00 00 00 00 00", 10 },	/* movabs */
	{ "66 05 01 00", 4 },				/* add $1,%ax */
	{ "66 68 01 00", 4 },				/* pushw $1 */
	{ "0f 0f c1 b4", 4 },				/* 3DNow! pfadd */
	{ "0f 20 c0", 3 },				/* mov %cr0,%rax */
	{ "c5 f8 77", 3 },				/* vzeroupper */
	{ "c5 fd 6f 04 24", 5 },			/* vmovdqa (%rsp) */
	{ "c4 e3 79 0f c1 08", 6 },			/* vpalignr imm8 */
	{ "62 f1 7c 48 10 44 24 01", 8 },		/* vmovups disp8*N */
	{ "66 0f 3a 0f c1 08", 6 },			/* palignr */
	{ "66 0f 38 00 c1", 5 },			/* pshufb */
	{ "f3 0f 1e fa", 4 },				/* endbr64 */
	{ "2e 66 0f 1f 84 00 00 00 00 00", 10 },	/* cs nopw */
	{ "0f 85 00 00 00 00", 6 },			/* jne rel32 */
	{ "c2 08 00", 3 },				/* ret $8 */
	{ "9b dd 7c 24 02", 5 },			/* fstsw (fwait) */
	{ "48 48 90", 1 },				/* a lone REX */
	{ "06", -1 },					/* push %es */
	{ "ff ff", -1 },
	{ "ff d8", -1 },				/* lcall reg */
	{ "8d c0", -1 },				/* lea reg */
	{ "c5", -1 },					/* cut short */
	{ "e8 00 00", -1 },
	{ "66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", 15 },
	{ "66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", -1 },
};

static size_t
hex_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t	n = 0;

	while (*hex && n < max) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		out[n++] = (uint8_t)strtoul((char []){ hex[0], hex[1], 0 },
		    NULL, 16);
		hex += 2;
	}
	return n;
}

START_TEST(test_decode_odd_cases)
{
	const struct dec_case *c = &dec_cases[_i];
	struct rb_x86_insn	d;
	uint8_t			b[16];
	size_t			n = hex_bytes(c->hex, b, sizeof(b));

	ck_assert_msg(rb_x86_decode(b, n, &d) == c->len, "%s: %d, not %d",
	    c->hex, rb_x86_decode(b, n, &d), c->len);
}
END_TEST

struct self {
	struct rb_sites_obj	o;
	int			found;
};

static int
find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self	*s = arg;

	(void)size;
	if (s->found || info->dlpi_name[0] != '\0')
		return 0;
	s->o.bias = info->dlpi_addr;
	s->o.phdr = info->dlpi_phdr;
	s->o.phnum = info->dlpi_phnum;
	s->o.hooks[0] = (uintptr_t)&__cyg_profile_func_enter;
	s->o.hooks[1] = (uintptr_t)&__cyg_profile_func_exit;
	s->found = 1;
	return 1;
}

static struct rb_sites_obj
self_obj(void)
{
	struct self	s;

	memset(&s, 0, sizeof(s));
	dl_iterate_phdr(find_self, &s);
	ck_assert(s.found);
	return s.o;
}

/* Every site of @fn (a runtime address) in @t: an enter and an exit. */
static void
expect_fn(const struct rb_sites *t, uintptr_t bias, uintptr_t fn,
    size_t min)
{
	const struct rb_site	*st;
	size_t			 n, i, enter = 0, exit = 0;

	st = rb_sites_of(t, fn - bias, &n);
	ck_assert_msg(st != NULL && n >= min, "%zu sites for %#lx", n,
	    (unsigned long)fn);
	for (i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)(st[i].addr +
		    bias);

		ck_assert(p[0] == 0xe8 || p[0] == 0xe9 || p[0] == 0xff ||
		    p[0] == 0x67);
		if (st[i].hook == RB_SITE_ENTER)
			enter++;
		else
			exit++;
	}
	ck_assert(enter >= 1 && exit >= 1);
}

START_TEST(test_self_table)
{
	struct rb_sites_obj	o = self_obj();
	struct rb_sites		t;
	size_t			n;

	hook_calls = 0;
	ck_assert_int_eq(sites_outer(2), 10);
	ck_assert_int_eq(sites_many(10), 16);
	ck_assert(hook_calls > 0);
	ck_assert_int_eq(rb_sites_build(&o, &t), 0);
	ck_assert_uint_eq(t.nfail, 1);
	ck_assert_uint_eq(t.fails[0], (uintptr_t)&sites_overlap - o.bias);
	ck_assert_ptr_null(rb_sites_of(&t, (uintptr_t)&sites_overlap - o.bias,
	    &n));
	ck_assert_uint_eq(t.nunknown, 0);
	expect_fn(&t, o.bias, (uintptr_t)&sites_leaf, 2);
	expect_fn(&t, o.bias, (uintptr_t)&sites_outer, 2);
	expect_fn(&t, o.bias, (uintptr_t)&sites_many, 2);
	/* inlined into sites_outer and sites_many: its own address */
	expect_fn(&t, o.bias, sites_inlined_addr(), 4);
	rb_sites_free(&t);
}
END_TEST

struct plug {
	struct rb_sites_obj	o;
	const char		*name;
	int			found;
};

static int
find_plug(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct plug	*p = arg;

	(void)size;
	if (strcmp(info->dlpi_name, p->name) != 0)
		return 0;
	p->o.bias = info->dlpi_addr;
	p->o.phdr = info->dlpi_phdr;
	p->o.phnum = info->dlpi_phnum;
	p->found = 1;
	return 1;
}

/* A dlopen()ed object: its PLT and relocations read from memory. */
START_TEST(test_dlopened)
{
	struct plug	 p;
	struct rb_sites	 t;
	void		*h;
	int		(*fn)(int);
	size_t		 n, i;

	h = dlopen(RB_TEST_SITES_PLUG, RTLD_NOW);
	ck_assert_msg(h != NULL, "%s", dlerror());
	fn = (int (*)(int))dlsym(h, "sites_plug");
	ck_assert_ptr_nonnull(fn);
	hook_calls = 0;
	ck_assert_int_eq(fn(3), 7);
	ck_assert_uint_eq(hook_calls, 2);
	memset(&p, 0, sizeof(p));
	p.name = RB_TEST_SITES_PLUG;
	dl_iterate_phdr(find_plug, &p);
	ck_assert(p.found);
	ck_assert_int_eq(rb_sites_build(&p.o, &t), 0);
	ck_assert_uint_eq(t.nfail, 0);
	/* Exported, so its address comes from its GOT slot: the site
	   names the slot, which holds the function once relocated. */
	ck_assert_uint_eq(t.n, 2);
	for (i = 0, n = 0; i < t.n; i++) {
		const struct rb_site *st = &t.v[i];
		uintptr_t	fnat = st->this_fn + p.o.bias;

		ck_assert(st->this_fn != RB_SITE_FN_UNKNOWN);
		if (st->flags & RB_SITE_FN_SLOT)
			fnat = *(const uintptr_t *)fnat;
		ck_assert_ptr_eq((void *)fnat, (void *)fn);
		ck_assert_uint_eq(st->via, RB_SITE_PLT);
		n += st->hook;
	}
	ck_assert_uint_eq(n, 1);	/* one enter, one exit */
	rb_sites_free(&t);
	dlclose(h);
}
END_TEST

static char cache_dir[] = "/tmp/check_sites.XXXXXX";

static void
cache_path(const struct rb_sites_obj *o, char *buf, size_t size)
{
	struct rb_sites	t;

	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(rb_sites_build_id(o, t.build_id, &t.build_id_len),
	    0);
	ck_assert_int_eq(rb_sites_cache_path(&t, cache_dir, buf, size), 0);
}

static void
poke(const char *path, off_t at, const void *p, size_t n)
{
	int	fd = open(path, O_WRONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, p, n, at), (ssize_t)n);
	close(fd);
}

/* Rewrite the table in @path with site 0's address moved by @delta, its
   checksum made right: only the validation of the sites can refuse it. */
static void
move_site(const char *path, int64_t delta)
{
	struct rb_sites_obj	o = self_obj();
	struct rb_sites		t;

	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &t), 0);
	t.v[0].addr += (uint64_t)delta;
	ck_assert_int_eq(rb_sites_save(&t, cache_dir), 0);
	rb_sites_free(&t);
	(void)path;
}

START_TEST(test_cache)
{
	struct rb_sites_obj	o = self_obj();
	struct rb_sites		t, u;
	char			path[4096];
	struct stat		sb;
	uint8_t			junk = 0xa5;
	uint64_t		zero = 0;

	ck_assert_ptr_nonnull(mkdtemp(cache_dir));
	cache_path(&o, path, sizeof(path));

	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &t), -ENOENT);
	ck_assert_int_eq(rb_sites_get(&o, cache_dir, &t), 0);
	ck_assert_int_eq(t.cached, 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(rb_sites_get(&o, cache_dir, &u), 0);
	ck_assert_int_eq(u.cached, 1);
	ck_assert_uint_eq(u.n, t.n);
	ck_assert(memcmp(u.v, t.v, t.n * sizeof(*t.v)) == 0);
	rb_sites_free(&u);

	/* a flipped byte in a site: the checksum refuses it */
	poke(path, sb.st_size - 3, &junk, 1);
	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &u), -EINVAL);
	ck_assert_int_eq(rb_sites_get(&o, cache_dir, &u), 0);
	ck_assert_int_eq(u.cached, 0);
	ck_assert_uint_eq(u.n, t.n);
	rb_sites_free(&u);
	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &u), 0);
	rb_sites_free(&u);

	/* truncated */
	ck_assert_int_eq(truncate(path, sb.st_size - 1), 0);
	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &u), -EINVAL);
	ck_assert_int_eq(rb_sites_get(&o, cache_dir, &u), 0);
	ck_assert_int_eq(u.cached, 0);
	rb_sites_free(&u);

	/* another version */
	poke(path, 8, &zero, 4);
	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &u), -EINVAL);
	ck_assert_int_eq(rb_sites_get(&o, cache_dir, &u), 0);
	rb_sites_free(&u);

	/* well formed, but a site is not a call of a hook */
	move_site(path, 1);
	ck_assert_int_eq(rb_sites_load(&o, cache_dir, &u), -EINVAL);
	ck_assert_int_eq(rb_sites_get(&o, cache_dir, &u), 0);
	ck_assert_int_eq(u.cached, 0);
	ck_assert(memcmp(u.v, t.v, t.n * sizeof(*t.v)) == 0);
	rb_sites_free(&u);

	rb_sites_free(&t);
	unlink(path);
	rmdir(cache_dir);
}
END_TEST

int
main(void)
{
	Suite	*s = suite_create("sites");
	TCase	*tc = tcase_create("sites");
	SRunner	*sr;
	int	 failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_decode_odd_cases, 0,
	    (int)(sizeof(dec_cases) / sizeof(dec_cases[0])));
	tcase_add_test(tc, test_self_table);
	tcase_add_test(tc, test_dlopened);
	tcase_add_test(tc, test_cache);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
