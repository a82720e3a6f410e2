/* SPDX-License-Identifier: BSD-3-Clause */
#include "wheel.h"
#include <errno.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

/* A bucket's rate as TSC cycles a byte (x 65,536) and its depth as time. 16 bits of
 * fraction: a byte at 100 Gbit/s is about 12,500 of them on a 2.4 GHz TSC; at 1 byte a second
 * (the least), a frame's cost still fits 64 bits. */
static void bucket_rate(uint64_t *tpb16, uint64_t *burst_tsc, uint64_t bytes_per_s, uint64_t burst)
{
	double hz = (double)rte_get_tsc_hz();
	double tpb = bytes_per_s ? hz / (double)bytes_per_s : 0;
	*tpb16 = (uint64_t)(tpb * 65536);
	*burst_tsc = (uint64_t)((double)burst * tpb);
}

static void pipe_rate(struct sl_wheel_pipe *p, uint64_t bytes_per_s, uint64_t burst)
{
	bucket_rate(&p->tpb16, &p->burst_tsc, bytes_per_s, burst);
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
	w->nblk = (uint32_t)RTE_MIN((uint64_t)npipes * SL_WHEEL_QUEUES, 2ull * npipes + 1024);
	w->head = rte_zmalloc("sl_wheel", SL_WHEEL_SLOTS * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	w->tail = rte_zmalloc("sl_wheel", SL_WHEEL_SLOTS * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	w->pipes = rte_zmalloc("sl_wheel", (size_t)npipes * sizeof(*w->pipes), RTE_CACHE_LINE_SIZE);
	w->pq = rte_zmalloc("sl_wheel", (size_t)npipes * sizeof(*w->pq), RTE_CACHE_LINE_SIZE);
	w->q = rte_malloc("sl_wheel", (size_t)w->nblk * qsize * sizeof(*w->q), RTE_CACHE_LINE_SIZE);
	w->free = rte_malloc("sl_wheel", (size_t)w->nblk * sizeof(uint32_t), 0);
	w->rmask = (uint32_t)rte_align32pow2(npipes) - 1; /* a pipe is in the wheel once at most */
	w->ready = rte_zmalloc("sl_wheel", ((size_t)w->rmask + 1) * sizeof(uint32_t), RTE_CACHE_LINE_SIZE);
	if (!w->head || !w->tail || !w->pipes || !w->pq || !w->q || !w->free || !w->ready ||
	    sl_wheel_subports(w, 1)) {
		sl_wheel_free(w);
		return NULL;
	}
	for (uint32_t b = 0; b < w->nblk; b++) /* block 0 on top */
		w->free[b] = w->nblk - 1 - b;
	w->nfree = w->nblk;
	static const uint64_t none[SL_WHEEL_TCS];
	sl_wheel_profile(w, 0, none, 10, (const uint8_t[4]){1, 1, 1, 1});
	for (uint32_t p = 0; p < npipes; p++)
		pipe_rate(&w->pipes[p], bytes_per_s, burst);
	return w;
}

void sl_wheel_free(struct sl_wheel *w)
{
	if (!w)
		return;
	for (uint32_t p = 0; w->pq && w->q && p < w->npipes; p++)
		for (uint32_t k = 0; k < SL_WHEEL_QUEUES; k++) {
			const struct sl_wheel_queue *qq = &w->pq[p].q[k];
			for (uint32_t i = 0; i < qq->count; i++)
				rte_pktmbuf_free(w->q[(size_t)(qq->blk - 1) * w->qsize +
						      ((qq->head + i) & (w->qsize - 1))]);
		}
	rte_free(w->head);
	rte_free(w->tail);
	rte_free(w->ready);
	rte_free(w->pipes);
	rte_free(w->pq);
	rte_free(w->q);
	rte_free(w->free);
	rte_free(w->subs);
	rte_free(w->red);
	rte_free(w);
}

void sl_wheel_pipe_rate(struct sl_wheel *w, uint32_t p, uint64_t bytes_per_s, uint64_t burst)
{
	pipe_rate(&w->pipes[p], bytes_per_s, burst);
}

void sl_wheel_profile(struct sl_wheel *w, uint32_t idx, const uint64_t tc_bytes_per_s[SL_WHEEL_TCS],
		      uint32_t period_ms, const uint8_t weight[4])
{
	struct sl_wheel_prof *pr = &w->prof[idx];
	double hz = (double)rte_get_tsc_hz();
	pr->limited = 0;
	for (int t = 0; t < SL_WHEEL_TCS; t++) {
		pr->tc_tsc_per_byte[t] = tc_bytes_per_s[t] ? hz / (double)tc_bytes_per_s[t] : 0;
		if (tc_bytes_per_s[t])
			pr->limited |= (uint16_t)(1u << t);
	}
	pr->tc_burst_tsc = (uint64_t)(hz * period_ms / 1000);
	for (int k = 0; k < 4; k++)
		pr->cost[k] = 65536u / (weight[k] ? weight[k] : 1);
	for (uint32_t p = 0; p < w->npipes; p++)
		if (w->pipes[p].prof == idx)
			w->pipes[p].limited = (uint16_t)(pr->limited |
							 (w->pipes[p].limited & SL_WHEEL_SUB_LIMITED));
}

int sl_wheel_red_alloc(struct sl_wheel *w)
{
	if (w->red)
		return 0;
	/* zero: rte_red_rt_data_init's state, every queue empty since time 0 */
	struct rte_red *r = rte_zmalloc("sl_wheel",
					(size_t)w->npipes * SL_WHEEL_QUEUES * sizeof(*r),
					RTE_CACHE_LINE_SIZE);
	if (!r)
		return -ENOMEM;
	__atomic_store_n(&w->red, r, __ATOMIC_RELEASE); /* the owner may be dequeueing */
	return 0;
}

int sl_wheel_profile_red(struct sl_wheel *w, uint32_t idx, uint16_t tcs, uint16_t min_th,
			 uint16_t max_th, uint16_t maxp_inv, uint16_t wq_log2,
			 uint64_t port_bytes_per_s)
{
	struct sl_wheel_prof *pr = &w->prof[idx];
	if (!tcs) {
		pr->red = 0;
		return 0;
	}
	struct rte_red_config cfg;
	if (rte_red_config_init(&cfg, wq_log2, min_th, max_th, maxp_inv))
		return -EINVAL;
	if (sl_wheel_red_alloc(w))
		return -ENOMEM;
	w->red_bytes_per_tsc = (double)port_bytes_per_s / (double)rte_get_tsc_hz();
	pr->red_cfg = cfg;
	pr->red = tcs;
	return 0;
}

/* rte_red_enqueue, but for a queue found empty (q 0) its average decayed here: DPDK 22.11's
 * __rte_red_calc_qempty_factor shifts by -1 when the idle time is short (its n is 0), which
 * UBSan stops at; for n 0 it means the fraction's factor alone, which this returns. */
static inline int red_enqueue(const struct rte_red_config *cfg, struct rte_red *red, unsigned q,
			      uint64_t time)
{
	if (q)
		return rte_red_enqueue_nonempty(cfg, red, q);
	red->count++;
	uint64_t m = (time - red->q_time) / RTE_RED_S; /* frames that could have come meanwhile */
	if (m >= RTE_RED_2POW16) {
		red->avg = 0;
	} else if (m) {
		uint32_t n = (uint32_t)m * rte_red_log2_1_minus_Wq[cfg->wq_log2 - 1];
		uint32_t f = (n >> 6) & 0xf, factor;
		n >>= 10;
		if (n == 0)
			factor = rte_red_pow2_frac_inv[f];
		else if (n < RTE_RED_SCALING)
			factor = (rte_red_pow2_frac_inv[f] + (1u << (n - 1))) >> n;
		else
			factor = 0;
		red->avg = (red->avg >> RTE_RED_SCALING) * (uint16_t)factor;
	}
	return 0;
}

/* RED's clock at now: bytes of the port */
static inline uint64_t red_time(const struct sl_wheel *w, uint64_t now)
{
	return (uint64_t)((double)now * w->red_bytes_per_tsc);
}

void sl_wheel_pipe_profile(struct sl_wheel *w, uint32_t p, uint32_t idx)
{
	w->pipes[p].prof = (uint8_t)idx;
	w->pipes[p].limited = (uint16_t)(w->prof[idx].limited |
					 (w->pipes[p].limited & SL_WHEEL_SUB_LIMITED));
}

int sl_wheel_subports(struct sl_wheel *w, uint32_t n)
{
	struct sl_wheel_sub *s = rte_zmalloc("sl_wheel", n * sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (!s)
		return -ENOMEM;
	rte_free(w->subs);
	w->subs = s;
	w->nsub = n;
	w->sub_shift = (uint32_t)__builtin_ctz(w->npipes / n);
	for (uint32_t p = 0; p < w->npipes; p++)
		w->pipes[p].limited &= (uint16_t)~SL_WHEEL_SUB_LIMITED;
	return 0;
}

void sl_wheel_subport_rate(struct sl_wheel *w, uint32_t s, uint64_t bytes_per_s, uint64_t burst)
{
	struct sl_wheel_sub *sb = &w->subs[s];
	bucket_rate(&sb->tpb16, &sb->burst_tsc, bytes_per_s, burst);
	uint32_t first = s << w->sub_shift, end = first + (1u << w->sub_shift);
	for (uint32_t p = first; p < end; p++)
		if (bytes_per_s)
			w->pipes[p].limited |= SL_WHEEL_SUB_LIMITED;
		else
			w->pipes[p].limited &= (uint16_t)~SL_WHEEL_SUB_LIMITED;
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

int sl_wheel_enqueue(struct sl_wheel *w, struct rte_mbuf *m, uint32_t p, uint32_t q, uint64_t now)
{
	struct sl_wheel_pipe *pp = &w->pipes[p];
	struct sl_wheel_pipe_q *pq = &w->pq[p];
	struct sl_wheel_queue *qq = &pq->q[q];
	int why = qq->count == w->qsize ? SL_WHEEL_FULL
		  : !qq->count && !w->nfree ? SL_WHEEL_NOBUF : SL_WHEEL_OK;
	const struct sl_wheel_prof *pr = &w->prof[pp->prof];
	if (unlikely(pr->red >> RTE_MIN(q, (uint32_t)SL_WHEEL_BE) & 1) && why == SL_WHEEL_OK) {
		/* 0 enqueue, 1 dropped at random (the average between the thresholds), 2 over
		 * max_th */
		int d = red_enqueue(&pr->red_cfg, &w->red[p * SL_WHEEL_QUEUES + q], qq->count,
				    red_time(w, now));
		if (d) {
			w->red_drops[d - 1]++;
			why = d == 1 ? SL_WHEEL_RED : SL_WHEEL_RED_MAX;
		}
	}
	if (unlikely(why != SL_WHEEL_OK)) {
		pq->st[q].drops++;
		pq->st[q].drop_bytes += m->pkt_len;
		w->nobuf += why == SL_WHEEL_NOBUF;
		return why;
	}
	if (!qq->count) {
		qq->blk = w->free[--w->nfree] + 1;
		qq->head = 0;
		pp->busy |= (uint16_t)(1u << q);
		/* a best-effort queue starting anew starts where the last one served stood:
		 * idle, it kept no claim to the bytes it did not send */
		if (q >= SL_WHEEL_BE && pq->wrr[q - SL_WHEEL_BE] < pq->vt)
			pq->wrr[q - SL_WHEEL_BE] = pq->vt;
	}
	w->q[(size_t)(qq->blk - 1) * w->qsize + ((qq->head + qq->count) & (w->qsize - 1))] = m;
	qq->count++;
	pq->st[q].pkts++;
	pq->st[q].bytes += m->pkt_len;
	w->queued++;
	if (pp->count++ == 0) {
		sl_wheel_idle(&pp->next, pp->burst_tsc, now);
		wheel_put(w, p, pp->next);
	}
	return SL_WHEEL_OK;
}

/* The queue pipe p sends from now: its first class with frames whose bucket allows (TC12: the
 * queue of the fewest bytes per weight served); -1 when none does, *wait then the earliest
 * time one will. */
static inline int pick(const struct sl_wheel *w, const struct sl_wheel_pipe *pp, uint32_t p,
		       uint64_t now, uint64_t *wait)
{
	uint32_t busy = pp->busy, lim = pp->limited;
	const struct sl_wheel_pipe_q *pq = &w->pq[p];
	if (likely(!(busy & (busy - 1))) && !lim) /* one queue, no class rates: the usual */
		return __builtin_ctz(busy);
	while (busy) {
		uint32_t q = (uint32_t)__builtin_ctz(busy);
		uint32_t tc = RTE_MIN(q, (uint32_t)SL_WHEEL_BE);
		if (lim >> tc & 1 && pq->tc_next[tc] > now) {
			*wait = RTE_MIN(*wait, pq->tc_next[tc]);
			busy &= q < SL_WHEEL_BE ? busy - 1 : 0;
			continue;
		}
		if (q < SL_WHEEL_BE || !(busy & (busy - 1)))
			return (int)q;
		int best = (int)q;
		for (busy &= busy - 1; busy; busy &= busy - 1) {
			uint32_t k = (uint32_t)__builtin_ctz(busy);
			if (pq->wrr[k - SL_WHEEL_BE] < pq->wrr[best - SL_WHEEL_BE])
				best = (int)k;
		}
		return best;
	}
	return -1;
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
		if (w->rtail - k > 4) { /* the pipes a few ahead, their queues, then a frame */
			uint32_t x = w->ready[(k + 4) & w->rmask];
			__builtin_prefetch(&w->pipes[x], 1);
			__builtin_prefetch(&w->pq[x], 1);
		}
		if (w->rtail - k > 2) {
			uint32_t x = w->ready[(k + 2) & w->rmask];
			uint32_t b = w->pipes[x].busy;
			const struct sl_wheel_queue *qq = &w->pq[x].q[b ? __builtin_ctz(b) : 0];
			if (qq->blk)
				__builtin_prefetch(&w->q[(size_t)(qq->blk - 1) * w->qsize + qq->head]);
		}
		uint32_t p = w->ready[k & w->rmask];
		struct sl_wheel_pipe *pp = &w->pipes[p];
		w->scheduled--;
		uint64_t wait = pp->next > now ? pp->next : UINT64_MAX;
		int q = wait == UINT64_MAX ? pick(w, pp, p, now, &wait) : -1;
		if (q >= 0 && unlikely(pp->limited & SL_WHEEL_SUB_LIMITED) &&
		    w->subs[p >> w->sub_shift].next > now) { /* its subport's bucket */
			wait = w->subs[p >> w->sub_shift].next;
			q = -1;
		}
		if (q < 0) { /* not yet (within its slot, its classes' or subport's buckets) */
			slot_put(w, p, RTE_MIN(RTE_MAX(wait >> w->shift, w->cur),
					       w->cur + SL_WHEEL_SLOTS - 1));
			continue;
		}
		struct sl_wheel_pipe_q *pq = &w->pq[p];
		struct sl_wheel_queue *qq = &pq->q[q];
		struct rte_mbuf *m = w->q[(size_t)(qq->blk - 1) * w->qsize + qq->head];
		qq->head = (uint16_t)((qq->head + 1) & (w->qsize - 1));
		if (--qq->count == 0) {
			w->free[w->nfree++] = qq->blk - 1;
			qq->blk = 0;
			pp->busy &= (uint16_t)~(1u << q);
			/* RED's average decays from now while it is empty (the state is made by
			 * the main lcore, published with a release store) */
			struct rte_red *red = __atomic_load_n(&w->red, __ATOMIC_ACQUIRE);
			if (red)
				rte_red_mark_queue_empty(&red[p * SL_WHEEL_QUEUES + q],
							 red_time(w, now));
		}
		pp->count--;
		w->queued--;
		uint32_t len = m->pkt_len;
		if (q >= SL_WHEEL_BE) {
			uint32_t b = (uint32_t)q - SL_WHEEL_BE;
			pq->vt = pq->wrr[b];
			pq->wrr[b] += (uint64_t)(len + w->overhead) * w->prof[pp->prof].cost[b];
		}
		sl_wheel_pipe_sent(w, pp, RTE_MIN((uint32_t)q, (uint32_t)SL_WHEEL_BE), len, now);
		out[n++] = m;
		if (pp->count) /* its next frame: when its bucket allows (ready again, if now) */
			wheel_put(w, p, pp->next);
	}
	return n;
}
