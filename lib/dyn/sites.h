/* SPDX-License-Identifier: MIT */
/*
 * sites.h - the site table of one loaded object: every call of
 * __cyg_profile_func_enter/exit in it, each proven an instruction boundary
 * by decoding its function from the start, and tied to the function whose
 * address it passes (this_fn).  Cached per build id.
 */
#ifndef RB_DYN_SITES_H
#define RB_DYN_SITES_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* rb_site.hook */
#define RB_SITE_ENTER		0
#define RB_SITE_EXIT		1

/* rb_site.via: how the instruction reaches the hook. */
#define RB_SITE_PLT		0	/* call rel32 to a PLT stub */
#define RB_SITE_GOT		1	/* call *slot(%rip) or *abs32 */
#define RB_SITE_DIRECT		2	/* call rel32 (or addr32 call) */

/* rb_site.flags */
#define RB_SITE_TAIL		0x01	/* a jmp (tail call), not a call */
#define RB_SITE_FN_SLOT		0x02	/* this_fn is the link address of the
					   GOT slot that holds it at run time
					   (a function of another object) */

#define RB_SITE_FN_UNKNOWN	UINT64_MAX

/* One site; addresses are the object's link-time virtual addresses. */
struct rb_site {
	uint64_t	addr;		/* the call instruction */
	uint64_t	this_fn;	/* passed in %rdi, or RB_SITE_FN_UNKNOWN */
	uint64_t	func;		/* start of the code range holding it */
	uint8_t		hook;
	uint8_t		via;
	uint8_t		len;		/* instruction length: 5, 6 or 7 */
	uint8_t		flags;
	uint32_t	pad;
};

#define RB_SITES_BUILD_ID_MAX	32
#define RB_SITES_FAILS_KEPT	16

/* The object to scan, as dl_iterate_phdr() gives it. */
struct rb_sites_obj {
	uintptr_t		bias;	/* runtime address - link address */
	const Elf64_Phdr	*phdr;	/* its program headers (in memory) */
	unsigned		phnum;
	uintptr_t		hooks[2]; /* runtime addresses of the hooks for
					     direct calls, 0 if none */
};

struct rb_sites {
	struct rb_site	*v;		/* sorted by this_fn, then addr */
	size_t		n;
	size_t		mapped;		/* bytes mapped for v */
	uint8_t		build_id[RB_SITES_BUILD_ID_MAX];
	uint32_t	build_id_len;
	uint64_t	text_bytes;	/* bytes of the ranges decoded */
	uint32_t	nfuncs;		/* code ranges (FDEs) scanned */
	uint32_t	nfail;		/* ranges whose decode failed */
	uint32_t	nunknown;	/* sites with this_fn unknown */
	uint32_t	ntail;		/* sites that are jmps */
	uint64_t	fails[RB_SITES_FAILS_KEPT]; /* first failed ranges */
	size_t		peak_scratch;	/* largest scratch mapping, bytes */
	int		cached;		/* 1 if read from the cache */
};

int	rb_sites_build(const struct rb_sites_obj *, struct rb_sites *);
int	rb_sites_get(const struct rb_sites_obj *, const char *,
	    struct rb_sites *);
int	rb_sites_load(const struct rb_sites_obj *, const char *,
	    struct rb_sites *);
int	rb_sites_save(const struct rb_sites *, const char *);
int	rb_sites_cache_path(const struct rb_sites *, const char *, char *,
	    size_t);
int	rb_sites_build_id(const struct rb_sites_obj *, uint8_t *, uint32_t *);
const struct rb_site *rb_sites_of(const struct rb_sites *, uint64_t,
	    size_t *);
void	rb_sites_free(struct rb_sites *);

#endif
