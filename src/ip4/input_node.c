/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-input: the RFC 1812 section 5.2.2 header checks, each with a named error. */
#include "../interface/iface.h"
#include "ip4.h"
#include "../ethernet/ethernet.h"
#include "../runtime/trace.h"
#include "../runtime/feature.h"
#include "../runtime/cksum.h"
#include <stdio.h>
#include <rte_ip.h>

#define IP4IN_ERRORS(X)                                                   \
	X(IN_ERR_SHORT, "packet shorter than an IPv4 header")             \
	X(IN_ERR_VERSION, "IP version is not 4")                          \
	X(IN_ERR_IHL, "bad header length (IHL)")                          \
	X(IN_ERR_CKSUM, "bad header checksum")                            \
	X(IN_ERR_LEN, "total length does not match the frame")            \
	X(IN_ERR_TTL0, "TTL is zero")                                     \
	X(IN_ERR_SRC, "bad source address (multicast or broadcast)")
enum { IP4IN_ERRORS(SL_ERR_ENUM) IN_NB_ERR };
static const char *const in_reasons[] = {IP4IN_ERRORS(SL_ERR_STR)};
static uint16_t in_err;

enum { IN_NEXT_DROP, IN_NEXT_LOOKUP, IN_NB_NEXT };
static uint16_t in_arc[SL_ARC_MAX_FEATS]; /* the ip4-unicast arc: edge to feature f */

/* A header without options: sl_ip4_hdr20_cksum_ok; with them, summed and folded (RFC 1071) */
static inline bool hdr_cksum_ok(const struct rte_ipv4_hdr *ip, uint32_t hl)
{
	if (likely(hl == 20))
		return sl_ip4_hdr20_cksum_ok(ip);
	return sl_raw_cksum(ip, hl) == 0xffff;
}

/* The fast test of the IPv4 header at b (m's data): a 20-byte header, right checksum, total
 * length equal to the frame, TTL not zero, unicast source (RFC 1812 5.2.2, 5.3.7); false for
 * anything else, which in_one checks by name. The header read once, in two 8-byte words and
 * a 4-byte one as the checksum wants it, every check made on them (byte k of a word read
 * little-endian is its bits 8k to 8k+7): byte 0 version and IHL, bytes 2-3 the total length,
 * byte 8 the TTL, bytes 12-15 the source. */
static __rte_always_inline bool in_fast(const struct rte_mbuf *m, const uint8_t *b)
{
	uint64_t q0, q1;
	uint32_t w4;
	memcpy(&q0, b, 8);
	memcpy(&q1, b + 8, 8);
	memcpy(&w4, b + 16, 4);
	uint64_t v0 = rte_le_to_cpu_64(q0), v1 = rte_le_to_cpu_64(q1);
	uint32_t src = (uint32_t)(v1 >> 32); /* as it lies in memory */
	return m->data_len >= sizeof(struct rte_ipv4_hdr) && (uint8_t)v0 == RTE_IPV4_VHL_DEF &&
	       rte_bswap16((uint16_t)(v0 >> 16)) == m->pkt_len && (uint8_t)v1 != 0 &&
	       (src & 0xf0) != 0xe0 && src != 0xffffffff && sl_ip4_hdr20_sum_ok64(q0, q1, w4);
}

static __rte_noinline uint16_t in_one(struct rte_mbuf *m)
{
	uint16_t e;
	uint32_t plen = rte_pktmbuf_pkt_len(m);
	/* RFC 1812 5.2.2 (1): the packet length reported by the link layer is large enough */
	if (unlikely(m->data_len < sizeof(struct rte_ipv4_hdr))) {
		e = IN_ERR_SHORT;
		goto drop;
	}
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	/* (3): version is 4 */
	if (unlikely((ip->version_ihl >> 4) != 4)) {
		e = IN_ERR_VERSION;
		goto drop;
	}
	/* (4): header length is at least 20 bytes and within the data */
	uint32_t hl = (ip->version_ihl & 0xf) * 4u;
	if (unlikely(hl < 20 || hl > m->data_len)) {
		e = IN_ERR_IHL;
		goto drop;
	}
	/* (2): the checksum is correct */
	if (likely((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) != RTE_MBUF_F_RX_IP_CKSUM_GOOD)) {
		if (unlikely(!hdr_cksum_ok(ip, hl))) {
			e = IN_ERR_CKSUM;
			goto drop;
		}
	}
	/* (5): total length is at least the header length and within the frame */
	uint32_t tl = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tl < hl || tl > plen)) {
		e = IN_ERR_LEN;
		goto drop;
	}
	if (unlikely(tl < plen))
		rte_pktmbuf_trim(m, (uint16_t)(plen - tl)); /* Ethernet padding */
	if (unlikely(ip->time_to_live == 0)) {
		e = IN_ERR_TTL0;
		goto drop;
	}
	/* 5.3.7: a router must not forward packets with a multicast or broadcast source */
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	if (unlikely((src >> 28) == 0xe || src == 0xffffffff)) {
		e = IN_ERR_SRC;
		goto drop;
	}
	return IN_NEXT_LOOKUP;
drop:
	sl_set_error(m, in_err + e);
	return IN_NEXT_DROP;
}

/* The vector's walk; with arc (an interface has a feature on the ip4-unicast arc) each packet
 * for ip4-lookup takes its interface's first feature instead, read as it goes, once a run of
 * one interface: a second pass over the vector (one interface or several) cost 20
 * instructions a packet, the read for every packet 10. */
static __rte_always_inline uint16_t in_vector(struct rte_graph *g, struct rte_node *node,
					      void **objs, uint16_t n, bool arc)
{
	uint16_t nexts[n];
	struct sl_feature_memo fm = {.ifx = UINT32_MAX};
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		/* fast path (in_fast); anything else (and every error) in in_one */
		uint16_t nx;
		if (likely(in_fast(m, rte_pktmbuf_mtod(m, const uint8_t *))))
			nx = IN_NEXT_LOOKUP;
		else
			nx = in_one(m);
		if (arc && nx == IN_NEXT_LOOKUP)
			nx = sl_feature_first_memo(&fm, SL_ARC_IP4_UNICAST, m->port, in_arc,
						   IN_NEXT_LOOKUP);
		nexts[i] = nx;
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static __rte_noinline uint16_t in_vector_arc(struct rte_graph *g, struct rte_node *node,
					     void **objs, uint16_t n)
{
	return in_vector(g, node, objs, n, true);
}

static uint16_t in_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	/* the ip4-unicast arc: one load a vector while no interface has a feature on it */
	if (unlikely(__atomic_load_n(&sl_arc_users[SL_ARC_IP4_UNICAST], __ATOMIC_RELAXED)))
		return in_vector_arc(g, node, objs, n);
	return in_vector(g, node, objs, n, false);
}

static struct rte_node_register in_node = {
	.name = "ip4-input",
	.process = in_process,
	.init = sl_node_init,
	.nb_edges = IN_NB_NEXT,
	.next_nodes = {[IN_NEXT_DROP] = "error-drop", [IN_NEXT_LOOKUP] = "ip4-lookup"},
};
SL_NODE_REGISTER(in_node)

/* The trace of a node that finds an IPv4 header at the packet's start. */
void sl_ip4_trace_fmt(char *buf, size_t len, const struct sl_trace_rec *r)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)r->data;
	if (r->ndata < sizeof(*ip)) {
		snprintf(buf, len, "%u bytes", r->len);
		return;
	}
	uint32_t s = rte_be_to_cpu_32(ip->src_addr), d = rte_be_to_cpu_32(ip->dst_addr);
	snprintf(buf, len, "%u.%u.%u.%u > %u.%u.%u.%u proto %u ttl %u len %u id %u", s >> 24,
		 (s >> 16) & 255, (s >> 8) & 255, s & 255, d >> 24, (d >> 16) & 255,
		 (d >> 8) & 255, d & 255, ip->next_proto_id, ip->time_to_live,
		 rte_be_to_cpu_16(ip->total_length), rte_be_to_cpu_16(ip->packet_id));
}

RTE_INIT(in_errors)
{
	sl_trace_format_register("ip4-input", sl_ip4_trace_fmt);
	in_err = sl_error_register("ip4-input", in_reasons, IN_NB_ERR);
	sl_eth_type_register(RTE_ETHER_TYPE_IPV4, "ip4-input");
	sl_feature_start(SL_ARC_IP4_UNICAST, "ip4-input", in_arc);
}
