/* SPDX-License-Identifier: BSD-3-Clause */
/* ECMP/UCMP buckets (sl_lb_assign, src/ip4/lb.c): each path's share by weight, and a change
 * of paths moving only the buckets it must; the flow hash (sl_flow_hash4). No EAL. */
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

/* IPv6: addresses, flow label, next header, and the ports only when a transport with ports
 * follows the 40-byte header */
static void test_flow_hash6(void)
{
	uint8_t f[96];
	struct rte_mbuf m;
	memset(&m, 0, sizeof(m));
	uint32_t udp1 = sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1000));
	CHECK(udp1 == sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1000)));
	CHECK(udp1 != sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 0, 1001)));
	CHECK(udp1 != sl_flow_hash6(&m, hdr6(f, IPPROTO_TCP, 0, 1000)));
	CHECK(udp1 != sl_flow_hash6(&m, hdr6(f, IPPROTO_UDP, 7, 1000))); /* the flow label */
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

int main(void)
{
	test_flow_hash();
	test_flow_hash6();
	test_shares();
	test_remove_moves_only_its_buckets();
	test_add_and_reweight_move_least();
	return CHECK_REPORT();
}
