/* SPDX-License-Identifier: MIT */
/* bootid.c - /proc/sys/kernel/random/boot_id, read once per call. */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/bootid.h"

#define RB_BOOT_ID_PATH	"/proc/sys/kernel/random/boot_id"

/**
 * rb_boot_id_read - this boot's id into @out, without its newline
 * @out: the buffer, zero-filled first (the library copies it whole into
 *       the header)
 * @size: its size; the id is cut to @size - 1 bytes
 *
 * Async-signal-safe: open, read, close.
 * Return: 0, or -1 with @out empty (no /proc, an empty file, @size 0).
 */
int rb_boot_id_read(char *out, size_t size)
{
	ssize_t n;
	size_t k;
	int fd;

	if (size == 0)
		return -1;
	memset(out, 0, size);
	fd = open(RB_BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, out, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	/* The first line only, and nothing after it. */
	for (k = 0; k < (size_t)n && out[k] != '\n'; k++)
		;
	memset(out + k, 0, size - k);
	return k != 0 ? 0 : -1;
}
