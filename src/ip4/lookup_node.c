/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-lookup: longest-prefix match of the whole vector in one bulk call (per FIB table),
 * then dispatch by the adjacency's type to the node registered for it
 * (sl_adj_type_register). */
#include "ip4.h"
#include "../interface/iface.h"
#include "../runtime/trace.h"
#include <stdio.h>
#include <string.h>
#include <rte_ip.h>

#define LOOKUP_ERRORS(X) X(LK_NO_ROUTE, "no route (ICMP unreachable follows)")
enum { LOOKUP_ERRORS(SL_ERR_ENUM) LK_NB_ERR };
static const char *const lk_reasons[] = {LOOKUP_ERRORS(SL_ERR_STR)};
static uint16_t lk_err;

/* edge 0: no route (icmp4-error), for the drop adjacency and any type with no node */
enum { LK_NEXT_ICMP, LK_NB_NEXT };

static uint16_t type_next[SL_ADJ_NB_TYPES];
const char *const sl_adj_type_names[SL_ADJ_NB_TYPES] = {"drop", "local", "blackhole",
							 "glean", "incomplete", "forward"};
struct sl_dispatch sl_adj_types = {.from = "ip4-lookup", .next = type_next,
				   .nkeys = SL_ADJ_NB_TYPES, .key_names = sl_adj_type_names};

void sl_adj_type_register(enum sl_adj_type t, const char *node_name)
{
	sl_dispatch_register(&sl_adj_types, t, node_name);
}

/* With several tables: one bulk lookup per run of packets in the same table. A table deleted
 * since the packet's interface left it (sl_ip4_table_del refuses otherwise) finds none: the
 * packet takes the drop adjacency. */
void sl_ip4_lookup_tables(void **objs, uint32_t *ips, uint64_t *hops, uint16_t n)
{
	uint16_t start = 0;
	while (start < n) {
		uint16_t t, end = sl_fib_run_end(objs, start, n, &t);
		struct rte_fib *f = t < SL_FIB_MAX ? __atomic_load_n(&sl_fibs[t], __ATOMIC_ACQUIRE)
						   : NULL;
		if (likely(f))
			rte_fib_lookup_bulk(f, ips + start, hops + start,
					    end - start);
		else
			for (uint16_t i = start; i < end; i++)
				hops[i] = SL_ADJ_ID_DROP;
		start = end;
	}
}

uint32_t sl_ip4_lookup_one(struct rte_mbuf *m, uint32_t ip)
{
	uint16_t t = sl_pkt_fib(m);
	struct rte_fib *f = t < SL_FIB_MAX ? __atomic_load_n(&sl_fibs[t], __ATOMIC_ACQUIRE) : NULL;
	uint64_t hop = SL_ADJ_ID_DROP;
	if (f)
		rte_fib_lookup_bulk(f, &ip, &hop, 1);
	return (uint32_t)hop;
}

static uint32_t lk_relook(struct rte_mbuf *m, const void *ips, uint16_t i)
{
	return sl_ip4_lookup_one(m, ((const uint32_t *)ips)[i]);
}

/* No route: counted, and icmp4-error answers net unreachable. */
static inline void lk_no_route(struct sl_worker *w, struct rte_mbuf *m)
{
	w->errors[lk_err + LK_NO_ROUTE]++;
	sl_meta2(m)->icmp = SL_ICMP_UNREACH << 8 | 0;
}

static uint32_t lk_hash(const struct rte_mbuf *m)
{
	return sl_flow_hash4(m, rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *));
}

static uint32_t lk_hash_sw(const struct rte_mbuf *m)
{
	return sl_flow_hash4_sw(rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *));
}

static uint32_t lk_hash_cfg(const struct rte_mbuf *m, uint16_t cfg)
{
	return sl_flow_hash4_cfg(rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *), cfg);
}

static __rte_noinline size_t lk_cfg_run(void **objs, const uint64_t *hops, uint16_t *nexts,
					size_t j, const uint32_t *bucket, uint16_t nx, uint16_t cfg)
{
	return sl_lk_cfg_run(objs, hops, nexts, j, bucket, nx, cfg, lk_hash_cfg);
}

/* The vector from packet i on, once a route with several paths or a drop is in it: out of
 * line, so that the ECMP pass (its hash inlined here) leaves lk_process's loop as it was. */
static __rte_noinline uint16_t lk_paths(struct sl_worker *w, void **objs, const uint32_t *ips,
					uint64_t *hops, uint16_t *nexts, uint16_t i, uint16_t n)
{
	return sl_lk_paths(w, objs, ips, hops, nexts, i, n, type_next, lk_hash, lk_hash_sw, sl_fh4,
			   SL_FH_DEFAULT4, lk_hash_cfg, lk_cfg_run, lk_relook, lk_no_route);
}

static __rte_always_inline void lk_dst(const struct rte_mbuf *m, uint16_t i, void *ips)
{
	((uint32_t *)ips)[i] = rte_be_to_cpu_32(rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *)->dst_addr);
}

static uint16_t lk_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	uint32_t ips[n];
	uint64_t hops[n + 1]; /* hops[n]: sl_lk_paths's mark */
	/* one table (the usual case) costs the arc nothing per packet; with several, a vector
	 * from one port is still one lookup */
	int t = sl_gather_dsts(objs, n, __atomic_load_n(&sl_fib_multi, __ATOMIC_RELAXED), lk_dst, ips);
	struct rte_fib *f = t >= 0 && t < SL_FIB_MAX ? __atomic_load_n(&sl_fibs[t], __ATOMIC_ACQUIRE) : NULL;
	if (likely(f))
		rte_fib_lookup_bulk(f, ips, hops, n);
	else
		sl_ip4_lookup_tables(objs, ips, hops, n);
	uint16_t one;
	uint16_t i = sl_lk_runs(w, objs, hops, nexts, n, type_next, lk_no_route, &one);
	if (unlikely(i < n)) /* a route with several paths, or a drop */
		one = sl_lk_join(nexts, i, n, one, lk_paths(w, objs, ips, hops, nexts, i, n));
	sl_lk_enqueue(g, node, objs, nexts, n, one);
	return n;
}

static struct rte_node_register lk_node = {
	.name = "ip4-lookup",
	.process = lk_process,
	.init = sl_node_init,
	.nb_edges = LK_NB_NEXT,
	.next_nodes = {[LK_NEXT_ICMP] = "icmp4-error"},
};
SL_NODE_REGISTER(lk_node)

/* The header, then the adjacency: id, type, next hop, interface. */
static void lk_trace_fmt(char *buf, size_t len, const struct sl_trace_rec *r)
{
	sl_ip4_trace_fmt(buf, len, r);
	if (r->adj >= SL_ADJ_MAX)
		return;
	const struct sl_adj *a = sl_adj_get(r->adj); /* as it is now */
	size_t k = strlen(buf);
	k += (size_t)snprintf(buf + k, len - k, "; table %u adj %u %s", sl_fib_ids[sl_ifaces[r->rx_if].fib],
			      r->adj, sl_adj_type_names[a->type]);
	if (k < len && (a->type == SL_ADJ_FORWARD || a->type == SL_ADJ_INCOMPLETE))
		snprintf(buf + k, len - k, " via %u.%u.%u.%u %s", a->nh >> 24, (a->nh >> 16) & 255,
			 (a->nh >> 8) & 255, a->nh & 255, sl_ifaces[a->port].name);
}

RTE_INIT(lk_errors)
{
	sl_trace_format_register("ip4-lookup", lk_trace_fmt);
	lk_err = sl_error_register("ip4-lookup", lk_reasons, LK_NB_ERR);
}

/* ---- ip-blackhole: packets to drop routes, both families (ip route add P via drop) ---- */

#define BH_ERRORS(X) X(BH_DROP, "to a drop route (ip route ... via drop)")
enum { BH_ERRORS(SL_ERR_ENUM) BH_NB_ERR };
static const char *const bh_reasons[] = {BH_ERRORS(SL_ERR_STR)};
static uint16_t bh_err;

static inline uint16_t bh_one(struct sl_worker *w, struct rte_mbuf *m)
{
	(void)w;
	sl_set_error(m, bh_err + BH_DROP);
	return 0;
}

SL_NODE_EACH(bh_process, bh_one)

static struct rte_node_register bh_node = {
	.name = "ip-blackhole",
	.process = bh_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {"error-drop"},
};
SL_NODE_REGISTER(bh_node)

RTE_INIT(bh_register)
{
	bh_err = sl_error_register("ip-blackhole", bh_reasons, BH_NB_ERR);
	sl_adj_type_register(SL_ADJ_BLACKHOLE, "ip-blackhole");
}
