/* SPDX-License-Identifier: BSD-3-Clause */
/* Subscribers' IPv4 address pools (PPPoE's IPCP, IPoE's DHCP), on the main lcore: up to
 * SL_POOLS per user, each a range of at most 65,536 addresses with a byte per address and the
 * lowest that may be free kept (n addresses handed out in n steps); the default pool has the
 * empty name, others are what RADIUS's Framed-Pool (RFC 2869 5.18) names. */
#ifndef SL_BNG_POOL_H
#define SL_BNG_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SL_POOLS 16
#define SL_POOL_NAME 32

struct sl_pool {
	char name[SL_POOL_NAME]; /* "": the default */
	uint32_t lo, hi;         /* host order; lo 0: not defined */
	uint32_t next;           /* no free address below lo + next */
	uint32_t nused;
	uint8_t *used;
};

struct sl_pools {
	struct sl_pool p[SL_POOLS];
};

/* The pool of that name ("" or NULL: the default), or NULL. */
struct sl_pool *sl_pool_find(struct sl_pools *ps, const char *name);
/* The pool holding address a, or NULL. */
struct sl_pool *sl_pool_of(struct sl_pools *ps, uint32_t a);
bool sl_pools_any(const struct sl_pools *ps);
/* Defines (or redefines, while none of its addresses is in use) pool name as lo-hi: 0, or
 * -1 with the reason in why (a range that is empty, too long, or overlaps another pool's). */
int sl_pool_define(struct sl_pools *ps, const char *name, uint32_t lo, uint32_t hi, char *why,
		   size_t len);
/* The lowest free address of p, now in use; 0 when none (or p NULL). */
uint32_t sl_pool_take(struct sl_pool *p);
/* Address a in use: false when a pool holds it and it is in use already (true for an
 * address of no pool). */
bool sl_pool_claim(struct sl_pools *ps, uint32_t a);
/* Address a free again (nothing for an address of no pool). */
void sl_pool_give(struct sl_pools *ps, uint32_t a);
/* set pppoe|ipoe pool FIRST LAST [name NAME] (who: "pppoe" or "ipoe"), on ps. */
struct sl_out;
int sl_pool_cmd(struct sl_out *o, struct sl_pools *ps, const char *who, int argc, char **argv);
/* Every pool gone. */
void sl_pools_clear(struct sl_pools *ps);

#endif
