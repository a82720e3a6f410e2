/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_graph: pushes N 64-byte packets to 48.0.0.0/8 through the real graph on ring ports
 * (no NIC, no second process) and prints clocks per packet per node. Under
 * `valgrind --tool=callgrind` the instruction count for N packets minus that for 0 packets,
 * divided by N, is the path's instructions per packet, independent of the machine's noise.
 * usage: bench_graph [PACKETS] [ROUTES] */
#include "../common/ring_env.h"
#include "../../src/ip4/ip4.h"
#include "../../src/sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_ip.h>

extern struct rte_mempool *sl_pool;
#define VEC 256

static int print_node(bool first, bool last, void *cookie,
		      const struct rte_graph_cluster_node_stats *st)
{
	(void)first;
	(void)last;
	uint64_t *tot = cookie;
	if (!st->objs)
		return 0;
	printf("%-16s %12" PRIu64 " %10.1f\n", st->name, st->objs,
	       (double)st->cycles / (double)st->objs);
	tot[0] += st->cycles;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	unsigned routes = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	if (routes > 1000) {
		env_max_routes = 2 * routes;
		env_mem_mb = "2048";
	}
	if (env_init(argv[0], "sl-bench-graph"))
		return 1;
	char line[128];
	for (unsigned i = 1; i < routes; i++) {
		snprintf(line, sizeof(line), "ip route add %u.%u.%u.0/24 via 10.10.2.1",
			 16 + (i >> 16), (i >> 8) & 255, i & 255);
		if (env_cli(line, false))
			return 1;
	}
	/* the template frame */
	uint8_t tpl[60] = {0x02, 0, 0, 0, 0, 0x10, 0x02, 0, 0, 0, 0, 0x99, 0x08, 0x00};
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(tpl + 14);
	*ip = (struct rte_ipv4_hdr){.version_ihl = 0x45, .total_length = RTE_BE16(46),
				    .time_to_live = 64, .next_proto_id = 17,
				    .src_addr = RTE_BE32(0x0a0a0102)};
	uint32_t dsts[4096];
	srand(1);
	for (int i = 0; i < 4096; i++)
		dsts[i] = routes > 1 ? (16u << 24) + ((uint32_t)rand() % (routes << 8))
				     : 0x30000000u + ((uint32_t)rand() & 0xffffff);
	struct rte_mbuf *in[VEC], *out[1024];
	uint64_t sent = 0, got = 0, t_fill = 0, t0 = rte_rdtsc();
	while (sent < n) {
		unsigned k = (unsigned)RTE_MIN((uint64_t)VEC, n - sent);
		uint64_t a = rte_rdtsc();
		if (rte_pktmbuf_alloc_bulk(sl_pool, in, k))
			return 1;
		for (unsigned i = 0; i < k; i++) {
			uint8_t *p = (uint8_t *)rte_pktmbuf_append(in[i], 60);
			memcpy(p, tpl, 60);
			struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)(p + 14);
			h->dst_addr = rte_cpu_to_be_32(dsts[(sent + i) & 4095]);
			h->hdr_checksum = rte_ipv4_cksum(h);
			in[i]->port = 0;
		}
		t_fill += rte_rdtsc() - a;
		rte_ring_enqueue_bulk(env_rx[0], (void **)in, k, NULL);
		sent += k;
		env_walk(1);
		unsigned m;
		while ((m = rte_ring_dequeue_burst(env_tx[1], (void **)out, 1024, NULL))) {
			got += m;
			rte_pktmbuf_free_bulk(out, m);
		}
	}
	uint64_t total = rte_rdtsc() - t0;
	printf("packets %" PRIu64 " forwarded %" PRIu64 " routes %u\n", sent, got, routes);
	printf("%-16s %12s %10s\n", "node", "packets", "clk/pkt");
	const char *pat[] = {"worker0"};
	uint64_t tot = 0;
	struct rte_graph_cluster_stats_param sp = {.socket_id = SOCKET_ID_ANY, .fn = print_node,
						   .cookie = &tot, .nb_graph_patterns = 1,
						   .graph_patterns = pat};
	struct rte_graph_cluster_stats *s = rte_graph_cluster_stats_create(&sp);
	rte_graph_cluster_stats_get(s, false);
	rte_graph_cluster_stats_destroy(s);
	if (sent) {
		printf("graph nodes total %.1f clk/pkt; packet building (like pg-input) %.1f; "
		       "whole loop %.1f\n", (double)tot / (double)sent, (double)t_fill / (double)sent,
		       (double)total / (double)sent);
	}
	env_fini();
	return got == sent ? 0 : 1;
}
