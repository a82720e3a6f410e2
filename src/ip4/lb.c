/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balance objects of ECMP/UCMP routes (ip4.h): their buckets' owners, computed so that
 * a change of paths moves as few buckets as it can. */
#include "ip4.h"

#include <stdio.h>
#include <string.h>

struct sl_lb *sl_lb_tbl[SL_LB_MAX];
const struct sl_lb sl_lb_drop = {.npaths = 1}; /* SL_ADJ_ID_DROP is 0 */
const uint8_t sl_l4_has_ports[256] = {[IPPROTO_TCP] = 1, [IPPROTO_UDP] = 1, [IPPROTO_SCTP] = 1,
				      [IPPROTO_UDPLITE] = 1};
const uint64_t sl_l4_ports4[256] = {[IPPROTO_TCP] = SL_L4_PORTS4_MASK, [IPPROTO_UDP] = SL_L4_PORTS4_MASK,
				    [IPPROTO_SCTP] = SL_L4_PORTS4_MASK,
				    [IPPROTO_UDPLITE] = SL_L4_PORTS4_MASK};

/* ---- set ip flow-hash ---- */

uint16_t sl_fh4[SL_FIB_MAX] = {[0 ... SL_FIB_MAX - 1] = SL_FH_DEFAULT4};
uint16_t sl_fh6[SL_FIB_MAX] = {[0 ... SL_FIB_MAX - 1] = SL_FH_DEFAULT6};
uint32_t sl_fh_seed;
const char *const sl_fh_names[8] = {"src",   "dst",     "sport",     "dport",
				    "proto", "reverse", "symmetric", "flowlabel"};

static void fh_store(uint16_t *slot, uint16_t fields)
{
	__atomic_store_n(slot, (uint16_t)(fields | (sl_fh_seed ? SL_FH_SEEDED : 0)), __ATOMIC_RELAXED);
}

void sl_fh_set(bool v6, uint16_t fib, uint16_t fields)
{
	fh_store(v6 ? &sl_fh6[fib] : &sl_fh4[fib], fields & (uint16_t)~SL_FH_SEEDED);
}

uint16_t sl_fh_get(bool v6, uint16_t fib)
{
	return (v6 ? sl_fh6[fib] : sl_fh4[fib]) & (uint16_t)~SL_FH_SEEDED;
}

void sl_fh_seed_set(uint32_t seed)
{
	/* the seed first: a worker that sees the bit mixes the new seed in (a vector in flight
	 * may mix the old one: its flows move once, as on any change of the fields) */
	__atomic_store_n(&sl_fh_seed, seed, __ATOMIC_RELAXED);
	for (unsigned t = 0; t < SL_FIB_MAX; t++) {
		fh_store(&sl_fh4[t], sl_fh_get(false, (uint16_t)t));
		fh_store(&sl_fh6[t], sl_fh_get(true, (uint16_t)t));
	}
}

void sl_fh_reset(uint16_t fib)
{
	sl_fh_set(false, fib, SL_FH_DEFAULT4);
	sl_fh_set(true, fib, SL_FH_DEFAULT6);
}

void sl_fh_format(char *buf, size_t len, uint16_t fields)
{
	size_t k = 0;
	buf[0] = 0;
	for (unsigned b = 0; b < RTE_DIM(sl_fh_names) && k < len; b++)
		if (fields & (1u << b))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? " " : "", sl_fh_names[b]);
}

void sl_lb_assign(uint8_t owner[SL_LB_BUCKETS], const int16_t *old, const uint16_t *w,
		  unsigned n)
{
	unsigned quota[SL_PATHS_MAX], count[SL_PATHS_MAX] = {0}, sum = 0, given = 0;
	uint64_t rem[SL_PATHS_MAX];
	int16_t nw[SL_LB_BUCKETS];
	for (unsigned i = 0; i < n; i++)
		sum += w[i] ? w[i] : 1;
	for (unsigned i = 0; i < n; i++) { /* each path's share, rounded down */
		uint64_t x = (uint64_t)SL_LB_BUCKETS * (w[i] ? w[i] : 1);
		quota[i] = (unsigned)(x / sum);
		rem[i] = x % sum;
		given += quota[i];
	}
	while (given < SL_LB_BUCKETS) { /* the rest to the largest remainders, first first */
		unsigned best = 0;
		for (unsigned i = 1; i < n; i++)
			best = rem[i] > rem[best] ? i : best;
		quota[best]++;
		rem[best] = 0;
		given++;
	}
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++) {
		nw[b] = old ? old[owner[b]] : -1;
		if (nw[b] >= 0)
			count[nw[b]]++;
	}
	for (int b = SL_LB_BUCKETS - 1; b >= 0; b--) /* a path over its share gives back */
		if (nw[b] >= 0 && count[nw[b]] > quota[nw[b]]) {
			count[nw[b]]--;
			nw[b] = -1;
		}
	unsigned i = 0;
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++) { /* the free buckets, paths in turn */
		if (nw[b] >= 0)
			continue;
		while (count[i] >= quota[i])
			i = (i + 1) % n;
		nw[b] = (int16_t)i;
		count[i]++;
		i = (i + 1) % n;
	}
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++)
		owner[b] = (uint8_t)nw[b];
}
