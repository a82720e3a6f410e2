/* SPDX-License-Identifier: BSD-3-Clause */
/* Node tests on synthetic mbufs: two ring-backed ports, the real graph and tables, the
 * router set up by CLI; checks exact bytes out, edges taken, counters and buffer leaks.
 * Runs with --no-huge --no-pci. */
#include "../common/check.h"
#include "../common/ring_env.h"
#include "../../src/cli/cli.h"
#include "../../src/interface/iface.h"
#include "../../src/ethernet/ethernet.h"
#include "../../src/ip4/ip4.h"
#include "../../src/runtime/feature.h"
#include "../../src/runtime/runtime.h"
#include "../../src/runtime/eal_exit.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <rte_alarm.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_sched.h>
#include <rte_udp.h>



#define rx env_rx
#define tx env_tx
static const uint8_t mac0[6] = {2, 0, 0, 0, 0, 0x10}, peer[6] = {2, 0, 0, 0, 0, 0x99};
static const uint8_t nh1[6] = {0x42, 1, 10, 10, 2, 1};

static void cli(const char *line)
{
	CHECK(env_cli(line, false) == 0);
}

static struct rte_mbuf *udp_pkt(uint32_t dst, uint8_t ttl, uint16_t id)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, 14 + 20 + 8 + 18);
	memcpy(p, mac0, 6);
	memcpy(p + 6, peer, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + 14);
	*ip = (struct rte_ipv4_hdr){.version_ihl = 0x45, .total_length = RTE_BE16(46),
				    .packet_id = rte_cpu_to_be_16(id), .time_to_live = ttl,
				    .next_proto_id = 17, .src_addr = RTE_BE32(0x0a0a0102),
				    .dst_addr = rte_cpu_to_be_32(dst)};
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	memset(ip + 1, 0xab, 26);
	m->port = 0;
	return m;
}

#define walk env_walk

static unsigned drain(int port, struct rte_mbuf **out, unsigned max)
{
	return rte_ring_dequeue_burst(tx[port], (void **)out, max, NULL);
}

static uint64_t err_count(const char *node, const char *reason)
{
	for (uint16_t e = 0; e < sl_nb_errors; e++)
		if (!strcmp(sl_errors[e].node, node) && !strcmp(sl_errors[e].reason, reason))
			return sl_workers[0].errors[e];
	return ~0ull;
}

/* 300 packets: more than a vector, so the x1 loop, the prefetch and the tail all run, with
 * TTLs chosen so that the incremental checksum crosses its edge cases. */
/* The TTL's checksum update against RFC 1624's eqn. 3 for every checksum, and against a
 * full recomputation over headers of every TTL. */
static void test_cksum_ttl_dec(void)
{
	unsigned bad = 0;
	for (uint32_t hc = 0; hc <= 0xffff; hc++) {
		uint32_t s = (~hc & 0xffff) + 0xfeff;
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		bad += sl_cksum_ttl_dec(rte_cpu_to_be_16((uint16_t)hc)) !=
		       rte_cpu_to_be_16((uint16_t)~s);
	}
	CHECK(bad == 0);
	struct rte_ipv4_hdr ip = {.version_ihl = 0x45, .total_length = RTE_BE16(84),
				  .next_proto_id = IPPROTO_UDP};
	for (uint32_t k = 0; k < 200000; k++) {
		ip.time_to_live = (uint8_t)(2 + k % 254);
		ip.packet_id = rte_cpu_to_be_16((uint16_t)(k * 40503u));
		ip.src_addr = rte_cpu_to_be_32(k * 2654435761u);
		ip.dst_addr = rte_cpu_to_be_32(~k * 97u);
		ip.hdr_checksum = 0;
		ip.hdr_checksum = rte_ipv4_cksum(&ip);
		uint16_t inc = sl_cksum_ttl_dec(ip.hdr_checksum);
		ip.time_to_live--;
		ip.hdr_checksum = 0;
		bad += inc != rte_ipv4_cksum(&ip);
	}
	CHECK(bad == 0);
}

static void test_forward(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	struct rte_mbuf *in[300], *out[512];
	for (int i = 0; i < 300; i++) {
		in[i] = udp_pkt(0x30000000u + (uint32_t)i, (uint8_t)(2 + i % 250), (uint16_t)(i * 257));
		rte_ring_enqueue(rx[0], in[i]);
	}
	/* what the output must be: the same header with TTL - 1 and a fresh checksum */
	walk(4);
	unsigned n = drain(1, out, 512);
	CHECK(n == 300);
	int bad = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = rte_pktmbuf_mtod(out[i], uint8_t *);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + 14);
		uint16_t sent = ip->hdr_checksum;
		uint8_t ttl = ip->time_to_live;
		ip->hdr_checksum = 0;
		bad += memcmp(p, nh1, 6) != 0 || memcmp(p + 6, &sl_ifaces[1].mac, 6) != 0 ||
		       ttl != (uint8_t)(1 + i % 250) || rte_ipv4_cksum(ip) != sent ||
		       out[i]->pkt_len != 60;
	}
	CHECK(bad == 0);
	rte_pktmbuf_free_bulk(out, n);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

static void test_errors_and_icmp(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	uint64_t ck0 = err_count("ip4-input", "bad header checksum");
	uint64_t ttl0 = err_count("icmp4-error", "time exceeded sent");
	uint64_t nr0 = err_count("icmp4-error", "destination unreachable sent");
	struct rte_mbuf *m = udp_pkt(0x30000001, 64, 1);
	rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14)->hdr_checksum ^= 1;
	rte_ring_enqueue(rx[0], m);
	rte_ring_enqueue(rx[0], udp_pkt(0x30000001, 1, 2));   /* TTL 1 */
	rte_ring_enqueue(rx[0], udp_pkt(0x63000001, 64, 3));  /* no route */
	walk(4);
	struct rte_mbuf *out[8];
	unsigned n0 = drain(0, out, 8), n1 = drain(1, out + n0, 8 - n0);
	CHECK(n0 == 2 && n1 == 0);
	for (unsigned i = 0; i < n0; i++) {
		uint8_t *p = rte_pktmbuf_mtod(out[i], uint8_t *);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + 14);
		CHECK(memcmp(p, peer, 6) == 0);
		CHECK(ip->next_proto_id == 1 && ip->dst_addr == RTE_BE32(0x0a0a0102));
		CHECK(ip->src_addr == RTE_BE32(0x0a0a010a));
		CHECK(rte_raw_cksum(ip, 20) == 0xffff);
		CHECK(rte_raw_cksum(ip + 1, out[i]->pkt_len - 34) == 0xffff);
	}
	rte_pktmbuf_free_bulk(out, n0);
	CHECK(err_count("ip4-input", "bad header checksum") == ck0 + 1);
	CHECK(err_count("icmp4-error", "time exceeded sent") == ttl0 + 1);
	CHECK(err_count("icmp4-error", "destination unreachable sent") == nr0 + 1);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* ip4-rewrite reached by packets whose adjacency is no longer complete (the main lcore
 * changed it after ip4-lookup's look): dropped by name whatever their TTL, none sent, no
 * buffer kept; a complete one's packet next to them still goes out. The node's process
 * function is called on a vector of its own (as the graph would), then the graph walked. */
static void test_rewrite_incomplete_adjacency(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	cli("ip route add 51.0.0.0/8 via 10.10.2.77"); /* no neighbour: incomplete */
	uint32_t inc = sl_ip4_fib_lookup(0, 0x33000001), fwd = sl_ip4_fib_lookup(0, 0x30000001);
	CHECK(sl_adj_get(inc)->type != SL_ADJ_FORWARD && sl_adj_get(fwd)->type == SL_ADJ_FORWARD);
	uint64_t e0 = err_count("ip4-rewrite", "adjacency no longer complete");
	struct rte_graph *g = sl_workers[0].graph;
	struct rte_node *node = rte_graph_node_get_by_name(g->name, "ip4-rewrite");
	CHECK(node != NULL);
	void *objs[3];
	uint32_t adj[3] = {inc, inc, fwd};
	uint8_t ttl[3] = {64, 1, 64};
	for (int i = 0; i < 3; i++) {
		struct rte_mbuf *m = udp_pkt(i == 2 ? 0x30000001 : 0x33000001, ttl[i], (uint16_t)i);
		rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN); /* as ethernet-input leaves it */
		sl_meta(m)->adj = adj[i];
		objs[i] = m;
	}
	if (node)
		node->process(g, node, objs, 3);
	walk(4);
	struct rte_mbuf *out[4];
	unsigned n0 = drain(0, out, 4), n1 = drain(1, out + n0, 4 - n0), ip4 = 0, arp = 0;
	for (unsigned i = n0; i < n0 + n1; i++) { /* and the ARP request for 10.10.2.77 */
		const uint8_t *p = rte_pktmbuf_mtod(out[i], const uint8_t *);
		ip4 += p[12] == 8 && p[13] == 0 && memcmp(p, nh1, 6) == 0;
		arp += p[12] == 8 && p[13] == 6;
	}
	CHECK(n0 == 0 && ip4 == 1 && arp == n1 - 1);
	rte_pktmbuf_free_bulk(out, n0 + n1);
	CHECK(err_count("ip4-rewrite", "adjacency no longer complete") == e0 + 2);
	cli("ip route del 51.0.0.0/8");
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* A drop that rte_fib's tbl8 recycling can show for a routed destination is looked up once
 * more (sl_ip4_lookup_one): in the packet's table; a destination with no route stays a drop,
 * and so does one in a table that has no route for it. */
static void test_lookup_one(void)
{
	uint32_t fwd = sl_ip4_fib_lookup(0, 0x30000001);
	CHECK(fwd != SL_ADJ_ID_DROP);
	struct rte_mbuf *m = udp_pkt(0x30000001, 64, 1);
	m->port = 0; /* table 0's interface */
	CHECK(sl_ip4_lookup_one(m, 0x30000001) == fwd);
	CHECK(sl_ip4_lookup_one(m, 0x63000001) == SL_ADJ_ID_DROP);
	cli("ip table add 7");
	m->ol_flags |= sl_flag_fib; /* chosen ahead: table 7, with no routes */
	sl_meta2(m)->fib = (uint16_t)sl_ip4_table_find(7);
	CHECK(sl_ip4_lookup_one(m, 0x30000001) == SL_ADJ_ID_DROP);
	cli("ip table del 7");
	rte_pktmbuf_free(m);
}

/* Route churn on the control side: the adjacency and FIB stay consistent. */
static void test_churn(void)
{
	cli("ip neighbor port1 10.10.2.2 42:01:0a:0a:02:02");
	for (int round = 0; round < 3; round++) {
		cli("ip route add count 3000 49.0.0.128/25 via 10.10.2.2");
		uint32_t hop = sl_ip4_fib_lookup(0, 0x31000081);
		CHECK(sl_adj_get(hop)->type == SL_ADJ_FORWARD && sl_adj_get(hop)->nh == 0x0a0a0202);
		CHECK(sl_ip4_fib_lookup(0, 0x31000001) == SL_ADJ_ID_DROP);
		cli("ip route del count 3000 49.0.0.128/25");
		CHECK(sl_ip4_fib_lookup(0, 0x31000081) == SL_ADJ_ID_DROP);
	}
	struct sl_out o = {0};
	size_t len;
	CHECK(sl_cli_exec(&o, "ip route del 49.0.0.128/25") == -1);
	CHECK(sl_cli_exec(&o, "ip route add 50.0.0.0/8 via 172.16.0.1") == -1);
	char *t = sl_out_finish(&o, &len);
	CHECK(strstr(t, "not found") && strstr(t, "not on a connected subnet"));
	free(t);
}

/* Two graphs on ports with one TX queue each: the queue is shared under a lock, and moving
 * port0's rx queue to worker 1 moves its traffic there. */
static void test_placement_and_shared_tx(void)
{
	CHECK(sl_ifaces[1].nb_txq == 1 && sl_ifaces[1].tx_shared);
	/* port0's two rx queues start on workers 0 and 1 (port + queue, modulo workers): each
	 * worker forwards what its queue received */
	CHECK(sl_ifaces[0].nb_rxq == 2);
	CHECK(sl_workers[0].rxqs->n == 1 && sl_workers[0].rxqs->q[0].port == 0 &&
	      sl_workers[0].rxqs->q[0].queue == 0);
	CHECK(sl_workers[1].rxqs->n == 2 && sl_workers[1].rxqs->q[0].port == 0 &&
	      sl_workers[1].rxqs->q[0].queue == 1);
	struct rte_mbuf *out[64];
	for (int i = 0; i < 30; i++) {
		rte_ring_enqueue(rx[0], udp_pkt(0x30000200u + (uint32_t)i, 64, (uint16_t)i));
		rte_ring_enqueue(env_rx0_q1, udp_pkt(0x30000300u + (uint32_t)i, 64, (uint16_t)i));
	}
	uint64_t w1_before = sl_workers[1].ifc[0].rx_pkts;
	walk(2);
	CHECK(rte_ring_count(rx[0]) == 0 && rte_ring_count(env_rx0_q1) == 30);
	CHECK(drain(1, out, 64) == 30);
	rte_pktmbuf_free_bulk(out, 30);
	env_walk_worker(1, 2);
	CHECK(rte_ring_count(env_rx0_q1) == 0 && sl_workers[1].ifc[0].rx_pkts - w1_before == 30);
	CHECK(drain(1, out, 64) == 30);
	rte_pktmbuf_free_bulk(out, 30);
	/* both queues to worker 1 */
	cli("set interface rx-placement port0 queue 0 worker 1");
	CHECK(sl_workers[0].rxqs->n == 0);
	CHECK(sl_workers[1].rxqs->n == 3);
	for (int i = 0; i < 40; i++)
		rte_ring_enqueue(rx[0], udp_pkt(0x30000100u + (uint32_t)i, 64, (uint16_t)i));
	walk(2); /* worker 0 no longer polls port0 */
	CHECK(rte_ring_count(rx[0]) == 40);
	env_walk_worker(1, 2);
	unsigned n = drain(1, out, 64);
	CHECK(n == 40);
	rte_pktmbuf_free_bulk(out, n);
	struct sl_out o = {0};
	size_t len;
	CHECK(sl_cli_exec(&o, "set interface rx-placement port0 queue 0 worker 2") == -1);
	CHECK(sl_cli_exec(&o, "set interface rx-placement port0 queue 2 worker 0") == -1);
	free(sl_out_finish(&o, &len));
	cli("set interface rx-placement port0 queue 0 worker 0");
}

/* port0 <-> port1 cross-connected. Worker 0 polls port0's first queue alone: its vector
 * moves whole on port-rx's note. Worker 1 polls port0's second queue and port1 in one walk:
 * l2-io gets both ports' frames in one stream and each must leave by its own peer. */
static void test_xconnect_from_port_rx(void)
{
	struct rte_mbuf *out[128];
	cli("set interface l2 xconnect port0 port1");
	cli("set interface l2 xconnect port1 port0");
	for (int i = 0; i < 40; i++)
		rte_ring_enqueue(rx[0], udp_pkt(0x30000200u + (uint32_t)i, 64, (uint16_t)i));
	env_walk_worker(0, 2);
	unsigned n = drain(1, out, 128);
	CHECK(n == 40 && drain(0, out + n, 128 - n) == 0);
	for (unsigned k = 0; k < n; k++)
		CHECK(out[k]->port == 0);
	rte_pktmbuf_free_bulk(out, n);
	for (int i = 0; i < 30; i++) {
		struct rte_mbuf *a = udp_pkt(0x30000300u + (uint32_t)i, 64, (uint16_t)i);
		struct rte_mbuf *b = udp_pkt(0x30000400u + (uint32_t)i, 64, (uint16_t)(1000 + i));
		b->port = 1; /* what a PMD sets (the ring PMD leaves it as it finds it) */
		rte_ring_enqueue(env_rx0_q1, a);
		rte_ring_enqueue(rx[1], b);
	}
	env_walk_worker(1, 1); /* one walk: both queues into l2-io's one stream */
	unsigned n1 = drain(1, out, 128), n0 = drain(0, out + n1, 128 - n1);
	CHECK(n1 == 30 && n0 == 30);
	for (unsigned k = 0; k < n1 + n0; k++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(out[k], struct rte_ipv4_hdr *, 14);
		/* out of port1: port0's frames (ids 0-29), out of port0: port1's (ids 1000-1029) */
		CHECK(rte_be_to_cpu_16(ip->packet_id) == (k < n1 ? k : 1000 + k - n1));
	}
	rte_pktmbuf_free_bulk(out, n1 + n0);
	cli("set interface l3 port0");
	cli("set interface l3 port1");
}

/* ---- per-node edges (grout's pattern): a node's process() on crafted packets, then which
 * next node's stream each packet went to ---- */

/* Runs node `name` of worker 0's graph on n packets; to[i] is the node packet i went to. The
 * packets are then taken out of those streams and freed (those to error-drop counted under
 * their reason first, as error-drop counts them), and the graph's list of pending
 * streams is put back as it was (empty: the graph was walked until idle). */
/* Runs node name over pk[0..n-1]: to[i] is the node packet i went to; with adj, adj[i] its
 * adjacency (sl_meta) as the node left it. The packets are freed. */
static void node_edges_adj(const char *name, struct rte_mbuf **pk, uint16_t n, const char **to,
			   uint32_t *adj)
{
	struct rte_graph *g = sl_workers[0].graph;
	struct rte_node *node = rte_graph_node_get_by_name("worker0", name);
	CHECK(node != NULL);
	if (!node)
		return;
	void *objs[64];
	memcpy(objs, pk, n * sizeof(*pk));
	for (uint16_t i = 0; i < n; i++)
		to[i] = "(nowhere)";
	uint32_t tail = g->tail;
	CHECK(node->process(g, node, objs, n) == n);
	for (uint16_t i = 0; adj && i < n; i++)
		adj[i] = sl_meta(pk[i])->adj;
	for (rte_edge_t e = 0; e < node->nb_edges; e++) {
		struct rte_node *nx = node->nodes[e];
		for (uint16_t k = 0; k < nx->idx; k++)
			for (uint16_t i = 0; i < n; i++)
				if (nx->objs[k] == pk[i])
					to[i] = nx->name;
		/* what error-drop would count: the reason each dropped frame was given */
		if (!strcmp(nx->name, "error-drop"))
			for (uint16_t k = 0; k < nx->idx; k++)
				sl_workers[0].errors[sl_meta2(nx->objs[k])->error]++;
		rte_pktmbuf_free_bulk((struct rte_mbuf **)nx->objs, nx->idx);
		nx->idx = 0;
	}
	g->tail = tail;
}

static void node_edges(const char *name, struct rte_mbuf **pk, uint16_t n, const char **to)
{
	node_edges_adj(name, pk, n, to, NULL);
}

/* The IPv4 packet of udp_pkt with its Ethernet header stripped, as ip4-input leaves it. */
static struct rte_mbuf *ip_pkt(uint32_t dst, uint8_t proto, uint16_t dport)
{
	struct rte_mbuf *m = udp_pkt(dst, 64, 1);
	rte_pktmbuf_adj(m, 14);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	ip->next_proto_id = proto;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);
	u->dst_port = rte_cpu_to_be_16(dport);
	return m;
}

static void check_edges(const char *node, struct rte_mbuf **pk, uint16_t n,
			const char *const *want)
{
	const char *to[64];
	node_edges(node, pk, n, to);
	for (uint16_t i = 0; i < n; i++)
		if (strcmp(to[i], want[i])) {
			fprintf(stderr, "%s: packet %u went to %s, not %s\n", node, i, to[i],
				want[i]);
			CHECK(0);
		}
}

static void test_edges(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4); /* every stream empty */
	/* ethernet-input: by ethertype, registered by ip4-input and arp-input */
	struct rte_mbuf *e[6];
	for (int i = 0; i < 6; i++)
		e[i] = udp_pkt(0x30000001, 64, 1);
	uint8_t *d = rte_pktmbuf_mtod(e[1], uint8_t *);
	memset(d, 0xff, 6); /* broadcast ARP */
	d[12] = 0x08, d[13] = 0x06;
	d = rte_pktmbuf_mtod(e[2], uint8_t *);
	d[12] = 0x86, d[13] = 0xdd; /* IPv6, registered by ip6-input */
	d = rte_pktmbuf_mtod(e[3], uint8_t *);
	d[0] = 0x04; /* another host's MAC */
	rte_pktmbuf_trim(e[4], e[4]->pkt_len - 10); /* shorter than an Ethernet header */
	d = rte_pktmbuf_mtod(e[5], uint8_t *);
	d[12] = 0x81, d[13] = 0x00; /* a VLAN of no sub-interface */
	check_edges("ethernet-input", e, 6,
		    (const char *const[]){"ip4-input", "arp-input", "ip6-input", "error-drop",
					  "error-drop", "error-drop"});

	/* ip4-lookup: by the adjacency's type */
	struct rte_mbuf *l[4] = {ip_pkt(0x30000001, 17, 9), ip_pkt(0x0a0a010a, 17, 9),
				 ip_pkt(0x0a0a024d, 17, 9), ip_pkt(0x63000001, 17, 9)};
	check_edges("ip4-lookup", l, 4,
		    (const char *const[]){"ip4-rewrite", "ip4-local", "ip4-glean", "icmp4-error"});
	/* after a packet of a route with several paths, the rest of the vector takes the ECMP
	 * pass (sl_lk_paths): one path, local, no route and ECMP again each where they belong */
	cli("ip neighbor port1 10.10.2.3 42:01:0a:0a:02:03");
	cli("ip neighbor port1 10.10.2.4 42:01:0a:0a:02:04");
	cli("ip route add 51.0.0.0/8 via 10.10.2.3");
	cli("ip route add 51.0.0.0/8 via 10.10.2.4");
	struct rte_mbuf *mx[5] = {ip_pkt(0x33000001, 17, 9), ip_pkt(0x30000001, 17, 9),
				  ip_pkt(0x0a0a010a, 17, 9), ip_pkt(0x63000001, 17, 9),
				  ip_pkt(0x33000002, 17, 9)};
	check_edges("ip4-lookup", mx, 5,
		    (const char *const[]){"ip4-rewrite", "ip4-rewrite", "ip4-local", "icmp4-error",
					  "ip4-rewrite"});
	/* one node for the whole vector across both passes (no edge written a packet), and
	 * runs to one node then another on either side of the ECMP pass */
	struct rte_mbuf *u1[4] = {ip_pkt(0x30000001, 17, 9), ip_pkt(0x33000001, 17, 9),
				  ip_pkt(0x33000002, 17, 9), ip_pkt(0x30000002, 17, 9)};
	check_edges("ip4-lookup", u1, 4,
		    (const char *const[]){"ip4-rewrite", "ip4-rewrite", "ip4-rewrite", "ip4-rewrite"});
	struct rte_mbuf *u2[4] = {ip_pkt(0x0a0a010a, 17, 9), ip_pkt(0x30000001, 17, 9),
				  ip_pkt(0x33000001, 17, 9), ip_pkt(0x0a0a010a, 17, 9)};
	check_edges("ip4-lookup", u2, 4,
		    (const char *const[]){"ip4-local", "ip4-rewrite", "ip4-rewrite", "ip4-local"});
	struct rte_mbuf *u3[4] = {ip_pkt(0x30000001, 17, 9), ip_pkt(0x33000001, 17, 9),
				  ip_pkt(0x0a0a010a, 17, 9), ip_pkt(0x33000002, 17, 9)};
	check_edges("ip4-lookup", u3, 4,
		    (const char *const[]){"ip4-rewrite", "ip4-rewrite", "ip4-local", "ip4-rewrite"});
	struct rte_mbuf *u4[3] = {ip_pkt(0x30000001, 17, 9), ip_pkt(0x30000002, 17, 9),
				  ip_pkt(0x0a0a010a, 17, 9)};
	check_edges("ip4-lookup", u4, 3,
		    (const char *const[]){"ip4-rewrite", "ip4-rewrite", "ip4-local"});
	struct rte_mbuf *u5[3] = {ip_pkt(0x0a0a010a, 17, 9), ip_pkt(0x33000001, 17, 9),
				  ip_pkt(0x33000002, 17, 9)};
	check_edges("ip4-lookup", u5, 3,
		    (const char *const[]){"ip4-local", "ip4-rewrite", "ip4-rewrite"});
	/* a drop stops the runs too (sl_lk_runs), looked up once more: no route first, a run of
	 * them, ECMP after them, each counted once */
	uint64_t e0 = err_count("ip4-lookup", "no route (ICMP unreachable follows)");
	struct rte_mbuf *md[7] = {ip_pkt(0x63000001, 17, 9), ip_pkt(0x30000001, 17, 9),
				  ip_pkt(0x63000002, 17, 9), ip_pkt(0x63000003, 17, 9),
				  ip_pkt(0x33000001, 17, 9), ip_pkt(0x30000001, 17, 9),
				  ip_pkt(0x63000001, 17, 9)};
	check_edges("ip4-lookup", md, 7,
		    (const char *const[]){"icmp4-error", "ip4-rewrite", "icmp4-error", "icmp4-error",
					  "ip4-rewrite", "ip4-rewrite", "icmp4-error"});
	CHECK(err_count("ip4-lookup", "no route (ICMP unreachable follows)") == e0 + 4);
	cli("ip route del 51.0.0.0/8");
	cli("ip neighbor del port1 10.10.2.3");
	cli("ip neighbor del port1 10.10.2.4");

	/* ip4-local: by IP protocol (253, for experiments, is handled by nothing); a first
	 * fragment is not reassembled */
	struct rte_mbuf *o[4] = {ip_pkt(0x0a0a010a, 1, 0), ip_pkt(0x0a0a010a, 17, 9),
				 ip_pkt(0x0a0a010a, 253, 0), ip_pkt(0x0a0a010a, 17, 9)};
	rte_pktmbuf_mtod(o[3], struct rte_ipv4_hdr *)->fragment_offset =
		RTE_BE16(RTE_IPV4_HDR_MF_FLAG);
	check_edges("ip4-local", o, 4,
		    (const char *const[]){"ip4-icmp-input", "ip4-udp-local", "error-drop",
					  "error-drop"});

	/* ip4-udp-local: by destination port (4789 registered by this test, as VXLAN will) */
	struct rte_mbuf *u[3] = {ip_pkt(0x0a0a010a, 17, 4789), ip_pkt(0x0a0a010a, 17, 9),
				 ip_pkt(0x0a0a010a, 17, 9)};
	rte_pktmbuf_trim(u[2], u[2]->pkt_len - 24);
	check_edges("ip4-udp-local", u, 3,
		    (const char *const[]){"punt", "icmp4-error", "error-drop"});
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
	walk(4); /* nothing left pending */
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
	CHECK(!strcmp(sl_dispatch_name(&sl_udp_ports, rte_cpu_to_be_16(4789)), "punt"));
	CHECK(!strcmp(sl_dispatch_name(&sl_eth_types, rte_cpu_to_be_16(0x86dd)), "ip6-input"));
}

/* An IPv6 packet at its header (as ethernet-input leaves it) from 2001:db8:1::2 to
 * 2001:db8:X::Y (dst: X << 16 | Y, or ff02::Y with X 0xff02), next header nh, then 8 bytes
 * of ext (when ext_nh is not 0: an extension header naming ext_nh) and a UDP header. */
static struct rte_mbuf *ip6_pkt(uint32_t dst, uint8_t nh, uint8_t hlim, const uint8_t *ext,
				uint8_t ext_nh)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	uint16_t plen = (uint16_t)((ext ? 8 : 0) + 8 + 10);
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, 40 + plen);
	memset(p, 0, 40 + plen);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;
	ip->vtc_flow = RTE_BE32(0x60000000);
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = nh;
	ip->hop_limits = hlim;
	static const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};
	memcpy(ip->src_addr, src, 16);
	uint8_t d[16] = {0x20, 0x01, 0x0d, 0xb8, 0, (uint8_t)(dst >> 16), [15] = (uint8_t)dst};
	if ((dst >> 16) == 0xff02 || (dst >> 16) == 0xff05) {
		memset(d, 0, 16);
		d[0] = 0xff, d[1] = (uint8_t)(dst >> 16), d[15] = (uint8_t)dst;
	}
	memcpy(ip->dst_addr, d, 16);
	if (ext) {
		memcpy(p + 40, ext, 8);
		p[40] = ext_nh;
	}
	m->port = 0;
	return m;
}

/* ECMP's flow hash: while no port is set up to give the RSS hash (sl_flow_rss), every
 * packet's is computed, an RSS hash it carries or not; once one is, a packet's RSS hash when
 * it carries one, the computed one when not, in any mix within a vector. */
static void test_ecmp_hash_source(void)
{
	enum { N = 32 };
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	const bool was = sl_flow_rss;
	cli("ip neighbor port1 10.10.2.3 42:01:0a:0a:02:03");
	cli("ip neighbor port1 10.10.2.4 42:01:0a:0a:02:04");
	cli("ip route add 51.0.0.0/8 via 10.10.2.3");
	cli("ip route add 51.0.0.0/8 via 10.10.2.4");
	uint32_t id = sl_ip4_fib_lookup(0, 0x33000001);
	CHECK(id & SL_LB_FLAG);
	const struct sl_lb *lb = sl_lb_tbl[id & (SL_LB_MAX - 1)];
	CHECK(lb != NULL);
	if (!lb)
		return;
	uint32_t sw[N], rss[N];
	unsigned differ = 0;
	for (unsigned pass = 0; pass < 3; pass++) {
		/* 0: no port gives the hash; 1: one does; 2: one does, half the packets carry
		 * none (the first among them, so the vector takes the per-packet test's loop) */
		sl_flow_rss = pass > 0;
		struct rte_mbuf *pk[N];
		const char *to[N];
		uint32_t adj[N];
		for (unsigned i = 0; i < N; i++) {
			pk[i] = ip_pkt(0x33000001, 17, (uint16_t)(1000 + i));
			sw[i] = lb->adj[sl_flow_hash4_sw(rte_pktmbuf_mtod(pk[i], struct rte_ipv4_hdr *)) &
					(SL_LB_BUCKETS - 1)];
			/* buckets 0 and 1 turn about: an RSS hash that picks another path than
			 * the computed one for some of the flows */
			pk[i]->hash.rss = 0x5a5a0000u | (i * 7);
			rss[i] = lb->adj[pk[i]->hash.rss & (SL_LB_BUCKETS - 1)];
			differ += sw[i] != rss[i];
			if (pass < 2 || i % 2)
				pk[i]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		}
		node_edges_adj("ip4-lookup", pk, N, to, adj);
		for (unsigned i = 0; i < N; i++) {
			uint32_t want = pass == 0 || (pass == 2 && !(i % 2)) ? sw[i] : rss[i];
			if (adj[i] != want || strcmp(to[i], "ip4-rewrite")) {
				fprintf(stderr, "ecmp pass %u packet %u: adjacency %u to %s, not %u\n",
					pass, i, adj[i], to[i], want);
				CHECK(0);
			}
		}
	}
	CHECK(differ > 0); /* the test tells the two apart */
	sl_flow_rss = was;
	cli("ip route del 51.0.0.0/8");
	cli("ip neighbor del port1 10.10.2.3");
	cli("ip neighbor del port1 10.10.2.4");
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* ip4-rewrite reads a packet's MTU and tx slot from its adjacency (struct sl_adj), which
 * copies them from its interface: they follow the interface's MTU and its output features
 * (the tx slot) at once, in each of the rewrite's three loops: a vector to one adjacency, to
 * a few (ECMP's 4 paths, turn about) and to many (each packet its own). */
static void test_rewrite_follows_interface(void)
{
	enum { N = 12, K = 8 };
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	char line[160], path[128];
	uint32_t adj[K];
	for (unsigned k = 0; k < K; k++) { /* 10.10.2.3-10, each one /32's next hop */
		snprintf(line, sizeof(line), "ip neighbor port1 10.10.2.%u 42:01:0a:0a:02:%02x", 3 + k,
			 3 + k);
		cli(line);
		snprintf(line, sizeof(line), "ip route add 52.0.0.%u/32 via 10.10.2.%u", k, 3 + k);
		cli(line);
		adj[k] = sl_ip4_fib_lookup(0, 0x34000000u + k);
		CHECK(sl_adj_get(adj[k])->type == SL_ADJ_FORWARD && sl_adj_get(adj[k])->port == 1);
	}
	cli("ip neighbor port1 2001:db8:2::77 42:01:0a:0a:02:77"); /* an IPv6 one too */
	CHECK(sl_adj_check() == 0);
	snprintf(path, sizeof(path), "/tmp/sl-unit-rwfollow-%d.pcap", (int)getpid());
	for (unsigned step = 0; step < 4; step++) {
		/* 0: as it was; 1: MTU 68, under the packets' 100 bytes (no DF: fragmented);
		 * 2: an output feature on port1 (pcap-tx); 3: neither again */
		if (step == 1)
			cli("set interface mtu 68 port1");
		if (step == 2) {
			cli("set interface mtu 1500 port1");
			snprintf(line, sizeof(line), "pcap trace tx intfc port1 file %s", path);
			cli(line);
		}
		if (step == 3)
			cli("pcap trace off");
		CHECK(sl_adj_check() == 0 && sl_if_fast_check() == 0);
		CHECK(sl_adj_get(adj[0])->mtu == (step == 1 ? 68 : 1500));
		const char *want = step == 1 ? "ip4-frag" : step == 2 ? "pcap-tx" : "port-tx-1";
		for (unsigned spread = 0; spread < 3; spread++) { /* one, few, many */
			struct rte_mbuf *pk[N];
			const char *to[N];
			for (unsigned i = 0; i < N; i++) {
				unsigned k = spread == 0 ? 0 : spread == 1 ? i % 4 : i % K;
				pk[i] = ip_pkt(0x34000000u + k, 17, (uint16_t)(2000 + i));
				rte_pktmbuf_append(pk[i], 100 - pk[i]->pkt_len);
				sl_meta(pk[i])->adj = adj[k];
			}
			node_edges("ip4-rewrite", pk, N, to);
			for (unsigned i = 0; i < N; i++)
				if (strcmp(to[i], want)) {
					fprintf(stderr, "step %u spread %u packet %u: to %s, not %s\n",
						step, spread, i, to[i], want);
					CHECK(0);
				}
		}
	}
	remove(path);
	/* neighbours gone and made again, some on the other interface: each interface's list
	 * of complete adjacencies (what an MTU change walks) follows, through the grace
	 * periods that free the old records */
	for (unsigned r = 0; r < 3; r++) {
		for (unsigned k = r % 2; k < K; k += 2) {
			snprintf(line, sizeof(line), "ip neighbor del port1 10.10.2.%u", 3 + k);
			cli(line);
			snprintf(line, sizeof(line), "ip neighbor port%u 10.10.%u.%u 42:01:0a:0a:02:%02x",
				 k % 2, k % 2 ? 2 : 1, 3 + k, 3 + k);
			cli(line);
			if (k % 2 == 0) { /* port0's: back to port1 for the routes' sake */
				snprintf(line, sizeof(line), "ip neighbor del port0 10.10.1.%u", 3 + k);
				cli(line);
				snprintf(line, sizeof(line),
					 "ip neighbor port1 10.10.2.%u 42:01:0a:0a:02:%02x", 3 + k, 3 + k);
				cli(line);
			}
		}
		sl_rcu_sync();
		sl_rcu_reclaim();
		cli(r % 2 ? "set interface mtu 1500 port1" : "set interface mtu 1400 port1");
		CHECK(sl_adj_check() == 0);
	}
	cli("set interface mtu 1500 port1");
	cli("ip neighbor del port1 2001:db8:2::77");
	for (unsigned k = 0; k < K; k++) {
		snprintf(line, sizeof(line), "ip route del 52.0.0.%u/32", k);
		cli(line);
		snprintf(line, sizeof(line), "ip neighbor del port1 10.10.2.%u", 3 + k);
		cli(line);
	}
	CHECK(sl_adj_check() == 0);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* IPv6: ip6-input's checks, ip6-lookup's dispatch by adjacency type (ECMP included),
 * ip6-local's by upper layer. */
static void test_ip6_edges(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	cli("set interface ip address port0 2001:db8:1::10/64");
	cli("set interface ip address port1 2001:db8:2::10/64");
	cli("ip neighbor port1 2001:db8:2::1 42:01:0a:0a:02:01");
	cli("ip neighbor port1 2001:db8:2::3 42:01:0a:0a:02:03");
	cli("ip route add 2001:db8:48::/48 via 2001:db8:2::1");
	cli("ip route add 2001:db8:49::/48 via 2001:db8:2::1");
	cli("ip route add 2001:db8:49::/48 via 2001:db8:2::3 weight 3");
	CHECK(env_cli("ip route add 2001:db8:50::/48 via 2001:db8:9::1", false) != 0);
	static const uint8_t hbh_unknown[8] = {0, 0, 0x87, 4, 0, 0, 0, 0}; /* action 10 */
	static const uint8_t hbh_pad[8] = {0, 0, 1, 4, 0, 0, 0, 0};
	static const uint8_t frag[8] = {0, 0, 0, 1, 0, 0, 0, 7};
	struct rte_mbuf *in[6] = {ip6_pkt(0x480001, 17, 64, NULL, 0),
				  ip6_pkt(0x480001, 17, 64, NULL, 0),
				  ip6_pkt(0x480001, 17, 64, NULL, 0),
				  ip6_pkt(0x480001, 0, 64, hbh_unknown, 17),
				  ip6_pkt(0x480001, 0, 64, hbh_pad, 17),
				  ip6_pkt(0x480001, 44, 64, NULL, 0)};
	rte_pktmbuf_mtod(in[1], uint8_t *)[0] = 0x40;                       /* version 4 */
	rte_pktmbuf_mtod(in[2], struct rte_ipv6_hdr *)->payload_len = RTE_BE16(400);
	rte_pktmbuf_trim(in[5], in[5]->pkt_len - 44); /* a fragment header cut short */
	rte_pktmbuf_mtod(in[5], struct rte_ipv6_hdr *)->payload_len = RTE_BE16(4);
	check_edges("ip6-input", in, 6,
		    (const char *const[]){"ip6-lookup", "error-drop", "error-drop", "icmp6-error",
					  "ip6-lookup", "error-drop"});
	struct rte_mbuf *l[7] = {ip6_pkt(0x480001, 17, 64, NULL, 0), ip6_pkt(0x10010, 17, 64, NULL, 0),
				 ip6_pkt(0x20077, 17, 64, NULL, 0), ip6_pkt(0x990001, 17, 64, NULL, 0),
				 ip6_pkt(0xff020001, 58, 255, NULL, 0),
				 ip6_pkt(0xff050001, 17, 64, NULL, 0),
				 ip6_pkt(0x490001, 17, 64, NULL, 0)};
	check_edges("ip6-lookup", l, 7,
		    (const char *const[]){"ip6-rewrite", "ip6-local", "ip6-glean", "icmp6-error",
					  "ip6-local", "icmp6-error", "ip6-rewrite"});
	/* after a packet of a route with several paths, the rest of the vector takes the ECMP
	 * pass (sl_lk_paths): one path, local, no route and ECMP again each where they belong */
	struct rte_mbuf *mx[5] = {ip6_pkt(0x490001, 17, 64, NULL, 0), ip6_pkt(0x480001, 17, 64, NULL, 0),
				  ip6_pkt(0x10010, 17, 64, NULL, 0), ip6_pkt(0x990001, 17, 64, NULL, 0),
				  ip6_pkt(0x490002, 17, 64, NULL, 0)};
	check_edges("ip6-lookup", mx, 5,
		    (const char *const[]){"ip6-rewrite", "ip6-rewrite", "ip6-local", "icmp6-error",
					  "ip6-rewrite"});
	/* a drop route: ip-blackhole (counted by name, no ICMPv6), not the no-route edge */
	cli("ip route add 2001:db8:61::/48 via drop");
	struct rte_mbuf *bh[1] = {ip6_pkt(0x610001, 17, 64, NULL, 0)};
	check_edges("ip6-lookup", bh, 1, (const char *const[]){"ip-blackhole"});
	cli("ip route del 2001:db8:61::/48 via drop");
	/* UDP to ip6-udp-local, TCP answered port unreachable, GRE and IP-in-IP to the tunnels'
	 * decapsulation (sl_ip6_proto_register), an unknown next header a parameter problem */
	struct rte_mbuf *o[7] = {ip6_pkt(0x10010, 17, 64, NULL, 0), ip6_pkt(0x10010, 58, 64, NULL, 0),
				 ip6_pkt(0x10010, 44, 64, frag, 17), ip6_pkt(0x10010, 200, 64, NULL, 0),
				 ip6_pkt(0x10010, 6, 64, NULL, 0), ip6_pkt(0x10010, 47, 64, NULL, 0),
				 ip6_pkt(0x10010, 41, 64, NULL, 0)};
	check_edges("ip6-local", o, 7,
		    (const char *const[]){"ip6-udp-local", "ip6-icmp-input", "error-drop",
					  "icmp6-error", "icmp6-error", "gre6-input",
					  "ipip6-input"});
	/* ip6-rewrite: a packet whose adjacency is no longer complete (its MTU 0) dropped by
	 * name whatever its hop limit; a complete one's forwarded, or time exceeded at 1 */
	cli("ip route add 2001:db8:62::/48 via 2001:db8:2::99"); /* no neighbour: incomplete */
	struct rte_mbuf *lk[2] = {ip6_pkt(0x620001, 17, 64, NULL, 0), ip6_pkt(0x480001, 17, 64, NULL, 0)};
	const char *lto[2];
	uint32_t la[2];
	node_edges_adj("ip6-lookup", lk, 2, lto, la);
	CHECK(sl_adj_get(la[0])->type != SL_ADJ_FORWARD && sl_adj_get(la[0])->mtu == 0);
	CHECK(sl_adj_get(la[1])->type == SL_ADJ_FORWARD && sl_adj_get(la[1])->mtu == 1500);
	uint64_t inc0 = err_count("ip6-rewrite", "adjacency no longer complete");
	struct rte_mbuf *rw[4] = {ip6_pkt(0x620001, 17, 64, NULL, 0), ip6_pkt(0x620001, 17, 1, NULL, 0),
				  ip6_pkt(0x480001, 17, 64, NULL, 0), ip6_pkt(0x480001, 17, 1, NULL, 0)};
	for (int i = 0; i < 4; i++)
		sl_meta(rw[i])->adj = la[i < 2 ? 0 : 1];
	check_edges("ip6-rewrite", rw, 4,
		    (const char *const[]){"error-drop", "error-drop", "port-tx-1", "icmp6-error"});
	CHECK(err_count("ip6-rewrite", "adjacency no longer complete") == inc0 + 2);
	cli("ip route del 2001:db8:62::/48");
	CHECK(!strcmp(lto[0], "ip6-glean"));
	walk(4); /* the route's neighbour solicitation for 2001:db8:2::99 out of port1 */
	struct rte_mbuf *nd[8];
	unsigned nn = drain(1, nd, 8);
	CHECK(nn == 1 && rte_pktmbuf_mtod(nd[0], const uint8_t *)[54] == 135);
	rte_pktmbuf_free_bulk(nd, nn);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
	cli("ip route del 2001:db8:49::/48");
	cli("ip route del 2001:db8:48::/48");
	cli("ip neighbor del port1 2001:db8:2::1");
	cli("ip neighbor del port1 2001:db8:2::3");
	cli("set interface ip address del port0 2001:db8:1::10/64");
	cli("set interface ip address del port1 2001:db8:2::10/64");
}

/* The ip4-unicast arc: ip4-input sends to the interface's first feature, each feature to
 * the next one on, the last to ip4-lookup; with none on, straight to ip4-lookup. */
static void test_feature_arc(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	struct rte_mbuf *p[2];
	p[0] = ip_pkt(0x30000001, 17, 9);
	check_edges("ip4-input", p, 1, (const char *const[]){"ip4-lookup"});
	cli("set interface ip source-check port0");
	CHECK(sl_arc_users[SL_ARC_IP4_UNICAST] == 1);
	p[0] = ip_pkt(0x30000001, 17, 9);
	check_edges("ip4-input", p, 1, (const char *const[]){"ip4-source-check-via-rx"});
	/* each packet by its own interface's features: port1's to the lookup; a padded frame
	 * (ip4-input's slow path) to port0's feature too; an error to the drop */
	struct rte_mbuf *q[4];
	for (int i = 0; i < 4; i++)
		q[i] = ip_pkt(0x30000001, 17, 9);
	q[1]->port = 1;
	rte_pktmbuf_mtod(q[2], struct rte_ipv4_hdr *)->time_to_live = 0;
	CHECK(rte_pktmbuf_append(q[3], 6) != NULL);
	check_edges("ip4-input", q, 4,
		    (const char *const[]){"ip4-source-check-via-rx", "ip4-lookup", "error-drop",
					  "ip4-source-check-via-rx"});
	/* strict: 10.10.1.2 (a neighbour on port0) passes, 10.10.2.5 (port1's subnet) not */
	p[0] = ip_pkt(0x30000001, 17, 9);
	p[1] = ip_pkt(0x30000001, 17, 9);
	rte_pktmbuf_mtod(p[1], struct rte_ipv4_hdr *)->src_addr = RTE_BE32(0x0a0a0205);
	check_edges("ip4-source-check-via-rx", p, 2,
		    (const char *const[]){"ip4-lookup", "error-drop"});
	/* both on: strict, then loose, then the lookup */
	cli("set interface feature port0 ip4-source-check-via-any arc ip4-unicast");
	p[0] = ip_pkt(0x30000001, 17, 9);
	check_edges("ip4-source-check-via-rx", p, 1,
		    (const char *const[]){"ip4-source-check-via-any"});
	p[0] = ip_pkt(0x30000001, 17, 9);
	p[1] = ip_pkt(0x30000001, 17, 9);
	rte_pktmbuf_mtod(p[1], struct rte_ipv4_hdr *)->src_addr = RTE_BE32(0x63000001);
	check_edges("ip4-source-check-via-any", p, 2,
		    (const char *const[]){"ip4-lookup", "error-drop"});
	cli("set interface ip source-check port0 del");
	p[0] = ip_pkt(0x30000001, 17, 9);
	check_edges("ip4-input", p, 1, (const char *const[]){"ip4-source-check-via-any"});
	cli("set interface feature port0 ip4-source-check-via-any arc ip4-unicast disable");
	CHECK(sl_arc_users[SL_ARC_IP4_UNICAST] == 0);
	p[0] = ip_pkt(0x30000001, 17, 9);
	check_edges("ip4-input", p, 1, (const char *const[]){"ip4-lookup"});
	CHECK(env_cli("set interface feature port0 nosuch arc ip4-unicast", true) != 0);
	CHECK(env_cli("set interface feature port0 ip4-source-check-via-rx arc nosuch", true) != 0);
	CHECK(sl_arc_users[SL_ARC_IP4_UNICAST] == 0);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}


/* The device-input arc (port-rx's first feature, each feature's next, the interface's mode
 * at the end) and the interface-output arc (a port with an output feature is reached through
 * its tx slot, and its senders write meta->tx_if only then). */
static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	return n;
}

/* The tx slot of output feature `name`: where senders send an interface's frames while it is
 * the interface's first output feature. */
static uint16_t out_feat_slot(const char *name)
{
	const struct sl_arc *a = &sl_arcs[SL_ARC_INTERFACE_OUTPUT];
	for (uint8_t f = 0; f < a->nfeat; f++)
		if (!strcmp(a->feat[f].name, name))
			return (uint16_t)SL_TX_SLOT_FEAT(f);
	return UINT16_MAX;
}

static void test_device_input_and_output_arcs(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	struct rte_mbuf *out[64], *p[1];
	char path[128], line[256];
	snprintf(path, sizeof(path), "/tmp/sl-unit-arcs-%d.pcap", (int)getpid());
	walk(4);
	cli("set interface l2 xconnect port0 port1");
	snprintf(line, sizeof(line), "pcap trace tx intfc port1 file %s", path);
	cli(line);
	CHECK(sl_ifaces[1].tx_slot == out_feat_slot("pcap-tx") && sl_ifaces[1].tx_meta);
	CHECK(sl_if_fast[1].tx_slot == out_feat_slot("pcap-tx") && sl_if_fast_check() == 0);
	for (int i = 0; i < 10; i++)
		rte_ring_enqueue(rx[0], udp_pkt(0x30000500u + (uint32_t)i, 64, (uint16_t)i));
	env_walk_worker(0, 4);
	unsigned n = drain(1, out, 64);
	CHECK(n == 10);
	rte_pktmbuf_free_bulk(out, n);
	/* a second output feature: senders go to the first of the two in the arc's order, and
	 * to the one left when the other goes */
	uint16_t s_po = out_feat_slot("policer-output"), s_pc = out_feat_slot("pcap-tx");
	cli("policer add name unit-po cir 1000000 cb 100000");
	cli("policer output name unit-po port1");
	CHECK(s_po != UINT16_MAX && sl_ifaces[1].tx_slot == RTE_MIN(s_po, s_pc));
	CHECK(sl_if_fast[1].tx_slot == RTE_MIN(s_po, s_pc) && sl_if_fast_check() == 0);
	cli("policer output name unit-po port1 unapply");
	CHECK(sl_ifaces[1].tx_slot == s_pc && sl_ifaces[1].tx_meta);
	cli("policer output name unit-po port1");
	cli("pcap trace off");
	CHECK(sl_ifaces[1].tx_slot == s_po && sl_ifaces[1].tx_meta && sl_if_fast_check() == 0);
	cli("policer output name unit-po port1 unapply");
	cli("policer del name unit-po");
	CHECK(sl_ifaces[1].tx_slot == sl_ifaces[1].out_slot && !sl_ifaces[1].tx_meta);
	CHECK(sl_if_fast_check() == 0);
	/* the pcap header and ten records of 16 + 60 bytes */
	CHECK(file_size(path) == 24 + 10 * (16 + 60));
	for (int i = 0; i < 5; i++)
		rte_ring_enqueue(rx[0], udp_pkt(0x30000600u + (uint32_t)i, 64, (uint16_t)i));
	env_walk_worker(0, 4);
	n = drain(1, out, 64);
	CHECK(n == 5);
	rte_pktmbuf_free_bulk(out, n);
	CHECK(file_size(path) == 24 + 10 * (16 + 60));

	/* device-input: pcap-rx, then noisy, then the mode (l2-io, then ethernet-input) */
	snprintf(line, sizeof(line), "pcap trace rx intfc port0 file %s", path);
	cli(line);
	p[0] = udp_pkt(0x30000001, 64, 1);
	check_edges("pcap-rx", p, 1, (const char *const[]){"l2-io"});
	cli("set interface noisy port0 lookup-memory 1 reads 1");
	p[0] = udp_pkt(0x30000001, 64, 1);
	check_edges("pcap-rx", p, 1, (const char *const[]){"noisy"});
	p[0] = udp_pkt(0x30000001, 64, 1);
	check_edges("noisy", p, 1, (const char *const[]){"l2-io"});
	cli("set interface l3 port0");
	p[0] = udp_pkt(0x30000001, 64, 1);
	check_edges("noisy", p, 1, (const char *const[]){"ethernet-input"});
	CHECK(env_cli("set interface feature port1 noisy arc device-input", true) != 0);
	cli("set interface noisy port0 disable");
	p[0] = udp_pkt(0x30000001, 64, 1);
	check_edges("pcap-rx", p, 1, (const char *const[]){"ethernet-input"});
	cli("pcap trace off");
	CHECK(sl_arc_users[SL_ARC_DEVICE_INPUT] == 0 && sl_arc_users[SL_ARC_INTERFACE_OUTPUT] == 0);
	CHECK(file_size(path) == 24 + 3 * (16 + 60)); /* pcap-rx ran three times */
	remove(path);
	cli("set interface l3 port1");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* pg-output frees what leaves pg interfaces: runs of one interface, in bulk while the mbufs
 * are plain (one pool, one segment, one reference, direct), one by one otherwise; counts
 * each interface's packets and bytes, and leaks nothing. */
static void test_pg_output_free(void)
{
	cli("create packet-generator interface pg7");
	cli("create packet-generator interface pg8");
	cli("set interface state pg7 up");
	cli("set interface state pg8 up");
	struct sl_iface *a = sl_iface_by_name("pg7"), *b = sl_iface_by_name("pg8");
	CHECK(a && b);
	/* the workers' packed copy of each interface (sl_if_fast) follows its state and MTU */
	CHECK(a && sl_if_fast[a->port].up && sl_if_fast[a->port].mtu == a->mtu);
	cli("set interface mtu 1400 pg8");
	cli("set interface state pg8 down");
	CHECK(b && b->mtu == 1400 && sl_if_fast[b->port].mtu == 1400 && !sl_if_fast[b->port].up);
	cli("set interface mtu 1500 pg8");
	cli("set interface state pg8 up");
	CHECK(sl_if_fast_check() == 0);
	struct rte_mempool *other = rte_pktmbuf_pool_create("sl-unit-other", 63, 0, 0,
							    RTE_MBUF_DEFAULT_BUF_SIZE,
							    SOCKET_ID_ANY);
	CHECK(other != NULL);
	if (!a || !b || !other)
		return;
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	struct sl_if_counters ca = sl_workers[0].ifc[a->port], cb = sl_workers[0].ifc[b->port];
	/* pg7 x3 plain, pg7 held twice, pg7 of two segments, pg8 x2, pg7 of another pool,
	 * pg7 plain */
	enum { N = 10 };
	struct rte_mbuf *m[N];
	uint64_t bytes_a = 0, bytes_b = 0;
	for (int i = 0; i < N; i++) {
		m[i] = i == 8 ? rte_pktmbuf_alloc(other) : udp_pkt(0x30000001, 64, (uint16_t)i);
		if (i == 8)
			rte_pktmbuf_append(m[i], 60);
		sl_meta(m[i])->tx_if = i == 6 || i == 7 ? b->port : a->port;
	}
	rte_pktmbuf_refcnt_update(m[3], 1);
	struct rte_mbuf *seg = rte_pktmbuf_alloc(sl_pool);
	rte_pktmbuf_append(seg, 40);
	CHECK(rte_pktmbuf_chain(m[4], seg) == 0);
	for (int i = 0; i < N; i++)
		*(i == 6 || i == 7 ? &bytes_b : &bytes_a) += m[i]->pkt_len;
	struct rte_graph *g = sl_workers[0].graph;
	struct rte_node *node = rte_graph_node_get_by_name("worker0", "pg-output");
	CHECK(node != NULL);
	if (node)
		CHECK(node->process(g, node, (void **)m, N) == N);
	const struct sl_if_counters *xa = &sl_workers[0].ifc[a->port], *xb = &sl_workers[0].ifc[b->port];
	CHECK(xa->tx_pkts - ca.tx_pkts == 8 && xa->tx_bytes - ca.tx_bytes == bytes_a);
	CHECK(xb->tx_pkts - cb.tx_pkts == 2 && xb->tx_bytes - cb.tx_bytes == bytes_b);
	/* the one held twice is still held once; the rest, both segments included, are back */
	CHECK(rte_mbuf_refcnt_read(m[3]) == 1);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use + 1);
	CHECK(rte_mempool_in_use_count(other) == 0);
	rte_pktmbuf_free(m[3]);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
	rte_mempool_free(other);
	cli("delete packet-generator interface pg7");
	cli("delete packet-generator interface pg8");
}

/* show runtime's stall fields: port-rx counts one turn per call after its first, files each
 * in one histogram bucket, keeps the longest; each RX queue keeps its longest gap between
 * polls; clear runtime zeroes both, done by the worker on its next turn. Counts only: no
 * assertion on how long anything took. */
static void test_turns(void)
{
	struct sl_turns *t = &sl_workers[0].turns;
	env_walk_worker(0, 1);
	uint64_t n0 = t->n;
	env_walk_worker(0, 10);
	CHECK(t->n - n0 == 10);
	uint64_t sum = 0;
	unsigned top = 0;
	for (unsigned b = 0; b < SL_TURN_BUCKETS; b++) {
		sum += t->hist[b];
		if (t->hist[b])
			top = b;
	}
	CHECK(sum == t->n);
	CHECK(sl_turn_bucket(t->max) == top); /* the longest is in the highest bucket used */
	CHECK(sl_turn_bucket(0) == 0 && sl_turn_bucket(255) == 0 && sl_turn_bucket(256) == 1 &&
	      sl_turn_bucket(511) == 1 && sl_turn_bucket(512) == 2 &&
	      sl_turn_bucket(UINT64_MAX) == SL_TURN_BUCKETS - 1);
	cli("clear runtime");
	CHECK(t->clear);
	env_walk_worker(0, 1); /* the worker clears */
	CHECK(!t->clear && t->n == 0 && t->max == 0);
	env_walk_worker(0, 5);
	CHECK(t->n == 5);
	/* worker 0 polls port0's queue 0 on every turn: its longest gap covers every turn */
	const struct sl_rxq_list *l = sl_workers[0].rxqs;
	bool found = false;
	for (uint16_t i = 0; l && i < l->n; i++)
		if (l->q[i].port == 0 && l->q[i].queue == 0) {
			found = true;
			CHECK(l->q[i].max_gap >= t->max && l->q[i].max_gap > 0);
		}
	CHECK(found);
	cli("show runtime");
	cli("show interface rx-placement");
}

/* sl_rcu_retire: a callback runs once every online worker has reported a quiescent state,
 * not before. */
static void retired(void *p, uintptr_t x)
{
	*(uintptr_t *)p += x;
}

/* ---- acl-input on frames it must not misread: truncated IPv4 and IPv6 headers, an IPv6
 * extension header cut short, a non-first fragment, ARP, a runt; no buffer lost ---- */

/* A frame of len zero bytes from peer to mac0, received on port 0, in *m: its data. */
static uint8_t *zero_frame(struct rte_mbuf **m, uint16_t len)
{
	*m = rte_pktmbuf_alloc(sl_pool);
	uint8_t *p = *m ? (uint8_t *)rte_pktmbuf_append(*m, len) : NULL;
	if (!p)
		abort();
	memset(p, 0, len);
	memcpy(p, mac0, 6);
	memcpy(p + 6, peer, 6);
	(*m)->port = 0;
	return p;
}

/* An IPv6 frame from 2001:db8::1: a hop-by-hop header (8 bytes), then TCP. */
static struct rte_mbuf *ip6_hbh_tcp(void)
{
	struct rte_mbuf *m;
	uint8_t *p = zero_frame(&m, 14 + 40 + 8 + 20);
	p[12] = 0x86;
	p[13] = 0xdd;
	p[14] = 0x60;
	p[14 + 5] = 28;  /* payload length */
	p[14 + 6] = 0;   /* hop-by-hop */
	p[14 + 7] = 64;
	p[14 + 8] = 0x20, p[14 + 9] = 0x01, p[14 + 10] = 0x0d, p[14 + 11] = 0xb8, p[14 + 23] = 1;
	p[14 + 24] = 0x20, p[14 + 25] = 0x01, p[14 + 26] = 0x0d, p[14 + 27] = 0xb8, p[14 + 39] = 2;
	p[54] = 6;       /* then TCP, length (0 + 1) * 8 */
	p[62 + 2] = 0, p[62 + 3] = 80;
	m->port = 0;
	return m;
}

static void test_acl_input(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	cli("set acl-plugin acl permit src 10.10.1.2/32 proto 17 dport 9, "
	    "permit src 2001:db8::1/128 proto 6 dport 80");
	cli("set acl-plugin interface port0 input acl 0");
	struct rte_mbuf *pk[7];
	for (int i = 0; i < 7; i++) {
		pk[i] = i == 2 || i == 3 ? ip6_hbh_tcp() : udp_pkt(0x30000001, 64, 1);
		if (i != 2 && i != 3) {
			struct rte_udp_hdr *u = rte_pktmbuf_mtod_offset(pk[i], struct rte_udp_hdr *, 34);
			u->dst_port = RTE_BE16(9);
		}
	}
	rte_pktmbuf_trim(pk[1], pk[1]->data_len - (14 + 19)); /* IPv4 header cut */
	rte_pktmbuf_trim(pk[3], pk[3]->data_len - (14 + 40 + 5)); /* hop-by-hop header cut */
	rte_pktmbuf_mtod(pk[4], uint8_t *)[13] = 0x06;       /* ARP */
	rte_pktmbuf_trim(pk[5], pk[5]->data_len - 10);       /* a runt */
	rte_pktmbuf_mtod(pk[6], uint8_t *)[14 + 7] = 8;      /* fragment offset 64: no ports */
	static const char *const want[7] = {"ethernet-input", "error-drop", "ethernet-input",
					    "error-drop", "ethernet-input", "ethernet-input",
					    "error-drop"};
	check_edges("acl-input", pk, 7, want);
	cli("set acl-plugin interface port0 input acl 0 del");
	cli("delete acl-plugin acl index 0");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* Each interface's line (sl_if_fast): an ACL's classifier in one of its slots while applied,
 * its features' bits in it, and the interface type's data zeroed when it goes, so that the
 * next interface made at its index starts from none. */
static void test_if_line(void)
{
	cli("create packet-generator interface pg9");
	struct sl_iface *f = sl_iface_by_name("pg9");
	CHECK(f != NULL);
	if (!f)
		return;
	uint16_t x = f->port;
	const struct sl_if_fast *l = &sl_if_fast[x];
	CHECK((uintptr_t)l % RTE_CACHE_LINE_SIZE == 0 && !l->slot[0] && !l->slot[1]);
	cli("set acl-plugin acl permit src 10.10.1.2/32, deny");
	cli("set acl-plugin interface pg9 output acl 0");
	int set = (l->slot[0] != NULL) + (l->slot[1] != NULL);
	CHECK(set == 1 && l->features[SL_ARC_INTERFACE_OUTPUT] != 0);
	cli("set acl-plugin interface pg9 input acl 0");
	CHECK(l->slot[0] && l->slot[1] && l->features[SL_ARC_DEVICE_INPUT] != 0);
	memset(sl_if_fast[x].type, 0xab, SL_IF_TYPE_DATA); /* as a type's module would */
	cli("delete packet-generator interface pg9");
	uint8_t zero[SL_IF_TYPE_DATA] = {0};
	CHECK(!memcmp(l->type, zero, sizeof(zero)) && !l->slot[0] && !l->slot[1]);
	CHECK(!l->features[SL_ARC_DEVICE_INPUT] && !l->features[SL_ARC_INTERFACE_OUTPUT]);
	cli("create packet-generator interface pg9"); /* the index just freed, again */
	f = sl_iface_by_name("pg9");
	CHECK(f && f->port == x && !memcmp(l->type, zero, sizeof(zero)) && sl_if_fast_check() == 0);
	cli("delete packet-generator interface pg9");
	cli("delete acl-plugin acl index 0");
}

/* ---- the linear matcher against rte_acl: random ACLs of up to 8 rules over a few addresses,
 * protocols, ports and TCP flags, of IPv4, IPv6 or both, and random frames (IPv4 and IPv6;
 * TCP, UDP, ICMP; options, fragments, a VLAN tag, truncation) through acl-input, matched
 * linearly, by rte_acl alone, by rte_acl through the flow cache, and through the cache again
 * (its hits): the same frames dropped, the same hits per rule, the same denials and misses.
 * (the ports at the ends of the rules' ranges too). ACL 0 is replaced between rounds: the cache's entries of the classifier before would give
 * the old rules' answers ---- */

static uint32_t lcg = 12345;
static uint32_t rnd(uint32_t n)
{
	lcg = lcg * 1103515245u + 12345u;
	return (lcg >> 8) % n;
}

static const char *const acl4[] = {"10.0.0.1", "10.0.0.2", "10.0.1.1", "10.1.0.1"};
static const char *const acl6[] = {"2001:db8::1", "2001:db8::2", "2001:db8:0:1::1",
				   "2001:db9::1"};

static void rnd_prefix(char *b, size_t len, int fam)
{
	static const int l4[] = {0, 8, 16, 24, 31, 32}, l6[] = {0, 32, 48, 64, 127, 128};
	if (fam == 4)
		snprintf(b, len, "%s/%d", acl4[rnd(4)], l4[rnd(6)]);
	else
		snprintf(b, len, "%s/%d", acl6[rnd(4)], l6[rnd(6)]);
}

static void rnd_acl(char *b, size_t len)
{
	int n = 1 + (int)rnd(8), at = snprintf(b, len, "set acl-plugin acl index 0");
	for (int i = 0; i < n; i++) {
		int fam = (int)rnd(3) * 2; /* 0 both, 4, 6 (6 as 2 * 3) */
		char p[64];
		at += snprintf(b + at, len - at, "%s %s", i ? "," : "", rnd(3) ? "permit" : "deny");
		if (fam && rnd(4)) {
			rnd_prefix(p, sizeof(p), fam == 2 ? 4 : 6);
			at += snprintf(b + at, len - at, " src %s", p);
		}
		if (fam && rnd(2)) {
			rnd_prefix(p, sizeof(p), fam == 2 ? 4 : 6);
			at += snprintf(b + at, len - at, " dst %s", p);
		}
		static const int pr[] = {6, 17, 1, 58};
		uint32_t k = rnd(6);
		if (k < 4)
			at += snprintf(b + at, len - at, " proto %d", pr[k]);
		static const char *const ports[] = {"80", "1000-2000", "0-1023", "8", "1024-65535",
						    "65535"};
		if ((k = rnd(9)) < 6)
			at += snprintf(b + at, len - at, " sport %s", ports[k]);
		if ((k = rnd(9)) < 6)
			at += snprintf(b + at, len - at, " dport %s", ports[k]);
		if (!rnd(5))
			at += snprintf(b + at, len - at, " tcpflags %u mask 18", rnd(2) ? 2u : 16u);
	}
}

/* A random frame from one address of the pools to another. */
static struct rte_mbuf *rnd_frame(void)
{
	static const uint8_t pr[] = {6, 17, 1, 58};
	/* and each range's ends, and one past them */
	static const uint16_t ports[] = {80, 1500, 22, 8, 999, 1000, 2000, 2001, 1023, 1024, 0,
					 65535, 65534, 81};
	struct rte_mbuf *m;
	uint8_t *p = zero_frame(&m, 14 + 4 + 64 + 24);
	uint32_t off = 12;
	if (!rnd(6)) { /* one VLAN tag */
		p[12] = 0x81, p[14] = 0, p[15] = 7;
		off = 16;
	}
	bool v6 = rnd(2);
	uint8_t proto = pr[rnd(4)], *ip = p + off + 2, *l4;
	if (!v6) {
		p[off] = 0x08;
		int ihl = rnd(5) ? 5 : 6;
		ip[0] = (uint8_t)(0x40 | ihl);
		ip[8] = 64;
		ip[9] = proto;
		if (!rnd(8))
			ip[7] = 8; /* a non-first fragment: no ports */
		if (inet_pton(AF_INET, acl4[rnd(4)], ip + 12) != 1 ||
		    inet_pton(AF_INET, acl4[rnd(4)], ip + 16) != 1)
			abort();
		l4 = ip + ihl * 4;
	} else {
		p[off] = 0x86, p[off + 1] = 0xdd;
		ip[0] = 0x60;
		ip[6] = proto;
		ip[7] = 64;
		if (inet_pton(AF_INET6, acl6[rnd(4)], ip + 8) != 1 ||
		    inet_pton(AF_INET6, acl6[rnd(4)], ip + 24) != 1)
			abort();
		l4 = ip + 40;
	}
	if (proto == 1 || proto == 58) {
		l4[0] = (uint8_t)(proto == 58 ? 128 : 8); /* echo request: type 8 or 128 */
		l4[1] = (uint8_t)rnd(2);
	} else {
		uint16_t sp = ports[rnd(2) ? rnd(4) : rnd(14)], dp = ports[rnd(2) ? rnd(4) : rnd(14)];
		l4[0] = (uint8_t)(sp >> 8), l4[1] = (uint8_t)sp;
		l4[2] = (uint8_t)(dp >> 8), l4[3] = (uint8_t)dp;
		l4[13] = (uint8_t)(rnd(2) ? 0x02 : 0x12);
	}
	if (!rnd(10)) /* cut in the L4 header */
		rte_pktmbuf_trim(m, (uint16_t)(m->data_len - (uint32_t)(l4 + 2 - p)));
	m->port = 0;
	return m;
}

/* The JSON of a CLI command's answer (the caller frees it). */
static char *cli_json(const char *line)
{
	struct sl_out o = {.json = true};
	size_t len;
	CHECK(sl_cli_exec(&o, line) == 0);
	return sl_out_finish(&o, &len);
}

/* ACL 0's hits per rule, into h (up to 8). */
static void acl_hits(uint64_t h[8])
{
	char *t = cli_json("show acl-plugin acl index 0"), *at = t;
	memset(h, 0, 8 * sizeof(h[0]));
	for (int i = 0; i < 8 && (at = strstr(at, "\"hits\":")); i++) {
		at += 7;
		h[i] = strtoull(at, NULL, 10);
	}
	free(t);
}

/* worker 0's acl-input flow cache of a family ("ipv4", "ipv6"): lookups, hits, bypassed;
 * and its state ("" when it has none) */
static const char *fc_counts(const char *fam, uint64_t v[3])
{
	static char state[16];
	char *t = cli_json("show acl-plugin flow-cache"), key[64], *row;
	snprintf(key, sizeof(key), "\"worker\": 0, \"direction\": \"input\", \"family\": \"%s\"", fam);
	static const char *const k[3] = {"\"lookups\":", "\"hits\":", "\"bypassed\":"};
	state[0] = 0;
	for (int i = 0; i < 3; i++)
		v[i] = UINT64_MAX;
	if ((row = strstr(t, key))) {
		for (int i = 0; i < 3; i++) {
			char *at = strstr(row, k[i]);
			v[i] = at ? strtoull(at + strlen(k[i]), NULL, 10) : UINT64_MAX;
		}
		char *at = strstr(row, "\"state\": \"");
		if (at)
			sscanf(at + 10, "%15[a-z]", state);
	}
	free(t);
	return state;
}

static void test_acl_linear_vs_rte_acl(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	char line[2048];
	uint32_t differ = 0, dropped = 0, passed = 0;
	uint64_t none[3];
	CHECK(!strcmp(fc_counts("ipv4", none), "")); /* no cache before rte_acl is used */
	/* a direction's and family's caches once one of its classifiers that uses rte_acl is
	 * applied there: IPv4's input cache alone here */
	cli("set acl-plugin linear-max 0");
	cli("set acl-plugin acl index 0 permit src 10.0.0.0/8 proto 17, deny src 10.0.0.0/8");
	cli("set acl-plugin interface port0 input acl 0");
	CHECK(!strcmp(fc_counts("ipv4", none), "on") && !strcmp(fc_counts("ipv6", none), ""));
	char *fcs = cli_json("show acl-plugin flow-cache");
	CHECK(strstr(fcs, "\"direction\": \"input\"") && !strstr(fcs, "\"direction\": \"output\""));
	free(fcs);
	cli("set acl-plugin interface port0 input acl 0 del");
	cli("set acl-plugin linear-max 8");
	for (int t = 0; t < 150; t++) {
		rnd_acl(line, sizeof(line));
		cli(line);
		if (t == 0)
			cli("set acl-plugin interface port0 input acl 0");
		uint32_t seed = lcg;
		const char *to[4][64];
		uint64_t hits[4][8], h0[8], deny[4], miss[4];
		for (int mode = 0; mode < 4; mode++) {
			if (mode < 2)
				cli(mode ? "set acl-plugin linear-max 0" : "set acl-plugin linear-max 8");
			cli(mode == 1 ? "set acl-plugin flow-cache off" : "set acl-plugin flow-cache on");
			lcg = seed; /* the same frames both times */
			struct rte_mbuf *pk[64];
			for (int i = 0; i < 64; i++)
				pk[i] = rnd_frame();
			acl_hits(h0);
			uint64_t d0 = err_count("acl-input", "acl deny"),
				 m0 = err_count("acl-input", "acl no rule matched (default deny)");
			node_edges("acl-input", pk, 64, to[mode]);
			acl_hits(hits[mode]);
			for (int r = 0; r < 8; r++)
				hits[mode][r] -= h0[r];
			deny[mode] = err_count("acl-input", "acl deny") - d0;
			miss[mode] = err_count("acl-input", "acl no rule matched (default deny)") - m0;
		}
		bool same = true;
		for (int mode = 1; mode < 4; mode++)
			same = same && !memcmp(hits[0], hits[mode], sizeof(hits[0])) &&
			       deny[0] == deny[mode] && miss[0] == miss[mode];
		for (int i = 0; i < 64; i++) {
			for (int mode = 1; mode < 4; mode++)
				same = same && !strcmp(to[0][i], to[mode][i]);
			dropped += !strcmp(to[0][i], "error-drop");
			passed += !strcmp(to[0][i], "ethernet-input");
		}
		if (!same && differ++ < 3)
			fprintf(stderr, "linear, rte_acl and the flow cache differ with '%s'\n", line);
	}
	CHECK(differ == 0);
	CHECK(dropped > 1000 && passed > 1000); /* both outcomes, many times */
	/* the caches answered (frames of rte_acl's classifiers, twice each round) */
	for (int f = 0; f < 2; f++) {
		uint64_t fc[3];
		fc_counts(f ? "ipv6" : "ipv4", fc);
		CHECK(fc[0] > 3000 && fc[1] > 1500 && fc[1] < fc[0] && fc[2] == 0);
	}
	/* the setting shows, and is refused out of range */
	cli("set acl-plugin linear-max 8");
	char *t = cli_json("show acl-plugin interface port0");
	CHECK(strstr(t, "linear") != NULL);
	free(t);
	cli("set acl-plugin linear-max 0");
	t = cli_json("show acl-plugin interface port0");
	CHECK(strstr(t, "rte_acl") && !strstr(t, "linear"));
	free(t);
	CHECK(env_cli("set acl-plugin linear-max 65", true) != 0);
	cli("set acl-plugin linear-max 8");
	cli("set acl-plugin interface port0 input acl 0 del");
	cli("delete acl-plugin acl index 0");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* A vector whose frames alternate at random between two interfaces with different ACLs (a
 * run of packets with one classifier ends where the next packet's interface has another):
 * each frame judged by its own interface's ACL, linearly and by rte_acl, and every deny and
 * miss counted. */
static void test_acl_runs(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	cli("set acl-plugin acl index 0 deny proto 17 dport 7, permit proto 17");
	cli("set acl-plugin acl index 1 permit proto 17 dport 7");
	cli("set acl-plugin interface port0 input acl 0");
	cli("set acl-plugin interface port1 input acl 1");
	/* linear; rte_acl and the flow cache; then port1 with port0's ACL: one classifier for
	 * both, a run across them (acl-input's usual loop ends at port1's first frame) */
	for (int mode = 0; mode < 3; mode++) {
		cli(mode ? "set acl-plugin linear-max 0" : "set acl-plugin linear-max 8");
		if (mode == 2) {
			cli("set acl-plugin interface port1 input acl 1 del");
			cli("set acl-plugin interface port1 input acl 0");
		}
		struct rte_mbuf *pk[64];
		const char *want[64];
		uint64_t deny = 0, miss = 0;
		for (int i = 0; i < 64; i++) {
			uint16_t port = (uint16_t)rnd(2), dport = rnd(2) ? 7 : 9;
			pk[i] = udp_pkt(0x30000001, 64, 1);
			pk[i]->port = port;
			rte_pktmbuf_mtod_offset(pk[i], struct rte_udp_hdr *, 34)->dst_port =
				rte_cpu_to_be_16(dport);
			if (mode == 2)
				port = 0; /* port1's frames as port0's */
			bool pass = port ? dport == 7 : dport != 7;
			want[i] = pass ? "ethernet-input" : "error-drop";
			deny += !port && dport == 7;
			miss += port && dport != 7;
		}
		uint64_t d0 = err_count("acl-input", "acl deny"),
			 m0 = err_count("acl-input", "acl no rule matched (default deny)");
		check_edges("acl-input", pk, 64, want);
		CHECK(err_count("acl-input", "acl deny") - d0 == deny);
		CHECK(err_count("acl-input", "acl no rule matched (default deny)") - m0 == miss);
		CHECK(deny > 5 && (mode == 2 ? miss == 0 : miss > 5));
	}
	cli("set acl-plugin linear-max 8");
	cli("set acl-plugin interface port0 input acl 0 del");
	cli("set acl-plugin interface port1 input acl 0 del");
	cli("delete acl-plugin acl index 0");
	cli("delete acl-plugin acl index 1");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* ---- the ACL flow cache rests on traffic of more flows than it holds: 396,800 frames of
 * distinct 5-tuples, each looked up once, never found: a new classifier's first 393,216
 * lookups (as many as IPv4's cache holds) are not judged but the window that ends with them
 * is, and makes it stop looking (rte_acl alone) and say so, while every frame still gets
 * rte_acl's answer;
 * the ACL replaced, it looks again (a vector of one flow: 64 misses, then 64 hits); off, it
 * is off ---- */
static void test_acl_flow_cache_rests(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	cli("set acl-plugin linear-max 0");
	cli("set acl-plugin acl permit proto 17 dport 9, deny");
	cli("set acl-plugin interface port0 input acl 0");
	uint64_t v0[3], v1[3];
	CHECK(!strcmp(fc_counts("ipv4", v0), "on"));
	uint32_t passed = 0;
	enum { VECS = 6200, WARM = 393216 };
	for (int r = 0; r < VECS; r++) {
		struct rte_mbuf *pk[64];
		const char *to[64];
		for (int i = 0; i < 64; i++) {
			pk[i] = udp_pkt(0x30000000u + (uint32_t)(r * 64 + i), 64, 1);
			struct rte_udp_hdr *u = rte_pktmbuf_mtod_offset(pk[i], struct rte_udp_hdr *, 34);
			u->dst_port = i % 2 ? RTE_BE16(9) : RTE_BE16(10);
		}
		node_edges("acl-input", pk, 64, to);
		for (int i = 0; i < 64; i++)
			passed += !strcmp(to[i], i % 2 ? "ethernet-input" : "error-drop");
	}
	CHECK(passed == VECS * 64); /* odd ones permitted, even ones denied, all along */
	CHECK(!strcmp(fc_counts("ipv4", v1), "resting"));
	uint64_t looked = v1[0] - v0[0], bypassed = v1[2] - v0[2];
	CHECK(v1[1] == v0[1] && looked + bypassed == VECS * 64);
	CHECK(looked == WARM && bypassed == VECS * 64 - WARM);
	/* the ACL replaced: a new classifier, which starts cold, ends the rest */
	cli("set acl-plugin acl index 0 permit proto 17 dport 9, deny proto 6, deny");
	struct rte_mbuf *pk[64];
	const char *to[64];
	for (int i = 0; i < 64; i++)
		pk[i] = udp_pkt(0x30000000u, 64, 1); /* one flow: 63 hits after the first */
	node_edges("acl-input", pk, 64, to);
	for (int i = 0; i < 64; i++)
		pk[i] = udp_pkt(0x30000000u, 64, 1);
	node_edges("acl-input", pk, 64, to);
	uint64_t v2[3];
	CHECK(!strcmp(fc_counts("ipv4", v2), "on"));
	CHECK(v2[0] == v1[0] + 128 && v2[1] == v1[1] + 64 && v2[2] == v1[2]);
	CHECK(!strcmp(to[0], "error-drop") && !strcmp(to[63], "error-drop")); /* dport 0xabab */
	cli("set acl-plugin flow-cache off");
	CHECK(!strcmp(fc_counts("ipv4", v1), "off"));
	CHECK(env_cli("set acl-plugin flow-cache maybe", true) != 0);
	cli("set acl-plugin flow-cache on");
	cli("set acl-plugin interface port0 input acl 0 del");
	cli("delete acl-plugin acl index 0");
	cli("set acl-plugin linear-max 8");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* A UDP frame of family f (4 or 6) of flow i: its destination address and source port from i,
 * scattered (an odd multiplier: distinct flows for distinct i) so that the cache's sets get
 * them at random, not one each. */
static struct rte_mbuf *flow_frame(int f, uint32_t i)
{
	i *= 2654435761u;
	if (f == 4) {
		struct rte_mbuf *m = udp_pkt(0x30000000u + (i & 0xffff), 64, 1);
		rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, 34)->src_port =
			rte_cpu_to_be_16((uint16_t)(1024 + (i >> 16)));
		return m;
	}
	struct rte_mbuf *m;
	uint8_t *p = zero_frame(&m, 14 + 40 + 8 + 10);
	p[12] = 0x86, p[13] = 0xdd;
	uint8_t *ip = p + 14;
	ip[0] = 0x60, ip[5] = 18, ip[6] = 17, ip[7] = 64;
	static const uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};
	memcpy(ip + 8, a, 16);
	memcpy(ip + 24, a, 16);
	ip[36] = (uint8_t)(i >> 24), ip[37] = (uint8_t)(i >> 16), ip[38] = (uint8_t)(i >> 8);
	ip[39] = (uint8_t)i;
	ip[40] = 4, ip[42] = 0, ip[43] = 9; /* ports 1024 -> 9 */
	m->port = 0;
	return m;
}

/* acl-input's verdicts for flows 0..n-1 of family f (n-1..0 when rev), 64 a vector: how many
 * went to `want`. */
static uint32_t acl_flows(int f, uint32_t n, bool rev, const char *want)
{
	uint32_t got = 0;
	for (uint32_t r = 0; r < n; r += 64) {
		struct rte_mbuf *pk[64];
		const char *to[64];
		uint16_t k = (uint16_t)RTE_MIN(64u, n - r);
		for (uint16_t i = 0; i < k; i++)
			pk[i] = flow_frame(f, rev ? n - 1 - (r + i) : r + i);
		node_edges("acl-input", pk, k, to);
		for (uint16_t i = 0; i < k; i++)
			got += !strcmp(to[i], want);
	}
	return got;
}

/* ---- the flow cache's sets hold one classifier's results: as many flows as a family's cache
 * has sets (so that most sets hold two or three of them) classified by ACL A, which permits
 * them by its rule 0; A replaced by B, whose rule 0 denies TCP and rule 1 permits them. A set
 * whose ways kept A's keys past B's first insert would answer "rule 0" (B: deny) for them when
 * they come in the other order: every frame must pass, and none be denied. Then the same flows again, in the first order: the
 * cache, in sets of three ways, finds over 94% of them (97.5% of IPv4's, 97.3% of IPv6's; IPv6
 * in two ways found 89.0%). ---- */
static void test_acl_flow_cache_generations(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	cli("set acl-plugin linear-max 0");
	for (int f = 4; f <= 6; f += 2) {
		const uint32_t n = f == 4 ? 131072 : 65536; /* FC4_SETS, FC6_SETS */
		const char *fam = f == 4 ? "ipv4" : "ipv6";
		cli("set acl-plugin acl index 0 permit proto 17");
		cli("set acl-plugin interface port0 input acl 0");
		CHECK(acl_flows(f, n, false, "ethernet-input") == n);
		cli("set acl-plugin acl index 0 deny proto 6, permit proto 17");
		uint64_t d0 = err_count("acl-input", "acl deny"), v0[3], v1[3];
		/* the other way round: a set's first flow now is one A's first way holds */
		CHECK(acl_flows(f, n, true, "ethernet-input") == n);
		CHECK(err_count("acl-input", "acl deny") == d0);
		CHECK(!strcmp(fc_counts(fam, v0), "on"));
		CHECK(acl_flows(f, n, false, "ethernet-input") == n);
		CHECK(!strcmp(fc_counts(fam, v1), "on"));
		CHECK(v1[0] - v0[0] == n && (v1[1] - v0[1]) * 100 > (uint64_t)n * 94);
		cli("set acl-plugin interface port0 input acl 0 del");
		cli("delete acl-plugin acl index 0");
	}
	cli("set acl-plugin linear-max 8");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

/* qos-output's classification: the queue id, traffic class and colour it writes must be what
 * rte_sched_port_pkt_write writes on a port of the same shape; frames from another worker
 * reach the owner's scheduler through its ring; tail drops and a scheduler turned off with
 * frames queued are counted by name and leak nothing. */
static void qos_run(int w, struct rte_mbuf **pk, uint16_t n)
{
	char gname[16];
	snprintf(gname, sizeof(gname), "worker%d", w);
	struct rte_graph *g = sl_workers[w].graph;
	struct rte_node *node = rte_graph_node_get_by_name(gname, "qos-output");
	CHECK(node != NULL);
	if (node)
		CHECK(node->process(g, node, (void **)pk, n) == n);
}

static void test_qos_output(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	cli("qos profile u rate 1g");
	cli("set interface qos port1 rate 10g profile u subports 2 pipes 8 pipe-from ip-dst "
	    "queue-size 4");
	cli("set qos map port1 dscp 46 tc 0");
	cli("set qos map port1 dscp 2 tc 12 queue 3");
	/* the reference: a port of 2 subports of 8 pipes */
	struct rte_sched_subport_profile_params spp = {.tb_rate = 1250000000, .tb_size = 1000000,
						       .tc_period = 10};
	for (int t = 0; t < RTE_SCHED_TRAFFIC_CLASSES_PER_PIPE; t++)
		spp.tc_rate[t] = 1250000000;
	struct rte_sched_port_params pp = {.name = "ref", .rate = 1250000000, .mtu = 1522,
					   .frame_overhead = 24, .n_subports_per_port = 2,
					   .subport_profiles = &spp, .n_subport_profiles = 1,
					   .n_max_subport_profiles = 1, .n_pipes_per_subport = 8};
	struct rte_sched_port *ref = rte_sched_port_config(&pp);
	CHECK(ref != NULL);
	struct rte_sched_pipe_params pipe = {.tb_rate = 125000000, .tb_size = 1000000,
					     .tc_period = 10, .tc_ov_weight = 1,
					     .wrr_weights = {1, 1, 1, 1}};
	struct rte_sched_subport_params sp = {.n_pipes_per_subport_enabled = 8,
					      .pipe_profiles = &pipe, .n_pipe_profiles = 1,
					      .n_max_pipe_profiles = 1};
	for (int t = 0; t < RTE_SCHED_TRAFFIC_CLASSES_PER_PIPE; t++) {
		pipe.tc_rate[t] = 125000000;
		sp.qsize[t] = 4;
	}
	for (uint32_t k = 0; ref && k < 2; k++)
		if (rte_sched_subport_config(ref, k, &sp, 0)) {
			CHECK(0);
			ref = NULL; /* freed by rte_sched */
		}
	/* subport, pipe, tc, queue of each frame */
	static const uint32_t want[7][4] = {{0, 3, 12, 0}, {1, 3, 0, 0}, {0, 5, 12, 3}, {0, 5, 9, 0},
					    {1, 6, 12, 0}, {0, 2, 0, 0},  {0, 0, 12, 0}};
	struct rte_mbuf *pk[7];
	static const uint32_t dst[7] = {0x30000003, 0x3000000b, 0x30000005, 0x30000005, 0x30000001,
					0x30000002, 0};
	static const uint8_t tos[7] = {0, 46 << 2, 2 << 2, 24 << 2, 0, 46 << 2, 0};
	for (int i = 0; i < 7; i++) {
		pk[i] = udp_pkt(dst[i], 64, (uint16_t)i);
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(pk[i], struct rte_ipv4_hdr *, 14);
		ip->type_of_service = tos[i];
		sl_meta(pk[i])->tx_if = 1;
	}
	pk[4]->ol_flags |= sl_flag_qos; /* a feature chose subport 1, pipe 6 */
	sl_meta2(pk[4])->qos_subport = 1;
	sl_meta2(pk[4])->qos_pipe = 6;
	/* frame 5 tagged: VLAN 7, priority 5 (not read: classify dscp) */
	static const uint8_t tag[4] = {0x81, 0x00, 0xa0, 0x07};
	uint8_t *d = (uint8_t *)rte_pktmbuf_prepend(pk[5], 4);
	CHECK(d != NULL);
	if (d) {
		memmove(d, d + 4, 12);
		memcpy(d + 12, tag, 4);
	}
	rte_pktmbuf_trim(pk[6], pk[6]->data_len - 10); /* a runt: TC12, pipe 0 */
	qos_run(0, pk, 4);
	qos_run(1, pk + 4, 3); /* worker 1's, through the ring to worker 0 */
	env_walk_worker(1, 2);
	env_walk_worker(0, 4);
	struct rte_mbuf *out[64];
	unsigned n = drain(1, out, 64);
	CHECK(n == 7);
	for (unsigned k = 0; k < n; k++) {
		int i = 0;
		while (i < 7 && out[k] != pk[i])
			i++;
		CHECK(i < 7);
		if (i == 7 || !ref)
			continue;
		struct rte_mbuf m;
		memset(&m, 0, sizeof(m));
		rte_sched_port_pkt_write(ref, &m, want[i][0], want[i][1], want[i][2], want[i][3],
					 RTE_COLOR_GREEN);
		if (m.hash.sched.queue_id != out[k]->hash.sched.queue_id ||
		    m.hash.sched.traffic_class != out[k]->hash.sched.traffic_class ||
		    m.hash.sched.color != out[k]->hash.sched.color) {
			fprintf(stderr, "qos: frame %d queue %u tc %u, not %u %u\n", i,
				out[k]->hash.sched.queue_id, out[k]->hash.sched.traffic_class,
				m.hash.sched.queue_id, m.hash.sched.traffic_class);
			CHECK(0);
		}
	}
	rte_pktmbuf_free_bulk(out, n);
	rte_sched_port_free(ref);
	/* ten frames for one queue of four: six tail drops */
	struct rte_mbuf *q[10];
	for (int i = 0; i < 10; i++) {
		q[i] = udp_pkt(0x30000003, 64, (uint16_t)i);
		sl_meta(q[i])->tx_if = 1;
	}
	uint64_t full0 = err_count("qos-output", "qos queue full (tail drop)");
	qos_run(0, q, 10);
	CHECK(err_count("qos-output", "qos queue full (tail drop)") - full0 == 6);
	env_walk_worker(0, 4);
	n = drain(1, out, 64);
	CHECK(n == 4);
	rte_pktmbuf_free_bulk(out, n);
	/* turned off with frames queued (a 1 Mbit/s port lets about 3 kB out at once: 36 of 64
	 * frames of 84 bytes): each one is sent, tail-dropped or dropped by name at the end, none
	 * leaked */
	cli("set interface qos port1 disable");
	cli("qos profile s rate 1m");
	cli("set interface qos port1 rate 1m profile s");
	struct rte_mbuf *b[64];
	for (int i = 0; i < 64; i++) {
		b[i] = udp_pkt(0x30000004, 64, (uint16_t)i);
		sl_meta(b[i])->tx_if = 1;
	}
	full0 = err_count("qos-output", "qos queue full (tail drop)");
	qos_run(0, b, 64);
	env_walk_worker(0, 4);
	n = drain(1, out, 64);
	rte_pktmbuf_free_bulk(out, n);
	uint64_t tail = err_count("qos-output", "qos queue full (tail drop)") - full0;
	uint16_t off = UINT16_MAX;
	for (uint16_t e = 0; e < sl_nb_errors; e++)
		if (!strcmp(sl_errors[e].node, "qos-output") &&
		    !strcmp(sl_errors[e].reason, "qos turned off with the frame queued"))
			off = e;
	CHECK(off != UINT16_MAX);
	uint64_t off0 = off != UINT16_MAX ? sl_main_ctx->errors[off] : 0;
	cli("set interface qos port1 disable");
	uint64_t held = off != UINT16_MAX ? sl_main_ctx->errors[off] - off0 : 0;
	if (!(held > 0 && n + tail + held == 64))
		fprintf(stderr, "qos: sent %u, tail-dropped %lu, held %lu of 64\n", n,
			(unsigned long)tail, (unsigned long)held);
	CHECK(held > 0 && n + tail + held == 64);
	CHECK(sl_ifaces[1].tx_slot == sl_ifaces[1].out_slot && sl_if_fast_check() == 0);
	cli("qos profile s del");
	cli("qos profile u del");
	walk(4);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

static void test_rcu_retire(void)
{
	uintptr_t ran = 0;
	rte_rcu_qsbr_thread_online(sl_rcu, 0); /* graph 0's thread, as a worker in its loop */
	sl_rcu_retire(retired, &ran, 1);
	sl_rcu_retire(retired, &ran, 2);
	sl_rcu_reclaim();
	CHECK(ran == 0); /* worker 0 may still read what was retired */
	rte_rcu_qsbr_quiescent(sl_rcu, 0);
	sl_rcu_reclaim();
	CHECK(ran == 3);
	sl_rcu_retire(retired, &ran, 4);
	rte_rcu_qsbr_thread_offline(sl_rcu, 0); /* an offline worker holds nothing back */
	sl_rcu_reclaim();
	CHECK(ran == 7);
}

/* The munmap that DPDK's memif PMD calls from the EAL interrupt thread (a peer gone) waits
 * for a grace period (runtime.c): here from an alarm callback, which runs in that thread,
 * while graph 0's thread is online and has not passed a quiescent state; any other thread's
 * munmap does not wait. */
static volatile int unmapped;

static void unmap_in_intr(void *p)
{
	unmapped = munmap(p, 4096) == 0 ? 1 : -1;
}

static void test_munmap_waits_in_intr_thread(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	unmapped = 0;
	rte_rcu_qsbr_thread_online(sl_rcu, 0); /* in a burst on the region, as it were */
	CHECK(rte_eal_alarm_set(1, unmap_in_intr, p) == 0);
	usleep(200 * 1000);
	CHECK(unmapped == 0); /* still mapped: the reader is not through */
	((volatile char *)p)[0] = 1;
	rte_rcu_qsbr_quiescent(sl_rcu, 0);
	for (int i = 0; i < 2000 && !unmapped; i++)
		usleep(1000);
	CHECK(unmapped == 1);
	rte_rcu_qsbr_thread_offline(sl_rcu, 0);
	/* the main thread's own munmap, with a reader online, at once */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rte_rcu_qsbr_thread_online(sl_rcu, 0);
	CHECK(p != MAP_FAILED && munmap(p, 4096) == 0);
	rte_rcu_qsbr_thread_offline(sl_rcu, 0);
}

/* Before rte_eal_cleanup the EAL's interrupt thread is parked in a callback of ours
 * (eal_exit.h), where it stays: an alarm set after it never runs, so nothing walks the
 * interrupt sources while the EAL's memory is unmapped. Last: the thread is gone for the rest
 * of the process. */
static volatile int alarm_ran;

static void note_alarm(void *p)
{
	(void)p;
	alarm_ran = 1;
}

static void test_intr_thread_parked_before_cleanup(void)
{
	CHECK(rte_eal_alarm_set(1, note_alarm, NULL) == 0); /* the thread runs callbacks now */
	for (int i = 0; i < 2000 && !alarm_ran; i++)
		usleep(1000);
	CHECK(alarm_ran == 1);
	alarm_ran = 0;
	sl_intr_park();
	CHECK(__atomic_load_n(&sl_intr_parked, __ATOMIC_ACQUIRE) == 1);
	CHECK(rte_eal_alarm_set(1, note_alarm, NULL) == 0);
	usleep(100 * 1000);
	CHECK(alarm_ran == 0);
	rte_eal_alarm_cancel(note_alarm, NULL);
}

/* ip4-lookup with two tables: one vector mixing packets of table 0 (port0) and table 5
 * (loop0, no routes), and packets whose table a node chose ahead (sl_flag_fib). */
static void test_tables_in_one_vector(void)
{
	unsigned in_use = rte_mempool_in_use_count(sl_pool);
	walk(4);
	cli("ip table add 5");
	cli("create loopback interface instance 0");
	cli("set interface ip table loop0 5");
	CHECK(sl_fib_multi);
	struct sl_iface *lo = sl_iface_by_name("loop0");
	CHECK(lo != NULL);
	if (!lo)
		return;
	struct rte_mbuf *p[6];
	for (int i = 0; i < 6; i++)
		p[i] = ip_pkt(0x30000001, 17, 9);
	p[1]->port = lo->port;
	p[2]->port = lo->port;
	p[4]->port = lo->port;
	p[3]->ol_flags |= sl_flag_fib; /* port0's, but looked up in table 5 */
	sl_meta2(p[3])->fib = (uint16_t)sl_ip4_table_find(5);
	p[4]->ol_flags |= sl_flag_fib; /* loop0's, but looked up in table 0 */
	sl_meta2(p[4])->fib = 0;
	check_edges("ip4-lookup", p, 6,
		    (const char *const[]){"ip4-rewrite", "icmp4-error", "icmp4-error",
					  "icmp4-error", "ip4-rewrite", "ip4-rewrite"});
	/* a whole vector from one port, none with a table of its own: that port's table in one
	 * lookup (loop0's, then port0's); the same but the last with table 5 chosen ahead */
	for (int i = 0; i < 3; i++) {
		p[i] = ip_pkt(0x30000001, 17, 9);
		p[i]->port = lo->port;
	}
	check_edges("ip4-lookup", p, 3, (const char *const[]){"icmp4-error", "icmp4-error", "icmp4-error"});
	for (int i = 0; i < 3; i++)
		p[i] = ip_pkt(0x30000001, 17, 9);
	check_edges("ip4-lookup", p, 3, (const char *const[]){"ip4-rewrite", "ip4-rewrite", "ip4-rewrite"});
	for (int i = 0; i < 3; i++)
		p[i] = ip_pkt(0x30000001, 17, 9);
	p[2]->ol_flags |= sl_flag_fib;
	sl_meta2(p[2])->fib = (uint16_t)sl_ip4_table_find(5);
	check_edges("ip4-lookup", p, 3, (const char *const[]){"ip4-rewrite", "ip4-rewrite", "icmp4-error"});
	cli("set interface ip table loop0 0");
	cli("delete loopback interface intfc loop0");
	cli("ip table del 5");
	CHECK(!sl_fib_multi);
	CHECK(rte_mempool_in_use_count(sl_pool) == in_use);
}

int main(int argc, char **argv)
{
	(void)argc;
	env_graphs = 2;
	sl_udp_port_register(4789, "punt"); /* before the graphs, as a feature's constructor */
	if (env_init(argv[0], "sl-unit-nodes")) {
		fprintf(stderr, "test environment failed\n");
		return 1;
	}
	test_cksum_ttl_dec();
	test_forward();
	test_errors_and_icmp();
	test_rewrite_incomplete_adjacency();
	test_lookup_one();
	test_munmap_waits_in_intr_thread();
	test_churn();
	test_placement_and_shared_tx();
	test_xconnect_from_port_rx();
	test_edges();
	test_ecmp_hash_source();
	test_rewrite_follows_interface();
	test_ip6_edges();
	test_feature_arc();
	test_device_input_and_output_arcs();
	test_pg_output_free();
	test_turns();
	test_acl_input();
	test_if_line();
	test_acl_linear_vs_rte_acl();
	test_acl_runs();
	test_acl_flow_cache_rests();
	test_acl_flow_cache_generations();
	test_qos_output();
	test_rcu_retire();
	test_tables_in_one_vector();
	test_intr_thread_parked_before_cleanup();
	env_fini();
	return CHECK_REPORT();
}
