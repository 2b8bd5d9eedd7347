/* SPDX-License-Identifier: MIT */
/*
 * wtls.c - a library with a thread-local, loaded by check_watch with
 * dlopen(): its block is allocated in a thread only once the thread uses it.
 */
void wtls_set(int v);

__thread int wtls_value = 5;

void wtls_set(int v)
{
	wtls_value = v;
}
