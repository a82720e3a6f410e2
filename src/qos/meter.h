/* SPDX-License-Identifier: BSD-3-Clause */
/* The policers' metering: DPDK's rte_meter profiles (rte_meter_*_profile_config) and state
 * (rte_meter_*_config), its bucket update and colour-blind logic taken apart, so that the
 * update runs once per vector: the packets of a vector share one TSC reading, and a
 * per-packet rte_meter check would compute the same buckets at the price of one or two
 * 64-bit divisions per packet (BENCHMARKS.md, "A policer in memory"; tests/unit/test_meter.c
 * checks the colours against rte_meter's own checks, packet by packet). */
#ifndef SL_METER_H
#define SL_METER_H

#include <rte_common.h>
#include <rte_meter.h>

enum sl_meter_type { SL_METER_1R2C, SL_METER_1R3C, SL_METER_2698, SL_METER_4115 };

union sl_meter_profile {
	struct rte_meter_srtcm_profile sr; /* 1r2c (no excess bucket) and 1r3c: RFC 2697 */
	struct rte_meter_trtcm_profile tr; /* RFC 2698 */
	struct rte_meter_trtcm_rfc4115_profile t4;
};

union sl_meter {
	struct rte_meter_srtcm sr;
	struct rte_meter_trtcm tr;
	struct rte_meter_trtcm_rfc4115 t4;
};

/* One bucket of a two-rate meter at time now: whole periods since its time added. */
static inline void sl_meter_bucket(uint64_t *time, uint64_t *tokens, uint64_t period,
				   uint64_t bytes_per_period, uint64_t size, uint64_t now)
{
	uint64_t n = (now - *time) / period;
	*time += n * period;
	*tokens = RTE_MIN(*tokens + n * bytes_per_period, size);
}

/* The buckets at time now (TSC cycles), as rte_meter's checks update them. */
static inline void sl_meter_refill(uint8_t type, const union sl_meter_profile *p,
				   union sl_meter *m, uint64_t now)
{
	switch (type) {
	case SL_METER_2698:
		sl_meter_bucket(&m->tr.time_tc, &m->tr.tc, p->tr.cir_period,
				p->tr.cir_bytes_per_period, p->tr.cbs, now);
		sl_meter_bucket(&m->tr.time_tp, &m->tr.tp, p->tr.pir_period,
				p->tr.pir_bytes_per_period, p->tr.pbs, now);
		break;
	case SL_METER_4115:
		sl_meter_bucket(&m->t4.time_tc, &m->t4.tc, p->t4.cir_period,
				p->t4.cir_bytes_per_period, p->t4.cbs, now);
		sl_meter_bucket(&m->t4.time_te, &m->t4.te, p->t4.eir_period,
				p->t4.eir_bytes_per_period, p->t4.ebs, now);
		break;
	default: {
		const struct rte_meter_srtcm_profile *q = &p->sr;
		uint64_t n = (now - m->sr.time) / q->cir_period;
		m->sr.time += n * q->cir_period;
		uint64_t tc = m->sr.tc + n * q->cir_bytes_per_period, te = m->sr.te;
		if (tc > q->cbs) { /* RFC 2697: what overflows C fills E */
			te = RTE_MIN(te + (tc - q->cbs), q->ebs);
			tc = q->cbs;
		}
		m->sr.tc = tc;
		m->sr.te = te;
	}
	}
}

/* The two buckets that packets debit (RFC 2697 and 4115: committed and excess; RFC 2698:
 * committed and peak) as two values, which a caller keeps in registers over a run of
 * packets: debited in memory, each packet's test and debit would wait for the one before
 * (a store forwarded to the next load, some 5 clocks on Intel cores). */
struct sl_meter_tok {
	uint64_t c, e; /* committed; excess, or peak for RFC 2698 */
};

static inline struct sl_meter_tok sl_meter_tok_get(uint8_t type, const union sl_meter *m)
{
	if (type == SL_METER_2698)
		return (struct sl_meter_tok){m->tr.tc, m->tr.tp};
	if (type == SL_METER_4115)
		return (struct sl_meter_tok){m->t4.tc, m->t4.te};
	return (struct sl_meter_tok){m->sr.tc, m->sr.te};
}

static inline void sl_meter_tok_put(uint8_t type, union sl_meter *m, struct sl_meter_tok t)
{
	if (type == SL_METER_2698) {
		m->tr.tc = t.c;
		m->tr.tp = t.e;
	} else if (type == SL_METER_4115) {
		m->t4.tc = t.c;
		m->t4.te = t.e;
	} else {
		m->sr.tc = t.c;
		m->sr.te = t.e;
	}
}

/* A packet of len bytes (or units) that arrives with colour pre against the refilled buckets
 * t: its colour, the buckets debited as rte_meter's colour-aware checks do (RFC 2697 3, 2698 3
 * and 4115 2: a packet never leaves greener than it came, and only the buckets its colour may
 * use are debited). */
static inline enum rte_color sl_meter_tok_colour(uint8_t type, struct sl_meter_tok *t, uint32_t len,
						 enum rte_color pre)
{
	if (type == SL_METER_2698) {
		if (pre == RTE_COLOR_RED || t->e < len)
			return RTE_COLOR_RED;
		t->e -= len;
		if (pre == RTE_COLOR_YELLOW || t->c < len)
			return RTE_COLOR_YELLOW;
		t->c -= len;
		return RTE_COLOR_GREEN;
	}
	if (pre == RTE_COLOR_GREEN && t->c >= len) {
		t->c -= len;
		return RTE_COLOR_GREEN;
	}
	if (pre != RTE_COLOR_RED && t->e >= len) {
		t->e -= len;
		return RTE_COLOR_YELLOW;
	}
	return RTE_COLOR_RED;
}

/* The same on the meter's state m. */
static inline enum rte_color sl_meter_colour_aware(uint8_t type, union sl_meter *m, uint32_t len,
						   enum rte_color pre)
{
	struct sl_meter_tok t = sl_meter_tok_get(type, m);
	enum rte_color c = sl_meter_tok_colour(type, &t, len, pre);
	sl_meter_tok_put(type, m, t);
	return c;
}

/* The same, colour-blind: every packet arrives green (the RFCs' colour-blind mode is exactly
 * that; with pre a constant the compiler drops its tests). */
static inline enum rte_color sl_meter_colour(uint8_t type, union sl_meter *m, uint32_t len)
{
	return sl_meter_colour_aware(type, m, len, RTE_COLOR_GREEN);
}

#endif
