/* SPDX-License-Identifier: BSD-3-Clause */
/* error-drop: counts every dropped packet under its node's named reason, then frees it. */
#include "../sluice.h"

#include <string.h>

struct sl_error_desc sl_errors[SL_MAX_ERRORS] = {{"error-drop", "unknown reason"}};
uint16_t sl_nb_errors = 1;

uint16_t sl_error_register(const char *node, const char *const *reasons, uint16_t n)
{
	if (sl_nb_errors + n > SL_MAX_ERRORS)
		rte_panic("too many error reasons\n");
	uint16_t base = sl_nb_errors;
	for (uint16_t i = 0; i < n; i++)
		sl_errors[base + i] = (struct sl_error_desc){node, reasons[i]};
	sl_nb_errors += n;
	return base;
}

static uint16_t drop_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	(void)g;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint16_t e = sl_meta2(m)->error;
		w->errors[e < SL_MAX_ERRORS ? e : 0]++;
		w->ifc[m->port].drops++;
	}
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	return n;
}

static struct rte_node_register drop_node = {
	.name = "error-drop",
	.process = drop_process,
	.init = sl_node_init,
	.nb_edges = 0,
};
SL_NODE_REGISTER(drop_node)
