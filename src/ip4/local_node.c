/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-local: packets for the router's own addresses. ICMP echo gets a reply routed back
 * through ip4-lookup; everything else is counted and dropped. */
#include "../interface/iface.h"
#include "ip4.h"
#include <rte_icmp.h>
#include <rte_ip.h>

#define LOCAL_ERRORS(X)                                             \
	X(LO_ERR_PROTO, "protocol not handled locally")             \
	X(LO_ERR_ICMP_TYPE, "ICMP type not handled locally")        \
	X(LO_ERR_ICMP_BAD, "ICMP too short or bad checksum")        \
	X(LO_ERR_FRAG, "fragment for a local address")              \
	X(LO_ECHO, "echo replies sent")
enum { LOCAL_ERRORS(SL_ERR_ENUM) LO_NB_ERR };
static const char *const lo_reasons[] = {LOCAL_ERRORS(SL_ERR_STR)};
static uint16_t lo_err;

enum { LO_NEXT_DROP, LO_NEXT_LOOKUP, LO_NB_NEXT };

static inline uint16_t lo_one(struct sl_worker *w, struct rte_mbuf *m)
{
	uint16_t e;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint32_t hl = (ip->version_ihl & 0xf) * 4u;
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		e = LO_ERR_FRAG;
		goto drop;
	}
	if (ip->next_proto_id != IPPROTO_ICMP) {
		e = LO_ERR_PROTO;
		goto drop;
	}
	uint32_t ilen = rte_pktmbuf_pkt_len(m) - hl;
	if (ilen < sizeof(struct rte_icmp_hdr) || m->nb_segs != 1) {
		e = LO_ERR_ICMP_BAD;
		goto drop;
	}
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)((uint8_t *)ip + hl);
	if (rte_raw_cksum(ic, ilen) != 0xffff) {
		e = LO_ERR_ICMP_BAD;
		goto drop;
	}
	if (ic->icmp_type != SL_ICMP_ECHO || ic->icmp_code != 0) {
		e = LO_ERR_ICMP_TYPE;
		goto drop;
	}
	/* RFC 1122 3.2.2.6: the reply swaps the addresses and keeps the data */
	ic->icmp_type = SL_ICMP_ECHO_REPLY;
	ic->icmp_cksum = 0;
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, ilen);
	uint32_t a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	w->errors[lo_err + LO_ECHO]++;
	return LO_NEXT_LOOKUP;
drop:
	sl_set_error(m, lo_err + e);
	return LO_NEXT_DROP;
}

static uint16_t lo_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = lo_one(w, objs[i]);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register lo_node = {
	.name = "ip4-local",
	.process = lo_process,
	.init = sl_node_init,
	.nb_edges = LO_NB_NEXT,
	.next_nodes = {[LO_NEXT_DROP] = "error-drop", [LO_NEXT_LOOKUP] = "ip4-lookup"},
};
RTE_NODE_REGISTER(lo_node);

RTE_INIT(lo_errors)
{
	lo_err = sl_error_register("ip4-local", lo_reasons, LO_NB_ERR);
}
