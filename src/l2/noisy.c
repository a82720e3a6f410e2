/* SPDX-License-Identifier: BSD-3-Clause */
/* The noisy VNF (testpmd's noisy_vnf mode) as a feature of any interface's device-input arc,
 * in front of its L2 mode or routing (`set interface noisy IFACE ...` sets it up and turns
 * it on; `set interface feature IFACE noisy arc device-input disable` turns it off): per packet, random reads, writes and read-writes over a
 * per-worker lookup memory (noisy_load.h: of whole cache lines, or testpmd 22.11's own
 * pattern); then, optionally, a per-worker FIFO that holds
 * packets until it is full (the oldest leave as new ones come) or until its flush time
 * passes (noisy-fifo, a source node, empties it). */
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"
#include "../runtime/feature.h"
#include "noisy_load.h"
#include "l2.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_ring.h>

struct sl_noisy_worker {
	uint8_t *mem;
	struct rte_ring *fifo;
	uint64_t last_flush;
	uint64_t rng;
	uint64_t sink; /* what the reads loaded, so that they are not optimised away */
} __rte_cache_aligned;

/* Immutable once published on the interface. */
struct sl_noisy {
	struct sl_noisy_load load;
	uint32_t fifo_size;           /* packets held; 0: no FIFO */
	uint64_t flush_tsc;           /* 0: flushed only by overflow */
	double mb;
	uint32_t flush_ms;
	uint16_t nb_workers;
	struct sl_noisy_worker w[];
};

static uint32_t nb_fifos; /* interfaces with a FIFO: noisy-fifo returns at once without */
static uint8_t feat; /* noisy's bit on the device-input arc */

/* After noisy, a packet of interface p goes to p's next device-input feature or its mode. */
static inline uint16_t noisy_next(uint16_t p)
{
	return sl_feature_next(SL_ARC_DEVICE_INPUT, feat, p, sl_ifaces[p].mode);
}

#define NOISY_ERRORS(X) X(NOISY_ERR_OFF, "held in a FIFO when noisy was turned off")
enum { NOISY_ERRORS(SL_ERR_ENUM) NOISY_NB_ERR };
static const char *const noisy_reasons[] = {NOISY_ERRORS(SL_ERR_STR)};
static uint16_t noisy_err;
RTE_INIT(noisy_errors)
{
	noisy_err = sl_error_register("noisy", noisy_reasons, NOISY_NB_ERR);
}

static uint16_t noisy_process(struct rte_graph *g, struct rte_node *node, void **objs,
			      uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	void *out[n];
	uint16_t nexts[n], k = 0, last_port = UINT16_MAX;
	struct sl_noisy *c = NULL;
	struct sl_noisy_worker *nw = NULL;
	uint16_t next = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		if (m->port != last_port) {
			last_port = m->port;
			c = __atomic_load_n(&sl_ifaces[last_port].noisy, __ATOMIC_ACQUIRE);
			nw = c ? &c->w[w->id] : NULL;
			next = noisy_next(last_port);
		}
		if (unlikely(!c)) { /* turned off since port-rx chose this edge */
			out[k] = m;
			nexts[k++] = next;
			continue;
		}
		if (c->load.lines)
			nw->sink += sl_noisy_packet(&c->load, nw->mem, &nw->rng);
		if (!c->fifo_size) {
			out[k] = m;
			nexts[k++] = next;
			continue;
		}
		/* FIFO: when full, the oldest packet leaves to make room */
		if (rte_ring_full(nw->fifo)) {
			void *old;
			if (rte_ring_sc_dequeue(nw->fifo, &old) == 0) {
				out[k] = old;
				nexts[k++] = next;
			}
		}
		rte_ring_sp_enqueue(nw->fifo, m); /* cannot fail: one slot was made free */
	}
	sl_enqueue_nexts(g, node, out, nexts, k);
	return n;
}

static struct rte_node_register noisy_node = {
	.name = "noisy",
	.process = noisy_process,
	.init = sl_node_init,
	.nb_edges = SL_NB_MODES,
	.next_nodes = {SL_MODE_NODES},
};
SL_NODE_REGISTER(noisy_node)

/* Empties each FIFO of this worker whose flush time has passed since the last flush. */
static uint16_t fifo_process(struct rte_graph *g, struct rte_node *node, void **objs,
			     uint16_t nb)
{
	(void)objs;
	(void)nb;
	if (likely(!__atomic_load_n(&nb_fifos, __ATOMIC_RELAXED)))
		return 0;
	struct sl_worker *w = sl_node_worker(node);
	uint64_t now = rte_rdtsc();
	uint16_t total = 0;
	for (uint32_t p = 0; p < sl_if_hwm && total < RTE_GRAPH_BURST_SIZE; p++) {
		struct sl_noisy *c = __atomic_load_n(&sl_ifaces[p].noisy, __ATOMIC_ACQUIRE);
		if (!c || !c->fifo_size || !c->flush_tsc)
			continue;
		struct sl_noisy_worker *nw = &c->w[w->id];
		if (!nw->last_flush)
			nw->last_flush = now;
		if (now - nw->last_flush < c->flush_tsc)
			continue;
		uint16_t next = noisy_next((uint16_t)p);
		uint16_t room = RTE_GRAPH_BURST_SIZE - total;
		void **to = rte_node_next_stream_get(g, node, next, room);
		unsigned k = rte_ring_sc_dequeue_burst(nw->fifo, to, room, NULL);
		rte_node_next_stream_put(g, node, next, (uint16_t)k);
		total = (uint16_t)(total + k);
		if (rte_ring_empty(nw->fifo))
			nw->last_flush = now;
	}
	sl_source_busy(w, SL_SRC_NOISY_FIFO, total, now);
	return total;
}

static struct rte_node_register fifo_node = {
	.name = "noisy-fifo",
	.flags = RTE_NODE_SOURCE_F,
	.process = fifo_process,
	.init = sl_node_init,
	.nb_edges = SL_NB_MODES,
	.next_nodes = {SL_MODE_NODES},
};
SL_NODE_REGISTER(fifo_node)

/* ---------------- control ---------------- */

static void noisy_free(struct sl_noisy *c)
{
	for (uint16_t w = 0; c && w < c->nb_workers; w++) {
		void *m;
		while (c->w[w].fifo && rte_ring_sc_dequeue(c->w[w].fifo, &m) == 0) {
			sl_main_ctx->errors[noisy_err + NOISY_ERR_OFF]++;
			rte_pktmbuf_free(m);
		}
		rte_ring_free(c->w[w].fifo);
		rte_free(c->w[w].mem);
	}
	rte_free(c);
}

/* Unpublishes the interface's feature and frees it once no worker can be using it. */
static void noisy_off(struct sl_iface *f)
{
	struct sl_noisy *c = f->noisy;
	if (!c)
		return;
	__atomic_store_n(&f->noisy, NULL, __ATOMIC_RELEASE);
	if (c->fifo_size)
		__atomic_fetch_sub(&nb_fifos, 1, __ATOMIC_RELEASE);
	sl_rcu_sync(); /* then the packets it held are dropped and counted before we answer */
	noisy_free(c);
}

int sl_noisy_set(uint16_t ifx, const struct sl_noisy_params *p, char *why, size_t len)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	double mb = p->mb;
	uint32_t fifo = p->buffer;
	if (!mb && (p->reads || p->writes || p->rws)) {
		snprintf(why, len, "reads and writes need lookup-memory MB");
		return -EINVAL;
	}
	if (p->flush_ms && !fifo) {
		snprintf(why, len, "flush-time needs a buffer (FIFO) of packets");
		return -EINVAL;
	}
	uint16_t nwk = sl_nb_workers;
	struct sl_noisy *c = rte_zmalloc("noisy", sizeof(*c) + nwk * sizeof(c->w[0]),
					 RTE_CACHE_LINE_SIZE);
	if (!c) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	uint64_t lines = (uint64_t)(mb * 1024 * 1024) / RTE_CACHE_LINE_SIZE;
	*c = (struct sl_noisy){.load = {.lines = lines, .reads = p->reads, .writes = p->writes,
					.rws = p->rws,
					.model = p->testpmd ? SL_NOISY_TESTPMD : SL_NOISY_LINES},
			       .fifo_size = fifo,
			       .flush_tsc = p->flush_ms * rte_get_tsc_hz() / 1000, .mb = mb,
			       .flush_ms = p->flush_ms, .nb_workers = nwk};
	for (uint16_t w = 0; w < nwk; w++) {
		struct sl_noisy_worker *nw = &c->w[w];
		nw->rng = 0x9e3779b97f4a7c15ull * (w + 1) + f->port;
		int sock = (int)rte_lcore_to_socket_id(sl_workers[w].lcore);
		if (mb && !(nw->mem = rte_zmalloc_socket("noisy_mem", lines * RTE_CACHE_LINE_SIZE,
							 RTE_CACHE_LINE_SIZE, sock))) {
			noisy_free(c);
			snprintf(why, len, "cannot allocate %g MB of lookup memory for worker %u "
					   "(raise dpdk { socket-mem })", mb, w);
			return -ENOMEM;
		}
		char name[RTE_RING_NAMESIZE];
		snprintf(name, sizeof(name), "noisy_%u_%u_%p", f->port, w, (void *)c);
		if (fifo && !(nw->fifo = rte_ring_create(name, fifo, sock,
							 RING_F_SP_ENQ | RING_F_SC_DEQ |
								 RING_F_EXACT_SZ))) {
			noisy_free(c);
			snprintf(why, len, "cannot create a FIFO of %u packets", fifo);
			return -ENOMEM;
		}
	}
	noisy_off(f); /* a new setting replaces the old one */
	if (fifo)
		__atomic_fetch_add(&nb_fifos, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&f->noisy, c, __ATOMIC_RELEASE);
	return sl_feature_set(f->port, SL_ARC_DEVICE_INPUT, "noisy", true, why, len);
}

void sl_noisy_disable(uint16_t ifx)
{
	char why[8];
	sl_feature_set(ifx, SL_ARC_DEVICE_INPUT, "noisy", false, why, sizeof(why));
}

static int cmd_noisy(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: set interface noisy IFACE [lookup-memory MB] [reads N] "
			    "[writes N] [reads-writes N] [model lines|testpmd] "
			    "[buffer PACKETS [flush-time MS]] | disable";
	if (argc < 1)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	char why[160];
	if (argc == 2 && !strcmp(argv[1], "disable")) {
		sl_noisy_disable(f->port);
		return 0;
	}
	uint32_t reads = 0, writes = 0, rws = 0, fifo = 0, flush = 0;
	double mb = 0;
	uint8_t model = SL_NOISY_LINES;
	static const char *const keys[] = {"lookup-memory", "reads", "writes", "reads-writes",
					   "buffer", "flush-time"};
	static const uint32_t max[] = {65536, 100000, 100000, 100000, 1 << 20, 100000};
	uint32_t *vals[] = {NULL, &reads, &writes, &rws, &fifo, &flush};
	for (int i = 1; i < argc; i += 2) {
		int k = -1;
		for (int j = 0; j < 6; j++)
			if (!strcmp(argv[i], keys[j]))
				k = j;
		const char *a = i + 1 < argc ? argv[i + 1] : NULL;
		if (k < 0 && !strcmp(argv[i], "model")) {
			if (!a || (strcmp(a, "lines") && strcmp(a, "testpmd")))
				return sl_out_error(o, "model must be lines or testpmd, not '%s'",
						    a ? a : "");
			model = strcmp(a, "lines") ? SL_NOISY_TESTPMD : SL_NOISY_LINES;
			continue;
		}
		if (k < 0)
			return sl_out_error(o, "unknown option '%s'; %s", argv[i], usage);
		if (k == 0) { /* MB, fractions allowed (6.25 MB: what testpmd touches of 400) */
			char *end = NULL;
			mb = a ? strtod(a, &end) : -1;
			if (!a || *end || !(mb >= 1.0 / 16) || mb > max[0])
				return sl_out_error(o, "lookup-memory must be from 0.0625 to %u MB, not "
						       "'%s'", max[0], a ? a : "");
		} else if (sl_arg_u32(o, keys[k], a, 0, max[k], vals[k])) {
			return -1;
		}
	}
	struct sl_noisy_params np = {.mb = mb, .reads = reads, .writes = writes, .rws = rws,
				     .testpmd = model == SL_NOISY_TESTPMD, .buffer = fifo,
				     .flush_ms = flush};
	if (sl_noisy_set(f->port, &np, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}
SL_CLI_COMMAND(noisy, .path = "set interface noisy",
	       .usage = "IFACE [lookup-memory MB] [reads N] [writes N] [reads-writes N] "
			"[model lines|testpmd] [buffer PACKETS [flush-time MS]] | disable",
	       .help = "simulate a VNF's memory load and buffering on what IFACE receives",
	       .fn = cmd_noisy)

static int cmd_show_noisy(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "noisy", 9,
		     (const char *[]){"interface", "lookup-memory-mb:u", "reads:u", "writes:u",
				      "reads-writes:u", "model", "buffer:u", "flush-time-ms:u",
				      "held:u"});
	for (uint32_t p = 0; p < sl_if_hwm; p++) {
		const struct sl_noisy *c = sl_ifaces[p].noisy;
		if (!sl_ifaces[p].used || !c)
			continue;
		unsigned held = 0;
		for (uint16_t w = 0; w < c->nb_workers; w++)
			held += c->w[w].fifo ? rte_ring_count(c->w[w].fifo) : 0;
		char v[7][16];
		snprintf(v[0], 16, "%g", c->mb);
		snprintf(v[1], 16, "%u", c->load.reads);
		snprintf(v[2], 16, "%u", c->load.writes);
		snprintf(v[3], 16, "%u", c->load.rws);
		snprintf(v[4], 16, "%u", c->fifo_size);
		snprintf(v[5], 16, "%u", c->flush_ms);
		snprintf(v[6], 16, "%u", held);
		sl_tbl_row(o, sl_ifaces[p].name, v[0], v[1], v[2], v[3],
			   c->load.model == SL_NOISY_TESTPMD ? "testpmd" : "lines", v[4], v[5], v[6]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_noisy, .path = "show noisy", .usage = "",
	       .help = "interfaces with the noisy-VNF feature and packets held in their FIFOs",
	       .fn = cmd_show_noisy)

static void noisy_fini(void)
{
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		if (sl_ifaces[p].noisy) {
			noisy_free(sl_ifaces[p].noisy);
			sl_ifaces[p].noisy = NULL;
		}
}

/* An interface with the noisy feature (packets may wait in its FIFOs) is not deleted. */
static int noisy_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	if (commit || !f->noisy)
		return 0;
	snprintf(why, len, "%s has the noisy feature (set interface noisy %s disable)", f->name,
		 f->name);
	return 1;
}

/* The feature's hook: on needs the settings (set interface noisy), off drops them. */
static int noisy_hook(uint16_t ifx, bool on, char *why, size_t len)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	if (!on)
		noisy_off(f);
	else if (!f->noisy) {
		snprintf(why, len, "noisy needs its settings first: set interface noisy %s ...",
			 f->name);
		return -1;
	}
	return 0;
}

RTE_INIT(noisy_init)
{
	sl_iface_busy_register(noisy_busy);
	feat = sl_feature_register(SL_ARC_DEVICE_INPUT, "noisy", "noisy");
	sl_feature_also(SL_ARC_DEVICE_INPUT, feat, "noisy-fifo");
	sl_feature_hook(SL_ARC_DEVICE_INPUT, feat, noisy_hook);
}

SL_MODULE_REGISTER(noisy_module, .name = "noisy", .fini = noisy_fini)
