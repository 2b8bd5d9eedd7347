/* SPDX-License-Identifier: MIT */
/*
 * stk-cold.c - a .cold split on the way: handle_request() has an unlikely
 * error path that gcc moves into handle_request.cold; request 3 takes it
 * and parks under log_failure() -> retry_later().
 */
#include "stk.h"

static volatile int stk_failing = 3;
static volatile int stk_log[8];

NOINLINE static int
retry_later(int n)
{
	stk_log[n & 7] = n;
	return stk_park() + n;
}

NOINLINE __attribute__((cold)) static int
log_failure(int n)
{
	fprintf(stderr, "stk-cold: request %d failed\n", n);
	return retry_later(n + 1) - 1;
}

NOINLINE static int
handle_request(int n)
{
	int r = n * 3;

	if (__builtin_expect(n == stk_failing, 0)) {
		stk_log[0] = r;
		r += log_failure(n);
		stk_log[1] = r;
	}
	return r + 1;
}

NOINLINE static int
serve_requests(int count)
{
	int i, sum = 0;

	for (i = 0; i < count; i++)
		sum += handle_request(i);
	return sum;
}

int
main(int argc, char **argv)
{
	stk_init(1);
	return serve_requests(argc + 5) == 0;
}
