/* SPDX-License-Identifier: MIT */
/*
 * slowattach.c - a stand-in for librbtrace whose loading takes 3 s, so a
 * test can kill the program while rbtrace -p is inside it (RBTRACE_LIB).
 */
#include <stddef.h>
#include <time.h>

__attribute__((constructor)) static void slow_load(void)
{
	struct timespec ts = { 3, 0 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int __rbtrace_start(const char *req, char *msg, size_t len)
{
	(void)req;
	if (len != 0)
		msg[0] = '\0';
	return 0;
}
