/* SPDX-License-Identifier: BSD-3-Clause */
/* vlan-output: frames out of a VLAN sub-interface (meta->tx_if) get its tags between the source
 * MAC and the ethertype and leave by the parent port's port-tx. */
#include "../interface/iface.h"

#define VO_ERRORS(X)                                      \
	X(VO_ERR_DOWN, "interface down")                  \
	X(VO_ERR_HEADROOM, "no headroom for the VLAN tags")
enum { VO_ERRORS(SL_ERR_ENUM) VO_NB_ERR };
static const char *const vo_reasons[] = {VO_ERRORS(SL_ERR_STR)};
static uint16_t vo_err;

enum { VO_NEXT_DROP, VO_NB_STATIC };
static rte_edge_t vo_tx0; /* the parent's port-tx is vo_tx0 + its tx_slot */

static inline uint16_t vo_one(struct sl_worker *w, struct rte_mbuf *m)
{
	const struct sl_iface *f = &sl_ifaces[sl_meta(m)->tx_if];
	if (unlikely(!f->up || !sl_ifaces[f->parent].up)) {
		w->ifc[f->port].drops++;
		sl_set_error(m, vo_err + VO_ERR_DOWN);
		return VO_NEXT_DROP;
	}
	unsigned k = f->inner_vid ? 8 : 4;
	uint8_t *d = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)k);
	if (unlikely(!d)) {
		sl_set_error(m, vo_err + VO_ERR_HEADROOM);
		return VO_NEXT_DROP;
	}
	memmove(d, d + k, 12);
	uint16_t t[4] = {rte_cpu_to_be_16(f->tpid), rte_cpu_to_be_16(f->vid),
			 RTE_BE16(RTE_ETHER_TYPE_VLAN), rte_cpu_to_be_16(f->inner_vid)};
	memcpy(d + 12, t, k);
	w->ifc[f->port].tx_pkts++;
	w->ifc[f->port].tx_bytes += m->pkt_len;
	sl_meta(m)->tx_if = f->parent; /* for a parent that is not a port (pg) */
	return sl_iface_tx_edge(vo_tx0, f->parent);
}

SL_NODE_EACH(vo_process, vo_one)

static struct rte_node_register vo_node = {
	.name = "vlan-output",
	.process = vo_process,
	.init = sl_node_init,
	.nb_edges = VO_NB_STATIC,
	.next_nodes = {[VO_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(vo_node)

RTE_INIT(vo_init)
{
	vo_err = sl_error_register("vlan-output", vo_reasons, VO_NB_ERR);
	sl_iface_output_register(SL_IF_SUB, "vlan-output");
	sl_iface_tx_user("vlan-output", &vo_tx0);
}
