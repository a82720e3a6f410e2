/* SPDX-License-Identifier: BSD-3-Clause */
/* bvi-output: what routing sends out of a BVI (meta->tx_if) enters its bridge domain, as if
 * received on the BVI. */
#include "../interface/iface.h"

enum { BO_NEXT_BRIDGE, BO_NB_NEXT };

static uint16_t bo_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	sl_iface_loop_back(sl_node_worker(node), objs, n, false);
	rte_node_next_stream_move(g, node, BO_NEXT_BRIDGE);
	return n;
}

static struct rte_node_register bo_node = {
	.name = "bvi-output",
	.process = bo_process,
	.init = sl_node_init,
	.nb_edges = BO_NB_NEXT,
	.next_nodes = {[BO_NEXT_BRIDGE] = "l2-bridge"},
};
SL_NODE_REGISTER(bo_node)

RTE_INIT(bo_init)
{
	sl_iface_output_register(SL_IF_BVI, "bvi-output");
}
