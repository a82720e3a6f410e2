/* SPDX-License-Identifier: BSD-3-Clause */
/* sluice-gen (first cut): sends 64..1518-byte UDP/IPv4 with a signature, sequence number and
 * TX timestamp to a destination prefix, paced or as fast as possible, and counts what comes
 * back on the receive port (signed packets, loss, out of order, latency percentiles). The
 * full generator is issue 3. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "../src/cli/cli.h"
#include "../src/pg/pg.h"

#define SIG 0x5eed5100u /* the low byte is the stream */
#define BURST 32

/* 18 bytes: what a 64-byte frame leaves after Ethernet, IPv4 and UDP */
struct payload {
	uint32_t sig;
	uint8_t seq[6];      /* 48 bits, little-endian */
	uint64_t tsc;        /* when the burst was sent; the receiver is the same core */
} __attribute__((packed));
_Static_assert(sizeof(struct payload) == 18, "payload fits a 64-byte frame");

/* Latency histogram: 8 buckets per power of two of TSC cycles (each about 9% wide). */
#define HIST_BUCKETS (64 * 8)
/* Sequence numbers seen, over a window of the last SEQ_WIN: duplicates and reordering
 * exactly within it; loss at the end is what was sent minus the distinct ones received. */
#define SEQ_WIN (1u << 16)
#define MAX_STREAMS 8

/* One stream: what it sends, and what came back of it. */
struct gstream {
	struct sl_pg_stream *pg;   /* --stream; NULL: the built-in UDP of --size and --dst */
	uint64_t seq, sent;        /* next sequence number; packets sent */
	uint64_t rx, uniq, dup, reord, top; /* top: one past the highest received */
	uint64_t seen[SEQ_WIN / 64];
	uint64_t hist[HIST_BUCKETS];
	uint64_t lat_n, lat_min, lat_max, lat_last;
	double lat_sum, jitter;    /* RFC 3550 6.4.1: J += (|D| - J) / 16, in TSC cycles */
};
static struct gstream streams[MAX_STREAMS];
static unsigned nb_streams = 1;

static inline unsigned hist_bucket(uint64_t x)
{
	if (x < 8)
		return (unsigned)x;
	unsigned l = 63u - (unsigned)__builtin_clzll(x);
	return l * 8 + (unsigned)((x >> (l - 3)) & 7);
}

static double hist_value(unsigned b) /* the middle of bucket b, in cycles */
{
	if (b < 8)
		return b;
	unsigned l = b / 8, f = b % 8;
	double lo = (double)((8ull + f) << (l - 3)), w = (double)(1ull << (l - 3));
	return lo + w / 2;
}

static inline bool seen_test_set(struct gstream *g, uint64_t sq)
{
	uint64_t *w = &g->seen[(sq % SEQ_WIN) / 64], bit = 1ull << (sq % 64);
	bool was = *w & bit;
	*w |= bit;
	return was;
}

static void seq_rx(struct gstream *g, uint64_t sq)
{
	if (sq >= g->top) {
		if (sq - g->top >= SEQ_WIN)
			memset(g->seen, 0, sizeof(g->seen));
		else
			for (uint64_t x = g->top; x < sq; x++) /* skipped: not seen (yet) */
				g->seen[(x % SEQ_WIN) / 64] &= ~(1ull << (x % 64));
		g->seen[(sq % SEQ_WIN) / 64] &= ~(1ull << (sq % 64));
		seen_test_set(g, sq);
		g->top = sq + 1;
		g->uniq++;
		return;
	}
	if (g->top - sq > SEQ_WIN) { /* older than the window: late, taken as new */
		g->reord++;
		g->uniq++;
		return;
	}
	if (seen_test_set(g, sq)) {
		g->dup++;
	} else {
		g->reord++;
		g->uniq++;
	}
}

static double hist_pct(const uint64_t *hist, uint64_t n, double pct)
{
	uint64_t want = (uint64_t)((double)n * pct / 100.0), acc = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		acc += hist[b];
		if (acc > want)
			return hist_value(b);
	}
	return 0;
}

static struct {
	uint16_t tx_port, rx_port;
	uint64_t rate;       /* pps, 0 = as fast as possible */
	double duration;
	uint16_t size;
	uint32_t dst, dst_len, src;
	struct rte_ether_addr dmac;
	int json;
	uint64_t count;      /* packets to send; 0: as many as the duration allows */
} opt = {.tx_port = 0, .rx_port = 1, .duration = 5, .size = 64, .dst = 0x30000000,
	 .dst_len = 8, .src = 0x0a0a0102};

static volatile int quit;
static void on_sig(int s)
{
	(void)s;
	quit = 1;
}

static int port_init(uint16_t p, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = {0};
	uint16_t nrx = 1024, ntx = 1024;
	if (rte_eth_dev_configure(p, 1, 1, &conf) ||
	    rte_eth_dev_adjust_nb_rx_tx_desc(p, &nrx, &ntx) ||
	    rte_eth_rx_queue_setup(p, 0, nrx, rte_eth_dev_socket_id(p), NULL, mp) ||
	    rte_eth_tx_queue_setup(p, 0, ntx, rte_eth_dev_socket_id(p), NULL))
		return -1;
	rte_eth_promiscuous_enable(p);
	return rte_eth_dev_start(p);
}

/* A template frame; per packet only the destination, checksum and payload change. */
static void fill(struct rte_mbuf *m, uint64_t seq, uint64_t now)
{
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, opt.size - 4); /* FCS not carried */
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct payload *pl = (struct payload *)(udp + 1);
	uint16_t iplen = (uint16_t)(opt.size - 4 - sizeof(*eh));
	eh->dst_addr = opt.dmac;
	rte_eth_macaddr_get(opt.tx_port, &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	uint32_t span = opt.dst_len ? (uint32_t)((1ull << (32 - opt.dst_len)) - 1) : ~0u;
	*ip = (struct rte_ipv4_hdr){.version_ihl = 0x45, .total_length = rte_cpu_to_be_16(iplen),
				    .time_to_live = 64, .next_proto_id = IPPROTO_UDP,
				    .src_addr = rte_cpu_to_be_32(opt.src),
				    .dst_addr = rte_cpu_to_be_32(opt.dst + (uint32_t)(seq * 2654435761u & span))};
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = RTE_BE16(2123);
	udp->dst_port = RTE_BE16(10000);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(iplen - sizeof(*ip)));
	udp->dgram_cksum = 0;
	if ((size_t)iplen >= sizeof(*ip) + sizeof(*udp) + sizeof(*pl)) {
		pl->sig = SIG | 0;
		for (int i = 0; i < 6; i++)
			pl->seq[i] = (uint8_t)(seq >> (8 * i));
		pl->tsc = now;
	}
}

/* Where the signature goes (and is looked for): after the UDP or TCP header, or after the
 * IP header; 0 when the frame is not IPv4 or IPv6. VLAN tags are skipped. */
static uint32_t payload_off(const uint8_t *d, uint32_t len)
{
	uint32_t off = 12;
	uint16_t type;
	for (;;) {
		if (len < off + 2)
			return 0;
		memcpy(&type, d + off, 2);
		if (type != RTE_BE16(RTE_ETHER_TYPE_VLAN) && type != RTE_BE16(RTE_ETHER_TYPE_QINQ))
			break;
		off += 4;
	}
	off += 2;
	uint8_t proto;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && len >= off + 20) {
		proto = d[off + 9];
		off += (d[off] & 0xf) * 4u;
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && len >= off + 40) {
		proto = d[off + 6];
		off += 40;
	} else {
		return 0;
	}
	if (proto == IPPROTO_UDP)
		off += 8;
	else if (proto == IPPROTO_TCP && len >= off + 13)
		off += (d[off + 12] >> 4) * 4u;
	return off;
}

/* Writes the signature into a stream's packet (its payload was zeros) and adds its words to
 * the UDP or TCP checksum (RFC 1624). */
static void stamp(const struct sl_pg_stream *s, unsigned id, uint8_t *d, uint32_t len,
		  uint64_t seq, uint64_t now)
{
	uint32_t off = payload_off(d, len);
	if (!off || len < off + sizeof(struct payload))
		return; /* too small to carry one: counted as unsigned at the receiver */
	struct payload pl = {.sig = SIG | id, .tsc = now};
	for (int i = 0; i < 6; i++)
		pl.seq[i] = (uint8_t)(seq >> (8 * i));
	memcpy(d + off, &pl, sizeof(pl));
	if (s->l4_off == UINT16_MAX || (s->l4_proto != IPPROTO_UDP && s->l4_proto != IPPROTO_TCP))
		return;
	uint16_t *ck = (uint16_t *)(d + s->l4_off + (s->l4_proto == IPPROTO_UDP ? 6 : 16));
	uint32_t sum = (uint16_t)~*ck;
	sum += rte_raw_cksum(&pl, sizeof(pl)); /* 18 bytes: nine 16-bit words */
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	uint16_t c = (uint16_t)~sum;
	*ck = (c == 0 && s->l4_proto == IPPROTO_UDP) ? 0xffff : c;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: sluice-gen [EAL args] -- [--tx-port N] [--rx-port N] [--rate PPS]\n"
		"       [--duration S] [--count N] [--size BYTES] [--dst A.B.C.D/LEN] [--src A.B.C.D]\n"
		"       --dst-mac MAC [--json]\n"
		"       [--stream 'size MIN[-MAX]|imix data { IP4: SMAC -> DMAC [vlan ID]\n"
		"                  UDP: SRC [- END] -> DST [- END] UDP: SPORT[-END] -> DPORT[-END] }']\n"
		"       (--stream: the packet-generator grammar of sluiced; sizes without FCS)\n");
}

static int parse(int argc, char **argv)
{
	static struct option lo[] = {
		{"tx-port", 1, 0, 't'}, {"rx-port", 1, 0, 'r'}, {"rate", 1, 0, 'R'},
		{"duration", 1, 0, 'd'}, {"size", 1, 0, 's'},  {"dst", 1, 0, 'D'},
		{"src", 1, 0, 'S'},      {"dst-mac", 1, 0, 'm'}, {"json", 0, 0, 'j'},
		{"stream", 1, 0, 'x'},   {"count", 1, 0, 'c'},   {0, 0, 0, 0}};
	int c, have_mac = 0;
	unsigned have_stream = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't': opt.tx_port = (uint16_t)atoi(optarg); break;
		case 'r': opt.rx_port = (uint16_t)atoi(optarg); break;
		case 'R': opt.rate = strtoull(optarg, NULL, 10); break;
		case 'd': opt.duration = atof(optarg); break;
		case 's': opt.size = (uint16_t)atoi(optarg); break;
		case 'j': opt.json = 1; break;
		case 'c': opt.count = strtoull(optarg, NULL, 10); break;
		case 'x': {
			if (have_stream == MAX_STREAMS)
				return fprintf(stderr, "sluice-gen: at most %d streams\n", MAX_STREAMS), -1;
			static struct sl_pg_stream sts[MAX_STREAMS];
			struct sl_pg_stream *stp = &sts[have_stream];
#define st (*stp)
			char err[256], *argv2[SL_CLI_MAX_ARGS];
			size_t l = strlen(optarg) + 64;
			char *text = malloc(l);
			snprintf(text, l, "{ name gen interface tx %s }", optarg);
			int n2 = sl_cli_tokenize(text, argv2, SL_CLI_MAX_ARGS);
			int bad = n2 < 0 || sl_pg_parse(&st, n2, argv2, err, sizeof(err));
			free(text); /* the stream keeps copies of what it needs */
			if (bad) {
				sl_pg_free(&st);
				return fprintf(stderr, "sluice-gen: --stream: %s\n",
					       n2 < 0 ? "cannot split it into words" : err), -1;
			}
			if (st.npcap || !st.size_max) {
				sl_pg_free(&st);
				return fprintf(stderr, "sluice-gen: --stream needs data { ... }\n"), -1;
			}
			streams[have_stream++].pg = &st;
			nb_streams = have_stream;
			have_mac = 1; /* the stream's IP4:/IP6: line gives the MACs */
			break;
#undef st
		}
		case 'm':
			if (rte_ether_unformat_addr(optarg, &opt.dmac))
				return fprintf(stderr, "sluice-gen: bad MAC %s\n", optarg), -1;
			have_mac = 1;
			break;
		case 'S': {
			struct in_addr a;
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return fprintf(stderr, "sluice-gen: bad address %s\n", optarg), -1;
			opt.src = ntohl(a.s_addr);
			break;
		}
		case 'D': {
			char tmp[32];
			snprintf(tmp, sizeof(tmp), "%s", optarg);
			char *sl = strchr(tmp, '/');
			struct in_addr a;
			if (!sl || inet_pton(AF_INET, (*sl = 0, tmp), &a) != 1 || atoi(sl + 1) > 32)
				return fprintf(stderr, "sluice-gen: bad prefix %s\n", optarg), -1;
			opt.dst = ntohl(a.s_addr);
			opt.dst_len = (uint32_t)atoi(sl + 1);
			break;
		}
		default: usage(); return -1;
		}
	}
	if (!have_mac) {
		usage();
		return -1;
	}
	if (!streams[0].pg && (opt.size < 64 || opt.size > 1518))
		return fprintf(stderr, "sluice-gen: size %u: must be 64..1518 (headers need 64)\n",
			       opt.size), -1;
	return 0;
}

/* Per stream and in all: counts, loss, reordering, duplicates, latency percentiles. */
static void report(double secs, uint64_t sent, uint64_t rx, uint64_t rx_sig, uint64_t tx_fail)
{
	double us = 1e6 / (double)rte_get_tsc_hz();
	struct gstream all = {.lat_min = UINT64_MAX};
	char per[MAX_STREAMS][512];
	for (unsigned k = 0; k < nb_streams; k++) {
		struct gstream *g = &streams[k];
		all.uniq += g->uniq;
		all.dup += g->dup;
		all.reord += g->reord;
		all.lat_n += g->lat_n;
		all.lat_sum += g->lat_sum;
		all.jitter = RTE_MAX(all.jitter, g->jitter); /* in all: the largest */
		all.lat_min = RTE_MIN(all.lat_min, g->lat_min);
		all.lat_max = RTE_MAX(all.lat_max, g->lat_max);
		for (unsigned h = 0; h < HIST_BUCKETS; h++)
			all.hist[h] += g->hist[h];
	}
	for (unsigned k = 0; k <= nb_streams; k++) {
		const struct gstream *g = k < nb_streams ? &streams[k] : &all;
		uint64_t gs = k < nb_streams ? g->sent : sent;
		double lat[7] = {g->lat_n ? (double)g->lat_min * us : 0,
				 g->lat_n ? g->lat_sum / (double)g->lat_n * us : 0,
				 (double)g->lat_max * us, hist_pct(g->hist, g->lat_n, 50) * us,
				 hist_pct(g->hist, g->lat_n, 90) * us,
				 hist_pct(g->hist, g->lat_n, 99) * us,
				 hist_pct(g->hist, g->lat_n, 99.9) * us};
		char *o = k < nb_streams ? per[k] : NULL, tot[512];
		snprintf(o ? o : tot, 512,
			 opt.json ? "\"sent\": %" PRIu64 ", \"duplicates\": %" PRIu64
				    ", \"lost\": %" PRId64 ", \"out_of_order\": %" PRIu64
				    ", \"latency_us\": {\"min\": %.2f, \"avg\": %.2f, \"max\": %.2f, "
				    "\"p50\": %.2f, \"p90\": %.2f, \"p99\": %.2f, \"p99.9\": %.2f}, "
				    "\"jitter_us\": %.3f"
				  : "sent %" PRIu64 "  duplicates %" PRIu64 "  lost %" PRId64
				    "  out-of-order %" PRIu64 "\n  latency us: min %.2f avg %.2f max %.2f "
				    "p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f  jitter %.3f",
			 gs, g->dup, (int64_t)gs - (int64_t)g->uniq, g->reord, lat[0], lat[1], lat[2],
			 lat[3], lat[4], lat[5], lat[6], g->jitter * us);
		if (k < nb_streams)
			continue;
		if (opt.json) {
			printf("{%s, \"received\": %" PRIu64 ", \"signed\": %" PRIu64
			       ", \"unsigned\": %" PRIu64 ", \"tx_full\": %" PRIu64
			       ", \"seconds\": %.3f, \"tx_mpps\": %.3f, \"rx_mpps\": %.3f, \"streams\": [",
			       tot, rx, rx_sig, rx - rx_sig, tx_fail, secs, sent / secs / 1e6,
			       rx_sig / secs / 1e6);
			for (unsigned j = 0; j < nb_streams; j++)
				printf("%s{\"stream\": %u, %s}", j ? ", " : "", j, per[j]);
			printf("]}\n");
		} else {
			printf("all: %s\nreceived %" PRIu64 " (signed %" PRIu64 ")  tx-full %" PRIu64
			       "\n%.2f s: offered %.3f Mpps, received %.3f Mpps\n",
			       tot, rx, rx_sig, tx_fail, secs, sent / secs / 1e6, rx_sig / secs / 1e6);
			for (unsigned j = 0; nb_streams > 1 && j < nb_streams; j++)
				printf("stream %u: %s\n", j, per[j]);
		}
	}
}

int main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv);
	if (n < 0)
		return fprintf(stderr, "sluice-gen: EAL init failed\n"), 1;
	if (parse(argc - n, argv + n))
		return 2;
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	struct rte_mempool *mp = rte_pktmbuf_pool_create("gen_pool", 16384, 256, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (!mp || port_init(opt.tx_port, mp) || (opt.rx_port != opt.tx_port && port_init(opt.rx_port, mp)))
		return fprintf(stderr, "sluice-gen: port set-up failed\n"), 1;
	/* wait for links (memif connects asynchronously) */
	for (int i = 0; i < 100; i++) {
		struct rte_eth_link a, b;
		rte_eth_link_get_nowait(opt.tx_port, &a);
		rte_eth_link_get_nowait(opt.rx_port, &b);
		if (a.link_status && b.link_status)
			break;
		rte_delay_ms(50);
	}
	/* a rate the port cannot carry is refused (frames plus preamble and gap, 20 bytes) */
	struct rte_eth_link link;
	if (opt.rate && rte_eth_link_get_nowait(opt.tx_port, &link) == 0 && link.link_speed &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN) {
		unsigned frame = opt.size;
		for (unsigned k = 0; k < nb_streams; k++)
			if (streams[k].pg)
				frame = RTE_MAX(frame, streams[k].pg->size_max + 4u);
		double bps = (double)opt.rate * (frame + 20) * 8;
		if (bps > (double)link.link_speed * 1e6) {
			fprintf(stderr, "sluice-gen: %" PRIu64 " packets/s of %u-byte frames is %.2f Gb/s, "
				"above the port's %u Mb/s\n", opt.rate, frame, bps / 1e9, link.link_speed);
			return 2;
		}
	}
	uint64_t hz = rte_get_tsc_hz(), start = rte_rdtsc(), end = start + (uint64_t)(opt.duration * hz);
	uint64_t sent = 0, rx = 0, rx_sig = 0, tx_fail = 0, burst_no = 0;
	uint64_t gap = opt.rate ? hz * BURST / opt.rate : 0, next_tx = start;
	uint64_t drain_end = 0;
	for (unsigned k = 0; k < nb_streams; k++)
		streams[k].lat_min = UINT64_MAX;
	struct rte_mbuf *b[BURST];
	while (!quit) {
		uint64_t now = rte_rdtsc();
		if (now < end && (!opt.count || sent < opt.count)) {
			if (!gap || now >= next_tx) {
				/* the streams take turns, a burst each */
				unsigned id = (unsigned)(burst_no++ % nb_streams);
				struct gstream *g = &streams[id];
				if (rte_pktmbuf_alloc_bulk(mp, b, BURST) == 0) {
					if (g->pg) {
						uint8_t *bufs[BURST];
						uint16_t lens[BURST];
						for (int i = 0; i < BURST; i++)
							bufs[i] = rte_pktmbuf_mtod(b[i], uint8_t *);
						sl_pg_build_burst(g->pg, g->seq, bufs, lens, BURST);
						for (int i = 0; i < BURST; i++) {
							b[i]->data_len = b[i]->pkt_len = lens[i];
							stamp(g->pg, id, bufs[i], lens[i], g->seq++, now);
						}
					} else {
						for (int i = 0; i < BURST; i++)
							fill(b[i], g->seq++, now);
					}
					uint16_t want = BURST;
					if (opt.count && opt.count - sent < BURST)
						want = (uint16_t)(opt.count - sent);
					uint16_t k = rte_eth_tx_burst(opt.tx_port, 0, b, want);
					sent += k;
					g->sent += k;
					if (k < BURST) {
						tx_fail += want - k;
						g->seq -= BURST - k;
						rte_pktmbuf_free_bulk(b + k, BURST - k);
					}
				}
				next_tx += gap;
			}
		} else if (!drain_end) {
			drain_end = now + hz / 2; /* collect what is still in flight */
		} else if (now > drain_end) {
			break;
		}
		uint16_t k = rte_eth_rx_burst(opt.rx_port, 0, b, BURST);
		uint64_t rx_now = k ? rte_rdtsc() : 0;
		for (uint16_t i = 0; i < k; i++) {
			rx++;
			const uint8_t *d = rte_pktmbuf_mtod(b[i], const uint8_t *);
			uint32_t off = payload_off(d, b[i]->data_len);
			struct payload pl;
			if (off && b[i]->data_len >= off + sizeof(pl))
				memcpy(&pl, d + off, sizeof(pl));
			else
				pl.sig = 0;
			if ((pl.sig & ~0xffu) != SIG || (pl.sig & 0xff) >= nb_streams)
				continue; /* unsigned, or not one of ours */
			struct gstream *g = &streams[pl.sig & 0xff];
			rx_sig++;
			g->rx++;
			uint64_t sq = 0;
			for (int j = 5; j >= 0; j--)
				sq = sq << 8 | pl.seq[j];
			seq_rx(g, sq);
			uint64_t lat = rx_now > pl.tsc ? rx_now - pl.tsc : 0;
			g->hist[hist_bucket(lat)]++;
			g->lat_n++;
			g->lat_sum += (double)lat;
			if (g->lat_n > 1) {
				double dlt = (double)lat - (double)g->lat_last;
				g->jitter += ((dlt < 0 ? -dlt : dlt) - g->jitter) / 16;
			}
			g->lat_last = lat;
			g->lat_min = RTE_MIN(g->lat_min, lat);
			g->lat_max = RTE_MAX(g->lat_max, lat);
		}
		if (k)
			rte_pktmbuf_free_bulk(b, k);
	}
	double secs = (double)(RTE_MIN(rte_rdtsc(), end) - start) / (double)hz;
	report(secs, sent, rx, rx_sig, tx_fail);
	rte_eth_dev_stop(opt.tx_port);
	rte_eth_dev_close(opt.tx_port);
	if (opt.rx_port != opt.tx_port) {
		rte_eth_dev_stop(opt.rx_port);
		rte_eth_dev_close(opt.rx_port);
	}
	for (unsigned k = 0; k < nb_streams; k++)
		if (streams[k].pg)
			sl_pg_free(streams[k].pg);
	rte_eal_cleanup();
	return 0;
}
