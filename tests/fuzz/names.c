/* SPDX-License-Identifier: MIT */
/*
 * names.c - fuzz what reads a user's patterns and an object's symbols:
 * the split of a pattern list and the name rule (common/namematch.c),
 * and the symbol table of an ELF file (lib/dyn/names.c).  An input is
 *
 *   byte 0      0: the rest is an ELF file; every symbol it lets through
 *               is named, its kind read, and matched against two globs
 *               1: the rest is a pattern list, a NUL, then a name: the
 *               list is split, and each of its patterns matched against
 *               the name
 *
 * Invariants: the split says the same at every output size, and writes
 * only trimmed, non-empty patterns without control characters.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/namematch.h"
#include "lib/dyn/names.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
names_elf(const uint8_t *data, size_t size)
{
	struct rb_names_symtab	 st;
	const char		*nm;
	uint8_t			*img;
	size_t			 i, base;

	/* Aligned as a mapping is, and no byte more. */
	if ((img = malloc(size ? size : 1)) == NULL)
		return;
	memcpy(img, data, size);
	if (rb_names_symtab(img, size, &st) == 0) {
		if ((const uint8_t *)st.sym < img || (const uint8_t *)(st.sym +
		    st.nsym) > img + size || (const uint8_t *)st.str < img ||
		    (const uint8_t *)st.str + st.strsz > img + size)
			fuzz_fail("symbol table outside the image");
		for (i = 0; i < st.nsym; i++) {
			if ((nm = rb_names_symname(&st, &st.sym[i])) == NULL)
				continue;
			if (rb_symbol_kind(nm, &base) != RB_SYM_FRAGMENT &&
			    base > strlen(nm))
				fuzz_fail("base past the name");
			(void)rb_name_match("*::operator*", nm);
			(void)rb_name_match("main", nm);
		}
	}
	free(img);
}

static void
names_list(const uint8_t *data, size_t size)
{
	char	*list, *name, *out, *small, *p, *e;
	size_t	 n, m, k;

	if ((list = malloc(size + 1)) == NULL)
		return;
	memcpy(list, data, size);
	list[size] = '\0';
	name = list + strlen(list);
	if (name < list + size)
		name++;
	n = rb_patterns_split(list, NULL, 0);
	out = malloc(n == RB_PATTERNS_BAD ? 64 : n + 1);
	small = malloc(8);
	if (out == NULL || small == NULL)
		goto done;
	m = rb_patterns_split(list, out, n == RB_PATTERNS_BAD ? 64 : n + 1);
	if (m != n)
		fuzz_fail("split: %zu bytes, then %zu", n, m);
	for (k = 1; k <= 8; k++)
		if (rb_patterns_split(list, small, k) != n)
			fuzz_fail("split: another answer at size %zu", k);
	if (n == RB_PATTERNS_BAD)
		goto done;
	if (strlen(out) != n || (n > 0 && out[n - 1] != '\n'))
		fuzz_fail("split: not %zu bytes of lines", n);
	for (p = out; *p != '\0'; p = e + 1) {
		e = strchr(p, '\n');
		if (e == p || isspace((unsigned char)*p) ||
		    isspace((unsigned char)e[-1]))
			fuzz_fail("split: an empty or untrimmed pattern");
		*e = '\0';
		for (k = 0; p[k] != '\0'; k++)
			if (iscntrl((unsigned char)p[k]))
				fuzz_fail("split: a control character");
		(void)rb_name_match(p, name);
		(void)rb_name_equal(p, name);
	}
done:
	free(small);
	free(out);
	free(list);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t	base;

	if (size == 0)
		return 0;
	if (data[0] == 0)
		names_elf(data + 1, size - 1);
	else {
		names_list(data + 1, size - 1);
		if (memchr(data + 1, '\0', size - 1) != NULL)
			(void)rb_symbol_kind((const char *)data + 1, &base);
	}
	return 0;
}
