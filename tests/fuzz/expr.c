/* SPDX-License-Identifier: MIT */
/*
 * expr.c - fuzz the expression module (lib/expr/, linked in): compile an
 * input as watch expression text, then evaluate it in this thread, as a
 * watched thread does.  This program is built with -g and holds variables
 * of every kind for the expressions to name (as tests/check_watch.c).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/watch.h"

#include "fuzz.h"

#define USED	__attribute__((used))

const struct rb_watch_ops *rbtrace_watch_ops(void);

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
USED int w_grid[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
USED int w_long[250];
USED int *w_nullp;
USED int *w_badp = (int *)(uintptr_t)0x10;

enum w_kind { W_ONE = 1, W_TWO = 2, W_NEG = -1 };
USED enum w_kind w_kind = W_TWO;

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
	void (*fn)(int);
};
typedef struct w_outer w_outer_t;

USED void w_handler(int sig);
USED w_outer_t w_obj = {
	7, { 1, "in" }, { { 2, "a0" }, { 3, "a1" } }, 5, -3, { 42 },
	&w_obj, "obj", w_handler,
};
USED w_outer_t *w_objp = &w_obj;
USED union { int i; unsigned char b[4]; } w_union = { 0x01020304 };
USED __thread int w_tls = 11;
USED void (*w_fp)(int) = w_handler;
USED int *w_intp = &w_long[3];
USED struct w_inner *w_innerp = &w_obj.arr[1];

void w_handler(int sig)
{
	w_int += sig - sig;
}

static const struct rb_watch_ops *expr_ops;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int i;

	(void)argc;
	(void)argv;
	for (i = 0; i < 250; i++)
		w_long[i] = i;
	expr_ops = rbtrace_watch_ops();
	if (expr_ops == NULL || expr_ops->abi != RB_WATCH_ABI)
		fuzz_fail("no expression module of ABI %d", RB_WATCH_ABI);
	return 0;
}

struct expr_out {
	size_t	 total;
	int	 calls;
	int	 verbose;	/* FUZZ_VERBOSE: the value on stderr */
};

static int expr_put(void *arg, const char *s, size_t n)
{
	struct expr_out *o = arg;

	if (s == NULL && n != 0)
		fuzz_fail("sink given NULL and %zu bytes", n);
	if (n != 0)
		(void)*(volatile const char *)&s[n - 1];
	o->total += n;
	o->calls++;
	if (o->verbose)
		fwrite(s, 1, n, stderr);
	/* As the library: stop once the value fills the result and the GMA. */
	return o->total > 64 * 1024;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct expr_out out = { 0, 0, getenv("FUZZ_VERBOSE") != NULL };
	char err[256];
	void *p;

	if (size > 4096)
		return 0;
	p = expr_ops->compile(text, size);
	if (p == NULL)
		fuzz_fail("compile returned NULL");
	if (!expr_ops->same(p, text, size))
		fuzz_fail("compiled text is not the same");
	memset(err, 0x55, sizeof(err));
	if (expr_ops->eval(p, expr_put, &out, err, sizeof(err)) != 0) {
		if (out.total != 0)
			fuzz_fail("an error after %zu bytes of value", out.total);
		if (memchr(err, '\0', sizeof(err)) == NULL)
			fuzz_fail("error message not terminated");
		if (out.verbose)
			fprintf(stderr, "error: %s", err);
	}
	if (out.verbose)
		fputc('\n', stderr);
	expr_ops->release(p);
	return 0;
}
