/* SPDX-License-Identifier: MIT */
/*
 * dlopener.c - loads the shared object named by argv[1] after start-up and
 * parks inside it (main -> run_plugin -> plugin_run -> plugin_wait).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static int run_plugin(const char *path, int fd)
{
	int (*run)(int);
	void *h = dlopen(path, RTLD_NOW);

	if (h == NULL) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 2;
	}
	run = (int (*)(int))dlsym(h, "plugin_run");
	if (run == NULL) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 2;
	}
	return run(fd);	/* LINE:call_plugin_run */
}

int main(int argc, char **argv)
{
	int fds[2];

	if (argc != 2 || pipe(fds) < 0) {
		fprintf(stderr, "usage: dlopener PLUGIN.so\n");
		return 2;
	}
	return run_plugin(argv[1], fds[0]);
}
