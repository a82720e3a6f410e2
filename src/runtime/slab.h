/* SPDX-License-Identifier: BSD-3-Clause */
/* Fixed-size records the workers read by the thousand (adjacencies, subscriber sessions'
 * published data), packed in 2 MB chunks on transparent huge pages instead of scattered over
 * malloc's heap between each owner's other allocations: seed 003's cache-line-aligned,
 * read-mostly data, where one packet to each of 20,000 sessions would otherwise miss the TLB
 * for each record. Main lcore only; records are freed after the workers' grace period, as
 * before (sl_slab_put as an RCU retire function's body). */
#ifndef SL_SLAB_H
#define SL_SLAB_H

#include <stddef.h>
#include <stdint.h>

struct sl_slab {
	const char *name;
	size_t size;          /* a record's bytes: a power of two from 16 to 64, aligned to it */
	void *free;           /* freed records, linked through their first word */
	uint8_t *cur, *end;   /* the chunk being carved */
	void **chunks;
	uint32_t nchunks, cap;
	uint64_t live;        /* records handed out and not put back */
};

#define SL_SLAB_INIT(nm, sz) {.name = (nm), .size = (sz)}
#define SL_SLAB_CHUNK ((size_t)2 << 20)

/* A zeroed record, or NULL when memory is out. */
void *sl_slab_get(struct sl_slab *s);
void sl_slab_put(struct sl_slab *s, void *p);
/* Every chunk back to the system (at shut-down: no record may be in use). */
void sl_slab_release(struct sl_slab *s);

#endif
