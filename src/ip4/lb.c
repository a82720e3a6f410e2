/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balance objects of ECMP/UCMP routes (ip4.h): their buckets' owners, computed so that
 * a change of paths moves as few buckets as it can. */
#include "ip4.h"

#include <string.h>

struct sl_lb *sl_lb_tbl[SL_LB_MAX];
const struct sl_lb sl_lb_drop = {.npaths = 1}; /* SL_ADJ_ID_DROP is 0 */
const uint8_t sl_l4_has_ports[256] = {[IPPROTO_TCP] = 1, [IPPROTO_UDP] = 1, [IPPROTO_SCTP] = 1,
				      [IPPROTO_UDPLITE] = 1};

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
