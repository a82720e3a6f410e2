/* SPDX-License-Identifier: BSD-3-Clause */
/* pg-output: what the graph sends out of a packet-generator interface (a logical interface,
 * like VPP's pg) is counted and freed, or first appended to the interface's pcap file. */
#include "pg.h"
#include "../interface/iface.h"
#include "../runtime/pcap.h"

#include <stdio.h>

#define PO_ERRORS(X) X(PO_ERR_DOWN, "interface down")
enum { PO_ERRORS(SL_ERR_ENUM) PO_NB_ERR };
static const char *const po_reasons[] = {PO_ERRORS(SL_ERR_STR)};
static uint16_t po_err;

/* Frees the leading packets that go out of interface ifx, like a PMD with MBUF_FAST_FREE:
 * direct, single-segment mbufs of one pool with no other reference go back in bulk without
 * reading their second cache line; the rest take the full path. Returns how many, and their
 * bytes in *bytes. */
static inline uint16_t free_run(struct rte_mbuf **m, uint16_t n, uint16_t ifx, uint64_t *bytes)
{
	void *fast[n];
	uint16_t nf = 0, i;
	uint64_t b = 0;
	struct rte_mempool *mp = m[0]->pool;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *x = m[i];
		if (unlikely(sl_meta(x)->tx_if != ifx))
			break;
		b += x->pkt_len;
		if (likely(x->pool == mp && x->nb_segs == 1 && rte_mbuf_refcnt_read(x) == 1 &&
			   RTE_MBUF_DIRECT(x) && !RTE_MBUF_HAS_EXTBUF(x)))
			fast[nf++] = x;
		else
			rte_pktmbuf_free(x);
	}
	if (nf)
		rte_mempool_put_bulk(mp, fast, nf);
	*bytes = b;
	return i;
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
