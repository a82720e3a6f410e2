/* SPDX-License-Identifier: BSD-3-Clause */
/* Unicast reverse-path forwarding (RFC 3704), VPP's ip4-source-check-via-rx (strict: the
 * route back to the source leaves by the interface the packet came in on) and
 * ip4-source-check-via-any (loose: there is a route back at all), as two features of the
 * ip4-unicast arc: `set interface ip source-check IFACE [loose] [del]`, or `set interface
 * feature IFACE ip4-source-check-via-rx arc ip4-unicast`. */
#include "../interface/iface.h"
#include "../runtime/feature.h"
#include "../runtime/trace.h"
#include "../cli/cli.h"
#include "ip4.h"
#include <rte_ip.h>
#include <string.h>

#define SC_ERRORS(X)                                                                   \
	X(SC_ERR_STRICT, "source not reachable via the receiving interface (uRPF strict)") \
	X(SC_ERR_LOOSE, "no route to the source (uRPF loose)")
enum { SC_ERRORS(SL_ERR_ENUM) SC_NB_ERR };
static const char *const sc_reasons[] = {SC_ERRORS(SL_ERR_STR)};
static uint16_t sc_err;
static uint8_t feat_rx, feat_any;

enum { SC_NEXT_DROP, SC_NB_NEXT }; /* then the arc's edges (sl_feature_next) */

static inline uint16_t sc_vector(struct rte_graph *g, struct rte_node *node, void **objs,
				 uint16_t n, bool strict)
{
	uint16_t nexts[n ? n : 1];
	uint32_t ips[n ? n : 1];
	uint64_t hops[n ? n : 1];
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod((struct rte_mbuf *)objs[i],
								  const struct rte_ipv4_hdr *);
		ips[i] = rte_be_to_cpu_32(ip->src_addr);
	}
	sl_ip4_lookup_tables(objs, ips, hops, n);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint32_t id = (uint32_t)hops[i];
		if (unlikely(id == SL_ADJ_ID_DROP))
			id = sl_ip4_lookup_one(m, ips[i]);
		const struct sl_adj *a = sl_adj_get(id);
		bool ok = strict ? a->type >= SL_ADJ_GLEAN && a->port == m->port
				 : a->type != SL_ADJ_DROP && a->type != SL_ADJ_BLACKHOLE;
		if (likely(ok)) {
			nexts[i] = sl_feature_next(SL_ARC_IP4_UNICAST, strict ? feat_rx : feat_any,
						   m->port, 0);
		} else {
			sl_set_error(m, sc_err + (strict ? SC_ERR_STRICT : SC_ERR_LOOSE));
			nexts[i] = SC_NEXT_DROP;
		}
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static uint16_t sc_rx_process(struct rte_graph *g, struct rte_node *node, void **objs,
			      uint16_t n)
{
	return sc_vector(g, node, objs, n, true);
}

static uint16_t sc_any_process(struct rte_graph *g, struct rte_node *node, void **objs,
			       uint16_t n)
{
	return sc_vector(g, node, objs, n, false);
}

static struct rte_node_register sc_rx_node = {
	.name = "ip4-source-check-via-rx",
	.process = sc_rx_process,
	.init = sl_node_init,
	.nb_edges = SC_NB_NEXT,
	.next_nodes = {[SC_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(sc_rx_node)

static struct rte_node_register sc_any_node = {
	.name = "ip4-source-check-via-any",
	.process = sc_any_process,
	.init = sl_node_init,
	.nb_edges = SC_NB_NEXT,
	.next_nodes = {[SC_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(sc_any_node)

/* set interface ip source-check IFACE [loose] [del] (VPP's grammar) */
static int cmd_source_check(struct sl_out *o, int argc, char **argv)
{
	bool loose = false, del = false;
	if (argc < 1)
		return sl_out_error(o, "usage: set interface ip source-check IFACE [loose] [del]");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "loose"))
			loose = true;
		else if (!strcmp(argv[i], "del"))
			del = true;
		else
			return sl_out_error(o, "usage: set interface ip source-check IFACE [loose] [del]");
	}
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	char why[128];
	if (sl_feature_set(f->port, SL_ARC_IP4_UNICAST,
			   loose ? "ip4-source-check-via-any" : "ip4-source-check-via-rx", !del, why,
			   sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}
SL_CLI_COMMAND(source_check, .path = "set interface ip source-check",
	       .usage = "IFACE [loose] [del]",
	       .help = "unicast RPF: drop packets whose source is not routed back via IFACE "
		       "(loose: not routed at all)",
	       .fn = cmd_source_check)

RTE_INIT(sc_register)
{
	sc_err = sl_error_register("ip4-source-check", sc_reasons, SC_NB_ERR);
	feat_rx = sl_feature_register(SL_ARC_IP4_UNICAST, "ip4-source-check-via-rx",
				      "ip4-source-check-via-rx");
	feat_any = sl_feature_register(SL_ARC_IP4_UNICAST, "ip4-source-check-via-any",
				       "ip4-source-check-via-any");
	sl_trace_format_register("ip4-source-check-via-rx", sl_ip4_trace_fmt);
	sl_trace_format_register("ip4-source-check-via-any", sl_ip4_trace_fmt);
}
