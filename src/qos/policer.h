/* SPDX-License-Identifier: BSD-3-Clause */
/* Policers (src/qos/policer.c): rte_meter srTCM/trTCM as features of the device-input and
 * interface-output arcs, in VPP's grammar. */
#ifndef SL_POLICER_H
#define SL_POLICER_H

#include <stdint.h>

/* How many policers exist (the CLI fuzzer's witness). */
uint32_t sl_policer_count(void);

#endif
