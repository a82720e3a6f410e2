/* SPDX-License-Identifier: BSD-3-Clause */
/* Workers, graphs and the main loop's helpers. */
#ifndef SL_RUNTIME_H
#define SL_RUNTIME_H

#include "../sluice.h"

extern volatile bool sl_quit;

/* Modules: what a part of sluiced sets up, does on the main lcore, and takes down,
 * registered from its own file (SL_MODULE_REGISTER), so that main() names none of them. */
struct sl_config;
struct sl_module {
	const char *name;
	int (*init)(const struct sl_config *c); /* after the ports, before the graphs: 0 or -errno */
	void (*poll)(void);                     /* every turn of the main loop */
	void (*tick)(uint64_t now);             /* every 100 ms (now: rte_rdtsc) */
	void (*fini)(void);                     /* at exit, workers stopped, before the ports go */
	struct sl_module *next;
};
void sl_module_register(struct sl_module *m);
#define SL_MODULE_REGISTER(var, ...)                                                      \
	static struct sl_module var = {__VA_ARGS__};                                      \
	RTE_INIT(sl_module_##var)                                                         \
	{                                                                                 \
		sl_module_register(&var);                                                 \
	}
/* Each module's init in order of registration; on a failure, the module's name and -errno
 * (the modules already set up are taken down by sl_modules_fini). */
int sl_modules_init(const struct sl_config *c, const char **failed);
/* Runs each module's poll, and every 100 ms its tick; returns the TSC of the next tick. */
uint64_t sl_modules_poll(uint64_t now);
void sl_modules_fini(void);
int sl_runtime_init(uint16_t nb_graphs, const uint16_t *lcores);

/* RCU (one QSBR variable, sl_rcu; a worker reports a quiescent state after each graph walk,
 * which empties every stream). Whatever a worker may still be reading goes through these, on
 * the main lcore:
 *   sl_rcu_retire  fn(p, x) once every worker has passed a quiescent state: deferred, run by
 *                  the main loop's tick (sl_rcu_reclaim), at once after a wait when the queue
 *                  is full, and at exit before the modules go (sl_runtime_fini)
 *   sl_rcu_sync    waits for a grace period, for a change whose next step needs the old
 *                  state unread now (an index reused, a name created again, records reset) */
typedef void (*sl_retire_fn)(void *p, uintptr_t x);
void sl_rcu_retire(sl_retire_fn fn, void *p, uintptr_t x);
void sl_rcu_reclaim(void);
void sl_rcu_sync(void);
/* Retire functions for rte_malloc'ed and for malloc'ed memory. */
void sl_rcu_rte_free(void *p, uintptr_t x);
void sl_rcu_free(void *p, uintptr_t x);
/* TSC cycles in microseconds. */
double sl_tsc_us(uint64_t cycles);
int sl_runtime_clone_tx(void);
int sl_runtime_create_graphs(void);
/* The edge from node `from` to node `to`, added unless there (start-up only). */
rte_edge_t sl_edge_to(rte_node_t from, const char *to);
/* Launches the workers; when main_forwards, graph 0 runs on the main lcore. */
int sl_runtime_start(bool main_forwards);
/* Between sl_runtime_start and sl_runtime_stop: workers may be in their graphs. */
extern volatile bool sl_workers_running;
void sl_runtime_main_turn(void);
unsigned sl_runtime_drain_punts(void (*fn)(struct rte_mbuf *m));
/* For a CLI command that waits on the data plane (ping): one turn of the main lcore's work
 * but the CLI's own (graph 0's walk when the main lcore forwards, the punts, the ticks). */
void sl_main_service(void);
void sl_runtime_stop(void);
void sl_runtime_fini(void);

/* The main lcore sleeps in poll() until the next tick, a CLI client, or work from a worker:
 * a worker that hands it something through a ring (a punt, a learnt MAC) calls
 * sl_main_wake() after the enqueue, and the first one while it sleeps writes sl_main_efd.
 * The main lcore sets sl_main_asleep, then drains the rings once more, then sleeps: the
 * fences on both sides make sure that an enqueue is either drained or wakes it. */
extern uint32_t sl_main_asleep;
/* unix { poll-sleep-usec N }: a worker sleeps N us after a walk that moved no packet (0: never) */
extern uint32_t sl_poll_sleep_us;
/* unix { poll-yield }: a worker gives up its core (sched_yield) after every walk, so that
 * workers sharing a core take turns walk by walk rather than by the kernel's time slices */
extern bool sl_poll_yield;
extern int sl_main_efd;
void sl_main_wake_slow(void);
static inline void sl_main_wake(void)
{
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST); /* the enqueue, then the look at the flag */
	if (unlikely(__atomic_load_n(&sl_main_asleep, __ATOMIC_RELAXED)))
		sl_main_wake_slow();
}

#endif
