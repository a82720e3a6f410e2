/* SPDX-License-Identifier: BSD-3-Clause */
/* port-tx-P: sends a vector on port P through the worker's own TX queue; interface-output:
 * sorts frames by their meta->tx_if interface onto its output (port-tx-P, or its type's);
 * interface-output-features and interface-tx: the start and the end of the interface-output
 * arc. */
#include "iface.h"
#include "../runtime/feature.h"
#include <stdlib.h>
#include <string.h>
#include <rte_ethdev.h>

#define TX_ERRORS(X)                                      \
	X(TX_ERR_FULL, "TX ring full (tx-error)")         \
	X(TX_ERR_DOWN, "interface down")
enum { TX_ERRORS(SL_ERR_ENUM) TX_NB_ERR };
static const char *const tx_reasons[] = {TX_ERRORS(SL_ERR_STR)};
static uint16_t tx_err;
static rte_edge_t out_tx0; /* interface-output's first tx edge (sl_iface_tx_user) */
static rte_edge_t of_tx0, it_tx0; /* interface-output-features', interface-tx's */
static uint16_t of_arc[SL_ARC_MAX_FEATS];

RTE_INIT(tx_errors)
{
	tx_err = sl_error_register("port-tx", tx_reasons, TX_NB_ERR);
	sl_iface_tx_user("interface-output", &out_tx0);
	sl_iface_tx_user("interface-output-features", &of_tx0);
	sl_iface_tx_user("interface-tx", &it_tx0);
	sl_feature_start(SL_ARC_INTERFACE_OUTPUT, "interface-output-features", of_arc);
}

struct tx_ctx {
	struct sl_worker *w;
	uint16_t port;
	uint16_t queue;
};

static int tx_init(const struct rte_graph *graph, struct rte_node *node)
{
	struct tx_ctx *c = (struct tx_ctx *)node->ctx;
	sl_node_init(graph, node);
	const char *dash = strrchr(node->name, '-');
	c->port = dash ? (uint16_t)atoi(dash + 1) : 0;
	if (sl_ifaces[c->port].nb_txq)
		c->queue = c->w->id % sl_ifaces[c->port].nb_txq;
	return 0;
}

static uint16_t tx_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct tx_ctx *c = (struct tx_ctx *)node->ctx;
	uint16_t sent = 0, port = c->port, queue = c->queue;
	(void)g;
	struct sl_iface *f = &sl_ifaces[port];
	const bool up = f->up && !f->paused;
	if (likely(up)) {
		uint64_t bytes = sl_sum_pkt_len((struct rte_mbuf **)objs, n);
		if (unlikely(f->tx_shared)) {
			rte_spinlock_lock(&f->txq_lock[queue]);
			sent = rte_eth_tx_burst(port, queue, (struct rte_mbuf **)objs, n);
			rte_spinlock_unlock(&f->txq_lock[queue]);
		} else {
			sent = rte_eth_tx_burst(port, queue, (struct rte_mbuf **)objs, n);
		}
		for (uint16_t i = sent; i < n; i++) /* the unsent ones are still ours */
			bytes -= ((struct rte_mbuf *)objs[i])->pkt_len;
		c->w->ifc[c->port].tx_pkts += sent;
		c->w->ifc[c->port].tx_bytes += bytes;
	}
	if (unlikely(sent < n)) {
		if (up) {
			c->w->ifc[c->port].tx_error += n - sent;
			c->w->errors[tx_err + TX_ERR_FULL] += n - sent;
		} else {
			c->w->ifc[c->port].drops += n - sent;
			c->w->errors[tx_err + TX_ERR_DOWN] += n - sent;
		}
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs + sent, n - sent);
	}
	return n;
}

/* The template; sluiced clones it as port-tx-0, port-tx-1, ... */
static struct rte_node_register tx_node = {
	.name = "port-tx",
	.process = tx_process,
	.init = tx_init,
};
RTE_NODE_REGISTER(tx_node);

rte_node_t sl_tx_node_id(void)
{
	return tx_node.id;
}

/* interface-output: interface i's output is edge out_tx0 + its tx_slot (sl_iface_tx_user) */

static inline uint16_t out_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	return sl_iface_tx_edge(out_tx0, sl_meta(m)->tx_if);
}

SL_NODE_EACH(out_process, out_one)

static struct rte_node_register out_node = {
	.name = "interface-output",
	.process = out_process,
	.init = sl_node_init,
	.nb_edges = 0,
};
SL_NODE_REGISTER(out_node)

/* The interface-output arc's start: each frame to its interface's (meta->tx_if) first output
 * feature, or (turned off since its sender chose this edge) to the interface's own output. */
static inline uint16_t of_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	uint16_t ifx = sl_meta(m)->tx_if;
	return sl_feature_first(SL_ARC_INTERFACE_OUTPUT, ifx, of_arc,
				(uint16_t)(of_tx0 + sl_if_fast[ifx].out_slot));
}

SL_NODE_EACH(of_process, of_one)

static struct rte_node_register of_node = {
	.name = "interface-output-features",
	.process = of_process,
	.init = sl_node_init,
};
SL_NODE_REGISTER(of_node)

/* The arc's end: each frame to its interface's own output, past the features. */
static inline uint16_t it_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	return (uint16_t)(it_tx0 + sl_if_fast[sl_meta(m)->tx_if].out_slot);
}

SL_NODE_EACH(it_process, it_one)

static struct rte_node_register it_node = {
	.name = "interface-tx",
	.process = it_process,
	.init = sl_node_init,
};
SL_NODE_REGISTER(it_node)
