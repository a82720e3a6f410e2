/* SPDX-License-Identifier: BSD-3-Clause */
/* ip6-input: the RFC 8200 header checks, each failure a named error; extension header
 * chains walked to the upper layer, hop-by-hop options processed (RFC 8200 4.2). */
#include "../interface/iface.h"
#include "ip6.h"
#include "../ethernet/ethernet.h"
#include "../runtime/trace.h"
#include "../runtime/feature.h"
#include <stdio.h>

#define IP6IN_ERRORS(X)                                                                   \
	X(IN_ERR_SHORT, "packet shorter than an IPv6 header")                             \
	X(IN_ERR_VERSION, "IP version is not 6")                                          \
	X(IN_ERR_LEN, "payload length longer than the frame")                             \
	X(IN_ERR_SRC, "multicast source address")                                         \
	X(IN_ERR_LOOPBACK, "loopback source or destination (RFC 4291 2.5.3)")             \
	X(IN_ERR_TRUNC, "extension header truncated")                                     \
	X(IN_ERR_LONG, "more than 8 extension headers")                                   \
	X(IN_ERR_HBH, "hop-by-hop header not first (parameter problem follows)")          \
	X(IN_ERR_ALERT, "hop-by-hop router alert not handled (RSVP, ..., or MLD's not to a group)") \
	X(IN_ERR_OPT, "hop-by-hop option truncated")                                      \
	X(IN_ERR_OPT_SKIP, "unknown hop-by-hop option: discard (action 01)")              \
	X(IN_ERR_OPT_PP, "unknown hop-by-hop option (parameter problem follows)")
enum { IP6IN_ERRORS(SL_ERR_ENUM) IN_NB_ERR };
static const char *const in_reasons[] = {IP6IN_ERRORS(SL_ERR_STR)};
static uint16_t in_err;

enum { IN_NEXT_DROP, IN_NEXT_LOOKUP, IN_NEXT_ICMP, IN_NB_NEXT };
static uint16_t in_arc[SL_ARC_MAX_FEATS]; /* the ip6-unicast arc: edge to feature f */

static inline uint16_t in_drop(struct rte_mbuf *m, uint16_t e)
{
	sl_set_error(m, in_err + e);
	return IN_NEXT_DROP;
}

/* A parameter problem (RFC 4443 3.4) about the byte at ptr, counted as error e. */
static inline uint16_t in_param(struct sl_worker *w, struct rte_mbuf *m, uint16_t e,
				uint8_t code, uint16_t ptr)
{
	w->errors[in_err + e]++;
	sl_meta2(m)->icmp = SL_ICMP6_PARAM << 8 | code;
	sl_meta2(m)->mtu = ptr;
	return IN_NEXT_ICMP;
}

/* The hop-by-hop options (RFC 8200 4.2) of the header at off, hl bytes long. */
static uint16_t in_hbh(struct sl_worker *w, struct rte_mbuf *m, const uint8_t *p, uint32_t off,
		       uint32_t hl)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	for (uint32_t o = off + 2; o < off + hl;) {
		uint8_t t = p[o];
		if (t == 0) { /* Pad1 */
			o++;
			continue;
		}
		if (o + 2 > off + hl || o + 2u + p[o + 1] > off + hl)
			return in_drop(m, IN_ERR_OPT);
		/* router alert (RFC 2711): MLD's (value 0) to a group goes on to ip6-local,
		 * which hands queries to the main lcore; others (RSVP, ...) we do not handle */
		if (t == 5 && !(p[o + 1] == 2 && p[o + 2] == 0 && p[o + 3] == 0 &&
				sl_ip6_is_mcast(ip->dst_addr)))
			return in_drop(m, IN_ERR_ALERT);
		if (t != 1) { /* not PadN: the two high bits say what to do with it */
			switch (t >> 6) {
			case 1:
				return in_drop(m, IN_ERR_OPT_SKIP);
			case 2:
				return in_param(w, m, IN_ERR_OPT_PP, 2, (uint16_t)o);
			case 3:
				if (sl_ip6_is_mcast(ip->dst_addr))
					return in_drop(m, IN_ERR_OPT_SKIP);
				return in_param(w, m, IN_ERR_OPT_PP, 2, (uint16_t)o);
			}
		}
		o += 2u + p[o + 1];
	}
	return IN_NEXT_LOOKUP;
}

static uint16_t in_one(struct sl_worker *w, struct rte_mbuf *m)
{
	if (unlikely(m->data_len < sizeof(struct rte_ipv6_hdr)))
		return in_drop(m, IN_ERR_SHORT);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	if ((p[0] >> 4) != 6)
		return in_drop(m, IN_ERR_VERSION);
	uint32_t tl = 40u + rte_be_to_cpu_16(ip->payload_len), plen = rte_pktmbuf_pkt_len(m);
	if (tl > plen)
		return in_drop(m, IN_ERR_LEN);
	if (tl < plen)
		rte_pktmbuf_trim(m, (uint16_t)(plen - tl)); /* Ethernet padding */
	if (sl_ip6_is_mcast(ip->src_addr))
		return in_drop(m, IN_ERR_SRC);
	if (sl_ip6_is_loopback(ip->src_addr) || sl_ip6_is_loopback(ip->dst_addr))
		return in_drop(m, IN_ERR_LOOPBACK);
	if (!sl_ip6_is_ext(ip->proto))
		return IN_NEXT_LOOKUP;
	struct sl_ip6_walk wk;
	switch (sl_ip6_walk(p, RTE_MIN(m->data_len, tl), &wk)) {
	case SL_IP6W_TRUNC:
		return in_drop(m, IN_ERR_TRUNC);
	case SL_IP6W_LONG:
		return in_drop(m, IN_ERR_LONG);
	case SL_IP6W_HBH_LATE:
		return in_param(w, m, IN_ERR_HBH, 1, wk.err_ptr);
	case SL_IP6W_OK:
		break;
	}
	if (wk.hbh_off)
		return in_hbh(w, m, p, 40, (p[41] + 1u) * 8);
	return IN_NEXT_LOOKUP;
}

/* The vector's walk; with arc, each packet for ip6-lookup takes its interface's first
 * feature of the ip6-unicast arc instead (as ip4-input's in_vector). */
static __rte_always_inline uint16_t in_vector(struct rte_graph *g, struct rte_node *node,
					      void **objs, uint16_t n, bool arc)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	struct sl_feature_memo fm = {.ifx = UINT32_MAX};
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		/* fast path: version 6, payload length equal to the frame's, a unicast source and
		 * no extension header; anything else (and every error) in in_one */
		const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
		uint16_t nx;
		if (likely(m->data_len >= sizeof(*ip) && (ip->vtc_flow & RTE_BE32(0xf0000000)) ==
								 RTE_BE32(0x60000000) &&
			   40u + rte_be_to_cpu_16(ip->payload_len) == m->pkt_len &&
			   !sl_ip6_is_mcast(ip->src_addr) && !sl_ip6_is_ext(ip->proto) &&
			   !sl_ip6_is_loopback(ip->dst_addr) && !sl_ip6_is_loopback(ip->src_addr)))
			nx = IN_NEXT_LOOKUP;
		else
			nx = in_one(w, m);
		if (arc && nx == IN_NEXT_LOOKUP)
			nx = sl_feature_first_memo(&fm, SL_ARC_IP6_UNICAST, m->port, in_arc,
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
	/* the ip6-unicast arc: one load a vector while no interface has a feature on it */
	if (unlikely(__atomic_load_n(&sl_arc_users[SL_ARC_IP6_UNICAST], __ATOMIC_RELAXED)))
		return in_vector_arc(g, node, objs, n);
	return in_vector(g, node, objs, n, false);
}

static struct rte_node_register in_node = {
	.name = "ip6-input",
	.process = in_process,
	.init = sl_node_init,
	.nb_edges = IN_NB_NEXT,
	.next_nodes = {[IN_NEXT_DROP] = "error-drop", [IN_NEXT_LOOKUP] = "ip6-lookup",
		       [IN_NEXT_ICMP] = "icmp6-error"},
};
SL_NODE_REGISTER(in_node)

/* The trace of a node that finds an IPv6 header at the packet's start. */
void sl_ip6_trace_fmt(char *buf, size_t len, const struct sl_trace_rec *r)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)r->data;
	if (r->ndata < sizeof(*ip)) {
		snprintf(buf, len, "%u bytes", r->len);
		return;
	}
	char s[46], d[46];
	sl_fmt_ip6(s, ip->src_addr);
	sl_fmt_ip6(d, ip->dst_addr);
	snprintf(buf, len, "%s > %s next-header %u hop-limit %u payload %u", s, d, ip->proto,
		 ip->hop_limits, rte_be_to_cpu_16(ip->payload_len));
}

RTE_INIT(in6_register)
{
	sl_trace_format_register("ip6-input", sl_ip6_trace_fmt);
	in_err = sl_error_register("ip6-input", in_reasons, IN_NB_ERR);
	sl_eth_type_register(RTE_ETHER_TYPE_IPV6, "ip6-input");
	sl_feature_start(SL_ARC_IP6_UNICAST, "ip6-input", in_arc);
}
