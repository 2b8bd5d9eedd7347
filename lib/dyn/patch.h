/* SPDX-License-Identifier: MIT */
/*
 * patch.h - writing a batch of call sites in the live text of this
 * process, as the kernel's text_poke_bp() does (rbtrace(5), "DYNAMIC
 * TRACING").
 */
#ifndef RB_DYN_PATCH_H
#define RB_DYN_PATCH_H

#include <stddef.h>
#include <stdint.h>

#define RB_PATCH_MAX_LEN	8

/* rb_patch.kind: what the new bytes do, for a thread sent on from a trap. */
#define RB_PATCH_CALL		0	/* call target */
#define RB_PATCH_JMP		1	/* jmp target (a tail call) */
#define RB_PATCH_NOP		2	/* fall through to addr + len */
#define RB_PATCH_RET		3	/* return (a tail call switched off) */

/* One site to write. */
struct rb_patch {
	uint64_t	addr;		/* runtime address of the instruction */
	uint64_t	target;		/* RB_PATCH_CALL, _JMP: where it goes */
	uint8_t		bytes[RB_PATCH_MAX_LEN];	/* the new instruction */
	uint8_t		len;
	uint8_t		kind;
	uint8_t		pad[6];
};

/* What a batch did (rb_patch_apply()). */
struct rb_patch_stats {
	uint64_t	ns;		/* from the first write to the last sync */
	uint64_t	pages;		/* distinct pages written */
	uint32_t	syncs;		/* serializations of every core */
	int		via_mem;	/* written through /proc/self/mem */
};

int	rb_patch_apply(struct rb_patch *, size_t, struct rb_patch_stats *,
	    char *, size_t);
uint64_t rb_patch_traps(void);
void	rb_patch_nop(uint8_t *, unsigned);

#endif
