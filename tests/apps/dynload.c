/* SPDX-License-Identifier: MIT */
/*
 * dynload.c - threads calling into a plugin that another thread unloads
 * and loads again all the time, for dynamic tracing (rbtrace(5), "fork,
 * exec, dlopen").
 *
 * usage: dynload [-t THREADS] [-r RELOADS] [-l] PLUGIN_A [PLUGIN_B]
 * THREADS (default 2) threads "dl-K" call plugin_calc() of the plugin
 * loaded now (dl_call) and check each result against the same sums made
 * without a call: a difference writes "bad TID" and the program exits 1.
 * Thread "dl-load" dlclose()s it and dlopen()s PLUGIN_A and PLUGIN_B in
 * turn (PLUGIN_A only if PLUGIN_B is not given), RELOADS times (default
 * 200), writing "reload N" every 10; with -l it goes on until SIGTERM.
 * Then "calls N" (the calls of dl_call, all threads) and "done PID".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "app.h"

#define THREADS_MAX	16

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned long (*calc)(unsigned long);
static void *handle;
static const char *plugins[2];
static long reloads = 200;
static int loop, bad, stop;
static long calls;

NOTRACE static unsigned long dl_expect(unsigned long x)
{
	int i;

	for (i = 0; i < 8; i++)
		x = (x ^ (x >> 7)) + 3;
	return x + 1;
}

NOTRACE static void dl_open(const char *path)
{
	handle = dlopen(path, RTLD_NOW);
	if (handle == NULL) {
		fprintf(stderr, "dynload: %s\n", dlerror());
		exit(2);
	}
	calc = (unsigned long (*)(unsigned long))dlsym(handle, "plugin_calc");
	if (calc == NULL) {
		fprintf(stderr, "dynload: %s\n", dlerror());
		exit(2);
	}
}

__attribute__((noinline)) unsigned long dl_call(unsigned long x)
{
	return calc(x);
}

static void *dl_thread(void *arg)
{
	long k = (long)arg, n = 0;
	unsigned long x = (unsigned long)k, want;
	char name[16];

	snprintf(name, sizeof(name), "dl-%ld", k);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		pthread_rwlock_rdlock(&lock);
		want = dl_expect(x);
		x = dl_call(x);
		pthread_rwlock_unlock(&lock);
		n++;
		if (x != want) {
			app_ready("bad %d", (int)gettid());
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	__atomic_add_fetch(&calls, n, __ATOMIC_RELAXED);
	return NULL;
}

static void *dl_loader(void *arg)
{
	long i;

	(void)arg;
	prctl(PR_SET_NAME, "dl-load", 0, 0, 0);
	for (i = 1; loop || i <= reloads; i++) {
		if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
			break;
		pthread_rwlock_wrlock(&lock);
		if (dlclose(handle) != 0) {
			fprintf(stderr, "dynload: %s\n", dlerror());
			exit(2);
		}
		dl_open(plugins[plugins[1] != NULL ? i & 1 : 0]);
		pthread_rwlock_unlock(&lock);
		if (i % 10 == 0)
			app_ready("reload %ld", i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS_MAX], ld;
	sigset_t set;
	long threads = 2, i;
	int c, sig;

	while ((c = getopt(argc, argv, "t:r:l")) != -1) {
		switch (c) {
		case 't':
			threads = strtol(optarg, NULL, 10);
			break;
		case 'r':
			reloads = strtol(optarg, NULL, 10);
			break;
		case 'l':
			loop = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || argc - optind > 2 || threads < 1 ||
	    threads > THREADS_MAX)
		goto usage;
	plugins[0] = argv[optind];
	plugins[1] = argv[optind + 1];
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	dl_open(plugins[0]);
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, dl_thread, (void *)i);
	pthread_create(&ld, NULL, dl_loader, NULL);
	app_ready("running %d", (int)getpid());
	if (loop)
		sigwait(&set, &sig);
	else
		pthread_join(ld, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (loop)
		pthread_join(ld, NULL);
	app_ready("calls %ld", calls);
	app_ready("done %d", (int)getpid());
	return bad;
usage:
	fprintf(stderr, "usage: dynload [-t THREADS] [-r RELOADS] [-l] "
	    "PLUGIN_A [PLUGIN_B]\n");
	return 2;
}
