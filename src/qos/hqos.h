/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical QoS (rte_sched) on interfaces' output: src/qos/hqos.c. */
#ifndef SL_HQOS_H
#define SL_HQOS_H

#include <stdint.h>

/* QoS profiles defined, and interfaces with a scheduler (the CLI fuzzer's witnesses). */
uint32_t sl_qos_profile_count(void);
uint32_t sl_qos_applied(void);

/* Control (main lcore). The scheduler's size on interface ifx (-ENOENT: it has none); pipe p
 * of subport s gets profile NAME (NULL: the interface's own), run by the scheduling worker
 * between two walks: 0, or -1 with the reason in o. */
struct sl_out;
int sl_qos_pipes(uint16_t ifx, uint32_t *subports, uint32_t *pipes);
int sl_qos_pipe_set(struct sl_out *o, uint16_t ifx, uint32_t subport, uint32_t pipe,
		    const char *profile);

#endif
