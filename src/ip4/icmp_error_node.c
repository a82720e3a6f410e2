/* SPDX-License-Identifier: BSD-3-Clause */
/* icmp4-error: turns the offending packet into an ICMP error (RFC 792) sent back to its
 * source, following RFC 1812 4.3.2.7 and rate-limited as 4.3.2.8 asks. */
#include "../interface/iface.h"
#include "ip4.h"
#include "../runtime/trace.h"
#include "../runtime/cksum.h"
#include <rte_cycles.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#define ICMPE_ERRORS(X)                                                       \
	X(IE_SENT_UNREACH, "destination unreachable sent")                    \
	X(IE_SENT_TTL, "time exceeded sent")                                  \
	X(IE_SENT_FRAG, "fragmentation needed sent")                          \
	X(IE_ERR_RULES, "no ICMP error allowed for this packet (RFC 1812)")  \
	X(IE_ERR_RATE, "ICMP error rate-limited")                             \
	X(IE_ERR_NOSRC, "no address on the receiving interface")
enum { ICMPE_ERRORS(SL_ERR_ENUM) IE_NB_ERR };
static const char *const ie_reasons[] = {ICMPE_ERRORS(SL_ERR_STR)};
static uint16_t ie_err;

enum { IE_NEXT_DROP, IE_NEXT_LOOKUP, IE_NB_NEXT };

static inline bool is_icmp_error(const struct rte_ipv4_hdr *ip, uint32_t hl, uint32_t len)
{
	if (ip->next_proto_id != IPPROTO_ICMP || len < hl + 1)
		return false;
	uint8_t t = *((const uint8_t *)ip + hl);
	return t == 3 || t == 4 || t == 5 || t == 11 || t == 12;
}

static inline uint16_t ie_one(struct sl_worker *w, struct rte_mbuf *m, uint64_t now)
{
	uint16_t e;
	struct sl_meta2 *mt = sl_meta2(m);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint32_t hl = (ip->version_ihl & 0xf) * 4u, len = rte_pktmbuf_pkt_len(m);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr), dst = rte_be_to_cpu_32(ip->dst_addr);
	/* RFC 1812 4.3.2.7: never for an ICMP error, a non-first fragment, a multicast or
	 * broadcast destination, or a source that does not name one host */
	if (is_icmp_error(ip, hl, len) ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) || (dst >> 28) == 0xe ||
	    dst == 0xffffffff || src == 0 || (src >> 24) == 127 || (src >> 28) >= 0xe ||
	    m->nb_segs != 1) {
		e = IE_ERR_RULES;
		goto drop;
	}
	uint32_t me = sl_ifaces[m->port].ip4;
	if (me == 0) {
		e = IE_ERR_NOSRC;
		goto drop;
	}
	if (!sl_icmp_allow(w, now)) {
		e = IE_ERR_RATE;
		goto drop;
	}
	uint32_t keep = RTE_MIN(len, hl + 8);
	rte_pktmbuf_trim(m, (uint16_t)(len - keep));
	uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, 28);
	if (!p) {
		e = IE_ERR_RULES;
		goto drop;
	}
	struct rte_ipv4_hdr *nip = (struct rte_ipv4_hdr *)p;
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)(p + 20);
	*nip = (struct rte_ipv4_hdr){
		.version_ihl = 0x45,
		.type_of_service = 0xc0,
		.total_length = rte_cpu_to_be_16((uint16_t)(28 + keep)),
		.time_to_live = 64,
		.next_proto_id = IPPROTO_ICMP,
		.src_addr = rte_cpu_to_be_32(me),
		.dst_addr = rte_cpu_to_be_32(src),
	};
	nip->hdr_checksum = rte_ipv4_cksum(nip);
	ic->icmp_type = (uint8_t)(mt->icmp >> 8);
	ic->icmp_code = (uint8_t)mt->icmp;
	ic->icmp_cksum = 0;
	/* RFC 1191: next-hop MTU in the low 16 bits of the second word */
	ic->icmp_ident = 0;
	ic->icmp_seq_nb = ic->icmp_type == SL_ICMP_UNREACH && ic->icmp_code == 4
				  ? rte_cpu_to_be_16(mt->mtu)
				  : 0;
	ic->icmp_cksum = (uint16_t)~sl_raw_cksum(ic, 8 + keep);
	w->errors[ie_err + (ic->icmp_type == SL_ICMP_TIME_EXCEEDED ? IE_SENT_TTL
			    : ic->icmp_code == 4                  ? IE_SENT_FRAG
								  : IE_SENT_UNREACH)]++;
	return IE_NEXT_LOOKUP;
drop:
	sl_set_error(m, ie_err + e);
	return IE_NEXT_DROP;
}

static uint16_t ie_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	uint64_t now = rte_rdtsc();
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = ie_one(w, objs[i], now);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register ie_node = {
	.name = "icmp4-error",
	.process = ie_process,
	.init = sl_node_init,
	.nb_edges = IE_NB_NEXT,
	.next_nodes = {[IE_NEXT_DROP] = "error-drop", [IE_NEXT_LOOKUP] = "ip4-lookup"},
};
SL_NODE_REGISTER(ie_node)

RTE_INIT(ie_errors)
{
	sl_trace_format_register("icmp4-error", sl_ip4_trace_fmt);
	ie_err = sl_error_register("icmp4-error", ie_reasons, IE_NB_ERR);
}
