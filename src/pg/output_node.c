/* SPDX-License-Identifier: BSD-3-Clause */
/* pg-output: what the graph sends out of a packet-generator interface (a logical interface,
 * like VPP's pg) is counted and freed, or first appended to the interface's pcap file. */
#include "pg.h"
#include "../interface/iface.h"
#include "../runtime/pcap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PO_ERRORS(X) X(PO_ERR_DOWN, "interface down")
enum { PO_ERRORS(SL_ERR_ENUM) PO_NB_ERR };
static const char *const po_reasons[] = {PO_ERRORS(SL_ERR_STR)};
static uint16_t po_err;

/* A packet that can go back to pool mp in bulk, like a PMD with MBUF_FAST_FREE frees it:
 * direct, no external buffer, one segment and no other reference (refcnt and nb_segs are
 * adjacent: one 32-bit compare), so its second cache line is never read. */
static inline bool fast_free_ok(const struct rte_mbuf *x, const struct rte_mempool *mp)
{
	_Static_assert(offsetof(struct rte_mbuf, nb_segs) ==
			       offsetof(struct rte_mbuf, refcnt) + sizeof(uint16_t),
		       "refcnt and nb_segs adjacent");
	uint32_t refs_segs;
	memcpy(&refs_segs, &x->refcnt, sizeof(refs_segs));
	return x->pool == mp &&
	       refs_segs == (rte_cpu_to_le_32(1) | rte_cpu_to_le_32(1u << 16)) &&
	       !(x->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL));
}

/* Frees the leading packets that go out of interface ifx: runs of fast-free packets go
 * back to the pool straight from the vector, the others one by one. Returns how many, and
 * their bytes in *bytes. */
static inline uint16_t free_run(struct rte_mbuf **m, uint16_t n, uint16_t ifx, uint64_t *bytes)
{
	unsigned i, start = 0;
	uint64_t b = 0;
	struct rte_mempool *mp = m[0]->pool;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *x = m[i];
		if (unlikely(sl_meta(x)->tx_if != ifx))
			break;
		b += x->pkt_len;
		if (unlikely(!fast_free_ok(x, mp))) {
			if (i > start)
				rte_mempool_put_bulk(mp, (void **)&m[start], i - start);
			rte_pktmbuf_free(x);
			start = i + 1;
		}
	}
	if (i > start)
		rte_mempool_put_bulk(mp, (void **)&m[start], i - start);
	*bytes = b;
	return (uint16_t)i;
}

static uint16_t po_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	struct rte_mbuf **m = (struct rte_mbuf **)objs;
	(void)g;
	/* runs of packets for one interface (a whole vector, usually) */
	for (uint16_t i = 0; i < n;) {
		uint16_t ifx = sl_meta(m[i])->tx_if, k;
		const struct sl_iface *f = &sl_ifaces[ifx];
		struct sl_if_counters *c = &w->ifc[ifx];
		struct sl_pcap *p = __atomic_load_n(&f->pcap, __ATOMIC_ACQUIRE);
		if (likely(f->up && !p)) {
			uint64_t bytes;
			k = free_run(m + i, n - i, ifx, &bytes);
			c->tx_pkts += k;
			c->tx_bytes += bytes;
			i += k;
			continue;
		}
		for (k = 1; i + k < n && sl_meta(m[i + k])->tx_if == ifx; k++)
			;
		if (!f->up) {
			c->drops += k;
			w->errors[po_err + PO_ERR_DOWN] += k;
		} else {
			c->tx_pkts += k;
			for (uint16_t j = i; j < i + k; j++) {
				c->tx_bytes += m[j]->pkt_len;
				sl_pcap_write(p, m[j]);
			}
		}
		rte_pktmbuf_free_bulk(m + i, k);
		i += k;
	}
	return n;
}

static struct rte_node_register po_node = {
	.name = "pg-output",
	.process = po_process,
	.init = sl_node_init,
	.nb_edges = 0,
};
SL_NODE_REGISTER(po_node)

RTE_INIT(po_init)
{
	po_err = sl_error_register("pg-output", po_reasons, PO_NB_ERR);
	sl_iface_output_register(SL_IF_PG, "pg-output");
}

static struct sl_pcap pcaps[SL_IF_MAX]; /* by interface index; never freed */

struct sl_pcap *sl_pg_pcap_open(uint16_t ifx, const char *path)
{
	return sl_pcap_open(&pcaps[ifx], path, 0) ? NULL : &pcaps[ifx];
}
