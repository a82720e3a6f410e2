/* SPDX-License-Identifier: BSD-3-Clause */
/* Subscribers' address pools (src/bng/pool.c): the lowest free address handed out and taken
 * back, a client's address claimed, named pools that must not overlap, a pool redefined only
 * while unused. No EAL. */
#include "../common/check.h"
#include "../../src/bng/pool.h"

#include <string.h>

#define A(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static void test_take_give(void)
{
	struct sl_pools ps;
	memset(&ps, 0, sizeof(ps));
	char why[96];
	CHECK(!sl_pools_any(&ps) && sl_pool_take(sl_pool_find(&ps, "")) == 0);
	CHECK(sl_pool_define(&ps, "", A(10, 0, 0, 1), A(10, 0, 0, 4), why, sizeof(why)) == 0);
	struct sl_pool *p = sl_pool_find(&ps, NULL);
	CHECK(p && sl_pools_any(&ps) && sl_pool_find(&ps, "biz") == NULL);
	CHECK(sl_pool_take(p) == A(10, 0, 0, 1) && sl_pool_take(p) == A(10, 0, 0, 2));
	CHECK(sl_pool_claim(&ps, A(10, 0, 0, 3)) && !sl_pool_claim(&ps, A(10, 0, 0, 3)));
	CHECK(sl_pool_claim(&ps, A(192, 0, 2, 1))); /* no pool's: nothing to claim */
	CHECK(sl_pool_take(p) == A(10, 0, 0, 4) && sl_pool_take(p) == 0 && p->nused == 4);
	sl_pool_give(&ps, A(10, 0, 0, 2)); /* the lowest free again */
	sl_pool_give(&ps, A(10, 0, 0, 2)); /* twice: once */
	sl_pool_give(&ps, A(192, 0, 2, 1));
	CHECK(p->nused == 3 && sl_pool_take(p) == A(10, 0, 0, 2) && sl_pool_take(p) == 0);
	sl_pools_clear(&ps);
	CHECK(!sl_pools_any(&ps));
}

static void test_named(void)
{
	struct sl_pools ps;
	memset(&ps, 0, sizeof(ps));
	char why[96];
	CHECK(sl_pool_define(&ps, "", A(10, 0, 0, 1), A(10, 0, 0, 9), why, sizeof(why)) == 0);
	CHECK(sl_pool_define(&ps, "biz", A(10, 0, 1, 1), A(10, 0, 1, 9), why, sizeof(why)) == 0);
	CHECK(sl_pool_define(&ps, "x", A(10, 0, 0, 9), A(10, 0, 0, 20), why, sizeof(why)) < 0 &&
	      strstr(why, "overlaps pool (default)"));
	CHECK(sl_pool_define(&ps, "x", A(10, 0, 1, 0), A(10, 0, 1, 1), why, sizeof(why)) < 0 &&
	      strstr(why, "overlaps pool biz"));
	CHECK(sl_pool_define(&ps, "x", A(10, 0, 2, 9), A(10, 0, 2, 1), why, sizeof(why)) < 0);
	CHECK(sl_pool_define(&ps, "x", A(10, 0, 0, 0), A(10, 1, 0, 0), why, sizeof(why)) < 0 &&
	      strstr(why, "65,536"));
	struct sl_pool *biz = sl_pool_find(&ps, "biz");
	CHECK(biz && sl_pool_take(biz) == A(10, 0, 1, 1) && sl_pool_of(&ps, A(10, 0, 1, 5)) == biz);
	/* in use: not redefined; unused again: redefined, in place */
	CHECK(sl_pool_define(&ps, "biz", A(10, 0, 1, 1), A(10, 0, 1, 50), why, sizeof(why)) < 0 &&
	      strstr(why, "in use"));
	sl_pool_give(&ps, A(10, 0, 1, 1));
	CHECK(sl_pool_define(&ps, "biz", A(10, 0, 1, 1), A(10, 0, 1, 50), why, sizeof(why)) == 0 &&
	      sl_pool_find(&ps, "biz") == biz && biz->hi == A(10, 0, 1, 50));
	for (int i = 2; i < SL_POOLS; i++) {
		char n[8];
		snprintf(n, sizeof(n), "p%d", i);
		CHECK(sl_pool_define(&ps, n, A(11, i, 0, 1), A(11, i, 0, 9), why, sizeof(why)) == 0);
	}
	CHECK(sl_pool_define(&ps, "one-more", A(12, 0, 0, 1), A(12, 0, 0, 9), why, sizeof(why)) < 0 &&
	      strstr(why, "at most 16"));
	sl_pools_clear(&ps);
}

int main(void)
{
	test_take_give();
	test_named();
	return CHECK_REPORT();
}
