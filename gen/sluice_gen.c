/* SPDX-License-Identifier: BSD-3-Clause */
/* sluice-gen: a DPDK traffic generator and receiver.
 *
 * Streams are written in sluiced's packet-generator grammar (src/pg/stream.c builds them).
 * Every packet carries a signature (run, lane, stream), a sequence number and its TX time
 * stamp; the receiver counts per stream what came back: loss, reordering and duplicates
 * exactly (over a window of 65,536 sequence numbers), latency percentiles and jitter.
 *
 * Lanes: each worker lcore is a lane with a TX and an RX queue of its own on every port
 * (queue = lane); with no worker lcore the main lcore is the one lane. A lane sends every
 * stream in turn, a burst each, paced by the TSC at its share of the rate; each (stream,
 * lane) has its own sequence numbers, and each receiving lane keeps its own books per
 * (stream, sending lane), added up in the report.
 *
 * Control: one shot (run, print a table or --json, exit), or --control PATH: a unix socket
 * taking one JSON request per line (start, stop, wait, update, stats, quit; see
 * docs/sluice-gen.md). A control thread, not a lane, runs the state machine of a run. */
#include "bng_emu.h"
#include "hist.h"
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "../src/cli/cli.h"
#include "../src/pg/pg.h"
#include "../src/pg/rearm.h"
#include "../src/runtime/eal_exit.h"
#include "ctl.h"

/* signature: 12 bits of magic, 8 of run (epoch), 4 of lane, 8 of stream */
#define SIG_MAGIC 0x5ee00000u
#define SIG_MAGIC_MASK 0xfff00000u
#define BURST 32
#define MAX_STREAMS 16
#define MAX_LANES 16
#define DRAIN_MS 500   /* --drain-ms's default */
#define DRAIN_MS_MAX 60000
/* The control thread's tick: it shares a CPU (the main lcore's, or the OS's choice) and
 * should take as little of it as it can; a run's end is noticed within a tick. */
#define CTL_TICK_MS 10

/* 18 bytes: what a 64-byte frame leaves after Ethernet, IPv4 and UDP */
struct payload {
	uint32_t sig;
	uint8_t seq[6];      /* 48 bits, little-endian */
	uint64_t tsc;        /* when the burst was built */
} __attribute__((packed));
_Static_assert(sizeof(struct payload) == 18, "payload fits a 64-byte frame");

/* Sequence numbers seen, over a window of the last SEQ_WIN: duplicates and reordering
 * exactly within it; loss at the end is what was sent minus the distinct ones received. */
#define SEQ_WIN (1u << 16)

/* What one receiving lane saw of one (stream, sending lane). */
struct rxflow {
	uint64_t rx, bytes, uniq, dup, reord, top; /* top: one past the highest received */
	uint64_t lat_n, lat_min, lat_max, lat_last;
	double lat_sum, jitter;    /* RFC 3550 6.4.1: J += (|D| - J) / 16, in TSC cycles */
	uint64_t hist[HIST_BUCKETS];
	uint64_t seen[SEQ_WIN / 64];
};

/* A stream as defined: what it sends, out of which port. */
struct sdef {
	struct sl_pg_stream pg;
	uint16_t port;
	double avg_frame;          /* bytes on the wire per packet, FCS included */
	uint32_t pl_off;           /* where the signature goes; 0: nowhere */
};
static struct sdef defs[MAX_STREAMS];
static unsigned nb_streams;

struct lane {
	unsigned id, lcore;
	unsigned epoch;            /* the run this lane's counters belong to */
	/* TX, written by the lane */
	uint64_t seq[MAX_STREAMS], sent[MAX_STREAMS], tx_bytes[MAX_STREAMS], tx_full, nsent, quota;
	uint64_t next_tx, gap_seen, last_tx, burst_no;
	uint64_t late_max; /* TSC: the most a paced burst left after its time (this lane's stalls) */
	uint64_t late_at;  /* TSC: when that burst was due, from the run's start */
	uint64_t busy, span;       /* TSC cycles: in turns of the loop that sent or received; all */
	volatile int done;         /* nothing more to send in this run */
	/* RX */
	uint64_t rx[2], rx_sig[2], stale;
	struct rxflow *flows;      /* [stream * nb_lanes + sending lane] */
	struct rte_mempool *mp;
} __rte_cache_aligned;
static struct lane lanes[MAX_LANES];
static unsigned nb_lanes = 1;

enum { IDLE, RUN, DRAIN };
/* A run, as the control thread sets it; lanes read it. */
static struct {
	volatile unsigned epoch;   /* bumped per start; lanes reset their books when it moves */
	volatile int state;
	volatile uint64_t start, end; /* TSC: sending from start until end */
	volatile uint64_t gap;     /* TSC between a lane's bursts; 0: as fast as it can */
	uint64_t drain_end, secs_tsc;
	uint32_t drain_ms;         /* how long the receivers wait for frames after sending */
	double rate;               /* packets/s in all, 0: as fast as possible */
	uint64_t count;
} run;

static struct {
	uint16_t port[2];          /* [0] the TX port, [1] the RX port */
	int bidir;
	double rate;               /* pps, or percent of line rate when rate_pct */
	int rate_pct;
	double duration;
	uint16_t size;
	char dst[64], src[64];
	char dmac[32];
	int json, progress;
	uint64_t count;            /* packets to send; 0: as many as the duration allows */
	uint32_t drain_ms;
	uint16_t rxd, txd;         /* descriptors a queue asks for (--rxd, --txd) */
	const char *control;
	const char *stream_text[MAX_STREAMS];
	unsigned nb_text;
} opt = {.port = {0, 1}, .duration = 5, .drain_ms = DRAIN_MS, .rxd = 1024, .txd = 1024,
	   .size = 64, .dst = "48.0.0.0/8", .src = "16.0.0.1"};

/* the subscriber emulator's options (--pppoe-...): on with --pppoe-sessions */
static struct bng_emu_opts emu = {.rate = 100, .user = "user", .password = "secret",
				  .target = 0x0a0a0202, .timeout = 10};
static double emu_hold; /* --pppoe-hold: seconds connected after the report */

static volatile int quit;
static void on_sig(int s)
{
	(void)s;
	quit = 1;
}

static inline bool seen_test_set(struct rxflow *g, uint64_t sq)
{
	uint64_t *w = &g->seen[(sq % SEQ_WIN) / 64], bit = 1ull << (sq % 64);
	bool was = *w & bit;
	*w |= bit;
	return was;
}

static void seq_rx(struct rxflow *g, uint64_t sq)
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

static int port_init(uint16_t p, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(p, &info))
		return fprintf(stderr, "sluice-gen: port %u does not exist\n", p), -1;
	if (info.max_rx_queues < nb_lanes || info.max_tx_queues < nb_lanes)
		return fprintf(stderr, "sluice-gen: port %u has %u rx and %u tx queues, %u lanes need "
			       "as many each\n", p, info.max_rx_queues, info.max_tx_queues, nb_lanes), -1;
	if (nb_lanes > 1 && (info.flow_type_rss_offloads & RTE_ETH_RSS_IP)) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP & info.flow_type_rss_offloads;
	}
	/* the PMD may give fewer (or more): rte_eth_dev_adjust_nb_rx_tx_desc. A virtio-user
	 * TX queue uses no more than it is given here, whatever its ring's queue_size */
	uint16_t nrx = opt.rxd, ntx = opt.txd;
	if (rte_eth_dev_configure(p, (uint16_t)nb_lanes, (uint16_t)nb_lanes, &conf) ||
	    rte_eth_dev_adjust_nb_rx_tx_desc(p, &nrx, &ntx))
		return fprintf(stderr, "sluice-gen: port %u: configure failed\n", p), -1;
	for (uint16_t q = 0; q < nb_lanes; q++)
		if (rte_eth_rx_queue_setup(p, q, nrx, rte_eth_dev_socket_id(p), NULL, mp) ||
		    rte_eth_tx_queue_setup(p, q, ntx, rte_eth_dev_socket_id(p), NULL))
			return fprintf(stderr, "sluice-gen: port %u: queue %u set-up failed\n", p, q), -1;
	rte_eth_promiscuous_enable(p);
	if (rte_eth_dev_start(p))
		return fprintf(stderr, "sluice-gen: port %u: start failed\n", p), -1;
	return 0;
}

/* Where the signature goes (and is looked for): after the UDP or TCP header, or after the
 * IP header; 0 when the frame is not IPv4 or IPv6. VLAN tags are skipped, and a PPPoE
 * session header (RFC 2516) with PPP's IPv4 or IPv6 protocol: what a BNG sends its
 * subscribers is counted as the IP packet inside. */
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
	if (type == RTE_BE16(RTE_ETHER_TYPE_PPPOE_SESSION) && len >= off + 8 && d[off] == 0x11 &&
	    d[off + 1] == 0 && d[off + 6] == 0) { /* version 1, type 1, code 0; PPP protocol */
		type = d[off + 7] == 0x21 ? RTE_BE16(RTE_ETHER_TYPE_IPV4)
		       : d[off + 7] == 0x57 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : 0;
		off += 8;
	}
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

/* Writes the signature into a burst of one stream's packets (their payload was zeros), at
 * the stream's payload offset, and adds its words to their UDP or TCP checksum (RFC 1624).
 * Per burst the signature and the time stamp are the same: their sum is taken once; per
 * packet only the sequence number's three 16-bit pieces are added. */
static void stamp_burst(const struct sdef *sd, uint32_t sig, uint8_t *const *bufs,
			const uint16_t *lens, uint16_t n, uint64_t seq, uint64_t now)
{
	const struct sl_pg_stream *s = &sd->pg;
	const uint32_t off = sd->pl_off;
	if (!off)
		return; /* no room: counted as unsigned at the receiver */
	const bool l4 = s->l4_off != UINT16_MAX &&
			(s->l4_proto == IPPROTO_UDP || s->l4_proto == IPPROTO_TCP);
	const bool udp = s->l4_proto == IPPROTO_UDP;
	const uint32_t ck_off = s->l4_off + (udp ? 6 : 16);
	/* little-endian words of little-endian values: their 16-bit pieces */
	const uint32_t base = (sig & 0xffff) + (sig >> 16) + (uint32_t)(now & 0xffff) +
			      (uint32_t)(now >> 16 & 0xffff) + (uint32_t)(now >> 32 & 0xffff) +
			      (uint32_t)(now >> 48);
	const bool odd = l4 && ((off - s->l4_off) & 1);
	for (uint16_t i = 0; i < n; i++, seq++) {
		uint8_t *d = bufs[i];
		if (lens[i] < off + sizeof(struct payload))
			continue;
		/* three whole stores: 18 bytes built on the stack and copied would stall
		 * store-to-load forwarding */
		uint64_t a = sig | seq << 32;       /* signature, sequence bits 0-31 */
		uint16_t b = (uint16_t)(seq >> 32); /* sequence bits 32-47 */
		memcpy(d + off, &a, 8);
		memcpy(d + off + 8, &b, 2);
		memcpy(d + off + 10, &now, 8);
		if (!l4)
			continue;
		/* the signature's words; at an odd offset from the L4 header they are not words of
		 * its checksum, so the bytes are summed */
		sl_pg_cksum_add(d + ck_off,
				odd ? rte_raw_cksum(d + off, sizeof(struct payload))
				    : base + (uint32_t)(seq & 0xffff) + (uint32_t)(seq >> 16 & 0xffff) + b,
				udp);
	}
}

static void lane_reset(struct lane *l)
{
	memset(l->seq, 0, sizeof(l->seq));
	memset(l->sent, 0, sizeof(l->sent));
	memset(l->tx_bytes, 0, sizeof(l->tx_bytes));
	l->tx_full = l->nsent = l->burst_no = l->last_tx = l->late_max = l->late_at = 0;
	l->busy = l->span = 0;
	memset(l->rx, 0, sizeof(l->rx));
	memset(l->rx_sig, 0, sizeof(l->rx_sig));
	l->stale = 0;
	memset(l->flows, 0, sizeof(*l->flows) * nb_streams * nb_lanes);
	for (unsigned k = 0; k < nb_streams * nb_lanes; k++)
		l->flows[k].lat_min = UINT64_MAX;
	uint64_t c = run.count;
	l->quota = c ? c / nb_lanes + (l->id < c % nb_lanes) : 0;
	l->done = c && !l->quota;
}

static void tx_burst(struct lane *l, uint64_t now, unsigned epoch)
{
	unsigned id = (unsigned)(l->burst_no++ % nb_streams);
	struct sdef *sd = &defs[id];
	struct rte_mbuf *b[BURST];
	uint16_t want = BURST;
	if (l->quota && l->quota - l->nsent < BURST)
		want = (uint16_t)(l->quota - l->nsent);
	uint8_t *bufs[BURST];
	uint16_t lens[BURST];
	if (sl_mbuf_get_rearm(l->mp, b, bufs, want, sd->port))
		return;
	sl_pg_build_burst(&sd->pg, l->seq[id], bufs, lens, want);
	uint32_t sig = SIG_MAGIC | (epoch & 0xff) << 12 | l->id << 8 | id;
	uint64_t bytes = 0;
	for (uint16_t i = 0; i < want; i++) {
		b[i]->data_len = b[i]->pkt_len = lens[i];
		bytes += lens[i];
	}
	stamp_burst(sd, sig, bufs, lens, want, l->seq[id], now);
	uint16_t k = rte_eth_tx_burst(sd->port, (uint16_t)l->id, b, want);
	l->seq[id] += k; /* what the port refused is sent again with the same numbers */
	l->sent[id] += k;
	l->nsent += k;
	if (k < want) {
		for (uint16_t i = k; i < want; i++) /* refused: not sent */
			bytes -= lens[i];
		l->tx_full += want - k;
		rte_pktmbuf_free_bulk(b + k, want - k);
	}
	l->tx_bytes[id] += bytes;
}

static void rx_one(struct lane *l, unsigned pi, struct rte_mbuf *m, uint64_t now, unsigned epoch)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = payload_off(d, m->data_len);
	struct payload pl;
	l->rx[pi]++;
	if (!off || m->data_len < off + sizeof(pl))
		return;
	memcpy(&pl, d + off, sizeof(pl));
	unsigned sl = (pl.sig >> 8) & 0xf, sid = pl.sig & 0xff;
	if ((pl.sig & SIG_MAGIC_MASK) != SIG_MAGIC || sl >= nb_lanes || sid >= nb_streams)
		return; /* unsigned, or not one of ours */
	if (((pl.sig >> 12) & 0xff) != (epoch & 0xff)) {
		l->stale++; /* ours, from an earlier run */
		return;
	}
	l->rx_sig[pi]++;
	struct rxflow *g = &l->flows[sid * nb_lanes + sl];
	g->rx++;
	g->bytes += m->pkt_len;
	uint64_t sq = 0;
	for (int j = 5; j >= 0; j--)
		sq = sq << 8 | pl.seq[j];
	seq_rx(g, sq);
	uint64_t lat = now > pl.tsc ? now - pl.tsc : 0;
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

/* The receiving port of index pi: [1] the RX port first, then the TX port under --bidir. */
static uint16_t rx_port(unsigned pi)
{
	return pi == 0 ? opt.port[1] : opt.port[0];
}

static int lane_main(void *arg)
{
	struct lane *l = arg;
	struct rte_mbuf *b[BURST];
	unsigned nrx = opt.bidir ? 2 : 1; /* the RX port; under --bidir the TX port too */
	uint64_t prev = rte_rdtsc();
	bool worked = false, sending = false;
	while (!quit) {
		unsigned epoch = run.epoch;
		rte_smp_rmb();
		if (l->epoch != epoch) {
			lane_reset(l);
			l->next_tx = run.start;
			l->gap_seen = run.gap;
			rte_smp_wmb();
			l->epoch = epoch;
		}
		uint64_t now = rte_rdtsc();
		/* the last turn of the loop, timed by this one's clock read (no extra read of the
		 * TSC): busy if it sent or received; counted while the lane is sending */
		if (sending) {
			l->span += now - prev;
			if (worked)
				l->busy += now - prev;
		}
		prev = now;
		worked = false;
		sending = run.state == RUN && !l->done && now >= run.start;
		if (run.state == RUN && !l->done && now >= run.start) {
			uint64_t gap = run.gap;
			if (gap != l->gap_seen) { /* the rate was updated */
				l->gap_seen = gap;
				l->next_tx = now;
			}
			if (now >= run.end || (l->quota && l->nsent >= l->quota)) {
				l->last_tx = RTE_MIN(now, run.end);
				rte_smp_wmb();
				l->done = 1;
			} else if (!gap || now >= l->next_tx) {
				if (gap && now - l->next_tx > l->late_max) {
					l->late_max = now - l->next_tx;
					l->late_at = l->next_tx - run.start;
				}
				tx_burst(l, now, epoch);
				l->next_tx += gap;
				worked = true;
			}
		}
		/* before the first run nothing is received: it stays in the port for the run (a
		 * pcap "DUT" replays its file at once) */
		for (unsigned pi = 0; epoch && pi < nrx; pi++) {
			uint16_t k = rte_eth_rx_burst(rx_port(pi), (uint16_t)l->id, b, BURST);
			if (!k)
				continue;
			uint64_t t = rte_rdtsc();
			for (uint16_t i = 0; i < k; i++)
				rx_one(l, pi, b[i], t, epoch);
			rte_pktmbuf_free_bulk(b, k);
			worked = true;
		}
	}
	return 0;
}

/* ---- rates ---- */

/* Packets/s in all for a rate in percent of line rate on the busiest sending port, or -1. */
static double pct_to_pps(double pct, char *err, size_t el)
{
	double pps = -1;
	for (unsigned k = 0; k < nb_streams; k++) {
		struct rte_eth_link link;
		uint16_t p = defs[k].port;
		if (rte_eth_link_get_nowait(p, &link) || !link.link_speed ||
		    link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN) {
			snprintf(err, el, "port %u does not tell its line rate: give the rate in packets/s", p);
			return -1;
		}
		/* each stream has 1/nb_streams of the packets: the rate that fills the port */
		double share = 0;
		for (unsigned j = 0; j < nb_streams; j++)
			if (defs[j].port == p)
				share += (defs[j].avg_frame + 20) * 8 / nb_streams;
		double fill = pct / 100 * (double)link.link_speed * 1e6 / share;
		pps = pps < 0 ? fill : RTE_MIN(pps, fill);
	}
	return pps;
}

/* 0 if every port can carry its share of pps; else -1 with the reason. */
static int check_rate(double pps, char *err, size_t el)
{
	for (unsigned pi = 0; pi < 2; pi++) {
		uint16_t p = opt.port[pi];
		double bps = 0;
		for (unsigned k = 0; k < nb_streams; k++)
			if (defs[k].port == p)
				bps += pps / nb_streams * (defs[k].avg_frame + 20) * 8;
		struct rte_eth_link link;
		if (!bps || rte_eth_link_get_nowait(p, &link) || !link.link_speed ||
		    link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
			continue;
		if (bps > (double)link.link_speed * 1e6 * 1.0001) {
			snprintf(err, el, "%.0f packets/s is %.2f Gb/s on port %u (frames, preamble and "
				 "gap), above the port's %u Mb/s", pps, bps / 1e9, p, link.link_speed);
			return -1;
		}
	}
	return 0;
}

/* The rate for a request: pps, or pct of line rate; checked against the ports. */
static int resolve_rate(double v, int pct, double *pps, char *err, size_t el)
{
	if (v < 0 || (pct && (v <= 0 || v > 100))) {
		snprintf(err, el, pct ? "a rate in percent must be above 0 and at most 100"
				      : "a rate cannot be negative");
		return -1;
	}
	*pps = pct ? pct_to_pps(v, err, el) : v;
	if (*pps < 0)
		return -1;
	return check_rate(*pps, err, el);
}

static uint64_t gap_for(double pps)
{
	return pps > 0 ? (uint64_t)((double)rte_get_tsc_hz() * BURST * nb_lanes / pps) : 0;
}

/* ---- runs: the control thread's state machine ---- */

static int all_lanes(int (*pred)(const struct lane *))
{
	for (unsigned k = 0; k < nb_lanes; k++)
		if (!pred(&lanes[k]))
			return 0;
	return 1;
}
static int lane_synced(const struct lane *l) { return l->epoch == run.epoch; }
static int lane_done(const struct lane *l) { return l->done; }

static int run_start(double pps, double duration, uint64_t count, uint32_t drain_ms, char *err,
		     size_t el)
{
	if (run.state != IDLE)
		return snprintf(err, el, "a run is under way: stop it first"), -1;
	if (duration <= 0 && !count)
		return snprintf(err, el, "give a duration (seconds) or a packet count"), -1;
	run.drain_ms = drain_ms;
	run.rate = pps;
	run.count = count;
	run.gap = gap_for(pps);
	run.start = UINT64_MAX;
	rte_smp_wmb();
	run.epoch++;
	while (!all_lanes(lane_synced) && !quit)
		rte_pause(); /* each lane clears its books, then sends from start */
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc() + hz / 1000;
	run.end = duration > 0 ? now + (uint64_t)(duration * (double)hz) : UINT64_MAX;
	run.start = now;
	for (unsigned k = 0; k < nb_lanes; k++)
		lanes[k].next_tx = now; /* lanes have not sent yet: start is in the future */
	rte_smp_wmb();
	run.state = RUN;
	return 0;
}

/* Sending ends (all lanes done, or asked to stop): drain what is in flight, then idle. */
static void run_step(int stop)
{
	uint64_t now = rte_rdtsc();
	if (run.state == RUN && (stop || all_lanes(lane_done))) {
		if (stop && run.end > now)
			run.end = now;
		while (!all_lanes(lane_done) && !quit)
			rte_pause();
		uint64_t last = run.start;
		for (unsigned k = 0; k < nb_lanes; k++)
			last = RTE_MAX(last, lanes[k].last_tx);
		run.secs_tsc = last - run.start;
		run.drain_end = rte_rdtsc() + rte_get_tsc_hz() * run.drain_ms / 1000;
		run.state = DRAIN;
	} else if (run.state == DRAIN && now >= run.drain_end) {
		run.state = IDLE;
	}
}

/* ---- the report ---- */

static void flow_add(struct rxflow *all, const struct rxflow *g)
{
	all->rx += g->rx;
	all->bytes += g->bytes;
	all->uniq += g->uniq;
	all->dup += g->dup;
	all->reord += g->reord;
	all->lat_n += g->lat_n;
	all->lat_sum += g->lat_sum;
	all->jitter = RTE_MAX(all->jitter, g->jitter); /* of several flows: the largest */
	all->lat_min = RTE_MIN(all->lat_min, g->lat_min);
	all->lat_max = RTE_MAX(all->lat_max, g->lat_max);
	for (unsigned h = 0; h < HIST_BUCKETS; h++)
		all->hist[h] += g->hist[h];
}

static void put_counts(FILE *f, const struct rxflow *g, uint64_t sent, uint64_t sent_bytes,
		       int json)
{
	double us = 1e6 / (double)rte_get_tsc_hz();
	double lo = (double)g->lat_min, hi = (double)g->lat_max;
	double lat[8] = {g->lat_n ? lo * us : 0, g->lat_n ? g->lat_sum / (double)g->lat_n * us : 0,
			 hi * us, hist_pct_within(g->hist, g->lat_n, 50, lo, hi) * us,
			 hist_pct_within(g->hist, g->lat_n, 90, lo, hi) * us,
			 hist_pct_within(g->hist, g->lat_n, 99, lo, hi) * us,
			 hist_pct_within(g->hist, g->lat_n, 99.9, lo, hi) * us,
			 hist_pct_within(g->hist, g->lat_n, 99.99, lo, hi) * us};
	fprintf(f,
		json ? "\"sent\": %" PRIu64 ", \"sent_bytes\": %" PRIu64 ", \"signed_bytes\": %" PRIu64
		       ", \"duplicates\": %" PRIu64 ", \"lost\": %" PRId64
		       ", \"out_of_order\": %" PRIu64 ", \"latency_us\": {\"min\": %.2f, \"avg\": "
		       "%.2f, \"max\": %.2f, \"p50\": %.2f, \"p90\": %.2f, \"p99\": %.2f, "
		       "\"p99.9\": %.2f, \"p99.99\": %.2f}, \"jitter_us\": %.3f"
		     : "sent %" PRIu64 " (%" PRIu64 " bytes, %" PRIu64 " back)  duplicates %" PRIu64
		       "  lost %" PRId64 "  out-of-order %" PRIu64
		       "\n  latency us: min %.2f avg %.2f max %.2f p50 %.2f p90 %.2f p99 %.2f p99.9 "
		       "%.2f p99.99 %.2f  jitter %.3f",
		sent, sent_bytes, g->bytes, g->dup, (int64_t)sent - (int64_t)g->uniq, g->reord, lat[0],
		lat[1], lat[2], lat[3],
		lat[4], lat[5], lat[6], lat[7], g->jitter * us);
}

/* Per stream and in all: counts, loss, reordering, duplicates, latency. Counters of a run
 * under way are read as they are (each word whole). */
static void report(FILE *f, int json)
{
	static struct rxflow st[MAX_STREAMS], all;
	uint64_t sent[MAX_STREAMS] = {0}, sbytes[MAX_STREAMS] = {0}, tbytes = 0, tsent = 0;
	uint64_t tx_full = 0, rx = 0, rx_sig = 0, stale = 0, late = 0, late_at = 0;
	uint64_t ptx[2] = {0}, prx[2] = {0}, prx_sig[2] = {0};
	memset(st, 0, sizeof(st));
	memset(&all, 0, sizeof(all));
	all.lat_min = UINT64_MAX;
	for (unsigned s = 0; s < nb_streams; s++) {
		st[s].lat_min = UINT64_MAX;
		for (unsigned k = 0; k < nb_lanes; k++) {
			const struct lane *l = &lanes[k];
			sent[s] += l->sent[s];
			sbytes[s] += l->tx_bytes[s];
			for (unsigned j = 0; j < nb_lanes; j++)
				flow_add(&st[s], &l->flows[s * nb_lanes + j]);
		}
		tsent += sent[s];
		tbytes += sbytes[s];
		ptx[defs[s].port == opt.port[0] ? 0 : 1] += sent[s];
		flow_add(&all, &st[s]);
	}
	for (unsigned k = 0; k < nb_lanes; k++) {
		tx_full += lanes[k].tx_full;
		stale += lanes[k].stale;
		if (lanes[k].late_max >= late) {
			late = lanes[k].late_max;
			late_at = lanes[k].late_at;
		}
		for (unsigned pi = 0; pi < 2; pi++) {
			/* a lane receives first on the RX port ([1]), then on the TX port ([0]) */
			unsigned to = pi == 0 && opt.port[0] != opt.port[1];
			prx[to] += lanes[k].rx[pi];
			prx_sig[to] += lanes[k].rx_sig[pi];
			rx += lanes[k].rx[pi];
			rx_sig += lanes[k].rx_sig[pi];
		}
	}
	double secs = (double)(run.state == RUN ? rte_rdtsc() - RTE_MIN(run.start, rte_rdtsc())
						: run.secs_tsc) / (double)rte_get_tsc_hz();
	double dsecs = secs > 0 ? secs : 1;
	const char *state = run.state == RUN ? "running" : run.state == DRAIN ? "draining" : "idle";
	/* how busy each lane was while it sent, and its busy cycles per packet sent or
	 * received: a lane near 100% limits what is measured */
	uint64_t busy = 0;
	char lanes_busy[MAX_LANES * 8] = "";
	for (unsigned k = 0, o = 0; k < nb_lanes; k++) {
		const struct lane *l = &lanes[k];
		busy += l->busy;
		o += (unsigned)snprintf(lanes_busy + o, sizeof(lanes_busy) - o, "%s%.1f", k ? ", " : "",
					l->span ? 100.0 * (double)l->busy / (double)l->span : 0.0);
	}
	double busy_cpp = tsent + rx ? (double)busy / (double)(tsent + rx) : 0;
	/* paced: the most a burst left after its time (the lane held up, by this machine's
	 * scheduler for one; it then sends what it owes back to back, a burst of late x rate) */
	double late_us = (double)late * 1e6 / (double)rte_get_tsc_hz();
	if (json) {
		fputc('{', f);
		put_counts(f, &all, tsent, tbytes, 1);
		fprintf(f, ", \"received\": %" PRIu64 ", \"signed\": %" PRIu64 ", \"unsigned\": %" PRIu64
			   ", \"stale\": %" PRIu64 ", \"tx_full\": %" PRIu64 ", \"seconds\": %.3f, "
			   "\"tx_mpps\": %.3f, \"rx_mpps\": %.3f, \"rate_pps\": %.0f, \"lanes\": %u, "
			   "\"lanes_busy_pct\": [%s], \"busy_cycles_per_packet\": %.1f, "
			   "\"tx_late_max_us\": %.1f, \"tx_late_at_ms\": %.1f, "
			   "\"state\": \"%s\", \"run\": %u, \"drain_ms\": %u, \"ports\": [",
			rx, rx_sig, rx - rx_sig - stale, stale, tx_full, secs, (double)tsent / dsecs / 1e6,
			(double)rx_sig / dsecs / 1e6, run.rate, nb_lanes, lanes_busy, busy_cpp, late_us,
			(double)late_at * 1e3 / (double)rte_get_tsc_hz(), state, run.epoch, run.drain_ms);
		for (unsigned pi = 0; pi < (opt.port[0] == opt.port[1] ? 1u : 2u); pi++) {
			struct rte_eth_link link = {0};
			rte_eth_link_get_nowait(opt.port[pi], &link);
			fprintf(f, "%s{\"port\": %u, \"link\": %s, \"sent\": %" PRIu64
				   ", \"received\": %" PRIu64 ", \"signed\": %" PRIu64 "}", pi ? ", " : "",
				opt.port[pi], link.link_status ? "true" : "false", ptx[pi], prx[pi],
				prx_sig[pi]);
		}
		fputs("], \"streams\": [", f);
		for (unsigned s = 0; s < nb_streams; s++) {
			fprintf(f, "%s{\"stream\": %u, \"port\": %u, \"received\": %" PRIu64 ", ",
				s ? ", " : "", s, defs[s].port, st[s].rx);
			put_counts(f, &st[s], sent[s], sbytes[s], 1);
			fputc('}', f);
		}
		fputs("]}\n", f);
		return;
	}
	fputs("all: ", f);
	put_counts(f, &all, tsent, tbytes, 0);
	fprintf(f, "\nreceived %" PRIu64 " (signed %" PRIu64 ", stale %" PRIu64 ")  tx-full %" PRIu64
		   "\n%.2f s: offered %.3f Mpps, received %.3f Mpps (%u lane%s, busy %s%%, %.1f "
		   "cycles per packet sent or received; a burst up to %.1f us late)\n",
		rx, rx_sig, stale, tx_full, secs, (double)tsent / dsecs / 1e6,
		(double)rx_sig / dsecs / 1e6, nb_lanes, nb_lanes > 1 ? "s" : "", lanes_busy, busy_cpp,
		late_us);
	for (unsigned pi = 0; opt.bidir && pi < 2; pi++)
		fprintf(f, "port %u: sent %" PRIu64 "  received %" PRIu64 " (signed %" PRIu64 ")\n",
			opt.port[pi], ptx[pi], prx[pi], prx_sig[pi]);
	for (unsigned s = 0; nb_streams > 1 && s < nb_streams; s++) {
		fprintf(f, "stream %u (port %u): ", s, defs[s].port);
		put_counts(f, &st[s], sent[s], sbytes[s], 0);
		fputc('\n', f);
	}
}

/* ---- the control socket ---- */

static double rate_of(const struct gen_ctl_req *r, int *is_pct, int *given, char *err, size_t el)
{
	const struct gen_ctl_kv *pps = gen_ctl_get(r, "rate"), *pct = gen_ctl_get(r, "percent");
	*given = pps || pct;
	*is_pct = pct != NULL;
	if (pps && pct)
		return snprintf(err, el, "give \"rate\" (packets/s) or \"percent\", not both"), -1;
	const struct gen_ctl_kv *v = pps ? pps : pct;
	if (v && v->type != 'n')
		return snprintf(err, el, "\"%s\" must be a number", v->key), -1;
	return v ? v->num : 0;
}

static void wait_idle(void)
{
	while (run.state != IDLE && !quit) {
		run_step(0);
		rte_delay_us_sleep(CTL_TICK_MS * 1000);
	}
}

/* Answers one request line into out (one line of JSON). Returns 1 on quit. */
static int ctl_request(const char *line, size_t len, FILE *out)
{
	struct gen_ctl_req r;
	char err[256] = "";
	const struct gen_ctl_kv *cmd;
	if (gen_ctl_parse(line, len, &r, err, sizeof(err)))
		goto bad;
	cmd = gen_ctl_get(&r, "cmd");
	if (!cmd || cmd->type != 's') {
		snprintf(err, sizeof(err), "a request needs \"cmd\": start, stop, wait, update, stats, quit");
		goto bad;
	}
	const char *c = cmd->str;
	int pct, given;
	double v;
	if (!strcmp(c, "start")) {
		const struct gen_ctl_kv *d = gen_ctl_get(&r, "duration"), *n = gen_ctl_get(&r, "count");
		const struct gen_ctl_kv *dr = gen_ctl_get(&r, "drain_ms");
		if ((d && (d->type != 'n' || d->num < 0)) || (n && (n->type != 'n' || n->num < 0))) {
			snprintf(err, sizeof(err), "\"duration\" and \"count\" must be numbers, 0 or more");
			goto bad;
		}
		if (dr && (dr->type != 'n' || !(dr->num >= 0 && dr->num <= DRAIN_MS_MAX) ||
			   dr->num != (double)(uint32_t)dr->num)) { /* NaN fails the range first */
			snprintf(err, sizeof(err), "\"drain_ms\" must be a whole number from 0 to %d",
				 DRAIN_MS_MAX);
			goto bad;
		}
		v = rate_of(&r, &pct, &given, err, sizeof(err));
		double pps;
		if (v < 0 || resolve_rate(given ? v : opt.rate, given ? pct : opt.rate_pct, &pps, err,
					  sizeof(err)))
			goto bad;
		double dur = d ? d->num : n ? 0 : opt.duration;
		if (run_start(pps, dur, n ? (uint64_t)n->num : 0, dr ? (uint32_t)dr->num : opt.drain_ms,
			      err, sizeof(err)))
			goto bad;
		fprintf(out, "{\"ok\": true, \"run\": %u, \"rate_pps\": %.0f}\n", run.epoch, pps);
	} else if (!strcmp(c, "update")) {
		v = rate_of(&r, &pct, &given, err, sizeof(err));
		double pps;
		if (v < 0)
			goto bad;
		if (!given) {
			snprintf(err, sizeof(err), "update needs \"rate\" or \"percent\"");
			goto bad;
		}
		if (run.state != RUN) {
			snprintf(err, sizeof(err), "no run is under way");
			goto bad;
		}
		if (resolve_rate(v, pct, &pps, err, sizeof(err)))
			goto bad;
		run.rate = pps;
		run.gap = gap_for(pps);
		fprintf(out, "{\"ok\": true, \"rate_pps\": %.0f}\n", pps);
	} else if (!strcmp(c, "stop")) {
		if (run.state == RUN)
			run_step(1);
		wait_idle();
		fputs("{\"ok\": true}\n", out);
	} else if (!strcmp(c, "wait")) {
		wait_idle();
		report(out, 1);
	} else if (!strcmp(c, "stats")) {
		report(out, 1);
	} else if (!strcmp(c, "quit")) {
		fputs("{\"ok\": true}\n", out);
		return 1;
	} else {
		snprintf(err, sizeof(err), "unknown cmd \"%s\": start, stop, wait, update, stats, quit", c);
		goto bad;
	}
	return 0;
bad:
	fputs("{\"ok\": false, \"error\": \"", out);
	for (const char *p = err; *p; p++)
		fprintf(out, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
	fputs("\"}\n", out);
	return 0;
}

static int ctl_listen(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(a.sun_path))
		return fprintf(stderr, "sluice-gen: control socket path too long\n"), -1;
	strcpy(a.sun_path, path);
	unlink(path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4)) {
		fprintf(stderr, "sluice-gen: control socket %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Serves clients one at a time until quit; runs go on while nobody is connected. */
static void ctl_serve(int lfd)
{
	while (!quit) {
		struct pollfd p = {.fd = lfd, .events = POLLIN};
		run_step(0);
		if (poll(&p, 1, CTL_TICK_MS) <= 0)
			continue;
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		char buf[4096];
		size_t have = 0;
		while (!quit) {
			struct pollfd q = {.fd = fd, .events = POLLIN};
			run_step(0);
			if (poll(&q, 1, CTL_TICK_MS) <= 0)
				continue;
			ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
			if (n <= 0)
				break;
			have += (size_t)n;
			char *nl;
			int bye = 0;
			while (!bye && (nl = memchr(buf, '\n', have))) {
				char *ans = NULL;
				size_t alen = 0;
				FILE *out = open_memstream(&ans, &alen);
				if (!out)
					break;
				bye = ctl_request(buf, (size_t)(nl - buf), out);
				fclose(out);
				for (size_t w = 0; w < alen;) {
					ssize_t k = write(fd, ans + w, alen - w);
					if (k <= 0)
						break;
					w += (size_t)k;
				}
				free(ans);
				have -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, have);
			}
			if (bye) {
				quit = 1;
				break;
			}
			if (have == sizeof(buf) - 1) { /* a line longer than the buffer */
				static const char e[] = "{\"ok\": false, \"error\": \"request too long\"}\n";
				if (write(fd, e, sizeof(e) - 1) < 0)
					break;
				have = 0;
			}
		}
		close(fd);
	}
}

/* ---- one shot ---- */

static void *control_thread(void *arg)
{
	int lfd = (int)(intptr_t)arg;
	if (lfd >= 0) {
		ctl_serve(lfd);
		close(lfd);
		unlink(opt.control);
		quit = 1;
		return NULL;
	}
	char err[256];
	double pps;
	if (resolve_rate(opt.rate, opt.rate_pct, &pps, err, sizeof(err))) {
		fprintf(stderr, "sluice-gen: %s\n", err);
		quit = 2;
		return NULL;
	}
	if (run_start(pps, opt.count && opt.duration <= 0 ? 0 : opt.duration, opt.count, opt.drain_ms,
		      err, sizeof(err))) {
		fprintf(stderr, "sluice-gen: %s\n", err);
		quit = 2;
		return NULL;
	}
	uint64_t hz = rte_get_tsc_hz(), next = rte_rdtsc() + hz;
	while (run.state != IDLE && !quit) {
		run_step(0);
		if (opt.progress && run.state == RUN && rte_rdtsc() >= next) {
			next += hz;
			uint64_t s = 0, rs = 0;
			for (unsigned k = 0; k < nb_lanes; k++) {
				s += lanes[k].nsent;
				rs += lanes[k].rx_sig[0] + lanes[k].rx_sig[1];
			}
			double t = (double)(rte_rdtsc() - run.start) / (double)hz;
			fprintf(stderr, "[%5.1f s] sent %" PRIu64 " (%.3f Mpps)  received %" PRIu64 "\n",
				t, s, (double)s / t / 1e6, rs);
		}
		rte_delay_us_sleep(CTL_TICK_MS * 1000);
	}
	if (run.state == RUN) /* interrupted: the report covers what was sent */
		run_step(1);
	report(stdout, opt.json);
	fflush(stdout);
	quit = 1;
	return NULL;
}

/* ---- options ---- */

static void usage(void)
{
	fprintf(stderr,
		"usage: sluice-gen [EAL args] -- [--tx-port N] [--rx-port N] [--bidir]\n"
		"       [--rate PPS|PCT%%] [--duration S] [--count N] [--drain-ms MS] [--json]\n"
		"       [--progress] [--rxd N] [--txd N]\n"
		"       [--size BYTES --dst A.B.C.D/LEN --src A.B.C.D --dst-mac MAC]\n"
		"       [--stream '[port N] size MIN[-MAX]|imix|mix S:W,...\n"
		"                  data { IP4: SMAC -> DMAC [vlan ID]\n"
		"                  UDP: SRC[/LEN] [- END] [random] -> DST[/LEN] [- END] [random]\n"
		"                  UDP: SPORT[-END] [random] -> DPORT[-END] [random] }'] ...\n"
		"       [--control PATH]   (a JSON control socket instead of one run)\n"
		"       [--pppoe-sessions N [--pppoe-vlans V[-W] [--pppoe-svlan S]]]\n"
		"        [--ipoe-sessions M [--ipoe-vlan V]]\n"
		"        [--pppoe-rate PER_S] [--pppoe-user U] [--pppoe-password P]\n"
		"        [--pppoe-traffic PKTS [--pppoe-traffic-rate PPS] --pppoe-target A.B.C.D\n"
		"         --pppoe-router-mac MAC]\n"
		"        [--pppoe-ipv6 TARGET6] [--pppoe-timeout S] [--pppoe-hold S]\n"
		"        (the subscriber emulator: N PPPoE and M IPoE clients, started PER_S a second\n"
		"        in all; --pppoe-ipv6: PPPoE dual-stack, IPv6CP and SLAAC, traffic to and\n"
		"        from TARGET6 too; --pppoe-vlans: PPPoE client i on VLAN V + i %% (W - V + 1),\n"
		"        under 802.1ad S-VLAN S with --pppoe-svlan (QinQ); --pppoe-traffic-rate:\n"
		"        each session's PKTS at PPS a second each way, not as fast as they go;\n"
		"        traffic goes once each session's warm-ups, sent each second, came back;\n"
		"        --pppoe-hold: stay connected S seconds, or until SIGTERM,\n"
		"        after the report)\n"
		"  --stream takes sluiced's packet-generator grammar (sizes without the FCS); up to\n"
		"  %d streams; under --bidir a stream without 'port' is sent both ways.\n"
		"  Lanes: every worker lcore (EAL -l) sends and receives on a queue of its own.\n"
		"  --drain-ms: how long the receivers count frames after the last is sent (default\n"
		"  500; RFC 2544 asks 2000 in front of a device that may queue for long).\n"
		"  --rxd, --txd: descriptors of each RX and TX queue (default 1024, as testpmd's\n"
		"  options; over virtio-user, the DUT's receive ring is this TX queue).\n",
		MAX_STREAMS);
}

static int add_stream_text(const char *text, uint16_t port)
{
	if (nb_streams == MAX_STREAMS)
		return fprintf(stderr, "sluice-gen: at most %d streams (--bidir counts each way)\n",
			       MAX_STREAMS), -1;
	struct sdef *sd = &defs[nb_streams];
	char err[256], *argv2[SL_CLI_MAX_ARGS];
	size_t l = strlen(text) + 64;
	char *buf = malloc(l);
	if (!buf)
		return -1;
	snprintf(buf, l, "{ name gen interface tx %s }", text);
	int n2 = sl_cli_tokenize(buf, argv2, SL_CLI_MAX_ARGS);
	int bad = n2 < 0 || sl_pg_parse(&sd->pg, n2, argv2, err, sizeof(err));
	free(buf); /* the stream keeps copies of what it needs */
	if (bad) {
		if (n2 >= 0)
			sl_pg_free(&sd->pg);
		return fprintf(stderr, "sluice-gen: --stream: %s\n",
			       n2 < 0 ? "cannot split it into words" : err), -1;
	}
	if (sd->pg.npcap || !sd->pg.size_max) {
		sl_pg_free(&sd->pg);
		return fprintf(stderr, "sluice-gen: --stream needs data { ... }\n"), -1;
	}
	const struct sl_pg_stream *s = &sd->pg;
	double sum = 0;
	for (unsigned k = 0; k < s->nmix; k++)
		sum += s->mix[k];
	sd->avg_frame = 4 + (s->nmix ? sum / s->nmix : (s->size_min + s->size_max) / 2.0);
	sd->port = port;
	sd->pl_off = payload_off(s->tmpl, s->size_max); /* the same headers in every packet */
	nb_streams++;
	return 0;
}

/* "[port N] rest": the port a stream goes out of, and the rest of its text. */
static const char *stream_port(const char *t, uint16_t *port, int *has)
{
	*has = 0;
	while (*t == ' ')
		t++;
	if (strncmp(t, "port ", 5))
		return t;
	char *end;
	unsigned long p = strtoul(t + 5, &end, 10);
	if (end == t + 5 || (*end != ' ' && *end) || p > UINT16_MAX)
		return NULL;
	*port = (uint16_t)p;
	*has = 1;
	return end;
}

static int build_streams(void)
{
	char text[512];
	if (!opt.nb_text) { /* the built-in stream: UDP from --src to random addresses of --dst */
		if (!opt.dmac[0])
			return fprintf(stderr, "sluice-gen: nothing to send: give --stream '...', or "
					       "--dst-mac MAC for the built-in UDP stream (with --size, "
					       "--dst, --src)\n"),
			       -1;
		if (opt.size < 64 || opt.size > 1518)
			return fprintf(stderr, "sluice-gen: size %u: must be 64..1518 (headers need 64)\n",
				       opt.size), -1;
		for (unsigned pi = 0; pi < (opt.bidir ? 2u : 1u); pi++) {
			struct rte_ether_addr mac;
			if (!rte_eth_dev_is_valid_port(opt.port[pi]))
				return fprintf(stderr, "sluice-gen: port %u does not exist\n",
					       opt.port[pi]), -1;
			char smac[RTE_ETHER_ADDR_FMT_SIZE];
			rte_eth_macaddr_get(opt.port[pi], &mac);
			rte_ether_format_addr(smac, sizeof(smac), &mac);
			snprintf(text, sizeof(text), "size %u data { IP4: %s -> %s UDP: %s -> %s random "
				 "UDP: 2123 -> 10000 }", opt.size - 4, smac, opt.dmac, opt.src, opt.dst);
			if (add_stream_text(text, opt.port[pi]))
				return -1;
		}
		return 0;
	}
	for (unsigned k = 0; k < opt.nb_text; k++) {
		uint16_t port = opt.port[0];
		int has;
		const char *rest = stream_port(opt.stream_text[k], &port, &has);
		if (!rest)
			return fprintf(stderr, "sluice-gen: --stream: 'port' takes a port number\n"), -1;
		if (has && port != opt.port[0] && port != opt.port[1])
			return fprintf(stderr, "sluice-gen: --stream: port %u is neither --tx-port nor "
				       "--rx-port\n", port), -1;
		if (has && port == opt.port[1] && !opt.bidir && opt.port[0] != opt.port[1])
			return fprintf(stderr, "sluice-gen: --stream: port %u sends only with --bidir\n",
				       port), -1;
		if (add_stream_text(rest, port))
			return -1;
		if (opt.bidir && !has && add_stream_text(rest, opt.port[1]))
			return -1;
	}
	return 0;
}

static int parse(int argc, char **argv)
{
	static struct option lo[] = {
		{"tx-port", 1, 0, 't'}, {"rx-port", 1, 0, 'r'}, {"rate", 1, 0, 'R'},
		{"duration", 1, 0, 'd'}, {"size", 1, 0, 's'},  {"dst", 1, 0, 'D'},
		{"src", 1, 0, 'S'},      {"dst-mac", 1, 0, 'm'}, {"json", 0, 0, 'j'},
		{"stream", 1, 0, 'x'},   {"count", 1, 0, 'c'},   {"bidir", 0, 0, 'b'},
		{"control", 1, 0, 'C'},  {"progress", 0, 0, 'p'},   {"drain-ms", 1, 0, 1015},
		{"rxd", 1, 0, 1016},     {"txd", 1, 0, 1017},
		{"pppoe-sessions", 1, 0, 1000}, {"pppoe-rate", 1, 0, 1001}, {"pppoe-user", 1, 0, 1002},
		{"pppoe-password", 1, 0, 1003}, {"pppoe-traffic", 1, 0, 1004},
		{"pppoe-target", 1, 0, 1005}, {"pppoe-router-mac", 1, 0, 1006},
		{"pppoe-ipv6", 1, 0, 1011},
		{"pppoe-timeout", 1, 0, 1007}, {"pppoe-hold", 1, 0, 1008},
		{"ipoe-sessions", 1, 0, 1009}, {"ipoe-vlan", 1, 0, 1010},
		{"pppoe-vlans", 1, 0, 1012}, {"pppoe-svlan", 1, 0, 1013},
		{"pppoe-traffic-rate", 1, 0, 1014}, {0, 0, 0, 0}};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'r': {
			unsigned long p = strtoul(optarg, &end, 10);
			if (*end || end == optarg || p >= RTE_MAX_ETHPORTS)
				return fprintf(stderr, "sluice-gen: bad port '%s'\n", optarg), -1;
			opt.port[c == 'r'] = (uint16_t)p;
			break;
		}
		case 'R':
			opt.rate = strtod(optarg, &end);
			opt.rate_pct = *end == '%';
			if (end == optarg || (*end && strcmp(end, "%")) || opt.rate < 0)
				return fprintf(stderr, "sluice-gen: --rate takes packets/s or a percent of "
					       "line rate (50%%), not '%s'\n", optarg), -1;
			break;
		case 'd':
			opt.duration = strtod(optarg, &end);
			if (*end || end == optarg || opt.duration < 0)
				return fprintf(stderr, "sluice-gen: bad duration '%s'\n", optarg), -1;
			break;
		case 1015: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || v > DRAIN_MS_MAX)
				return fprintf(stderr, "sluice-gen: --drain-ms takes milliseconds from 0 to %d, "
					       "not '%s'\n", DRAIN_MS_MAX, optarg), -1;
			opt.drain_ms = (uint32_t)v;
			break;
		}
		case 's': opt.size = (uint16_t)atoi(optarg); break;
		case 'j': opt.json = 1; break;
		case 'b': opt.bidir = 1; break;
		case 'p': opt.progress = 1; break;
		case 'C': opt.control = optarg; break;
		case 'c':
			opt.count = strtoull(optarg, &end, 10);
			if (*end || end == optarg)
				return fprintf(stderr, "sluice-gen: bad count '%s'\n", optarg), -1;
			break;
		case 'x':
			if (opt.nb_text == MAX_STREAMS)
				return fprintf(stderr, "sluice-gen: at most %d streams\n", MAX_STREAMS), -1;
			opt.stream_text[opt.nb_text++] = optarg;
			break;
		case 'm': {
			struct rte_ether_addr m;
			if (rte_ether_unformat_addr(optarg, &m))
				return fprintf(stderr, "sluice-gen: bad MAC %s\n", optarg), -1;
			snprintf(opt.dmac, sizeof(opt.dmac), "%s", optarg);
			break;
		}
		case 'S':
		case 'D': {
			struct in_addr a;
			char tmp[64];
			snprintf(tmp, sizeof(tmp), "%s", optarg);
			char *sl = strchr(tmp, '/');
			if (sl)
				*sl = 0;
			if (inet_pton(AF_INET, tmp, &a) != 1 || (c == 'D' && (!sl || atoi(sl + 1) > 32)) ||
			    (c == 'S' && sl))
				return fprintf(stderr, "sluice-gen: bad %s %s\n",
					       c == 'D' ? "prefix" : "address", optarg), -1;
			snprintf(c == 'D' ? opt.dst : opt.src, sizeof(opt.dst), "%s", optarg);
			break;
		}
		case 1000:
		case 1004: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || v > (c == 1000 ? 0xffffffu : 1000000u))
				return fprintf(stderr, "sluice-gen: bad %s '%s'\n",
					       c == 1000 ? "--pppoe-sessions" : "--pppoe-traffic", optarg), -1;
			*(c == 1000 ? &emu.sessions : &emu.traffic) = (unsigned)v;
			break;
		}
		case 1001:
		case 1007: {
			double v = strtod(optarg, &end);
			if (*end || end == optarg || v <= 0)
				return fprintf(stderr, "sluice-gen: bad %s '%s'\n",
					       c == 1001 ? "--pppoe-rate" : "--pppoe-timeout", optarg), -1;
			*(c == 1001 ? &emu.rate : &emu.timeout) = v;
			break;
		}
		case 1002:
		case 1003:
			if (strlen(optarg) > 255)
				return fprintf(stderr, "sluice-gen: --pppoe-user and --pppoe-password are at "
					       "most 255 characters\n"), -1;
			*(c == 1002 ? &emu.user : &emu.password) = optarg;
			break;
		case 1005: {
			struct in_addr a;
			if (inet_pton(AF_INET, optarg, &a) != 1)
				return fprintf(stderr, "sluice-gen: bad --pppoe-target %s\n", optarg), -1;
			emu.target = ntohl(a.s_addr);
			break;
		}
		case 1009:
		case 1010: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || v > (c == 1009 ? 0xffffffu : 4094u))
				return fprintf(stderr, "sluice-gen: bad %s '%s'\n",
					       c == 1009 ? "--ipoe-sessions" : "--ipoe-vlan", optarg), -1;
			if (c == 1009)
				emu.ipoe_sessions = (unsigned)v;
			else
				emu.ipoe_vlan = (uint16_t)v;
			break;
		}
		case 1012: {
			unsigned long v = strtoul(optarg, &end, 10), w = v;
			if (*end == '-' && end != optarg)
				w = strtoul(end + 1, &end, 10);
			if (*end || v < 1 || w > 4094 || w < v)
				return fprintf(stderr, "sluice-gen: bad --pppoe-vlans '%s' (V or V-W, "
						       "1-4094)\n", optarg), -1;
			emu.pppoe_vlan = (uint16_t)v;
			emu.pppoe_vlans = (uint16_t)(w - v + 1);
			break;
		}
		case 1014: {
			double v = strtod(optarg, &end);
			if (*end || end == optarg || !(v > 0 && v <= 1e6))
				return fprintf(stderr, "sluice-gen: bad --pppoe-traffic-rate '%s' (packets a "
						       "second per session, over 0, up to 1000000)\n", optarg), -1;
			emu.traffic_rate = v;
			break;
		}
		case 1013: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 4094)
				return fprintf(stderr, "sluice-gen: bad --pppoe-svlan '%s' (1-4094)\n",
					       optarg), -1;
			emu.pppoe_svlan = (uint16_t)v;
			break;
		}
		case 1016:
		case 1017: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || v < 64 || v > 32768)
				return fprintf(stderr, "sluice-gen: bad --%s '%s' (64-32768)\n",
					       c == 1016 ? "rxd" : "txd", optarg), -1;
			*(c == 1016 ? &opt.rxd : &opt.txd) = (uint16_t)v;
			break;
		}
		case 1008:
			emu_hold = strtod(optarg, &end);
			if (*end || end == optarg || emu_hold < 0)
				return fprintf(stderr, "sluice-gen: bad --pppoe-hold '%s'\n", optarg), -1;
			break;
		case 1011:
			if (inet_pton(AF_INET6, optarg, emu.target6) != 1)
				return fprintf(stderr, "sluice-gen: bad --pppoe-ipv6 %s\n", optarg), -1;
			emu.ipv6 = true;
			break;
		case 1006:
			if (rte_ether_unformat_addr(optarg, &emu.router_mac))
				return fprintf(stderr, "sluice-gen: bad --pppoe-router-mac %s\n", optarg), -1;
			break;
		default: usage(); return -1;
		}
	}
	if (opt.bidir && opt.port[0] == opt.port[1])
		return fprintf(stderr, "sluice-gen: --bidir needs two ports\n"), -1;
	return 0;
}

/* Everything after EAL's start-up; main() cleans EAL up however this returns. */
static int gen_main(int argc, char **argv)
{
	if (parse(argc, argv))
		return 2;
	emu.json = opt.json;
	bool emulate = emu.sessions || emu.ipoe_sessions;
	if (emu.sessions + emu.ipoe_sessions > 0xffffffu)
		return fprintf(stderr, "sluice-gen: at most 16,777,215 clients in all\n"), 2;
	if (emu.pppoe_svlan && !emu.pppoe_vlans)
		return fprintf(stderr, "sluice-gen: --pppoe-svlan needs --pppoe-vlans (the inner "
			       "VLANs)\n"), 2;
	if (emulate && (opt.port[0] == opt.port[1] || opt.control || opt.nb_text))
		return fprintf(stderr, "sluice-gen: --pppoe-sessions and --ipoe-sessions take the "
			       "access port (--tx-port) and a peer port (--rx-port), without --stream "
			       "or --control\n"), 2;
	if (!emulate && build_streams())
		return 2;
	if (!rte_eth_dev_is_valid_port(opt.port[0]) || !rte_eth_dev_is_valid_port(opt.port[1]))
		return fprintf(stderr, "sluice-gen: port %u does not exist (%u ports)\n",
			       rte_eth_dev_is_valid_port(opt.port[0]) ? opt.port[1] : opt.port[0],
			       rte_eth_dev_count_avail()), 2;
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	unsigned lc, w = 0;
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (w == MAX_LANES)
			return fprintf(stderr, "sluice-gen: at most %d lanes\n", MAX_LANES), 2;
		lanes[w++].lcore = lc;
	}
	nb_lanes = w ? w : 1;
	if (!w)
		lanes[0].lcore = rte_get_main_lcore();
	/* a lane's two ports' rings full, and room to build bursts: 8,192 with the default rings */
	unsigned per_lane = RTE_MAX(8192u, 2u * (opt.rxd + opt.txd) + 4096u);
	struct rte_mempool *mp = rte_pktmbuf_pool_create("gen_pool", per_lane * (nb_lanes + 1), 256,
							 0, RTE_MBUF_DEFAULT_BUF_SIZE,
							 (int)rte_socket_id());
	if (!mp)
		return fprintf(stderr, "sluice-gen: no memory for the packet pool\n"), 1;
	if (port_init(opt.port[0], mp) || (opt.port[1] != opt.port[0] && port_init(opt.port[1], mp)))
		return 1;
	for (unsigned k = 0; k < nb_lanes; k++) {
		lanes[k].id = k;
		lanes[k].mp = mp;
		lanes[k].flows = calloc((size_t)nb_streams * nb_lanes, sizeof(struct rxflow));
		if (!lanes[k].flows)
			return fprintf(stderr, "sluice-gen: no memory for the receive books\n"), 1;
	}
	/* wait for links (memif connects asynchronously) */
	for (int i = 0; i < 100; i++) {
		struct rte_eth_link a, b;
		rte_eth_link_get_nowait(opt.port[0], &a);
		rte_eth_link_get_nowait(opt.port[1], &b);
		if (a.link_status && b.link_status)
			break;
		rte_delay_ms(50);
	}
	if (emulate) { /* the subscriber emulator alone, on this lcore */
		int erc = bng_emu_run(&emu, opt.port[0], opt.port[1], mp);
		fflush(stdout);
		/* --pppoe-hold: stay connected (not polling) until SIGTERM or the time is up, so that
		 * the peer can be looked at and stopped first: DPDK 22.11's memif PMD can read a
		 * region its peer has just unmapped when the peer goes while it polls */
		for (uint64_t end = rte_rdtsc() + (uint64_t)(emu_hold * rte_get_tsc_hz());
		     !quit && rte_rdtsc() < end;)
			rte_delay_us_sleep(20000);
		for (unsigned pi = 0; pi < 2; pi++) {
			rte_eth_dev_stop(opt.port[pi]);
			rte_eth_dev_close(opt.port[pi]);
		}
		return erc;
	}
	int lfd = -1;
	if (opt.control && (lfd = ctl_listen(opt.control)) < 0)
		return 1;
	pthread_t ctl;
	if (pthread_create(&ctl, NULL, control_thread, (void *)(intptr_t)lfd))
		return fprintf(stderr, "sluice-gen: cannot start the control thread\n"), 1;
	if (w) {
		for (unsigned k = 0; k < nb_lanes; k++)
			rte_eal_remote_launch(lane_main, &lanes[k], lanes[k].lcore);
		pthread_join(ctl, NULL);
		rte_eal_mp_wait_lcore();
	} else {
		lane_main(&lanes[0]);
		pthread_join(ctl, NULL);
	}
	int rc = quit == 2 ? 2 : 0;
	sl_intr_park(); /* before the closes: see eal_exit.h */
	for (unsigned pi = 0; pi < (opt.port[0] == opt.port[1] ? 1u : 2u); pi++) {
		rte_eth_dev_stop(opt.port[pi]);
		rte_eth_dev_close(opt.port[pi]);
	}
	for (unsigned k = 0; k < nb_streams; k++)
		sl_pg_free(&defs[k].pg);
	for (unsigned k = 0; k < nb_lanes; k++)
		free(lanes[k].flows);
	return rc;
}

int main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv);
	if (n < 0)
		return fprintf(stderr, "sluice-gen: EAL init failed\n"), 1;
	int rc = gen_main(argc - n, argv + n);
	sl_eal_cleanup();
	return rc;
}
