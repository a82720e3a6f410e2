/* SPDX-License-Identifier: BSD-3-Clause */
/* Subscribers' address pools (pool.h). */
#include "pool.h"
#include "../cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sl_pool *sl_pool_find(struct sl_pools *ps, const char *name)
{
	for (int i = 0; i < SL_POOLS; i++)
		if (ps->p[i].lo && !strcmp(ps->p[i].name, name ? name : ""))
			return &ps->p[i];
	return NULL;
}

struct sl_pool *sl_pool_of(struct sl_pools *ps, uint32_t a)
{
	for (int i = 0; i < SL_POOLS; i++)
		if (ps->p[i].lo && a >= ps->p[i].lo && a <= ps->p[i].hi)
			return &ps->p[i];
	return NULL;
}

bool sl_pools_any(const struct sl_pools *ps)
{
	for (int i = 0; i < SL_POOLS; i++)
		if (ps->p[i].lo)
			return true;
	return false;
}

int sl_pool_define(struct sl_pools *ps, const char *name, uint32_t lo, uint32_t hi, char *why,
		   size_t len)
{
	name = name ? name : "";
	if (hi < lo || hi - lo >= 65536 || lo == 0)
		return snprintf(why, len, "the pool is FIRST to LAST, at most 65,536 addresses"), -1;
	if (strlen(name) >= SL_POOL_NAME)
		return snprintf(why, len, "a pool's name is at most %d characters",
				SL_POOL_NAME - 1), -1;
	struct sl_pool *p = sl_pool_find(ps, name);
	if (p && p->nused)
		return snprintf(why, len, "%u addresses of the pool are in use", p->nused), -1;
	for (int i = 0; i < SL_POOLS; i++)
		if (ps->p[i].lo && &ps->p[i] != p && lo <= ps->p[i].hi && hi >= ps->p[i].lo)
			return snprintf(why, len, "it overlaps pool %s",
					ps->p[i].name[0] ? ps->p[i].name : "(default)"), -1;
	for (int i = 0; !p && i < SL_POOLS; i++)
		if (!ps->p[i].lo)
			p = &ps->p[i];
	if (!p)
		return snprintf(why, len, "at most %d pools", SL_POOLS), -1;
	uint8_t *u = calloc(hi - lo + 1, 1);
	if (!u)
		return snprintf(why, len, "out of memory"), -1;
	free(p->used);
	*p = (struct sl_pool){.lo = lo, .hi = hi, .used = u};
	snprintf(p->name, sizeof(p->name), "%s", name);
	return 0;
}

uint32_t sl_pool_take(struct sl_pool *p)
{
	if (!p)
		return 0;
	for (uint32_t off = p->next; off <= p->hi - p->lo; off++)
		if (!p->used[off]) {
			p->used[off] = 1;
			p->nused++;
			p->next = off + 1;
			return p->lo + off;
		}
	return 0;
}

bool sl_pool_claim(struct sl_pools *ps, uint32_t a)
{
	struct sl_pool *p = sl_pool_of(ps, a);
	if (!p)
		return true;
	if (p->used[a - p->lo])
		return false;
	p->used[a - p->lo] = 1;
	p->nused++;
	return true;
}

void sl_pool_give(struct sl_pools *ps, uint32_t a)
{
	struct sl_pool *p = sl_pool_of(ps, a);
	if (!p || !p->used[a - p->lo])
		return;
	p->used[a - p->lo] = 0;
	p->nused--;
	if (a - p->lo < p->next)
		p->next = a - p->lo;
}

int sl_pool_cmd(struct sl_out *o, struct sl_pools *ps, const char *who, int argc, char **argv)
{
	uint32_t lo, hi;
	if ((argc != 2 && argc != 4) || (argc == 4 && strcmp(argv[2], "name")))
		return sl_out_error(o, "usage: set %s pool FIRST LAST [name NAME]", who);
	if (sl_arg_ip4(o, argv[0], &lo) || sl_arg_ip4(o, argv[1], &hi))
		return -1;
	char why[96];
	if (sl_pool_define(ps, argc == 4 ? argv[3] : "", lo, hi, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}

void sl_pools_clear(struct sl_pools *ps)
{
	for (int i = 0; i < SL_POOLS; i++)
		free(ps->p[i].used);
	memset(ps, 0, sizeof(*ps));
}
