/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: sequences of logical-interface changes (sub-interfaces, BVIs, loopbacks created,
 * deleted, brought up, addressed, cross-connected, traced, captured, given the noisy
 * feature) with tagged frames through the
 * graph in between. Each sub-interface exists exactly when a model says it should; every
 * input ends with all of them deleted and no buffer leaked. */
#include "fuzz.h"
#include "../common/ring_env.h"
#include "../../src/interface/iface.h"
#include "../../src/ip4/ip4.h"
#include "../../src/runtime/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned base_bufs;

#define NSUB 8 /* sub-interface ids 1..8 on port0 */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	if (env_init((*argv)[0], "sl-fuzz-ifaces"))
		abort();
	base_bufs = rte_mempool_in_use_count(sl_pool);
	return 0;
}

static int cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cli(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return env_cli(line, true);
}

static void drain(void)
{
	void *m[64];
	unsigned n;
	env_walk(2);
	sl_runtime_drain_punts(sl_punt);
	env_walk(2);
	for (int p = 0; p < 2; p++)
		while ((n = rte_ring_dequeue_burst(env_tx[p], m, 64, NULL)))
			rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
}

static void send_tagged(uint16_t tpid, uint16_t vid, uint16_t inner)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	if (!m)
		abort();
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, 64);
	memset(d, 0, 64);
	memcpy(d, "\x02\xfe\x00\x00\x00\x00\x02\x00\x00\x00\x00\x0a", 12);
	uint16_t t[4] = {rte_cpu_to_be_16(tpid), rte_cpu_to_be_16(vid), RTE_BE16(0x8100),
			 rte_cpu_to_be_16(inner)};
	memcpy(d + 12, t, inner ? 8 : 4);
	memcpy(d + 12 + (inner ? 8 : 4), "\x08\x00\x45", 3);
	m->port = 0;
	if (rte_ring_enqueue(env_rx[0], m))
		rte_pktmbuf_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool exists[NSUB + 1] = {false};
	for (size_t off = 0; off + 3 <= size && off < 3 * 64; off += 3) {
		uint8_t op = data[off] % 11, a = data[off + 1], b = data[off + 2];
		unsigned id = a % NSUB + 1, vid = b % 6 + 1;
		bool ad = a & 0x80;
		switch (op) {
		case 0: { /* create: succeeds unless the name exists (tags may clash too) */
			int rc = b & 0x40 ? cli("create sub-interfaces port0 %u dot1ad %u inner-dot1q %u",
						id, vid, a % 3 + 1)
					  : cli("create sub-interfaces port0 %u %s %u", id,
						ad ? "dot1ad" : "dot1q", vid);
			if (exists[id] && rc == 0)
				abort();
			exists[id] |= rc == 0;
			break;
		}
		case 1: /* delete: refused only while in use */
			if (cli("delete sub-interface port0.%u", id) == 0) {
				if (!exists[id])
					abort();
				exists[id] = false;
			}
			break;
		case 2:
			cli("set interface state port0.%u %s", id, b & 1 ? "up" : "down");
			break;
		case 3:
			cli(b & 1 ? "set interface l2 xconnect port0.%u port1" : "set interface l3 port0.%u",
			    id);
			break;
		case 4:
			cli("set interface ip address %sport0.%u 10.%u.%u.1/24", b & 1 ? "del " : "", id,
			    id, vid);
			break;
		case 5:
			cli(b & 1 ? "bvi create instance %u" : "bvi delete bvi%u", a % 4);
			break;
		case 6:
			cli(b & 1 ? "create loopback interface instance %u"
				  : "delete loopback interface intfc loop%u", a % 4);
			break;
		case 7:
			if (a & 0x20) /* traced through sub-interfaces that come and go */
				cli("trace add port-rx 4");
			send_tagged(ad ? 0x88a8 : 0x8100, (uint16_t)vid, b & 0x40 ? a % 3 + 1 : 0);
			drain();
			break;
		case 8: /* device-input and interface-output features on interfaces that come and go */
			if (b & 1)
				cli("pcap trace %s intfc port0.%u file /dev/null max 8",
				    b & 2 ? "rx tx" : "tx", id);
			else
				cli("pcap trace off");
			break;
		case 9:
			cli(b & 1 ? "set interface noisy port0.%u lookup-memory 1 reads 1"
				  : "set interface noisy port0.%u disable", id);
			break;
		default:
			cli("set interface l2 xconnect port1 port0.%u", id);
			break;
		}
		for (unsigned i = 1; i <= NSUB; i++) {
			char name[32];
			snprintf(name, sizeof(name), "port0.%u", i);
			if ((sl_iface_by_name(name) != NULL) != exists[i])
				abort();
		}
	}
	drain();
	cli("show trace"); /* records of interfaces deleted since are formatted too */
	cli("clear trace");
	/* clear every reference, then delete everything */
	cli("set interface l3 port1");
	cli("pcap trace off");
	for (unsigned i = 1; i <= NSUB; i++) {
		cli("set interface l3 port0.%u", i);
		cli("set interface noisy port0.%u disable", i);
		for (unsigned v = 1; v <= 6; v++)
			cli("set interface ip address del port0.%u 10.%u.%u.1/24", i, i, v);
		if (exists[i] && cli("delete sub-interface port0.%u", i))
			abort();
	}
	for (unsigned i = 0; i < 4; i++) {
		cli("bvi delete bvi%u", i);
		cli("delete loopback interface intfc loop%u", i);
	}
	for (uint32_t i = SL_IF_FIRST_LOGICAL; i < sl_if_hwm; i++)
		if (sl_ifaces[i].used)
			abort();
	if (rte_mempool_in_use_count(sl_pool) != base_bufs)
		abort();
	return 0;
}
