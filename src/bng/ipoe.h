/* SPDX-License-Identifier: BSD-3-Clause */
/* IPoE subscribers (src/bng/ipoe.c): a DHCPv4 exchange on an access interface creates a
 * session, a logical interface (type ipoe, point to point) keyed by the access interface and
 * the client's MAC; ipoe-input (a device-input feature of the access interface) punts DHCP
 * and gives the session's packets to routing as received on the session's interface;
 * ipoe-output sends what is routed to the session to the client's MAC. */
#ifndef SL_IPOE_H
#define SL_IPOE_H

#include "../interface/iface.h"
#include <stdbool.h>
#include <stddef.h>

/* What the workers read of a session, in its interface's sl_if_fast line (the type's own
 * data, as PPPoE's): written in place by the main lcore, all but the pipe before live says
 * the session is there (a release store); the pipe by a single store after. */
struct sl_ipoe_dp {
	uint16_t access;
	struct rte_ether_addr mac;
	uint32_t ip; /* network order: the leased address (its packets' source) */
	uint16_t qos_pipe; /* its pipe in subport 0 of the access interface's QoS; 0: none */
	uint8_t live;
};
_Static_assert(sizeof(struct sl_ipoe_dp) <= SL_IF_TYPE_DATA, "in the interface's line");

/* Interface ifx's session data (meaningful on an IPoE session's interface only). */
static inline struct sl_ipoe_dp *sl_ipoe_dp(uint16_t ifx)
{
	return (struct sl_ipoe_dp *)(void *)sl_if_fast[ifx].type;
}
/* (access interface, client MAC) -> session interface, lock-free readers. */
uint16_t sl_ipoe_find(uint16_t access, const uint8_t mac[6]);
/* ipoe-input's feature hook (src/bng/ipoe.c): on only by set ipoe access. */
int sl_ipoe_hook(uint16_t ifx, bool on, char *why, size_t len);
/* A Disconnect- or CoA-Request (RFC 5176) for an IPoE session that RADIUS authorized
 * (pppoe.c's handler asks when no PPPoE session matches): 0 (ACK) or an Error-Cause. */
struct sl_radius_das_req;
uint32_t sl_ipoe_das(const struct sl_radius_das_req *q);
/* show subscribers' rows for the bound IPoE sessions (its 17 columns). */
struct sl_out;
void sl_ipoe_subscriber_rows(struct sl_out *o);
/* How many IPoE sessions exist. */
uint32_t sl_ipoe_count(void);

#endif
