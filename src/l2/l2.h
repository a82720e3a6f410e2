/* SPDX-License-Identifier: BSD-3-Clause */
/* L2 control functions (main lcore): the forwarding modes, bridge domains and their MAC
 * tables. The CLI (src/l2/cli.c, bridge.c) parses and calls these; so can any other client. */
#ifndef SL_L2_H
#define SL_L2_H

#include "../interface/iface.h"

#define SL_BD_MAX 4096

/* Interface ifx forwards what it receives in `mode` out of `peer` (SL_MODE_L3: routes it);
 * dst/src (mode mac) or NULL. Leaving a bridge domain takes it out of the domain. */
void sl_l2_set_mode(uint16_t ifx, enum sl_mode mode, uint16_t peer,
		    const struct rte_ether_addr *dst, const struct rte_ether_addr *src);

struct sl_bd_settings {
	bool learn, flood, uu_flood;
	double age_min; /* 0: never */
};
/* Creates bridge domain id (1..SL_BD_MAX-1), or changes an existing one's settings. */
int sl_l2_bd_set(uint16_t id, const struct sl_bd_settings *s);
/* Deletes an empty bridge domain and its MACs: 0, or -errno with the reason in why. */
int sl_l2_bd_del(uint16_t id, char *why, size_t len);
/* Makes ifx a member of bridge domain id (bvi: ifx is a BVI, the domain's routed side). */
int sl_l2_bd_member(uint16_t ifx, uint16_t id, bool bvi, char *why, size_t len);
/* A MAC of bridge domain id: added behind ifx (static: never learnt over nor aged), or
 * deleted. */
int sl_l2_fib_add(uint16_t id, const struct rte_ether_addr *mac, uint16_t ifx, bool stat,
		  char *why, size_t len);
int sl_l2_fib_del(uint16_t id, const struct rte_ether_addr *mac, char *why, size_t len);

/* The noisy VNF on interface ifx's device-input arc (set interface noisy): set up (a new
 * setting replaces the old one, whose held packets are dropped and counted) and on, or off
 * with its settings dropped. */
struct sl_noisy_params {
	double mb;                     /* lookup memory; 0: none */
	uint32_t reads, writes, rws;   /* per packet */
	bool testpmd;                  /* testpmd 22.11's access pattern, not whole lines */
	uint32_t buffer, flush_ms;     /* FIFO of packets; 0: none */
};
int sl_noisy_set(uint16_t ifx, const struct sl_noisy_params *p, char *why, size_t len);
void sl_noisy_disable(uint16_t ifx);

#endif
