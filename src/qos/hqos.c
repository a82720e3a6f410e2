/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical QoS on an interface's output, on DPDK's rte_sched: port -> subports -> pipes ->
 * 13 traffic classes (TC0 first, strict priority; TC12 best effort) -> 16 queues (one per TC,
 * four for TC12, served by weighted round robin).
 *   qos profile NAME rate R [burst B] [tc-rates R0 .. R12] [weights W0 W1 W2 W3] [tc-period MS]
 *       [red-min N red-max N [red-inv-prob P] [red-wq-log2 W] [red-tcs all|T,T...]]
 *   qos profile NAME del
 *   set interface qos IFACE rate R profile NAME [subports N] [pipes N] [queue-size Q]
 *       [classify dscp|vlan-prio] [pipe-from none|vlan|ip-dst] [overhead B] [worker W]
 *   set interface qos IFACE disable
 *   set qos pipe IFACE subport S pipe P profile NAME
 *   set qos subport IFACE subport S rate R [burst B]
 *   set qos map IFACE dscp D|vlan-prio P tc T [queue Q]
 *   show qos IFACE [subport S [pipe P]]
 *   show qos profile [NAME]
 * Rates are bits per second (k, m, g: 10^3, 10^6, 10^9), bursts bytes.
 *
 * qos-output, the last feature of the interface-output arc, classifies each frame (traffic
 * class and queue by DSCP or VLAN priority through a map; subport and pipe from the metadata
 * when a feature set them, sl_flag_qos, else from the VLAN IDs or the IP destination) and
 * enqueues it: into rte_sched on the interface's owner worker, through a multi-producer ring
 * to it from the others. qos-sched, a source node, runs on the owner only: it takes the ring
 * into rte_sched and dequeues what the port's rate allows (a token bucket of its own: rte_sched
 * shapes subports and pipes on the port's clock, which it advances by every byte it hands out,
 * so it expects the caller to hand no more to the port than the line takes), on to the rest of
 * the arc. rte_sched is single-threaded: everything that touches it after set-up (a pipe's
 * profile, reading its statistics) is a request the owner runs between two walks. */
#include "hqos.h"
#include "../cli/cli.h"
#include "../runtime/feature.h"
#include "../runtime/runtime.h"
#include "../interface/iface.h"
#include "wheel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_red.h>
#include <rte_sched.h>

#define QOS_TCS RTE_SCHED_TRAFFIC_CLASSES_PER_PIPE
#define QOS_BE RTE_SCHED_TRAFFIC_CLASS_BE
#define QOS_QUEUES RTE_SCHED_QUEUES_PER_PIPE
#define QOS_PROFILES 64
#define QOS_MAX_SUBPORTS 64
#define QOS_MAX_PIPES 65536 /* per subport, and subports x pipes in all */
#define QOS_PER_WORKER 16
#define QOS_RING 4096

struct qos_profile {
	char name[32];
	uint64_t rate, tc_rate[QOS_TCS]; /* bits per second, as given */
	struct rte_sched_pipe_params p;  /* rte_sched's: bytes per second */
	uint32_t users;                  /* interfaces with a pipe of this profile */
	struct {                         /* RED (the wheel's; tcs 0: none) */
		uint16_t tcs, min, max, inv_prob, wq_log2;
	} red;
};
static struct qos_profile *profiles[QOS_PROFILES];

enum { CLS_DSCP, CLS_PCP };
enum { PF_NONE, PF_VLAN, PF_IP_DST };
static const char *const cls_names[] = {"dscp", "vlan-prio"};
static const char *const pf_names[] = {"none", "vlan", "ip-dst"};
enum { OP_PIPE = 1, OP_STATS, OP_SUBPORT };

struct hqos {
	/* read by every worker sending on the interface */
	struct rte_sched_port *port;
	struct sl_wheel *wheel; /* scheduler wheel: the pipes shaped on it (port is NULL) */
	struct rte_ring *handoff; /* the other workers' frames, to the owner */
	uint32_t sp_mask, pipe_mask, pipes_log2, all_mask; /* all_mask: subports x pipes - 1 */
	bool fast; /* classify dscp, pipe-from none or ip-dst: wheel_in reads IP headers itself */
	bool prefetch; /* the wheel's pipes' lines more than half the L2 cache: fetched ahead */
	uint16_t ifx, owner;
	uint16_t chunk; /* frames enqueued before each dequeue */
	uint8_t classify, pipe_from;
	uint8_t dscp_map[64], pcp_map[8]; /* the queue, 0-15 (TC t's is t, TC12's 12-15) */
	uint8_t tos_map[256]; /* dscp_map by the whole TOS (traffic class) byte: wheel_in's */
	/* the owner's */
	struct {
		double bytes_per_tsc, credits, credit_max;
		uint64_t last;
		uint32_t last_frames, overhead; /* the last frames sent on, and their bytes: */
		uint64_t last_bytes;            /* their mean length is qos_drain's guess */
		uint64_t queued; /* in rte_sched now */
		uint64_t pkts, bytes;
	} o __rte_cache_aligned;
	uint64_t *deq_tc; /* the owner's: dequeued per [subport * QOS_TCS + tc] */
	uint64_t *wq;     /* the wheel's, the owner's: per [subport * QOS_TCS + tc], frames and
			   * bytes in, frames and bytes dropped (rte_sched counts these itself) */
	/* a request to the owner: main writes it, then seq; the owner runs it, then done */
	struct {
		uint32_t seq, done;
		int op, rc;
		uint32_t subport, pipe, stats_pipe; /* stats_pipe: UINT32_MAX, none */
		int32_t add;                        /* OP_PIPE: a profile to add first, or -1 */
		int32_t prof;                       /* OP_PIPE: our profile's index */
		uint32_t id;                        /* OP_PIPE: the rte_sched profile id */
		uint16_t qlen[QOS_QUEUES];
		uint64_t pipe_pkts, pipe_bytes;     /* OP_STATS, the wheel: the pipe's, sent */
		uint64_t sp_rate, sp_burst;         /* OP_SUBPORT: bytes/s (0: the port's), bytes */
	} mb __rte_cache_aligned;
	/* control */
	uint64_t rate;        /* bits per second */
	uint32_t subports, pipes;
	uint16_t qsize;
	int16_t prof_id[QOS_PROFILES]; /* our profile i's rte_sched id (every subport), or -1 */
	uint32_t nb_ids;
	uint8_t *pipe_prof;   /* [subport * pipes + pipe]: our profile index */
	uint8_t def_prof;     /* the interface's profile, every pipe's at first */
	struct rte_sched_subport_stats *sp_acc;  /* [subports], from OP_STATS */
	struct rte_sched_queue_stats *q_acc;     /* [subports * pipes * 16], from OP_STATS */
	uint64_t sp_rate[QOS_MAX_SUBPORTS];      /* bits/s of its own; 0: the port's */
	uint64_t sp_burst[QOS_MAX_SUBPORTS];     /* bytes, with a rate */
	/* rte_sched's subport profiles: id i's rate (bytes/s) and bucket; id 0 the port's */
	uint64_t spp_rate[QOS_MAX_SUBPORTS + 1], spp_size[QOS_MAX_SUBPORTS + 1];
	uint32_t nb_spp;
};

static struct hqos *if_qos[SL_IF_MAX];
static struct hqos *owned[SL_MAX_WORKERS][QOS_PER_WORKER];
static uint32_t nb_owned[SL_MAX_WORKERS];
static uint8_t feat;
static rte_edge_t qo_tx0, qs_tx0; /* qos-output's and qos-sched's first tx edges */

#define QO_ERRORS(X)                                                  \
	X(QO_ERR_FULL, "qos queue full (tail drop)")                  \
	X(QO_ERR_RING, "qos hand-off ring to the owner worker full") \
	X(QO_ERR_OFF, "qos turned off with the frame queued")         \
	X(QO_ERR_NOBUF, "qos wheel's queue blocks all in use")                         \
	X(QO_ERR_RED, "qos RED drop (average queue between the thresholds, at random)") \
	X(QO_ERR_RED_MAX, "qos RED drop (average queue over red-max)")
enum { QO_ERRORS(SL_ERR_ENUM) QO_NB_ERR };
static const char *const qo_reasons[] = {QO_ERRORS(SL_ERR_STR)};
static uint16_t qo_err;

enum { QO_NEXT_DROP }; /* then the arc's edges */

/* ---- the data path ---- */

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* m's place in the hierarchy, written where rte_sched reads it (rte_mbuf_sched_set, with the
 * queue id as rte_sched_port_pkt_write computes it). */
static inline void qos_classify(const struct hqos *h, struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->data_len, l3 = 14, outer = 0, inner = 0, dst = 0;
	uint8_t pcp = 0, dscp = 0, tags = 0;
	uint16_t type = len >= 14 ? be16(d + 12) : 0;
	if ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) && len >= 18) {
		pcp = d[14] >> 5;
		outer = be16(d + 14) & 0xfff;
		type = be16(d + 16);
		l3 = 18;
		tags = 1;
		if (type == RTE_ETHER_TYPE_VLAN && len >= 22) {
			inner = be16(d + 18) & 0xfff;
			type = be16(d + 20);
			l3 = 22;
			tags = 2;
		}
	}
	/* a subscriber's IP inside PPPoE (RFC 2516 session stage; PPP's protocol 0x0021, 0x0057) */
	if (type == RTE_ETHER_TYPE_PPPOE_SESSION && len >= l3 + 8) {
		uint16_t ppp = be16(d + l3 + 6);
		if (ppp == 0x0021 || ppp == 0x0057) {
			type = ppp == 0x0021 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
			l3 += 8;
		}
	}
	if (type == RTE_ETHER_TYPE_IPV4 && len >= l3 + 20) {
		dscp = d[l3 + 1] >> 2;
		dst = (uint32_t)be16(d + l3 + 16) << 16 | be16(d + l3 + 18);
	} else if (type == RTE_ETHER_TYPE_IPV6 && len >= l3 + 40) {
		dscp = (uint8_t)((be16(d + l3) >> 6) & 0x3f);
		dst = (uint32_t)be16(d + l3 + 36) << 16 | be16(d + l3 + 38);
	}
	uint32_t queue = h->classify == CLS_DSCP ? h->dscp_map[dscp] : h->pcp_map[pcp];
	uint32_t sp, pipe;
	if (m->ol_flags & sl_flag_qos) {
		sp = sl_meta2(m)->qos_subport;
		pipe = sl_meta2(m)->qos_pipe;
	} else if (h->pipe_from == PF_IP_DST) {
		sp = dst >> h->pipes_log2;
		pipe = dst;
	} else if (h->pipe_from == PF_VLAN) {
		sp = tags == 2 ? outer : 0;
		pipe = tags == 2 ? inner : outer;
	} else {
		sp = pipe = 0;
	}
	uint32_t tc = RTE_MIN(queue, (uint32_t)QOS_BE);
	uint32_t qid = (sp & h->sp_mask) << (h->pipes_log2 + 4) | (pipe & h->pipe_mask) << 4 | queue;
	rte_mbuf_sched_set(m, qid, (uint8_t)tc, RTE_COLOR_GREEN);
}

static inline void qos_put(struct rte_graph *g, struct rte_node *node, struct sl_worker *w,
			   struct hqos *h, struct rte_mbuf **b, uint16_t n, uint64_t now);
static uint16_t wheel_in(struct rte_graph *g, struct rte_node *node, struct sl_worker *w,
			 struct hqos *h, struct rte_mbuf **b, uint16_t n, uint64_t now,
			 uint16_t *took);

/* The vector, one run of frames of one interface (meta->tx_if) at a time: runs of one
 * interface are the rule. The wheel's owner takes its run itself (wheel_in stops at the first
 * frame of another interface); the rest is classified and handed on by qos_put. */
static uint16_t qo_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	struct rte_mbuf **b = (struct rte_mbuf **)objs;
	void *pass[n];
	uint16_t nexts[n], np = 0;
	uint64_t now = rte_rdtsc();
	for (uint16_t i = 0; i < n;) {
		uint16_t ifx = sl_meta(b[i])->tx_if, k = 1;
		struct hqos *h = __atomic_load_n(&if_qos[ifx], __ATOMIC_ACQUIRE);
		if (likely(h && h->wheel && h->owner == w->id)) {
			wheel_in(g, node, w, h, b + i, n - i, now, &k);
			i += k;
			continue;
		}
		while (i + k < n && sl_meta(b[i + k])->tx_if == ifx)
			k++;
		if (h) {
			qos_put(g, node, w, h, b + i, k, now);
		} else { /* turned off since its sender chose the arc */
			uint16_t next = sl_feature_next_out(feat, ifx, qo_tx0);
			for (uint16_t j = 0; j < k; j++) {
				pass[np] = b[i + j];
				nexts[np++] = next;
			}
		}
		i += k;
	}
	sl_enqueue_nexts(g, node, pass, nexts, np);
	return n;
}

static struct rte_node_register qo_node = {
	.name = "qos-output",
	.process = qo_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {[QO_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(qo_node)

static void mailbox_run(struct hqos *h);

/* frames of bytes (their overhead not counted) sent on by h's owner: out of the port's
 * bucket, counted. */
static inline void port_sent(struct hqos *h, uint64_t frames, uint64_t bytes)
{
	if (!frames)
		return;
	bytes += frames * h->o.overhead;
	h->o.credits -= (double)bytes;
	h->o.last_frames = (uint32_t)frames; /* no division here: qos_drain's, when frames wait */
	h->o.last_bytes = bytes;
	h->o.pkts += frames;
	h->o.bytes += bytes;
}

/* Up to want frames of h out of rte_sched, on to the rest of the arc (node's first tx edge
 * tx0), counted. */
static __attribute__((noinline)) uint16_t qs_dequeue(struct rte_graph *g, struct rte_node *node,
						     struct hqos *h, uint16_t want, rte_edge_t tx0)
{
	rte_edge_t next = sl_feature_next_out(feat, h->ifx, tx0);
	struct rte_mbuf **to = (struct rte_mbuf **)rte_node_next_stream_get(g, node, next, want);
	int got = h->wheel ? sl_wheel_dequeue(h->wheel, to, want, rte_rdtsc())
			   : rte_sched_port_dequeue(h->port, to, want);
	uint64_t bytes = 0;
	uint32_t shift = h->pipes_log2 + 4;
	for (int i = 0; i < got; i++) {
		bytes += to[i]->pkt_len;
		uint32_t sp = rte_mbuf_sched_queue_get(to[i]) >> shift;
		h->deq_tc[sp * QOS_TCS + rte_mbuf_sched_traffic_class_get(to[i])]++;
	}
	rte_node_next_stream_put(g, node, next, (uint16_t)got);
	port_sent(h, (uint64_t)got, bytes);
	h->o.queued -= (uint64_t)got;
	return (uint16_t)got;
}

/* qs_dequeue from qos-sched's polls (a function of its own for make bench-graph's callgrind,
 * which counts qos-output's calls with the dequeues they make, and these apart). */
static __attribute__((noinline)) uint16_t qs_polled(struct rte_graph *g, struct rte_node *node,
						    struct hqos *h, uint16_t want)
{
	return qs_dequeue(g, node, h, want, qs_tx0);
}

/* h's port bucket refilled to now (at most full) */
static inline void port_refill(struct hqos *h, uint64_t now)
{
	double c = h->o.credits + (double)(now - h->o.last) * h->o.bytes_per_tsc;
	h->o.credits = c < h->o.credit_max ? c : h->o.credit_max;
	h->o.last = now;
}

/* h's port bucket refilled to now, then what it allows out of rte_sched, up to room frames
 * and no more than it holds: asked for more, rte_sched_port_dequeue goes on stepping its
 * grinders until all are idle (with one pipe busy, seven idle grinders scan the bitmap per
 * frame). */
static inline uint16_t qos_drain(struct rte_graph *g, struct rte_node *node, struct hqos *h,
				 uint64_t now, uint16_t room, bool polled)
{
	port_refill(h, now);
	if (!h->o.queued || h->o.credits <= 0)
		return 0;
	double can = 1 + h->o.credits * h->o.last_frames / (double)h->o.last_bytes;
	uint16_t want = can < room ? (uint16_t)can : room;
	if (want > h->o.queued)
		want = (uint16_t)h->o.queued;
	return polled ? qs_polled(g, node, h, want) : qs_dequeue(g, node, h, want, qo_tx0);
}

/* Frame m of pipe p, queue q (0-15), on h's owner, which did not pass at once: passed after
 * all (its class has a rate of its own), else queued, else dropped (counted); 1 when passed
 * (the caller sends and counts it). */
static __rte_noinline int wheel_slow(struct sl_worker *w, struct hqos *h, struct rte_mbuf *m,
				     uint32_t p, uint32_t q, bool port_open, uint64_t now)
{
	uint32_t tc = RTE_MIN(q, (uint32_t)QOS_BE), len = m->pkt_len;
	if (port_open && sl_wheel_pass(h->wheel, p, tc, len, now))
		return 1;
	uint64_t *c = &h->wq[((p >> h->pipes_log2) * QOS_TCS + tc) * 4];
	rte_mbuf_sched_set(m, p << 4 | q, (uint8_t)tc, RTE_COLOR_GREEN); /* for the dequeue */
	int why = sl_wheel_enqueue(h->wheel, m, p, q, now);
	if (likely(why == SL_WHEEL_OK)) {
		h->o.queued++;
		c[0]++;
		c[1] += len;
		return 0;
	}
	c[2]++;
	c[3] += len;
	static const uint8_t err_of[] = {[SL_WHEEL_FULL] = QO_ERR_FULL, [SL_WHEEL_NOBUF] = QO_ERR_NOBUF,
					 [SL_WHEEL_RED] = QO_ERR_RED,
					 [SL_WHEEL_RED_MAX] = QO_ERR_RED_MAX};
	w->errors[qo_err + err_of[why]]++;
	w->ifc[h->ifx].drops++;
	rte_pktmbuf_free(m);
	return 0;
}

/* wheel_in's word per frame: the queue in the top 4 bits, the pipe (subport << pipes_log2 |
 * pipe) below, so that the word without the pipe's bits within its subport is a key of the
 * subport and queue */
#define WQ_SHIFT 28
#define WQ_PIPE ((1u << WQ_SHIFT) - 1)

/* Frames of h passed at once: pkts frames, bytes bytes, of key (a word of wheel_in's without
 * its pipe's bits within the subport): in and sent. */
static inline void wheel_passed(struct hqos *h, uint32_t key, uint64_t pkts, uint64_t bytes)
{
	key = ((key & WQ_PIPE) >> h->pipes_log2) * QOS_TCS + RTE_MIN(key >> WQ_SHIFT, (uint32_t)QOS_BE);
	h->wq[key * 4] += pkts;
	h->wq[key * 4 + 1] += bytes;
	h->deq_tc[key] += pkts;
}

/* wheel_in's second loop: b's n frames (their words in PQ) passed at once to `to` while the
 * port has credit and their pipe is open and unlimited, else to wheel_slow (queued, passed or
 * dropped); the passed frames counted per run of one key (subport and queue) as the run ends.
 * Returns the end of what was passed, their bytes in *pbytes_out. prefetch: a constant. */
static __rte_always_inline struct rte_mbuf **
wheel_pass_all(struct sl_worker *w, struct hqos *h, struct rte_mbuf **b, const uint32_t *PQ,
	       uint32_t n, uint64_t now, struct rte_mbuf **__restrict to, int64_t credits,
	       uint64_t *pbytes_out, const bool prefetch)
{
	struct sl_wheel *wh = h->wheel;
	struct sl_wheel_pipe *__restrict pipes = wh->pipes;
	const int64_t ovh = h->o.overhead;
	const uint32_t kmask = ~((1u << h->pipes_log2) - 1);
	struct rte_mbuf **kfirst = to;
	uint32_t key = UINT32_MAX;
	uint64_t pbytes = 0, kb = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (prefetch && i + 8 < n)
			sl_wheel_prefetch_pipe(wh, PQ[i + 8] & WQ_PIPE);
		struct rte_mbuf *m = b[i];
		uint32_t pq = PQ[i], p = pq & WQ_PIPE, len = m->pkt_len;
		struct sl_wheel_pipe *pp = &pipes[p];
		if (likely(credits > 0 && sl_wheel_pipe_pass_open(pp, len, (uint64_t)(len + ovh), now))) {
			/* passed at once */
		} else if (!wheel_slow(w, h, m, p, pq >> WQ_SHIFT, credits > 0, now)) {
			continue;
		}
		credits -= len + ovh;
		uint32_t k = pq & kmask;
		if (unlikely(k != key)) {
			if (to != kfirst)
				wheel_passed(h, key, (uint64_t)(to - kfirst), kb);
			pbytes += kb;
			key = k;
			kfirst = to;
			kb = 0;
		}
		*to++ = m;
		kb += len;
	}
	if (to != kfirst)
		wheel_passed(h, key, (uint64_t)(to - kfirst), kb);
	*pbytes_out = pbytes + kb;
	return to;
}

/* wheel_in's word for a frame that is not the usual IP frame, or of an interface that
 * classifies by VLAN: qos_classify's. */
static __rte_noinline uint32_t wq_classify(const struct hqos *h, struct rte_mbuf *m)
{
	qos_classify(h, m);
	uint32_t qid = rte_mbuf_sched_queue_get(m);
	return (qid & (QOS_QUEUES - 1)) << WQ_SHIFT | ((qid >> 4) & h->all_mask);
}

/* What wheel_in's fast classification reads of h, in locals (the stores of its loops could
 * alias h's fields) */
struct wq_consts {
	uint64_t fqos;           /* sl_flag_qos */
	const uint8_t *tmap;     /* h->tos_map */
	uint32_t dst_mask;       /* pipe-from ip-dst: all_mask; else 0 */
	uint32_t sp_mask, pipe_mask, pipes_log2;
};

static inline struct wq_consts wq_consts_of(const struct hqos *h)
{
	return (struct wq_consts){.fqos = sl_flag_qos, .tmap = h->tos_map,
				  .dst_mask = h->pipe_from == PF_IP_DST ? h->all_mask : 0,
				  .sp_mask = h->sp_mask, .pipe_mask = h->pipe_mask,
				  .pipes_log2 = h->pipes_log2};
}

/* The pipe of frame m of an interface that classifies by DSCP (h->fast), its queue in *qo:
 * the queue from the DSCP, the pipe from the destination (pipe-from ip-dst) or from the
 * metadata (a subscriber's, sl_flag_qos); a PPPoE access interface's frames are PPPoE, a
 * routed one's IPv4: those two first; any other frame qos_classify's. */
static __rte_always_inline uint32_t wq_fast(const struct hqos *h, const struct wq_consts *k,
					    struct rte_mbuf *m, uint32_t *qo)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;
	memcpy(&type, d + 12, 2);
	uint32_t dst, q;
	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4) && m->data_len >= 34)) {
		q = k->tmap[d[15]];
		memcpy(&dst, d + 30, 4);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_PPPOE_SESSION) && m->data_len >= 42 &&
		   d[20] == 0 && d[21] == 0x21) { /* IPv4 in a PPPoE session */
		q = k->tmap[d[23]];
		memcpy(&dst, d + 38, 4);
	} else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && m->data_len >= 54) {
		q = k->tmap[(be16(d + 14) >> 4) & 0xff];
		memcpy(&dst, d + 50, 4);
	} else {
		uint32_t word = wq_classify(h, m);
		*qo = word >> WQ_SHIFT;
		return word & WQ_PIPE;
	}
	*qo = q;
	if (unlikely(m->ol_flags & k->fqos))
		return (sl_meta2(m)->qos_subport & k->sp_mask) << k->pipes_log2 |
		       (sl_meta2(m)->qos_pipe & k->pipe_mask);
	return rte_be_to_cpu_32(dst) & k->dst_mask;
}

/* wheel_in's usual case: an interface that classifies by DSCP, one subport, the port open
 * with credit for n of its longest frames (so no test of it per frame). Each frame of h's
 * interface (the first of another ends it: *took) classified and passed at once to `to` when
 * its pipe is open and unlimited, else to wheel_slow; the passed frames of the queue of DSCP 0
 * (the usual frame's) counted as all passed less the others, which a table of the loop's
 * counts (its rows set at a queue's first frame, so a vector of one queue writes none), added
 * to the subport's counters once (sessions 36-39: DSCP 0's queue out of the table, whose two
 * adds per frame are a chain through memory when every frame has one queue).
 * In chunks of WL_CHUNK frames, two loops each: the first classifies the chunk and fetches
 * each frame's pipe line (an L2 hit at 4,096 pipes, beyond it at 20,000: the charge's load
 * and store otherwise waited for it, and fetching it ahead in one loop cost a second
 * classification's loads), keeping the pipe's address tagged with its queue (XOR DSCP 0's, so
 * the usual frame's tag is 0); the second charges the pipes. 52.4 -> 67.3 instructions a
 * frame (make bench-graph's callgrind, 1,024 pipes) but fewer clocks (session 41,
 * BENCHMARKS.md: with 4,096 pipes qos-output 13.2 -> 11.3 clocks in 6 alternated rounds;
 * chunks of 16 to 64 alike, the whole vector at once no better than one loop, the same loops
 * without the fetch no better either; 20,000 sessions' pipes 21-22 -> 18-19 clocks, better
 * than wheel_pass_all's fetch 8 frames ahead). The classifying loop walks pointers and reads
 * kp's fields where it needs them (restrict: no store of the loop's can change them), where a
 * local copy had gcc spill and reload them: 67.3 -> 65.1 instructions a frame at 4,096 pipes,
 * the clocks the same (session 42). Returns the frames passed, their bytes in *pbytes_out. */
#define WL_CHUNK 16
#define WL_TAG (QOS_QUEUES - 1) /* a pipe's address's low bits, free (its line's): a queue */
_Static_assert(QOS_QUEUES <= _Alignof(struct sl_wheel_pipe), "a queue fits below a pipe's address");
static __rte_noinline uint16_t wheel_lean(struct sl_worker *w, struct hqos *h,
					  const struct wq_consts *__restrict kp, struct rte_mbuf **b,
					  uint16_t n, uint64_t now, struct rte_mbuf **__restrict to,
					  uint16_t *took, uint64_t *pbytes_out)
{
	struct sl_wheel_pipe *__restrict pipes = h->wheel->pipes;
	const uint64_t ovh = h->o.overhead;
	const uint16_t ifx = h->ifx;
	uint64_t qn[QOS_QUEUES], qb[QOS_QUEUES]; /* the other queues': where bit q of seen is set */
	uint32_t seen = 0;
	struct rte_mbuf **const to0 = to;
	const uint32_t q0 = kp->tmap[0]; /* DSCP 0's queue: the usual frame's */
	uint64_t bytes = 0;            /* of every frame passed */
	uintptr_t PP[WL_CHUNK];        /* a chunk's pipes, each tagged with its queue ^ q0 */
	uint16_t lim = n;              /* the run's end, once a frame of another interface ends it */
	for (uint16_t c0 = 0; c0 < lim; c0 = (uint16_t)(c0 + WL_CHUNK)) {
		struct rte_mbuf **const bc = b + c0;
		struct rte_mbuf **const bce = bc + RTE_MIN(lim - c0, WL_CHUNK);
		/* the chunk classified, each pipe's line fetched for the charges below */
		struct rte_mbuf **bp = bc;
		uintptr_t *pw = PP;
		for (; bp < bce; bp++, pw++) {
			struct rte_mbuf *m = *bp;
			if (unlikely(sl_meta(m)->tx_if != ifx))
				break;
			uint32_t q;
			struct sl_wheel_pipe *pp = &pipes[wq_fast(h, kp, m, &q)];
			__builtin_prefetch(pp, 1);
			*pw = (uintptr_t)pp | (q ^ q0);
		}
		const intptr_t j = bp - bc;
		if (bp < bce)
			lim = (uint16_t)(c0 + j);
		struct rte_mbuf **const be = bp;
		const uintptr_t *const pe = pw;
		for (intptr_t x = -j; x; x++) {
			struct rte_mbuf *m = be[x];
			uintptr_t v = pe[x];
			struct sl_wheel_pipe *pp = (struct sl_wheel_pipe *)(v & ~(uintptr_t)WL_TAG);
			uint32_t len = m->pkt_len;
			if (likely(sl_wheel_pipe_pass_open(pp, len, len + ovh, now))) {
				/* passed at once */
			} else if (!wheel_slow(w, h, m, (uint32_t)(pp - pipes),
					       (uint32_t)(v & WL_TAG) ^ q0, true, now)) {
				continue;
			}
			bytes += len;
			if (unlikely(v & WL_TAG)) { /* a queue other than DSCP 0's */
				uint32_t q = (uint32_t)(v & WL_TAG) ^ q0;
				if (!(seen >> q & 1)) {
					seen |= 1u << q;
					qn[q] = qb[q] = 0;
				}
				qn[q]++;
				qb[q] += len;
			}
			*to++ = m;
		}
	}
	*took = lim;
	uint64_t n0 = (uint64_t)(to - to0), b0 = bytes;
	for (; seen; seen &= seen - 1) {
		uint32_t q = (uint32_t)__builtin_ctz(seen);
		wheel_passed(h, q << WQ_SHIFT, qn[q], qb[q]);
		n0 -= qn[q];
		b0 -= qb[q];
	}
	if (n0)
		wheel_passed(h, q0 << WQ_SHIFT, n0, b0);
	*pbytes_out = bytes;
	return (uint16_t)(to - to0);
}

/* On the owner, the wheel: the frames of h's interface first among b's n (*took of them)
 * classified (the usual IPv4 or IPv6 frame by DSCP, its pipe from the metadata, the
 * destination or none, read here; the rest by qos_classify), each passed at once when its pipe
 * is open and its class allows (sl_wheel_pass) while the port has credit and no pipe due
 * before it waits for it (the ready array empty); else queued. Returns the frames sent on. */
static __rte_noinline uint16_t wheel_in(struct rte_graph *g, struct rte_node *node,
					struct sl_worker *w, struct hqos *h,
					struct rte_mbuf **b, uint16_t n, uint64_t now, uint16_t *took)
{
	struct sl_wheel *wh = h->wheel;
	uint32_t PQ[n]; /* queue << WQ_SHIFT | pipe */
	/* h's fields (and the flag) in locals: the stores below could alias them */
	const struct wq_consts k = wq_consts_of(h);
	const bool fast = h->fast;
	const uint16_t ifx = h->ifx;
	const bool prefetch = h->prefetch;
	bool port_open = wh->rhead == wh->rtail;
	/* refilled here: qos-sched refills it only while frames wait (an idle port's bucket,
	 * left short by its last burst, would queue a vector that it has room for now) */
	port_refill(h, now);
	int64_t credits = port_open ? (int64_t)h->o.credits : 0;
	rte_edge_t next = sl_feature_next_out(feat, ifx, qo_tx0);
	struct rte_mbuf **__restrict to =
		(struct rte_mbuf **)rte_node_next_stream_get(g, node, next, n);
	struct rte_mbuf **const to0 = to;
	uint64_t pbytes;
	/* the usual case: wheel_lean, while the port's bucket holds n of the interface's longest
	 * frames (its MTU now, Ethernet and two VLAN tags, the overhead) */
	if (fast && !h->sp_mask &&
	    credits >= (int64_t)n * (sl_if_fast[ifx].mtu + 26 + h->o.overhead)) {
		to += wheel_lean(w, h, &k, b, n, now, to, took, &pbytes);
	} else {
		for (uint16_t i = 0; !fast && i < n; i++) { /* classify vlan-prio, or pipe-from vlan */
			if (unlikely(sl_meta(b[i])->tx_if != ifx)) {
				n = i;
				break;
			}
			PQ[i] = wq_classify(h, b[i]);
		}
		for (uint16_t i = 0; fast && i < n; i++) {
			if (unlikely(sl_meta(b[i])->tx_if != ifx)) {
				n = i;
				break;
			}
			uint32_t q, p = wq_fast(h, &k, b[i], &q);
			PQ[i] = q << WQ_SHIFT | p;
		}
		/* pipes beyond the L2 cache: each one's state fetched 8 frames ahead (fetched in the
		 * classifying loop instead, 20,000 pipes cost qos-output 4 to 6 clocks more) */
		if (prefetch)
			to = wheel_pass_all(w, h, b, PQ, n, now, to, credits, &pbytes, true);
		else
			to = wheel_pass_all(w, h, b, PQ, n, now, to, credits, &pbytes, false);
		*took = n;
	}
	uint32_t passed = (uint32_t)(to - to0);
	rte_node_next_stream_put(g, node, next, (uint16_t)passed);
	port_sent(h, passed, pbytes);
	return (uint16_t)(passed + qos_drain(g, node, h, now, RTE_GRAPH_BURST_SIZE, false));
}

/* On the owner: n frames into rte_sched, a queue's size at a time (32 to 256), each chunk
 * followed by what the port lets out: a vector for one queue (256 frames) would otherwise
 * overflow it (64) though the port is far from full (one pipe at a tenth of the port's rate
 * lost three frames in four). Smaller chunks cost more per frame: rte_sched_port_dequeue's
 * fixed part (make bench-graph's callgrind, 4,096 pipes: 1,127 instructions a frame in
 * chunks of 256, 1,221 of 64, 1,275 of 32). */
static uint16_t qos_in(struct rte_graph *g, struct rte_node *node, struct sl_worker *w,
		       struct hqos *h, struct rte_mbuf **b, uint16_t n, uint64_t now)
{
	uint16_t out = 0, took;
	if (h->wheel) /* the ring's frames: every one of h's interface */
		return wheel_in(g, node, w, h, b, n, now, &took);
	for (uint16_t i = 0; i < n; i += h->chunk) {
		uint16_t k = (uint16_t)RTE_MIN(h->chunk, n - i);
		int e = rte_sched_port_enqueue(h->port, b + i, k); /* frees what it drops */
		h->o.queued += (uint64_t)e;
		if (unlikely(e < k)) {
			w->errors[qo_err + QO_ERR_FULL] += (uint64_t)(k - e);
			w->ifc[h->ifx].drops += (uint64_t)(k - e);
		}
		out = (uint16_t)(out + qos_drain(g, node, h, now, RTE_GRAPH_BURST_SIZE, false));
	}
	return out;
}

/* Frames of h from this worker: into rte_sched on its owner, else to the owner's ring. */
static inline void qos_put(struct rte_graph *g, struct rte_node *node, struct sl_worker *w,
			   struct hqos *h, struct rte_mbuf **b, uint16_t n, uint64_t now)
{
	if (!n)
		return;
	for (uint16_t i = 0; i < n; i++)
		qos_classify(h, b[i]);
	if (h->owner == w->id) {
		qos_in(g, node, w, h, b, n, now);
		return;
	}
	unsigned k = rte_ring_mp_enqueue_burst(h->handoff, (void **)b, n, NULL);
	for (unsigned i = k; i < n; i++) {
		sl_set_error(b[i], qo_err + QO_ERR_RING);
		w->ifc[h->ifx].drops++;
		rte_node_enqueue_x1(g, node, QO_NEXT_DROP, b[i]);
	}
}

/* One owned interface: a request from the main lcore, the other workers' frames, then what
 * the port's rate allows out, up to room frames. *now: the TSC, read here at the first
 * interface that has frames (0 until then): with none queued or handed over, nothing is
 * read (the port's bucket is refilled when frames come). */
static uint16_t sched_one(struct rte_graph *g, struct rte_node *node, struct sl_worker *w,
			  struct hqos *h, uint64_t *now, uint16_t room)
{
	if (unlikely(__atomic_load_n(&h->mb.seq, __ATOMIC_ACQUIRE) != h->mb.done))
		mailbox_run(h);
	bool handed = !rte_ring_empty(h->handoff);
	if (likely(!handed && !h->o.queued))
		return 0;
	if (!*now)
		*now = rte_rdtsc();
	if (unlikely(handed)) {
		struct rte_mbuf *in[RTE_GRAPH_BURST_SIZE];
		unsigned k = rte_ring_sc_dequeue_burst(h->handoff, (void **)in, RTE_DIM(in), NULL);
		return qos_in(g, node, w, h, in, (uint16_t)k, *now);
	}
	return qos_drain(g, node, h, *now, room, true);
}

static uint16_t qs_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t nb)
{
	(void)objs;
	(void)nb;
	struct sl_worker *w = sl_node_worker(node);
	uint32_t n = __atomic_load_n(&nb_owned[w->id], __ATOMIC_ACQUIRE);
	if (likely(!n))
		return 0;
	uint64_t now = 0;
	uint16_t total = 0;
	for (uint32_t i = 0; i < n && total < RTE_GRAPH_BURST_SIZE; i++) {
		struct hqos *h = __atomic_load_n(&owned[w->id][i], __ATOMIC_ACQUIRE);
		if (h)
			total = (uint16_t)(total + sched_one(g, node, w, h, &now,
							     RTE_GRAPH_BURST_SIZE - total));
	}
	sl_source_busy(w, SL_SRC_QOS, total, now);
	return total;
}

static struct rte_node_register qs_node = {
	.name = "qos-sched",
	.flags = RTE_NODE_SOURCE_F,
	.process = qs_process,
	.init = sl_node_init,
	.nb_edges = 1,
	.next_nodes = {[QO_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(qs_node)

/* A TC period (ms) in which rate (bytes/s) earns 64 full frames (1,538 bytes and 24 of
 * framing): 10 ms, longer for lower rates (at most a second). rte_sched gives each TC its
 * credit per period anew, and what is left of it, less than a frame, is lost: with 10 ms at
 * 4 Mbit/s (5,000 bytes: four 1,024-byte frames) a pipe sent 3.29 Mbit/s; with 64 frames'
 * worth the loss is under 1/64 of the rate. */
#define QOS_FULL_FRAME (1538 + 24)
static uint64_t tc_period_for(uint64_t rate)
{
	uint64_t ms = (64ull * QOS_FULL_FRAME * 1000 + rate - 1) / rate;
	return RTE_MIN(RTE_MAX(ms, 10ull), 1000ull);
}

/* A subport profile of rate bytes/s and a bucket of size bytes, every TC at that rate. */
static struct rte_sched_subport_profile_params subport_profile(uint64_t rate, uint64_t size)
{
	struct rte_sched_subport_profile_params spp = {
		.tb_rate = rate, .tb_size = size, .tc_period = tc_period_for(rate)};
	for (int t = 0; t < QOS_TCS; t++)
		spp.tc_rate[t] = rate;
	return spp;
}

/* ---- requests to the owner ---- */

static void add_stats(struct rte_sched_queue_stats *a, const struct rte_sched_queue_stats *s)
{
	a->n_pkts += s->n_pkts;
	a->n_pkts_dropped += s->n_pkts_dropped;
	a->n_bytes += s->n_bytes;
	a->n_bytes_dropped += s->n_bytes_dropped;
}

/* Our profile idx as h's wheel's class profile idx: the rates of the TCs below the pipe's,
 * the period, the weights, RED (its state made by control beforehand: red_ready). */
static void wheel_profile(struct hqos *h, int idx)
{
	const struct qos_profile *pr = profiles[idx];
	const struct rte_sched_pipe_params *p = &pr->p;
	uint64_t tc[QOS_TCS];
	for (int t = 0; t < QOS_TCS; t++)
		tc[t] = p->tc_rate[t] < p->tb_rate ? p->tc_rate[t] : 0;
	sl_wheel_profile(h->wheel, (uint32_t)idx, tc, (uint32_t)p->tc_period, p->wrr_weights);
	/* the thresholds were checked by rte_red_config_init when the profile was made */
	sl_wheel_profile_red(h->wheel, (uint32_t)idx, pr->red.tcs, pr->red.min, pr->red.max,
			     pr->red.inv_prob, pr->red.wq_log2, h->rate / 8);
}

/* Control, before profile idx meets h: a profile with RED only on the wheel, its red-min
 * below the queues' size, the wheel's RED state made (so that its owner never allocates). */
static int red_ready(struct sl_out *o, struct hqos *h, int idx)
{
	const struct qos_profile *pr = profiles[idx];
	if (!pr->red.tcs)
		return 0;
	if (!h->wq)
		return sl_out_error(o, "profile %s has RED, which needs scheduler wheel (rte_sched's "
				    "RED is compiled out of DPDK 22.11 as Debian builds it)", pr->name);
	if (pr->red.min >= h->qsize)
		return sl_out_error(o, "profile %s's red-min (%u) is not below %s's queue size (%u)",
				    pr->name, pr->red.min, sl_ifaces[h->ifx].name, h->qsize);
	if (h->wheel && sl_wheel_red_alloc(h->wheel))
		return sl_out_error(o, "out of memory for RED's state");
	return 0;
}

/* Pipe p (subport * pipes + pipe) of our profile idx. */
static void wheel_pipe(struct sl_wheel *wh, uint32_t p, int idx)
{
	const struct rte_sched_pipe_params *pr = &profiles[idx]->p;
	sl_wheel_pipe_rate(wh, p, pr->tb_rate, pr->tb_size);
	sl_wheel_pipe_profile(wh, p, (uint32_t)idx);
}

/* The wheel's requests: a pipe's profile; its counters (totals, where rte_sched's are read
 * and cleared) into the accumulators show qos reads. */
static void wheel_mailbox(struct hqos *h)
{
	struct sl_wheel *wh = h->wheel;
	if (h->mb.op == OP_SUBPORT) {
		sl_wheel_subport_rate(wh, h->mb.subport, h->mb.sp_rate, h->mb.sp_burst);
		return;
	}
	if (h->mb.op == OP_PIPE) {
		if (h->prof_id[h->mb.prof] < 0) /* new to the interface: no pipe of it waits */
			wheel_profile(h, h->mb.prof);
		wheel_pipe(wh, h->mb.subport * h->pipes + h->mb.pipe, h->mb.prof);
		return;
	}
	if (h->mb.op != OP_STATS)
		return;
	for (uint32_t sp = 0; sp < h->subports; sp++)
		for (int t = 0; t < QOS_TCS; t++) {
			const uint64_t *c = &h->wq[(sp * QOS_TCS + (uint32_t)t) * 4];
			struct rte_sched_subport_stats *a = &h->sp_acc[sp];
			a->n_pkts_tc[t] = c[0];
			a->n_bytes_tc[t] = c[1];
			a->n_pkts_tc_dropped[t] = c[2];
			a->n_bytes_tc_dropped[t] = c[3];
		}
	if (h->mb.stats_pipe != UINT32_MAX) {
		uint32_t p = h->mb.subport * h->pipes + h->mb.stats_pipe;
		const struct sl_wheel_pipe_q *pq = &wh->pq[p];
		for (uint32_t q = 0; q < QOS_QUEUES; q++) {
			struct rte_sched_queue_stats *a = &h->q_acc[p * QOS_QUEUES + q];
			a->n_pkts = pq->st[q].pkts;
			a->n_bytes = pq->st[q].bytes;
			a->n_pkts_dropped = pq->st[q].drops;
			a->n_bytes_dropped = pq->st[q].drop_bytes;
			h->mb.qlen[q] = pq->q[q].count;
		}
		h->mb.pipe_pkts = wh->pipes[p].pkts;
		h->mb.pipe_bytes = wh->pipes[p].bytes;
	}
}

/* On the owner between two walks (or on the main lcore while no worker runs). */
static void mailbox_run(struct hqos *h)
{
	int rc = 0;
	if (h->wheel) {
		wheel_mailbox(h);
	} else if (h->mb.op == OP_SUBPORT) {
		if (h->mb.add >= 0) { /* a subport profile new to the port: added here, where
				       * rte_sched runs */
			struct rte_sched_subport_profile_params spp =
				subport_profile(h->mb.sp_rate, h->mb.sp_burst);
			rc = rte_sched_port_subport_profile_add(h->port, &spp, &h->mb.id);
		}
		if (!rc)
			rc = rte_sched_subport_config(h->port, h->mb.subport, NULL, h->mb.id);
	} else if (h->mb.op == OP_PIPE) {
		if (h->mb.add >= 0) {
			for (uint32_t s = 0; !rc && s < h->subports; s++)
				rc = rte_sched_subport_pipe_profile_add(h->port, s,
									&profiles[h->mb.add]->p,
									&h->mb.id);
		}
		if (!rc)
			rc = rte_sched_pipe_config(h->port, h->mb.subport, h->mb.pipe,
						   (int32_t)h->mb.id);
	} else if (h->mb.op == OP_STATS) {
		for (uint32_t s = 0; s < h->subports; s++) {
			struct rte_sched_subport_stats st;
			uint32_t ov[QOS_TCS];
			if (rte_sched_subport_read_stats(h->port, s, &st, ov)) /* read and cleared */
				continue;
			struct rte_sched_subport_stats *a = &h->sp_acc[s];
			for (int t = 0; t < QOS_TCS; t++) {
				a->n_pkts_tc[t] += st.n_pkts_tc[t];
				a->n_pkts_tc_dropped[t] += st.n_pkts_tc_dropped[t];
				a->n_bytes_tc[t] += st.n_bytes_tc[t];
				a->n_bytes_tc_dropped[t] += st.n_bytes_tc_dropped[t];
			}
		}
		if (h->mb.stats_pipe != UINT32_MAX) {
			uint32_t base = (h->mb.subport * h->pipes + h->mb.stats_pipe) * QOS_QUEUES;
			for (uint32_t q = 0; q < QOS_QUEUES; q++) {
				struct rte_sched_queue_stats st;
				uint32_t qid = h->mb.subport << (h->pipes_log2 + 4) |
					       h->mb.stats_pipe << 4 | q;
				if (!rte_sched_queue_read_stats(h->port, qid, &st, &h->mb.qlen[q]))
					add_stats(&h->q_acc[base + q], &st);
			}
		}
	}
	h->mb.rc = rc;
	__atomic_store_n(&h->mb.done, h->mb.seq, __ATOMIC_RELEASE);
}

/* Runs the request set in h->mb on the owner and waits for it. */
static int mailbox_call(struct hqos *h)
{
	uint32_t s = h->mb.seq + 1;
	if (!sl_workers_running || sl_workers[h->owner].lcore == rte_lcore_id()) {
		h->mb.seq = s;
		mailbox_run(h);
		return h->mb.rc;
	}
	__atomic_store_n(&h->mb.seq, s, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->mb.done, __ATOMIC_ACQUIRE) != s)
		rte_delay_us_sleep(20);
	return h->mb.rc;
}

/* ---- control ---- */

uint32_t sl_qos_profile_count(void)
{
	uint32_t n = 0;
	for (int i = 0; i < QOS_PROFILES; i++)
		n += profiles[i] != NULL;
	return n;
}

uint32_t sl_qos_applied(void)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < sl_if_hwm; i++)
		n += if_qos[i] != NULL;
	return n;
}

static int prof_find(const char *name)
{
	for (int i = 0; i < QOS_PROFILES; i++)
		if (profiles[i] && !strcmp(profiles[i]->name, name))
			return i;
	return -1;
}

/* A rate in bits per second: digits with an optional k, m or g (10^3, 10^6, 10^9). */
static int parse_rate(const char *s, uint64_t *out)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return -1;
	uint64_t v = strtoull(s, &end, 10), mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1000000, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1000000000, end++;
	if (*end || v > 1000000000000ull / mul) /* 1 Tbit/s */
		return -1;
	*out = v * mul;
	return *out >= 8 ? 0 : -1;
}

static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static bool same_params(const struct rte_sched_pipe_params *a, const struct rte_sched_pipe_params *b)
{
	return a->tb_rate == b->tb_rate && a->tb_size == b->tb_size &&
	       !memcmp(a->tc_rate, b->tc_rate, sizeof(a->tc_rate)) && a->tc_period == b->tc_period &&
	       !memcmp(a->wrr_weights, b->wrr_weights, sizeof(a->wrr_weights));
}

static int cmd_profile(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: qos profile NAME rate R [burst B] [tc-rates R0 .. R12] "
				    "[weights W0 W1 W2 W3] [tc-period MS] [red-min N red-max N "
				    "[red-inv-prob P] [red-wq-log2 W] [red-tcs all|T,T...]] | "
				    "qos profile NAME del";
	if (argc < 2)
		return sl_out_error(o, "%s", usage);
	const char *name = argv[0];
	int idx = prof_find(name);
	if (argc == 2 && !strcmp(argv[1], "del")) {
		if (idx < 0)
			return sl_out_error(o, "no QoS profile %s", name);
		if (profiles[idx]->users)
			return sl_out_error(o, "QoS profile %s is used by %u interface(s)", name,
					    profiles[idx]->users);
		rte_free(profiles[idx]); /* workers never read profiles: rte_sched has its copy */
		profiles[idx] = NULL;
		return 0;
	}
	if (strlen(name) >= sizeof(profiles[0]->name))
		return sl_out_error(o, "QoS profile name too long (at most 31 characters)");
	if (idx >= 0)
		return sl_out_error(o, "QoS profile %s exists (qos profile %s del first)", name, name);
	struct qos_profile p = {0};
	snprintf(p.name, sizeof(p.name), "%s", name);
	int ntc = 0;
	uint64_t burst = 0;
	uint32_t period = 0;
	uint8_t wrr[4] = {1, 1, 1, 1};
	uint32_t red[4] = {0, 0, 10, 9}; /* min, max, inv-prob, wq-log2 */
	bool red_given = false;
	uint16_t red_tcs = (1u << QOS_TCS) - 1;
	for (int i = 1; i < argc;) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return sl_out_error(o, "'%s' needs a value; %s", a, usage);
		if (!strcmp(a, "rate")) {
			if (parse_rate(v, &p.rate))
				return sl_out_error(o, "rate '%s': bits per second from 8 to 1t, with "
						    "k, m or g", v);
			i += 2;
		} else if (!strcmp(a, "burst")) {
			uint32_t b;
			if (parse_u32(v, 1u << 30, &b) || b < 64)
				return sl_out_error(o, "burst '%s': bytes, 64 to %u", v, 1u << 30);
			burst = b;
			i += 2;
		} else if (!strcmp(a, "tc-period")) {
			if (parse_u32(v, 1000, &period) || !period)
				return sl_out_error(o, "tc-period '%s': milliseconds, 1 to 1000", v);
			i += 2;
		} else if (!strcmp(a, "tc-rates")) {
			i++;
			ntc = 0;
			while (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9') {
				if (ntc == QOS_TCS)
					return sl_out_error(o, "tc-rates takes at most %d rates", QOS_TCS);
				if (parse_rate(argv[i], &p.tc_rate[ntc]))
					return sl_out_error(o, "tc-rates: '%s' is not a rate", argv[i]);
				ntc++, i++;
			}
			if (!ntc)
				return sl_out_error(o, "tc-rates wants 1 to %d rates, TC0 first", QOS_TCS);
		} else if (!strcmp(a, "weights")) {
			if (i + 4 >= argc)
				return sl_out_error(o, "weights wants 4 numbers (1-255), the best-effort "
						    "TC's queues 0 to 3");
			for (int q = 0; q < 4; q++) {
				uint32_t x;
				if (parse_u32(argv[i + 1 + q], 255, &x) || !x)
					return sl_out_error(o, "weight '%s': 1 to 255", argv[i + 1 + q]);
				wrr[q] = (uint8_t)x;
			}
			i += 5;
		} else if (!strncmp(a, "red-", 4) && strcmp(a, "red-tcs")) {
			static const char *const keys[4] = {"red-min", "red-max", "red-inv-prob",
							    "red-wq-log2"};
			static const uint32_t lo[4] = {0, 1, 1, 1}, hi[4] = {1022, 1023, 255, 12};
			int k = 0;
			while (k < 4 && strcmp(a, keys[k]))
				k++;
			if (k == 4)
				return sl_out_error(o, "unknown option '%s'; %s", a, usage);
			if (parse_u32(v, hi[k], &red[k]) || red[k] < lo[k])
				return sl_out_error(o, "%s '%s': %u to %u", a, v, lo[k], hi[k]);
			red_given = true;
			i += 2;
		} else if (!strcmp(a, "red-tcs")) {
			red_tcs = 0;
			if (strcmp(v, "all")) {
				char buf[64], *save = NULL;
				snprintf(buf, sizeof(buf), "%s", v);
				for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
					uint32_t tc;
					if (parse_u32(t, QOS_TCS - 1, &tc))
						return sl_out_error(o, "red-tcs '%s': all, or traffic classes "
								    "0-12 with commas between", v);
					red_tcs |= (uint16_t)(1u << tc);
				}
				if (!red_tcs)
					return sl_out_error(o, "red-tcs '%s': all, or traffic classes 0-12 "
							    "with commas between", v);
			}
			red_given = true;
			i += 2;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!p.rate)
		return sl_out_error(o, "rate is required; %s", usage);
	if (red_given) { /* rte_red's own checks, now rather than when a pipe meets it */
		struct rte_red_config rc;
		if (!red[1])
			return sl_out_error(o, "RED needs red-min and red-max (frames)");
		if (red[0] >= red[1] || rte_red_config_init(&rc, (uint16_t)red[3], (uint16_t)red[0],
							    (uint16_t)red[1], (uint16_t)red[2]))
			return sl_out_error(o, "red-min (%u) must be below red-max (%u)", red[0],
					    red[1]);
		p.red.tcs = red_tcs;
		p.red.min = (uint16_t)red[0];
		p.red.max = (uint16_t)red[1];
		p.red.inv_prob = (uint16_t)red[2];
		p.red.wq_log2 = (uint16_t)red[3];
	}
	for (int t = 0; t < QOS_TCS; t++) {
		if (t >= ntc)
			p.tc_rate[t] = p.rate;
		if (p.tc_rate[t] > p.rate)
			return sl_out_error(o, "TC%d's rate is above the pipe's rate", t);
	}
	p.p.tb_rate = p.rate / 8;
	/* the default burst: 10 ms at the rate, at least two full frames */
	p.p.tb_size = burst ? burst : RTE_MAX(p.p.tb_rate / 100, 2 * 1538ull);
	for (int t = 0; t < QOS_TCS; t++)
		p.p.tc_rate[t] = RTE_MAX(p.tc_rate[t] / 8, 1ull);
	uint64_t lowest = p.p.tb_rate;
	for (int t = 0; t < QOS_TCS; t++)
		lowest = RTE_MIN(lowest, p.p.tc_rate[t]);
	if (!period)
		period = (uint32_t)tc_period_for(lowest);
	if (period > 1000 || lowest * period / 1000 < QOS_FULL_FRAME)
		return sl_out_error(o, "a TC's rate earns less than a full frame (%d bytes) per "
				    "tc-period (%u ms): a longer tc-period, or higher rates",
				    QOS_FULL_FRAME, period);
	p.p.tc_period = period;
	p.p.tc_ov_weight = 1;
	memcpy(p.p.wrr_weights, wrr, sizeof(wrr));
	int slot = 0;
	while (slot < QOS_PROFILES && profiles[slot])
		slot++;
	if (slot == QOS_PROFILES)
		return sl_out_error(o, "%d QoS profiles already, the most there are", QOS_PROFILES);
	profiles[slot] = rte_malloc("sl_qos_profile", sizeof(p), 0);
	if (!profiles[slot])
		return sl_out_error(o, "out of memory");
	*profiles[slot] = p;
	return 0;
}
SL_CLI_COMMAND(qos_profile, .path = "qos profile",
	       .usage = "NAME rate R [burst B] [tc-rates R0 .. R12] [weights W0 W1 W2 W3] "
			"[tc-period MS] [red-min N red-max N [red-inv-prob P] [red-wq-log2 W] "
			"[red-tcs all|T,T...]] | NAME del",
	       .help = "a pipe profile for hierarchical QoS: the pipe's rate and burst, its "
		       "traffic classes' rates (TC0 first; those not given: the pipe's rate), the "
		       "weights of the best-effort TC's 4 queues, the TC rates' period (10 ms); "
		       "rates in bits/s with k, m or g; RED (scheduler wheel) on the classes "
		       "red-tcs (all): thresholds in frames of average queue, drop probability "
		       "1/P at red-max (P 10), average weight 2^-W (W 9)",
	       .fn = cmd_profile)

static void hqos_free(struct hqos *h)
{
	if (!h)
		return;
	rte_sched_port_free(h->port); /* frees the frames still queued */
	sl_wheel_free(h->wheel);
	rte_free(h->wq);
	rte_ring_free(h->handoff);
	rte_free(h->pipe_prof);
	rte_free(h->sp_acc);
	rte_free(h->q_acc);
	rte_free(h->deq_tc);
	rte_free(h);
}

/* The rte_sched port of h, every pipe of profile idx (id 0 in every subport). */
static int hqos_build(struct sl_out *o, struct hqos *h, int idx, uint32_t mtu)
{
	if (h->wq) { /* scheduler wheel */
		uint32_t n = h->subports * h->pipes;
		h->wheel = sl_wheel_create(n, h->qsize, h->o.overhead, profiles[idx]->p.tb_rate,
					   profiles[idx]->p.tb_size, rte_rdtsc());
		if (!h->wheel)
			return sl_out_error(o, "out of memory for the wheel's %u pipes", n);
		if (sl_wheel_subports(h->wheel, h->subports))
			return sl_out_error(o, "out of memory for the wheel's %u subports", h->subports);
		if (profiles[idx]->red.tcs && sl_wheel_red_alloc(h->wheel))
			return sl_out_error(o, "out of memory for RED's state");
		wheel_profile(h, idx);
		for (uint32_t p = 0; p < n; p++)
			sl_wheel_pipe_profile(h->wheel, p, (uint32_t)idx);
		/* wheel_pass_all's (wheel_lean fetches a chunk's pipes itself): pipes beyond the
		 * L2 cache fetched 8 frames ahead; those within it are found there in time */
		long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
		h->prefetch = l2 <= 0 || (size_t)n * sizeof(struct sl_wheel_pipe) > (size_t)l2 / 2;
		return 0;
	}
	struct rte_sched_subport_profile_params spp =
		subport_profile(h->rate / 8, RTE_MAX(h->rate / 800, 2 * 1538ull));
	char name[40];
	snprintf(name, sizeof(name), "sl_qos_%u", h->ifx);
	int sock = (int)rte_socket_id();
	if (sock < 0)
		sock = 0;
	struct rte_sched_port_params pp = {
		.name = name, .socket = sock,
		.rate = h->rate / 8, .mtu = mtu, .frame_overhead = h->o.overhead,
		.n_subports_per_port = h->subports, .subport_profiles = &spp,
		.n_subport_profiles = 1, .n_max_subport_profiles = QOS_MAX_SUBPORTS + 1,
		.n_pipes_per_subport = h->pipes};
	h->port = rte_sched_port_config(&pp);
	if (!h->port)
		return sl_out_error(o, "rte_sched refused the port (rate, subports)");
	h->spp_rate[0] = spp.tb_rate;
	h->spp_size[0] = spp.tb_size;
	h->nb_spp = 1;
	struct rte_sched_subport_params sp = {
		.n_pipes_per_subport_enabled = h->pipes, .pipe_profiles = &profiles[idx]->p,
		.n_pipe_profiles = 1, .n_max_pipe_profiles = QOS_PROFILES};
	for (int t = 0; t < QOS_TCS; t++)
		sp.qsize[t] = h->qsize;
	for (uint32_t s = 0; s < h->subports; s++) {
		if (rte_sched_subport_config(h->port, s, &sp, 0)) {
			h->port = NULL; /* rte_sched freed it */
			return sl_out_error(o, "rte_sched refused subport %u (out of memory, or "
					    "profile %s above the port's rate)", s, profiles[idx]->name);
		}
		for (uint32_t p = 0; p < h->pipes; p++)
			if (rte_sched_pipe_config(h->port, s, p, 0)) {
				h->port = NULL;
				return sl_out_error(o, "rte_sched refused pipe %u", p);
			}
	}
	return 0;
}

/* The feature's hook: on only through set interface qos (if_qos set first); off, however
 * it goes, the scheduler goes with the frames it holds (counted as dropped). */
static int qos_hook(uint16_t ifx, bool on, char *why, size_t len)
{
	struct hqos *h = if_qos[ifx];
	if (on) {
		if (h)
			return 0;
		snprintf(why, len, "qos-output is turned on by set interface qos %s rate R profile "
			 "NAME", sl_ifaces[ifx].name);
		return -1;
	}
	if (!h)
		return 0;
	__atomic_store_n(&if_qos[ifx], NULL, __ATOMIC_RELEASE);
	sl_rcu_sync(); /* no qos-output holds it now */
	uint16_t w = h->owner;
	for (uint32_t i = 0; i < nb_owned[w]; i++)
		if (owned[w][i] == h) {
			uint32_t last = nb_owned[w] - 1;
			__atomic_store_n(&owned[w][i], owned[w][last], __ATOMIC_RELEASE);
			__atomic_store_n(&nb_owned[w], last, __ATOMIC_RELEASE);
			owned[w][last] = NULL;
			break;
		}
	sl_rcu_sync(); /* nor does qos-sched */
	void *m;
	uint64_t n = h->o.queued;
	while (rte_ring_sc_dequeue(h->handoff, &m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	sl_main_ctx->errors[qo_err + QO_ERR_OFF] += n;
	for (int i = 0; i < QOS_PROFILES; i++)
		if (h->prof_id[i] >= 0 && profiles[i])
			profiles[i]->users--;
	hqos_free(h);
	return 0;
}

static int qos_disable(struct sl_out *o, struct sl_iface *f)
{
	char why[160] = "";
	if (!if_qos[f->port])
		return sl_out_error(o, "%s has no QoS", f->name);
	sl_feature_set(f->port, SL_ARC_INTERFACE_OUTPUT, "qos-output", false, why, sizeof(why));
	return 0;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int cmd_set_if_qos(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] =
		"usage: set interface qos IFACE rate R profile NAME [subports N] [pipes N] "
		"[queue-size Q] [classify dscp|vlan-prio] [pipe-from none|vlan|ip-dst] "
		"[overhead B] [worker W] [scheduler rte_sched|wheel] | set interface qos IFACE "
		"disable";
	if (argc < 2)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (argc == 2 && !strcmp(argv[1], "disable"))
		return qos_disable(o, f);
	if (f->type != SL_IF_PORT && f->type != SL_IF_PG)
		return sl_out_error(o, "QoS is for ports and pg interfaces; %s is not one", f->name);
	if (if_qos[f->port])
		return sl_out_error(o, "%s has QoS (set interface qos %s disable first)", f->name,
				    f->name);
	uint64_t rate = 0;
	uint32_t subports = 1, pipes = 1, qsize = 64, overhead = RTE_SCHED_FRAME_OVERHEAD_DEFAULT;
	uint32_t worker = 0;
	int idx = -1;
	uint8_t cls = CLS_DSCP, pf = PF_NONE;
	bool wheel = false;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return sl_out_error(o, "'%s' needs a value; %s", a, usage);
		if (!strcmp(a, "rate")) {
			if (parse_rate(v, &rate))
				return sl_out_error(o, "rate '%s': bits per second with k, m or g", v);
		} else if (!strcmp(a, "profile")) {
			if ((idx = prof_find(v)) < 0)
				return sl_out_error(o, "no QoS profile %s (qos profile %s rate R ...)",
						    v, v);
		} else if (!strcmp(a, "subports")) {
			if (parse_u32(v, QOS_MAX_SUBPORTS, &subports) || !pow2(subports))
				return sl_out_error(o, "subports '%s': a power of 2 up to %d", v,
						    QOS_MAX_SUBPORTS);
		} else if (!strcmp(a, "pipes")) {
			if (parse_u32(v, QOS_MAX_PIPES, &pipes) || !pow2(pipes))
				return sl_out_error(o, "pipes '%s': a power of 2 up to %d", v,
						    QOS_MAX_PIPES);
		} else if (!strcmp(a, "queue-size")) {
			if (parse_u32(v, 4096, &qsize) || !pow2(qsize) || qsize < 4)
				return sl_out_error(o, "queue-size '%s': a power of 2, 4 to 4096", v);
		} else if (!strcmp(a, "overhead")) {
			if (parse_u32(v, 64, &overhead))
				return sl_out_error(o, "overhead '%s': bytes per frame, 0 to 64", v);
		} else if (!strcmp(a, "worker")) {
			if (parse_u32(v, SL_MAX_WORKERS, &worker) || worker >= sl_nb_workers)
				return sl_out_error(o, "worker '%s': 0 to %u", v, sl_nb_workers - 1);
		} else if (!strcmp(a, "classify")) {
			if (!strcmp(v, "dscp"))
				cls = CLS_DSCP;
			else if (!strcmp(v, "vlan-prio"))
				cls = CLS_PCP;
			else
				return sl_out_error(o, "classify '%s': dscp or vlan-prio", v);
		} else if (!strcmp(a, "scheduler")) {
			if (strcmp(v, "rte_sched") && strcmp(v, "wheel"))
				return sl_out_error(o, "scheduler '%s': rte_sched or wheel", v);
			wheel = !strcmp(v, "wheel");
		} else if (!strcmp(a, "pipe-from")) {
			int k = 0;
			while (k < 3 && strcmp(v, pf_names[k]))
				k++;
			if (k == 3)
				return sl_out_error(o, "pipe-from '%s': none, vlan or ip-dst", v);
			pf = (uint8_t)k;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!rate || idx < 0)
		return sl_out_error(o, "rate and profile are required; %s", usage);
	if (profiles[idx]->rate > rate)
		return sl_out_error(o, "profile %s's rate is above the port's", profiles[idx]->name);
	if ((uint64_t)subports * pipes > QOS_MAX_PIPES)
		return sl_out_error(o, "subports x pipes: at most %d", QOS_MAX_PIPES);
	if (nb_owned[worker] == QOS_PER_WORKER)
		return sl_out_error(o, "worker %u schedules %d interfaces already", worker,
				    QOS_PER_WORKER);
	struct hqos *h = rte_zmalloc("sl_hqos", sizeof(*h), RTE_CACHE_LINE_SIZE);
	if (!h)
		return sl_out_error(o, "out of memory");
	h->ifx = f->port;
	h->owner = (uint16_t)worker;
	h->rate = rate;
	h->subports = subports;
	h->pipes = pipes;
	h->qsize = (uint16_t)qsize;
	h->chunk = (uint16_t)RTE_MIN(RTE_MAX(qsize, 32u), (uint32_t)RTE_GRAPH_BURST_SIZE);
	h->sp_mask = subports - 1;
	h->pipe_mask = pipes - 1;
	h->pipes_log2 = (uint32_t)__builtin_ctz(pipes);
	h->all_mask = subports * pipes - 1;
	h->fast = cls == CLS_DSCP && pf != PF_VLAN;
	h->classify = cls;
	h->pipe_from = pf;
	for (int d = 0; d < 64; d++) /* class selector c (DSCP >> 3) to TC 12 - c */
		h->dscp_map[d] = (uint8_t)(QOS_BE - (d >> 3));
	for (int t = 0; t < 256; t++)
		h->tos_map[t] = h->dscp_map[t >> 2];
	for (int p = 0; p < 8; p++)
		h->pcp_map[p] = (uint8_t)(QOS_BE - p);
	h->o.overhead = overhead;
	h->o.bytes_per_tsc = (double)rate / 8 / (double)rte_get_tsc_hz();
	/* the port's own bucket: 10 ms at the rate (rte_sched's own subport and pipe default),
	 * at least two full frames; so a worker that lost its CPU for up to 10 ms catches up
	 * (with 1 ms, a loaded 2-vCPU machine kept a port shaped to 8 Mbit/s at 7.2-7.3) */
	h->o.credit_max = RTE_MAX((double)rate / 800, 2.0 * (f->mtu + 18 + overhead));
	h->o.credits = h->o.credit_max;
	h->o.last = rte_rdtsc();
	h->o.last_frames = 1;
	h->o.last_bytes = 64 + overhead;
	h->mb.stats_pipe = UINT32_MAX;
	for (int i = 0; i < QOS_PROFILES; i++)
		h->prof_id[i] = -1;
	h->prof_id[idx] = 0;
	h->nb_ids = 1;
	char rname[40];
	snprintf(rname, sizeof(rname), "sl_qos_ring_%u", f->port);
	h->handoff = rte_ring_create(rname, QOS_RING, SOCKET_ID_ANY, RING_F_SC_DEQ);
	h->pipe_prof = rte_zmalloc("sl_qos", (size_t)subports * pipes, 0);
	h->sp_acc = rte_zmalloc("sl_qos", subports * sizeof(*h->sp_acc), 0);
	h->q_acc = rte_zmalloc("sl_qos", (size_t)subports * pipes * QOS_QUEUES * sizeof(*h->q_acc), 0);
	h->deq_tc = rte_zmalloc("sl_qos", subports * QOS_TCS * sizeof(uint64_t), RTE_CACHE_LINE_SIZE);
	if (wheel)
		h->wq = rte_zmalloc("sl_qos", subports * QOS_TCS * 4 * sizeof(uint64_t),
				    RTE_CACHE_LINE_SIZE);
	if (!h->handoff || !h->pipe_prof || !h->sp_acc || !h->q_acc || !h->deq_tc ||
	    (wheel && !h->wq)) {
		hqos_free(h);
		return sl_out_error(o, "out of memory for %u x %u pipes", subports, pipes);
	}
	memset(h->pipe_prof, idx, (size_t)subports * pipes);
	h->def_prof = (uint8_t)idx;
	if (red_ready(o, h, idx) || hqos_build(o, h, idx, (uint32_t)f->mtu + 18)) {
		hqos_free(h);
		return -1;
	}
	/* the owner schedules it before any frame can reach it */
	owned[worker][nb_owned[worker]] = h;
	__atomic_store_n(&nb_owned[worker], nb_owned[worker] + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&if_qos[f->port], h, __ATOMIC_RELEASE);
	profiles[idx]->users++;
	char why[160] = "";
	if (sl_feature_set(f->port, SL_ARC_INTERFACE_OUTPUT, "qos-output", true, why, sizeof(why))) {
		qos_hook(f->port, false, why, sizeof(why));
		return sl_out_error(o, "cannot turn QoS on for %s: %s", f->name, why);
	}
	return 0;
}
SL_CLI_COMMAND(set_if_qos, .path = "set interface qos",
	       .usage = "IFACE rate R profile NAME [subports N] [pipes N] [queue-size Q] "
			"[classify dscp|vlan-prio] [pipe-from none|vlan|ip-dst] [overhead B] "
			"[worker W] [scheduler rte_sched|wheel] | IFACE disable",
	       .help = "hierarchical QoS (rte_sched) on what IFACE sends: the port's rate in "
		       "bits/s, N subports of N pipes (powers of 2), every pipe of the profile, "
		       "Q frames per queue (64), the TC by DSCP or VLAN priority, the pipe from "
		       "the metadata or else the VLAN IDs or the IP destination's low bits; "
		       "worker W (0) schedules it; scheduler wheel: the same pipes, classes, "
		       "class rates and weights on a timing wheel, at a fraction of rte_sched's "
		       "cost (subports at the port's rate until set qos subport)",
	       .fn = cmd_set_if_qos)

static struct hqos *qos_of(struct sl_out *o, const char *name)
{
	struct sl_iface *f = sl_iface_by_name(name);
	if (!f) {
		sl_out_error(o, "unknown interface '%s'", name);
		return NULL;
	}
	if (!if_qos[f->port])
		sl_out_error(o, "%s has no QoS (set interface qos %s rate R profile NAME)", f->name,
			     f->name);
	return if_qos[f->port];
}

static int cmd_set_pipe(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set qos pipe IFACE subport S pipe P profile NAME";
	if (argc != 7 || strcmp(argv[1], "subport") || strcmp(argv[3], "pipe") ||
	    strcmp(argv[5], "profile"))
		return sl_out_error(o, "%s", usage);
	struct hqos *h = qos_of(o, argv[0]);
	if (!h)
		return -1;
	uint32_t s, p;
	if (parse_u32(argv[2], UINT32_MAX, &s) || s >= h->subports)
		return sl_out_error(o, "subport '%s': 0 to %u", argv[2], h->subports - 1);
	if (parse_u32(argv[4], UINT32_MAX, &p) || p >= h->pipes)
		return sl_out_error(o, "pipe '%s': 0 to %u", argv[4], h->pipes - 1);
	return sl_qos_pipe_set(o, sl_iface_by_name(argv[0])->port, s, p, argv[6]);
}

int sl_qos_pipes(uint16_t ifx, uint32_t *subports, uint32_t *pipes)
{
	const struct hqos *h = if_qos[ifx];
	if (!h)
		return -ENOENT;
	*subports = h->subports;
	*pipes = h->pipes;
	return 0;
}

int sl_qos_pipe_set(struct sl_out *o, uint16_t ifx, uint32_t s, uint32_t p, const char *profile)
{
	struct hqos *h = if_qos[ifx];
	if (!h)
		return sl_out_error(o, "%s has no QoS (set interface qos)", sl_ifaces[ifx].name);
	if (s >= h->subports || p >= h->pipes)
		return sl_out_error(o, "subport %u pipe %u: %s has %u and %u", s, p,
				    sl_ifaces[ifx].name, h->subports, h->pipes);
	int idx = profile ? prof_find(profile) : h->def_prof;
	if (idx < 0)
		return sl_out_error(o, "no QoS profile %s", profile);
	if (profiles[idx]->rate > h->rate)
		return sl_out_error(o, "profile %s's rate is above the port's", profiles[idx]->name);
	if (red_ready(o, h, idx))
		return -1;
	const char *ifname = sl_ifaces[ifx].name;
	/* the profile's id in rte_sched's tables: added on first use to every subport's;
	 * rte_sched refuses a second profile of the same parameters, so that one shares an id */
	int add = -1, id = h->prof_id[idx];
	for (int j = 0; id < 0 && j < QOS_PROFILES; j++)
		if (h->prof_id[j] >= 0 && profiles[j] && same_params(&profiles[j]->p, &profiles[idx]->p))
			id = h->prof_id[j];
	if (id < 0) {
		if (h->nb_ids == QOS_PROFILES)
			return sl_out_error(o, "%d profiles on %s already", QOS_PROFILES, ifname);
		add = idx;
	}
	h->mb.op = OP_PIPE;
	h->mb.subport = s;
	h->mb.pipe = p;
	h->mb.add = add;
	h->mb.prof = idx;
	h->mb.id = id < 0 ? 0 : (uint32_t)id;
	int rc = mailbox_call(h);
	if (rc)
		return sl_out_error(o, "rte_sched refused: %s", strerror(-rc));
	if (h->prof_id[idx] < 0) {
		h->prof_id[idx] = (int16_t)h->mb.id;
		h->nb_ids += add >= 0;
		profiles[idx]->users++;
	}
	h->pipe_prof[s * h->pipes + p] = (uint8_t)idx;
	return 0;
}
SL_CLI_COMMAND(set_qos_pipe, .path = "set qos pipe",
	       .usage = "IFACE subport S pipe P profile NAME",
	       .help = "gives one pipe of IFACE's scheduler a profile", .fn = cmd_set_pipe)

/* Subport s's rate (bits/s; the port's rate, or 0, gives it none of its own) and bucket. */
static int qos_subport_set(struct sl_out *o, struct hqos *h, uint32_t s, uint64_t rate,
			   uint64_t burst)
{
	if (rate > h->rate)
		return sl_out_error(o, "rate %" PRIu64 ": above the port's %" PRIu64, rate, h->rate);
	if (rate == h->rate)
		rate = 0;
	if (!burst) /* 10 ms at the rate, at least two full frames, as the port's own */
		burst = RTE_MAX(rate / 800, 2ull * QOS_FULL_FRAME);
	h->mb.op = OP_SUBPORT;
	h->mb.subport = s;
	h->mb.sp_rate = rate / 8;
	h->mb.sp_burst = burst;
	h->mb.add = -1;
	uint32_t id = 0;
	if (!h->wheel) {
		/* rte_sched: the subport profile of this rate and bucket (id 0: the port's),
		 * added on first use (it refuses a second one of the same parameters) */
		if (!rate) {
			h->mb.sp_rate = h->spp_rate[0];
			h->mb.sp_burst = h->spp_size[0];
		}
		while (id < h->nb_spp && (h->spp_rate[id] != h->mb.sp_rate ||
					  h->spp_size[id] != h->mb.sp_burst))
			id++;
		if (id == h->nb_spp) {
			if (h->nb_spp == QOS_MAX_SUBPORTS + 1)
				return sl_out_error(o, "%d subport rates on %s already",
						    QOS_MAX_SUBPORTS, sl_ifaces[h->ifx].name);
			h->mb.add = 1;
		}
		h->mb.id = id;
	}
	int rc = mailbox_call(h);
	if (rc)
		return sl_out_error(o, "rte_sched refused: %s", strerror(-rc));
	if (h->mb.add >= 0) {
		h->spp_rate[h->mb.id] = h->mb.sp_rate;
		h->spp_size[h->mb.id] = h->mb.sp_burst;
		h->nb_spp = h->mb.id + 1;
	}
	h->sp_rate[s] = rate;
	h->sp_burst[s] = rate ? burst : 0;
	return 0;
}

static int cmd_set_subport(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set qos subport IFACE subport S rate R [burst B]";
	if ((argc != 5 && argc != 7) || strcmp(argv[1], "subport") || strcmp(argv[3], "rate") ||
	    (argc == 7 && strcmp(argv[5], "burst")))
		return sl_out_error(o, "%s", usage);
	struct hqos *h = qos_of(o, argv[0]);
	if (!h)
		return -1;
	uint32_t s;
	uint64_t rate, burst = 0;
	if (parse_u32(argv[2], UINT32_MAX, &s) || s >= h->subports)
		return sl_out_error(o, "subport '%s': 0 to %u", argv[2], h->subports - 1);
	if (parse_rate(argv[4], &rate))
		return sl_out_error(o, "rate '%s': bits per second with k, m or g", argv[4]);
	uint32_t b32 = 0;
	if (argc == 7 && (parse_u32(argv[6], UINT32_MAX, &b32) || b32 < QOS_FULL_FRAME))
		return sl_out_error(o, "burst '%s': bytes, at least %d (a full frame)", argv[6],
				    QOS_FULL_FRAME);
	burst = b32;
	return qos_subport_set(o, h, s, rate, burst);
}
SL_CLI_COMMAND(set_qos_subport, .path = "set qos subport",
	       .usage = "IFACE subport S rate R [burst B]",
	       .help = "shapes one subport of IFACE's scheduler: what all its pipes send together "
		       "at most R bits/s (k, m, g), a bucket of B bytes (10 ms at R); the port's "
		       "rate takes its own away",
	       .fn = cmd_set_subport)

static int cmd_set_map(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set qos map IFACE dscp D|vlan-prio P tc T [queue Q]";
	if ((argc != 5 && argc != 7) || strcmp(argv[3], "tc") ||
	    (argc == 7 && strcmp(argv[5], "queue")))
		return sl_out_error(o, "%s", usage);
	struct hqos *h = qos_of(o, argv[0]);
	if (!h)
		return -1;
	uint32_t v, tc, q = 0;
	bool dscp = !strcmp(argv[1], "dscp");
	if (!dscp && strcmp(argv[1], "vlan-prio"))
		return sl_out_error(o, "%s", usage);
	if (parse_u32(argv[2], dscp ? 63 : 7, &v))
		return sl_out_error(o, "%s '%s': 0 to %d", argv[1], argv[2], dscp ? 63 : 7);
	if (parse_u32(argv[4], QOS_BE, &tc))
		return sl_out_error(o, "tc '%s': 0 (the highest priority) to %d (best effort)",
				    argv[4], QOS_BE);
	if (argc == 7 && (parse_u32(argv[6], 3, &q) || (q && tc != QOS_BE)))
		return sl_out_error(o, "queue '%s': 0 to 3, for TC%d only (the others have one)",
				    argv[6], QOS_BE);
	uint8_t *slot = dscp ? &h->dscp_map[v] : &h->pcp_map[v];
	__atomic_store_n(slot, (uint8_t)(tc + q), __ATOMIC_RELAXED);
	for (uint32_t e = 0; dscp && e < 4; e++) /* the DSCP's four TOS bytes (ECN bits) */
		__atomic_store_n(&h->tos_map[v << 2 | e], (uint8_t)(tc + q), __ATOMIC_RELAXED);
	return 0;
}
SL_CLI_COMMAND(set_qos_map, .path = "set qos map",
	       .usage = "IFACE dscp D|vlan-prio P tc T [queue Q]",
	       .help = "which traffic class (and best-effort queue) a DSCP or VLAN priority "
		       "goes to (default: DSCP class selector c to TC 12 - c, priority p to TC "
		       "12 - p)",
	       .fn = cmd_set_map)

static void u64s(char *b, uint64_t v)
{
	snprintf(b, 24, "%" PRIu64, v);
}

static int cmd_show(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: show qos IFACE [subport S [pipe P]]";
	if (argc != 1 && argc != 3 && argc != 5)
		return sl_out_error(o, "%s", usage);
	struct hqos *h = qos_of(o, argv[0]);
	if (!h)
		return -1;
	uint32_t s = UINT32_MAX, p = UINT32_MAX;
	if (argc >= 3 && (strcmp(argv[1], "subport") || parse_u32(argv[2], UINT32_MAX, &s) ||
			  s >= h->subports))
		return sl_out_error(o, "subport: 0 to %u; %s", h->subports - 1, usage);
	if (argc == 5 && (strcmp(argv[3], "pipe") || parse_u32(argv[4], UINT32_MAX, &p) ||
			  p >= h->pipes))
		return sl_out_error(o, "pipe: 0 to %u; %s", h->pipes - 1, usage);
	h->mb.op = OP_STATS;
	h->mb.subport = s == UINT32_MAX ? 0 : s;
	h->mb.stats_pipe = p;
	mailbox_call(h);
	char v[12][24];
	sl_tbl_begin(o, "qos", 13,
		     (const char *[]){"interface", "rate-bps:u", "subports:u", "pipes:u",
				      "queue-size:u", "overhead:u", "classify", "pipe-from",
				      "worker:u", "queued:u", "sent-packets:u", "sent-bytes:u",
				      "scheduler"});
	u64s(v[0], h->rate);
	u64s(v[1], h->subports);
	u64s(v[2], h->pipes);
	u64s(v[3], h->qsize);
	u64s(v[4], h->o.overhead);
	u64s(v[5], h->owner);
	u64s(v[6], __atomic_load_n(&h->o.queued, __ATOMIC_RELAXED));
	u64s(v[7], __atomic_load_n(&h->o.pkts, __ATOMIC_RELAXED));
	u64s(v[8], __atomic_load_n(&h->o.bytes, __ATOMIC_RELAXED));
	sl_tbl_row(o, sl_ifaces[h->ifx].name, v[0], v[1], v[2], v[3], v[4], cls_names[h->classify],
		   pf_names[h->pipe_from], v[5], v[6], v[7], v[8], h->wheel ? "wheel" : "rte_sched");
	sl_tbl_end(o);
	/* each subport's rate: its own (set qos subport), or the port's */
	sl_tbl_begin(o, "qos-subports", 4,
		     (const char *[]){"subport:u", "rate-bps:u", "burst:u", "shaped"});
	for (uint32_t k = 0; k < h->subports; k++) {
		if (s != UINT32_MAX && k != s)
			continue;
		u64s(v[0], k);
		u64s(v[1], h->sp_rate[k] ? h->sp_rate[k] : h->rate);
		u64s(v[2], h->sp_burst[k]);
		sl_tbl_row(o, v[0], v[1], v[2], h->sp_rate[k] ? "yes" : "no");
	}
	sl_tbl_end(o);
	if (p != UINT32_MAX) {
		uint32_t base = (s * h->pipes + p) * QOS_QUEUES;
		sl_tbl_begin(o, "qos-queues", 8,
			     (const char *[]){"queue:u", "tc:u", "profile", "packets:u", "bytes:u",
					      "dropped-packets:u", "dropped-bytes:u", "depth:u"});
		const struct qos_profile *pr = profiles[h->pipe_prof[s * h->pipes + p]];
		/* the wheel's queues count the frames that waited in them; those that passed
		 * at once are in the pipe's sent totals (qos-pipe) */
		for (uint32_t q = 0; q < QOS_QUEUES; q++) {
			const struct rte_sched_queue_stats *a = &h->q_acc[base + q];
			u64s(v[0], q);
			u64s(v[1], q < QOS_BE ? q : QOS_BE);
			u64s(v[2], a->n_pkts);
			u64s(v[3], a->n_bytes);
			u64s(v[4], a->n_pkts_dropped);
			u64s(v[5], a->n_bytes_dropped);
			u64s(v[6], h->mb.qlen[q]);
			sl_tbl_row(o, v[0], v[1], pr ? pr->name : "-", v[2], v[3], v[4], v[5], v[6]);
		}
		sl_tbl_end(o);
		if (h->wheel) {
			sl_tbl_begin(o, "qos-pipe", 2,
				     (const char *[]){"sent-packets:u", "sent-bytes:u"});
			u64s(v[0], h->mb.pipe_pkts);
			u64s(v[1], h->mb.pipe_bytes);
			sl_tbl_row(o, v[0], v[1]);
			sl_tbl_end(o);
		}
		return 0;
	}
	/* per traffic class: one subport's, or the sum of all */
	sl_tbl_begin(o, "qos-tcs", 7,
		     (const char *[]){"tc:u", "packets:u", "bytes:u", "dropped-packets:u",
				      "dropped-bytes:u", "sent-packets:u", "depth:u"});
	for (int t = 0; t < QOS_TCS; t++) {
		uint64_t x[5] = {0};
		for (uint32_t k = 0; k < h->subports; k++) {
			if (s != UINT32_MAX && k != s)
				continue;
			const struct rte_sched_subport_stats *a = &h->sp_acc[k];
			x[0] += a->n_pkts_tc[t];
			x[1] += a->n_bytes_tc[t];
			x[2] += a->n_pkts_tc_dropped[t];
			x[3] += a->n_bytes_tc_dropped[t];
			x[4] += __atomic_load_n(&h->deq_tc[k * QOS_TCS + (uint32_t)t], __ATOMIC_RELAXED);
		}
		u64s(v[0], (uint64_t)t);
		for (int i = 0; i < 5; i++)
			u64s(v[1 + i], x[i]);
		/* enqueued (counted when read above) less sent: sent may run ahead of the read */
		u64s(v[6], x[0] > x[4] ? x[0] - x[4] : 0);
		sl_tbl_row(o, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_qos, .path = "show qos", .usage = "IFACE [subport S [pipe P]]",
	       .help = "an interface's scheduler: per traffic class (all subports, or one) frames "
		       "queued, dropped (queue full), sent and waiting; per queue of one pipe",
	       .fn = cmd_show)

static int cmd_show_profile(struct sl_out *o, int argc, char **argv)
{
	if (argc > 1)
		return sl_out_error(o, "usage: show qos profile [NAME]");
	if (argc == 1 && prof_find(argv[0]) < 0)
		return sl_out_error(o, "no QoS profile %s", argv[0]);
	enum { NC = 24 };
	const char *cols[NC] = {"name", "rate-bps:u", "burst:u", "tc-period-ms:u", "weights",
				"users:u"};
	static char tcn[QOS_TCS][24];
	for (int t = 0; t < QOS_TCS; t++) {
		snprintf(tcn[t], sizeof(tcn[t]), "tc%d-bps:u", t);
		cols[6 + t] = tcn[t];
	}
	static const char *const red_cols[] = {"red-tcs", "red-min:u", "red-max:u",
					       "red-inv-prob:u", "red-wq-log2:u"};
	for (int k = 0; k < 5; k++)
		cols[6 + QOS_TCS + k] = red_cols[k];
	sl_tbl_begin(o, "qos-profiles", NC, cols);
	for (int i = 0; i < QOS_PROFILES; i++) {
		const struct qos_profile *p = profiles[i];
		if (!p || (argc == 1 && strcmp(p->name, argv[0])))
			continue;
		char b[NC][32];
		char *row[NC];
		snprintf(b[0], 32, "%s", p->name);
		u64s(b[1], p->rate);
		u64s(b[2], p->p.tb_size);
		u64s(b[3], p->p.tc_period);
		snprintf(b[4], 32, "%u:%u:%u:%u", p->p.wrr_weights[0], p->p.wrr_weights[1],
			 p->p.wrr_weights[2], p->p.wrr_weights[3]);
		u64s(b[5], p->users);
		for (int t = 0; t < QOS_TCS; t++)
			u64s(b[6 + t], p->tc_rate[t]);
		char *rt = b[6 + QOS_TCS];
		if (p->red.tcs == (1u << QOS_TCS) - 1) {
			snprintf(rt, 32, "all");
		} else if (!p->red.tcs) {
			snprintf(rt, 32, "-");
		} else {
			size_t at = 0;
			for (int t = 0; t < QOS_TCS; t++)
				if (p->red.tcs >> t & 1)
					at += (size_t)snprintf(rt + at, 32 - at, "%s%d", at ? "," : "", t);
		}
		u64s(b[7 + QOS_TCS], p->red.min);
		u64s(b[8 + QOS_TCS], p->red.max);
		u64s(b[9 + QOS_TCS], p->red.inv_prob);
		u64s(b[10 + QOS_TCS], p->red.wq_log2);
		for (int k = 0; k < NC; k++)
			row[k] = b[k];
		sl_tbl_rowv(o, row);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_qos_profile, .path = "show qos profile", .usage = "[NAME]",
	       .help = "QoS pipe profiles", .fn = cmd_show_profile)

static void qos_fini(void)
{
	for (uint32_t i = 0; i < SL_IF_MAX; i++)
		if (if_qos[i]) {
			hqos_free(if_qos[i]);
			if_qos[i] = NULL;
		}
	memset(owned, 0, sizeof(owned));
	memset(nb_owned, 0, sizeof(nb_owned));
	for (int i = 0; i < QOS_PROFILES; i++) {
		rte_free(profiles[i]);
		profiles[i] = NULL;
	}
}

static int qos_init(const struct sl_config *c)
{
	(void)c;
	return 0;
}

SL_MODULE_REGISTER(qos_module, .name = "qos", .init = qos_init, .fini = qos_fini)

RTE_INIT(qos_ctor)
{
	qo_err = sl_error_register("qos-output", qo_reasons, QO_NB_ERR);
	feat = sl_feature_register(SL_ARC_INTERFACE_OUTPUT, "qos-output", "qos-output");
	sl_feature_hook(SL_ARC_INTERFACE_OUTPUT, feat, qos_hook);
	sl_feature_also(SL_ARC_INTERFACE_OUTPUT, feat, "qos-sched");
	sl_iface_tx_user("qos-output", &qo_tx0);
	sl_iface_tx_user("qos-sched", &qs_tx0);
}
