/* SPDX-License-Identifier: BSD-3-Clause */
/* The testpmd forwarding modes as nodes, one per mode so that show runtime prices each:
 * l2-io (VPP's l2 xconnect) sends the frame unchanged, l2-mac writes the configured
 * destination and source MACs, l2-macswap swaps them, l2-5tswap swaps the MACs, the IPv4 or
 * IPv6 addresses and the TCP, UDP or SCTP ports. All send out of the input interface's peer
 * (itself unless set). Swapping a pair leaves every checksum valid. */
#include "../interface/iface.h"

#include <rte_ip.h>

#define L2_ERRORS(X) X(L2_ERR_SHORT, "frame shorter than an Ethernet header")
enum { L2_ERRORS(SL_ERR_ENUM) L2_NB_ERR };
static const char *const l2_reasons[] = {L2_ERRORS(SL_ERR_STR)};
static uint16_t l2_err[SL_NB_MODES];

enum { L2_NEXT_DROP, L2_NB_STATIC };
static rte_edge_t l2_tx0[SL_NB_MODES]; /* edge of port-tx-0 in each node */

static inline void swap_bytes(uint8_t *a, uint8_t *b, unsigned n)
{
	uint8_t t[16];
	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

static inline void swap_mac(struct rte_ether_hdr *eh)
{
	struct rte_ether_addr t = eh->dst_addr;
	eh->dst_addr = eh->src_addr;
	eh->src_addr = t;
}

/* L3 and L4 halves of 5tswap: VLAN tags (802.1Q, 802.1ad) are skipped; an IPv4 fragment
 * other than the first has no ports; IPv6 extension headers are not followed. */
static inline void swap_l3l4(struct rte_mbuf *m)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = m->data_len, off = sizeof(struct rte_ether_hdr);
	uint16_t type = ((struct rte_ether_hdr *)d)->ether_type;
	while ((type == RTE_BE16(RTE_ETHER_TYPE_VLAN) || type == RTE_BE16(RTE_ETHER_TYPE_QINQ)) &&
	       len >= off + sizeof(struct rte_vlan_hdr)) {
		type = ((struct rte_vlan_hdr *)(d + off))->eth_proto;
		off += sizeof(struct rte_vlan_hdr);
	}
	uint8_t proto;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= off + sizeof(struct rte_ipv4_hdr)) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + off);
		swap_bytes((uint8_t *)&ip->src_addr, (uint8_t *)&ip->dst_addr, 4);
		if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK))
			return;
		proto = ip->next_proto_id;
		off += (ip->version_ihl & 0xf) * 4u;
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		   len >= off + sizeof(struct rte_ipv6_hdr)) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + off);
		swap_bytes(ip->src_addr, ip->dst_addr, 16);
		proto = ip->proto;
		off += sizeof(*ip);
	} else {
		return;
	}
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP) &&
	    len >= off + 4)
		swap_bytes(d + off, d + off + 2, 2);
}

static inline uint16_t l2_fwd(struct rte_graph *g, struct rte_node *node, void **objs,
			      uint16_t n, enum sl_mode mode)
{
	uint16_t nexts[n];
	uint16_t last_port = UINT16_MAX, nx = 0;
	const struct sl_iface *f = NULL;
	if (mode == SL_MODE_IO && n) {
		/* cross-connect: a vector from one port (port-rx gives each queue's burst to its
		 * mode) moves whole to the peer's port-tx; no packet data is read */
		uint16_t p = ((struct rte_mbuf *)objs[0])->port, i = 1;
		while (i < n && ((struct rte_mbuf *)objs[i])->port == p)
			i++;
		if (i == n) {
			rte_node_next_stream_move(g, node, (rte_edge_t)(l2_tx0[mode] + sl_ifaces[p].peer));
			return n;
		}
	}
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		sl_prefetch_ahead(objs, i, n);
		if (m->port != last_port) {
			last_port = m->port;
			f = &sl_ifaces[last_port];
			nx = (uint16_t)(l2_tx0[mode] + f->peer);
		}
		nexts[i] = nx;
		if (mode == SL_MODE_IO)
			continue;
		if (unlikely(m->data_len < sizeof(struct rte_ether_hdr))) {
			sl_set_error(m, l2_err[mode] + L2_ERR_SHORT);
			nexts[i] = L2_NEXT_DROP;
			continue;
		}
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		if (mode == SL_MODE_MAC) {
			eh->dst_addr = f->mac_dst;
			eh->src_addr = f->mac_src;
		} else {
			swap_mac(eh);
			if (mode == SL_MODE_5TSWAP)
				swap_l3l4(m);
		}
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

#define L2_NODE(fn, MODE, NAME)                                                           \
	static uint16_t fn(struct rte_graph *g, struct rte_node *node, void **objs,       \
			   uint16_t n)                                                     \
	{                                                                                 \
		return l2_fwd(g, node, objs, n, MODE);                                     \
	}                                                                                 \
	static struct rte_node_register fn##_node = {                                     \
		.name = NAME,                                                             \
		.process = fn,                                                            \
		.init = sl_node_init,                                                     \
		.nb_edges = L2_NB_STATIC,                                                 \
		.next_nodes = {[L2_NEXT_DROP] = "error-drop"},                            \
	};                                                                                \
	RTE_NODE_REGISTER(fn##_node);                                                     \
	RTE_INIT(fn##_init)                                                               \
	{                                                                                 \
		l2_err[MODE] = sl_error_register(NAME, l2_reasons, L2_NB_ERR);            \
		sl_iface_tx_user(NAME, &l2_tx0[MODE]);                                    \
	}

L2_NODE(l2_io_process, SL_MODE_IO, "l2-io")
L2_NODE(l2_mac_process, SL_MODE_MAC, "l2-mac")
L2_NODE(l2_macswap_process, SL_MODE_MACSWAP, "l2-macswap")
L2_NODE(l2_5tswap_process, SL_MODE_5TSWAP, "l2-5tswap")
