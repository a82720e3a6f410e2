/* SPDX-License-Identifier: BSD-3-Clause */
/* ACLs (src/acl/acl.c): stateless 5-tuple access lists on DPDK's rte_acl, in VPP's
 * acl-plugin grammar, as features of the device-input and interface-output arcs. */
#ifndef SL_ACL_H
#define SL_ACL_H

#include <stdbool.h>
#include <stdint.h>

/* How many ACLs exist, and how many interface directions have ACLs applied (the CLI
 * fuzzer's witnesses). */
uint32_t sl_acl_count(void);
uint32_t sl_acl_applied(void);

/* Control (main lcore): the ACL of an index or a tag (the number, or set acl-plugin acl ...
 * tag T), or -1; applies ACL idx to interface ifx's input (dir 0) or output (1) after those
 * there, or takes it off (del): 0, or -1 with the reason in o. */
struct sl_out;
int sl_acl_find(const char *index_or_tag);
int sl_acl_if_apply(struct sl_out *o, uint16_t ifx, int dir, uint32_t idx, bool del);

#endif
