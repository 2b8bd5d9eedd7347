/* SPDX-License-Identifier: MIT */
/* attach.h - rbtrace -p: trace a program that already runs, or stop tracing it. */
#ifndef RBTRACE_ATTACH_H
#define RBTRACE_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

/* What rbtrace -p says and where the trace goes. */
struct rbtrace_attach {
	char	file[4096];	/* the trace file, as this process sees it */
	char	line[1024];	/* the library's reply or why it failed */
	double	pause_ms;	/* how long the thread used was stopped */
	pid_t	tid;		/* that thread */
	/* After an attach: the threads without a ring, shown at once. */
	char	seeded[1280];	/* what was done, or why not; "" */
	unsigned threads;	/* threads stopped to look at */
	double	seed_ms;	/* how long they were stopped */
};

/* rbtrace_attach_run()'s @mode */
#define RBTRACE_AT_ATTACH	0	/* or wake a program asleep */
#define RBTRACE_AT_DETACH	1	/* or put to sleep one loaded at start */
#define RBTRACE_AT_DYN		2	/* a dynamic tracing request */

/*
 * rbtrace_attach_run - load @lib into process @pid and trace it with the
 * settings @spec ("RBTRACE_FILE=..." lines); or stop tracing it; or send
 * it the dynamic tracing request @spec ("exclude LIST" lines, rbtrace(5),
 * "DYNAMIC TRACING").  Return: 0 when done, 1 otherwise (@a->line says
 * why), 2 for a request to a process without librbtrace.
 */
int rbtrace_attach_run(pid_t pid, const char *lib, const char *spec,
		       int mode, struct rbtrace_attach *a);

#endif
