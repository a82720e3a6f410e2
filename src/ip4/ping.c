/* SPDX-License-Identifier: BSD-3-Clause */
/* ping, VPP's command: ICMP echo requests (RFC 792; ICMPv6's, RFC 4443) from this router,
 * routed by a table as its own packets are (sl_ip4_send, sl_ip6_send: held while the next
 * hop resolves), and their replies timed. ip4-icmp-input and ip6-icmp-input punt the echo
 * replies whose identifier is the running ping's; the command waits for them on the main
 * lcore, doing its other work meanwhile (sl_main_service) but the CLI's: other CLI clients
 * wait until it answers. */
#include "route.h"
#include "../ip6/ip6.h"
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_random.h>

#define PING_MAX 100       /* requests a command sends at most */
#define PING_DATA_MAX 8972 /* data bytes: a 9,000-byte IPv4 packet (IPv6: 20 fewer) */

uint16_t sl_ping_ident;

/* The running ping (main lcore only: the command and the punt handler). */
static struct {
	uint16_t ident;              /* network order; 0: none */
	bool v6;
	uint8_t dst[16];             /* IPv4: the first 4 bytes */
	uint16_t data;               /* data bytes a request carries */
	uint32_t n;                  /* requests */
	uint64_t sent[PING_MAX];     /* TSC when sent; 0: not sent */
	uint64_t rtt[PING_MAX];      /* TSC from sent to its reply; 0: none yet */
	uint8_t ttl[PING_MAX];
	uint32_t got, dup, bad;
} pg;

/* The data of request seq: its bytes count up from the sequence number, so a reply with
 * another request's data, or none, is told apart. */
static void fill(uint8_t *d, uint16_t len, uint16_t seq)
{
	for (uint16_t i = 0; i < len; i++)
		d[i] = (uint8_t)(seq + i);
}

static void ping_punt(struct rte_mbuf *m)
{
	uint64_t now = rte_rdtsc();
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	/* ip4-icmp-input or ip6-icmp-input checked the header, the checksum, the type and the
	 * identifier; ICMPv6 right after the IPv6 header */
	bool v6 = p[0] >> 4 == 6;
	uint32_t hl = v6 ? sizeof(struct rte_ipv6_hdr) : (p[0] & 0xfu) * 4u;
	const uint8_t *src = p + (v6 ? offsetof(struct rte_ipv6_hdr, src_addr)
				     : offsetof(struct rte_ipv4_hdr, src_addr));
	uint8_t ttl = v6 ? p[7] : p[8];
	const struct rte_icmp_hdr *ic = (const struct rte_icmp_hdr *)(p + hl);
	uint32_t dlen = rte_pktmbuf_pkt_len(m) - hl - sizeof(*ic);
	uint16_t seq = rte_be_to_cpu_16(ic->icmp_seq_nb);
	if (!pg.ident || v6 != pg.v6 || ic->icmp_ident != pg.ident ||
	    memcmp(src, pg.dst, v6 ? 16 : 4) || seq < 1 || seq > pg.n || !pg.sent[seq - 1]) {
		rte_pktmbuf_free(m);
		return;
	}
	uint8_t want[PING_DATA_MAX];
	fill(want, pg.data, seq);
	if (dlen != pg.data || memcmp(ic + 1, want, pg.data)) {
		pg.bad++;
	} else if (pg.rtt[seq - 1]) {
		pg.dup++;
	} else {
		pg.rtt[seq - 1] = RTE_MAX(now - pg.sent[seq - 1], 1ull);
		pg.ttl[seq - 1] = ttl;
		pg.got++;
	}
	rte_pktmbuf_free(m);
}

/* The IP header of request seq from src (network order) to pg.dst, its ICMP header after it. */
static struct rte_icmp_hdr *put_ip(uint8_t *p, const uint8_t *src, uint16_t seq)
{
	uint16_t icmp_len = (uint16_t)(sizeof(struct rte_icmp_hdr) + pg.data);
	if (pg.v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;
		ip->vtc_flow = RTE_BE32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(icmp_len);
		ip->proto = IPPROTO_ICMPV6;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, src, 16);
		memcpy(ip->dst_addr, pg.dst, 16);
		return (struct rte_icmp_hdr *)(ip + 1);
	}
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + icmp_len));
	ip->packet_id = rte_cpu_to_be_16(seq);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG); /* as Linux's ping: not fragmented */
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	memcpy(&ip->src_addr, src, 4);
	memcpy(&ip->dst_addr, pg.dst, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return (struct rte_icmp_hdr *)(ip + 1);
}

/* Request seq (1..) from src by table fib; m->port (where a drop is counted) port. */
static int send_one(uint16_t fib, const uint8_t *src, uint16_t port, uint16_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	uint16_t hl = pg.v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	uint16_t len = (uint16_t)(hl + sizeof(struct rte_icmp_hdr) + pg.data);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, len) : NULL;
	if (!p) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	struct rte_icmp_hdr *ic = put_ip(p, src, seq);
	ic->icmp_type = pg.v6 ? SL_ICMP6_ECHO : SL_ICMP_ECHO;
	ic->icmp_code = 0;
	ic->icmp_cksum = 0;
	ic->icmp_ident = pg.ident;
	ic->icmp_seq_nb = rte_cpu_to_be_16(seq);
	fill((uint8_t *)(ic + 1), pg.data, seq);
	/* ICMPv6's covers the pseudo-header (RFC 4443 2.3); a sum of 0 is sent as 0xffff, the
	 * same in one's complement */
	ic->icmp_cksum = pg.v6 ? rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)p, ic)
			       : (uint16_t)~rte_raw_cksum(ic, sizeof(*ic) + pg.data);
	m->port = port;
	pg.sent[seq - 1] = rte_rdtsc();
	uint32_t dst4;
	memcpy(&dst4, pg.dst, 4);
	int rc = pg.v6 ? sl_ip6_send(fib, m) : sl_ip4_send(fib, m, rte_be_to_cpu_32(dst4));
	if (rc)
		pg.sent[seq - 1] = 0;
	return rc;
}

/* The main lcore's other work until TSC `until`, until every request sent has its reply, or
 * until sluiced is told to stop. */
static void wait_until(uint64_t until, uint32_t sent)
{
	while (rte_rdtsc() < until && pg.got < sent && !sl_quit) {
		sl_main_service();
		usleep(100);
	}
}

static double us_of(uint64_t tsc)
{
	return (double)tsc * 1e6 / (double)rte_get_tsc_hz();
}

/* Table fib's adjacency for dst (IPv4: dst4, host order; a load-balance's first path). */
static const struct sl_adj *route_of(uint16_t fib, bool v6, uint32_t dst4, const uint8_t *dst6)
{
	uint64_t hop = SL_ADJ_ID_DROP;
	if (v6) {
		struct rte_fib6 *f = sl_fib6s[fib];
		if (f)
			rte_fib6_lookup_bulk(f, (uint8_t (*)[16])(uintptr_t)dst6, &hop, 1);
	} else {
		hop = sl_ip4_fib_lookup(fib, dst4);
	}
	return sl_adj_get(sl_adj_first_path((uint32_t)hop));
}

static int cmd_ping(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: ping A.B.C.D|X:X::X [source IFACE] [table-id N] [repeat N] "
			    "[interval SECONDS] [size BYTES]";
	uint32_t dst4 = 0, repeat = 5, size = 56, table = 0;
	uint8_t dst6[16] = {0};
	double interval = 1.0;
	const struct sl_iface *src_if = NULL;
	bool has_table = false;
	if (argc < 1)
		return sl_out_error(o, "%s", usage);
	bool v6 = strchr(argv[0], ':') != NULL;
	if (v6 ? sl_arg_ip6(o, argv[0], dst6) : sl_arg_ip4(o, argv[0], &dst4))
		return -1;
	const uint32_t data_max = PING_DATA_MAX - (v6 ? 20 : 0);
	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return sl_out_error(o, "%s: needs a value (%s)", argv[i], usage);
		const char *k = argv[i], *v = argv[i + 1];
		if (!strcmp(k, "source")) {
			if (!(src_if = sl_iface_by_name(v)))
				return sl_out_error(o, "unknown interface '%s'", v);
		} else if (!strcmp(k, "table-id") || !strcmp(k, "table")) {
			if (sl_arg_u32(o, "table-id", v, 0, UINT32_MAX, &table))
				return -1;
			has_table = true;
		} else if (!strcmp(k, "repeat")) {
			if (sl_arg_u32(o, "repeat", v, 1, PING_MAX, &repeat))
				return -1;
		} else if (!strcmp(k, "size")) {
			if (sl_arg_u32(o, "size", v, 0, data_max, &size))
				return -1;
		} else if (!strcmp(k, "interval")) {
			char *end;
			interval = strtod(v, &end);
			if (*end || !(interval >= 0.001 && interval <= 10))
				return sl_out_error(o, "interval: '%s' is not 0.001 to 10 seconds", v);
		} else {
			return sl_out_error(o, "unknown argument '%s' (%s)", k, usage);
		}
	}
	if (!sl_workers_running)
		return sl_out_error(o, "ping: the data plane is not forwarding yet");
	uint16_t fib = src_if ? src_if->fib : 0;
	if (has_table) {
		int t = sl_ip4_table_find(table);
		if (t < 0)
			return sl_out_error(o, "table %u does not exist (ip table add %u)", table, table);
		fib = (uint16_t)t;
	}
	char ds[48];
	if (v6)
		sl_fmt_ip6(ds, dst6);
	else
		sl_fmt_ip4(ds, dst4);
	if (v6 && sl_ip6_is_mcast(dst6))
		return sl_out_error(o, "%s: multicast destinations are not supported", ds);
	/* a link-local destination: on the source interface's link, from its link-local */
	bool ll = v6 && sl_ip6_is_ll(dst6);
	if (ll && !src_if)
		return sl_out_error(o, "%s is link-local: name the interface (source IFACE)", ds);
	const struct sl_adj *a = ll ? NULL : route_of(fib, v6, dst4, dst6);
	if (a && a->type == SL_ADJ_LOCAL)
		return sl_out_error(o, "%s is this router's own address", ds);
	if (a && a->type != SL_ADJ_FORWARD && a->type != SL_ADJ_INCOMPLETE && a->type != SL_ADJ_GLEAN)
		return sl_out_error(o, "no route to %s in table %u", ds, sl_fib_ids[fib]);
	uint16_t port = a ? a->port : src_if->port;
	const struct sl_iface *out = src_if ? src_if : &sl_ifaces[port];
	uint8_t src[16] = {0};
	if (ll) {
		if (!memcmp(dst6, src_if->ip6_ll, 16))
			return sl_out_error(o, "%s is this router's own address", ds);
		memcpy(src, src_if->ip6_ll, 16);
	} else if (v6) {
		if (out->naddr6) /* a global destination: the first global address */
			memcpy(src, out->addrs6[0], 16);
	} else {
		uint32_t s4 = rte_cpu_to_be_32(src_if ? src_if->ip4 : sl_ip4_src_for(port, dst4));
		memcpy(src, &s4, 4);
	}
	if (sl_ip6_is_zero(src)) /* IPv4: the first 4 bytes, the rest 0 */
		return sl_out_error(o, "%s has no %s address to send from", out->name,
				    ll ? "link-local (IPv6 is off on it)" : v6 ? "global IPv6" : "IPv4");
	uint32_t len = (uint32_t)(v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr)) +
		       sizeof(struct rte_icmp_hdr) + size;
	if (len > sl_ifaces[port].mtu)
		return sl_out_error(o, "size %u: the packet (%u bytes) is over %s's MTU (%u); ping "
				    "does not fragment", size, len, sl_ifaces[port].name,
				    sl_ifaces[port].mtu);

	memset(&pg, 0, sizeof(pg));
	pg.ident = (uint16_t)(1 + rte_rand() % 0xffff);
	pg.v6 = v6;
	if (v6) {
		memcpy(pg.dst, dst6, 16);
	} else {
		uint32_t d = rte_cpu_to_be_32(dst4);
		memcpy(pg.dst, &d, 4);
	}
	pg.data = (uint16_t)size;
	pg.n = repeat;
	__atomic_store_n(&sl_ping_ident, pg.ident, __ATOMIC_RELEASE);
	uint64_t hz = rte_get_tsc_hz(), step = (uint64_t)(interval * (double)hz);
	uint64_t t0 = rte_rdtsc();
	uint32_t sent = 0;
	for (uint32_t i = 0; i < repeat && !sl_quit; i++) {
		if (i)
			wait_until(t0 + i * step, UINT32_MAX);
		if (sl_quit) /* SIGTERM: the answer says what was sent */
			break;
		sent += send_one(fib, src, port, (uint16_t)(i + 1)) == 0;
	}
	/* the last request's reply: up to a second (or an interval, when longer) */
	wait_until(rte_rdtsc() + RTE_MAX(hz, step), sent);
	__atomic_store_n(&sl_ping_ident, 0, __ATOMIC_RELEASE);
	pg.ident = 0;

	sl_tbl_begin(o, "replies", 5, (const char *[]){"seq:u", "from", "bytes:u", "ttl:u",
						       "time-us:u"});
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
	for (uint32_t i = 0; i < repeat; i++) {
		if (!pg.rtt[i])
			continue;
		char seq[12], b[12], ttl[8], us[24];
		snprintf(seq, sizeof(seq), "%u", i + 1);
		snprintf(b, sizeof(b), "%u", (unsigned)(sizeof(struct rte_icmp_hdr) + size));
		snprintf(ttl, sizeof(ttl), "%u", pg.ttl[i]);
		snprintf(us, sizeof(us), "%.0f", us_of(pg.rtt[i]));
		sl_tbl_row(o, seq, ds, b, ttl, us);
		lo = RTE_MIN(lo, pg.rtt[i]);
		hi = RTE_MAX(hi, pg.rtt[i]);
		sum += pg.rtt[i];
	}
	sl_tbl_end(o);
	sl_tbl_begin(o, "statistics", 9, (const char *[]){"destination", "sent:u", "received:u",
							  "loss-percent:u", "min-us:u", "avg-us:u",
							  "max-us:u", "duplicates:u", "bad:u"});
	char s[12], r[12], loss[8], mn[24], av[24], mx[24], dup[12], bad[12];
	snprintf(s, sizeof(s), "%u", sent);
	snprintf(r, sizeof(r), "%u", pg.got);
	snprintf(loss, sizeof(loss), "%u", sent ? (sent - pg.got) * 100 / sent : 100);
	snprintf(mn, sizeof(mn), "%.0f", pg.got ? us_of(lo) : 0.0);
	snprintf(av, sizeof(av), "%.0f", pg.got ? us_of(sum / pg.got) : 0.0);
	snprintf(mx, sizeof(mx), "%.0f", pg.got ? us_of(hi) : 0.0);
	snprintf(dup, sizeof(dup), "%u", pg.dup);
	snprintf(bad, sizeof(bad), "%u", pg.bad);
	sl_tbl_row(o, ds, s, r, loss, mn, av, mx, dup, bad);
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(ping, .path = "ping",
	       .usage = "A.B.C.D|X:X::X [source IFACE] [table-id N] [repeat N] [interval SECONDS] "
			"[size BYTES]",
	       .help = "ICMP echo requests from this router (default 5, a second apart, 56 data "
		       "bytes), each reply's round trip, then the loss; the CLI answers other "
		       "clients when it is done",
	       .fn = cmd_ping)

RTE_INIT(ping_register)
{
	sl_punt_register(SL_PUNT_PING, ping_punt);
}
