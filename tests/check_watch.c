/* SPDX-License-Identifier: MIT */
/*
 * check_watch.c - unit tests of the expression module, rbtrace-watch.so.
 *
 * This program is built with -g and holds the variables it watches: it
 * dlopen()s the freshly built module and compiles and evaluates
 * expressions over its own globals, as a traced thread does at a hook.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/watch.h"

/* The watched program's variables; "used" keeps them in the binary. */
#define USED	__attribute__((used))

USED int w_int = -17;
USED unsigned int w_uint = 4000000000u;
USED long long w_ll = -1234567890123ll;
USED unsigned char w_uchar = 200;
USED signed char w_schar = -3;
USED char w_char = '\n';
USED short w_short = -2;
USED bool w_bool = true;
USED float w_float = 0.5f;
USED double w_double = 0.1;
USED long double w_ldouble = 1.5L;
USED static int w_static = 99;
USED const char *w_str = "tab\there \"q\" \\ \001";
USED const char *w_nullstr;
USED char w_name[8] = "ab";
USED char w_full[4] = { 'w', 'x', 'y', 'z' };
USED int w_zeros[32];
USED int w_mixed[12] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2 };
USED int w_grid[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
USED int w_long[250];
USED char w_text[300];
USED int *w_nullp;
USED int *w_badp = (int *)(uintptr_t)0x10;
USED int *w_gone;

enum w_kind { W_ONE = 1, W_TWO = 2, W_NEG = -1 };
USED enum w_kind w_kind = W_TWO;
USED enum w_kind w_kind_odd = (enum w_kind)7;

struct w_inner { int a; char tag[4]; };
struct w_outer {
	int id;
	struct w_inner in;
	struct w_inner arr[2];
	unsigned flags : 3;
	signed delta : 4;
	union { int u_i; float u_f; };
	struct w_outer *self;
	const char *label;
	void (*fn)(void);
};
typedef struct w_outer w_outer_t;

USED w_outer_t w_obj = {
	7, { 1, "in" }, { { 2, "a0" }, { 3, "a1" } }, 5, -3, { 42 },
	&w_obj, "obj", NULL,
};
USED w_outer_t *w_objp = &w_obj;
USED union { int i; unsigned char b[4]; } w_union = { 0x01020304 };
USED __thread int w_tls = 11;

/* Functions, pointers to them and to symbols. */
USED void w_handler(int sig);
USED int w_logf(const char *fmt, ...);
/* Unprototyped on purpose: gdb writes its type "int ()". */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wold-style-definition"
USED int w_knr();
typedef int (*w_log_t)(const char *, ...);
typedef char *w_text_t;

USED void (*w_fp)(int) = w_handler;
USED void (*w_nullfp)(int);
USED w_log_t w_logp = w_logf;
USED int (*w_vfp)(const char *, ...) = w_logf;
USED int (*w_knrp)() = w_knr;
#pragma GCC diagnostic pop
USED char *(*w_strfn)(char *, const char *);
USED void (*w_fps[12])(int) = {
	w_handler, w_handler, w_handler, w_handler, w_handler, w_handler,
	w_handler, w_handler, w_handler, w_handler, w_handler, w_handler,
};
USED int *w_intp = &w_long[3];
USED int *w_staticp = &w_static;
USED char *w_namep = &w_name[1];
USED unsigned char w_ubytes[4] = "uv";
USED unsigned char *w_ubp = w_ubytes;
USED w_text_t w_textp = w_name;
USED const char *const w_cstr = "lit";
USED int *w_heap;
/* .bss past the program's file pages: mapped apart from it */
USED int w_bss[1 << 16];
USED int *w_bssp = &w_bss[60000];
USED struct w_inner *w_innerp = &w_obj.arr[1];
/* Values C leaves undefined to convert or subtract (gdb's answers below). */
USED double w_huge = 1e300, w_neghuge = -1e300, w_nan = __builtin_nan("");
USED char *w_lowp = (char *)(uintptr_t)0x10;
USED char *w_highp = (char *)(uintptr_t)0xffffffffffffff00ull;
USED long *w_llow = (long *)(uintptr_t)0x10;
USED long *w_lhigh = (long *)(uintptr_t)0x8000000000000010ull;

void w_handler(int sig)
{
	w_int += sig - sig;
}

int w_logf(const char *fmt, ...)
{
	return fmt[0];
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wold-style-definition"
int w_knr()
{
	return 0;
}
#pragma GCC diagnostic pop

int main(void);

static const struct rb_watch_ops *ops;

static void setup(void)
{
	void *h = dlopen(RB_TEST_WATCH_MODULE, RTLD_NOW | RTLD_LOCAL);
	rb_watch_entry_fn fn;

	ck_assert_msg(h != NULL, "dlopen %s: %s", RB_TEST_WATCH_MODULE, dlerror());
	*(void **)&fn = dlsym(h, RB_WATCH_ENTRY);
	ck_assert_ptr_nonnull(fn);
	ops = fn();
	ck_assert_int_eq(ops->abi, RB_WATCH_ABI);
}

struct out {
	char	 buf[8192];
	size_t	 len, total;
	size_t	 stop_at;	/* 0: never stop */
};

static int put(void *arg, const char *s, size_t n)
{
	struct out *o = arg;
	size_t k = n < sizeof(o->buf) - 1 - o->len ? n : sizeof(o->buf) - 1 - o->len;

	memcpy(o->buf + o->len, s, k);
	o->len += k;
	o->buf[o->len] = '\0';
	o->total += n;
	return o->stop_at != 0 && o->total >= o->stop_at;
}

/* Evaluate @expr; returns the value text, or "ERR: message". */
static const char *eval(const char *expr)
{
	static struct out o;
	char err[512];
	void *p = ops->compile(expr, strlen(expr));

	ck_assert_ptr_nonnull(p);
	ck_assert(ops->same(p, expr, strlen(expr)));
	memset(&o, 0, sizeof(o));
	if (ops->eval(p, put, &o, err, sizeof(err)) != 0) {
		ck_assert_uint_eq(o.len, 0);	/* an error sends nothing */
		snprintf(o.buf, sizeof(o.buf), "ERR: %s", err);
	}
	ops->release(p);
	return o.buf;
}

#define EXPECT(expr, want) ck_assert_str_eq(eval(expr), (want))

START_TEST(test_scalars)
{
	EXPECT("w_int", "-17");
	EXPECT("w_int/x", "0xffffffef");
	EXPECT("w_uint", "4000000000");
	EXPECT("w_ll", "-1234567890123");
	EXPECT("w_uchar", "200 '\\310'");
	EXPECT("w_schar", "-3 '\\375'");
	EXPECT("w_char", "10 '\\n'");
	EXPECT("w_short/x", "0xfffe");
	EXPECT("w_bool", "true");
	EXPECT("w_float", "0.5");
	EXPECT("w_double", "0.10000000000000001");
	EXPECT("w_ldouble", "1.5");
	EXPECT("w_static", "99");
	EXPECT("w_kind", "W_TWO");
	EXPECT("w_kind_odd", "7");
	EXPECT("(enum w_kind)-1", "W_NEG");
	EXPECT("w_kind/d", "2");
}
END_TEST

START_TEST(test_arith)
{
	EXPECT("1 + 2 * 3", "7");
	EXPECT("(1 + 2) * 3", "9");
	EXPECT("7 / 2", "3");
	EXPECT("-7 / 2", "-3");
	EXPECT("w_int * -1", "17");
	EXPECT("w_uint + 1", "4000000001");
	EXPECT("w_double * 10", "1");
	EXPECT("w_float + 1", "1.5");
	EXPECT("w_float / 3", "0.166666672");	/* float stays float */
	EXPECT("-w_float", "-0.5");
	EXPECT("-w_uint", "294967296");
	EXPECT("-(unsigned int)1", "4294967295");
	EXPECT("(int)w_double", "0");
	EXPECT("(double)3 / 2", "1.5");
	EXPECT("(unsigned char)257", "1 '\\001'");
	EXPECT("(short)65535", "-1");
	EXPECT("'A' + 1", "66");
	EXPECT("0x10 + 010", "24");
	EXPECT("w_int / 0", "ERR: division by zero");
	EXPECT("w_double / 0", "ERR: division by zero");
	EXPECT("&w_long[5] - &w_long[2]", "3");
	EXPECT("*(&w_long[0] + 7)", "7");
	EXPECT("w_long[3] / 3 + w_long[2]", "3");
	EXPECT("(long)w_int", "-17");
	EXPECT("(int8_t)w_int", "-17 '\\357'");	/* signed char, as in gdb */
	EXPECT("(uint64_t)1", "1");
}
END_TEST

START_TEST(test_strings)
{
	char want[128];

	snprintf(want, sizeof(want), "0x%lx \"tab\\there \\\"q\\\" \\\\ \\001\"",
		 (unsigned long)(uintptr_t)w_str);
	EXPECT("w_str", want);
	EXPECT("w_nullstr", "0x0");
	EXPECT("w_name", "\"ab\"");
	EXPECT("w_full", "\"wxyz\"");
	EXPECT("*w_str", "116 't'");
	EXPECT("w_str[3]", "9 '\\t'");
	EXPECT("w_obj.label[1]", "98 'b'");
}
END_TEST

START_TEST(test_aggregates)
{
	char want[512];
	const char *v;

	snprintf(want, sizeof(want),
		 "{id = 7, in = {a = 1, tag = \"in\"}, arr = {{a = 2, tag = \"a0\"}, "
		 "{a = 3, tag = \"a1\"}}, flags = 5, delta = -3, {u_i = 42, "
		 "u_f = 5.88545355e-44}, self = 0x%lx <w_obj>, label = 0x%lx \"obj\", fn = 0x0}",
		 (unsigned long)(uintptr_t)&w_obj, (unsigned long)(uintptr_t)w_obj.label);
	EXPECT("w_obj", want);
	EXPECT("w_obj.in", "{a = 1, tag = \"in\"}");
	EXPECT("w_obj.arr[1].tag", "\"a1\"");
	EXPECT("w_objp->arr[0].a", "2");
	EXPECT("w_objp->self->self->id", "7");
	EXPECT("w_obj.flags", "5");
	EXPECT("w_obj.delta", "-3");
	EXPECT("w_obj.u_i", "42");
	EXPECT("(*w_objp).in.a", "1");
	EXPECT("w_grid", "{{1, 2, 3}, {4, 5, 6}}");
	EXPECT("w_grid[1][2]", "6");
	EXPECT("w_union", "{i = 16909060, b = \"\\004\\003\\002\\001\"}");
	EXPECT("w_zeros", "{0 <repeats 32 times>}");
	EXPECT("w_mixed", "{1 <repeats 11 times>, 2}");
	snprintf(want, sizeof(want), "(w_outer_t *) 0x%lx <w_obj>",
		 (unsigned long)(uintptr_t)&w_obj);
	EXPECT("w_objp", want);
	snprintf(want, sizeof(want), "(w_outer_t *) 0x%lx <w_obj>",
		 (unsigned long)(uintptr_t)&w_obj);
	EXPECT("&w_obj", want);
	snprintf(want, sizeof(want), "(struct w_inner *) 0x%lx <w_obj+%zu>",
		 (unsigned long)(uintptr_t)&w_obj.arr[1],
		 offsetof(w_outer_t, arr[1]));
	EXPECT("(struct w_inner *)&w_obj.arr[1]", want);
	EXPECT("((struct w_inner *)&w_obj.arr[0])->tag", "\"a0\"");
	v = eval("w_obj.self->label");
	ck_assert_msg(strstr(v, "\"obj\"") != NULL, "%s", v);
}
END_TEST

START_TEST(test_limits)
{
	struct out o;
	char err[64], want[4096];
	size_t i, n = 0;
	void *p;

	/* gdb's 200 elements, then "..." */
	n += (size_t)snprintf(want + n, sizeof(want) - n, "{");
	for (i = 0; i < 200; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%zu",
				      i ? ", " : "", i);
	snprintf(want + n, sizeof(want) - n, "...}");
	EXPECT("w_long", want);
	/* 200 characters of a string, then "..." */
	memset(want, 0, sizeof(want));
	want[0] = '"';
	memset(want + 1, 'x', 200);
	strcpy(want + 201, "\"...");
	EXPECT("w_text", want);
	/* a sink that wants no more stops the formatting */
	p = ops->compile("w_long", 6);
	memset(&o, 0, sizeof(o));
	o.stop_at = 10;
	ck_assert_int_eq(ops->eval(p, put, &o, err, sizeof(err)), 0);
	ck_assert_uint_lt(o.total, 20);
	ops->release(p);
}
END_TEST

START_TEST(test_memory_errors)
{
	char want[64];

	EXPECT("w_nullp", "(int *) 0x0");
	EXPECT("*w_nullp", "ERR: cannot read 0x0");
	EXPECT("*w_badp", "ERR: cannot read 0x10");
	EXPECT("w_badp[2]", "ERR: cannot read 0x18");
	snprintf(want, sizeof(want), "ERR: cannot read 0x%lx",
		 (unsigned long)(uintptr_t)w_gone);
	EXPECT("*w_gone", want);
	EXPECT("*(int *)0", "ERR: cannot read 0x0");
	EXPECT("*(struct w_inner *)8", "ERR: cannot read 0x8");
	/* inside an aggregate, a bad pointer is shown where it is */
	w_obj.label = (const char *)(uintptr_t)0x20;
	ck_assert_msg(strstr(eval("w_obj"),
			     "label = 0x20 <error: cannot read 0x20>") != NULL,
		      "%s", eval("w_obj"));
	w_obj.label = "obj";
}
END_TEST

START_TEST(test_errors)
{
	EXPECT("nosuch_var", "ERR: no symbol \"nosuch_var\"");
	EXPECT("", "ERR: empty expression");
	EXPECT("   ", "ERR: empty expression");
	EXPECT("w_int.x", "ERR: \".\" needs a struct or union, not int");
	EXPECT("w_objp.id", "ERR: \".\" needs a struct or union, not w_outer_t *");
	EXPECT("w_obj->id", "ERR: \"->\" needs a pointer to a struct or union, not w_outer_t");
	EXPECT("w_obj.nosuch", "ERR: no member \"nosuch\" in struct w_outer");
	EXPECT("*w_int", "ERR: cannot dereference int");
	EXPECT("w_int[1]", "ERR: cannot index int");
	EXPECT("w_long[w_obj]", "ERR: array index is not an integer");
	EXPECT("w_obj + 1", "ERR: cannot apply \"+\" to w_outer_t and int");
	EXPECT("-w_obj", "ERR: cannot negate w_outer_t");
	EXPECT("&1", "ERR: cannot take the address of a value that is not in memory");
	EXPECT("(struct nosuch *)0", "ERR: no struct \"nosuch\" in the program's debug information");
	EXPECT("(int)w_obj", "ERR: cannot cast w_outer_t to int");
	EXPECT("1 +", "ERR: syntax error at end of expression");
	EXPECT("w_int )", "ERR: syntax error at \")\"");
	EXPECT("w_int = 1", "ERR: bad token at \"= 1\"");
	EXPECT("(w_int", "ERR: syntax error at end of expression");
	EXPECT("99999999999999999999999", "ERR: bad token at \"99999999999999999999\"");
	EXPECT("'ab'", "ERR: bad token at \"'ab'\"");
}
END_TEST

static void *tls_thread(void *arg)
{
	static char got[64];

	(void)arg;
	w_tls = 22;
	snprintf(got, sizeof(got), "%s", eval("w_tls"));
	return got;
}

START_TEST(test_thread_local)
{
	pthread_t th;
	void *got;

	EXPECT("w_tls", "11");
	ck_assert_int_eq(pthread_create(&th, NULL, tls_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &got), 0);
	ck_assert_str_eq(got, "22");
	EXPECT("w_tls", "11");
	EXPECT("w_tls + 1", "12");
}
END_TEST

/*
 * The library's worker compiles, the watched thread evaluates: a
 * thread-local is found in the evaluating thread, through its own thread
 * pointer, whichever thread compiled it.
 */
static void *tls_eval_thread(void *prog)
{
	static struct out o;
	char err[128];

	w_tls = 33;
	memset(&o, 0, sizeof(o));
	if (ops->eval(prog, put, &o, err, sizeof(err)) != 0)
		snprintf(o.buf, sizeof(o.buf), "ERR: %s", err);
	return o.buf;
}

static void *tls_compile_thread(void *arg)
{
	(void)arg;
	w_tls = 44;
	return ops->compile("w_tls * 2", 9);
}

START_TEST(test_thread_local_elsewhere)
{
	pthread_t th;
	struct out o;
	char err[128];
	void *p = ops->compile("w_tls", 5), *got;

	ck_assert_int_eq(pthread_create(&th, NULL, tls_eval_thread, p), 0);
	ck_assert_int_eq(pthread_join(th, &got), 0);
	ck_assert_str_eq(got, "33");
	ops->release(p);
	ck_assert_int_eq(pthread_create(&th, NULL, tls_compile_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &p), 0);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ops->eval(p, put, &o, err, sizeof(err)), 0);
	ck_assert_str_eq(o.buf, "22");
	ops->release(p);
}
END_TEST

/*
 * A library loaded with dlopen() keeps its thread-locals in blocks each
 * thread allocates when it first uses them: before that the thread has no
 * storage for them (and the evaluation allocates none).
 */
static void *wtls_eval_thread(void *arg)
{
	static struct out o;
	void (*set)(int) = (void (*)(int))(uintptr_t)arg;
	void *p = ops->compile("wtls_value", 10);
	char err[128];

	memset(&o, 0, sizeof(o));
	if (ops->eval(p, put, &o, err, sizeof(err)) != 0)
		snprintf(o.buf, sizeof(o.buf), "ERR: %s", err);
	ck_assert_str_eq(o.buf, "ERR: thread-local \"wtls_value\" has no storage in this thread");
	set(77);
	memset(&o, 0, sizeof(o));
	if (ops->eval(p, put, &o, err, sizeof(err)) != 0)
		snprintf(o.buf, sizeof(o.buf), "ERR: %s", err);
	ops->release(p);
	return o.buf;
}

START_TEST(test_thread_local_dlopen)
{
	void *lib = dlopen(RB_TEST_WTLS, RTLD_NOW | RTLD_LOCAL), *got;
	void (*set)(int);
	pthread_t th;

	ck_assert_msg(lib != NULL, "dlopen %s: %s", RB_TEST_WTLS, dlerror());
	*(void **)&set = dlsym(lib, "wtls_set");
	ck_assert_ptr_nonnull(set);
	EXPECT("wtls_value", "ERR: thread-local \"wtls_value\" has no storage in this thread");
	set(9);
	EXPECT("wtls_value", "9");
	EXPECT("wtls_value + 1", "10");
	ck_assert_int_eq(pthread_create(&th, NULL, wtls_eval_thread,
					(void *)(uintptr_t)set), 0);
	ck_assert_int_eq(pthread_join(th, &got), 0);
	ck_assert_str_eq(got, "77");
	EXPECT("wtls_value", "9");
}
END_TEST

/* Expression text is bytes with a length: a NUL in it is an error. */
START_TEST(test_nul)
{
	struct out o;
	char err[128];
	void *p = ops->compile("w_int\0 + 1", 9);

	ck_assert_ptr_nonnull(p);
	ck_assert(ops->same(p, "w_int\0 + 1", 9));
	ck_assert(!ops->same(p, "w_int", 5));
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ops->eval(p, put, &o, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "NUL byte in the expression");
	ops->release(p);
	/* not NUL-terminated: only the length counts */
	p = ops->compile("w_intXYZ", 5);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ops->eval(p, put, &o, err, sizeof(err)), 0);
	ck_assert_str_eq(o.buf, "-17");
	ops->release(p);
}
END_TEST

START_TEST(test_format_suffix)
{
	EXPECT("w_obj.in/x", "{a = 0x1, tag = {0x69, 0x6e, 0x0, 0x0}}");
	EXPECT("w_long[10] / 2", "5");
	EXPECT("w_long[10]/x", "0xa");
	EXPECT("w_char/x", "0xa");
}
END_TEST

#define ADDR(x)	((unsigned long)(uintptr_t)(x))

/* Function pointers and functions print as gdb prints them. */
START_TEST(test_functions)
{
	char want[512];
	unsigned char first = *(volatile unsigned char *)(uintptr_t)w_handler;

	snprintf(want, sizeof(want), "(void (*)(int)) 0x%lx <w_handler>", ADDR(w_handler));
	EXPECT("w_fp", want);
	EXPECT("&w_handler", want);
	snprintf(want, sizeof(want), "{void (int)} 0x%lx <w_handler>", ADDR(w_handler));
	EXPECT("w_handler", want);
	EXPECT("*w_fp", want);
	EXPECT("*w_handler", want);
	EXPECT("**&w_handler", want);
	snprintf(want, sizeof(want), "(int (*)(void)) 0x%lx <main+1>", ADDR(main) + 1);
	EXPECT("main + 1", want);
	snprintf(want, sizeof(want), "(void *) 0x%lx <w_handler>", ADDR(w_handler));
	EXPECT("(void *)w_handler", want);
	snprintf(want, sizeof(want), "%ld", (long)ADDR(w_handler));
	EXPECT("(long)w_handler", want);
	snprintf(want, sizeof(want), "{int (void)} 0x%lx <main>", ADDR(main));
	EXPECT("main", want);
	snprintf(want, sizeof(want), "(int (*)(void)) 0x%lx <main>", ADDR(main));
	EXPECT("&main", want);
	snprintf(want, sizeof(want), "(w_log_t) 0x%lx <w_logf>", ADDR(w_logf));
	EXPECT("w_logp", want);
	snprintf(want, sizeof(want), "(int (*)(const char *, ...)) 0x%lx <w_logf>", ADDR(w_logf));
	EXPECT("w_vfp", want);
	snprintf(want, sizeof(want), "{int (const char *, ...)} 0x%lx <w_logf>", ADDR(w_logf));
	EXPECT("w_logf", want);
	snprintf(want, sizeof(want), "(int (*)()) 0x%lx <w_knr>", ADDR(w_knr));
	EXPECT("w_knrp", want);
	EXPECT("w_nullfp", "(void (*)(int)) 0x0");
	EXPECT("w_strfn", "(char *(*)(char *, const char *)) 0x0");
	snprintf(want, sizeof(want), "{0x%lx <w_handler> <repeats 12 times>}", ADDR(w_handler));
	EXPECT("w_fps", want);
	/* /x: the number alone; a function: its first byte, as gdb */
	snprintf(want, sizeof(want), "0x%lx", ADDR(w_handler));
	EXPECT("w_fp/x", want);
	snprintf(want, sizeof(want), "0x%x", first);
	EXPECT("w_handler/x", want);
	/* inside a struct */
	w_obj.fn = (void (*)(void))(uintptr_t)w_knr;
	snprintf(want, sizeof(want), "fn = 0x%lx <w_knr>}", ADDR(w_knr));
	ck_assert_msg(strstr(eval("w_obj"), want) != NULL, "%s", eval("w_obj"));
	w_obj.fn = NULL;
	EXPECT("-w_handler", "ERR: cannot negate void (int)");
	EXPECT("w_handler[1]", "ERR: cannot index void (int)");
	EXPECT("(double)w_handler", "ERR: cannot cast void (int) to double");
}
END_TEST

/* Pointers into symbols say which: "<w_long+12>", as gdb. */
START_TEST(test_pointer_symbols)
{
	char want[512];

	snprintf(want, sizeof(want), "(int *) 0x%lx <w_long+12>", ADDR(w_intp));
	EXPECT("w_intp", want);
	EXPECT("&w_long[3]", want);
	snprintf(want, sizeof(want), "(int *) 0x%lx <w_long>", ADDR(w_long));
	EXPECT("&w_long[0]", want);
	EXPECT("w_long + 0", want);
	snprintf(want, sizeof(want), "(int *) 0x%lx <w_static>", ADDR(w_staticp));
	EXPECT("w_staticp", want);
	snprintf(want, sizeof(want), "(int *) 0x%lx <w_bss+240000>", ADDR(w_bssp));
	EXPECT("w_bssp", want);
	snprintf(want, sizeof(want), "(struct w_inner *) 0x%lx <w_obj+%zu>",
		 ADDR(w_innerp), offsetof(w_outer_t, arr[1]));
	EXPECT("w_innerp", want);
	/* char *: no type before it, the string after the symbol */
	snprintf(want, sizeof(want), "0x%lx <w_name+1> \"b\"", ADDR(w_namep));
	EXPECT("w_namep", want);
	EXPECT("w_name + 1", want);
	snprintf(want, sizeof(want), "(unsigned char *) 0x%lx <w_ubytes> \"uv\"", ADDR(w_ubp));
	EXPECT("w_ubp", want);
	snprintf(want, sizeof(want), "(w_text_t) 0x%lx <w_name> \"ab\"", ADDR(w_name));
	EXPECT("w_textp", want);
	/* no symbol: a string literal, the heap, NULL */
	snprintf(want, sizeof(want), "0x%lx \"lit\"", ADDR(w_cstr));
	EXPECT("w_cstr", want);
	snprintf(want, sizeof(want), "(int *) 0x%lx", ADDR(w_heap));
	EXPECT("w_heap", want);
	EXPECT("w_nullp", "(int *) 0x0");
	/* in aggregates: the symbol, no type */
	snprintf(want, sizeof(want), "self = 0x%lx <w_obj>,", ADDR(&w_obj));
	ck_assert_msg(strstr(eval("w_obj"), want) != NULL, "%s", eval("w_obj"));
	/* /x and /d: the number alone */
	snprintf(want, sizeof(want), "0x%lx", ADDR(w_intp));
	EXPECT("w_intp/x", want);
	snprintf(want, sizeof(want), "%ld", (long)ADDR(w_intp));
	EXPECT("w_intp/d", want);
	snprintf(want, sizeof(want), "0x%lx", ADDR(w_namep));
	EXPECT("w_namep/x", want);
}
END_TEST

/* sizeof: an unsigned long, the expression not evaluated; C says the sizes. */
START_TEST(test_sizeof)
{
	char want[64];

#define SIZE(expr, n) do { \
		snprintf(want, sizeof(want), "%zu", (size_t)(n)); \
		EXPECT(expr, want); \
	} while (0)
	SIZE("sizeof w_int", sizeof w_int);
	SIZE("sizeof(int)", sizeof(int));
	SIZE("sizeof(w_int)", sizeof(w_int));
	SIZE("sizeof w_obj", sizeof w_obj);
	SIZE("sizeof(w_outer_t)", sizeof(w_outer_t));
	SIZE("sizeof(struct w_inner)", sizeof(struct w_inner));
	SIZE("sizeof(struct w_inner *)", sizeof(struct w_inner *));
	SIZE("sizeof w_grid", sizeof w_grid);
	SIZE("sizeof w_grid[1]", sizeof w_grid[1]);
	SIZE("sizeof w_obj.arr / sizeof w_obj.arr[0]", 2);
	SIZE("sizeof *w_objp", sizeof *w_objp);
	SIZE("sizeof w_objp->self", sizeof w_objp->self);
	SIZE("sizeof (w_obj).in", sizeof(w_obj).in);
	SIZE("sizeof *w_nullp", sizeof *w_nullp);	/* not evaluated */
	SIZE("sizeof(char *)", sizeof(char *));
	SIZE("sizeof(long double)", sizeof(long double));
	SIZE("sizeof(unsigned short)", sizeof(unsigned short));
	SIZE("sizeof (int) * 2", sizeof(int) * 2);
	SIZE("sizeof -1", sizeof -1);
	SIZE("sizeof 'a'", 1);		/* gdb: a char */
	SIZE("sizeof w_text", sizeof w_text);
	SIZE("sizeof w_str", sizeof w_str);
	SIZE("sizeof w_kind", sizeof w_kind);
	SIZE("sizeof w_fp", sizeof w_fp);
	SIZE("sizeof(w_log_t)", sizeof(w_log_t));
	SIZE("sizeof w_handler", 1);	/* gdb */
	SIZE("sizeof(void)", 1);	/* gdb */
	SIZE("sizeof w_obj.flags", sizeof(unsigned));
	SIZE("sizeof sizeof w_int", sizeof(unsigned long));
	SIZE("sizeof w_tls", sizeof w_tls);
#undef SIZE
	EXPECT("sizeof(int)/x", "0x4");
	EXPECT("sizeof w_int - 5", "18446744073709551615");	/* unsigned long */
	EXPECT("sizeof", "ERR: syntax error at end of expression");
	EXPECT("sizeof(int", "ERR: syntax error at end of expression");
	EXPECT("sizeof(struct nosuch)", "ERR: no struct \"nosuch\" in the program's debug information");
	EXPECT("sizeof nosuch", "ERR: no symbol \"nosuch\"");
}
END_TEST

/* gdb's 'file.c'::name: by the file's name or its end after a "/". */
START_TEST(test_file_scope)
{
	char want[128];

	EXPECT("'check_watch.c'::w_static", "99");
	EXPECT("'tests/check_watch.c'::w_int", "-17");
	EXPECT("'check_watch.c' :: w_int", "-17");
	EXPECT("'check_watch.c'::w_obj.arr[1].a", "3");
	EXPECT("-'check_watch.c'::w_int", "17");
	snprintf(want, sizeof(want), "%zu", sizeof w_obj);
	EXPECT("sizeof 'check_watch.c'::w_obj", want);
	snprintf(want, sizeof(want), "(int *) 0x%lx <w_static>", ADDR(w_staticp));
	EXPECT("&'check_watch.c'::w_static", want);
	snprintf(want, sizeof(want), "{void (int)} 0x%lx <w_handler>", ADDR(w_handler));
	EXPECT("'check_watch.c'::w_handler", want);
	/* the object's name too */
	EXPECT("'check_watch'::w_int", "-17");
	EXPECT("'nosuch.c'::w_int", "ERR: no source file \"nosuch.c\" in the program");
	EXPECT("'heck_watch.c'::w_int", "ERR: no source file \"heck_watch.c\" in the program");
	EXPECT("'/check_watch.c'::w_int", "ERR: no source file \"/check_watch.c\" in the program");
	EXPECT("'check_watch.c'::nosuch", "ERR: no symbol \"nosuch\" in \"check_watch.c\"");
	EXPECT("'check_watch.c'::", "ERR: syntax error at end of expression");
	EXPECT("'check_watch.c'::1", "ERR: syntax error at \"1\"");
	EXPECT("'check_watch.c'", "ERR: bad token at \"'check_watch.c'\"");
}
END_TEST

/*
 * What C leaves undefined has gdb's answer: a float converted to an
 * integer saturates to long's range (NaN to its maximum), then keeps the
 * type's low bytes; pointers subtract modulo 2^64, then divide.  Every
 * expected value but _Bool's (gdb's C has no _Bool) is what gdb 13.1
 * prints for the same expression over the same values.
 */
START_TEST(test_undefined)
{
	EXPECT("(int)w_huge", "-1");
	EXPECT("(long)w_huge", "9223372036854775807");
	EXPECT("(unsigned long)w_huge", "9223372036854775807");
	EXPECT("(long)w_neghuge", "-9223372036854775808");
	EXPECT("(int)w_neghuge", "0");
	EXPECT("(unsigned long)w_neghuge", "9223372036854775808");
	EXPECT("(short)w_huge", "-1");
	EXPECT("(char)w_huge", "-1 '\\377'");
	EXPECT("(long)w_nan", "9223372036854775807");
	EXPECT("(int)w_nan", "-1");
	EXPECT("(long)(w_huge * w_huge)", "9223372036854775807");
	EXPECT("(unsigned int)-w_double", "0");
	EXPECT("(_Bool)w_huge", "true");	/* not 0, as C says */
	EXPECT("(float)w_huge", "inf");
	EXPECT("w_lowp - w_highp", "272");
	EXPECT("w_highp - w_lowp", "-272");
	EXPECT("w_llow - w_lhigh", "-1152921504606846976");
	EXPECT("w_lhigh - w_llow", "-1152921504606846976");
	EXPECT("(long)w_lhigh - (long)w_llow", "-9223372036854775808");
	EXPECT("(long)w_llow - (long)w_lhigh", "-9223372036854775808");
	EXPECT("(unsigned char)w_huge", "255 '\\377'");
}
END_TEST

/*
 * An unknown name after a dlopen() or dlclose() makes the index again:
 * programs compiled before keep their types, and the ones compiled after
 * get the same answers.  Under the sanitizer build LeakSanitizer checks
 * that making it again loses nothing.
 */
START_TEST(test_reindex)
{
	char want[256];
	void *before = ops->compile("w_objp->in", 10), *lib;
	struct out o;
	char err[128];

	snprintf(want, sizeof(want), "(w_outer_t *) 0x%lx <w_obj>", ADDR(&w_obj));
	EXPECT("w_objp", want);
	lib = dlopen("libutil.so.1", RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(lib != NULL, "dlopen libutil.so.1: %s", dlerror());
	EXPECT("nosuch_after_dlopen", "ERR: no symbol \"nosuch_after_dlopen\"");
	EXPECT("w_objp", want);
	EXPECT("w_obj.arr[1].tag", "\"a1\"");
	dlclose(lib);
	EXPECT("nosuch_after_dlclose", "ERR: no symbol \"nosuch_after_dlclose\"");
	EXPECT("w_objp", want);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(ops->eval(before, put, &o, err, sizeof(err)), 0);
	ck_assert_str_eq(o.buf, "{a = 1, tag = \"in\"}");
	ops->release(before);
}
END_TEST

/* The same text compiles once; a program is tied to its text. */
START_TEST(test_same)
{
	void *p = ops->compile("w_int", 5);

	ck_assert(ops->same(p, "w_int", 5));
	ck_assert(!ops->same(p, "w_int ", 6));
	ck_assert(!ops->same(p, "w_inx", 5));
	ops->release(p);
}
END_TEST

static Suite *suite_watch(void)
{
	Suite *s = suite_create("watch");
	TCase *tc = tcase_create("expr");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_scalars);
	tcase_add_test(tc, test_arith);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_aggregates);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_memory_errors);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_thread_local);
	tcase_add_test(tc, test_thread_local_elsewhere);
	tcase_add_test(tc, test_thread_local_dlopen);
	tcase_add_test(tc, test_nul);
	tcase_add_test(tc, test_format_suffix);
	tcase_add_test(tc, test_same);
	tcase_add_test(tc, test_functions);
	tcase_add_test(tc, test_pointer_symbols);
	tcase_add_test(tc, test_sizeof);
	tcase_add_test(tc, test_file_scope);
	tcase_add_test(tc, test_undefined);
	tcase_add_test(tc, test_reindex);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_watch());
	int failed;
	size_t i;
	void *m;

	for (i = 0; i < 250; i++)
		w_long[i] = (int)i;
	memset(w_text, 'x', sizeof(w_text) - 1);
	/* a page that was mapped and is not any more */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		w_gone = m;
		mprotect(m, 4096, PROT_NONE);
	}
	w_heap = malloc(64);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
