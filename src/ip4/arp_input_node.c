/* SPDX-License-Identifier: BSD-3-Clause */
/* arp-input: validates ARP for IPv4 over Ethernet (RFC 826) and punts it to the main lcore,
 * which learns the sender and answers requests for our addresses. */
#include "../interface/iface.h"
#include "ip4.h"
#include "../ethernet/ethernet.h"
#include <rte_arp.h>

#define ARP_ERRORS(X)                                               \
	X(ARP_ERR_SHORT, "ARP packet too short")                    \
	X(ARP_ERR_FORMAT, "not IPv4-over-Ethernet ARP")             \
	X(ARP_ERR_OP, "unknown ARP opcode")                         \
	X(ARP_ERR_NOADDR, "interface has no IPv4 address")
enum { ARP_ERRORS(SL_ERR_ENUM) ARP_NB_ERR };
static const char *const arp_reasons[] = {ARP_ERRORS(SL_ERR_STR)};
static uint16_t arp_err;

enum { ARP_NEXT_DROP, ARP_NEXT_PUNT, ARP_NB_NEXT };

static inline uint16_t arp_one(struct rte_mbuf *m)
{
	uint16_t e;
	if (m->pkt_len < sizeof(struct rte_arp_hdr) || m->data_len < sizeof(struct rte_arp_hdr)) {
		e = ARP_ERR_SHORT;
		goto drop;
	}
	const struct rte_arp_hdr *a = rte_pktmbuf_mtod(m, struct rte_arp_hdr *);
	if (a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) || a->arp_hlen != 6 ||
	    a->arp_plen != 4) {
		e = ARP_ERR_FORMAT;
		goto drop;
	}
	if (a->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) &&
	    a->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY)) {
		e = ARP_ERR_OP;
		goto drop;
	}
	if (sl_ifaces[m->port].ip4 == 0) {
		e = ARP_ERR_NOADDR;
		goto drop;
	}
	sl_meta2(m)->punt = SL_PUNT_ARP;
	return ARP_NEXT_PUNT;
drop:
	sl_set_error(m, arp_err + e);
	return ARP_NEXT_DROP;
}

static uint16_t arp_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	uint16_t nexts[n];
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = arp_one(objs[i]);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register arp_node = {
	.name = "arp-input",
	.process = arp_process,
	.init = sl_node_init,
	.nb_edges = ARP_NB_NEXT,
	.next_nodes = {[ARP_NEXT_DROP] = "error-drop", [ARP_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(arp_node)

RTE_INIT(arp_errors)
{
	arp_err = sl_error_register("arp-input", arp_reasons, ARP_NB_ERR);
	sl_eth_type_register(RTE_ETHER_TYPE_ARP, "arp-input");
}
