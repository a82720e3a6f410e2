/* SPDX-License-Identifier: BSD-3-Clause */
/* The timing-wheel shaper (src/qos/wheel.c) in virtual time: each pipe sends at its rate
 * within 1% over a second, its bucket's burst at once after idling, frames in order; a full
 * FIFO refuses; a gap longer than the wheel neither loops nor loses a pipe; many pipes due at
 * once leave in the order they came; frames of an idle pipe in profile pass at once, and no
 * more than its rate; the wheel freed with frames in it frees them. The classes: strict
 * priority, best effort's weights, a class's own rate (queued and passing), the blocks the
 * queues take; a subport's rate over its pipes'; RED. EAL with --no-huge. */
#include "../../src/runtime/eal_exit.h"
#include "../common/check.h"
#include "../../src/qos/wheel.h"

#include <errno.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

static struct rte_mempool *mp;

/* m into pipe p's first best-effort queue (the flat shaper's tests) */
#define ENQ(w, m, p, now) (sl_wheel_enqueue(w, m, p, SL_WHEEL_BE, now) == SL_WHEEL_OK)

static struct rte_mbuf *frame(uint32_t len, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	if (!m)
		return NULL;
	m->pkt_len = m->data_len = (uint16_t)len;
	m->hash.usr = seq;
	return m;
}

/* Pipes 0 and 1 at 1,000,000 and 250,000 bytes a second (bursts of 3,000 bytes), kept busy
 * with 1,000-byte frames (24 of overhead) for a virtual second, polled every microsecond. */
static void test_rates(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 1000 * hz; /* any start */
	struct sl_wheel *w = sl_wheel_create(4, 64, 24, 1000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	sl_wheel_pipe_rate(w, 1, 250000, 3000);
	uint64_t bytes[2] = {0, 0};
	uint32_t seq[2] = {0, 0}, want_seq[2] = {0, 0}, disorder = 0;
	struct rte_mbuf *out[64];
	for (uint64_t us = 0; us < 1000000; us++) {
		uint64_t now = t + us * hz / 1000000;
		for (uint32_t p = 0; p < 2; p++)
			while (w->pipes[p].count < 8) {
				struct rte_mbuf *m = frame(1000, p << 31 | seq[p]++);
				CHECK(m && ENQ(w, m, p, now));
			}
		uint16_t n = sl_wheel_dequeue(w, out, 64, now);
		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *m = out[i];
			uint32_t pipe = m->hash.usr >> 31;
			bytes[pipe] += m->pkt_len + 24;
			disorder += (m->hash.usr & 0x7fffffff) != want_seq[pipe]++;
			rte_pktmbuf_free(m);
		}
	}
	/* a second at the rate, and the first burst */
	double r0 = (double)bytes[0] / (1000000 + 3000), r1 = (double)bytes[1] / (250000 + 3000);
	if (r0 < 0.99 || r0 > 1.01 || r1 < 0.99 || r1 > 1.01 || disorder)
		fprintf(stderr, "wheel: %lu and %lu bytes in a second, %u out of order\n",
			(unsigned long)bytes[0], (unsigned long)bytes[1], disorder);
	CHECK(r0 >= 0.99 && r0 <= 1.01);
	CHECK(r1 >= 0.99 && r1 <= 1.01);
	CHECK(disorder == 0);
	sl_wheel_free(w); /* with 16 frames in it */
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* A full FIFO refuses (counted); an idle pipe sends its burst at once, then waits. */
static void test_full_and_burst(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 2000 * hz;
	struct sl_wheel *w = sl_wheel_create(2, 4, 0, 100000, 2000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	struct rte_mbuf *m[5], *out[8];
	for (int i = 0; i < 5; i++)
		m[i] = frame(1000, (uint32_t)i);
	for (int i = 0; i < 4; i++)
		CHECK(ENQ(w, m[i], 1, t));
	CHECK(!ENQ(w, m[4], 1, t) && w->pq[1].st[SL_WHEEL_BE].drops == 1 &&
	      w->pq[1].st[SL_WHEEL_BE].drop_bytes == 1000);
	rte_pktmbuf_free(m[4]);
	/* a bucket of 2,000 bytes: three frames leave now (a frame goes while the bucket is
	 * not below zero), the fourth 10 ms later (1,000 bytes at 100,000 a second) */
	uint16_t n = sl_wheel_dequeue(w, out, 8, t);
	CHECK(n == 3 && w->queued == 1);
	CHECK(sl_wheel_dequeue(w, out + n, 8, t + hz / 200) == 0);
	CHECK(sl_wheel_dequeue(w, out + n, 8, t + hz / 100 + hz / 10000) == 1);
	for (int i = 0; i < 4; i++) {
		CHECK(out[i]->hash.usr == (uint32_t)i);
		rte_pktmbuf_free(out[i]);
	}
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* A pipe due beyond the wheel (a 1,500-byte frame at 1,000 bytes a second: 1.5 s), and an
 * owner that does not poll for 3 s: one call, and the frame out. */
static void test_gap(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 3000 * hz;
	struct sl_wheel *w = sl_wheel_create(1, 4, 0, 1000, 64, t);
	CHECK(w != NULL);
	if (!w)
		return;
	struct rte_mbuf *out[4];
	CHECK(ENQ(w, frame(1500, 0), 0, t) && ENQ(w, frame(1500, 1), 0, t));
	CHECK(sl_wheel_dequeue(w, out, 4, t) == 1); /* the bucket allows the first */
	rte_pktmbuf_free(out[0]);
	CHECK(sl_wheel_dequeue(w, out, 4, t + hz) == 0 && w->scheduled == 1);
	CHECK(sl_wheel_dequeue(w, out, 4, t + 3 * hz) == 1 && w->scheduled == 0 && w->queued == 0);
	rte_pktmbuf_free(out[0]);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* 1,000 pipes with a frame each, all due: out in the order they came, 256 a call. */
static void test_many(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 4000 * hz;
	struct sl_wheel *w = sl_wheel_create(1024, 4, 0, 1000000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	for (uint32_t p = 0; p < 1000; p++)
		CHECK(ENQ(w, frame(64, (p * 7) % 1000), (p * 7) % 1000, t));
	struct rte_mbuf *out[256];
	uint32_t got = 0, disorder = 0;
	for (int k = 0; k < 5; k++) {
		uint16_t n = sl_wheel_dequeue(w, out, 256, t);
		for (uint16_t i = 0; i < n; i++) {
			disorder += out[i]->hash.usr != (got * 7) % 1000;
			got++;
			rte_pktmbuf_free(out[i]);
		}
	}
	CHECK(got == 1000 && disorder == 0 && w->queued == 0 && w->scheduled == 0);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* sl_wheel_pass: an idle pipe's bucket (2,000 bytes) lets three 1,000-byte frames straight
 * out, as a dequeue would; the fourth is refused and queued, and while it waits a fifth may
 * not pass it though its time has come; once the pipe is empty and its time come, frames
 * pass again. */
static void test_pass(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 5000 * hz;
	struct sl_wheel *w = sl_wheel_create(2, 4, 0, 100000, 2000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	struct rte_mbuf *out[4];
	for (int i = 0; i < 3; i++)
		CHECK(sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t));
	CHECK(!sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t) && w->pipes[1].pkts == 3 && w->pipes[1].bytes == 3000);
	CHECK(ENQ(w, frame(1000, 3), 1, t));
	CHECK(sl_wheel_dequeue(w, out, 4, t) == 0);
	uint64_t t1 = t + hz / 100 + hz / 10000; /* 10 ms: 1,000 bytes at 100,000 a second */
	CHECK(!sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t1)); /* frame 3 is first */
	CHECK(sl_wheel_dequeue(w, out, 4, t1) == 1 && out[0]->hash.usr == 3);
	rte_pktmbuf_free(out[0]);
	CHECK(!sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t1)); /* its bucket: 10 ms more */
	CHECK(sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t1 + hz / 100 + hz / 10000));
	CHECK(sl_wheel_pass(w, 0, SL_WHEEL_BE, 1000, t)); /* the other pipe's own bucket */
	CHECK(w->pipes[1].pkts == 5 && w->queued == 0 && w->scheduled == 0);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* A pipe at 1,000,000 bytes a second (a 3,000-byte bucket) offered a 1,000-byte frame every
 * 400 us (2.5 times its rate) for a virtual second, each tried with sl_wheel_pass first and
 * queued (a FIFO of 2) when refused, the wheel polled every microsecond: its rate within 1%,
 * in order, by both ways. */
static void test_pass_rate(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 6000 * hz, bytes = 0;
	struct sl_wheel *w = sl_wheel_create(1, 2, 24, 1000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	uint32_t seq = 0, want = 0, disorder = 0, passed = 0, queued = 0;
	struct rte_mbuf *out[4];
	for (uint64_t us = 0; us < 1000000; us++) {
		uint64_t now = t + us * hz / 1000000;
		uint16_t n = sl_wheel_dequeue(w, out, 4, now);
		for (uint16_t i = 0; i < n; i++) {
			bytes += out[i]->pkt_len + 24;
			disorder += out[i]->hash.usr != want++;
			rte_pktmbuf_free(out[i]);
		}
		if (us % 400)
			continue;
		if (sl_wheel_pass(w, 0, SL_WHEEL_BE, 1000, now)) {
			bytes += 1024;
			disorder += seq != want++;
			seq++;
			passed++;
			continue;
		}
		struct rte_mbuf *m = frame(1000, seq);
		if (m && ENQ(w, m, 0, now)) {
			seq++;
			queued++;
		} else {
			rte_pktmbuf_free(m);
		}
	}
	double r = (double)bytes / (1000000 + 3000);
	if (r < 0.99 || r > 1.01 || disorder || !passed || !queued)
		fprintf(stderr, "wheel pass: %lu bytes in a second, %u out of order, %u passed, "
			"%u queued\n", (unsigned long)bytes, disorder, passed, queued);
	CHECK(r >= 0.99 && r <= 1.01);
	CHECK(disorder == 0 && passed > 0 && queued > 0);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* Subports: 4 pipes at 1,000,000 bytes a second in 2 subports; subport 0 limited to 600,000
 * (a 3,000-byte bucket). All four kept busy with 1,000-byte frames for a virtual second, each
 * frame tried with sl_wheel_pass first: subport 0's two pipes send 600,000 between them within
 * 1%, each about half (within 10%), in order; subport 1's two their own rate each. Then the
 * subport's rate taken off: its pipes on their own again. */
static void test_subport_rate(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 6500 * hz;
	struct sl_wheel *w = sl_wheel_create(4, 16, 24, 1000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(sl_wheel_subports(w, 2) == 0 && w->sub_shift == 1);
	sl_wheel_subport_rate(w, 0, 600000, 3000);
	CHECK(w->pipes[0].limited == SL_WHEEL_SUB_LIMITED && w->pipes[1].limited == SL_WHEEL_SUB_LIMITED &&
	      !w->pipes[2].limited && !w->pipes[3].limited);
	uint64_t bytes[4] = {0};
	uint32_t seq[4] = {0}, want[4] = {0}, disorder = 0, passed = 0;
	struct rte_mbuf *out[64];
	for (uint64_t us = 0; us < 1000000; us++) {
		uint64_t now = t + us * hz / 1000000;
		uint16_t n = sl_wheel_dequeue(w, out, 64, now);
		for (uint16_t i = 0; i < n; i++) {
			uint32_t p = out[i]->hash.usr >> 28;
			bytes[p] += out[i]->pkt_len + 24;
			disorder += (out[i]->hash.usr & 0xfffffff) != want[p]++;
			rte_pktmbuf_free(out[i]);
		}
		for (uint32_t p = 0; p < 4; p++) {
			if (w->pipes[p].count >= 4)
				continue;
			if (sl_wheel_pass(w, p, SL_WHEEL_BE, 1000, now)) {
				bytes[p] += 1024;
				disorder += seq[p]++ != want[p]++;
				passed++;
				continue;
			}
			struct rte_mbuf *m = frame(1000, p << 28 | seq[p]);
			if (m && ENQ(w, m, p, now))
				seq[p]++;
			else
				rte_pktmbuf_free(m);
		}
	}
	double s0 = (double)(bytes[0] + bytes[1]) / (600000 + 3000);
	double split = (double)bytes[0] / (double)(bytes[1] ? bytes[1] : 1);
	double r2 = (double)bytes[2] / (1000000 + 3000), r3 = (double)bytes[3] / (1000000 + 3000);
	if (s0 < 0.99 || s0 > 1.01 || split < 0.9 || split > 1.1 || r2 < 0.99 || r2 > 1.01 ||
	    r3 < 0.99 || r3 > 1.01 || disorder)
		fprintf(stderr, "wheel subports: %lu %lu | %lu %lu bytes, %u out of order\n",
			(unsigned long)bytes[0], (unsigned long)bytes[1], (unsigned long)bytes[2],
			(unsigned long)bytes[3], disorder);
	CHECK(s0 >= 0.99 && s0 <= 1.01);
	CHECK(split >= 0.9 && split <= 1.1);
	CHECK(r2 >= 0.99 && r2 <= 1.01 && r3 >= 0.99 && r3 <= 1.01);
	CHECK(disorder == 0 && passed > 0);
	sl_wheel_subport_rate(w, 0, 0, 0);
	CHECK(!(w->pipes[0].limited | w->pipes[1].limited));
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
	/* passing at once: a subport of 1,000 bytes a second lets one 1,000-byte frame of its
	 * pipe 0 through, then none of its open pipe 1 (until its bucket refills), while the
	 * other subport's pipes pass */
	w = sl_wheel_create(4, 4, 0, 1000000, 3000, t);
	CHECK(w != NULL && sl_wheel_subports(w, 2) == 0);
	if (!w)
		return;
	sl_wheel_subport_rate(w, 0, 1000, 100);
	CHECK(sl_wheel_pass(w, 0, SL_WHEEL_BE, 1000, t));
	CHECK(!sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t) && sl_wheel_pipe_open(&w->pipes[1], t));
	CHECK(sl_wheel_pass(w, 2, SL_WHEEL_BE, 1000, t) && sl_wheel_pass(w, 3, SL_WHEEL_BE, 1000, t));
	CHECK(!sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t + hz / 2));
	CHECK(sl_wheel_pass(w, 1, SL_WHEEL_BE, 1000, t + hz));
	sl_wheel_free(w);
}

/* A frame of pipe p's queue q with its sequence number, for the class tests. */
static struct rte_mbuf *qframe(uint32_t len, uint32_t q, uint32_t seq)
{
	return frame(len, q << 24 | seq);
}

/* Strict priority: one pipe (1,000,000 bytes a second) with 6 best-effort frames waiting,
 * then 2 of TC0 and 2 of TC5: the dequeue sends TC0's, then TC5's, then best effort's, each
 * queue in order. */
static void test_priority(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 7000 * hz;
	struct sl_wheel *w = sl_wheel_create(2, 8, 0, 1000000, 100000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	for (uint32_t i = 0; i < 6; i++)
		CHECK(sl_wheel_enqueue(w, qframe(100, 12, i), 1, 12, t) == SL_WHEEL_OK);
	for (uint32_t i = 0; i < 2; i++) {
		CHECK(sl_wheel_enqueue(w, qframe(100, 5, i), 1, 5, t) == SL_WHEEL_OK);
		CHECK(sl_wheel_enqueue(w, qframe(100, 0, i), 1, 0, t) == SL_WHEEL_OK);
	}
	CHECK(w->pipes[1].busy == (1u << 0 | 1u << 5 | 1u << 12) && w->pipes[1].count == 10);
	CHECK(!sl_wheel_pass(w, 1, 0, 100, t)); /* frames wait: none passes them */
	struct rte_mbuf *out[16];
	static const uint32_t want[10] = {0 << 24 | 0, 0 << 24 | 1, 5 << 24 | 0, 5 << 24 | 1,
					  12 << 24 | 0, 12 << 24 | 1, 12 << 24 | 2, 12 << 24 | 3,
					  12 << 24 | 4, 12 << 24 | 5};
	uint16_t n = sl_wheel_dequeue(w, out, 16, t);
	CHECK(n == 10);
	for (uint16_t i = 0; i < n; i++) {
		CHECK(out[i]->hash.usr == want[i]);
		rte_pktmbuf_free(out[i]);
	}
	CHECK(w->queued == 0 && w->nfree == w->nblk && w->pipes[1].busy == 0);
	CHECK(w->pq[1].st[0].pkts == 2 && w->pq[1].st[5].pkts == 2 && w->pq[1].st[12].pkts == 6);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* Classes under congestion for a virtual second, one pipe at 1,000,000 bytes a second kept
 * busy (queues topped up every microsecond, 1,000-byte frames, 24 of overhead), by profile:
 * weights 1:3 on best effort's queues 0 and 1 split the pipe 1:3 within 1%; TC0 limited to
 * 250,000 bytes a second gets that within 1% and best effort the rest. */
static void test_classes(int limited)
{
	uint64_t hz = rte_get_tsc_hz(), t = (8000 + (uint64_t)limited * 1000) * hz;
	struct sl_wheel *w = sl_wheel_create(1, 8, 24, 1000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	uint64_t rates[SL_WHEEL_TCS] = {0};
	if (limited)
		rates[0] = 250000;
	sl_wheel_profile(w, 3, rates, 10, (const uint8_t[4]){1, 3, 1, 1});
	sl_wheel_pipe_profile(w, 0, 3);
	CHECK(w->pipes[0].limited == (limited ? 1 : 0));
	uint32_t qa = limited ? 0 : 12, qb = 13;
	uint64_t bytes[16] = {0};
	uint32_t seq[16] = {0}, next[16] = {0}, disorder = 0;
	struct rte_mbuf *out[8];
	for (uint64_t us = 0; us < 1000000; us++) {
		uint64_t now = t + us * hz / 1000000;
		uint16_t n = sl_wheel_dequeue(w, out, 8, now);
		for (uint16_t i = 0; i < n; i++) {
			uint32_t q = out[i]->hash.usr >> 24;
			bytes[q] += out[i]->pkt_len + 24;
			disorder += (out[i]->hash.usr & 0xffffff) != next[q]++;
			rte_pktmbuf_free(out[i]);
		}
		for (uint32_t k = 0; k < 2; k++) {
			uint32_t q = k ? qb : qa;
			while (w->pq[0].q[q].count < 4) {
				struct rte_mbuf *m = qframe(1000, q, seq[q]++);
				CHECK(m && sl_wheel_enqueue(w, m, 0, q, now) == SL_WHEEL_OK);
			}
		}
	}
	double a = (double)bytes[qa], b = (double)bytes[qb];
	if (limited) { /* the first 10 ms's bucket of TC0 and the pipe's 3,000 bytes on top */
		double ra = a / (250000 + 2500), rb = b / (750000 + 3000 - 2500);
		if (ra < 0.99 || ra > 1.01 || rb < 0.99 || rb > 1.01 || disorder)
			fprintf(stderr, "wheel TC0 limited: %.0f and %.0f bytes, %u out of order\n",
				a, b, disorder);
		CHECK(ra >= 0.99 && ra <= 1.01 && rb >= 0.99 && rb <= 1.01);
	} else {
		if (b / a < 2.97 || b / a > 3.03 || disorder)
			fprintf(stderr, "wheel WRR 1:3: %.0f and %.0f bytes, %u out of order\n", a, b,
				disorder);
		CHECK(b / a >= 2.97 && b / a <= 3.03);
		CHECK(a + b >= 0.99 * 1003000 && a + b <= 1.01 * 1003000);
	}
	CHECK(disorder == 0);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* sl_wheel_pass and a class's rate: TC0 at 250,000 bytes a second (a bucket of 10 ms: 2,500
 * bytes) in a pipe whose own bucket is far deeper: three 1,000-byte frames of TC0 pass, the
 * fourth is refused while best effort's still pass; 4 ms later (1,000 bytes) TC0 passes
 * again. Queued, the refused frame leaves when its class's bucket allows it. */
static void test_pass_class(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 11000 * hz;
	struct sl_wheel *w = sl_wheel_create(1, 4, 0, 1000000, 100000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	uint64_t rates[SL_WHEEL_TCS] = {250000};
	sl_wheel_profile(w, 1, rates, 10, (const uint8_t[4]){1, 1, 1, 1});
	sl_wheel_pipe_profile(w, 0, 1);
	for (int i = 0; i < 3; i++)
		CHECK(sl_wheel_pass(w, 0, 0, 1000, t));
	CHECK(!sl_wheel_pass(w, 0, 0, 1000, t));
	CHECK(sl_wheel_pass(w, 0, SL_WHEEL_BE, 1000, t) && sl_wheel_pass(w, 0, 3, 1000, t));
	uint64_t t1 = t + hz * 41 / 10000; /* 4.1 ms */
	CHECK(sl_wheel_pass(w, 0, 0, 1000, t1) && !sl_wheel_pass(w, 0, 0, 1000, t1));
	CHECK(sl_wheel_enqueue(w, frame(1000, 7), 0, 0, t1) == SL_WHEEL_OK);
	struct rte_mbuf *out[4];
	CHECK(sl_wheel_dequeue(w, out, 4, t1) == 0 && w->scheduled == 1);
	CHECK(sl_wheel_dequeue(w, out, 4, t1 + hz * 41 / 10000) == 1 && out[0]->hash.usr == 7);
	rte_pktmbuf_free(out[0]);
	CHECK(w->pipes[0].pkts == 7 && w->queued == 0 && w->scheduled == 0);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* The blocks: 64 pipes have 64 * 2 + 1,024 = 1,152 for their 1,024 queues, so all of them
 * fill; 128 pipes' 2,048 queues have 1,280: the 1,281st queue started is refused (counted),
 * and every block is back once the queues are empty. */
static void test_blocks(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 10000 * hz;
	struct sl_wheel *w = sl_wheel_create(128, 4, 0, 1000000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(w->nblk == 1280);
	uint32_t ok = 0, nobuf = 0;
	for (uint32_t p = 0; p < 128; p++)
		for (uint32_t q = 0; q < SL_WHEEL_QUEUES; q++) {
			struct rte_mbuf *m = frame(64, p << 4 | q);
			int r = sl_wheel_enqueue(w, m, p, q, t);
			ok += r == SL_WHEEL_OK;
			nobuf += r == SL_WHEEL_NOBUF;
			if (r != SL_WHEEL_OK)
				rte_pktmbuf_free(m);
		}
	CHECK(ok == 1280 && nobuf == 768 && w->nobuf == 768 && w->nfree == 0);
	CHECK(w->pq[127].st[15].drops == 1 && w->pipes[127].count == 0);
	struct rte_mbuf *out[256];
	uint32_t got = 0;
	for (int k = 0; k < 8; k++) {
		uint16_t n = sl_wheel_dequeue(w, out, 256, t + (uint64_t)k * hz / 1000);
		got += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	CHECK(got == 1280 && w->queued == 0 && w->nfree == w->nblk);
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

/* RED (rte_red on the wheel): pipes 0 and 1 at 1,000,000 bytes a second, each offered
 * 1,000-byte frames at twice that for a virtual second into best effort's queue 0 (64 frames);
 * profile 1, pipe 0's, has RED on TC12 (min 8, max 32, maxp_inv 10, weight 2^-2), pipe 1 none.
 * Pipe 1's queue fills and tail-drops; pipe 0's drops early at random and some over max_th,
 * never a full queue, its queue never past 40 frames while the average stays under max_th, and
 * both still send at the pipe's rate (RED does not starve the pipe). Then a RED queue that is
 * offered a burst at once: its average passes max_th and every frame is dropped (SL_WHEEL_RED_MAX)
 * before the queue is full; drained and idle long enough (rte_red's clock: bytes of the port),
 * the average is 0 and frames are taken again. */
static void test_red(void)
{
	uint64_t hz = rte_get_tsc_hz(), t = 9000 * hz;
	struct sl_wheel *w = sl_wheel_create(2, 64, 24, 1000000, 3000, t);
	CHECK(w != NULL);
	if (!w)
		return;
	static const uint64_t none[SL_WHEEL_TCS];
	sl_wheel_profile(w, 1, none, 10, (const uint8_t[4]){1, 1, 1, 1});
	CHECK(sl_wheel_profile_red(w, 1, 1u << SL_WHEEL_BE, 8, 32, 10, 2, 1000000) == 0);
	CHECK(sl_wheel_profile_red(w, 2, 1u << SL_WHEEL_BE, 32, 8, 10, 2, 1000000) == -EINVAL);
	sl_wheel_pipe_profile(w, 0, 1);
	uint64_t why[2][5] = {{0}}, sent[2] = {0, 0};
	uint32_t most[2] = {0, 0};
	struct rte_mbuf *out[64];
	for (uint64_t us = 0; us < 1000000; us++) {
		uint64_t now = t + us * hz / 1000000;
		if (us % 500 == 0)
			for (uint32_t p = 0; p < 2; p++) {
				struct rte_mbuf *m = frame(1000, p << 31);
				int r = sl_wheel_enqueue(w, m, p, SL_WHEEL_BE, now);
				why[p][r]++;
				if (r != SL_WHEEL_OK)
					rte_pktmbuf_free(m);
				most[p] = RTE_MAX(most[p], (uint32_t)w->pq[p].q[SL_WHEEL_BE].count);
			}
		uint16_t n = sl_wheel_dequeue(w, out, 64, now);
		for (uint16_t i = 0; i < n; i++) {
			sent[out[i]->hash.usr >> 31] += out[i]->pkt_len + 24;
			rte_pktmbuf_free(out[i]);
		}
	}
	if (!(why[0][SL_WHEEL_FULL] == 0 && why[0][SL_WHEEL_RED] > 0 && most[0] <= 40 &&
	      why[1][SL_WHEEL_FULL] > 0 && most[1] == 64))
		fprintf(stderr, "red: pipe 0 ok %lu full %lu red %lu red-max %lu, most %u; "
			"pipe 1 full %lu, most %u; sent %lu %lu\n", (unsigned long)why[0][0],
			(unsigned long)why[0][1], (unsigned long)why[0][3], (unsigned long)why[0][4],
			most[0], (unsigned long)why[1][1], most[1], (unsigned long)sent[0],
			(unsigned long)sent[1]);
	CHECK(why[0][SL_WHEEL_FULL] == 0 && why[0][SL_WHEEL_NOBUF] == 0);
	CHECK(why[0][SL_WHEEL_RED] > 0);
	CHECK(most[0] <= 40 && most[0] > 8);
	CHECK(why[1][SL_WHEEL_FULL] > 0 && most[1] == 64);
	CHECK(why[1][SL_WHEEL_RED] == 0 && why[1][SL_WHEEL_RED_MAX] == 0);
	CHECK(w->red_drops[0] == why[0][SL_WHEEL_RED] && w->red_drops[1] == why[0][SL_WHEEL_RED_MAX]);
	CHECK(w->pq[0].st[SL_WHEEL_BE].drops == why[0][SL_WHEEL_RED] + why[0][SL_WHEEL_RED_MAX]);
	for (uint32_t p = 0; p < 2; p++) /* a second at the rate and the first burst, within 1% */
		CHECK(sent[p] >= 990000 && sent[p] <= 1010000 + 3000);
	/* drain both, then a burst of 60 frames at once into pipe 0 (its average at the
	 * weight of 1/4 passes 32 within a few frames of the queue passing 32) */
	uint64_t now = t + 2 * hz;
	uint16_t n;
	while ((n = sl_wheel_dequeue(w, out, 64, now += hz / 100)))
		rte_pktmbuf_free_bulk(out, n);
	CHECK(w->queued == 0);
	/* idle until RED's average is 0: rte_red decays it by one frame's weight per 2^22 bytes
	 * the port could have sent (RTE_RED_S, as in rte_sched), and clears it past 2^16 of
	 * those: at this port's 1,000,000 B/s, 2^38 bytes are some 275,000 seconds */
	now += 300000 * hz;
	uint32_t ok = 0, max = 0, other = 0;
	for (uint32_t i = 0; i < 60; i++) {
		struct rte_mbuf *m = frame(1000, 0);
		int r = sl_wheel_enqueue(w, m, 0, SL_WHEEL_BE, now);
		ok += r == SL_WHEEL_OK;
		max += r == SL_WHEEL_RED_MAX;
		other += r != SL_WHEEL_OK && r != SL_WHEEL_RED_MAX;
		if (r != SL_WHEEL_OK)
			rte_pktmbuf_free(m);
	}
	CHECK(ok >= 8 && ok < 60 && max > 0 && w->pq[0].q[SL_WHEEL_BE].count == ok);
	CHECK(w->pq[0].q[SL_WHEEL_BE].count < 64);
	while ((n = sl_wheel_dequeue(w, out, 64, now += hz / 100)))
		rte_pktmbuf_free_bulk(out, n);
	now += 300000 * hz; /* the average back to 0: 8 frames in a row are taken */
	ok = 0;
	for (uint32_t i = 0; i < 8; i++) {
		struct rte_mbuf *m = frame(1000, 0);
		int r = sl_wheel_enqueue(w, m, 0, SL_WHEEL_BE, now);
		ok += r == SL_WHEEL_OK;
		if (r != SL_WHEEL_OK)
			rte_pktmbuf_free(m);
	}
	CHECK(ok == 8);
	(void)other;
	sl_wheel_free(w);
	CHECK(rte_mempool_in_use_count(mp) == 0);
}

int main(void)
{
	char prefix[64]; /* a run of its own: the build's and the sanitizer build's side by side */
	snprintf(prefix, sizeof(prefix), "sl-test-wheel-%d", (int)getpid());
	char *eal[] = {"test_wheel", "--no-huge", "--no-pci", "-m", "64", "--log-level", "3",
		       "--file-prefix", prefix, NULL};
	if (rte_eal_init(9, eal) < 0)
		return 2;
	mp = rte_pktmbuf_pool_create("wheel", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	CHECK(mp != NULL);
	if (mp) {
		test_rates();
		test_full_and_burst();
		test_gap();
		test_many();
		test_pass();
		test_pass_rate();
		test_subport_rate();
		test_priority();
		test_classes(0);
		test_classes(1);
		test_pass_class();
		test_blocks();
		test_red();
	}
	rte_mempool_free(mp);
	sl_eal_cleanup(); /* and the runtime folder */
	return CHECK_REPORT();
}
