/* SPDX-License-Identifier: BSD-3-Clause */
/* ECMP/UCMP buckets (sl_lb_assign, src/ip4/lb.c): each path's share by weight, and a change
 * of paths moving only the buckets it must; the flow hashes (sl_flow_hash4, 6, and their
 * fields set by set ip flow-hash). No EAL. */
#include "../common/check.h"
#include "../../src/ip4/ip4.h"
#include "../../src/ip6/ip6.h"

#include <string.h>

static unsigned owned(const uint8_t *o, unsigned path)
{
	unsigned k = 0;
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++)
		k += o[b] == path;
	return k;
}

static void test_shares(void)
{
	uint8_t o[SL_LB_BUCKETS];
	uint16_t four[4] = {1, 1, 1, 1}, w13[2] = {1, 3}, w3[3] = {1, 1, 1};
	sl_lb_assign(o, NULL, four, 4);
	for (unsigned p = 0; p < 4; p++)
		CHECK(owned(o, p) == 64);
	sl_lb_assign(o, NULL, w13, 2);
	CHECK(owned(o, 0) == 64 && owned(o, 1) == 192);
	sl_lb_assign(o, NULL, w3, 3); /* 256 = 86 + 85 + 85: the remainder to the first */
	CHECK(owned(o, 0) == 86 && owned(o, 1) == 85 && owned(o, 2) == 85);
	/* the paths interleave over the buckets (a flow hash's low bits spread over all) */
	sl_lb_assign(o, NULL, four, 4);
	CHECK(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3 && o[4] == 0);
	uint16_t many[SL_PATHS_MAX];
	for (unsigned i = 0; i < SL_PATHS_MAX; i++)
		many[i] = 1;
	sl_lb_assign(o, NULL, many, SL_PATHS_MAX);
	for (unsigned p = 0; p < SL_PATHS_MAX; p++)
		CHECK(owned(o, p) == 4);
}

static void test_remove_moves_only_its_buckets(void)
{
	uint8_t o[SL_LB_BUCKETS], before[SL_LB_BUCKETS];
	uint16_t four[4] = {1, 1, 1, 1}, three[3] = {1, 1, 1};
	sl_lb_assign(o, NULL, four, 4);
	memcpy(before, o, sizeof(o));
	/* path 1 goes: 0 stays 0, 2 becomes 1, 3 becomes 2 */
	int16_t map[SL_PATHS_MAX];
	for (int k = 0; k < SL_PATHS_MAX; k++)
		map[k] = (int16_t)(k < 1 ? k : k == 1 ? -1 : k - 1);
	sl_lb_assign(o, map, three, 3);
	unsigned moved = 0;
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++) {
		if (before[b] != 1)
			CHECK(o[b] == map[before[b]]); /* the others' buckets stay theirs */
		else
			moved++;
	}
	CHECK(moved == 64);
	CHECK(owned(o, 0) >= 85 && owned(o, 1) >= 85 && owned(o, 2) >= 85);
}

static void test_add_and_reweight_move_least(void)
{
	uint8_t o[SL_LB_BUCKETS], before[SL_LB_BUCKETS];
	uint16_t three[4] = {1, 1, 1}, four[4] = {1, 1, 1, 1};
	int16_t same[SL_PATHS_MAX];
	for (int k = 0; k < SL_PATHS_MAX; k++)
		same[k] = (int16_t)(k < 3 ? k : -1);
	sl_lb_assign(o, NULL, three, 3);
	memcpy(before, o, sizeof(o));
	sl_lb_assign(o, same, four, 4); /* a fourth path takes 64, from the others only */
	unsigned changed = 0;
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++)
		if (o[b] != before[b]) {
			changed++;
			CHECK(o[b] == 3);
		}
	CHECK(changed == 64 && owned(o, 3) == 64);
	/* path 3's weight 1 -> 3: 64 -> 128 of 256, taken from the others */
	memcpy(before, o, sizeof(o));
	for (int k = 0; k < SL_PATHS_MAX; k++)
		same[k] = (int16_t)(k < 4 ? k : -1);
	uint16_t w[4] = {1, 1, 1, 3};
	sl_lb_assign(o, same, w, 4);
	changed = 0;
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++)
		if (o[b] != before[b]) {
			changed++;
			CHECK(o[b] == 3);
		}
	CHECK(owned(o, 3) == 128 && changed == 64);
}

/* An IPv4 header at offset 14 of a frame (2-byte aligned, as after Ethernet), ports after. */
static struct rte_ipv4_hdr *hdr(uint8_t *frame, uint8_t proto, uint16_t frag, uint16_t sport)
{
	memset(frame, 0, 64);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + 14);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(28);
	ip->fragment_offset = rte_cpu_to_be_16(frag);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0x30000001);
	frame[34] = (uint8_t)(sport >> 8);
	frame[35] = (uint8_t)sport;
	frame[37] = 80;
	return ip;
}

static struct rte_ipv6_hdr *hdr6(uint8_t *frame, uint8_t proto, uint32_t flow, uint16_t sport)
{
	memset(frame, 0, 96);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(frame + 14);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | flow);
	ip->payload_len = rte_cpu_to_be_16(8);
	ip->proto = proto;
	ip->hop_limits = 64;
	ip->src_addr[0] = 0x20, ip->src_addr[15] = 1;
	ip->dst_addr[0] = 0x24, ip->dst_addr[15] = 2;
	frame[54] = (uint8_t)(sport >> 8);
	frame[55] = (uint8_t)sport;
	frame[57] = 80;
	return ip;
}

/* IPv6: addresses, next header, and the ports only when a transport with ports follows the
 * 40-byte header; the flow label not by default (VPP's), with flowlabel set */
static void test_flow_hash6(void)
{
	uint8_t f[96];
	struct rte_mbuf m;
	memset(&m, 0, sizeof(m));
	uint32_t udp1 = sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1000));
	CHECK(udp1 == sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1000)));
	CHECK(udp1 != sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1001)));
	CHECK(udp1 != sl_flow_hash6(&m, hdr6(f, IPPROTO_TCP, 0, 1000)));
	CHECK(udp1 == sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 7, 1000))); /* the flow label */
	CHECK(sl_flow_hash6_cfg(hdr6(f, IPPROTO_UDP, 0, 1000), SL_FH_DEFAULT6 | SL_FH_FLOWLABEL) !=
	      sl_flow_hash6_cfg(hdr6(f, IPPROTO_UDP, 7, 1000), SL_FH_DEFAULT6 | SL_FH_FLOWLABEL));
	struct rte_ipv6_hdr *ip = hdr6(f, IPPROTO_UDP, 0, 1000);
	ip->vtc_flow |= rte_cpu_to_be_32(0xb8u << 20); /* the traffic class is not hashed */
	CHECK(udp1 == sl_flow_hash6(&m, ip));
	ip = hdr6(f, IPPROTO_UDP, 0, 1000);
	ip->dst_addr[15] = 3;
	CHECK(udp1 != sl_flow_hash6(&m, ip));
	/* ICMPv6 and an extension header first: what follows the header is not hashed */
	CHECK(sl_flow_hash6(&m, hdr6(f, IPPROTO_ICMPV6, 0, 1)) == sl_flow_hash6(&m, hdr6(f, IPPROTO_ICMPV6, 0, 2)));
	CHECK(sl_flow_hash6(&m, hdr6(f, IPPROTO_FRAGMENT, 0, 1)) == sl_flow_hash6(&m, hdr6(f, IPPROTO_FRAGMENT, 0, 2)));
	CHECK(sl_flow_hash6(&m, hdr6(f, IPPROTO_ICMPV6, 0, 1)) != sl_flow_hash6(&m, hdr6(f, IPPROTO_FRAGMENT, 0, 1)));
	m.ol_flags = RTE_MBUF_F_RX_RSS_HASH;
	m.hash.rss = 0x4321;
	CHECK(sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1000)) == 0x4321);
}

static void test_flow_hash(void)
{
	uint8_t f[64];
	struct rte_mbuf m;
	memset(&m, 0, sizeof(m));
	uint32_t udp1 = sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, 0, 1000));
	CHECK(udp1 == sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, 0, 1000))); /* one flow, one hash */
	CHECK(udp1 != sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, 0, 1001))); /* the ports count */
	CHECK(udp1 != sl_flow_hash4(&m, hdr(f, IPPROTO_TCP, 0, 1000))); /* so does the protocol */
	/* DF changes nothing; a fragment (MF or an offset) hashes without ports, so all of a
	 * datagram's fragments take one path */
	CHECK(udp1 == sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, RTE_IPV4_HDR_DF_FLAG, 1000)));
	uint32_t mf = sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, RTE_IPV4_HDR_MF_FLAG, 1000));
	CHECK(mf != udp1);
	CHECK(mf == sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, RTE_IPV4_HDR_MF_FLAG, 2000)));
	CHECK(mf == sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, 185, 3000)));
	/* ICMP has no ports: what follows the header is not hashed */
	CHECK(sl_flow_hash4(&m, hdr(f, IPPROTO_ICMP, 0, 1)) == sl_flow_hash4(&m, hdr(f, IPPROTO_ICMP, 0, 2)));
	/* options: the ports are not at offset 20, so none are hashed */
	struct rte_ipv4_hdr *ip = hdr(f, IPPROTO_UDP, 0, 1);
	ip->version_ihl = 0x46;
	uint32_t opt = sl_flow_hash4(&m, ip);
	ip = hdr(f, IPPROTO_UDP, 0, 2);
	ip->version_ihl = 0x46;
	CHECK(opt == sl_flow_hash4(&m, ip));
	/* the port's RSS hash, when it gave one */
	m.ol_flags = RTE_MBUF_F_RX_RSS_HASH;
	m.hash.rss = 0x1234;
	CHECK(sl_flow_hash4(&m, hdr(f, IPPROTO_UDP, 0, 1000)) == 0x1234);
}

/* A random header of either family at offset 14 of f: one of TCP, UDP, ICMP or GRE, a
 * quarter of the IPv4 ones fragments. */
static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static struct rte_ipv4_hdr *rnd_hdr(uint8_t *f)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_GRE};
	uint16_t frag = (rnd() & 3) == 0 ? RTE_IPV4_HDR_MF_FLAG : 0;
	struct rte_ipv4_hdr *ip = hdr(f, protos[rnd() & 3], frag, (uint16_t)rnd());
	ip->src_addr = (uint32_t)rnd();
	ip->dst_addr = (uint32_t)rnd();
	f[36] = (uint8_t)rnd(), f[37] = (uint8_t)rnd();
	return ip;
}

static struct rte_ipv6_hdr *rnd_hdr6(uint8_t *f)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6, IPPROTO_FRAGMENT};
	struct rte_ipv6_hdr *ip = hdr6(f, protos[rnd() & 3], (uint32_t)rnd() & 0xfffff, (uint16_t)rnd());
	for (int i = 0; i < 16; i++)
		ip->src_addr[i] = (uint8_t)rnd(), ip->dst_addr[i] = (uint8_t)rnd();
	f[56] = (uint8_t)rnd(), f[57] = (uint8_t)rnd();
	return ip;
}

/* The same flow the other way: addresses and ports swapped. */
static void turn(uint8_t *f, bool v6)
{
	uint8_t t[16];
	unsigned a = v6 ? 22 : 26, len = v6 ? 16 : 4, p = v6 ? 54 : 34;
	memcpy(t, f + a, len);
	memmove(f + a, f + a + len, len);
	memcpy(f + a + len, t, len);
	memcpy(t, f + p, 2);
	memmove(f + p, f + p + 2, 2);
	memcpy(f + p + 2, t, 2);
}

/* set ip flow-hash: the defaults give the lookups' own hash; each field left out, reverse,
 * symmetric and the router id do what they say */
static void test_flow_hash_cfg(void)
{
	uint8_t f[96], g[96];
	for (int k = 0; k < 20000; k++) {
		struct rte_ipv4_hdr *ip = rnd_hdr(f);
		CHECK(sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4) == sl_flow_hash4_sw(ip));
		uint32_t fwd = sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4);
		uint32_t sym = sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4 | SL_FH_SYMMETRIC);
		uint32_t src = sl_flow_hash4_cfg(ip, SL_FH_SRC);
		memcpy(g, f, sizeof(g));
		turn(g, false);
		struct rte_ipv4_hdr *back = (struct rte_ipv4_hdr *)(g + 14);
		CHECK(sl_flow_hash4_cfg(back, SL_FH_DEFAULT4 | SL_FH_REVERSE) == fwd);
		CHECK(sl_flow_hash4_cfg(back, SL_FH_DEFAULT4 | SL_FH_SYMMETRIC) == sym);
		/* src alone: the same for any destination, ports and protocol */
		back->src_addr = ip->src_addr;
		back->next_proto_id = (uint8_t)rnd();
		CHECK(sl_flow_hash4_cfg(back, SL_FH_SRC) == src);
		struct rte_ipv6_hdr *ip6 = rnd_hdr6(f);
		CHECK(sl_flow_hash6_cfg(ip6, SL_FH_DEFAULT6) == sl_flow_hash6_sw(ip6));
		fwd = sl_flow_hash6_cfg(ip6, SL_FH_DEFAULT6);
		sym = sl_flow_hash6_cfg(ip6, SL_FH_DEFAULT6 | SL_FH_SYMMETRIC);
		uint32_t fl = sl_flow_hash6_cfg(ip6, SL_FH_DEFAULT6 | SL_FH_FLOWLABEL);
		CHECK(sl_flow_hash6_fields(ip6, true) == fl); /* ip6-lookup's loop for it */
		/* x86's assembly against the C */
		CHECK(sl_flow_hash6_fields(ip6, false) == sl_flow_hash6_c(ip6, false));
		CHECK(sl_flow_hash6_fields(ip6, true) == sl_flow_hash6_c(ip6, true));
		memcpy(g, f, sizeof(g));
		turn(g, true);
		struct rte_ipv6_hdr *back6 = (struct rte_ipv6_hdr *)(g + 14);
		CHECK(sl_flow_hash6_cfg(back6, SL_FH_DEFAULT6 | SL_FH_REVERSE) == fwd);
		CHECK(sl_flow_hash6_cfg(back6, SL_FH_DEFAULT6 | SL_FH_SYMMETRIC) == sym);
		CHECK(sl_flow_hash6_cfg(back6, SL_FH_DEFAULT6 | SL_FH_FLOWLABEL | SL_FH_REVERSE) == fl);
		/* by default another label is the same flow; with flowlabel, another */
		ip6->vtc_flow ^= rte_cpu_to_be_32(0x12345);
		CHECK(sl_flow_hash6_cfg(ip6, SL_FH_DEFAULT6) == fwd);
		CHECK(sl_flow_hash6_sw(ip6) == fwd);
		CHECK(sl_flow_hash6_cfg(ip6, SL_FH_DEFAULT6 | SL_FH_FLOWLABEL) != fl);
	}
	/* symmetric where the directions differ: the plain hash tells them apart */
	struct rte_ipv4_hdr *ip = hdr(f, IPPROTO_UDP, 0, 1000);
	memcpy(g, f, sizeof(g));
	turn(g, false);
	CHECK(sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4) != sl_flow_hash4_cfg((struct rte_ipv4_hdr *)(g + 14), SL_FH_DEFAULT4));

	/* the router id: the flows that one router's 4 paths (buckets owned in turn) send down
	 * one path are spread over all 4 paths of a next router with another id; with the same
	 * hash there they would all take one path again */
	unsigned down[4] = {0}, same[4] = {0}, n = 0;
	sl_fh_seed = 0x5eed;
	for (int k = 0; k < 40000; k++) {
		ip = rnd_hdr(f);
		uint32_t a = sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4);
		if ((a & (SL_LB_BUCKETS - 1)) % 4)
			continue;
		n++;
		same[(sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4) & (SL_LB_BUCKETS - 1)) % 4]++;
		down[(sl_flow_hash4_cfg(ip, SL_FH_DEFAULT4 | SL_FH_SEEDED) & (SL_LB_BUCKETS - 1)) % 4]++;
	}
	CHECK(n > 8000 && same[0] == n);
	for (int p = 0; p < 4; p++)
		CHECK(down[p] > n * 22 / 100 && down[p] < n * 28 / 100);
	sl_fh_seed = 0;

	/* the control side: fields kept apart from the seeded bit, tables apart, reset */
	sl_fh_set(false, 3, SL_FH_SRC | SL_FH_DST);
	sl_fh_set(true, 3, SL_FH_SRC | SL_FH_SYMMETRIC);
	CHECK(sl_fh4[3] == (SL_FH_SRC | SL_FH_DST) && sl_fh6[3] == (SL_FH_SRC | SL_FH_SYMMETRIC));
	CHECK(sl_fh4[0] == SL_FH_DEFAULT4 && sl_fh6[0] == SL_FH_DEFAULT6);
	sl_fh_seed_set(7);
	CHECK(sl_fh_seed == 7 && sl_fh4[0] == (SL_FH_DEFAULT4 | SL_FH_SEEDED) &&
	      sl_fh6[3] == (SL_FH_SRC | SL_FH_SYMMETRIC | SL_FH_SEEDED));
	CHECK(sl_fh_get(false, 3) == (SL_FH_SRC | SL_FH_DST));
	sl_fh_reset(3);
	CHECK(sl_fh4[3] == (SL_FH_DEFAULT4 | SL_FH_SEEDED) && sl_fh6[3] == (SL_FH_DEFAULT6 | SL_FH_SEEDED));
	sl_fh_seed_set(0);
	CHECK(sl_fh4[3] == SL_FH_DEFAULT4 && sl_fh6[0] == SL_FH_DEFAULT6);
	char buf[96];
	sl_fh_format(buf, sizeof(buf), SL_FH_DEFAULT6 | SL_FH_SYMMETRIC | SL_FH_FLOWLABEL);
	CHECK(!strcmp(buf, "src dst sport dport proto symmetric flowlabel"));
}

int main(void)
{
	test_flow_hash_cfg();
	test_flow_hash();
	test_flow_hash6();
	test_shares();
	test_remove_moves_only_its_buckets();
	test_add_and_reweight_move_least();
	return CHECK_REPORT();
}
