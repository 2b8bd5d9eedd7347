/* SPDX-License-Identifier: MIT */
/*
 * stk-getc.c - threads blocked in getc_unlocked(), which glibc's
 * <stdio.h> defines extern inline (gnu_inline) when optimising: inlined
 * into the instrumented read_word() at two places, it calls the entry
 * hook with the address of libc's out-of-line getc_unlocked(), a function
 * of another object.  main parks at the first place, the worker at the
 * second, each in read() on a pipe nobody writes to.
 */
#include <stdio.h>

#include "stk.h"

NOINLINE static int
read_word(FILE *f, char *buf, int size, int mode)
{
	int c, n = 0;

	stk_arrive();
	if (mode == 0) {
		while (n < size - 1 && (c = getc_unlocked(f)) != EOF &&
		    c != ' ')
			buf[n++] = (char)c;
	} else {
		while (n < size - 1 && (c = getc_unlocked(f)) != EOF &&
		    c != '\n')
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return n;
}

static FILE *
open_end(void)
{
	FILE *f;

	if ((f = fdopen(dup(stk_pipe[0]), "r")) == NULL) {
		perror("stk-getc: fdopen");
		exit(1);
	}
	return f;
}

static void *
worker_main(void *arg)
{
	char buf[64];

	return (void *)(long)read_word(arg, buf, sizeof buf, 1);
}

int
main(int argc, char **argv)
{
	char buf[64];

	(void)argv;
	stk_init(2);
	stk_spawn(worker_main, open_end());
	return read_word(open_end(), buf, sizeof buf, argc - 1);
}
