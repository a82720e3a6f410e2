/* SPDX-License-Identifier: BSD-3-Clause */
/* The policers' metering (src/qos/meter.h) against DPDK's own rte_meter checks: the same
 * profiles, two copies of the same state, random vectors of packets of 1-1500 bytes (heavy,
 * light and idle phases) whose packets share one time, random gaps between vectors; for
 * every type, colour-blind and colour-aware (each packet's colour on arrival random), every
 * packet's colour must be the one rte_meter gives, and the buckets must
 * end equal. EAL without hugepages or PCI (rte_meter reads the TSC's frequency). */
#include "../../src/runtime/eal_exit.h"
#include "../common/check.h"
#include "../../src/qos/meter.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_eal.h>

static uint64_t lcg = 12345;
static uint32_t rnd(uint32_t n)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg >> 33) % n;
}

static enum rte_color reference(uint8_t type, union sl_meter_profile *p, union sl_meter *m,
				uint64_t t, uint32_t len, int pre)
{
	if (pre >= 0) {
		enum rte_color c = (enum rte_color)pre;
		if (type == SL_METER_2698)
			return rte_meter_trtcm_color_aware_check(&m->tr, &p->tr, t, len, c);
		if (type == SL_METER_4115)
			return rte_meter_trtcm_rfc4115_color_aware_check(&m->t4, &p->t4, t, len, c);
		return rte_meter_srtcm_color_aware_check(&m->sr, &p->sr, t, len, c);
	}
	switch (type) {
	case SL_METER_2698:
		return rte_meter_trtcm_color_blind_check(&m->tr, &p->tr, t, len);
	case SL_METER_4115:
		return rte_meter_trtcm_rfc4115_color_blind_check(&m->t4, &p->t4, t, len);
	default:
		return rte_meter_srtcm_color_blind_check(&m->sr, &p->sr, t, len);
	}
}

/* aware: colour-aware, each packet arriving green (half), yellow or red (a quarter each) */
static void one_type(uint8_t type, bool aware)
{
	/* 10 Mb/s committed, 20 Mb/s excess or peak, buckets of 30 and 60 kB: the random traffic
	 * below (phases of about 17 and 1.7 kB per ms, and idle) crosses every colour many times */
	union sl_meter_profile p;
	union sl_meter a, b;
	int rc;
	if (type == SL_METER_2698) {
		struct rte_meter_trtcm_params q = {.cir = 1250000, .pir = 2500000, .cbs = 30000,
						   .pbs = 60000};
		rc = rte_meter_trtcm_profile_config(&p.tr, &q) || rte_meter_trtcm_config(&a.tr, &p.tr);
	} else if (type == SL_METER_4115) {
		struct rte_meter_trtcm_rfc4115_params q = {.cir = 1250000, .eir = 2500000,
							   .cbs = 30000, .ebs = 60000};
		rc = rte_meter_trtcm_rfc4115_profile_config(&p.t4, &q) ||
		     rte_meter_trtcm_rfc4115_config(&a.t4, &p.t4);
	} else {
		struct rte_meter_srtcm_params q = {.cir = 1250000, .cbs = 30000,
						   .ebs = type == SL_METER_1R3C ? 60000 : 0};
		rc = rte_meter_srtcm_profile_config(&p.sr, &q) || rte_meter_srtcm_config(&a.sr, &p.sr);
	}
	CHECK(rc == 0);
	if (rc)
		return; /* a and p unset */
	b = a;
	uint64_t hz = rte_get_tsc_hz(), t = a.sr.time; /* every state starts with its time first */
	unsigned n[3] = {0, 0, 0}, same = 1;
	for (int v = 0; v < 20000; v++) {
		t += rnd(4) == 0 ? 0 : (uint64_t)rnd((uint32_t)(hz / 1000)); /* up to 1 ms */
		sl_meter_refill(type, &p, &b, t);
		/* phases of 500 vectors: heavy (about 17 kB/ms), light (1.7), idle */
		unsigned phase = (unsigned)(v / 500) % 3;
		unsigned pkts = phase == 2 ? 0 : phase == 0 ? 1 + rnd(16) : 1 + rnd(4);
		for (unsigned k = pkts; k > 0; k--) {
			uint32_t len = 1 + rnd(phase == 0 ? 1500 : 500);
			int pre = aware ? (int)rnd(4) : -1;
			pre = pre == 3 ? RTE_COLOR_GREEN : pre;
			enum rte_color want = reference(type, &p, &a, t, len, pre);
			enum rte_color got = aware ? sl_meter_colour_aware(type, &b, len,
									   (enum rte_color)pre)
					     : sl_meter_colour(type, &b, len);
			same &= want == got;
			n[want]++;
		}
	}
	CHECK(same);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	CHECK(n[RTE_COLOR_GREEN] > 1000 && n[RTE_COLOR_RED] > 1000);
	CHECK(type == SL_METER_1R2C ? n[RTE_COLOR_YELLOW] == 0 : n[RTE_COLOR_YELLOW] > 1000);
	printf("type %u colour-%s: green %u, yellow %u, red %u, all as rte_meter\n", type,
	       aware ? "aware" : "blind", n[RTE_COLOR_GREEN], n[RTE_COLOR_YELLOW],
	       n[RTE_COLOR_RED]);
}

int main(void)
{
	char prefix[64]; /* a run of its own: the build's and the sanitizer build's side by side */
	snprintf(prefix, sizeof(prefix), "sl-test-meter-%d", (int)getpid());
	char *eal[] = {"test_meter", "--no-huge", "--no-pci", "-m", "32", "--log-level", "3",
		       "--file-prefix", prefix, NULL};
	if (rte_eal_init(9, eal) < 0)
		return 2;
	for (uint8_t type = SL_METER_1R2C; type <= SL_METER_4115; type++) {
		one_type(type, false);
		one_type(type, true);
	}
	sl_eal_cleanup(); /* and the runtime folder */
	return CHECK_REPORT();
}
