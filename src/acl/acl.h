/* SPDX-License-Identifier: BSD-3-Clause */
/* ACLs (src/acl/acl.c): stateless 5-tuple access lists on DPDK's rte_acl, in VPP's
 * acl-plugin grammar, as features of the device-input and interface-output arcs. */
#ifndef SL_ACL_H
#define SL_ACL_H

#include <stdint.h>

/* How many ACLs exist, and how many interface directions have ACLs applied (the CLI
 * fuzzer's witnesses). */
uint32_t sl_acl_count(void);
uint32_t sl_acl_applied(void);

#endif
