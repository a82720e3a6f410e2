/* SPDX-License-Identifier: BSD-3-Clause */
/* Workers, graphs and the main loop's helpers. */
#ifndef SL_RUNTIME_H
#define SL_RUNTIME_H

#include "../sluice.h"

extern volatile bool sl_quit;
int sl_runtime_init(uint16_t nb_graphs, const uint16_t *lcores);
int sl_runtime_clone_tx(void);
int sl_runtime_create_graphs(void);
/* The edge from node `from` to node `to`, added unless there (start-up only). */
rte_edge_t sl_edge_to(rte_node_t from, const char *to);
/* After a port was added: clones its port-tx, parks the workers, builds their graphs anew
 * (show runtime restarts from zero) and lets them go. Main lcore only. */
int sl_runtime_rebuild(void);
/* Launches the workers; when main_forwards, graph 0 runs on the main lcore. */
int sl_runtime_start(bool main_forwards);
void sl_runtime_main_turn(void);
unsigned sl_runtime_drain_punts(void (*fn)(struct rte_mbuf *m));
void sl_runtime_stop(void);
void sl_runtime_fini(void);

#endif
