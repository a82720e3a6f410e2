/* SPDX-License-Identifier: BSD-3-Clause */
/* Packets for the router's own addresses and groups: ip6-local walks the extension headers
 * to the upper layer (RFC 8200 4) and dispatches it; ip6-udp-local checks UDP's checksum and
 * dispatches by destination port (sl_udp6_port_register: VXLAN), answering ICMPv6 port
 * unreachable for the others; ip6-icmp-input answers echo requests and hands neighbour
 * discovery to the main lcore; ip6-glean punts packets whose next hop is still resolving. */
#include "../interface/iface.h"
#include "ip6.h"
#include "../runtime/trace.h"

#include <rte_udp.h>

/* ---- ip6-local ---- */

#define LOCAL_ERRORS(X)                                                                   \
	X(LO_ERR_FRAG, "fragment for a local address (no reassembly)")                    \
	X(LO_ERR_NONEXT, "no next header")                                                \
	X(LO_ERR_MCAST, "multicast to a group we joined, not ICMPv6")                     \
	X(LO_ERR_RH, "routing header with segments left (parameter problem follows)")     \
	X(LO_ERR_PROTO, "unknown next header (parameter problem follows)")                \
	X(LO_UNREACH, "TCP port unreachable (ICMPv6 follows)")                            \
	X(LO_ERR_BAD, "extension headers invalid")
enum { LOCAL_ERRORS(SL_ERR_ENUM) LO_NB_ERR };
static const char *const lo_reasons[] = {LOCAL_ERRORS(SL_ERR_STR)};
static uint16_t lo_err;

enum { LO_NEXT_DROP, LO_NEXT_ICMP_IN, LO_NEXT_ERROR, LO_NEXT_UDP, LO_NB_NEXT }; /* then the
										    * registered
										    * protocols' */

static uint16_t proto6_next[256];
struct sl_dispatch sl_ip6_protos = {.from = "ip6-local", .next = proto6_next, .nkeys = 256};

void sl_ip6_proto_register(uint8_t proto, const char *node_name)
{
	sl_dispatch_register(&sl_ip6_protos, proto, node_name);
}

static inline uint16_t lo_icmp(struct sl_worker *w, struct rte_mbuf *m, uint16_t e, uint16_t icmp,
			       uint16_t ptr)
{
	w->errors[lo_err + e]++;
	sl_meta2(m)->icmp = icmp;
	sl_meta2(m)->mtu = ptr;
	return LO_NEXT_ERROR;
}

static inline uint16_t lo_one(struct sl_worker *w, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	struct sl_ip6_walk wk;
	uint16_t e;
	if (sl_ip6_walk(p, m->data_len, &wk) != SL_IP6W_OK) { /* ip6-input walked it */
		e = LO_ERR_BAD;
		goto drop;
	}
	if (wk.frag) {
		e = LO_ERR_FRAG;
		goto drop;
	}
	/* RFC 8200 4.4: we know no routing type; with segments left, a parameter problem
	 * about the type */
	if (wk.rh_off && p[wk.rh_off + 3] != 0)
		return lo_icmp(w, m, LO_ERR_RH, SL_ICMP6_PARAM << 8 | 0, wk.rh_off + 2);
	if (wk.proto == IPPROTO_ICMPV6)
		return LO_NEXT_ICMP_IN;
	if (sl_ip6_is_mcast(ip->dst_addr)) {
		e = LO_ERR_MCAST;
		goto drop;
	}
	if (wk.proto == IPPROTO_UDP)
		return LO_NEXT_UDP;
	if (proto6_next[wk.proto]) /* tunnels: GRE, IP-in-IP */
		return proto6_next[wk.proto];
	if (wk.proto == IPPROTO_TCP)
		return lo_icmp(w, m, LO_UNREACH, SL_ICMP6_UNREACH << 8 | SL_ICMP6_UNREACH_PORT, 0);
	if (wk.proto == IPPROTO_NONE) {
		e = LO_ERR_NONEXT;
		goto drop;
	}
	return lo_icmp(w, m, LO_ERR_PROTO, SL_ICMP6_PARAM << 8 | 1, wk.nh_ptr);
drop:
	sl_set_error(m, lo_err + e);
	return LO_NEXT_DROP;
}

SL_NODE_EACH(lo_process, lo_one)

static struct rte_node_register lo_node = {
	.name = "ip6-local",
	.process = lo_process,
	.init = sl_node_init,
	.nb_edges = LO_NB_NEXT,
	.next_nodes = {[LO_NEXT_DROP] = "error-drop", [LO_NEXT_ICMP_IN] = "ip6-icmp-input",
		       [LO_NEXT_ERROR] = "icmp6-error", [LO_NEXT_UDP] = "ip6-udp-local"},
};
SL_NODE_REGISTER(lo_node)

/* ---- ip6-udp-local ---- */

#define UDP_ERRORS(X)                                                                     \
	X(UL_ERR_SHORT, "UDP header truncated or length not within the packet")          \
	X(UL_ERR_ZERO, "UDP checksum zero (RFC 8200 8.1)")                                \
	X(UL_ERR_CKSUM, "UDP checksum bad")                                               \
	X(UL_UNREACH, "UDP port unreachable (ICMPv6 follows)")
enum { UDP_ERRORS(SL_ERR_ENUM) UL_NB_ERR };
static const char *const ul_reasons[] = {UDP_ERRORS(SL_ERR_STR)};
static uint16_t ul_err;

enum { UL_NEXT_ICMP, UL_NEXT_DROP, UL_NB_NEXT }; /* then the registered ports' nodes */

static uint16_t port6_next[1 << 16]; /* by the port as it is in the header (network order) */
struct sl_dispatch sl_udp6_ports = {.from = "ip6-udp-local", .next = port6_next,
				    .nkeys = 1 << 16, .key_be16 = true};

void sl_udp6_port_register(uint16_t port, const char *node_name)
{
	sl_dispatch_register(&sl_udp6_ports, rte_cpu_to_be_16(port), node_name);
}

static inline uint16_t ul_one(struct sl_worker *w, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t proto;
	uint32_t off = sl_ip6_l4_off(m, &proto);
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(p + off);
	static const uint16_t why[] = {[SL_UDP6_SHORT] = UL_ERR_SHORT, [SL_UDP6_ZERO] = UL_ERR_ZERO,
				       [SL_UDP6_BAD] = UL_ERR_CKSUM};
	enum sl_udp6_check c = sl_udp6_check(m, p, off);
	uint16_t e;
	if (unlikely(c != SL_UDP6_OK)) {
		e = why[c];
		goto drop;
	}
	uint16_t nx = port6_next[u->dst_port];
	if (unlikely(nx == UL_NEXT_ICMP)) {
		w->errors[ul_err + UL_UNREACH]++;
		sl_meta2(m)->icmp = SL_ICMP6_UNREACH << 8 | SL_ICMP6_UNREACH_PORT;
		sl_meta2(m)->mtu = 0;
	}
	return nx;
drop:
	sl_set_error(m, ul_err + e);
	return UL_NEXT_DROP;
}

SL_NODE_EACH(ul_process, ul_one)

static struct rte_node_register ul_node = {
	.name = "ip6-udp-local",
	.process = ul_process,
	.init = sl_node_init,
	.nb_edges = UL_NB_NEXT,
	.next_nodes = {[UL_NEXT_ICMP] = "icmp6-error", [UL_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(ul_node)

/* ---- ip6-icmp-input ---- */

#define ICMP_ERRORS(X)                                                                    \
	X(IC_ERR_BAD, "ICMPv6 too short or bad checksum")                                 \
	X(IC_ERR_ND, "neighbour or router discovery with hop limit not 255, a code or headers") \
	X(IC_ERR_RS, "router solicitation (router advertisements are off)")               \
	X(IC_ERR_RA, "router advertisement or redirect (ignored)")                        \
	X(IC_ERR_MLD, "multicast listener report or done (no multicast routing)")        \
	X(IC_ERR_ERROR, "ICMPv6 error for us (nothing to tell)")                          \
	X(IC_ERR_REPLY, "echo reply to no ping of ours")                                  \
	X(IC_ERR_TYPE, "ICMPv6 type not handled")                                         \
	X(IC_ERR_NOSRC, "echo to a group from an interface without an address")          \
	X(IC_ECHO, "echo replies sent")                                                   \
	X(IC_ND, "neighbour solicitations and advertisements, router solicitations to the main lcore") \
	X(IC_MLD, "multicast listener queries to the main lcore")
enum { ICMP_ERRORS(SL_ERR_ENUM) IC_NB_ERR };
static const char *const ic_reasons[] = {ICMP_ERRORS(SL_ERR_STR)};
static uint16_t ic_err;

enum { IC_NEXT_DROP, IC_NEXT_LOOKUP, IC_NEXT_PUNT, IC_NB_NEXT };

static inline uint16_t ic_one(struct sl_worker *w, struct rte_mbuf *m)
{
	uint16_t e;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;
	struct sl_ip6_walk wk;
	sl_ip6_walk(p, m->data_len, &wk); /* ip6-local walked it */
	uint32_t ilen = rte_pktmbuf_pkt_len(m) - wk.off;
	if (m->nb_segs != 1 || rte_pktmbuf_pkt_len(m) < wk.off + 8u ||
	    sl_ip6_l4_sum(ip, p + wk.off, ilen, IPPROTO_ICMPV6) != 0xffff) {
		e = IC_ERR_BAD;
		goto drop;
	}
	uint8_t *ic = p + wk.off;
	switch (ic[0]) {
	case SL_ICMP6_RS:
		/* to the main lcore's router advertisements where the interface sends them */
		if (!__atomic_load_n(&sl_ifaces[m->port].ra_max_s, __ATOMIC_RELAXED)) {
			e = IC_ERR_RS;
			goto drop;
		}
		/* fall through */
	case SL_ICMP6_NS:
	case SL_ICMP6_NA:
		/* RFC 4861 6.1.1 and 7.1: hop limit 255 (from the link itself), code 0 */
		if (ip->hop_limits != 255 || ic[1] != 0 || wk.off != 40) {
			e = IC_ERR_ND;
			goto drop;
		}
		w->errors[ic_err + IC_ND]++;
		sl_meta2(m)->punt = ic[0] == SL_ICMP6_RS ? SL_PUNT_RS6 : SL_PUNT_ND6;
		return IC_NEXT_PUNT;
	case SL_ICMP6_ECHO:
		break;
	case SL_ICMP6_RA:
	case SL_ICMP6_REDIRECT:
		e = IC_ERR_RA;
		goto drop;
	case SL_ICMP6_MLD_QUERY: /* checked there (RFC 3810 5.1.14) */
		w->errors[ic_err + IC_MLD]++;
		sl_meta2(m)->punt = SL_PUNT_MLD6;
		return IC_NEXT_PUNT;
	case SL_ICMP6_MLD_REPORT:
	case SL_ICMP6_MLD_DONE:
	case SL_ICMP6_MLD2_REPORT:
		e = IC_ERR_MLD;
		goto drop;
	case SL_ICMP6_ECHO_REPLY: {
		/* the ping running's (its identifier; right after the header, as ping sends
		 * it): to the main lcore, which times it */
		uint16_t id = __atomic_load_n(&sl_ping_ident, __ATOMIC_RELAXED), got;
		memcpy(&got, ic + 4, 2);
		if (id && got == id && ic[1] == 0 && wk.off == sizeof(*ip)) {
			sl_meta2(m)->punt = SL_PUNT_PING;
			return IC_NEXT_PUNT;
		}
		e = IC_ERR_REPLY;
		goto drop;
	}
	default:
		e = ic[0] < 128 ? IC_ERR_ERROR : IC_ERR_TYPE;
		goto drop;
	}
	/* RFC 4443 4.2: the reply carries the request's data; to a group, from our address */
	uint8_t src[16];
	memcpy(src, ip->dst_addr, 16);
	if (sl_ip6_is_mcast(src)) {
		const struct sl_iface *f = &sl_ifaces[m->port];
		memcpy(src, sl_ip6_src_of(f, ip->src_addr), 16);
		if (sl_ip6_is_zero(src) || ic[1] != 0) {
			e = IC_ERR_NOSRC;
			goto drop;
		}
	}
	if (sl_ip6_is_zero(ip->src_addr)) {
		e = IC_ERR_BAD;
		goto drop;
	}
	if (wk.off != 40) { /* extension headers do not go back */
		memmove(p + wk.off - 40, p, 40);
		rte_pktmbuf_adj(m, (uint16_t)(wk.off - 40));
		p = rte_pktmbuf_mtod(m, uint8_t *);
		ip = (struct rte_ipv6_hdr *)p;
		ip->proto = IPPROTO_ICMPV6;
		ip->payload_len = rte_cpu_to_be_16((uint16_t)ilen);
		ic = p + 40;
	}
	memcpy(ip->dst_addr, ip->src_addr, 16);
	memcpy(ip->src_addr, src, 16);
	ip->hop_limits = 64;
	ic[0] = SL_ICMP6_ECHO_REPLY;
	ic[2] = ic[3] = 0;
	uint16_t ck = (uint16_t)~sl_ip6_l4_sum(ip, ic, ilen, IPPROTO_ICMPV6);
	memcpy(ic + 2, &ck, 2);
	w->errors[ic_err + IC_ECHO]++;
	return sl_ip6_punt_ll(m, ip) ? IC_NEXT_PUNT : IC_NEXT_LOOKUP;
drop:
	sl_set_error(m, ic_err + e);
	return IC_NEXT_DROP;
}

SL_NODE_EACH(ic_process, ic_one)

static struct rte_node_register ic_node = {
	.name = "ip6-icmp-input",
	.process = ic_process,
	.init = sl_node_init,
	.nb_edges = IC_NB_NEXT,
	.next_nodes = {[IC_NEXT_DROP] = "error-drop", [IC_NEXT_LOOKUP] = "ip6-lookup",
		       [IC_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(ic_node)

/* ---- ip6-glean ---- */

enum { GL_NEXT_PUNT, GL_NB_NEXT };

static uint16_t gl_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		sl_meta2(objs[i])->punt = SL_PUNT_GLEAN6;
	rte_node_next_stream_move(g, node, GL_NEXT_PUNT);
	return n;
}

static struct rte_node_register gl_node = {
	.name = "ip6-glean",
	.process = gl_process,
	.init = sl_node_init,
	.nb_edges = GL_NB_NEXT,
	.next_nodes = {[GL_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(gl_node)

RTE_INIT(lo6_register)
{
	sl_trace_format_register("ip6-local", sl_ip6_trace_fmt);
	sl_trace_format_register("ip6-icmp-input", sl_ip6_trace_fmt);
	sl_trace_format_register("ip6-glean", sl_ip6_trace_fmt);
	sl_trace_format_register("ip6-udp-local", sl_ip6_trace_fmt);
	lo_err = sl_error_register("ip6-local", lo_reasons, LO_NB_ERR);
	ul_err = sl_error_register("ip6-udp-local", ul_reasons, UL_NB_ERR);
	ic_err = sl_error_register("ip6-icmp-input", ic_reasons, IC_NB_ERR);
}
