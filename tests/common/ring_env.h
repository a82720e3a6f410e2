/* SPDX-License-Identifier: BSD-3-Clause */
/* A test router on two ring-backed ports (see ring_env.c). */
#ifndef SL_RING_ENV_H
#define SL_RING_ENV_H

#include <stdbool.h>
#include <rte_ring.h>

extern struct rte_ring *env_rx[2], *env_tx[2];  /* port P's rx (we enqueue) and tx rings */
extern struct rte_ring *env_rx0_q1;             /* port0's second rx queue */
extern uint32_t env_max_routes;                 /* set before env_init */
extern const char *env_mem_mb;
extern uint16_t env_graphs;                     /* graphs, all walked by the caller */
int env_init(const char *prog, const char *prefix);
int env_cli(const char *line, bool quiet);
void env_walk(int n);
void env_walk_worker(int w, int n);
void env_fini(void);

#endif
