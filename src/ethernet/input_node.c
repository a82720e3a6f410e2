/* SPDX-License-Identifier: BSD-3-Clause */
/* ethernet-input: checks the frame and its destination MAC, strips the Ethernet header and
 * dispatches by ethertype to the node registered for it (sl_eth_type_register). */
#include "ethernet.h"
#include "../interface/iface.h"
#include "../runtime/feature.h"

#define ETH_ERRORS(X)                                                     \
	X(ETH_ERR_SHORT, "frame shorter than an Ethernet header")         \
	X(ETH_ERR_MAC, "destination MAC not ours")                        \
	X(ETH_ERR_TYPE, "unsupported ethertype")                          \
	X(ETH_ERR_DOWN, "interface down")                                 \
	X(ETH_ERR_VLAN, "VLAN tags of no sub-interface")
enum { ETH_ERRORS(SL_ERR_ENUM) ETH_NB_ERR };
static const char *const eth_reasons[] = {ETH_ERRORS(SL_ERR_STR)};
static uint16_t eth_err;

/* edges: drop, a sub-interface's L2 mode (l2-io ... l2-bridge), then the registered
 * ethertypes' nodes and the device-input arc's */
enum { ETH_NEXT_DROP, ETH_NEXT_MODES, ETH_NB_NEXT = ETH_NEXT_MODES + SL_NB_MODES - 1 };
static uint16_t eth_arc[SL_ARC_MAX_FEATS];

/* by the ethertype as it is in the frame (network order); 0 (drop): none registered */
static uint16_t type_next[1 << 16];
struct sl_dispatch sl_eth_types = {.from = "ethernet-input", .next = type_next,
				   .nkeys = 1 << 16, .key_be16 = true,
				   .key_hex = true};

void sl_eth_type_register(uint16_t ethertype, const char *node_name)
{
	sl_dispatch_register(&sl_eth_types, rte_cpu_to_be_16(ethertype), node_name);
}

/* Pops the tags of a sub-interface's frame and makes it the sub-interface's; returns the
 * next edge when the sub-interface is not routed, 0 when it is (the frame goes on through
 * ethernet-input), or ETH_NEXT_DROP. */
static inline uint16_t vlan_in(struct sl_worker *w, struct rte_mbuf *m)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	if (m->data_len < RTE_ETHER_HDR_LEN + 4)
		goto bad;
	uint16_t tpid = rte_be_to_cpu_16(*(uint16_t *)(d + 12));
	uint16_t vid = rte_be_to_cpu_16(*(uint16_t *)(d + 14)) & 0xfff;
	unsigned k = 4;
	uint16_t sub = UINT16_MAX;
	/* QinQ first: a sub-interface with both tags, else one with the outer tag alone */
	if (*(uint16_t *)(d + 16) == RTE_BE16(RTE_ETHER_TYPE_VLAN) &&
	    m->data_len >= RTE_ETHER_HDR_LEN + 8) {
		uint16_t in = rte_be_to_cpu_16(*(uint16_t *)(d + 18)) & 0xfff;
		sub = sl_iface_sub_find(m->port, tpid, vid, in);
		k = sub != UINT16_MAX ? 8 : 4;
	}
	if (sub == UINT16_MAX)
		sub = sl_iface_sub_find(m->port, tpid, vid, 0);
	if (sub == UINT16_MAX || !sl_ifaces[sub].up)
		goto bad;
	memmove(d + k, d, 12);
	rte_pktmbuf_adj(m, (uint16_t)k);
	m->port = sub;
	w->ifc[sub].rx_pkts++;
	w->ifc[sub].rx_bytes += m->pkt_len;
	/* the sub-interface's device-input features (never edge 0), or its mode */
	uint16_t mode = sl_ifaces[sub].mode;
	return sl_feature_first(SL_ARC_DEVICE_INPUT, sub, eth_arc,
				mode == SL_MODE_L3 ? 0 : (uint16_t)(ETH_NEXT_MODES - 1 + mode));
bad:
	sl_set_error(m, eth_err + ETH_ERR_VLAN);
	return ETH_NEXT_DROP;
}

static inline uint16_t eth_one(struct sl_worker *w, struct rte_mbuf *m)
{
	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN)) {
		sl_set_error(m, eth_err + ETH_ERR_SHORT);
		return ETH_NEXT_DROP;
	}
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	    eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_QINQ)) {
		uint16_t nx = vlan_in(w, m);
		if (nx)
			return nx;
		eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *); /* routed: go on, untagged */
		if (unlikely(eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
			     eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_QINQ))) {
			sl_set_error(m, eth_err + ETH_ERR_VLAN);
			return ETH_NEXT_DROP;
		}
	}
	const struct sl_iface *f = &sl_ifaces[m->port];
	if (unlikely(!rte_is_same_ether_addr(&eh->dst_addr, &f->mac) &&
		     !rte_is_multicast_ether_addr(&eh->dst_addr))) {
		sl_set_error(m, eth_err + ETH_ERR_MAC);
		return ETH_NEXT_DROP;
	}
	uint16_t nx = type_next[eh->ether_type];
	if (unlikely(nx == ETH_NEXT_DROP)) {
		sl_set_error(m, eth_err + ETH_ERR_TYPE);
		return ETH_NEXT_DROP;
	}
	rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN);
	return nx;
}

/* The 6-byte MAC in the low bits of a 64-bit word (loaded from 8 bytes of the frame). */
static inline uint64_t mac48(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v & RTE_LEN2MASK(48, uint64_t);
}

/* Interface f's MAC as mac48 gives a frame's. */
static inline uint64_t iface_mac48(const struct sl_iface *f)
{
	uint8_t b[8] = {0};
	memcpy(b, &f->mac, 6);
	return mac48(b);
}

/* The fast path's sub-interface for single-tagged (802.1Q) IPv4 and IPv6: the last tag's,
 * looked up once per run of one parent and VLAN id instead of per frame (rte_hash: some 300
 * instructions a frame with the rest of the slow path), and its run of frames counted in
 * registers, added to its counters as the run ends. */
struct vlan_run {
	uint16_t port, vid; /* the run's parent and VLAN id */
	uint16_t sub;       /* its sub-interface, routed, up, with no device-input feature;
			     * UINT16_MAX: none such (the slow path) */
	uint64_t mac;       /* the sub-interface's MAC (mac48) */
	struct sl_if_run run;
};

static inline void vlan_run_flush(struct sl_worker *w, struct vlan_run *v)
{
	if (v->sub != UINT16_MAX)
		sl_if_run_flush(&w->ifc[v->sub], &v->run, false);
}

static __rte_noinline void vlan_run_learn(struct sl_worker *w, struct vlan_run *v, uint16_t port,
					  uint16_t vid)
{
	vlan_run_flush(w, v);
	v->port = port;
	v->vid = vid;
	v->sub = sl_iface_sub_find(port, RTE_ETHER_TYPE_VLAN, vid, 0);
	if (v->sub == UINT16_MAX)
		return;
	const struct sl_iface *f = &sl_ifaces[v->sub];
	if (!f->up || f->mode != SL_MODE_L3 || sl_feature_first(SL_ARC_DEVICE_INPUT, v->sub, eth_arc, 0)) {
		v->sub = UINT16_MAX;
		return;
	}
	v->mac = iface_mac48(f);
}

/* A vector whose first frame is tagged (a VLAN trunk's): each single-tagged IPv4 or IPv6
 * frame of a routed sub-interface by the run's sub-interface (vlan_run), the rest by eth_one.
 * Out of line, so that the untagged loop stays as it was. */
static __rte_noinline void eth_vlan_vector(struct sl_worker *w, void **objs, uint16_t n,
					   uint16_t *nexts, uint16_t ip4_next, uint16_t ip6_next)
{
	struct vlan_run v = {.port = UINT16_MAX, .sub = UINT16_MAX};
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		sl_prefetch_ahead(objs, i, n);
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		uint16_t type, nx;
		memcpy(&type, d + 12, 2);
		if (type == RTE_BE16(RTE_ETHER_TYPE_VLAN) && m->data_len >= RTE_ETHER_HDR_LEN + 4) {
			uint16_t tci, in;
			memcpy(&tci, d + 14, 2);
			memcpy(&in, d + 16, 2);
			uint16_t vid = rte_be_to_cpu_16(tci) & 0xfff;
			nx = in == RTE_BE16(RTE_ETHER_TYPE_IPV4)   ? ip4_next
			     : in == RTE_BE16(RTE_ETHER_TYPE_IPV6) ? ip6_next
								   : 0;
			if (nx && unlikely(m->port != v.port || vid != v.vid))
				vlan_run_learn(w, &v, m->port, vid);
			if (nx && v.sub != UINT16_MAX && mac48(d) == v.mac) {
				/* as vlan_in and eth_one: the MACs moved up over the tag (an
				 * untagged header before the packet), both headers off */
				memmove(d + 4, d, 12);
				m->data_off += RTE_ETHER_HDR_LEN + 4;
				m->data_len -= RTE_ETHER_HDR_LEN + 4;
				m->pkt_len -= RTE_ETHER_HDR_LEN + 4;
				m->port = v.sub;
				v.run.pkts++;
				v.run.bytes += m->pkt_len + RTE_ETHER_HDR_LEN;
				nexts[i] = nx;
				continue;
			}
		}
		nexts[i] = eth_one(w, m);
	}
	vlan_run_flush(w, &v);
}

static uint16_t eth_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	uint16_t last_port = UINT16_MAX;
	uint64_t mac = 0;
	/* The fast path compares with IPv4 and IPv6 rather than reading the table (VPP's
	 * ethernet-input has the same fast path), once both are registered. */
	const uint16_t ip4_next = type_next[RTE_BE16(RTE_ETHER_TYPE_IPV4)];
	const uint16_t ip6_next = type_next[RTE_BE16(RTE_ETHER_TYPE_IPV6)];
	uint16_t first = 0; /* the first frame's ethertype: a VLAN trunk's vectors start tagged */
	if (n)
		memcpy(&first, rte_pktmbuf_mtod((struct rte_mbuf *)objs[0], const uint8_t *) + 12, 2);
	if (unlikely(!ip4_next || !ip6_next)) {
		for (uint16_t i = 0; i < n; i++)
			nexts[i] = eth_one(w, objs[i]);
	} else if (unlikely(first == RTE_BE16(RTE_ETHER_TYPE_VLAN))) {
		eth_vlan_vector(w, objs, n, nexts, ip4_next, ip6_next);
	} else {
		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *m = objs[i];
			sl_prefetch_ahead(objs, i, n);
			/* fast path: unicast to us, IPv4 or IPv6; the rest (and every error) in
			 * eth_one, which reads the table */
			if (m->port != last_port) {
				mac = iface_mac48(&sl_ifaces[m->port]);
				last_port = m->port;
			}
			const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
			uint16_t type;
			memcpy(&type, d + 12, 2);
			uint16_t nx = type == RTE_BE16(RTE_ETHER_TYPE_IPV4)	  ? ip4_next
				      : type == RTE_BE16(RTE_ETHER_TYPE_IPV6) ? ip6_next
									  : 0;
			if (likely(nx && m->data_len >= RTE_ETHER_HDR_LEN && mac48(d) == mac)) {
				m->data_off += RTE_ETHER_HDR_LEN;
				m->data_len -= RTE_ETHER_HDR_LEN;
				m->pkt_len -= RTE_ETHER_HDR_LEN;
				nexts[i] = nx;
				continue;
			}
			nexts[i] = eth_one(w, m);
		}
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register eth_node = {
	.name = "ethernet-input",
	.process = eth_process,
	.init = sl_node_init,
	.nb_edges = ETH_NB_NEXT,
	.next_nodes = {"error-drop",
		       /* SL_MODE_NODES without ethernet-input itself */
		       "l2-io", "l2-mac", "l2-macswap", "l2-5tswap", "l2-bridge"},
};
SL_NODE_REGISTER(eth_node)

RTE_INIT(eth_errors)
{
	eth_err = sl_error_register("ethernet-input", eth_reasons, ETH_NB_ERR);
	sl_feature_start(SL_ARC_DEVICE_INPUT, "ethernet-input", eth_arc);
}
