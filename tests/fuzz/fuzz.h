/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - the libFuzzer interface each target in tests/fuzz/ implements.
 *
 * A target is built twice: with clang's libFuzzer for `make fuzz`, and
 * with driver.c's main() for `make check`, which replays the committed
 * corpus (tests/fuzz/corpus/TARGET/) with whatever compiler configure found.
 */
#ifndef RB_FUZZ_H
#define RB_FUZZ_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message: the target found a broken invariant. */
static __attribute__((noreturn, format(printf, 1, 2), unused)) void
fuzz_fail(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/*
 * A path for a target's file, "DIR/rbtrace-fuzz.PID.XXXXXX" for mkstemp():
 * DIR is $FUZZ_DIR, else /dev/shm (a file system in memory: a disk's would
 * cost more than the target), else $TMPDIR or /tmp.  A crash leaves its
 * file behind; those of processes gone are removed here.
 */
static __attribute__((unused)) void
fuzz_path(char *buf, size_t len)
{
	const char	*d = getenv("FUZZ_DIR");
	struct dirent	*e;
	DIR		*dir;
	char		 old[320];
	int		 pid;

	if (d == NULL || *d == '\0' || strlen(d) >= 200) {
		d = getenv("TMPDIR");
		if (access("/dev/shm", W_OK | X_OK) == 0)
			d = "/dev/shm";
		else if (d == NULL || *d == '\0' || strlen(d) >= 200)
			d = "/tmp";
	}
	if ((dir = opendir(d)) != NULL) {
		while ((e = readdir(dir)) != NULL) {
			if (sscanf(e->d_name, "rbtrace-fuzz.%d.", &pid) == 1 &&
			    pid > 0 && kill(pid, 0) != 0 && errno == ESRCH &&
			    snprintf(old, sizeof old, "%s/%s", d, e->d_name) <
			    (int)sizeof old)
				unlink(old);
		}
		closedir(dir);
	}
	snprintf(buf, len, "%s/rbtrace-fuzz.%d.XXXXXX", d, (int)getpid());
}

#endif /* RB_FUZZ_H */
