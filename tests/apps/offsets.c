/* SPDX-License-Identifier: MIT */
/*
 * offsets.c - print the file offsets of rb_header fields, one "name offset
 * size" line each, so shell tests can patch or read a trace file header
 * with dd/od without hard-coding the layout of rbtrace/format.h.
 */
#include <stddef.h>
#include <stdio.h>

#include "rbtrace/format.h"

#define FIELD(f) \
	printf("%s %zu %zu\n", #f, offsetof(struct rb_header, f), \
	       sizeof(((struct rb_header *)0)->f))

int main(void)
{
	FIELD(magic);
	FIELD(version);
	FIELD(header_size);
	FIELD(total_size);
	FIELD(endian);
	FIELD(ready);
	FIELD(rings);
	FIELD(slots);
	FIELD(pinned);
	FIELD(slot_sz);
	FIELD(msg_sz);
	FIELD(global_sz);
	FIELD(objects);
	FIELD(ring_size);
	FIELD(slot_size);
	FIELD(gma_off);
	FIELD(owners_off);
	FIELD(objects_off);
	FIELD(rings_off);
	FIELD(slots_off);
	FIELD(msgarea_off);
	FIELD(creator_pid);
	FIELD(creator_uid);
	FIELD(creator_start);
	FIELD(created_realtime_ns);
	FIELD(program);
	FIELD(clock);
	FIELD(single);
	FIELD(stop_on_create);
	FIELD(trace_on_create);
	FIELD(untraced_threads);
	FIELD(bpfilter_off);
	FIELD(bps_off);
	FIELD(bps);
	FIELD(dyn_off);
	FIELD(dyn_procs);
	FIELD(snap_state);
	FIELD(snap_gen);
	FIELD(snap_writer);
	FIELD(snap_pid);
	FIELD(snap_reason);
	FIELD(snap_ts);
	FIELD(snap_interval_ns);
	FIELD(snap_taken);
	FIELD(snap_suppressed);
	FIELD(capfn_off);
	FIELD(cap_off);
	FIELD(capfns);
	FIELD(caps);
	printf("header %zu %zu\n", (size_t)0, sizeof(struct rb_header));
	printf("bp %zu %zu\n", (size_t)0, sizeof(struct rb_bp));
	printf("bpfilter %zu %zu\n", (size_t)0, (size_t)RB_BP_FILTER_BITS / 8);
	return 0;
}
