/* SPDX-License-Identifier: BSD-3-Clause */
/* The testpmd forwarding modes as nodes, one per mode so that show runtime prices each:
 * l2-io (VPP's l2 xconnect) sends the frame unchanged, l2-mac writes the configured
 * destination and source MACs, l2-macswap swaps them, l2-5tswap swaps the MACs, the IPv4 or
 * IPv6 addresses and the TCP, UDP or SCTP ports. All send out of the input interface's peer
 * (itself unless set), a port or a logical interface (meta->tx_if then names it for its type's
 * output node, as it does for a port with interface-output features). Swapping a pair leaves every checksum valid. */
#include "../interface/iface.h"

#include <rte_ip.h>
#include <rte_vect.h>

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

/* The same for a frame of at least 16 bytes: one 16-byte shuffle (bytes 12-15 stay). */
static inline void swap_mac16(uint8_t *d)
{
#ifdef __SSSE3__
	const __m128i shuf = _mm_setr_epi8(6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 12, 13, 14, 15);
	_mm_storeu_si128((__m128i *)d, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)d), shuf));
#else
	swap_mac((struct rte_ether_hdr *)d);
#endif
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

/* One frame's rewrite in a mode other than io (frames of at least 16 bytes take swap_mac16). */
static inline void l2_rewrite(struct rte_mbuf *m, const struct sl_iface *f, enum sl_mode mode,
			      bool long16)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (mode == SL_MODE_MAC) {
		eh->dst_addr = f->mac_dst;
		eh->src_addr = f->mac_src;
		return;
	}
	if (long16)
		swap_mac16((uint8_t *)eh);
	else
		swap_mac(eh);
	if (mode == SL_MODE_5TSWAP)
		swap_l3l4(m);
}

/* How many packets at the start of the vector came from port p, four at a time. */
static inline uint16_t same_port_prefix(void **objs, uint16_t n, uint16_t p)
{
	struct rte_mbuf *const *m = (struct rte_mbuf *const *)objs;
	uint32_t j = 0;
	for (; j + 4 <= n; j += 4)
		if ((uint32_t)(m[j]->port ^ p) | (uint32_t)(m[j + 1]->port ^ p) |
		    (uint32_t)(m[j + 2]->port ^ p) | (uint32_t)(m[j + 3]->port ^ p))
			break;
	while (j < n && m[j]->port == p)
		j++;
	return (uint16_t)j;
}

static inline uint16_t l2_fwd(struct rte_graph *g, struct rte_node *node, void **objs,
			      uint16_t n, enum sl_mode mode)
{
	if (unlikely(!n))
		return 0;
	/* The usual vector holds one port's frames (port-rx gives each queue's burst to its
	 * port's mode) and moves whole to the peer's port-tx. This loop rewrites frames while
	 * they come from the first frame's port and are at least 16 bytes long; another port
	 * or a shorter frame hands the rest of the vector to the packet-by-packet loop below.
	 * No prefetch: port-rx's PMD has just written these mbufs and frames. */
	const uint16_t p = ((struct rte_mbuf *)objs[0])->port;
	const struct sl_iface *f = &sl_ifaces[p];
	const rte_edge_t nx0 = sl_iface_tx_edge(l2_tx0[mode], f->peer);
	uint16_t i = 0;
	if (mode == SL_MODE_IO) {
		/* port-rx's note says whether it put all n there, from port p alone; else look */
		struct sl_l2io_ctx *c = (struct sl_l2io_ctx *)node->ctx;
		bool noted = c->from_rx == n && c->port == p;
		c->from_rx = 0;
		i = noted ? n : same_port_prefix(objs, n, p);
	} else {
		for (; i < n; i++) {
			struct rte_mbuf *m = objs[i];
			if (unlikely(m->port != p || m->data_len < 16))
				break;
			l2_rewrite(m, f, mode, true);
		}
	}
	if (unlikely(sl_ifaces[f->peer].tx_meta)) /* its output node (or arc) reads tx_if */
		for (uint16_t k = 0; k < i; k++)
			sl_meta(objs[k])->tx_if = f->peer;
	if (likely(i == n)) {
		rte_node_next_stream_move(g, node, nx0);
		return n;
	}
	uint16_t nexts[n], last_port = p, nx = nx0;
	for (uint16_t k = 0; k < i; k++)
		nexts[k] = nx0;
	for (; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		if (m->port != last_port) {
			last_port = m->port;
			f = &sl_ifaces[last_port];
			nx = sl_iface_tx_edge(l2_tx0[mode], f->peer);
		}
		nexts[i] = nx;
		sl_meta(m)->tx_if = f->peer;
		if (mode == SL_MODE_IO)
			continue;
		if (unlikely(m->data_len < sizeof(struct rte_ether_hdr))) {
			sl_set_error(m, l2_err[mode] + L2_ERR_SHORT);
			nexts[i] = L2_NEXT_DROP;
			continue;
		}
		l2_rewrite(m, f, mode, m->data_len >= 16);
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
	SL_NODE_REGISTER(fn##_node)                                                     \
	RTE_INIT(fn##_init)                                                               \
	{                                                                                 \
		l2_err[MODE] = sl_error_register(NAME, l2_reasons, L2_NB_ERR);            \
		sl_iface_tx_user(NAME, &l2_tx0[MODE]);                                    \
	}

L2_NODE(l2_io_process, SL_MODE_IO, "l2-io")
L2_NODE(l2_mac_process, SL_MODE_MAC, "l2-mac")
L2_NODE(l2_macswap_process, SL_MODE_MACSWAP, "l2-macswap")
L2_NODE(l2_5tswap_process, SL_MODE_5TSWAP, "l2-5tswap")
