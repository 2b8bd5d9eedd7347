/* SPDX-License-Identifier: MIT */
/*
 * stk-deep.c - deep stacks: main parks under 45 distinct functions (the
 * depth of Lua's stack at start-up), and a worker 120 calls deeper still
 * (deeper than any ring) through descend_a, _b and _c in an order
 * that never repeats, so that no part of its stack looks like another.
 */
#include "stk.h"

#define STK_DESCEND	120

NOINLINE static int
g_read(int n)
{
	return stk_park() + n;
}

NOINLINE static int
io_readline(int n)
{
	return g_read(n + 2) + 2;
}

NOINLINE static int
l_alloc_hook(int n)
{
	return io_readline(n + 1) + 1;
}

NOINLINE static int
luaM_growaux(int n)
{
	return l_alloc_hook(n + 7) + 7;
}

NOINLINE static int
savelineinfo(int n)
{
	return luaM_growaux(n + 6) + 6;
}

NOINLINE static int
luaK_code(int n)
{
	return savelineinfo(n + 5) + 5;
}

NOINLINE static int
discharge2reg(int n)
{
	return luaK_code(n + 4) + 4;
}

NOINLINE static int
luaK_exp2nextreg(int n)
{
	return discharge2reg(n + 3) + 3;
}

NOINLINE static int
simpleexp(int n)
{
	return luaK_exp2nextreg(n + 2) + 2;
}

NOINLINE static int
subexpr(int n)
{
	return simpleexp(n + 1) + 1;
}

NOINLINE static int
expr(int n)
{
	return subexpr(n + 7) + 7;
}

NOINLINE static int
explist(int n)
{
	return expr(n + 6) + 6;
}

NOINLINE static int
funcargs(int n)
{
	return explist(n + 5) + 5;
}

NOINLINE static int
suffixedexp(int n)
{
	return funcargs(n + 4) + 4;
}

NOINLINE static int
exprstat(int n)
{
	return suffixedexp(n + 3) + 3;
}

NOINLINE static int
statement(int n)
{
	return exprstat(n + 2) + 2;
}

NOINLINE static int
statlist(int n)
{
	return statement(n + 1) + 1;
}

NOINLINE static int
mainfunc(int n)
{
	return statlist(n + 7) + 7;
}

NOINLINE static int
luaY_parser(int n)
{
	return mainfunc(n + 6) + 6;
}

NOINLINE static int
f_parser(int n)
{
	return luaY_parser(n + 5) + 5;
}

NOINLINE static int
luaD_protectedparser(int n)
{
	return f_parser(n + 4) + 4;
}

NOINLINE static int
lua_load(int n)
{
	return luaD_protectedparser(n + 3) + 3;
}

NOINLINE static int
luaL_loadfilex(int n)
{
	return lua_load(n + 2) + 2;
}

NOINLINE static int
luaB_dofile(int n)
{
	return luaL_loadfilex(n + 1) + 1;
}

NOINLINE static int
finishpcall(int n)
{
	return luaB_dofile(n + 7) + 7;
}

NOINLINE static int
luaB_pcall(int n)
{
	return finishpcall(n + 6) + 6;
}

NOINLINE static int
luaD_call(int n)
{
	return luaB_pcall(n + 5) + 5;
}

NOINLINE static int
luaT_callTM(int n)
{
	return luaD_call(n + 4) + 4;
}

NOINLINE static int
luaV_finishOp(int n)
{
	return luaT_callTM(n + 3) + 3;
}

NOINLINE static int
luaV_execute(int n)
{
	return luaV_finishOp(n + 2) + 2;
}

NOINLINE static int
precallC(int n)
{
	return luaV_execute(n + 1) + 1;
}

NOINLINE static int
luaD_precall(int n)
{
	return precallC(n + 7) + 7;
}

NOINLINE static int
ccall(int n)
{
	return luaD_precall(n + 6) + 6;
}

NOINLINE static int
luaD_callnoyield(int n)
{
	return ccall(n + 5) + 5;
}

NOINLINE static int
f_call(int n)
{
	return luaD_callnoyield(n + 4) + 4;
}

NOINLINE static int
luaD_rawrunprotected(int n)
{
	return f_call(n + 3) + 3;
}

NOINLINE static int
luaD_pcall(int n)
{
	return luaD_rawrunprotected(n + 2) + 2;
}

NOINLINE static int
lua_pcallk(int n)
{
	return luaD_pcall(n + 1) + 1;
}

NOINLINE static int
msghandler_setup(int n)
{
	return lua_pcallk(n + 7) + 7;
}

NOINLINE static int
docall(int n)
{
	return msghandler_setup(n + 6) + 6;
}

NOINLINE static int
loadfile_run(int n)
{
	return docall(n + 5) + 5;
}

NOINLINE static int
handle_script(int n)
{
	return loadfile_run(n + 4) + 4;
}

NOINLINE static int
collectargs_done(int n)
{
	return handle_script(n + 3) + 3;
}

NOINLINE static int
pmain(int n)
{
	return collectargs_done(n + 2) + 2;
}

NOINLINE static int
pmain_call(int n)
{
	return pmain(n + 1) + 1;
}

/* The worker's way down: which of descend_a, _b and _c comes next. */
static const char stk_path[] =
	"babcaacabcacaaabbaaacbacaacccaccbaaacabbacacbccaacccabaccaca"
	"cabccbbbcbbbaacaacbcbbcbbcaacbababbacaccbbcbcbcbaabbccaaccbc";

NOINLINE static int descend_a(int n);
NOINLINE static int descend_b(int n);

NOINLINE static int
descend_c(int n)
{
	if (n <= 0)
		return stk_park();
	switch (stk_path[n % STK_DESCEND]) {
	case 'a':
		return descend_a(n - 1) + 7;
	case 'b':
		return descend_b(n - 1) + 8;
	default:
		return descend_c(n - 1) + 9;
	}
}

NOINLINE static int
descend_b(int n)
{
	if (n <= 0)
		return stk_park();
	switch (stk_path[n % STK_DESCEND]) {
	case 'a':
		return descend_a(n - 1) + 4;
	case 'b':
		return descend_b(n - 1) + 5;
	default:
		return descend_c(n - 1) + 6;
	}
}

NOINLINE static int
descend_a(int n)
{
	if (n <= 0)
		return stk_park();
	switch (stk_path[n % STK_DESCEND]) {
	case 'a':
		return descend_a(n - 1) + 1;
	case 'b':
		return descend_b(n - 1) + 2;
	default:
		return descend_c(n - 1) + 3;
	}
}

NOINLINE static int
run_jobs(int n)
{
	return descend_a(n) * 2;
}

static void *
deep_worker(void *arg)
{
	return (void *)(long)run_jobs((int)(long)arg);
}

int
main(int argc, char **argv)
{
	stk_init(2);
	stk_spawn(deep_worker, (void *)(long)(STK_DESCEND - 3));
	return pmain_call(argc) == 0;
}
