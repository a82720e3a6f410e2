/* SPDX-License-Identifier: BSD-3-Clause */
#include "wheel.h"
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

static void pipe_rate(struct sl_wheel_pipe *p, uint64_t bytes_per_s, uint64_t burst)
{
	double hz = (double)rte_get_tsc_hz();
	p->tsc_per_byte = bytes_per_s ? hz / (double)bytes_per_s : 0;
	p->burst_tsc = (uint64_t)((double)burst * p->tsc_per_byte);
}

struct sl_wheel *sl_wheel_create(uint32_t npipes, uint32_t qsize, uint32_t overhead,
				 uint64_t bytes_per_s, uint64_t burst, uint64_t now)
{
	struct sl_wheel *w = rte_zmalloc("sl_wheel", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (!w)
		return NULL;
	w->npipes = npipes;
	w->qsize = qsize;
	w->overhead = overhead;
	/* slots of about a microsecond: 4,096 of them reach 4 ms ahead; a pipe due later
	 * waits in the farthest slot and is looked at again there */
	uint64_t per_us = rte_get_tsc_hz() / 1000000;
	w->shift = per_us > 1 ? 63 - (uint32_t)__builtin_clzll(per_us) : 0;
	w->cur = now >> w->shift;
	w->head = rte_zmalloc("sl_wheel", SL_WHEEL_SLOTS * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	w->tail = rte_zmalloc("sl_wheel", SL_WHEEL_SLOTS * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	w->pipes = rte_zmalloc("sl_wheel", (size_t)npipes * sizeof(*w->pipes), RTE_CACHE_LINE_SIZE);
	w->q = rte_zmalloc("sl_wheel", (size_t)npipes * qsize * sizeof(*w->q), RTE_CACHE_LINE_SIZE);
	w->rmask = (uint32_t)rte_align32pow2(npipes) - 1; /* a pipe is in the wheel once at most */
	w->ready = rte_zmalloc("sl_wheel", ((size_t)w->rmask + 1) * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	if (!w->head || !w->tail || !w->pipes || !w->q || !w->ready) {
		sl_wheel_free(w);
		return NULL;
	}
	for (uint32_t p = 0; p < npipes; p++)
		pipe_rate(&w->pipes[p], bytes_per_s, burst);
	return w;
}

void sl_wheel_free(struct sl_wheel *w)
{
	if (!w)
		return;
	for (uint32_t p = 0; w->pipes && w->q && p < w->npipes; p++)
		for (uint32_t i = 0; i < w->pipes[p].count; i++)
			rte_pktmbuf_free(w->q[(size_t)p * w->qsize +
					      ((w->pipes[p].head + i) & (w->qsize - 1))]);
	rte_free(w->head);
	rte_free(w->tail);
	rte_free(w->ready);
	rte_free(w->pipes);
	rte_free(w->q);
	rte_free(w);
}

void sl_wheel_pipe_rate(struct sl_wheel *w, uint32_t p, uint64_t bytes_per_s, uint64_t burst)
{
	pipe_rate(&w->pipes[p], bytes_per_s, burst);
}

/* Pipe p onto slot s's list. */
static inline void slot_put(struct sl_wheel *w, uint32_t p, uint64_t s)
{
	uint32_t i = (uint32_t)s & (SL_WHEEL_SLOTS - 1);
	w->pipes[p].link = 0;
	if (w->tail[i])
		w->pipes[w->tail[i] - 1].link = p + 1;
	else
		w->head[i] = p + 1;
	w->tail[i] = p + 1;
	w->scheduled++;
}

/* Pipe p due at time t: ready when its slot was served, else on its slot's list (the
 * farthest slot when beyond the wheel: put back there when it comes round). */
static inline void wheel_put(struct sl_wheel *w, uint32_t p, uint64_t t)
{
	uint64_t s = t >> w->shift;
	if (s < w->cur) {
		w->ready[w->rtail++ & w->rmask] = p;
		w->scheduled++;
		return;
	}
	slot_put(w, p, RTE_MIN(s, w->cur + SL_WHEEL_SLOTS - 1));
}

/* Slot cur's list onto the ready array, in its order. */
static inline void slot_take(struct sl_wheel *w, uint64_t cur)
{
	uint32_t i = (uint32_t)cur & (SL_WHEEL_SLOTS - 1);
	for (uint32_t x = w->head[i]; x; x = w->pipes[x - 1].link)
		w->ready[w->rtail++ & w->rmask] = x - 1;
	w->head[i] = w->tail[i] = 0;
}

bool sl_wheel_enqueue(struct sl_wheel *w, struct rte_mbuf *m, uint32_t p, uint64_t now)
{
	struct sl_wheel_pipe *pp = &w->pipes[p];
	if (unlikely(pp->count == w->qsize)) {
		pp->drops++;
		pp->drop_bytes += m->pkt_len;
		return false;
	}
	w->q[(size_t)p * w->qsize + ((pp->head + pp->count) & (w->qsize - 1))] = m;
	w->queued++;
	if (pp->count++ == 0) {
		sl_wheel_pipe_idle(pp, now);
		wheel_put(w, p, pp->next);
	}
	return true;
}

uint16_t sl_wheel_dequeue(struct sl_wheel *w, struct rte_mbuf **out, uint16_t want, uint64_t now)
{
	uint64_t end = now >> w->shift;
	uint16_t n = 0;
	if (!w->scheduled) { /* nothing anywhere: on to now at once */
		w->cur = RTE_MAX(w->cur, end + 1);
		return 0;
	}
	/* after a gap longer than the wheel (the owner idle, or late) every slot is due: each
	 * list taken in the order of the slots (unless every pipe is ready: no list has any),
	 * instead of stepping through the gap */
	if (unlikely(end > w->cur + SL_WHEEL_SLOTS)) {
		for (uint32_t k = 0; w->scheduled > w->rtail - w->rhead && k < SL_WHEEL_SLOTS; k++)
			slot_take(w, w->cur + k);
		w->cur = end + 1;
	}
	while (n < want) {
		if (w->rhead == w->rtail) { /* the next due slot's pipes */
			if (!w->scheduled) /* none in any slot: on to now at once */
				w->cur = RTE_MAX(w->cur, end + 1);
			if (w->cur > end)
				break;
			slot_take(w, w->cur++);
			continue;
		}
		uint32_t k = w->rhead++;
		if (w->rtail - k > 4) /* the pipes a few ahead, then their FIFO's head frame */
			__builtin_prefetch(&w->pipes[w->ready[(k + 4) & w->rmask]], 1);
		if (w->rtail - k > 2) {
			uint32_t x = w->ready[(k + 2) & w->rmask];
			__builtin_prefetch(&w->q[(size_t)x * w->qsize + w->pipes[x].head]);
		}
		uint32_t p = w->ready[k & w->rmask];
		struct sl_wheel_pipe *pp = &w->pipes[p];
		w->scheduled--;
		if (pp->next > now) { /* within its slot, not yet: a later slot's list */
			slot_put(w, p, RTE_MIN(RTE_MAX(pp->next >> w->shift, w->cur),
					       w->cur + SL_WHEEL_SLOTS - 1));
			continue;
		}
		struct rte_mbuf *m = w->q[(size_t)p * w->qsize + pp->head];
		pp->head = (uint16_t)((pp->head + 1) & (w->qsize - 1));
		pp->count--;
		w->queued--;
		sl_wheel_pipe_sent(w, pp, m->pkt_len);
		out[n++] = m;
		if (pp->count) /* its next frame: when its bucket allows (ready again, if now) */
			wheel_put(w, p, pp->next);
	}
	return n;
}
