/* SPDX-License-Identifier: BSD-3-Clause */
/* ip6-lookup: longest-prefix match of the vector in one rte_fib6 bulk call per FIB table,
 * then dispatch by the adjacency's type (sl_adj6_types); a load-balance (ECMP/UCMP) takes
 * the bucket of the packet's flow hash. */
#include "ip6.h"
#include "../interface/iface.h"
#include "../runtime/trace.h"
#include <stdio.h>
#include <string.h>

#define LOOKUP_ERRORS(X) X(LK_NO_ROUTE, "no route (ICMPv6 unreachable follows)")
enum { LOOKUP_ERRORS(SL_ERR_ENUM) LK_NB_ERR };
static const char *const lk_reasons[] = {LOOKUP_ERRORS(SL_ERR_STR)};
static uint16_t lk_err;

enum { LK_NEXT_ICMP, LK_NB_NEXT };

static uint16_t type_next[SL_ADJ_NB_TYPES];
static struct sl_dispatch sl_adj6_types = {.from = "ip6-lookup", .next = type_next,
					   .nkeys = SL_ADJ_NB_TYPES,
					   .key_names = sl_adj_type_names};

/* One bulk lookup per run of packets in one table; a table without IPv6 gives the drop
 * adjacency. */
static void lookup_tables(void **objs, uint8_t (*ips)[16], uint64_t *hops, uint16_t n)
{
	uint16_t start = 0;
	while (start < n) {
		uint16_t t, end = sl_fib_run_end(objs, start, n, &t);
		struct rte_fib6 *f = t < SL_FIB_MAX ? __atomic_load_n(&sl_fib6s[t], __ATOMIC_ACQUIRE)
						   : NULL;
		if (likely(f))
			rte_fib6_lookup_bulk(f, ips + start, hops + start, end - start);
		else
			for (uint16_t i = start; i < end; i++)
				hops[i] = SL_ADJ_ID_DROP;
		start = end;
	}
}

static inline void lk_no_route(struct sl_worker *w, struct rte_mbuf *m)
{
	w->errors[lk_err + LK_NO_ROUTE]++;
	sl_meta2(m)->icmp = SL_ICMP6_UNREACH << 8 | SL_ICMP6_UNREACH_NOROUTE;
}

static uint32_t lk_hash(const struct rte_mbuf *m)
{
	return sl_flow_hash6(m, rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *));
}

static uint32_t lk_hash_sw(const struct rte_mbuf *m)
{
	return sl_flow_hash6_sw(rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *));
}

static uint32_t lk_hash_cfg(const struct rte_mbuf *m, uint16_t cfg)
{
	return sl_flow_hash6_cfg(rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *), cfg);
}

static uint32_t lk_hash_fl(const struct rte_mbuf *m, uint16_t cfg __rte_unused)
{
	return sl_flow_hash6_fields(rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *), true);
}

/* The default's fields and the flow label (RFC 6438) have a loop of their own: the generic
 * one tests each field a packet (ECMP over 4 paths about +53 instructions a packet against
 * one path, measured before this loop was added; this loop +13.7). */
static __rte_noinline size_t lk_cfg_run(void **objs, const uint64_t *hops, uint16_t *nexts,
					size_t j, const uint32_t *bucket, uint16_t nx, uint16_t cfg)
{
	if (cfg == (SL_FH_DEFAULT6 | SL_FH_FLOWLABEL))
		return sl_lk_cfg_run(objs, hops, nexts, j, bucket, nx, cfg, lk_hash_fl);
	return sl_lk_cfg_run(objs, hops, nexts, j, bucket, nx, cfg, lk_hash_cfg);
}

/* As sl_ip4_lookup_one (rte_fib6's trie zeroes a tbl8 group it recycles, in 22.11 at once):
 * packet i's destination looked up once more in its table. */
static uint32_t lk_relook(struct rte_mbuf *m, const void *ips, uint16_t i)
{
	uint16_t t = sl_pkt_fib(m);
	struct rte_fib6 *f = t < SL_FIB_MAX ? __atomic_load_n(&sl_fib6s[t], __ATOMIC_ACQUIRE) : NULL;
	uint64_t hop = SL_ADJ_ID_DROP;
	if (f)
		rte_fib6_lookup_bulk(f, (uint8_t (*)[16])((const uint8_t (*)[16])ips + i), &hop, 1);
	return (uint32_t)hop;
}

/* The vector from packet i on, once a route with several paths or a drop is in it: out of
 * line, so that the ECMP pass (its hash inlined here) leaves lk_process's loop as it was. */
static __rte_noinline uint16_t lk_paths(struct sl_worker *w, void **objs, uint8_t (*ips)[16],
					uint64_t *hops, uint16_t *nexts, uint16_t i, uint16_t n)
{
	return sl_lk_paths(w, objs, ips, hops, nexts, i, n, type_next, lk_hash, lk_hash_sw, sl_fh6,
			   SL_FH_DEFAULT6, lk_hash_cfg, lk_cfg_run, lk_relook, lk_no_route);
}

static __rte_always_inline void lk_dst(const struct rte_mbuf *m, uint16_t i, void *ips)
{
	memcpy(((uint8_t (*)[16])ips)[i], rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *)->dst_addr, 16);
}

static uint16_t lk_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	uint8_t ips[n][16];
	uint64_t hops[n + 1]; /* hops[n]: sl_lk_paths's mark */
	/* one table (the usual case) costs nothing per packet; with several, a vector from one
	 * port is still one lookup */
	int t = sl_gather_dsts(objs, n, __atomic_load_n(&sl_fib_multi, __ATOMIC_RELAXED), lk_dst, ips);
	struct rte_fib6 *f = t >= 0 && t < SL_FIB_MAX ? __atomic_load_n(&sl_fib6s[t], __ATOMIC_ACQUIRE) : NULL;
	if (likely(f))
		rte_fib6_lookup_bulk(f, ips, hops, n);
	else
		lookup_tables(objs, ips, hops, n);
	uint16_t one;
	uint16_t i = sl_lk_runs(w, objs, hops, nexts, n, type_next, lk_no_route, &one);
	if (unlikely(i < n)) /* a route with several paths, or a drop */
		one = sl_lk_join(nexts, i, n, one, lk_paths(w, objs, ips, hops, nexts, i, n));
	sl_lk_enqueue(g, node, objs, nexts, n, one);
	return n;
}

static struct rte_node_register lk_node = {
	.name = "ip6-lookup",
	.process = lk_process,
	.init = sl_node_init,
	.nb_edges = LK_NB_NEXT,
	.next_nodes = {[LK_NEXT_ICMP] = "icmp6-error"},
};
SL_NODE_REGISTER(lk_node)

static void lk_trace_fmt(char *buf, size_t len, const struct sl_trace_rec *r)
{
	sl_ip6_trace_fmt(buf, len, r);
	if (r->adj >= SL_ADJ_MAX)
		return;
	const struct sl_adj *a = sl_adj_get(r->adj);
	size_t k = strlen(buf);
	k += (size_t)snprintf(buf + k, len - k, "; table %u adj %u %s",
			      sl_fib_ids[sl_ifaces[r->rx_if].fib], r->adj, sl_adj_type_names[a->type]);
	if (k < len && a->type >= SL_ADJ_GLEAN)
		snprintf(buf + k, len - k, " %s", sl_ifaces[a->port].name);
}

RTE_INIT(lk6_register)
{
	sl_trace_format_register("ip6-lookup", lk_trace_fmt);
	lk_err = sl_error_register("ip6-lookup", lk_reasons, LK_NB_ERR);
	sl_dispatch_register(&sl_adj6_types, SL_ADJ_LOCAL, "ip6-local");
	sl_dispatch_register(&sl_adj6_types, SL_ADJ_BLACKHOLE, "ip-blackhole");
	sl_dispatch_register(&sl_adj6_types, SL_ADJ_GLEAN, "ip6-glean");
	sl_dispatch_register(&sl_adj6_types, SL_ADJ_INCOMPLETE, "ip6-glean");
	sl_dispatch_register(&sl_adj6_types, SL_ADJ_FORWARD, "ip6-rewrite");
}
