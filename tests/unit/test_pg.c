/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of packet-generator streams: the grammar, and every built packet's fields,
 * lengths and checksums (IPv4 and IPv6, UDP and TCP, VLAN, ranges, sizes). */
#include "../common/check.h"
#include "../../src/cli/cli.h"
#include "../../src/pg/pg.h"

#include <stdlib.h>
#include <string.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

static int parse(struct sl_pg_stream *s, const char *text, char *err)
{
	char *copy = strdup(text), *argv[256];
	int argc = sl_cli_tokenize(copy, argv, 256);
	int rc = sl_pg_parse(s, argc, argv, err, 256);
	free(copy);
	return rc;
}

static void test_ip4_udp_ranges(void)
{
	struct sl_pg_stream s;
	char err[256] = "";
	CHECK(parse(&s, "{ name a limit 7 rate 1e3 size 64-66 worker 1 interface pg0 data { "
			"IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 vlan 7 "
			"UDP: 10.0.0.1 -> 48.0.0.254 - 48.0.1.1 ttl 5 UDP: 2123 -> 10000 - 10001 } }",
		    err) == 0);
	CHECK(!strcmp(s.name, "a") && s.limit == 7 && s.rate == 1000 && s.worker == 1);
	CHECK(!strcmp(s.ifname, "pg0") && !strcmp(s.node, "ethernet-input"));
	CHECK(s.size_min == 64 && s.size_max == 66 && s.vary && s.nfields == 2);
	uint8_t b[SL_PG_MAX_FRAME];
	for (uint64_t seq = 0; seq < 12; seq++) {
		uint16_t len = sl_pg_build(&s, seq, b);
		CHECK(len == 64 + seq % 3);
		struct rte_ether_hdr *eh = (void *)b;
		struct rte_vlan_hdr *vh = (void *)(eh + 1);
		CHECK(eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN));
		CHECK(vh->vlan_tci == RTE_BE16(7) && vh->eth_proto == RTE_BE16(RTE_ETHER_TYPE_IPV4));
		struct rte_ipv4_hdr *ip = (void *)(vh + 1);
		struct rte_udp_hdr *u = (void *)(ip + 1);
		CHECK(rte_be_to_cpu_16(ip->total_length) == len - 18);
		CHECK(ip->time_to_live == 5 && ip->next_proto_id == IPPROTO_UDP);
		CHECK(rte_ipv4_cksum(ip) == 0 || rte_raw_cksum(ip, 20) == 0xffff);
		/* 48.0.0.254, 48.0.0.255, 48.0.1.0, 48.0.1.1, then again */
		CHECK(rte_be_to_cpu_32(ip->dst_addr) == 0x300000feu + seq % 4);
		CHECK(rte_be_to_cpu_16(u->dst_port) == 10000 + seq % 2);
		CHECK(rte_be_to_cpu_16(u->dgram_len) == len - 18 - 20);
		CHECK(rte_ipv4_udptcp_cksum_verify(ip, u) == 0);
	}
	sl_pg_free(&s);
}

static void test_ip6_tcp_fixed(void)
{
	struct sl_pg_stream s;
	char err[256] = "";
	CHECK(parse(&s, "{ name b size 100 interface pg1 data { "
			"IP6: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
			"TCP: 2001:db8::1 -> 2001:db8::a - 2001:db8::b TCP: 80 -> 443 flags 18 } }",
		    err) == 0);
	CHECK(s.ip_version == 6 && s.l4_proto == IPPROTO_TCP && s.vary);
	uint8_t b[SL_PG_MAX_FRAME];
	for (uint64_t seq = 0; seq < 3; seq++) {
		CHECK(sl_pg_build(&s, seq, b) == 100);
		struct rte_ipv6_hdr *ip = (void *)(b + 14);
		struct rte_tcp_hdr *t = (void *)(ip + 1);
		CHECK(rte_be_to_cpu_16(ip->payload_len) == 100 - 14 - 40);
		CHECK(ip->dst_addr[15] == 0xa + seq % 2 && ip->dst_addr[0] == 0x20);
		CHECK(t->tcp_flags == 18 && t->data_off == 0x50);
		CHECK(rte_ipv6_udptcp_cksum_verify(ip, t) == 0);
	}
	sl_pg_free(&s);
	/* a fixed stream: built once, every packet the same */
	CHECK(parse(&s, "{ name c interface pg0 node ip4-input data { UDP: 1.1.1.1 -> 2.2.2.2 } }",
		    err) == 0);
	CHECK(!s.vary && s.size_min == 64 && s.l3_off == 0);
	uint8_t c[SL_PG_MAX_FRAME];
	CHECK(sl_pg_build(&s, 0, b) == 64 && sl_pg_build(&s, 5, c) == 64 && !memcmp(b, c, 64));
	CHECK(rte_raw_cksum(b, 20) == 0xffff && ((struct rte_ipv4_hdr *)b)->next_proto_id == 253);
	sl_pg_free(&s);
}

/* Random fields, prefixes and IMIX: checksums kept up to date word by word (RFC 1624) must
 * equal the ones computed from scratch, for every size and value. */
static void test_random_prefix_incremental_checksums(void)
{
	static const char *defs[] = {
		"{ name r size imix interface pg0 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
		"TCP: 16.0.0.0/8 random -> 48.0.0.0/8 random TCP: 2123 random -> 1-65535 random } }",
		"{ name s size 70-1500 interface pg0 data { IP6: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
		"UDP: 2001:db8::/64 random -> 2001:db8:1::1 - 2001:db8:1::ff UDP: 0-65535 -> 53 } }",
		"{ name t size 60-61 interface pg0 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
		"UDP: 0.0.0.0/0 random -> 255.255.255.0/24 random UDP: 0 - 65535 random -> 0 random } }",
	};
	for (unsigned d = 0; d < 3; d++) {
		struct sl_pg_stream s;
		char err[256];
		CHECK(parse(&s, defs[d], err) == 0);
		uint8_t *b = aligned_alloc(64, SL_PG_MAX_FRAME);
		uint32_t dsts = 0, last = 0;
		for (uint64_t seq = 0; seq < 3000; seq++) {
			uint16_t len = sl_pg_build(&s, seq * 977, b);
			CHECK(len >= s.size_min && len <= s.size_max);
			if (s.ip_version == 4) {
				struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);
				CHECK(rte_raw_cksum(ip, 20) == 0xffff);
				CHECK(rte_be_to_cpu_16(ip->total_length) == len - 14);
				CHECK(rte_ipv4_udptcp_cksum_verify(ip, ip + 1) == 0);
				uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
				CHECK(d != 0 || (dst >> 24) == 48);
				CHECK(d != 2 || (dst >> 8) == 0xffffff);
				dsts += dst != last;
				last = dst;
			} else {
				struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + 14);
				CHECK(rte_be_to_cpu_16(ip->payload_len) == len - 54);
				CHECK(rte_ipv6_udptcp_cksum_verify(ip, ip + 1) == 0);
				CHECK(!memcmp(ip->src_addr, "\x20\x01\x0d\xb8\0\0\0\0", 8));
				dsts++;
			}
		}
		CHECK(dsts > 2900); /* random: the value changes nearly every packet */
		free(b);
		sl_pg_free(&s);
	}
}

static unsigned __int128 addr128(const uint8_t *a)
{
	unsigned __int128 v = 0;
	for (int i = 0; i < 16; i++)
		v = v << 8 | a[i];
	return v;
}

/* IPv6 ranges across /64s (16-byte fields): a sequential range steps by one through the
 * /64 boundary and wraps at its end; random prefixes shorter than /64 (down to /0) stay in
 * the prefix and spread over its /48s; checksums right throughout; the source's range
 * within a /64 still on the 8-byte field. */
static void test_ip6_wide_ranges(void)
{
	struct sl_pg_stream s;
	char err[256];
	CHECK(parse(&s, "{ name w size 62-100 interface pg0 data { IP6: 02:00:00:00:00:01 -> "
			"02:00:00:00:00:02 UDP: 2001:db8::1 - 2001:db8::9 -> "
			"2001:db8:0:ffff:ffff:ffff:ffff:fffe - 2001:db8:1::1 UDP: 1 -> 2 } }",
		    err) == 0);
	CHECK(s.wide && s.nfields == 2 && s.f[0].width == 8 && s.f[1].width == 16);
	uint8_t *b = aligned_alloc(64, SL_PG_MAX_FRAME);
	unsigned __int128 first = (unsigned __int128)0x20010db80000ffffull << 64 |
				  0xfffffffffffffffeull;
	for (uint64_t seq = 0; seq < 40; seq++) {
		uint16_t len = sl_pg_build(&s, seq, b);
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + 14);
		CHECK(rte_be_to_cpu_16(ip->payload_len) == len - 54);
		CHECK(rte_ipv6_udptcp_cksum_verify(ip, ip + 1) == 0);
		/* four addresses: through 2001:db8:0:ffff:ffff:ffff:ffff:ffff into
		 * 2001:db8:1::/64, then again from the first */
		CHECK(addr128(ip->dst_addr) == first + seq % 4);
		CHECK(addr128(ip->src_addr) == ((unsigned __int128)0x20010db8ull << 96 | (1 + seq % 9)));
	}
	sl_pg_free(&s);
	/* a range of 2^72 addresses: on through the /64 boundary */
	CHECK(parse(&s, "{ name w interface pg0 data { IP6: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
			"UDP: 2001:db8::1 -> 2001:db8:0:1:ffff:ffff:ffff:fffe - 2001:db8:ff:: "
			"UDP: 1 -> 2 } }",
		    err) == 0);
	CHECK(s.wide);
	first = (unsigned __int128)0x20010db800000001ull << 64 | 0xfffffffffffffffeull;
	for (uint64_t seq = 0; seq < 20; seq++) {
		sl_pg_build(&s, seq, b);
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + 14);
		CHECK(rte_ipv6_udptcp_cksum_verify(ip, ip + 1) == 0);
		CHECK(addr128(ip->dst_addr) == first + seq);
	}
	sl_pg_free(&s);
	static const char *pfx[] = {"2001:db8::/32", "::/0", "2400::/8"};
	static const unsigned len[] = {32, 0, 8};
	for (unsigned k = 0; k < 3; k++) {
		char def[256];
		snprintf(def, sizeof(def), "{ name r interface pg0 data { IP6: 02:00:00:00:00:01 -> "
			 "02:00:00:00:00:02 UDP: 2001:db8::1 -> %s random UDP: 1 -> 2 random } }", pfx[k]);
		CHECK(parse(&s, def, err) == 0);
		CHECK(s.wide);
		char addr[64];
		uint8_t a[16];
		snprintf(addr, sizeof(addr), "%.*s", (int)(strchr(pfx[k], '/') - pfx[k]), pfx[k]);
		CHECK(inet_pton(AF_INET6, addr, a) == 1);
		unsigned __int128 base = addr128(a);
		unsigned distinct48 = 0;
		uint64_t prev48 = UINT64_MAX;
		for (uint64_t seq = 0; seq < 3000; seq++) {
			sl_pg_build(&s, seq * 131, b);
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + 14);
			CHECK(rte_ipv6_udptcp_cksum_verify(ip, ip + 1) == 0);
			unsigned __int128 d = addr128(ip->dst_addr);
			CHECK(len[k] == 0 || (d ^ base) >> (128 - len[k]) == 0);
			uint64_t p48 = (uint64_t)(d >> 80);
			distinct48 += p48 != prev48;
			prev48 = p48;
		}
		CHECK(distinct48 > 2900);
		sl_pg_free(&s);
	}
	free(b);
}

/* size mix: a cycle of the weights' length, each size its weight's share, spread out; bad
 * mixes refused; a later size setting replaces the mix. */
static void test_size_mix(void)
{
	struct sl_pg_stream s;
	char err[256];
	CHECK(parse(&s, "{ name m size mix 100:5,200:3,1400:2 interface pg0 data { "
			"IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 1.1.1.1 -> 2.2.2.2 UDP: 1 -> 2 } }",
		    err) == 0);
	CHECK(s.nmix == 10 && s.size_min == 100 && s.size_max == 1400 && s.vary);
	uint8_t *b = aligned_alloc(64, SL_PG_MAX_FRAME);
	unsigned count[3] = {0}, run = 0, longest = 0;
	uint16_t last = 0;
	for (uint64_t seq = 0; seq < 1000; seq++) {
		uint16_t len = sl_pg_build(&s, seq, b);
		count[len == 100 ? 0 : len == 200 ? 1 : 2]++;
		CHECK(len == 100 || len == 200 || len == 1400);
		run = len == last ? run + 1 : 1;
		longest = run > longest ? run : longest;
		last = len;
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);
		CHECK(rte_be_to_cpu_16(ip->total_length) == len - 14);
		CHECK(rte_ipv4_udptcp_cksum_verify(ip, ip + 1) == 0);
	}
	CHECK(count[0] == 500 && count[1] == 300 && count[2] == 200);
	CHECK(longest <= 2); /* interleaved, not 5 x 100 then 3 x 200 */
	free(b);
	sl_pg_free(&s);
	static const char *bad[] = {"size mix 100", "size mix 100:0", "size mix 100:5,x:1",
				    "size mix 1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1", "size mix 100:1025",
				    "size mix 20:1,100:1"};
	for (unsigned k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char text[256];
		snprintf(text, sizeof(text), "{ name m %s interface pg0 data { IP4: 02:00:00:00:00:01 "
			 "-> 02:00:00:00:00:02 UDP: 1.1.1.1 -> 2.2.2.2 } }", bad[k]);
		CHECK(parse(&s, text, err) != 0 && strstr(err, "size"));
		sl_pg_free(&s);
	}
	CHECK(parse(&s, "{ name m size mix 100:1,200:1 size 80 interface pg0 data { "
			"IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 1.1.1.1 -> 2.2.2.2 } }", err) == 0);
	CHECK(s.nmix == 0 && s.size_min == 80 && s.size_max == 80);
	sl_pg_free(&s);
}

static void test_errors(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"{ name a interface pg0 }", "needs data"},
		{"{ name a interface pg0 data { UDP: 1.1.1.1 -> 2.2.2.2 } data", "usage"},
		{"{ name a interface pg0 data { UDP: 1.1.1.1 -> 2.2.2.2 }", "not closed"},
		{"{ name a interface pg0 data { UDP: 1.1.1.1 -> } }", "usage: UDP:"},
		{"{ name a interface pg0 data { UDP: 2001:db8::1 -> 2001:db9::1 - 2001:db8::5 } }",
		 "usage: UDP:"},
		{"{ name a interface pg0 data { UDP: 1.1.1.1 -> 2.2.2.2 TCP: 1 -> 2 } }", "said UDP:"},
		{"{ name a interface pg0 data { UDP: 1.1.1.1 -> 2.2.2.2 UDP: 1 -> 2 UDP: 1 -> 2 } }",
		 "one IP line"},
		{"{ name a interface pg0 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 vlan 4096 "
		 "UDP: 1.1.1.1 -> 2.2.2.2 } }", "vlan"},
		{"{ name a interface pg0 limit -1 data { UDP: 1.1.1.1 -> 2.2.2.2 } }", "limit"},
		{"{ name a interface pg0 pcap /dev/null }", "no pcap header"},
		{"{ name aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa interface pg0 }", "longer"},
		{"{ name a interface pg0 bogus 1 }", "unknown stream setting 'bogus'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sl_pg_stream s;
		char err[256] = "";
		int rc = parse(&s, bad[i].text, err);
		CHECK(rc == -1);
		if (!strstr(err, bad[i].why))
			fprintf(stderr, "%s -> '%s' (wanted '%s')\n", bad[i].text, err, bad[i].why);
		CHECK(strstr(err, bad[i].why) != NULL);
		sl_pg_free(&s);
	}
}

/* Microsoft's RSS verification suite (the 82599 datasheet's too): the Toeplitz hash with its
 * key over the addresses, then over the addresses and TCP ports. */
static void test_rss_hash(void)
{
	static const struct {
		uint8_t dst[4], src[4];
		uint16_t dport, sport;
		uint32_t l3, l4;
	} v4[] = {
		{{161, 142, 100, 80}, {66, 9, 149, 187}, 1766, 2794, 0x323e8fc2, 0x51ccc178},
		{{65, 69, 140, 83}, {199, 92, 111, 2}, 4739, 14230, 0xd718262a, 0xc626b0ea},
		{{12, 22, 207, 184}, {24, 19, 198, 95}, 38024, 12898, 0xd2d0a5de, 0x5c2b394a},
		{{209, 142, 163, 6}, {38, 27, 205, 30}, 2217, 48228, 0x82989176, 0xafc7327f},
		{{202, 188, 127, 2}, {153, 39, 163, 191}, 1303, 44251, 0x5d1809c5, 0x10e828a2},
	};
	for (size_t k = 0; k < RTE_DIM(v4); k++) {
		uint8_t f[64] = {0};
		f[12] = 0x08; /* IPv4 */
		uint8_t *ip = f + 14;
		ip[0] = 0x45;
		ip[9] = IPPROTO_TCP;
		memcpy(ip + 12, v4[k].src, 4);
		memcpy(ip + 16, v4[k].dst, 4);
		ip[20] = (uint8_t)(v4[k].sport >> 8), ip[21] = (uint8_t)v4[k].sport;
		ip[22] = (uint8_t)(v4[k].dport >> 8), ip[23] = (uint8_t)v4[k].dport;
		uint32_t h = 0;
		CHECK(sl_pg_rss(f, 60, true, &h) && h == v4[k].l4);
		CHECK(sl_pg_rss(ip, 46, false, &h) && h == v4[k].l4); /* a stream from ip4-input */
		ip[6] = 0x20; /* a first fragment (MF): addresses only, as the NIC's ipv4-frag type */
		CHECK(sl_pg_rss(f, 60, true, &h) && h == v4[k].l3);
		ip[6] = 0;
		ip[9] = IPPROTO_ICMP;
		CHECK(sl_pg_rss(f, 60, true, &h) && h == v4[k].l3);
		/* behind a VLAN tag: the same */
		uint8_t t[68] = {0};
		memcpy(t, f, 12);
		t[12] = 0x81, t[13] = 0x00, t[16] = 0x08;
		memcpy(t + 18, ip, 46);
		t[18 + 9] = IPPROTO_TCP;
		CHECK(sl_pg_rss(t, 64, true, &h) && h == v4[k].l4);
		CHECK(!sl_pg_rss(t, 30, true, &h)); /* truncated */
	}
	/* IPv6: 3ffe:2501:200:1fff::7 port 2794 to 3ffe:2501:200:3::1 port 1766 */
	uint8_t f[80] = {0};
	f[12] = 0x86, f[13] = 0xdd;
	uint8_t *ip = f + 14;
	ip[0] = 0x60;
	ip[6] = IPPROTO_TCP;
	static const uint8_t src[16] = {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0,
					0, 0, 0, 7},
			     dst[16] = {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0,
					0, 0, 0, 1};
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	ip[40] = 2794 >> 8, ip[41] = 2794 & 255, ip[42] = 1766 >> 8, ip[43] = 1766 & 255;
	uint32_t h = 0;
	CHECK(sl_pg_rss(f, 78, true, &h) && h == 0x40207d3d);
	ip[6] = IPPROTO_ICMPV6;
	CHECK(sl_pg_rss(f, 78, true, &h) && h == 0x2cc18cd5);
	f[12] = 0x08, f[13] = 0x06; /* ARP: no hash */
	CHECK(!sl_pg_rss(f, 78, true, &h));
}

int main(void)
{
	test_rss_hash();
	test_ip4_udp_ranges();
	test_ip6_tcp_fixed();
	test_random_prefix_incremental_checksums();
	test_ip6_wide_ranges();
	test_size_mix();
	test_errors();
	return CHECK_REPORT();
}
