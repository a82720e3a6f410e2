/* SPDX-License-Identifier: BSD-3-Clause */
/* vxlan4-input and vxlan6-input: decapsulate VXLAN packets for the router's addresses
 * (ip4-udp-local and ip6-udp-local, UDP 4789 and the tunnels' own dst_ports) into their
 * tunnel interface; vxlan4-encap and vxlan6-encap: what is sent out of a tunnel interface
 * gets the outer headers and goes to the underlay interface, or to ip4-lookup or ip6-lookup
 * in the tunnel's encap table. */
#include "vxlan.h"
#include "../ip4/ip4.h"
#include "../runtime/feature.h"
#include "../runtime/trace.h"

#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_udp.h>

/* ---- vxlan4-input ---- */

#define VXI_ERRORS(X)                                                       \
	X(VXI_ERR_SHORT, "VXLAN packet truncated")                          \
	X(VXI_ERR_FLAGS, "VXLAN header without the I flag")                 \
	X(VXI_ERR_NO_TUNNEL, "no tunnel for the VNI and addresses")         \
	X(VXI_ERR_DOWN, "tunnel down")
enum { VXI_ERRORS(SL_ERR_ENUM) VXI_NB_ERR };
static const char *const vxi_reasons[] = {VXI_ERRORS(SL_ERR_STR)};
static uint16_t vxi_err, vxi6_err;

/* edges: drop, then the tunnel interface's mode (ethernet-input when routed, l2-io ...
 * l2-bridge), then ip4-input and ip6-input for a routed tunnel's unicast IP, and
 * device-input-features for every frame of a tunnel with features on the device-input arc
 * (an input ACL, a policer) */
enum { VXI_NEXT_DROP, VXI_NEXT_MODES, VXI_NEXT_IP4 = VXI_NEXT_MODES + SL_NB_MODES, VXI_NEXT_IP6,
       VXI_NEXT_FEAT, VXI_NB_NEXT };

struct vxi_cache {
	struct sl_tun_key key;
	struct sl_tun_key6 key6;
	uint16_t ifx;
	uint16_t port;   /* the last UDP destination port (network order) */
	uint32_t pidx;   /* its index, shifted to the key id's top 8 bits */
};

/* The VXLAN header vx's port index and VNI as the tunnels' key id has them. */
static inline uint32_t vxi_id(struct vxi_cache *c, const uint8_t *vx)
{
	uint32_t vni;
	memcpy(&vni, vx + 4, 4);
	uint16_t port = ((const struct rte_udp_hdr *)(vx - sizeof(struct rte_udp_hdr)))->dst_port;
	if (unlikely(port != c->port)) { /* a tunnel is found on the port it was created with */
		c->port = port;
		c->pidx = (uint32_t)sl_vx_port_idx[rte_be_to_cpu_16(port)] << 24;
	}
	return rte_be_to_cpu_32(vni) >> 8 | c->pidx;
}

/* The packet's outer headers (off bytes, to the inner frame eh) taken off, into tunnel
 * c->ifx (found for its key, or UINT16_MAX) as received there; the edge. */
static __rte_always_inline uint16_t vxi_deliver(struct sl_worker *w, struct rte_mbuf *m,
						const struct vxi_cache *c, uint32_t off,
						const struct rte_ether_hdr *eh, uint16_t err)
{
	uint16_t e;
	if (unlikely(c->ifx == UINT16_MAX)) {
		e = VXI_ERR_NO_TUNNEL;
		goto drop;
	}
	const struct sl_iface *f = &sl_ifaces[c->ifx];
	if (unlikely(!f->up)) {
		e = VXI_ERR_DOWN;
		goto drop;
	}
	rte_pktmbuf_adj(m, (uint16_t)off);
	m->port = c->ifx;
	m->ol_flags &= ~sl_flag_fib;
	w->ifc[c->ifx].rx_pkts++;
	w->ifc[c->ifx].rx_bytes += m->pkt_len;
	if (unlikely(sl_if_features(c->ifx, SL_ARC_DEVICE_INPUT)))
		return VXI_NEXT_FEAT;
	uint8_t mode = __atomic_load_n(&f->mode, __ATOMIC_ACQUIRE);
	/* a routed tunnel's IP to its own MAC skips ethernet-input (what it would do) */
	if (mode == SL_MODE_L3 && rte_is_same_ether_addr(&eh->dst_addr, &f->mac)) {
		if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
			rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN);
			return VXI_NEXT_IP4;
		}
		if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
			rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN);
			return VXI_NEXT_IP6;
		}
	}
	return (uint16_t)(VXI_NEXT_MODES + mode);
drop:
	sl_set_error(m, err + e);
	return VXI_NEXT_DROP;
}

static __rte_noinline uint16_t vxi_one(struct sl_worker *w, struct rte_mbuf *m, struct vxi_cache *c)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	uint32_t hl = (ip->version_ihl & 0xf) * 4u;
	uint16_t e;
	/* ip4-input checked the IPv4 header, ip4-udp-local that the UDP header is there */
	if (unlikely(m->data_len < hl + sizeof(struct rte_udp_hdr) + 8 + RTE_ETHER_HDR_LEN)) {
		e = VXI_ERR_SHORT;
		goto drop;
	}
	const uint8_t *vx = (const uint8_t *)ip + hl + sizeof(struct rte_udp_hdr);
	if (unlikely(!(vx[0] & 0x08))) { /* RFC 7348 5: I set; the other bits ignored */
		e = VXI_ERR_FLAGS;
		goto drop;
	}
	struct sl_tun_key k = {.remote = ip->src_addr, .local = ip->dst_addr,
			       .id = vxi_id(c, vx), .fib = sl_pkt_fib(m), .kind = SL_TUN_VXLAN};
	if (unlikely(memcmp(&k, &c->key, sizeof(k)))) { /* runs of one tunnel are the rule */
		c->key = k;
		c->ifx = sl_tun_find(&k);
	}
	return vxi_deliver(w, m, c, hl + sizeof(struct rte_udp_hdr) + 8,
			   (const struct rte_ether_hdr *)(vx + 8), vxi_err);
drop:
	sl_set_error(m, vxi_err + e);
	return VXI_NEXT_DROP;
}

/* ip6-udp-local checked the UDP header and its checksum */
static __rte_noinline uint16_t vxi6_one(struct sl_worker *w, struct rte_mbuf *m,
					 struct vxi_cache *c)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	uint8_t proto;
	uint32_t off = sl_ip6_l4_off(m, &proto);
	uint16_t e;
	if (unlikely(m->data_len < off + sizeof(struct rte_udp_hdr) + 8 + RTE_ETHER_HDR_LEN)) {
		e = VXI_ERR_SHORT;
		goto drop;
	}
	const uint8_t *vx = p + off + sizeof(struct rte_udp_hdr);
	if (unlikely(!(vx[0] & 0x08))) {
		e = VXI_ERR_FLAGS;
		goto drop;
	}
	struct sl_tun_key6 k = {.id = vxi_id(c, vx), .fib = sl_pkt_fib(m), .kind = SL_TUN_VXLAN};
	memcpy(k.remote, ip->src_addr, 16);
	memcpy(k.local, ip->dst_addr, 16);
	if (unlikely(memcmp(&k, &c->key6, sizeof(k)))) {
		c->key6 = k;
		c->ifx = sl_tun_find6(&k);
	}
	return vxi_deliver(w, m, c, off + sizeof(struct rte_udp_hdr) + 8,
			   (const struct rte_ether_hdr *)(vx + 8), vxi6_err);
drop:
	sl_set_error(m, vxi6_err + e);
	return VXI_NEXT_DROP;
}


/* vxlan4-input's runs of one tunnel: a packet whose outer header has no options, whose
 * addresses, UDP port, VNI and receiving interface are the run's (and that has no table of
 * its own), goes to the run's tunnel (up when the run began) without its key being built; a
 * routed tunnel's IPv4 or IPv6 to its own MAC straight to ip4-input or ip6-input, an L2
 * tunnel's frames to its mode's node. Any other packet is vxi_one's, and the tunnel it finds
 * starts the next run (the outer table then the tunnel's key's: a run of a tunnel whose inner
 * table is another takes the fast way too). */
#define VXI_OFF (sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr) + 8)
/* The outer header's bytes 12-43, four words as they lie in memory, each compared under its
 * mask: the addresses (12-19, all of them); the UDP destination port (20-27: ports, length,
 * checksum); the VXLAN header's I flag and VNI (28-35); a routed tunnel's inner destination
 * MAC, its own (36-43; vxi_run.mac_mask) */
#define VXI_PORT_MASK rte_cpu_to_be_64(0x0000ffff00000000ull)
#define VXI_VX_MASK rte_cpu_to_be_64(0x08000000ffffff00ull)
#define VXI_MAC_MASK rte_cpu_to_be_64(0xffffffffffff0000ull)
struct vxi_run {
	uint64_t want[4];            /* the four words, masked; no run: all 0, a UDP
				      * destination port 0, which no packet here has */
	uint64_t mac_mask;           /* routed: VXI_MAC_MASK; else 0 (any inner destination) */
	uint16_t rx;                 /* the receiving interface (the run's packets have no
				      * table of their own: their outer table is its) */
	uint16_t ifx;
	uint16_t next;               /* the mode's edge; VXI_NEXT_IP4 when routed */
};

/* A run's packets and bytes (counted by the loop, in registers) added to its tunnel */
static inline void vxi_run_count(struct sl_worker *w, uint16_t ifx, uint32_t *pkts,
				 uint32_t *bytes)
{
	if (*pkts) {
		sl_add2(&w->ifc[ifx].rx_pkts, *pkts, &w->ifc[ifx].rx_bytes, *bytes);
		*pkts = *bytes = 0;
	}
}

/* A run's edge for tunnel c->ifx, as vxi_deliver's (VXI_NEXT_IP4 when routed, with its MAC
 * in *mac; VXI_NEXT_FEAT while it has device-input features, the arc read once a run as
 * ethernet-input reads it) */
static inline uint16_t vxi_run_mode(const struct vxi_cache *c, struct rte_ether_addr *mac)
{
	const struct sl_iface *f = &sl_ifaces[c->ifx];
	uint8_t mode = __atomic_load_n(&f->mode, __ATOMIC_ACQUIRE);
	*mac = f->mac;
	if (sl_if_features(c->ifx, SL_ARC_DEVICE_INPUT))
		return VXI_NEXT_FEAT;
	return mode == SL_MODE_L3 ? VXI_NEXT_IP4 : (uint16_t)(VXI_NEXT_MODES + mode);
}

/* After vxi_one took a packet (its outer header at p, received on interface rx, UINT16_MAX
 * when it had a table of its own) to tunnel c->ifx with edge next: the run that it begins
 * (returned by value, so that the loop keeps the run in registers). */
static struct vxi_run vxi_run_learn(const struct vxi_cache *c, uint16_t rx, const uint8_t *p,
				    uint16_t next)
{
	struct vxi_run r = {.ifx = UINT16_MAX};
	if (next == VXI_NEXT_DROP || p[0] != 0x45 || rx == UINT16_MAX)
		return r;
	struct rte_ether_addr mac;
	r.rx = rx;
	r.next = vxi_run_mode(c, &mac);
	r.ifx = c->ifx;
	memcpy(r.want, p + 12, sizeof(r.want));
	r.want[1] &= VXI_PORT_MASK;
	r.want[2] &= VXI_VX_MASK;
	r.want[3] = 0;
	if (r.next == VXI_NEXT_IP4) { /* routed: to the tunnel's own MAC (else ethernet-input) */
		memcpy(&r.want[3], &mac, 6);
		r.mac_mask = VXI_MAC_MASK;
	}
	return r;
}

/* Both families' fast way, once m (its outer header at p) is known to be of a run of tunnel
 * ifx (edge next) and, when routed, to its MAC: its outer headers (off bytes) taken off, the
 * edge; UINT16_MAX (m untouched) for a routed tunnel's frame that is not IP. */
static __rte_always_inline uint16_t vxi_run_strip(struct rte_mbuf *m, const uint8_t *p,
						  unsigned off, uint16_t next, uint16_t ifx)
{
	if (next == VXI_NEXT_IP4) { /* routed: IPv4 or IPv6 */
		uint16_t type;
		memcpy(&type, p + off + 12, 2);
		if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
			next = VXI_NEXT_IP6;
		else if (type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
			return UINT16_MAX;
		off += RTE_ETHER_HDR_LEN;
	}
	m->data_off = (uint16_t)(m->data_off + off);
	m->data_len = (uint16_t)(m->data_len - off);
	m->pkt_len -= off;
	m->port = ifx;
	return next;
}

/* m's edge when it belongs to run r, else UINT16_MAX (m untouched) */
static __rte_always_inline uint16_t vxi_fast(const struct vxi_run *r, struct rte_mbuf *m,
					     const uint8_t *p)
{
	uint64_t a, u, v, e; /* within the buffer: the length is tested with them */
	memcpy(&a, p + 12, 8);
	memcpy(&u, p + 20, 8);
	memcpy(&v, p + 28, 8);
	memcpy(&e, p + 36, 8);
	if (((a ^ r->want[0]) | ((u & VXI_PORT_MASK) ^ r->want[1]) |
	     ((v & VXI_VX_MASK) ^ r->want[2]) | ((e & r->mac_mask) ^ r->want[3])) ||
	    p[0] != 0x45 || m->data_len < VXI_OFF + RTE_ETHER_HDR_LEN || m->port != r->rx ||
	    (m->ol_flags & sl_flag_fib))
		return UINT16_MAX;
	return vxi_run_strip(m, p, VXI_OFF, r->next, r->ifx);
}

/* The bypasses' memory of a vector's VTEPs (vxlanN-input keeps none: it takes every packet) */
struct byp_memo {
	uint64_t hit, miss;   /* IPv4: the last VTEP and the last other address (byp_vtep) */
	uint64_t a, b;        /* IPv6: the last VTEP's address, hit its byp_who */
};

/* vxlanN-input takes every packet it gets: ip4-udp-local or ip6-udp-local found it ours */
static __rte_always_inline bool vxi_take(struct rte_mbuf *m, const uint8_t *p, struct byp_memo *k)
{
	(void)m, (void)p, (void)k;
	return true;
}

/* The process function `name` of vxlan4-input, vxlan6-input and ip4-vxlan-bypass: each packet
 * by the run r (of type run_t) the fast way (fast_fn), else when take_fn takes it by one_fn,
 * whose tunnel starts the next run (learn_fn), else (a bypass's packet for another) on along
 * the arc (the bypass's feature feat); a run's packets and bytes (less off, the outer
 * headers) counted once. */
#define VXI_RUN_PROCESS(name, run_t, fast_fn, take_fn, one_fn, learn_fn, off, arc, feat)     \
	static uint16_t name(struct rte_graph *g, struct rte_node *node, void **objs,       \
			     uint16_t n)                                                    \
	{                                                                                   \
		struct sl_worker *w = sl_node_worker(node);                                 \
		uint16_t nexts[n];                                                          \
		struct vxi_cache c = {.key = {.fib = UINT16_MAX}, .key6 = {.fib = UINT16_MAX}, \
				      .ifx = UINT16_MAX, .port = RTE_BE16(SL_VXLAN_PORT)};  \
		run_t r = {.ifx = UINT16_MAX}; /* no run: it wants UDP port 0 */            \
		struct byp_memo k = {.hit = UINT64_MAX, .miss = UINT64_MAX};                \
		uint32_t pkts = 0, bytes = 0;                                               \
		for (uint16_t i = 0; i < n; i++) {                                          \
			struct rte_mbuf *m = objs[i];                                       \
			const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);            \
			uint32_t len = m->pkt_len;                                          \
			uint16_t nx = fast_fn(&r, m, p);                                    \
			if (likely(nx != UINT16_MAX)) {                                     \
				pkts++;                                                     \
				bytes += len - (uint32_t)(off);                             \
			} else if (take_fn(m, p, &k)) {                                     \
				uint16_t rx = m->ol_flags & sl_flag_fib ? UINT16_MAX : m->port; \
				vxi_run_count(w, r.ifx, &pkts, &bytes);                     \
				nx = one_fn(w, m, &c);                                      \
				r = learn_fn(&c, rx, p, nx);                                \
			} else {                                                            \
				nx = sl_feature_next(arc, feat, m->port, 0);                \
			}                                                                   \
			nexts[i] = nx;                                                      \
		}                                                                           \
		vxi_run_count(w, r.ifx, &pkts, &bytes);                                     \
		sl_enqueue_nexts(g, node, objs, nexts, n);                                  \
		return n;                                                                   \
	}

VXI_RUN_PROCESS(vxi_process, struct vxi_run, vxi_fast, vxi_take, vxi_one, vxi_run_learn, VXI_OFF,
		SL_ARC_IP4_UNICAST, 0)

/* vxlan6-input's runs, as vxlan4-input's: a packet whose next header is UDP (no extension
 * header), whose addresses, UDP port, VNI and receiving interface are the run's (and that
 * has no table of its own) goes to the run's tunnel without its key being built. */
#define VXI6_OFF (sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + 8)
struct vxi6_run {
	uint64_t a[4];             /* the outer source and destination, as in the header */
	uint32_t vni;              /* the VXLAN header's second word, its reserved byte 0 */
	uint16_t port;             /* the UDP destination port; 0: no run */
	uint16_t rx;               /* the receiving interface */
	uint16_t ifx;
	uint16_t next;
	struct rte_ether_addr mac;
};

static struct vxi6_run vxi6_run_learn(const struct vxi_cache *c, uint16_t rx, const uint8_t *p,
				      uint16_t next)
{
	struct vxi6_run r = {.ifx = UINT16_MAX};
	if (next == VXI_NEXT_DROP || p[offsetof(struct rte_ipv6_hdr, proto)] != IPPROTO_UDP ||
	    rx == UINT16_MAX)
		return r;
	memcpy(r.a, p + offsetof(struct rte_ipv6_hdr, src_addr), 32);
	memcpy(&r.vni, p + VXI6_OFF - 4, 4);
	r.vni &= RTE_BE32(0xffffff00);
	memcpy(&r.port, p + sizeof(struct rte_ipv6_hdr) + 2, 2);
	r.rx = rx;
	r.next = vxi_run_mode(c, &r.mac);
	r.ifx = c->ifx;
	return r;
}

/* Whether m (its outer header at p) is of run r (when routed, to its tunnel's MAC) */
static __rte_always_inline bool vxi6_match(const struct vxi6_run *r, const struct rte_mbuf *m,
					   const uint8_t *p)
{
	uint64_t a0, a1, a2, a3;
	uint32_t vni;
	uint16_t port;
	memcpy(&a0, p + 8, 8);
	memcpy(&a1, p + 16, 8);
	memcpy(&a2, p + 24, 8);
	memcpy(&a3, p + 32, 8);
	memcpy(&vni, p + VXI6_OFF - 4, 4);
	memcpy(&port, p + sizeof(struct rte_ipv6_hdr) + 2, 2);
	if (p[offsetof(struct rte_ipv6_hdr, proto)] != IPPROTO_UDP ||
	    m->data_len < VXI6_OFF + RTE_ETHER_HDR_LEN || !(p[VXI6_OFF - 8] & 0x08) ||
	    ((a0 ^ r->a[0]) | (a1 ^ r->a[1]) | (a2 ^ r->a[2]) | (a3 ^ r->a[3])) ||
	    (vni & RTE_BE32(0xffffff00)) != r->vni || port != r->port || m->port != r->rx ||
	    (m->ol_flags & sl_flag_fib))
		return false;
	return r->next != VXI_NEXT_IP4 || /* routed: to the tunnel's MAC */
	       rte_is_same_ether_addr((const struct rte_ether_addr *)(p + VXI6_OFF), &r->mac);
}

static __rte_always_inline uint16_t vxi6_fast(const struct vxi6_run *r, struct rte_mbuf *m,
					      const uint8_t *p)
{
	if (!vxi6_match(r, m, p))
		return UINT16_MAX;
	return vxi_run_strip(m, p, VXI6_OFF, r->next, r->ifx);
}

VXI_RUN_PROCESS(vxi6_process, struct vxi6_run, vxi6_fast, vxi_take, vxi6_one, vxi6_run_learn,
		VXI6_OFF, SL_ARC_IP6_UNICAST, 0)

#define VXI_NEXT_NODES                                                                      \
	{[VXI_NEXT_DROP] = "error-drop", SL_MODE_NODES, [VXI_NEXT_IP4] = "ip4-input",        \
	 [VXI_NEXT_IP6] = "ip6-input", [VXI_NEXT_FEAT] = "device-input-features"}

static struct rte_node_register vxi_node = {
	.name = "vxlan4-input",
	.process = vxi_process,
	.init = sl_node_init,
	.nb_edges = VXI_NB_NEXT,
	.next_nodes = VXI_NEXT_NODES,
};
SL_NODE_REGISTER(vxi_node)

static struct rte_node_register vxi6_node = {
	.name = "vxlan6-input",
	.process = vxi6_process,
	.init = sl_node_init,
	.nb_edges = VXI_NB_NEXT,
	.next_nodes = VXI_NEXT_NODES,
};
SL_NODE_REGISTER(vxi6_node)

/* ---- ip4-vxlan-bypass ---- */

/* The bypasses' key for m's table without reading it: its receiving interface, or for a
 * packet with a table of its own, that table | 1 << 31 (sl_pkt_fib gives the table itself,
 * looked up, once per key and vector) */
static inline uint32_t byp_who(struct rte_mbuf *m)
{
	return unlikely(m->ol_flags & sl_flag_fib) ? sl_meta2(m)->fib | 1u << 31 : m->port;
}

/* A feature of the ip4-unicast arc (VPP's, `set interface ip vxlan-bypass IFACE [del]`): an
 * IPv4 packet with no options, not a fragment, to a VXLAN port (4789 or a tunnel's dst_port)
 * of a tunnel's local address in its table (sl_vx_vteps) is decapsulated here, as
 * vxlan4-input would (vxi_one; its errors are vxlan4-input's), past ip4-lookup, ip4-local and
 * ip4-udp-local; any other packet goes on along the arc, so the router's own decapsulation
 * is what it was, only shorter. Runs of one tunnel take vxlan4-input's fast way (vxi_fast)
 * here too, the header's first word and protocol checked as well (what the bypass's test
 * reads): sending them on to vxlan4-input cost a node of 35.4 instructions a packet that
 * tested what vxi_fast tests again (make bench-graph's callgrind, vxlan-decap-bypass). */
static uint8_t byp_feat;
/* bytes 0-7 of the header: version 4, IHL 5, neither MF nor a fragment offset */
#define BYP_W0_MASK \
	(0xff | (uint64_t)RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK) << 48)

/* The bypass's test for m (its IPv4 header at p): VXLAN to a VTEP; the vector's last VTEP
 * and last other address (by byp_who and destination) in k. */
static inline bool byp_vtep(struct rte_mbuf *m, const uint8_t *p, struct byp_memo *k)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;
	uint64_t w0;
	uint16_t dport;
	memcpy(&w0, p, 8);
	memcpy(&dport, p + sizeof(*ip) + offsetof(struct rte_udp_hdr, dst_port), 2);
	if (!((w0 & BYP_W0_MASK) == RTE_IPV4_VHL_DEF && ip->next_proto_id == IPPROTO_UDP &&
	      m->data_len >= sizeof(*ip) + sizeof(struct rte_udp_hdr) &&
	      sl_vx_port_idx[rte_be_to_cpu_16(dport)] != SL_VX_NO_PORT))
		return false;
	uint64_t who = (uint64_t)byp_who(m) << 32 | ip->dst_addr;
	if (who == k->hit)
		return true;
	if (who == k->miss)
		return false;
	if (sl_vtep_has(&sl_vx_vteps, sl_vtep_key(sl_pkt_fib(m), ip->dst_addr))) {
		k->hit = who;
		return true;
	}
	k->miss = who;
	return false;
}

/* vxi_fast for the bypass: the run's packets not fragments and UDP as well (vxlan4-input's
 * come from ip4-udp-local) */
static __rte_always_inline uint16_t byp_fast(const struct vxi_run *r, struct rte_mbuf *m,
					     const uint8_t *p)
{
	uint64_t w0;
	memcpy(&w0, p, 8);
	if ((w0 & BYP_W0_MASK) != RTE_IPV4_VHL_DEF || p[9] != IPPROTO_UDP)
		return UINT16_MAX;
	return vxi_fast(r, m, p);
}

VXI_RUN_PROCESS(byp_process, struct vxi_run, byp_fast, byp_vtep, vxi_one, vxi_run_learn, VXI_OFF,
		SL_ARC_IP4_UNICAST, byp_feat)

static struct rte_node_register byp_node = {
	.name = "ip4-vxlan-bypass",
	.process = byp_process,
	.init = sl_node_init,
	.nb_edges = VXI_NB_NEXT, /* vxlan4-input's, then the arc's (sl_feature_next) */
	.next_nodes = VXI_NEXT_NODES,
};
SL_NODE_REGISTER(byp_node)

/* ---- ip6-vxlan-bypass ---- */

/* The same on the ip6-unicast arc (VPP's `set interface ip6 vxlan-bypass IFACE [del]`): an
 * IPv6 packet whose next header is UDP (no extension header), to a VXLAN port in use and to
 * a VXLAN tunnel's local address in its table (sl_vx_vteps6), whose UDP length and checksum
 * are right (sl_udp6_check, ip6-udp-local's), is decapsulated here as vxlan6-input would
 * (vxi6_one, and runs of one tunnel by vxi6_match, their checksums checked too), past
 * ip6-lookup (the /128's trie walk), ip6-local and ip6-udp-local; any other packet, a bad
 * checksum included, goes on along the arc, where ip6-udp-local counts it as before. */
static uint8_t byp6_feat;

/* The bypass's test for m (its IPv6 header at p) but the checksum: VXLAN to a VTEP; the
 * vector's last VTEP (byp_who and the address's halves) in k. No miss
 * is remembered (transit VXLAN to other addresses scans the few local addresses each time:
 * keeping a miss too cost the VTEP's own packets 8 instructions a packet). */
static inline bool byp6_vtep(struct rte_mbuf *m, const uint8_t *p, struct byp_memo *k)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	uint16_t dport;
	memcpy(&dport, p + sizeof(*ip) + offsetof(struct rte_udp_hdr, dst_port), 2);
	if (!(ip->proto == IPPROTO_UDP && m->data_len >= sizeof(*ip) + sizeof(struct rte_udp_hdr) &&
	      sl_vx_port_idx[rte_be_to_cpu_16(dport)] != SL_VX_NO_PORT))
		return false;
	uint64_t who = byp_who(m), a, b;
	memcpy(&a, ip->dst_addr, 8);
	memcpy(&b, ip->dst_addr + 8, 8);
	if (who == k->hit && a == k->a && b == k->b)
		return true;
	if (!sl_vtep6_has(sl_pkt_fib(m), ip->dst_addr))
		return false;
	k->hit = who, k->a = a, k->b = b;
	return true;
}

/* byp6_process, written out rather than by VXI_RUN_PROCESS: the checksum checked once in the
 * loop for a run's packet and once for a packet that starts one, where VXI_RUN_PROCESS with
 * the check in its two functions made gcc call sl_udp6_check out of line (232.2 -> 241.2 to
 * 253.2 instructions a packet, make bench-graph's callgrind, vxlan6-decap-bypass) */
static uint16_t byp6_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	struct vxi_cache c = {.key = {.fib = UINT16_MAX}, .key6 = {.fib = UINT16_MAX},
			      .ifx = UINT16_MAX, .port = RTE_BE16(SL_VXLAN_PORT)};
	struct vxi6_run r = {.ifx = UINT16_MAX}; /* no run: it wants UDP port 0 */
	struct byp_memo k = {.hit = UINT64_MAX};
	uint32_t pkts = 0, bytes = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t len = m->pkt_len;
		uint16_t nx;
		if (likely(vxi6_match(&r, m, p)) &&
		    likely(sl_udp6_check(m, p, sizeof(struct rte_ipv6_hdr)) == SL_UDP6_OK)) {
			nx = vxi_run_strip(m, p, VXI6_OFF, r.next, r.ifx);
			if (likely(nx != UINT16_MAX)) {
				pkts++;
				bytes += len - (uint32_t)VXI6_OFF;
				nexts[i] = nx;
				continue;
			}
		}
		if (byp6_vtep(m, p, &k) &&
		    sl_udp6_check(m, p, sizeof(struct rte_ipv6_hdr)) == SL_UDP6_OK) {
			uint16_t rx = m->ol_flags & sl_flag_fib ? UINT16_MAX : m->port;
			vxi_run_count(w, r.ifx, &pkts, &bytes);
			nx = vxi6_one(w, m, &c);
			r = vxi6_run_learn(&c, rx, p, nx);
		} else {
			nx = sl_feature_next(SL_ARC_IP6_UNICAST, byp6_feat, m->port, 0);
		}
		nexts[i] = nx;
	}
	vxi_run_count(w, r.ifx, &pkts, &bytes);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register byp6_node = {
	.name = "ip6-vxlan-bypass",
	.process = byp6_process,
	.init = sl_node_init,
	.nb_edges = VXI_NB_NEXT, /* vxlan6-input's, then the arc's (sl_feature_next) */
	.next_nodes = VXI_NEXT_NODES,
};
SL_NODE_REGISTER(byp6_node)

/* ---- vxlan4-encap ---- */

#define VXO_ERRORS(X)                                                       \
	X(VXO_ERR_DOWN, "tunnel down")                                      \
	X(VXO_ERR_MTU, "frame longer than the tunnel's MTU")                \
	X(VXO_ERR_HEADROOM, "no headroom for the outer headers")
enum { VXO_ERRORS(SL_ERR_ENUM) VXO_NB_ERR };
static const char *const vxo_reasons[] = {VXO_ERRORS(SL_ERR_STR)};
static uint16_t vxo_err, vxo6_err;

enum { VXO_NEXT_DROP, VXO_NEXT_LOOKUP, VXO_NB_STATIC };
static rte_edge_t vxo_tx0, vxo6_tx0; /* the underlay interface's output: + its tx_slot */

/* The tunnel m leaves by, up, and m within its MTU (counted then), or NULL with *e why not. */
static inline const struct sl_tun *vxo_tunnel(struct sl_worker *w, struct rte_mbuf *m,
					      uint16_t ifx, uint16_t *e)
{
	const struct sl_iface *f = &sl_ifaces[ifx];
	const struct sl_tun *t = sl_tun_by_if[ifx];
	if (unlikely(!t || !f->up)) {
		*e = VXO_ERR_DOWN;
		return NULL;
	}
	/* routed packets were checked against the MTU by ipN-rewrite; bridged frames here */
	if (unlikely(m->pkt_len > f->mtu + (uint32_t)RTE_ETHER_HDR_LEN)) {
		*e = VXO_ERR_MTU;
		return NULL;
	}
	w->ifc[ifx].tx_pkts++;
	w->ifc[ifx].tx_bytes += m->pkt_len;
	return t;
}

/* Over IPv4 (v6 false: the UDP checksum 0, RFC 7348 5) or IPv6 (the checksum computed). */
static __rte_always_inline uint16_t vxo_any(struct sl_worker *w, struct rte_mbuf *m,
					    struct sl_tun_cache *c, uint32_t gen, bool v6)
{
	uint16_t ifx = sl_meta(m)->tx_if, e, next;
	const struct sl_tun *t = vxo_tunnel(w, m, ifx, &e);
	if (unlikely(!t))
		goto drop;
	uint16_t sport = sl_tun_sport(m, rte_pktmbuf_mtod(m, const uint8_t *));
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(
		v6 ? sl_tun_encap6(m, t, SL_VXLAN6_ENCAP_LEN, IPPROTO_UDP, c, gen, vxo6_tx0,
				   VXO_NEXT_LOOKUP, &next)
		   : sl_tun_encap(m, t, SL_VXLAN_ENCAP_LEN, IPPROTO_UDP, c, gen, vxo_tx0,
				  VXO_NEXT_LOOKUP, &next));
	if (unlikely(!u)) {
		e = VXO_ERR_HEADROOM;
		goto drop;
	}
	u->src_port = rte_cpu_to_be_16(sport);
	sl_tun_udp_finish(m, t, u, v6);
	return next;
drop:
	w->ifc[ifx].drops++;
	sl_set_error(m, (v6 ? vxo6_err : vxo_err) + e);
	return VXO_NEXT_DROP;
}

SL_TUN_ENCAP_ONE_FAM(vxo, vxo_any, false)

/* The fast way over IPv4: the outer headers from the run's copy, then the UDP port and length */
static __rte_always_inline bool vxo_fast(const struct sl_tun_run *r, struct rte_mbuf *m)
{
	uint16_t sport = sl_tun_sport(m, rte_pktmbuf_mtod(m, const uint8_t *));
	sl_tun_run_udp(m, (struct rte_udp_hdr *)sl_tun_run_put(r, m, SL_VXLAN_ENCAP_LEN, true),
		       sport);
	return true;
}

SL_TUN_ENCAP_RUNS(vxo_process, vxo_one, vxo_fast, SL_VXLAN_ENCAP_LEN, true, IPPROTO_UDP, vxo_tx0,
		  false)

/* The same over IPv6: the outer headers from the run's copy, then the UDP fields and checksum */
SL_TUN_ENCAP_ONE_FAM(vxo6, vxo_any, true)
static __rte_always_inline bool vxo6_fast(const struct sl_tun_run *r, struct rte_mbuf *m)
{
	RTE_BUILD_BUG_ON(SL_VXLAN6_ENCAP_LEN + RTE_ETHER_HDR_LEN < 64 ||
			 SL_VXLAN6_ENCAP_LEN + RTE_ETHER_HDR_LEN > sizeof(r->tmpl));
	uint16_t sport = sl_tun_sport(m, rte_pktmbuf_mtod(m, const uint8_t *));
	sl_tun_run_udp6(r, m,
			(struct rte_udp_hdr *)sl_tun_run_put6(r, m, SL_VXLAN6_ENCAP_LEN, true), sport);
	return true;
}

SL_TUN_ENCAP_RUNS(vxo6_process, vxo6_one, vxo6_fast, SL_VXLAN6_ENCAP_LEN, true, IPPROTO_UDP,
		  vxo6_tx0, true)

static struct rte_node_register vxo_node = {
	.name = "vxlan4-encap",
	.process = vxo_process,
	.init = sl_node_init,
	.nb_edges = VXO_NB_STATIC,
	.next_nodes = {[VXO_NEXT_DROP] = "error-drop", [VXO_NEXT_LOOKUP] = "ip4-lookup"},
};
SL_NODE_REGISTER(vxo_node)

static struct rte_node_register vxo6_node = {
	.name = "vxlan6-encap",
	.process = vxo6_process,
	.init = sl_node_init,
	.nb_edges = VXO_NB_STATIC,
	.next_nodes = {[VXO_NEXT_DROP] = "error-drop", [VXO_NEXT_LOOKUP] = "ip6-lookup"},
};
SL_NODE_REGISTER(vxo6_node)

RTE_INIT(vxlan_nodes_init)
{
	vxi_err = sl_error_register("vxlan4-input", vxi_reasons, VXI_NB_ERR);
	vxo_err = sl_error_register("vxlan4-encap", vxo_reasons, VXO_NB_ERR);
	vxi6_err = sl_error_register("vxlan6-input", vxi_reasons, VXI_NB_ERR);
	vxo6_err = sl_error_register("vxlan6-encap", vxo_reasons, VXO_NB_ERR);
	sl_udp_port_register(SL_VXLAN_PORT, "vxlan4-input");
	sl_udp6_port_register(SL_VXLAN_PORT, "vxlan6-input");
	sl_iface_output_register(SL_IF_VXLAN, "vxlan4-encap");
	sl_iface_output_register(SL_IF_VXLAN6, "vxlan6-encap");
	sl_iface_tx_user("vxlan4-encap", &vxo_tx0);
	sl_iface_tx_user("vxlan6-encap", &vxo6_tx0);
	byp_feat = sl_feature_register(SL_ARC_IP4_UNICAST, "ip4-vxlan-bypass", "ip4-vxlan-bypass");
	sl_trace_format_register("ip4-vxlan-bypass", sl_ip4_trace_fmt);
	byp6_feat = sl_feature_register(SL_ARC_IP6_UNICAST, "ip6-vxlan-bypass", "ip6-vxlan-bypass");
	sl_trace_format_register("ip6-vxlan-bypass", sl_ip6_trace_fmt);
}
