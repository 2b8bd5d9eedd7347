/*
 * fuzz.h - the libFuzzer interface each target in tests/fuzz/ implements.
 *
 * A target is built twice: with clang's libFuzzer for `make fuzz`, and
 * with driver.c's main() for `make check`, which replays the committed
 * corpus (tests/fuzz/corpus/TARGET/) with whatever compiler configure found.
 */
#ifndef RB_FUZZ_H
#define RB_FUZZ_H

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
 * Where a target keeps its file: $FUZZ_DIR, else /dev/shm (a file system
 * in memory: a disk's would cost more than the target), else $TMPDIR or
 * /tmp.
 */
static __attribute__((unused)) const char *
fuzz_dir(void)
{
	const char	*d = getenv("FUZZ_DIR");

	if (d != NULL && *d != '\0' && strlen(d) < 32)
		return d;
	if (access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	d = getenv("TMPDIR");
	return d != NULL && *d != '\0' && strlen(d) < 32 ? d : "/tmp";
}

#endif /* RB_FUZZ_H */
