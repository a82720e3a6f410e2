/* SPDX-License-Identifier: BSD-3-Clause */
/* icmp6-error: turns the offending packet into an ICMPv6 error (RFC 4443) sent back to its
 * source: destination unreachable, packet too big with the egress MTU, time exceeded,
 * parameter problem with its pointer; never about an error or to a group (2.4 e), as much
 * of the packet as fits in the minimum MTU, rate-limited with IPv4's token bucket (2.4 f). */
#include "../interface/iface.h"
#include "ip6.h"
#include "../runtime/trace.h"
#include <rte_cycles.h>

#define ICMPE_ERRORS(X)                                                                   \
	X(IE_SENT_UNREACH, "destination unreachable sent")                                \
	X(IE_SENT_BIG, "packet too big sent")                                             \
	X(IE_SENT_TIME, "time exceeded sent")                                             \
	X(IE_SENT_PARAM, "parameter problem sent")                                        \
	X(IE_ERR_RULES, "no ICMPv6 error allowed for this packet (RFC 4443 2.4)")         \
	X(IE_ERR_RATE, "ICMPv6 error rate-limited")                                       \
	X(IE_ERR_NOSRC, "no IPv6 address on the receiving interface")
enum { ICMPE_ERRORS(SL_ERR_ENUM) IE_NB_ERR };
static const char *const ie_reasons[] = {ICMPE_ERRORS(SL_ERR_STR)};
static uint16_t ie_err;

enum { IE_NEXT_DROP, IE_NEXT_LOOKUP, IE_NEXT_PUNT, IE_NB_NEXT };

/* An ICMPv6 error or redirect (2.4 e.1), as far as the data shows. */
static inline bool is_icmp_error(const uint8_t *p, uint32_t len)
{
	struct sl_ip6_walk wk;
	if (sl_ip6_walk(p, len, &wk) != SL_IP6W_OK)
		return false;
	return wk.proto == IPPROTO_ICMPV6 && wk.off < len &&
	       (p[wk.off] < 128 || p[wk.off] == SL_ICMP6_REDIRECT);
}

static inline uint16_t ie_one(struct sl_worker *w, struct rte_mbuf *m, uint64_t now)
{
	uint16_t e;
	struct sl_meta2 *mt = sl_meta2(m);
	uint8_t type = (uint8_t)(mt->icmp >> 8), code = (uint8_t)mt->icmp;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	/* 2.4 e: not to a group (but packet too big and an unknown option's parameter
	 * problem), not from an address that names no single node, never about an error */
	bool group_ok = type == SL_ICMP6_TOO_BIG || (type == SL_ICMP6_PARAM && code == 2);
	if (m->nb_segs != 1 || (sl_ip6_is_mcast(ip->dst_addr) && !group_ok) ||
	    sl_ip6_is_zero(ip->src_addr) || sl_ip6_is_mcast(ip->src_addr) ||
	    sl_ip6_is_loopback(ip->src_addr) || is_icmp_error(p, m->data_len)) {
		e = IE_ERR_RULES;
		goto drop;
	}
	const struct sl_iface *f = &sl_ifaces[m->port];
	const uint8_t *me = sl_ip6_src_of(f, ip->src_addr);
	if (sl_ip6_is_zero(me)) {
		e = IE_ERR_NOSRC;
		goto drop;
	}
	if (!sl_icmp_allow(w, now)) {
		e = IE_ERR_RATE;
		goto drop;
	}
	/* 2.4 c: as much of the packet as fits in the minimum MTU */
	uint32_t keep = RTE_MIN(len, SL_IP6_MIN_MTU - 48u);
	uint8_t dst[16], src[16];
	memcpy(dst, ip->src_addr, 16);
	memcpy(src, me, 16);
	rte_pktmbuf_trim(m, (uint16_t)(len - keep));
	uint8_t *np = (uint8_t *)rte_pktmbuf_prepend(m, 48);
	if (!np) {
		e = IE_ERR_RULES;
		goto drop;
	}
	struct rte_ipv6_hdr *nip = (struct rte_ipv6_hdr *)np;
	nip->vtc_flow = RTE_BE32(0x60000000);
	nip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + keep));
	nip->proto = IPPROTO_ICMPV6;
	nip->hop_limits = 64;
	memcpy(nip->src_addr, src, 16);
	memcpy(nip->dst_addr, dst, 16);
	uint8_t *ic = np + 40;
	ic[0] = type;
	ic[1] = code;
	ic[2] = ic[3] = 0;
	/* the MTU (packet too big) or the pointer (parameter problem), else unused */
	uint32_t word = type == SL_ICMP6_TOO_BIG || type == SL_ICMP6_PARAM ? mt->mtu : 0;
	word = rte_cpu_to_be_32(word);
	memcpy(ic + 4, &word, 4);
	uint16_t ck = (uint16_t)~sl_ip6_l4_sum(nip, ic, 8 + keep, IPPROTO_ICMPV6);
	memcpy(ic + 2, &ck, 2);
	w->errors[ie_err + (type == SL_ICMP6_UNREACH	    ? IE_SENT_UNREACH
			    : type == SL_ICMP6_TOO_BIG	    ? IE_SENT_BIG
			    : type == SL_ICMP6_TIME_EXCEEDED ? IE_SENT_TIME
							     : IE_SENT_PARAM)]++;
	return sl_ip6_punt_ll(m, nip) ? IE_NEXT_PUNT : IE_NEXT_LOOKUP;
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
	.name = "icmp6-error",
	.process = ie_process,
	.init = sl_node_init,
	.nb_edges = IE_NB_NEXT,
	.next_nodes = {[IE_NEXT_DROP] = "error-drop", [IE_NEXT_LOOKUP] = "ip6-lookup",
		       [IE_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(ie_node)

RTE_INIT(ie6_register)
{
	sl_trace_format_register("icmp6-error", sl_ip6_trace_fmt);
	ie_err = sl_error_register("icmp6-error", ie_reasons, IE_NB_ERR);
}
