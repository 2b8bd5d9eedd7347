/* SPDX-License-Identifier: MIT */
/*
 * rbtrace/rbtrace.h - explicit tracing API of librbtrace.
 *
 * Programs compiled with -finstrument-functions are traced without any of
 * this.  These calls are for code that is not instrumented, and for
 * interpreters that want their own frames on the live stack: a named frame
 * shows in rbmon as "name (file:line)".  Every call is cheap, never blocks
 * and is safe when the library could not set up tracing (it then does
 * nothing).
 */
#ifndef RBTRACE_RBTRACE_H
#define RBTRACE_RBTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RBT_API __attribute__((visibility("default")))
#else
#define RBT_API
#endif

/**
 * rbtrace_push - push a named frame on the calling thread's live stack
 * @name: function or frame name (copied, truncated to the slot size)
 * @file: source file name, or NULL (copied as room allows)
 * @line: current line, or 0
 *
 * Return: the new depth, or -1 if the thread is not traced.
 */
RBT_API int rbtrace_push(const char *name, const char *file, int line);

/**
 * rbtrace_pop - pop the innermost frame pushed by rbtrace_push()
 *
 * Return: the new depth, or -1 if the thread is not traced.
 */
RBT_API int rbtrace_pop(void);

/**
 * rbtrace_line - record the current line of the innermost frame
 * @line: line number
 */
RBT_API void rbtrace_line(int line);

/**
 * rbtrace_file - the trace file this process writes to
 *
 * Return: its path, or NULL if tracing could not be set up.
 */
RBT_API const char *rbtrace_file(void);

#ifdef __cplusplus
}
#endif

#endif /* RBTRACE_RBTRACE_H */
