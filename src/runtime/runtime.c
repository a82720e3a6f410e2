/* SPDX-License-Identifier: BSD-3-Clause */
/* Workers and their graphs: creation, the run-to-completion loop, RCU reporting, and the
 * runtime CLI (show runtime, show errors, show threads). */
#include "runtime.h"
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "trace.h"
#include "feature.h"

#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <rte_interrupts.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_version.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

struct sl_worker sl_workers[SL_MAX_WORKERS + 1];
struct sl_worker *sl_graph_creating;
uint16_t sl_nb_workers;
uint32_t sl_poll_sleep_us;
bool sl_poll_yield;
struct rte_rcu_qsbr *sl_rcu;
volatile bool sl_quit;

int sl_node_init(const struct rte_graph *graph, struct rte_node *node)
{
	(void)graph;
	*(struct sl_worker **)node->ctx = sl_graph_creating;
	return 0;
}


uint64_t sl_flag_trace, sl_flag_fib, sl_flag_qos;
bool sl_flow_rss;

int sl_meta_register(void)
{
	static const struct rte_mbuf_dynfield f = {
		.name = "sluice_meta2", .size = sizeof(struct sl_meta2), .align = 8};
	static const struct rte_mbuf_dynflag trace = {.name = "sluice_trace"};
	static const struct rte_mbuf_dynflag fib = {.name = "sluice_fib"};
	static const struct rte_mbuf_dynflag qos = {.name = "sluice_qos"};
	if (rte_mbuf_dynfield_register_offset(&f, SL_META2_OFF) != (int)SL_META2_OFF) {
		fprintf(stderr, "sluiced: mbuf dynamic field at %zu taken: %s\n", SL_META2_OFF,
			rte_strerror(rte_errno));
		return -EBUSY;
	}
	int t = rte_mbuf_dynflag_register(&trace), b = rte_mbuf_dynflag_register(&fib);
	int q = rte_mbuf_dynflag_register(&qos);
	if (t < 0 || b < 0 || q < 0)
		return -ENOSPC;
	sl_flag_qos = 1ull << q;
	sl_flag_trace = 1ull << t;
	sl_flag_fib = 1ull << b;
	return 0;
}

/* ---------------- RCU ---------------- */

struct retire_el {
	sl_retire_fn fn;
	void *p;
	uintptr_t x;
};
static struct rte_rcu_qsbr_dq *retire_dq;

static void retire_run(void *ctx, void *e, unsigned int n)
{
	(void)ctx;
	struct retire_el *el = e;
	for (unsigned i = 0; i < n; i++)
		el[i].fn(el[i].p, el[i].x);
}

void sl_rcu_sync(void)
{
	rte_rcu_qsbr_synchronize(sl_rcu, RTE_QSBR_THRID_INVALID);
}

/* DPDK 22.11's memif PMD tears a connection down in the EAL interrupt thread when its peer
 * goes (memif_disconnect): it clears the port's connected flag, then unmaps the shared
 * regions at once, while a worker (or the main lcore forwarding) may be inside
 * rte_eth_rx_burst or tx_burst on them: a SIGSEGV in either role, seen in the test suite.
 * sluiced's executable defines munmap, which the PMD's call resolves to: from the interrupt
 * thread it first waits for a grace period, by which every burst begun before the flag was
 * cleared has ended (the forwarding threads report a quiescent state after each walk) and
 * every later one returns at the flag. Any other caller (the main lcore closing a port with
 * the workers stopped, the EAL) unmaps at once. */
static unsigned munmap_waiting; /* interrupt-thread munmaps inside a grace period */

int munmap(void *addr, size_t len)
{
	if (rte_thread_is_intr()) {
		/* announce first, then load: sl_runtime_fini clears sl_rcu, then waits for
		 * munmap_waiting to fall to 0 before freeing it (both sides sequentially
		 * consistent, so one of them sees the other) */
		__atomic_add_fetch(&munmap_waiting, 1, __ATOMIC_SEQ_CST);
		struct rte_rcu_qsbr *q = __atomic_load_n(&sl_rcu, __ATOMIC_SEQ_CST);
		if (q)
			rte_rcu_qsbr_synchronize(q, RTE_QSBR_THRID_INVALID);
		__atomic_sub_fetch(&munmap_waiting, 1, __ATOMIC_RELEASE);
	}
	return (int)syscall(SYS_munmap, addr, len);
}

void sl_rcu_retire(sl_retire_fn fn, void *p, uintptr_t x)
{
	struct retire_el el = {fn, p, x};
	if (!retire_dq || rte_rcu_qsbr_dq_enqueue(retire_dq, &el)) {
		sl_rcu_sync(); /* full (or not set up): wait here instead */
		fn(p, x);
	}
}

void sl_rcu_reclaim(void)
{
	if (retire_dq)
		rte_rcu_qsbr_dq_reclaim(retire_dq, ~0u, NULL, NULL, NULL);
}

void sl_rcu_rte_free(void *p, uintptr_t x)
{
	(void)x;
	rte_free(p);
}

void sl_rcu_free(void *p, uintptr_t x)
{
	(void)x;
	free(p);
}

int sl_runtime_init(uint16_t nb_graphs, const uint16_t *lcores)
{
	sl_nb_workers = nb_graphs;
	if (sl_meta_register())
		return -EBUSY;
	sl_main_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sl_main_efd < 0)
		return -errno;
	size_t sz = rte_rcu_qsbr_get_memsize(nb_graphs);
	sl_rcu = rte_zmalloc("sl_rcu", sz, RTE_CACHE_LINE_SIZE);
	if (!sl_rcu || rte_rcu_qsbr_init(sl_rcu, nb_graphs))
		return -ENOMEM;
	for (uint16_t w = 0; w < nb_graphs; w++) {
		struct sl_worker *wk = &sl_workers[w];
		char name[32];
		wk->id = w;
		wk->lcore = lcores[w];
		wk->rcu_id = w;
		snprintf(name, sizeof(name), "sl_punt_%u", w);
		wk->punt = rte_ring_create(name, SL_PUNT_RING_SIZE, SOCKET_ID_ANY,
					   RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!wk->punt)
			return -ENOMEM;
		rte_rcu_qsbr_thread_register(sl_rcu, w);
	}
	struct rte_rcu_qsbr_dq_parameters dp = {
		.name = "sl_retire", .size = 1 << 16, .esize = sizeof(struct retire_el),
		.trigger_reclaim_limit = 256, .max_reclaim_size = 1024, .free_fn = retire_run,
		.v = sl_rcu,
	};
	if (!(retire_dq = rte_rcu_qsbr_dq_create(&dp)))
		return -ENOMEM;
	sl_main_ctx->id = UINT16_MAX;
	return 0;
}

/* Clones port-tx for every port that has none yet; graphs created afterwards see them. */
int sl_runtime_clone_tx(void)
{
	for (int p = 0; p < SL_MAX_PORTS; p++) {
		if (!sl_ifaces[p].used)
			break;
		char name[16], full[RTE_NODE_NAMESIZE];
		snprintf(name, sizeof(name), "%d", p);
		snprintf(full, sizeof(full), "port-tx-%d", p);
		if (rte_node_from_name(full) != RTE_NODE_ID_INVALID)
			continue;
		if (rte_node_clone(sl_tx_node_id(), name) == RTE_NODE_ID_INVALID)
			return -ENOMEM;
	}
	for (int p = 1; p < SL_MAX_PORTS; p++)
		if (sl_ifaces[p].used && !sl_ifaces[p - 1].used) {
			fprintf(stderr, "sluiced: ports must be numbered without gaps\n");
			return -EINVAL;
		}
	sl_iface_sync_tx_edges();
	return 0;
}

/* ---- modules ---- */

static struct sl_module *modules; /* in order of registration */
static struct sl_module **modules_tail = &modules;

void sl_module_register(struct sl_module *m)
{
	m->next = NULL;
	*modules_tail = m;
	modules_tail = &m->next;
}

int sl_modules_init(const struct sl_config *c, const char **failed)
{
	for (struct sl_module *m = modules; m; m = m->next) {
		int rc = m->init ? m->init(c) : 0;
		if (rc) {
			*failed = m->name;
			return rc < 0 ? rc : -EINVAL;
		}
	}
	return 0;
}

uint64_t sl_modules_poll(uint64_t now)
{
	static uint64_t next_tick;
	bool tick = now >= next_tick;
	if (tick) {
		next_tick = now + rte_get_tsc_hz() / 10;
		sl_rcu_reclaim();
	}
	for (struct sl_module *m = modules; m; m = m->next) {
		if (m->poll)
			m->poll();
		if (tick && m->tick)
			m->tick(now);
	}
	return next_tick;
}

uint32_t sl_main_asleep;
int sl_main_efd = -1;

void sl_main_wake_slow(void)
{
	if (__atomic_exchange_n(&sl_main_asleep, 0, __ATOMIC_ACQ_REL)) {
		uint64_t one = 1;
		ssize_t r = write(sl_main_efd, &one, sizeof(one));
		(void)r; /* a full counter (it cannot be) still leaves the fd readable */
	}
}

void sl_modules_fini(void)
{
	struct sl_module *v[64];
	int n = 0;
	for (struct sl_module *m = modules; m && n < 64; m = m->next)
		v[n++] = m;
	while (n-- > 0) /* the reverse order */
		if (v[n]->fini)
			v[n]->fini();
}

/* Graph members: the nodes registered with SL_NODE_REGISTER, then port-tx-P's clones. */
#define SL_MAX_MEMBERS 128
static const char *members[SL_MAX_MEMBERS];
static uint32_t nb_members;
static struct sl_dispatch *dispatches;

void sl_graph_member(const char *node_name)
{
	RTE_VERIFY(nb_members < SL_MAX_MEMBERS - 1);
	members[nb_members++] = node_name;
}

void sl_dispatch_register(struct sl_dispatch *d, uint32_t key, const char *to)
{
	RTE_VERIFY(key < d->nkeys && d->n < SL_DISPATCH_MAX);
	if (d->n == 0) {
		d->link = dispatches;
		dispatches = d;
	}
	d->reg[d->n].key = key;
	d->reg[d->n++].to = to;
}

int sl_dispatch_alias(struct sl_dispatch *d, uint32_t key, uint32_t like)
{
	if (key >= d->nkeys || sl_dispatch_name(d, key) || d->next[key] != 0)
		return -EEXIST;
	__atomic_store_n(&d->next[key], d->next[like], __ATOMIC_RELEASE);
	return 0;
}

void sl_dispatch_unalias(struct sl_dispatch *d, uint32_t key)
{
	if (key < d->nkeys && !sl_dispatch_name(d, key))
		__atomic_store_n(&d->next[key], 0, __ATOMIC_RELEASE);
}

const char *sl_dispatch_name(const struct sl_dispatch *d, uint32_t key)
{
	for (uint16_t i = d->n; i-- > 0;)
		if (d->reg[i].key == key)
			return d->reg[i].to;
	return NULL;
}

rte_edge_t sl_edge_to(rte_node_t from, const char *to)
{
	rte_edge_t n = rte_node_edge_count(from);
	char **names = malloc(sizeof(char *) * (n + 1));
	RTE_VERIFY(names);
	rte_node_edge_get(from, names);
	rte_edge_t e;
	for (e = 0; e < n && strcmp(names[e], to); e++)
		;
	free(names);
	if (e == n) {
		const char *nn[] = {to};
		RTE_VERIFY(rte_node_edge_update(from, RTE_EDGE_ID_INVALID, nn, 1) == 1);
	}
	return e;
}

static void dispatch_resolve(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	for (struct sl_dispatch *d = dispatches; d; d = d->link) {
		rte_node_t id = rte_node_from_name(d->from);
		RTE_VERIFY(id != RTE_NODE_ID_INVALID);
		for (uint16_t i = 0; i < d->n; i++) /* a later registration of a key wins */
			d->next[d->reg[i].key] = sl_edge_to(id, d->reg[i].to);
	}
	sl_feature_resolve();
}

static int create_graphs(void)
{
	dispatch_resolve();
	if (rte_node_max_count() > SL_NODE_IDS) {
		fprintf(stderr, "sluiced: %u nodes, more than the %u the walk times\n",
			rte_node_max_count(), SL_NODE_IDS);
		return -E2BIG;
	}
	members[nb_members] = "port-tx-*"; /* matches nothing without ports: left out then */
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		struct sl_worker *wk = &sl_workers[w];
		struct rte_graph_param gp = {
			.socket_id = (int)rte_lcore_to_socket_id(wk->lcore),
			.nb_node_patterns = nb_members + !!sl_ifaces[0].used,
			.node_patterns = members,
		};
		char name[RTE_GRAPH_NAMESIZE];
		snprintf(name, sizeof(name), "worker%u", w);
		sl_graph_creating = wk;
		wk->graph_id = rte_graph_create(name, &gp);
		sl_graph_creating = NULL;
		if (wk->graph_id == RTE_GRAPH_ID_INVALID) {
			fprintf(stderr, "sluiced: cannot create graph %s: %s\n", name,
				rte_strerror(rte_errno));
			return -EINVAL;
		}
		wk->graph = rte_graph_lookup(name);
	}
	sl_trace_graphs_rebuilt();
	return 0;
}

int sl_runtime_create_graphs(void)
{
	int rc = create_graphs();
	return rc ? rc : sl_iface_publish_rx();
}

static void runtime_walk(struct sl_out *o, bool clear);

/* rte_graph_walk (DPDK 22.11's, with its statistics), keeping each node's longest call as
 * well: a stall in show runtime has a node (VPP's "max clocks" per node). Returns the
 * objects the nodes' calls returned (0: the walk moved nothing). */
static inline uint32_t graph_walk(struct rte_graph *graph, uint64_t *node_max)
{
	uint32_t moved = 0;
	const rte_graph_off_t *cir_start = graph->cir_start;
	const rte_node_t mask = graph->cir_mask;
	uint32_t head = graph->head;
	while (likely(head != graph->tail)) {
		struct rte_node *node = RTE_PTR_ADD(graph, cir_start[(int32_t)head++]);
		void **objs = node->objs;
		rte_prefetch0(objs);
		uint64_t start = rte_rdtsc();
		uint16_t rc = node->process(graph, node, objs, node->idx);
		uint64_t d = rte_rdtsc() - start;
		node->total_cycles += d;
		node->total_calls++;
		node->total_objs += rc;
		moved += rc;
		rte_node_t id = node->id & (SL_NODE_IDS - 1); /* checked at creation; never out */
		if (unlikely(d > node_max[id]))
			node_max[id] = d;
		node->idx = 0;
		head = likely((int32_t)head > 0) ? head & mask : head;
	}
	graph->tail = 0;
	return moved;
}

/* One loop turn of a worker: walk the graph, then report a quiescent state; with
 * poll-sleep-usec, sleep after a walk that moved nothing. */
static inline void worker_turn(struct sl_worker *wk)
{
	uint32_t moved = graph_walk(wk->graph, wk->turns.node_max);
	rte_rcu_qsbr_quiescent(sl_rcu, wk->rcu_id);
	if (unlikely(sl_poll_sleep_us) && !moved)
		rte_delay_us_sleep(sl_poll_sleep_us);
	else if (unlikely(sl_poll_yield))
		sched_yield();
}

static int worker_main(void *arg)
{
	struct sl_worker *wk = arg;
	rte_rcu_qsbr_thread_online(sl_rcu, wk->rcu_id);
	if (sl_poll_sleep_us) /* sleep what was asked, not the default 50 us of slack more */
		prctl(PR_SET_TIMERSLACK, 1000UL);
	while (!wk->quit) {
		worker_turn(wk);
	}
	rte_rcu_qsbr_thread_offline(sl_rcu, wk->rcu_id);
	return 0;
}

volatile bool sl_workers_running;

static bool main_fwd; /* graph 0 runs on the main lcore (sl_runtime_main_turn) */

void sl_main_service(void)
{
	if (main_fwd)
		sl_runtime_main_turn();
	sl_runtime_drain_punts(sl_punt);
	sl_modules_poll(rte_rdtsc());
}

int sl_runtime_start(bool main_forwards)
{
	main_fwd = main_forwards;
	for (uint16_t w = main_forwards ? 1 : 0; w < sl_nb_workers; w++)
		if (rte_eal_remote_launch(worker_main, &sl_workers[w], sl_workers[w].lcore))
			return -EBUSY;
	sl_workers_running = true;
	return 0;
}

void sl_runtime_stop(void)
{
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		sl_workers[w].quit = true;
	rte_eal_mp_wait_lcore();
	sl_workers_running = false;
}

void sl_runtime_main_turn(void)
{
	rte_rcu_qsbr_thread_online(sl_rcu, 0);
	for (int i = 0; i < 64; i++)
		worker_turn(&sl_workers[0]);
	rte_rcu_qsbr_thread_offline(sl_rcu, 0);
}

unsigned sl_runtime_drain_punts(void (*fn)(struct rte_mbuf *m))
{
	unsigned total = 0;
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		void *m[32];
		unsigned k = rte_ring_sc_dequeue_burst(sl_workers[w].punt, m, 32, NULL);
		for (unsigned i = 0; i < k; i++)
			fn(m[i]);
		total += k;
	}
	return total;
}

void sl_runtime_fini(void)
{
	/* the workers are stopped: every grace period is over; what was retired goes now,
	 * before the modules that own it */
	if (retire_dq) {
		rte_rcu_qsbr_dq_delete(retire_dq);
		retire_dq = NULL;
	}
	sl_trace_fini();
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		void *m;
		while (sl_workers[w].punt && rte_ring_sc_dequeue(sl_workers[w].punt, &m) == 0)
			rte_pktmbuf_free(m);
		if (sl_workers[w].graph_id != RTE_GRAPH_ID_INVALID && sl_workers[w].graph)
			rte_graph_destroy(sl_workers[w].graph_id);
		rte_free(sl_workers[w].rxqs);
	}
	struct rte_rcu_qsbr *q = sl_rcu;
	__atomic_store_n(&sl_rcu, NULL, __ATOMIC_SEQ_CST); /* munmap no longer waits on it */
	while (__atomic_load_n(&munmap_waiting, __ATOMIC_ACQUIRE)) /* nor is one still in it */
		rte_pause();
	rte_free(q);
	if (sl_main_efd >= 0)
		close(sl_main_efd);
	sl_main_efd = -1;
}

/* ---------------- CLI ---------------- */

/* Baselines subtracted by "clear runtime" (rte_graph's counters cannot be reset). */
struct node_base {
	char name[RTE_NODE_NAMESIZE];
	uint64_t calls, objs, cycles;
};
static struct node_base *bases[SL_MAX_WORKERS];
static uint16_t nbases[SL_MAX_WORKERS];

struct rt_ctx {
	struct sl_out *o;
	uint16_t w;
	bool clear;
	uint64_t tot_objs_rx, tot_cycles;
};

static struct node_base *base_of(uint16_t w, const char *name, bool create)
{
	for (uint16_t i = 0; i < nbases[w]; i++)
		if (!strcmp(bases[w][i].name, name))
			return &bases[w][i];
	if (!create)
		return NULL;
	struct node_base *nb = realloc(bases[w], (nbases[w] + 1) * sizeof(*nb));
	if (!nb)
		return NULL;
	bases[w] = nb;
	memset(&nb[nbases[w]], 0, sizeof(*nb));
	snprintf(nb[nbases[w]].name, sizeof(nb->name), "%s", name);
	return &nb[nbases[w]++];
}

static int rt_cb(bool first, bool last, void *cookie,
		 const struct rte_graph_cluster_node_stats *st)
{
	struct rt_ctx *c = cookie;
	(void)first;
	(void)last;
	struct node_base *b = base_of(c->w, st->name, c->clear);
	uint64_t calls = st->calls, objs = st->objs, cyc = st->cycles;
	const struct sl_worker *w = &sl_workers[c->w];
	bool source = false;
	static const char *const sources[SL_NB_SOURCES] = {SL_SOURCE_NAMES};
	for (int i = 0; i < SL_NB_SOURCES; i++)
		if (!strcmp(st->name, sources[i])) {
			/* empty polls are idle time, not work: the source nodes time their busy
			 * calls themselves (the graph's own count would charge the overhead of
			 * millions of empty polls to the packets) */
			calls = w->busy[i].calls;
			cyc = w->busy[i].cycles;
			/* noisy-fifo's and qos-sched's packets were received once already */
			source = i != SL_SRC_NOISY_FIFO && i != SL_SRC_QOS;
		}
	if (b && c->clear) {
		b->calls = calls;
		b->objs = objs;
		b->cycles = cyc;
		return 0;
	}
	if (b) {
		calls -= b->calls;
		objs -= b->objs;
		cyc -= b->cycles;
	}
	if (calls == 0)
		return 0;
	char v[7][24];
	rte_node_t id = rte_node_from_name(st->name);
	snprintf(v[6], 24, "%.1f",
		 id < SL_NODE_IDS ? sl_tsc_us(w->turns.node_max[id]) : 0.0);
	snprintf(v[0], 24, "%u", c->w);
	snprintf(v[1], 24, "%" PRIu64, calls);
	snprintf(v[2], 24, "%" PRIu64, objs);
	snprintf(v[3], 24, "%.2f", (double)objs / (double)calls);
	snprintf(v[4], 24, "%.1f", objs ? (double)cyc / (double)objs : 0.0);
	snprintf(v[5], 24, "%" PRIu64, cyc);
	sl_tbl_row(c->o, v[0], st->name, v[1], v[2], v[3], v[4], v[5], v[6]);
	if (source)
		c->tot_objs_rx += objs;
	c->tot_cycles += cyc;
	return 0;
}

double sl_tsc_us(uint64_t cycles)
{
	return (double)cycles * 1e6 / (double)rte_get_tsc_hz();
}

/* The stall fields: each worker's turns from one port-rx call to the next (the time its RX
 * queues wait between polls), the longest, and how many fell in each power-of-two range. */
static void turns_show(struct sl_out *o)
{
	char c[5][32];
	sl_tbl_begin(o, "turns", 5,
		     (const char *[]){"worker:u", "turns:u", "longest-us:u", "longest-call-us:u",
				      "longest-call-node"});
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		const struct sl_turns *t = &sl_workers[w].turns;
		rte_node_t top = 0;
		for (rte_node_t id = 1; id < SL_NODE_IDS; id++)
			top = t->node_max[id] > t->node_max[top] ? id : top;
		const char *name = t->node_max[top] ? rte_node_id_to_name(top) : NULL;
		snprintf(c[0], 32, "%u", w);
		snprintf(c[1], 32, "%" PRIu64, t->n);
		snprintf(c[2], 32, "%.1f", sl_tsc_us(t->max));
		snprintf(c[3], 32, "%.1f", sl_tsc_us(t->node_max[top]));
		sl_tbl_row(o, c[0], c[1], c[2], c[3], name ? name : "-");
	}
	sl_tbl_end(o);
	sl_tbl_begin(o, "turn-histogram", 4,
		     (const char *[]){"worker:u", "from-us:u", "to-us:u", "turns:u"});
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		const struct sl_turns *t = &sl_workers[w].turns;
		for (unsigned b = 0; b < SL_TURN_BUCKETS; b++) {
			uint64_t k = t->hist[b];
			if (!k)
				continue;
			uint64_t lo = b ? 1ull << (SL_TURN_SHIFT0 + b - 1) : 0;
			uint64_t hi = b < SL_TURN_BUCKETS - 1 ? 1ull << (SL_TURN_SHIFT0 + b)
							       : RTE_MAX(t->max, lo);
			snprintf(c[0], 32, "%u", w);
			snprintf(c[1], 32, "%.2f", sl_tsc_us(lo));
			snprintf(c[2], 32, "%.2f", sl_tsc_us(hi));
			snprintf(c[3], 32, "%" PRIu64, k);
			sl_tbl_row(o, c[0], c[1], c[2], c[3]);
		}
	}
	sl_tbl_end(o);
}

static void runtime_walk(struct sl_out *o, bool clear)
{
	if (!clear)
		sl_tbl_begin(o, "runtime", 8,
			     (const char *[]){"worker:u", "node", "calls:u", "vectors:u",
					      "vectors/call:u", "clocks/packet:u", "clocks:u",
					      "max-call-us:u"});
	struct rt_ctx c = {.o = o, .clear = clear};
	char summary[SL_MAX_WORKERS][3][24];
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		char gname[RTE_GRAPH_NAMESIZE];
		snprintf(gname, sizeof(gname), "worker%u", w);
		const char *pat[] = {gname};
		struct rte_graph_cluster_stats_param sp = {
			.socket_id = SOCKET_ID_ANY, .fn = rt_cb, .cookie = &c,
			.nb_graph_patterns = 1, .graph_patterns = pat,
		};
		struct rte_graph_cluster_stats *s = rte_graph_cluster_stats_create(&sp);
		if (!s)
			continue;
		c.w = w;
		c.tot_objs_rx = c.tot_cycles = 0;
		rte_graph_cluster_stats_get(s, false);
		rte_graph_cluster_stats_destroy(s);
		snprintf(summary[w][0], 24, "%u", w);
		snprintf(summary[w][1], 24, "%" PRIu64, c.tot_objs_rx);
		snprintf(summary[w][2], 24, "%.1f",
			 c.tot_objs_rx ? (double)c.tot_cycles / (double)c.tot_objs_rx : 0.0);
	}
	if (clear) {
		for (uint16_t w = 0; w < sl_nb_workers; w++)
			sl_workers[w].turns.clear = true; /* the worker zeroes its own */
		return;
	}
	sl_tbl_end(o);
	sl_tbl_begin(o, "workers", 3,
		     (const char *[]){"worker:u", "rx-packets:u", "busy-clocks/packet:u"});
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		sl_tbl_row(o, summary[w][0], summary[w][1], summary[w][2]);
	sl_tbl_end(o);
	turns_show(o);
}

static int cmd_show_runtime(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	runtime_walk(o, false);
	return 0;
}
SL_CLI_COMMAND(show_runtime, .path = "show runtime", .usage = "",
	       .help = "per worker and node: calls, vectors, vectors/call, clocks/packet; per "
		       "worker the loop's turns between two port-rx polls: the longest and a "
		       "histogram",
	       .fn = cmd_show_runtime)

/* show graph: worker 0's nodes with their edges, then what each dispatcher was given. */
static int cmd_show_graph(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show graph");
	if (sl_nb_workers == 0 || !sl_workers[0].graph)
		return sl_out_error(o, "no graph");
	sl_tbl_begin(o, "nodes", 3, (const char *[]){"node", "edges:u", "next-nodes"});
	for (rte_node_t id = 0; id < rte_node_max_count(); id++) {
		if (!rte_graph_node_get(sl_workers[0].graph_id, id))
			continue;
		rte_edge_t n = rte_node_edge_count(id);
		char **names = malloc(sizeof(char *) * (n + 1)), cnt[8];
		size_t cap = 64 + (size_t)n * RTE_NODE_NAMESIZE, len = 0;
		char *list = malloc(cap);
		if (!names || !list) {
			free(names);
			free(list);
			return sl_out_error(o, "out of memory");
		}
		list[0] = 0;
		rte_node_edge_get(id, names);
		for (rte_edge_t e = 0; e < n; e++)
			len += (size_t)snprintf(list + len, cap - len, "%s%s", e ? " " : "", names[e]);
		snprintf(cnt, sizeof(cnt), "%u", n);
		sl_tbl_row(o, rte_node_id_to_name(id), cnt, list);
		free(names);
		free(list);
	}
	sl_tbl_end(o);
	sl_tbl_begin(o, "dispatch", 3, (const char *[]){"node", "key", "next-node"});
	for (struct sl_dispatch *d = dispatches; d; d = d->link)
		for (uint16_t i = 0; i < d->n; i++) {
			char key[24];
			uint32_t k = d->reg[i].key;
			if (d->key_be16)
				k = rte_be_to_cpu_16((uint16_t)k);
			if (d->key_names)
				snprintf(key, sizeof(key), "%s", d->key_names[k]);
			else
				snprintf(key, sizeof(key), d->key_hex ? "0x%04x" : "%u", k);
			sl_tbl_row(o, d->from, key, d->reg[i].to);
		}
	sl_tbl_end(o);
	sl_feature_show(o);
	return 0;
}
SL_CLI_COMMAND(show_graph, .path = "show graph", .usage = "",
	       .help = "the nodes of a worker's graph and their edges, what each dispatching "
		       "node sends where (ethertype, IP protocol, UDP port, adjacency), and the "
		       "feature arcs",
	       .fn = cmd_show_graph)

static int cmd_clear_runtime(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	runtime_walk(o, true);
	return 0;
}
SL_CLI_COMMAND(clear_runtime, .path = "clear runtime", .usage = "",
	       .help = "restart the runtime counters", .fn = cmd_clear_runtime)

static uint64_t err_base[SL_MAX_ERRORS];

static int cmd_show_errors(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "errors", 3, (const char *[]){"count:u", "node", "reason"});
	for (uint16_t e = 0; e < sl_nb_errors; e++) {
		uint64_t sum = 0;
		for (int w = 0; w <= SL_MAX_WORKERS; w++)
			sum += sl_workers[w].errors[e];
		sum -= err_base[e];
		if (!sum)
			continue;
		char v[24];
		snprintf(v, sizeof(v), "%" PRIu64, sum);
		sl_tbl_row(o, v, sl_errors[e].node, sl_errors[e].reason);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_errors, .path = "show errors", .usage = "",
	       .help = "packets counted per node and reason (drops and events)",
	       .fn = cmd_show_errors)

static int cmd_clear_errors(struct sl_out *o, int argc, char **argv)
{
	(void)o;
	(void)argc;
	(void)argv;
	for (uint16_t e = 0; e < sl_nb_errors; e++) {
		uint64_t sum = 0;
		for (int w = 0; w <= SL_MAX_WORKERS; w++)
			sum += sl_workers[w].errors[e];
		err_base[e] = sum;
	}
	return 0;
}
SL_CLI_COMMAND(clear_errors, .path = "clear errors", .usage = "",
	       .help = "zero the error counters", .fn = cmd_clear_errors)

static int cmd_show_threads(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "threads", 4, (const char *[]){"id:u", "name", "lcore:u", "rx-queues:u"});
	char id[8], lc[8], nq[8];
	snprintf(lc, sizeof(lc), "%u", rte_get_main_lcore());
	sl_tbl_row(o, "0", "main", lc, sl_workers[0].lcore == rte_get_main_lcore() ? "all" : "0");
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		if (sl_workers[w].lcore == rte_get_main_lcore())
			continue;
		char name[16];
		snprintf(id, sizeof(id), "%u", w + 1);
		snprintf(name, sizeof(name), "worker%u", w);
		snprintf(lc, sizeof(lc), "%u", sl_workers[w].lcore);
		snprintf(nq, sizeof(nq), "%u", sl_workers[w].rxqs ? sl_workers[w].rxqs->n : 0);
		sl_tbl_row(o, id, name, lc, nq);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_threads, .path = "show threads", .usage = "",
	       .help = "main and worker threads with their lcores", .fn = cmd_show_threads)

static int cmd_show_memory(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct rte_malloc_socket_stats st = {0};
	char v[3][24];
	size_t alloc = 0, count = 0, free_sz = 0;
	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0) {
			alloc += st.heap_allocsz_bytes;
			free_sz += st.heap_freesz_bytes;
			count += st.alloc_count;
		}
	snprintf(v[0], 24, "%zu", alloc);
	snprintf(v[1], 24, "%zu", count);
	snprintf(v[2], 24, "%zu", free_sz);
	sl_tbl_begin(o, "memory", 3, (const char *[]){"allocated:u", "allocations:u", "free:u"});
	sl_tbl_row(o, v[0], v[1], v[2]);
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_memory, .path = "show memory", .usage = "",
	       .help = "DPDK heap: bytes allocated, allocations, bytes free", .fn = cmd_show_memory)

static int cmd_show_version(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "version", 2, (const char *[]){"sluice", "dpdk"});
	sl_tbl_row(o, SL_VERSION, rte_version());
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_version, .path = "show version", .usage = "",
	       .help = "versions of sluiced and DPDK", .fn = cmd_show_version)

static int cmd_exec(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: exec FILE");
	return sl_cli_exec_file(o, argv[0]);
}
SL_CLI_COMMAND(exec, .path = "exec", .usage = "FILE", .help = "run the commands of a file",
	       .fn = cmd_exec)
