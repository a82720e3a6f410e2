/* SPDX-License-Identifier: BSD-3-Clause */
/* Fresh mbufs for generated packets, taken raw from the pool and made ready as PMDs rearm
 * their RX mbufs: data_off, refcnt, nb_segs and port (the rearm_data word) in one store.
 * What a freed mbuf is guaranteed to be (next NULL, one segment; rte_pktmbuf_prefree_seg)
 * is not written again. Used by pg-input and sluice-gen. */
#ifndef SL_PG_REARM_H
#define SL_PG_REARM_H

#include <string.h>
#include <rte_mbuf.h>

/* Takes n mbufs from mp into m and their data pointers into bufs; -1 if the pool has not
 * n to give (then nothing is taken). */
static inline int sl_mbuf_get_rearm(struct rte_mempool *mp, struct rte_mbuf **m, uint8_t **bufs,
				    unsigned n, uint16_t port)
{
	if (rte_mempool_get_bulk(mp, (void **)m, n))
		return -1;
	union {
		uint64_t u;
		uint16_t f[4];
	} rearm = {.f = {RTE_PKTMBUF_HEADROOM, 1, 1, port}};
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *b = m[i];
		memcpy((char *)b + offsetof(struct rte_mbuf, data_off), &rearm.u, 8);
		b->ol_flags = 0;
		b->packet_type = 0;
		b->vlan_tci = 0;
		bufs[i] = (uint8_t *)b->buf_addr + RTE_PKTMBUF_HEADROOM;
	}
	return 0;
}

#endif
