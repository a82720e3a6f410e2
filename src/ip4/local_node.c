/* SPDX-License-Identifier: BSD-3-Clause */
/* Packets for the router's own addresses: ip4-local dispatches by IP protocol to the node
 * registered for it (sl_ip4_proto_register), ip4-udp-local by UDP destination port
 * (sl_udp_port_register: VXLAN, and MPLS over UDP next), ip4-icmp-input answers
 * echo requests. What nobody registered is counted and dropped, or for UDP answered with
 * ICMP port unreachable (RFC 1122 3.2.2.1). */
#include "../interface/iface.h"
#include "ip4.h"
#include "../runtime/trace.h"
#include "../runtime/cksum.h"
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

/* ---- ip4-local ---- */

#define LOCAL_ERRORS(X)                                             \
	X(LO_ERR_PROTO, "protocol not handled locally")             \
	X(LO_ERR_FRAG, "fragment for a local address")
enum { LOCAL_ERRORS(SL_ERR_ENUM) LO_NB_ERR };
static const char *const lo_reasons[] = {LOCAL_ERRORS(SL_ERR_STR)};
static uint16_t lo_err;

enum { LO_NEXT_DROP, LO_NB_NEXT }; /* then the registered protocols' nodes */

static uint16_t proto_next[256];
struct sl_dispatch sl_ip4_protos = {.from = "ip4-local", .next = proto_next, .nkeys = 256};

void sl_ip4_proto_register(uint8_t proto, const char *node_name)
{
	sl_dispatch_register(&sl_ip4_protos, proto, node_name);
}

static inline uint16_t lo_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	if (unlikely(ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))) {
		sl_set_error(m, lo_err + LO_ERR_FRAG);
		return LO_NEXT_DROP;
	}
	uint16_t nx = proto_next[ip->next_proto_id];
	if (unlikely(nx == LO_NEXT_DROP))
		sl_set_error(m, lo_err + LO_ERR_PROTO);
	return nx;
}

SL_NODE_EACH(lo_process, lo_one)

static struct rte_node_register lo_node = {
	.name = "ip4-local",
	.process = lo_process,
	.init = sl_node_init,
	.nb_edges = LO_NB_NEXT,
	.next_nodes = {[LO_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(lo_node)

/* ---- ip4-udp-local ---- */

#define UDP_ERRORS(X)                                                       \
	X(UL_ERR_SHORT, "UDP header truncated")                             \
	X(UL_UNREACH, "port unreachable (ICMP follows)")
enum { UDP_ERRORS(SL_ERR_ENUM) UL_NB_ERR };
static const char *const ul_reasons[] = {UDP_ERRORS(SL_ERR_STR)};
static uint16_t ul_err;

enum { UL_NEXT_ICMP, UL_NEXT_DROP, UL_NB_NEXT }; /* then the registered ports' nodes */

static uint16_t port_next[1 << 16]; /* by the port as it is in the header (network order) */
struct sl_dispatch sl_udp_ports = {.from = "ip4-udp-local", .next = port_next,
				   .nkeys = 1 << 16, .key_be16 = true};

void sl_udp_port_register(uint16_t port, const char *node_name)
{
	sl_dispatch_register(&sl_udp_ports, rte_cpu_to_be_16(port), node_name);
}

static inline uint16_t ul_one(struct sl_worker *w, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	uint32_t hl = (ip->version_ihl & 0xf) * 4u;
	if (unlikely(rte_pktmbuf_data_len(m) < hl + sizeof(struct rte_udp_hdr))) {
		sl_set_error(m, ul_err + UL_ERR_SHORT);
		return UL_NEXT_DROP;
	}
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)((const uint8_t *)ip + hl);
	uint16_t nx = port_next[u->dst_port];
	if (unlikely(nx == UL_NEXT_ICMP)) {
		w->errors[ul_err + UL_UNREACH]++;
		sl_meta2(m)->icmp = SL_ICMP_UNREACH << 8 | SL_ICMP_UNREACH_PORT;
	}
	return nx;
}

SL_NODE_EACH(ul_process, ul_one)

static struct rte_node_register ul_node = {
	.name = "ip4-udp-local",
	.process = ul_process,
	.init = sl_node_init,
	.nb_edges = UL_NB_NEXT,
	.next_nodes = {[UL_NEXT_ICMP] = "icmp4-error", [UL_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(ul_node)

/* ---- ip4-icmp-input ---- */

#define ICMP_ERRORS(X)                                              \
	X(IC_ERR_TYPE, "ICMP type not handled locally")             \
	X(IC_ERR_BAD, "ICMP too short or bad checksum")             \
	X(IC_ERR_REPLY, "echo reply to no ping of ours")            \
	X(IC_ECHO, "echo replies sent")
enum { ICMP_ERRORS(SL_ERR_ENUM) IC_NB_ERR };
static const char *const ic_reasons[] = {ICMP_ERRORS(SL_ERR_STR)};
static uint16_t ic_err;

enum { IC_NEXT_DROP, IC_NEXT_LOOKUP, IC_NEXT_PUNT, IC_NB_NEXT };

static inline uint16_t ic_one(struct sl_worker *w, struct rte_mbuf *m)
{
	uint16_t e;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint32_t hl = (ip->version_ihl & 0xf) * 4u;
	uint32_t ilen = rte_pktmbuf_pkt_len(m) - hl;
	if (ilen < sizeof(struct rte_icmp_hdr) || m->nb_segs != 1) {
		e = IC_ERR_BAD;
		goto drop;
	}
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)((uint8_t *)ip + hl);
	if (sl_raw_cksum(ic, ilen) != 0xffff) {
		e = IC_ERR_BAD;
		goto drop;
	}
	if (ic->icmp_type == SL_ICMP_ECHO_REPLY && ic->icmp_code == 0) {
		/* the ping running's (its identifier; to the main lcore, which times it) */
		uint16_t id = __atomic_load_n(&sl_ping_ident, __ATOMIC_RELAXED);
		if (id && ic->icmp_ident == id && ilen >= sizeof(*ic)) {
			sl_meta2(m)->punt = SL_PUNT_PING;
			return IC_NEXT_PUNT;
		}
		e = IC_ERR_REPLY;
		goto drop;
	}
	if (ic->icmp_type != SL_ICMP_ECHO || ic->icmp_code != 0) {
		e = IC_ERR_TYPE;
		goto drop;
	}
	/* RFC 1122 3.2.2.6: the reply swaps the addresses and keeps the data */
	ic->icmp_type = SL_ICMP_ECHO_REPLY;
	ic->icmp_cksum = 0;
	ic->icmp_cksum = (uint16_t)~sl_raw_cksum(ic, ilen);
	uint32_t a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	w->errors[ic_err + IC_ECHO]++;
	return IC_NEXT_LOOKUP;
drop:
	sl_set_error(m, ic_err + e);
	return IC_NEXT_DROP;
}

SL_NODE_EACH(ic_process, ic_one)

static struct rte_node_register ic_node = {
	.name = "ip4-icmp-input",
	.process = ic_process,
	.init = sl_node_init,
	.nb_edges = IC_NB_NEXT,
	.next_nodes = {[IC_NEXT_DROP] = "error-drop", [IC_NEXT_LOOKUP] = "ip4-lookup",
		       [IC_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(ic_node)

RTE_INIT(lo_register)
{
	sl_trace_format_register("ip4-local", sl_ip4_trace_fmt);
	sl_trace_format_register("ip4-udp-local", sl_ip4_trace_fmt);
	sl_trace_format_register("ip4-icmp-input", sl_ip4_trace_fmt);
	lo_err = sl_error_register("ip4-local", lo_reasons, LO_NB_ERR);
	ul_err = sl_error_register("ip4-udp-local", ul_reasons, UL_NB_ERR);
	ic_err = sl_error_register("ip4-icmp-input", ic_reasons, IC_NB_ERR);
	sl_adj_type_register(SL_ADJ_LOCAL, "ip4-local");
	sl_ip4_proto_register(IPPROTO_ICMP, "ip4-icmp-input");
	sl_ip4_proto_register(IPPROTO_UDP, "ip4-udp-local");
}
