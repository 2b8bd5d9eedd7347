/* SPDX-License-Identifier: MIT */
/*
 * expr.h - what the two sides of rbtrace-watch.so share: the types, the
 * compiled tree, the address table.  compile.c makes them (the watch
 * worker: may allocate and lock); eval.c reads them (the watched thread,
 * at its hooks: no allocation, no lock, checked at build by
 * tests/hookside.sh).  See compile.c for the module as a whole.
 */
#ifndef RB_EXPR_H
#define RB_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/watch.h"

/* Type names and messages are cut to their buffers on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define EXPORT		__attribute__((visibility("default")))

#define X_ELEMENTS	200		/* gdb's "print elements" */
#define X_REPEATS	10		/* gdb's "print repeats" */
#define X_OUT_MAX	(256u << 10)	/* longest text made */
#define X_DEPTH		16		/* aggregates nested deeper: {...} */
#define X_WINDOW	4096		/* memory read at once */
#define X_ERR		256
#define X_NOTE		512		/* notes on ambiguous names */
#define X_ALTS		3		/* other definitions a note names */

/* -------------------------------------------------------------------------
 * Types.
 */

enum xkind {
	XK_VOID, XK_INT, XK_CHAR, XK_BOOL, XK_FLOAT, XK_PTR, XK_ARRAY,
	XK_STRUCT, XK_UNION, XK_ENUM, XK_FUNC, XK_TYPEDEF, XK_QUAL
};

struct xmember;
struct xenum;

struct xtype {
	enum xkind	 kind;
	bool		 sign;
	bool		 complete;	/* struct/union: members known */
	bool		 sized;		/* array: count known */
	uint64_t	 size;
	const char	*name;		/* base, tag, typedef name; qualifier */
	struct xtype	*target;	/* PTR, ARRAY element, TYPEDEF, QUAL */
	uint64_t	 count;		/* ARRAY */
	struct xmember	*mem;		/* STRUCT, UNION */
	size_t		 nmem;
	struct xenum	*en;		/* ENUM */
	size_t		 nen;
	struct xtype	**param;	/* FUNC: the parameters' types */
	size_t		 nparam;
	bool		 varargs;	/* FUNC: "..." after the parameters */
	bool		 proto;		/* FUNC: prototyped, "(void)" if none */
	bool		 nodebug;	/* FUNC: a symbol without debug info */
	int8_t		 hasaddr;	/* prints addresses: 0 unknown, 1, -1 */
	struct xtype	*ptr;		/* pointer to this type, once made */
	struct xtype	*all;		/* every type made, see x_type_new() */
};

struct xmember {
	const char	*name;		/* NULL: anonymous */
	uint64_t	 off;
	uint32_t	 bitoff, bitsize;	/* bitsize 0: not a bit-field */
	struct xtype	*type;
};

struct xenum {
	const char	*name;
	int64_t		 val;
};


/* The base types (compile.c). */
extern struct xtype x_void, x_char, x_schar, x_uchar, x_short,
	x_ushort, x_int, x_uint, x_long, x_ulong,
	x_llong, x_ullong, x_bool, x_float, x_double,
	x_ldouble, x_int8, x_uint8, x_int16, x_uint16,
	x_int32, x_uint32, x_int64, x_uint64, x_size,
	x_ssize, x_intptr, x_uintptr, x_boolname, x_nodata,
	x_notext;

static inline struct xtype *x_strip(struct xtype *t)
{
	while (t != NULL && (t->kind == XK_TYPEDEF || t->kind == XK_QUAL))
		t = t->target;
	return t != NULL ? t : &x_void;
}

static inline bool x_scalar(const struct xtype *t)
{
	return t->kind == XK_INT || t->kind == XK_CHAR || t->kind == XK_BOOL ||
	       t->kind == XK_ENUM || t->kind == XK_FLOAT || t->kind == XK_PTR;
}

static inline bool x_integer(const struct xtype *t)
{
	return t->kind == XK_INT || t->kind == XK_CHAR || t->kind == XK_BOOL ||
	       t->kind == XK_ENUM;
}

static inline uint64_t x_sizeof(struct xtype *t)
{
	t = x_strip(t);
	if (t->kind == XK_ARRAY)
		return t->sized ? t->count * x_sizeof(t->target) : 0;
	return t->size;
}

enum { XA_DATA, XA_FILE_TEXT, XA_TEXT, XA_IFUNC };	/* gdb's mst_* */

struct xaddr {
	uint64_t	 addr, size;
	uint32_t	 name;		/* offset in the table's names */
	uint16_t	 sec;		/* section in its module */
	uint8_t		 kind;		/* XA_* */
};

struct xasec {
	uint64_t	 lo, hi;
	bool		 code;
};

struct xamod {
	uint64_t	 lo, hi;
	struct xaddr	*sym;		/* by address, then name */
	size_t		 nsym;
	struct xasec	*sec;		/* allocated sections, by address */
	size_t		 nsec;
};

#define XA_STALE	(1ul << 62)	/* in refs: replaced by a newer table */

struct xatab {
	unsigned long	 refs;		/* programs using it, | XA_STALE */
	unsigned long long adds, subs;	/* dl_phdr_info it was made at */
	struct xamod	*mod;		/* by address */
	size_t		 nmod, capmod;
	char		*names;
	size_t		 nnames, capnames;
};


/* -------------------------------------------------------------------------
 * The tree.
 */

enum xop {
	XO_VAR, XO_INT, XO_MEMBER, XO_INDEX, XO_DEREF, XO_ADDR,
	XO_NEG, XO_ADD, XO_SUB, XO_MUL, XO_DIV, XO_CAST
};

struct xnode {
	enum xop	 op;
	struct xtype	*type;		/* static type of the result */
	bool		 lval;
	bool		 untyped;	/* a symbol without debug information */
	struct xnode	*a, *b;
	/* XO_VAR */
	uint64_t	 addr;		/* or TLS offset */
	bool		 tls;
	uint64_t	 bias;		/* TLS: the module's load bias */
	size_t		 modid;		/* TLS: its module id, 0: none found */
	const char	*name;
	/* XO_INT; XO_MEMBER: the offset of an anonymous member's parent */
	uint64_t	 ival;
	/* XO_MEMBER */
	const struct xmember *mem;
	struct xnode	*next;		/* arena */
};

struct xprog {
	char		*text;
	size_t		 len;
	struct xnode	*root;
	struct xnode	*nodes;
	char		 fmt;		/* 0, 'x', 'd' */
	char		 err[X_ERR];	/* compile error, "" if none */
	char		 note[X_NOTE];	/* which of several a name is, "" */
	struct xatab	*atab;		/* symbols of addresses, or NULL */
	/* eval state: one thread at a time */
	uint64_t	 wbase;
	size_t		 wlen;
	uint8_t		 window[X_WINDOW];
	rb_watch_sink	 put;
	void		*ctx;
	size_t		 out;
	bool		 full;
	char		*eerr;
	size_t		 eerrsz;
};

/* eval.c, used by compile.c too */
void x_typename(char *buf, size_t n, struct xtype *t);
int x_asec_find(const struct xamod *m, uint64_t a);
void x_memfd_open(void);
int x_tls_block(size_t modid, uint64_t *block);
int x_evaluate(void *prog, rb_watch_sink put, void *ctx, char *err,
	       size_t errsz);

#endif /* RB_EXPR_H */
