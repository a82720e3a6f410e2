/* SPDX-License-Identifier: BSD-3-Clause */
/* The timing-wheel shaper (src/qos/wheel.c) in virtual time: each pipe sends at its rate
 * within 1% over a second, its bucket's burst at once after idling, frames in order; a full
 * FIFO refuses; a gap longer than the wheel neither loops nor loses a pipe; many pipes due at
 * once leave in the order they came; frames of an idle pipe in profile pass at once, and no
 * more than its rate; the wheel freed with frames in it frees them. EAL with --no-huge. */
#include "../common/check.h"
#include "../../src/qos/wheel.h"

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

static struct rte_mempool *mp;

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
				CHECK(m && sl_wheel_enqueue(w, m, p, now));
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
		CHECK(sl_wheel_enqueue(w, m[i], 1, t));
	CHECK(!sl_wheel_enqueue(w, m[4], 1, t) && w->pipes[1].drops == 1 &&
	      w->pipes[1].drop_bytes == 1000);
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
	CHECK(sl_wheel_enqueue(w, frame(1500, 0), 0, t) && sl_wheel_enqueue(w, frame(1500, 1), 0, t));
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
		CHECK(sl_wheel_enqueue(w, frame(64, (p * 7) % 1000), (p * 7) % 1000, t));
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
		CHECK(sl_wheel_pass(w, 1, 1000, t));
	CHECK(!sl_wheel_pass(w, 1, 1000, t) && w->pipes[1].pkts == 3 && w->pipes[1].bytes == 3000);
	CHECK(sl_wheel_enqueue(w, frame(1000, 3), 1, t));
	CHECK(sl_wheel_dequeue(w, out, 4, t) == 0);
	uint64_t t1 = t + hz / 100 + hz / 10000; /* 10 ms: 1,000 bytes at 100,000 a second */
	CHECK(!sl_wheel_pass(w, 1, 1000, t1)); /* frame 3 is first */
	CHECK(sl_wheel_dequeue(w, out, 4, t1) == 1 && out[0]->hash.usr == 3);
	rte_pktmbuf_free(out[0]);
	CHECK(!sl_wheel_pass(w, 1, 1000, t1)); /* its bucket: 10 ms more */
	CHECK(sl_wheel_pass(w, 1, 1000, t1 + hz / 100 + hz / 10000));
	CHECK(sl_wheel_pass(w, 0, 1000, t)); /* the other pipe's own bucket */
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
		if (sl_wheel_pass(w, 0, 1000, now)) {
			bytes += 1024;
			disorder += seq != want++;
			seq++;
			passed++;
			continue;
		}
		struct rte_mbuf *m = frame(1000, seq);
		if (m && sl_wheel_enqueue(w, m, 0, now)) {
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

int main(void)
{
	char *eal[] = {"test_wheel", "--no-huge", "--no-pci", "-m", "64", "--log-level", "3",
		       "--file-prefix", "sl-test-wheel", NULL};
	if (rte_eal_init(9, eal) < 0)
		return 2;
	mp = rte_pktmbuf_pool_create("wheel", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	CHECK(mp != NULL);
	if (mp) {
		test_rates();
		test_full_and_burst();
		test_gap();
		test_many();
		test_pass();
		test_pass_rate();
	}
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return CHECK_REPORT();
}
