/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical QoS (rte_sched) on interfaces' output: src/qos/hqos.c. */
#ifndef SL_HQOS_H
#define SL_HQOS_H

#include <stdint.h>

/* QoS profiles defined, and interfaces with a scheduler (the CLI fuzzer's witnesses). */
uint32_t sl_qos_profile_count(void);
uint32_t sl_qos_applied(void);

#endif
