/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical QoS's pipes on a timing wheel (Carousel, Saeed et al., SIGCOMM 2017,
 * scheduling pipes instead of packets). A pipe has rte_sched's 16 queues (TC0 to TC11 one
 * each, strict priority in that order; TC12, best effort, four, served by weighted round robin
 * in bytes), its token bucket kept as the time its next frame may leave, and, for each traffic
 * class whose profile gives it a rate below the pipe's, a bucket of its own (as a time, its
 * depth the profile's tc-period). The wheel, a ring of time slots of about a microsecond,
 * holds the pipes that have frames, each in the slot of that time; a pipe due sends one frame
 * of its first class whose bucket allows it, and goes back in the slot of its next time.
 * A frame costs one pipe's state and, when it waits, its queue's: a few dozen instructions
 * where rte_sched's grinders spend over a thousand per frame once every frame is another
 * pipe's (20,000 subscribers). A frame of a pipe with none waiting, within its pipe's and its
 * class's rates, passes at once (sl_wheel_pass), reading the pipe's one line.
 * Queues take their frames' room from a pool of blocks of qsize frames (a queue holds one
 * while it has frames): 2 a pipe and 1,024 more (or 16 a pipe when that is less), where
 * rte_sched keeps 16 for every pipe. Pipes are grouped in subports of equal size; a subport
 * given a rate (sl_wheel_subport_rate) has a bucket of its own that each of its pipes' frames
 * must also pass (its pipes then take the slow path: SL_WHEEL_SUB_LIMITED). What it does not
 * do: the port's rate (the caller's: hqos's bucket).
 * Single-threaded: the owner worker's. */
#ifndef SL_QOS_WHEEL_H
#define SL_QOS_WHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_red.h>

struct rte_mbuf;

#define SL_WHEEL_QUEUES 16 /* a pipe's: TC t's is t, TC12's are 12 to 15 */
#define SL_WHEEL_TCS 13
#define SL_WHEEL_BE 12
#define SL_WHEEL_PROFILES 64
#define SL_WHEEL_SUB_LIMITED 0x8000 /* in a pipe's limited: its subport has a rate */

/* What a frame passing at once reads and writes: one line a pipe. count and limited make one
 * word (gate: zero when a frame may pass at once as far as they go); pkts and bytes lie apart,
 * so that the compiler updates them as two adds rather than through a vector register. */
struct sl_wheel_pipe {
	uint64_t next;        /* TSC: when its next frame may leave (its bucket, as a time) */
	uint64_t tpb16;       /* its rate: TSC cycles a byte, x 65,536; 0: not shaped */
	uint64_t burst_tsc;   /* its bucket's depth, as time: how far next may lag now */
	uint64_t pkts;        /* sent */
	union {
		struct {
			uint16_t count;   /* frames waiting, all queues */
			uint16_t limited; /* bit t: TC t has a rate of its own (its profile's);
					   * SL_WHEEL_SUB_LIMITED: its subport has one */
		};
		uint32_t gate;
	};
	uint16_t busy;        /* bit q: queue q has frames */
	uint8_t prof;         /* its class profile (sl_wheel_profile) */
	uint32_t link;        /* the next pipe in its slot's list, + 1 (0: the last) */
	uint64_t bytes;       /* sent */
} __attribute__((aligned(64)));

struct sl_wheel_queue {
	uint32_t blk;         /* its block + 1 while it has frames (0: none) */
	uint16_t head, count;
};

/* A pipe's queues, class buckets and counters: read when its frames wait. */
struct sl_wheel_pipe_q {
	struct sl_wheel_queue q[SL_WHEEL_QUEUES];
	uint64_t tc_next[SL_WHEEL_TCS]; /* limited TC t's bucket, as pipe.next is the pipe's */
	uint64_t wrr[4], vt;  /* TC12's queues' bytes served / weight; the last served's */
	struct {
		uint64_t pkts, bytes, drops, drop_bytes; /* through the queue (waited), dropped */
	} st[SL_WHEEL_QUEUES];
} __attribute__((aligned(64)));

/* A class profile: each TC's rate (0: the pipe's own) and the best-effort queues' weights;
 * the TCs whose queues drop early (RED, DPDK's rte_red) and its thresholds. */
struct sl_wheel_prof {
	double tc_tsc_per_byte[SL_WHEEL_TCS];
	uint64_t tc_burst_tsc;
	uint32_t cost[4];     /* per byte served: 65,536 / weight */
	uint16_t limited;
	uint16_t red;         /* bit t: TC t's queues are RED's (red_cfg) */
	struct rte_red_config red_cfg;
};

/* A subport's bucket, as a pipe's (tpb16 0: none, the port's rate). */
struct sl_wheel_sub {
	uint64_t next, tpb16, burst_tsc;
};

struct sl_wheel {
	uint32_t npipes, qsize, overhead;
	uint32_t nsub, sub_shift; /* subports of 2^sub_shift pipes each */
	struct sl_wheel_sub *subs;
	uint32_t shift;       /* a slot is 2^shift TSC cycles */
	uint64_t cur;         /* the first slot (TSC >> shift) not yet served */
	uint64_t scheduled;   /* pipes in the wheel */
	uint64_t queued;      /* frames in the queues */
	uint64_t nobuf;       /* frames dropped for want of a block */
	uint32_t *head, *tail; /* each slot's list of pipes (+ 1; 0: empty) */
	uint32_t *ready;      /* pipes due (their slot served), in order: an array, so that the
			       * dequeue fetches the pipes ahead instead of chasing a list */
	uint32_t rmask, rhead, rtail;
	uint32_t nblk, nfree;
	uint32_t *free;       /* the free blocks: a stack */
	struct sl_wheel_pipe *pipes;
	struct sl_wheel_pipe_q *pq;
	struct rte_mbuf **q;  /* block b's frames at q[b * qsize] */
	struct rte_red *red;  /* [pipe * 16 + queue]: each queue's average (made with the first
			       * profile that has RED) */
	double red_bytes_per_tsc; /* RED's clock: rte_red counts idle time in bytes of the port */
	uint64_t red_drops[2];    /* frames RED dropped: at random, over max_th */
	struct sl_wheel_prof prof[SL_WHEEL_PROFILES];
};

/* Whether pipe p's next frame would leave at once (sl_wheel_pass): the pipe holds none and
 * its bucket allows one by now. */
static inline bool sl_wheel_pipe_open(const struct sl_wheel_pipe *pp, uint64_t now)
{
	return !pp->count && pp->next <= now;
}

/* For a caller enqueueing many frames: pipe p's state, fetched a few frames ahead. */
static inline void sl_wheel_prefetch_pipe(const struct sl_wheel *w, uint32_t p)
{
	__builtin_prefetch(&w->pipes[p], 1);
}

/* An idle bucket (its next time, its depth) full at most by now. */
static inline void sl_wheel_idle(uint64_t *next, uint64_t depth, uint64_t now)
{
	if (*next + depth < now)
		*next = now - depth;
}

/* A frame of len bytes (wire: with its overhead) out of pipe pp: charged to the pipe's
 * bucket, counted. */
static inline void sl_wheel_pipe_charge(struct sl_wheel_pipe *pp, uint32_t len, uint64_t wire)
{
	pp->next += wire * pp->tpb16 >> 16;
	pp->pkts++;
	pp->bytes += len;
}

/* A frame of len bytes (wire: with its overhead) out of pipe pp at once if the pipe is open
 * (none waiting, no limits, its bucket allowing one by now): the bucket made idle at most by
 * now and charged, the frame counted (sl_wheel_idle and sl_wheel_pipe_charge, the pipe's
 * next time read once); whether it was. */
static inline bool sl_wheel_pipe_pass_open(struct sl_wheel_pipe *pp, uint32_t len, uint64_t wire,
					   uint64_t now)
{
	uint64_t nx = pp->next;
	if (pp->gate || nx > now)
		return false;
	if (nx + pp->burst_tsc < now)
		nx = now - pp->burst_tsc;
	pp->next = nx + (wire * pp->tpb16 >> 16);
	pp->pkts++;
	pp->bytes += len;
	return true;
}

/* A frame of len bytes (its overhead added) out of pipe pp, of traffic class tc: charged to
 * its bucket and its class's, counted. */
static inline void sl_wheel_pipe_sent(const struct sl_wheel *w, struct sl_wheel_pipe *pp,
				      uint32_t tc, uint32_t len, uint64_t now)
{
	uint64_t bytes = len + w->overhead;
	sl_wheel_pipe_charge(pp, len, bytes);
	if (__builtin_expect(pp->limited & SL_WHEEL_SUB_LIMITED, 0)) {
		struct sl_wheel_sub *sb = &w->subs[(uint32_t)(pp - w->pipes) >> w->sub_shift];
		sl_wheel_idle(&sb->next, sb->burst_tsc, now);
		sb->next += bytes * sb->tpb16 >> 16;
	}
	if (__builtin_expect(pp->limited >> tc & 1, 0)) {
		const struct sl_wheel_prof *pr = &w->prof[pp->prof];
		uint64_t *t = &w->pq[pp - w->pipes].tc_next[tc];
		sl_wheel_idle(t, pr->tc_burst_tsc, now);
		*t += (uint64_t)(int64_t)((double)bytes * pr->tc_tsc_per_byte[tc]);
	}
}

#define SL_WHEEL_SLOTS 4096

/* npipes pipes of 16 queues of qsize frames (a power of 2), every one at rate bytes_per_s
 * with a bucket of burst bytes and of class profile 0 (no class rates, weights 1:1:1:1),
 * frames counted with overhead more bytes; NULL when memory is out. */
struct sl_wheel *sl_wheel_create(uint32_t npipes, uint32_t qsize, uint32_t overhead,
				 uint64_t bytes_per_s, uint64_t burst, uint64_t now);
void sl_wheel_free(struct sl_wheel *w); /* frees the frames it holds */
/* Pipe p's rate and bucket from now on. */
void sl_wheel_pipe_rate(struct sl_wheel *w, uint32_t p, uint64_t bytes_per_s, uint64_t burst);
/* Class profile idx: TC t's rate tc_bytes_per_s[t] (0: none of its own) with a bucket of
 * period_ms at that rate, the best-effort queues' weights (1 to 255). Pipes of idx see it at
 * once: set it before its first pipe, or while it has none that waits. */
void sl_wheel_profile(struct sl_wheel *w, uint32_t idx, const uint64_t tc_bytes_per_s[SL_WHEEL_TCS],
		      uint32_t period_ms, const uint8_t weight[4]);
/* RED's state for every queue, made once (0 or -ENOMEM): by control before a profile with RED
 * reaches a wheel whose owner runs. */
int sl_wheel_red_alloc(struct sl_wheel *w);
/* RED on class profile idx: the queues of the TCs in tcs (bit t: TC t; 0: none) drop early
 * once their average length (in frames, rte_red's EWMA of weight 2^-wq_log2) passes min_th,
 * with a probability rising to 1 / maxp_inv at max_th, and every frame past it. RED counts a
 * queue's idle time in bytes at the port's rate, port_bytes_per_s. 0, -EINVAL (rte_red refused
 * the thresholds) or -ENOMEM (sl_wheel_red_alloc's). Pipes of idx see it at once. */
int sl_wheel_profile_red(struct sl_wheel *w, uint32_t idx, uint16_t tcs, uint16_t min_th,
			 uint16_t max_th, uint16_t maxp_inv, uint16_t wq_log2,
			 uint64_t port_bytes_per_s);
/* Pipe p's class profile from now on. */
void sl_wheel_pipe_profile(struct sl_wheel *w, uint32_t p, uint32_t idx);
/* The pipes in n subports (a power of 2 that divides npipes; 1 at first), every one at the
 * port's rate: 0 or -ENOMEM. */
int sl_wheel_subports(struct sl_wheel *w, uint32_t n);
/* Subport s's rate and bucket from now on (bytes_per_s 0: none of its own). */
void sl_wheel_subport_rate(struct sl_wheel *w, uint32_t s, uint64_t bytes_per_s, uint64_t burst);

enum { SL_WHEEL_OK, SL_WHEEL_FULL, SL_WHEEL_NOBUF, SL_WHEEL_RED, SL_WHEEL_RED_MAX };
/* Frame m into queue q (0-15) of pipe p at now: SL_WHEEL_OK, or why not (its queue full, no
 * block free, RED dropped it at random or over max_th); when refused, m is the caller's, and
 * counted. */
int sl_wheel_enqueue(struct sl_wheel *w, struct rte_mbuf *m, uint32_t p, uint32_t q, uint64_t now);
/* A frame of len bytes of traffic class tc for pipe p straight out, at now: when the pipe is
 * open (sl_wheel_pipe_open) and its class's bucket and its subport's allow it, the frame is charged and counted
 * as if enqueued and dequeued at once, and true (it is the caller's to send); else false
 * (enqueue it). A shaper delays only what is over its rate: frames in profile skip the
 * queues, the slot lists and the ready array. */
static inline bool sl_wheel_pass(struct sl_wheel *w, uint32_t p, uint32_t tc, uint32_t len,
				 uint64_t now)
{
	struct sl_wheel_pipe *pp = &w->pipes[p];
	if (!sl_wheel_pipe_open(pp, now))
		return false;
	if (__builtin_expect(pp->limited >> tc & 1, 0) && w->pq[p].tc_next[tc] > now)
		return false;
	if (__builtin_expect(pp->limited & SL_WHEEL_SUB_LIMITED, 0) &&
	    w->subs[p >> w->sub_shift].next > now)
		return false;
	sl_wheel_idle(&pp->next, pp->burst_tsc, now);
	sl_wheel_pipe_sent(w, pp, tc, len, now);
	return true;
}

/* Up to want frames whose time has come, by now. */
uint16_t sl_wheel_dequeue(struct sl_wheel *w, struct rte_mbuf **out, uint16_t want, uint64_t now);

#endif
