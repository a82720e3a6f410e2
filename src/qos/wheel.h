/* SPDX-License-Identifier: BSD-3-Clause */
/* A per-pipe shaper on a timing wheel (Carousel, Saeed et al., SIGCOMM 2017, scheduling
 * pipes instead of packets): each pipe a FIFO of frames and a token bucket kept as the time
 * its next frame may leave; the wheel, a ring of time slots of about a microsecond, holds the
 * pipes that have frames, each in the slot of that time. A frame costs one pipe's state, its
 * FIFO's slot and, when the pipe was empty, a slot's list: a few dozen instructions where
 * rte_sched's grinders spend over a thousand per frame once every frame is another pipe's
 * (20,000 subscribers). What it does not do: traffic classes (a pipe's frames leave in the
 * order they came), subport rates. The port's own rate is the caller's (hqos's bucket).
 * Single-threaded: the owner worker's. */
#ifndef SL_QOS_WHEEL_H
#define SL_QOS_WHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;

struct sl_wheel_pipe {
	uint64_t next;        /* TSC: when its head may leave (its bucket, as a time) */
	double tsc_per_byte;  /* its rate; 0: not shaped (leaves at once) */
	uint64_t burst_tsc;   /* its bucket's depth, as time: how far next may lag now */
	uint32_t link;        /* the next pipe in its slot's list, + 1 (0: the last) */
	uint16_t head, count; /* its FIFO */
	uint64_t pkts, bytes, drops, drop_bytes;
} __attribute__((aligned(64)));

struct sl_wheel {
	uint32_t npipes, qsize, overhead;
	uint32_t shift;       /* a slot is 2^shift TSC cycles */
	uint64_t cur;         /* the first slot (TSC >> shift) not yet served */
	uint64_t scheduled;   /* pipes in the wheel */
	uint64_t queued;      /* frames in the FIFOs */
	uint32_t *head, *tail; /* each slot's list of pipes (+ 1; 0: empty) */
	uint32_t *ready;      /* pipes due (their slot served), in order: an array, so that the
			       * dequeue fetches the pipes ahead instead of chasing a list */
	uint32_t rmask, rhead, rtail;
	struct sl_wheel_pipe *pipes;
	struct rte_mbuf **q;  /* pipe p's FIFO at q[p * qsize] */
};

/* Whether pipe p's next frame would leave at once (sl_wheel_pass): the pipe holds none and
 * its bucket allows one by now. */
static inline bool sl_wheel_pipe_open(const struct sl_wheel_pipe *pp, uint64_t now)
{
	return !pp->count && pp->next <= now;
}

/* For a caller enqueueing many frames: pipe p's state, fetched a few frames ahead; then, once
 * that is in, the FIFO slot its next frame goes to, unless that frame will pass at once. */
static inline void sl_wheel_prefetch_pipe(const struct sl_wheel *w, uint32_t p)
{
	__builtin_prefetch(&w->pipes[p], 1);
}
static inline void sl_wheel_prefetch_slot(const struct sl_wheel *w, uint32_t p, uint64_t now)
{
	const struct sl_wheel_pipe *pp = &w->pipes[p];
	if (!sl_wheel_pipe_open(pp, now))
		__builtin_prefetch(&w->q[(size_t)p * w->qsize +
					 ((pp->head + pp->count) & (w->qsize - 1))], 1);
}

/* An idle pipe's bucket full at most by now: its time no further back than its depth. */
static inline void sl_wheel_pipe_idle(struct sl_wheel_pipe *pp, uint64_t now)
{
	if (pp->next + pp->burst_tsc < now)
		pp->next = now - pp->burst_tsc;
}

/* A frame of len bytes (its overhead added) out of pipe pp: charged to its bucket, counted. */
static inline void sl_wheel_pipe_sent(const struct sl_wheel *w, struct sl_wheel_pipe *pp,
				      uint32_t len)
{
	pp->next += (uint64_t)((double)(len + w->overhead) * pp->tsc_per_byte);
	pp->pkts++;
	pp->bytes += len;
}

#define SL_WHEEL_SLOTS 4096

/* npipes pipes of qsize frames (a power of 2), every one at rate bytes_per_s with a bucket of
 * burst bytes, frames counted with overhead more bytes; NULL when memory is out. */
struct sl_wheel *sl_wheel_create(uint32_t npipes, uint32_t qsize, uint32_t overhead,
				 uint64_t bytes_per_s, uint64_t burst, uint64_t now);
void sl_wheel_free(struct sl_wheel *w); /* frees the frames it holds */
/* Pipe p's rate and bucket from now on. */
void sl_wheel_pipe_rate(struct sl_wheel *w, uint32_t p, uint64_t bytes_per_s, uint64_t burst);
/* Frame m into pipe p at now: false when its FIFO is full (m is the caller's, counted). */
bool sl_wheel_enqueue(struct sl_wheel *w, struct rte_mbuf *m, uint32_t p, uint64_t now);
/* A frame of len bytes for pipe p straight out, at now: when the pipe is open
 * (sl_wheel_pipe_open), the frame is charged and counted as if enqueued and dequeued at once,
 * and true (it is the caller's to send); else false (enqueue it). A shaper delays only what
 * is over its rate: frames in profile skip the FIFO, the slot lists and the ready array. */
static inline bool sl_wheel_pass(struct sl_wheel *w, uint32_t p, uint32_t len, uint64_t now)
{
	struct sl_wheel_pipe *pp = &w->pipes[p];
	if (!sl_wheel_pipe_open(pp, now))
		return false;
	sl_wheel_pipe_idle(pp, now);
	sl_wheel_pipe_sent(w, pp, len);
	return true;
}

/* Up to want frames whose time has come, by now. */
uint16_t sl_wheel_dequeue(struct sl_wheel *w, struct rte_mbuf **out, uint16_t want, uint64_t now);

#endif
