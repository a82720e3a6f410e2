/* SPDX-License-Identifier: BSD-3-Clause */
/* punt: hands packets to the main lcore (ARP, ND, next hops to resolve) over a per-worker
 * ring; the main lcore gives each to its reason's handler (sl_punt). */
#include "../sluice.h"
#include "runtime.h"
#include <rte_ring.h>

#define PUNT_ERRORS(X) X(PUNT_ERR_FULL, "punt queue full")
enum { PUNT_ERRORS(SL_ERR_ENUM) };
static const char *const punt_reasons[] = {PUNT_ERRORS(SL_ERR_STR)};
static uint16_t punt_err_base;

enum { PUNT_NEXT_DROP, PUNT_NB_NEXT };

static void (*punt_fn[SL_PUNT_NB])(struct rte_mbuf *m);

void sl_punt_register(uint16_t reason, void (*fn)(struct rte_mbuf *m))
{
	punt_fn[reason] = fn;
}

/* Main lcore: a reason nobody handles cannot come from a node; freed all the same. */
void sl_punt(struct rte_mbuf *m)
{
	uint16_t r = sl_meta2(m)->punt;
	if (r < SL_PUNT_NB && punt_fn[r])
		punt_fn[r](m);
	else
		rte_pktmbuf_free(m);
}

static uint16_t punt_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	unsigned k = rte_ring_sp_enqueue_burst(w->punt, objs, n, NULL);
	sl_main_wake();
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		w->ifc[m->port].punts += i < k;
	}
	for (uint16_t i = (uint16_t)k; i < n; i++)
		sl_set_error(objs[i], punt_err_base + PUNT_ERR_FULL);
	if (k < n)
		rte_node_enqueue(g, node, PUNT_NEXT_DROP, objs + k, (uint16_t)(n - k));
	return n;
}

static struct rte_node_register punt_node = {
	.name = "punt",
	.process = punt_process,
	.init = sl_node_init,
	.nb_edges = PUNT_NB_NEXT,
	.next_nodes = {[PUNT_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(punt_node)

RTE_INIT(punt_errors)
{
	punt_err_base = sl_error_register("punt", punt_reasons, 1);
}
