/* SPDX-License-Identifier: MIT */
/*
 * driver.c - main() for a fuzz target without libFuzzer: replays inputs.
 *
 *   replay-TARGET [FILE|DIR]...
 *
 * Each FILE, and each regular file in each DIR, is one input, run once
 * through LLVMFuzzerTestOneInput().  Without arguments the target's
 * committed corpus (FUZZ_CORPUS) is replayed; fewer than FUZZ_MIN_INPUTS
 * there is a failure, so that a lost corpus cannot pass for a clean one.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_MIN_INPUTS
#define FUZZ_MIN_INPUTS	1
#endif

static size_t driver_runs;

static int
driver_file(const char *path)
{
	FILE		*f;
	uint8_t		*buf;
	long		 n;

	f = fopen(path, "rb");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f != NULL)
			fclose(f);
		return -1;
	}
	/* An exact-size copy: reading past the input is then an ASan error. */
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "input %s (%ld bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	driver_runs++;
	return 0;
}

static int
driver_path(const char *path)
{
	struct dirent	**names;
	struct stat	  st;
	char		 *sub;
	int		  i, n, bad = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return driver_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' &&
		    asprintf(&sub, "%s/%s", path, names[i]->d_name) >= 0) {
			if (stat(sub, &st) == 0 && S_ISREG(st.st_mode) &&
			    driver_file(sub) != 0)
				bad = 1;
			free(sub);
		}
		free(names[i]);
	}
	free(names);
	return bad ? -1 : 0;
}

int
main(int argc, char **argv)
{
	int	i, bad = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc < 2) {
#ifdef FUZZ_CORPUS
		if (driver_path(FUZZ_CORPUS) != 0)
			bad = 1;
		if (driver_runs < FUZZ_MIN_INPUTS) {
			fprintf(stderr, "%s: %zu inputs, expected at least %d\n",
			    FUZZ_CORPUS, driver_runs, FUZZ_MIN_INPUTS);
			bad = 1;
		}
#else
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
#endif
	}
	for (i = 1; i < argc; i++)
		if (driver_path(argv[i]) != 0)
			bad = 1;
	printf("%zu inputs replayed\n", driver_runs);
	return bad;
}
