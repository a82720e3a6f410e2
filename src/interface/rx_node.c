/* SPDX-License-Identifier: BSD-3-Clause */
/* port-rx: polls the worker's (port, queue) pairs into one vector; also sends frames the
 * main lcore injected (ARP) out through this worker's TX queues. device-input-features: a
 * logical interface's received frames into its device-input features. */
#include "iface.h"
#include "../runtime/feature.h"
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#define RX_BURST 32
uint16_t sl_rx_vector = RTE_GRAPH_BURST_SIZE; /* dpdk { rx-vector N } */

/* edges: the modes (ethernet-input, l2-*), interface-output, then the device-input arc's */
enum { RX_NEXT_OUTPUT = SL_NB_MODES, RX_NB_NEXT };
static uint16_t rx_arc[SL_ARC_MAX_FEATS];

static uint16_t rx_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	struct sl_rxq_list *l = __atomic_load_n(&w->rxqs, __ATOMIC_ACQUIRE);
	uint16_t total = 0;
	uint64_t t0 = rte_rdtsc();
	(void)objs;
	(void)n;
	if (unlikely(w->turns.clear) && l) /* clear runtime: the queues' gaps too */
		for (uint16_t i = 0; i < l->n; i++)
			l->q[i].max_gap = 0;
	sl_turn_note(&w->turns, t0);
	if (l && l->n) {
		const uint16_t max = sl_rx_vector;
		for (uint16_t i = 0; i < l->n && total < max; i++) {
			struct sl_rxq *q = &l->q[i];
			if (!sl_ifaces[q->port].up || sl_ifaces[q->port].paused) {
				q->last = 0; /* a gap starts at the first poll once up */
				continue;
			}
			/* the time since this queue's last poll (longer than the turn when a full
			 * vector from the queues before it made port-rx stop short of it) */
			if (likely(q->last) && unlikely(t0 - q->last > q->max_gap))
				q->max_gap = t0 - q->last;
			q->last = t0;
			/* each queue's packets go to its port's first device-input feature or to
			 * its mode, a burst at a time, straight into that node's stream */
			uint16_t next = sl_feature_first(SL_ARC_DEVICE_INPUT, q->port, rx_arc,
							 sl_ifaces[q->port].mode), k;
			do {
				uint16_t want = RTE_MIN(RX_BURST, max - total);
				struct rte_mbuf **b =
					(struct rte_mbuf **)rte_node_next_stream_get(g, node, next, want);
				k = rte_eth_rx_burst(q->port, q->queue, b, want);
				rte_node_next_stream_put(g, node, next, k);
				if (next == SL_MODE_IO && k)
					sl_l2io_note(node->nodes[next], q->port, k);
				w->ifc[q->port].rx_pkts += k;
				w->ifc[q->port].rx_bytes += sl_sum_pkt_len(b, k);
				total += k;
				if (k < want)
					break;
			} while (total < max);
		}
	}
	/* worker 0 transmits what the main lcore built */
	if (w->id == 0 && sl_inject_ring && !rte_ring_empty(sl_inject_ring)) {
		void *m[32];
		unsigned k = rte_ring_sc_dequeue_burst(sl_inject_ring, m, 32, NULL);
		if (k) {
			rte_node_enqueue(g, node, RX_NEXT_OUTPUT, m, (uint16_t)k);
			total += k;
		}
	}
	sl_source_busy(w, SL_SRC_PORT_RX, total, t0);
	return total;
}

static struct rte_node_register rx_node = {
	.name = "port-rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = rx_process,
	.init = sl_node_init,
	.nb_edges = RX_NB_NEXT,
	.next_nodes = {SL_MODE_NODES, "interface-output"},
};
SL_NODE_REGISTER(rx_node)

/* device-input-features: a frame received on a logical interface (m->port: an IPoE
 * session's, a BVI's, a loopback's, a tunnel's decapsulated) to that interface's first
 * device-input feature, as port-rx sends a port's (its mode when the features went in the
 * meantime). Its senders come here only while the interface has a feature on the arc, so an
 * interface without pays one load of its mask. */
static uint16_t dif_arc[SL_ARC_MAX_FEATS];

static inline uint16_t dif_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	return sl_feature_first(SL_ARC_DEVICE_INPUT, m->port, dif_arc, sl_ifaces[m->port].mode);
}

SL_NODE_EACH(dif_process, dif_one)

static struct rte_node_register dif_node = {
	.name = "device-input-features",
	.process = dif_process,
	.init = sl_node_init,
	.nb_edges = SL_NB_MODES,
	.next_nodes = {SL_MODE_NODES},
};
SL_NODE_REGISTER(dif_node)

RTE_INIT(rx_arc_init)
{
	sl_feature_start(SL_ARC_DEVICE_INPUT, "port-rx", rx_arc);
	sl_feature_start(SL_ARC_DEVICE_INPUT, "device-input-features", dif_arc);
}
