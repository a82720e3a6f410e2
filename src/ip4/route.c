/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 control plane (main lcore only): the RIB (exact routes by source), the FIB it
 * compiles into (rte_fib DIR-24-8), adjacencies and neighbours. Memory that workers may
 * still read is reused only after an RCU grace period. */
#include "route.h"
#include "../ip6/ip6.h"
#include "../interface/iface.h"
#include "../cli/cli.h"
#include "../config/config.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include "../runtime/slab.h"

struct sl_adj *sl_adj_tbl[SL_ADJ_MAX];
struct rte_fib *sl_fibs[SL_FIB_MAX];
uint32_t sl_fib_ids[SL_FIB_MAX];
bool sl_fib_multi;
static uint16_t nb_fibs;
static uint32_t vrf_max_routes = 1 << 16, vrf_tbl8s = 1 << 10;
static struct rte_hash *rib, *neighs;
static uint32_t *adj_free;   /* stack of free ids */
static uint32_t adj_nfree;
static uint32_t adj_hwm = SL_ADJ_ID_BLACKHOLE + 1; /* one past the highest id ever used */
static uint32_t *lb_free;    /* stack of free load-balance ids */
static uint32_t lb_nfree;
static uint32_t glean_adj[SL_IF_MAX];
static uint32_t nroutes;
uint64_t sl_neigh_age_s = 300;

void sl_ip4_neigh_age_set(uint64_t seconds)
{
	sl_neigh_age_s = seconds;
}

/* Adjacencies, packed (a host's or a session's, made between their other records, would
 * otherwise each lie on its own heap page: ip4-lookup and ip4-rewrite read one a packet). */
static struct sl_slab adj_mem = SL_SLAB_INIT("adjacencies", sizeof(struct sl_adj));
/* Each interface's complete adjacencies, by id: a list through adj_if_next/adj_if_prev from
 * adj_if_head[interface], an id on it exactly while its table entry is SL_ADJ_FORWARD on
 * that interface (adj_set keeps it so). adj_sync walks it: an interface's MTU or tx slot
 * changes as each PPPoE session is set up (its output features), and a walk of the whole
 * table each time made 20,000 sessions' set-up 0.4 s slower. */
#define ADJ_NONE UINT32_MAX
static uint32_t *adj_if_next, *adj_if_prev;
static uint32_t adj_if_head[SL_IF_MAX];

static bool adj_listed(const struct sl_adj *a)
{
	return a && a->type == SL_ADJ_FORWARD;
}

/* Table entry id becomes a (the control plane's only way to change one). */
static void adj_set(uint32_t id, struct sl_adj *a)
{
	const struct sl_adj *old = sl_adj_tbl[id];
	const bool was = adj_listed(old), is = adj_listed(a);
	const bool moved = was && is && old->port != a->port;
	if (was && (!is || moved)) {
		uint32_t p = adj_if_prev[id], n = adj_if_next[id];
		if (p != ADJ_NONE)
			adj_if_next[p] = n;
		else
			adj_if_head[old->port] = n;
		if (n != ADJ_NONE)
			adj_if_prev[n] = p;
	}
	if (is && (!was || moved)) {
		uint32_t h = adj_if_head[a->port];
		adj_if_prev[id] = ADJ_NONE;
		adj_if_next[id] = h;
		if (h != ADJ_NONE)
			adj_if_prev[h] = id;
		adj_if_head[a->port] = id;
	}
	__atomic_store_n(&sl_adj_tbl[id], a, __ATOMIC_RELEASE);
}

/* After a grace period: the old record is freed, and the id (unless 0) recycled. */
static void adj_retired(void *old, uintptr_t id)
{
	if (id) {
		adj_set((uint32_t)id, sl_adj_tbl[SL_ADJ_ID_DROP]);
		adj_free[adj_nfree++] = (uint32_t)id;
	}
	sl_slab_put(&adj_mem, old);
}

static void retire(struct sl_adj *old, uint32_t id)
{
	if (old || id)
		sl_rcu_retire(adj_retired, old, id);
}

struct sl_adj *sl_adj_new(uint8_t type, uint16_t port, uint32_t nh,
				   const uint8_t *dmac, uint16_t ethertype)
{
	struct sl_adj *a = sl_slab_get(&adj_mem);
	if (!a)
		return NULL;
	a->type = type;
	a->port = port;
	a->nh = nh;
	a->mtu = type == SL_ADJ_FORWARD ? sl_if_fast[port].mtu : 0;
	a->tx_slot = type == SL_ADJ_FORWARD ? sl_if_fast[port].tx_slot : 0;
	if (dmac) {
		memcpy(a->rewrite, dmac, 6);
		memcpy(a->rewrite + 6, &sl_ifaces[port].mac, 6);
		a->rewrite[12] = (uint8_t)(ethertype >> 8);
		a->rewrite[13] = (uint8_t)ethertype;
	}
	return a;
}

static struct sl_adj *adj_new(uint8_t type, uint16_t port, uint32_t nh, const uint8_t *dmac)
{
	return sl_adj_new(type, port, nh, dmac, RTE_ETHER_TYPE_IPV4);
}

/* Publishes a new adjacency under id; the old one is freed after a grace period. */
void sl_adj_publish(uint32_t id, struct sl_adj *a)
{
	struct sl_adj *old = sl_adj_tbl[id];
	adj_set(id, a);
	retire(old, 0);
}

int sl_adj_alloc(struct sl_adj *a, uint32_t *id)
{
	if (adj_nfree == 0)
		sl_rcu_reclaim();
	if (adj_nfree == 0) {
		sl_slab_put(&adj_mem, a);
		return -ENOSPC;
	}
	*id = adj_free[--adj_nfree];
	if (*id >= adj_hwm)
		adj_hwm = *id + 1;
	adj_set(*id, a);
	return 0;
}

/* Interface ifx's MTU or tx slot changed: its complete adjacencies' copies follow, in place
 * (two 2-byte stores; a vector in flight takes the old or the new value of each, as it did
 * when the rewrite read the interface's). Only SL_ADJ_FORWARD records are touched: each has
 * one id, while the drop adjacency (never complete) stands in for every free one. */
static void adj_sync(uint16_t ifx)
{
	const uint16_t mtu = sl_if_fast[ifx].mtu, slot = sl_if_fast[ifx].tx_slot;
	for (uint32_t id = adj_if_next ? adj_if_head[ifx] : ADJ_NONE; id != ADJ_NONE;
	     id = adj_if_next[id]) {
		struct sl_adj *a = sl_adj_tbl[id];
		__atomic_store_n(&a->mtu, mtu, __ATOMIC_RELAXED);
		__atomic_store_n(&a->tx_slot, slot, __ATOMIC_RELAXED);
	}
}

uint32_t sl_adj_check(void)
{
	uint32_t fwds = 0, listed = 0;
	for (uint32_t id = 0; id < adj_hwm; id++) {
		const struct sl_adj *a = sl_adj_tbl[id];
		bool fwd = adj_listed(a);
		fwds += fwd;
		if (a && (a->mtu != (fwd ? sl_if_fast[a->port].mtu : 0) ||
			  a->tx_slot != (fwd ? sl_if_fast[a->port].tx_slot : 0)))
			return id + 1;
	}
	/* each interface's list: its complete adjacencies, all of them */
	for (uint32_t ifx = 0; adj_if_next && ifx < SL_IF_MAX; ifx++)
		for (uint32_t id = adj_if_head[ifx]; id != ADJ_NONE; id = adj_if_next[id]) {
			const struct sl_adj *a = sl_adj_tbl[id];
			if (!adj_listed(a) || a->port != ifx || ++listed > fwds)
				return id + 1;
		}
	return listed == fwds ? 0 : UINT32_MAX;
}

/* The id must no longer be in the FIB; it is recycled after a grace period. */
void sl_adj_release(uint32_t id)
{
	struct sl_adj *old = sl_adj_tbl[id];
	retire(old, id);
	/* the slot keeps pointing at the old adjacency until the id is reused */
}

static struct rte_fib *fib_create(uint32_t id, uint32_t max_routes, uint32_t tbl8s)
{
	struct rte_fib_conf cfg = {
		.type = RTE_FIB_DIR24_8, .default_nh = SL_ADJ_ID_DROP, .max_routes = (int)max_routes,
		.dir24_8 = {.nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = tbl8s},
	};
	char name[32];
	snprintf(name, sizeof(name), "sl_ip4_%u", id);
	return rte_fib_create(name, SOCKET_ID_ANY, &cfg);
}

int sl_ip4_init(uint32_t max_routes, uint32_t tbl8s)
{
	if (!(sl_fibs[0] = fib_create(0, max_routes, tbl8s)))
		return -rte_errno;
	nb_fibs = 1;
	vrf_max_routes = RTE_MIN(max_routes, vrf_max_routes);
	vrf_tbl8s = RTE_MIN(tbl8s, vrf_tbl8s);
	struct rte_hash_parameters hp = {
		.name = "sl_rib", .entries = max_routes + 1024, .key_len = sizeof(uint64_t),
		.hash_func = rte_jhash, .socket_id = SOCKET_ID_ANY,
	};
	if (!(rib = rte_hash_create(&hp)))
		return -rte_errno;
	hp.name = "sl_neigh";
	hp.entries = 65536;
	if (!(neighs = rte_hash_create(&hp)))
		return -rte_errno;
	adj_free = malloc(sizeof(uint32_t) * SL_ADJ_MAX);
	adj_if_next = malloc(sizeof(uint32_t) * SL_ADJ_MAX);
	adj_if_prev = malloc(sizeof(uint32_t) * SL_ADJ_MAX);
	if (!adj_free || !adj_if_next || !adj_if_prev)
		return -ENOMEM;
	memset(adj_if_head, 0xff, sizeof(adj_if_head)); /* ADJ_NONE */
	for (uint32_t i = SL_ADJ_MAX - 1; i > SL_ADJ_ID_BLACKHOLE; i--)
		adj_free[adj_nfree++] = i;
	lb_free = malloc(sizeof(uint32_t) * SL_LB_MAX);
	if (!lb_free)
		return -ENOMEM;
	for (uint32_t i = SL_LB_MAX - 1; i > 0; i--) /* 0 unused */
		lb_free[lb_nfree++] = i;
	sl_adj_tbl[SL_ADJ_ID_DROP] = adj_new(SL_ADJ_DROP, 0, 0, NULL);
	sl_adj_tbl[SL_ADJ_ID_LOCAL] = adj_new(SL_ADJ_LOCAL, 0, 0, NULL);
	sl_adj_tbl[SL_ADJ_ID_BLACKHOLE] = adj_new(SL_ADJ_BLACKHOLE, 0, 0, NULL);
	for (uint32_t i = SL_ADJ_ID_BLACKHOLE + 1; i < SL_ADJ_MAX; i++)
		sl_adj_tbl[i] = sl_adj_tbl[SL_ADJ_ID_DROP];
	if (!sl_adj_tbl[0] || !sl_adj_tbl[1] || !sl_adj_tbl[2])
		return -ENOMEM;
	return 0;
}

static void free_hash_data(struct rte_hash **h)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	if (!*h)
		return;
	while (rte_hash_iterate(*h, &k, &d, &it) >= 0)
		free(d);
	rte_hash_free(*h);
	*h = NULL;
}

/* At exit, with the workers stopped. */
void sl_ip4_fini(void)
{
	sl_ip4_held_flush();
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rib && rte_hash_iterate(rib, &k, &d, &it) >= 0)
		free(((struct sl_route *)d)->paths);
	for (uint32_t i = 0; i < SL_LB_MAX; i++) {
		free(sl_lb_tbl[i]);
		sl_lb_tbl[i] = NULL;
	}
	free(lb_free);
	lb_free = NULL;
	lb_nfree = 0;
	free_hash_data(&rib);
	free_hash_data(&neighs);
	memset(sl_adj_tbl, 0, sizeof(sl_adj_tbl));
	sl_slab_release(&adj_mem);
	free(adj_if_next);
	free(adj_if_prev);
	adj_if_next = adj_if_prev = NULL;
	free(adj_free);
	adj_free = NULL;
	adj_nfree = 0;
	adj_hwm = SL_ADJ_ID_BLACKHOLE + 1;
	memset(glean_adj, 0, sizeof(glean_adj));
	for (int t = 0; t < SL_FIB_MAX; t++) {
		rte_fib_free(sl_fibs[t]);
		sl_fibs[t] = NULL;
		sl_fib_ids[t] = 0;
	}
	nb_fibs = 0;
	sl_fib_multi = false;
}

/* ---------------- RIB ---------------- */

static inline uint64_t rkey(uint16_t fib, uint32_t pfx, uint8_t len)
{
	return (uint64_t)fib << 40 | (uint64_t)pfx << 8 | len;
}

static inline uint32_t mask(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

struct sl_route *sl_rib_find(uint16_t fib, uint32_t pfx, uint8_t len)
{
	uint64_t k = rkey(fib, pfx & mask(len), len);
	void *d;
	return rte_hash_lookup_data(rib, &k, &d) >= 0 ? d : NULL;
}

static uint32_t route_active(const struct sl_route *r, int *src)
{
	for (int s = 0; s < SL_SRC_N; s++)
		if (r->present & (1u << s)) {
			if (src)
				*src = s;
			return r->adj[s];
		}
	return 0;
}

/* rte_fib (22.11) recycles a tbl8 group as soon as a delete of a prefix longer than /24
 * makes it uniform. A worker that read the tbl24 entry just before may still index that
 * group, so no later add may reuse it until every worker has passed a quiescent state. */
uint32_t sl_fib_gen;

static void fib_delete(uint16_t fib, uint32_t pfx, uint8_t len)
{
	rte_fib_delete(sl_fibs[fib], pfx, len);
	__atomic_fetch_add(&sl_fib_gen, 1, __ATOMIC_RELEASE);
	if (len > 24)
		sl_rcu_sync();
}

/* Sets or clears (adj = ~0) one source of a prefix and reprograms the FIB. */
static int rib_set(uint16_t fib, uint32_t pfx, uint8_t len, int src, uint32_t adj, uint32_t nh)
{
	pfx &= mask(len);
	uint64_t k = rkey(fib, pfx, len);
	struct sl_route *r = sl_rib_find(fib, pfx, len);
	if (!r) {
		if (adj == ~0u)
			return -ENOENT;
		r = calloc(1, sizeof(*r));
		if (!r)
			return -ENOMEM;
		r->pfx = pfx;
		r->len = len;
		r->fib = fib;
		if (rte_hash_add_key_data(rib, &k, r)) {
			free(r);
			return -ENOSPC;
		}
		nroutes++;
	}
	uint32_t before = r->present ? route_active(r, NULL) : ~0u;
	if (adj == ~0u) {
		if (!(r->present & (1u << src)))
			return -ENOENT;
		r->present &= ~(1u << src);
	} else {
		r->present |= 1u << src;
		r->adj[src] = adj;
		r->nh[src] = nh;
	}
	int rc = 0;
	if (!r->present) {
		fib_delete(fib, pfx, len);
		rte_hash_del_key(rib, &k);
		free(r);
		nroutes--;
	} else {
		uint32_t after = route_active(r, NULL);
		if (after != before)
			rc = rte_fib_add(sl_fibs[fib], pfx, len, after);
		if (rc) {
			/* FIB full: undo this source */
			r->present &= ~(1u << src);
			if (!r->present) {
				rte_hash_del_key(rib, &k);
				free(r);
				nroutes--;
			}
		}
	}
	/* after the change: a worker that reads the new number finds the new FIB */
	__atomic_fetch_add(&sl_fib_gen, 1, __ATOMIC_RELEASE);
	return rc;
}

uint32_t sl_ip4_route_count(void)
{
	return nroutes;
}

int sl_rib_walk(int (*fn)(const struct sl_route *r, void *arg), void *arg)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rte_hash_iterate(rib, &k, &d, &it) >= 0)
		if (fn(d, arg))
			return 1;
	return 0;
}

/* ---------------- neighbours ---------------- */

static inline uint64_t nkey(uint16_t port, uint32_t ip)
{
	return (uint64_t)port << 32 | ip;
}

struct sl_neigh *sl_neigh_find(uint16_t port, uint32_t ip)
{
	uint64_t k = nkey(port, ip);
	void *d;
	return rte_hash_lookup_data(neighs, &k, &d) >= 0 ? d : NULL;
}

int sl_neigh_walk(int (*fn)(const struct sl_neigh *n, void *arg), void *arg)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rte_hash_iterate(neighs, &k, &d, &it) >= 0)
		if (fn(d, arg))
			return 1;
	return 0;
}

/* The interface address whose subnet holds ip, or 0. */
static uint32_t connected_src(uint16_t port, uint32_t ip)
{
	const struct sl_iface *f = &sl_ifaces[port];
	for (int i = 0; i < f->naddr; i++)
		if (((f->addrs[i] ^ ip) & mask(f->plens[i])) == 0)
			return f->addrs[i];
	return 0;
}

uint32_t sl_ip4_src_for(uint16_t port, uint32_t dst)
{
	uint32_t a = connected_src(port, dst);
	return a ? a : sl_ifaces[port].ip4;
}

static int connected_port(uint16_t fib, uint32_t ip)
{
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		if (sl_ifaces[p].used && sl_ifaces[p].fib == fib && connected_src((uint16_t)p, ip))
			return (int)p;
	return -1;
}

static struct sl_neigh *neigh_get(uint16_t port, uint32_t ip)
{
	struct sl_neigh *n = sl_neigh_find(port, ip);
	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->port = port;
	n->ip = ip;
	n->state = SL_NEIGH_INCOMPLETE;
	n->created = rte_rdtsc();
	if (sl_adj_alloc(adj_new(SL_ADJ_INCOMPLETE, port, ip, NULL), &n->adj)) {
		free(n);
		return NULL;
	}
	uint64_t k = nkey(port, ip);
	if (rte_hash_add_key_data(neighs, &k, n)) {
		sl_adj_release(n->adj);
		free(n);
		return NULL;
	}
	/* a point-to-point link (an IP tunnel) reaches every neighbour as it is: no ARP */
	if (sl_ifaces[port].p2p)
		sl_ip4_neigh_set(port, ip, (const uint8_t[6]){0}, true);
	return n;
}

static void held_drop(struct sl_neigh *n);
static void held_release(struct sl_neigh *n);

static void neigh_free(struct sl_neigh *n)
{
	uint64_t k = nkey(n->port, n->ip);
	if (n->host_route)
		rib_set(sl_ifaces[n->port].fib, n->ip, 32, SL_SRC_ADJ, ~0u, 0);
	rte_hash_del_key(neighs, &k);
	sl_adj_release(n->adj);
	held_drop(n);
	free(n);
}

int sl_ip4_neigh_set(uint16_t port, uint32_t ip, const uint8_t mac[6], bool is_static)
{
	if (!sl_ifaces[port].used)
		return -ENODEV;
	struct sl_neigh *n = neigh_get(port, ip);
	if (!n)
		return -ENOSPC;
	if (n->state == SL_NEIGH_STATIC && !is_static)
		return 0; /* learning never overrides a static entry */
	bool same = n->state != SL_NEIGH_INCOMPLETE && !memcmp(n->mac, mac, 6);
	n->state = is_static ? SL_NEIGH_STATIC : SL_NEIGH_DYNAMIC;
	n->last_seen = rte_rdtsc();
	if (!same) {
		memcpy(n->mac, mac, 6);
		struct sl_adj *a = adj_new(SL_ADJ_FORWARD, port, ip, mac);
		if (!a)
			return -ENOMEM;
		sl_adj_publish(n->adj, a);
	}
	held_release(n);
	if (!n->host_route && connected_src(port, ip)) {
		if (rib_set(sl_ifaces[port].fib, ip, 32, SL_SRC_ADJ, n->adj, ip) == 0)
			n->host_route = true;
	}
	return 0;
}

int sl_ip4_neigh_del(uint16_t port, uint32_t ip)
{
	struct sl_neigh *n = sl_neigh_find(port, ip);
	if (!n || n->state == SL_NEIGH_INCOMPLETE)
		return -ENOENT;
	if (n->refcnt) {
		/* routes still use it: back to incomplete so they resolve again */
		n->state = SL_NEIGH_INCOMPLETE;
		memset(n->mac, 0, 6);
		sl_adj_publish(n->adj, adj_new(SL_ADJ_INCOMPLETE, port, ip, NULL));
		if (n->host_route) {
			rib_set(sl_ifaces[port].fib, ip, 32, SL_SRC_ADJ, ~0u, 0);
			n->host_route = false;
		}
		return 0;
	}
	neigh_free(n);
	return 0;
}

/* ---------------- addresses and routes ---------------- */

int sl_ip4_addr_add(uint16_t port, uint32_t ip, uint8_t len)
{
	struct sl_iface *f = &sl_ifaces[port];
	if (!f->used)
		return -ENODEV;
	if (len == 0 || len > 32 || ip == 0 || (ip >> 28) >= 0xe)
		return -EINVAL;
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		for (int i = 0; sl_ifaces[p].used && sl_ifaces[p].fib == f->fib &&
				i < sl_ifaces[p].naddr; i++)
			if (sl_ifaces[p].addrs[i] == ip)
				return -EEXIST;
	if (f->naddr >= SL_IF_MAX_ADDRS)
		return -EMLINK; /* the interface's addresses, not the table, are full */
	int rc = rib_set(f->fib, ip, 32, SL_SRC_LOCAL, SL_ADJ_ID_LOCAL, 0);
	if (rc)
		return rc;
	if (len < 32) {
		if (!glean_adj[port] &&
		    sl_adj_alloc(adj_new(SL_ADJ_GLEAN, port, 0, NULL), &glean_adj[port]))
			goto undo_local;
		if ((rc = rib_set(f->fib, ip, len, SL_SRC_CONNECTED, glean_adj[port], 0)))
			goto undo_local;
	}
	f->addrs[f->naddr] = ip;
	f->plens[f->naddr++] = len;
	if (!f->ip4)
		__atomic_store_n(&f->ip4, ip, __ATOMIC_RELEASE);
	return 0;
undo_local:
	rib_set(f->fib, ip, 32, SL_SRC_LOCAL, ~0u, 0);
	return rc ? rc : -ENOSPC;
}

int sl_ip4_addr_del(uint16_t port, uint32_t ip, uint8_t len)
{
	struct sl_iface *f = &sl_ifaces[port];
	int i;
	for (i = 0; i < f->naddr; i++)
		if (f->addrs[i] == ip && f->plens[i] == len)
			break;
	if (i == f->naddr)
		return -ENOENT;
	rib_set(f->fib, ip, 32, SL_SRC_LOCAL, ~0u, 0);
	if (len < 32)
		rib_set(f->fib, ip, len, SL_SRC_CONNECTED, ~0u, 0);
	f->naddr--;
	memmove(&f->addrs[i], &f->addrs[i + 1], (f->naddr - i) * sizeof(f->addrs[0]));
	memmove(&f->plens[i], &f->plens[i + 1], f->naddr - i);
	__atomic_store_n(&f->ip4, f->naddr ? f->addrs[0] : 0, __ATOMIC_RELEASE);
	return 0;
}

/* ---------------- load-balance objects (ECMP/UCMP) ---------------- */

static void lb_retired(void *old, uintptr_t id)
{
	if (id) {
		__atomic_store_n(&sl_lb_tbl[id], NULL, __ATOMIC_RELEASE);
		lb_free[lb_nfree++] = (uint32_t)id;
	}
	free(old);
}

int sl_lb_publish(uint32_t id, const uint8_t owner[SL_LB_BUCKETS], const uint32_t *path_adj,
		  uint16_t fib)
{
	struct sl_lb *lb = malloc(sizeof(*lb));
	if (!lb)
		return -ENOMEM;
	bool seen[SL_PATHS_MAX] = {false};
	lb->npaths = 0;
	lb->fib = fib;
	for (unsigned b = 0; b < SL_LB_BUCKETS; b++) {
		lb->adj[b] = path_adj[owner[b]];
		if (!seen[owner[b]]) {
			seen[owner[b]] = true;
			lb->path[lb->npaths++] = path_adj[owner[b]];
		}
	}
	struct sl_lb *old = sl_lb_tbl[id];
	__atomic_store_n(&sl_lb_tbl[id], lb, __ATOMIC_RELEASE);
	if (old)
		sl_rcu_retire(lb_retired, old, 0);
	return 0;
}

int sl_lb_alloc(uint32_t *id)
{
	if (lb_nfree == 0)
		sl_rcu_reclaim();
	if (lb_nfree == 0)
		return -ENOSPC;
	*id = lb_free[--lb_nfree];
	return 0;
}

void sl_lb_free(uint32_t id, bool named)
{
	if (named)
		sl_rcu_retire(lb_retired, sl_lb_tbl[id], id);
	else
		lb_retired(sl_lb_tbl[id], id);
}

/* Builds and publishes route r's load-balance from its paths' owners; the old one goes
 * after a grace period. */
static int lb_publish(struct sl_route *r)
{
	struct sl_paths *ps = r->paths;
	uint32_t adj[SL_PATHS_MAX];
	for (int i = 0; i < r->npaths; i++)
		adj[i] = sl_neigh_find(ps->p[i].port, ps->p[i].nh)->adj;
	return sl_lb_publish(ps->lb, ps->owner, adj, r->fib);
}

static int path_find(const struct sl_route *r, uint32_t nh, int port)
{
	for (int i = 0; i < r->npaths; i++)
		if (r->paths->p[i].nh == nh && (port < 0 || r->paths->p[i].port == port))
			return i;
	return -1;
}

/* A route of one static path gets a second: its paths, a load-balance id, the FIB to it. */
static int paths_make(struct sl_route *r)
{
	uint32_t id;
	if (sl_lb_alloc(&id))
		return -ENOSPC;
	struct sl_paths *ps = calloc(1, sizeof(*ps));
	if (!ps) {
		sl_lb_free(id, false);
		return -ENOMEM;
	}
	ps->lb = id;
	ps->p[0] = (struct sl_rpath){.nh = r->nh[SL_SRC_STATIC], .port = r->port, .weight = r->weight};
	r->paths = ps;
	return 0;
}

/* Back to one path (index keep): the FIB to its neighbour, the load-balance retired. */
static int paths_drop(struct sl_route *r, int keep)
{
	struct sl_paths *ps = r->paths;
	struct sl_rpath p = ps->p[keep];
	struct sl_neigh *n = sl_neigh_find(p.port, p.nh);
	int rc = rib_set(r->fib, r->pfx, r->len, SL_SRC_STATIC, n->adj, p.nh);
	if (rc)
		return rc;
	r = sl_rib_find(r->fib, r->pfx, r->len);
	r->port = p.port;
	r->weight = p.weight;
	r->npaths = 1;
	r->paths = NULL;
	sl_lb_free(ps->lb, true);
	free(ps);
	return 0;
}

/* The old-to-new index map of paths that stay where they are: n of them. */
static void paths_same(int16_t map[SL_PATHS_MAX], int n)
{
	for (int k = 0; k < SL_PATHS_MAX; k++)
		map[k] = (int16_t)(k < n ? k : -1);
}

/* The paths changed (old: each old index's new one, or -1): new owners, a new
 * load-balance. */
static int paths_rebalance(struct sl_route *r, const int16_t *old)
{
	uint16_t w[SL_PATHS_MAX];
	for (int i = 0; i < r->npaths; i++)
		w[i] = r->paths->p[i].weight;
	sl_lb_assign(r->paths->owner, old, w, r->npaths);
	return lb_publish(r);
}

static void neigh_unref(uint16_t port, uint32_t nh)
{
	struct sl_neigh *n = sl_neigh_find(port, nh);
	if (n && n->refcnt)
		n->refcnt--;
}

int sl_ip4_neigh_hold(uint16_t port, uint32_t nh, uint32_t *adj)
{
	if (!sl_ifaces[port].used)
		return -ENODEV;
	struct sl_neigh *n = neigh_get(port, nh);
	if (!n)
		return -ENOSPC;
	n->refcnt++;
	*adj = n->adj;
	if (n->state == SL_NEIGH_INCOMPLETE)
		sl_arp_request(port, nh);
	return 0;
}

void sl_ip4_neigh_unhold(uint16_t port, uint32_t nh)
{
	neigh_unref(port, nh);
}

int sl_ip4_route_add(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port)
{
	return sl_ip4_route_add_path(fib, pfx, len, nh, port, 1);
}

int sl_ip4_route_add_path(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port,
			  uint16_t weight)
{
	if (len > 32)
		return -EINVAL;
	if (fib >= SL_FIB_MAX || !sl_fibs[fib])
		return -ENXIO;
	if (port < 0)
		port = connected_port(fib, nh);
	else if (!sl_ifaces[port].used)
		return -ENODEV;
	if (port < 0)
		return -ENETUNREACH;
	weight = weight ? weight : 1;
	struct sl_route *r = sl_rib_find(fib, pfx, len);
	bool have = r && (r->present & (1u << SL_SRC_STATIC));
	if (have && !r->npaths) /* a drop route: deleted first */
		return -EEXIST;
	if (have && !r->paths && r->nh[SL_SRC_STATIC] == nh && r->port == port) {
		r->weight = weight; /* the same path: its weight only (no effect alone) */
		return 0;
	}
	if (have && r->paths) {
		int i = path_find(r, nh, port);
		if (i >= 0) {
			if (r->paths->p[i].weight == weight)
				return 0;
			int16_t same[SL_PATHS_MAX];
			paths_same(same, r->npaths);
			r->paths->p[i].weight = weight;
			return paths_rebalance(r, same);
		}
		if (r->npaths == SL_PATHS_MAX)
			return -E2BIG;
	}
	struct sl_neigh *n = neigh_get((uint16_t)port, nh);
	if (!n)
		return -ENOSPC;
	n->refcnt++;
	int rc;
	if (!have) {
		rc = rib_set(fib, pfx, len, SL_SRC_STATIC, n->adj, nh);
		if (!rc) {
			r = sl_rib_find(fib, pfx, len);
			r->port = (uint16_t)port;
			r->weight = weight;
			r->npaths = 1;
			r->paths = NULL;
		}
	} else {
		/* a new path: the buckets of the others stay theirs but for its share */
		bool made = false;
		rc = r->paths ? 0 : paths_make(r);
		made = !rc && r->npaths == 1;
		int16_t same[SL_PATHS_MAX];
		paths_same(same, r->npaths);
		if (!rc) {
			r->paths->p[r->npaths] = (struct sl_rpath){.nh = nh, .port = (uint16_t)port,
								   .weight = weight};
			r->npaths++;
			rc = paths_rebalance(r, made ? NULL : same);
			if (!rc && made)
				rc = rib_set(fib, pfx, len, SL_SRC_STATIC, SL_LB_FLAG | r->paths->lb, 0);
			if (rc) { /* undo: back as it was */
				r->npaths--;
				if (made) { /* no FIB entry named it: no grace period */
					sl_lb_free(r->paths->lb, false);
					free(r->paths);
					r->paths = NULL;
				} else {
					paths_rebalance(r, same);
				}
			}
		}
	}
	if (rc) {
		n->refcnt--;
		return rc;
	}
	if (n->state == SL_NEIGH_INCOMPLETE)
		sl_arp_request((uint16_t)port, nh);
	return 0;
}

/* The static route of (fib, pfx, len), or NULL with *rc the reason. */
static struct sl_route *static_route(uint16_t fib, uint32_t pfx, uint8_t len, int *rc)
{
	*rc = len > 32 ? -EINVAL : fib >= SL_FIB_MAX || !sl_fibs[fib] ? -ENXIO : -ENOENT;
	if (*rc != -ENOENT)
		return NULL;
	struct sl_route *r = sl_rib_find(fib, pfx, len);
	if (!r || !(r->present & (1u << SL_SRC_STATIC)))
		return NULL;
	*rc = 0;
	return r;
}

int sl_ip4_route_del(uint16_t fib, uint32_t pfx, uint8_t len)
{
	int rc;
	struct sl_route *r = static_route(fib, pfx, len, &rc);
	if (!r)
		return rc;
	struct sl_paths *ps = r->paths;
	uint32_t nh = r->nh[SL_SRC_STATIC];
	uint16_t port = r->port;
	int np = r->npaths;
	r->paths = NULL;
	r->npaths = 0;
	rc = rib_set(fib, pfx, len, SL_SRC_STATIC, ~0u, 0); /* may free r */
	if (ps) {
		for (int i = 0; i < np; i++)
			neigh_unref(ps->p[i].port, ps->p[i].nh);
		sl_lb_free(ps->lb, true);
		free(ps);
	} else if (np) { /* a drop route holds no neighbour */
		neigh_unref(port, nh);
	}
	return rc;
}

int sl_ip4_route_add_drop(uint16_t fib, uint32_t pfx, uint8_t len)
{
	if (len > 32)
		return -EINVAL;
	if (fib >= SL_FIB_MAX || !sl_fibs[fib])
		return -ENXIO;
	pfx &= mask(len);
	const struct sl_route *r = sl_rib_find(fib, pfx, len);
	if (r && (r->present & (1u << SL_SRC_STATIC)))
		return r->npaths ? -EEXIST : 0;
	int rc = rib_set(fib, pfx, len, SL_SRC_STATIC, SL_ADJ_ID_BLACKHOLE, 0);
	if (!rc) {
		struct sl_route *d = sl_rib_find(fib, pfx, len);
		d->npaths = 0;
		d->paths = NULL;
		d->weight = 1;
	}
	return rc;
}

int sl_ip4_route_path_weight(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port)
{
	int rc;
	const struct sl_route *r = static_route(fib, pfx, len, &rc);
	if (!r)
		return rc;
	if (!r->paths)
		return r->npaths && r->nh[SL_SRC_STATIC] == nh && (port < 0 || r->port == port)
			       ? (r->weight ? r->weight : 1)
			       : -ENOENT;
	int i = path_find(r, nh, port);
	return i < 0 ? -ENOENT : r->paths->p[i].weight;
}

int sl_ip4_route_del_path(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port)
{
	int rc;
	struct sl_route *r = static_route(fib, pfx, len, &rc);
	if (!r)
		return rc;
	if (!r->paths) {
		if (!r->npaths || r->nh[SL_SRC_STATIC] != nh || (port >= 0 && r->port != port))
			return -ENOENT;
		return sl_ip4_route_del(fib, pfx, len);
	}
	int i = path_find(r, nh, port);
	if (i < 0)
		return -ENOENT;
	struct sl_rpath gone = r->paths->p[i];
	if (r->npaths == 2) {
		rc = paths_drop(r, 1 - i);
	} else {
		int16_t map[SL_PATHS_MAX];
		for (int k = 0; k < SL_PATHS_MAX; k++)
			map[k] = (int16_t)(k < i ? k : k == i ? -1 : k - 1);
		memmove(&r->paths->p[i], &r->paths->p[i + 1],
			sizeof(r->paths->p[0]) * (size_t)(r->npaths - i - 1));
		r->npaths--;
		rc = paths_rebalance(r, map);
	}
	if (!rc)
		neigh_unref(gone.port, gone.nh);
	return rc;
}

/* ---------------- ARP (RFC 826) on the main lcore ---------------- */


#define MAIN_ERRORS(X)                                                    \
	X(MN_GLEAN_DROP, "packets dropped while resolving a next hop (4 held already)") \
	X(MN_HELD, "packets held while resolving a next hop (not a drop)") \
	X(MN_HELD_TIMEOUT, "held packets dropped: no ARP reply within 1 s") \
	X(MN_HELD_TTL, "held packets dropped: TTL expired")               \
	X(MN_HELD_MTU, "held packets dropped: larger than the MTU")       \
	X(MN_ARP_REQ, "ARP requests sent")                                \
	X(MN_ARP_REPLY, "ARP replies sent")                               \
	X(MN_ARP_LEARN, "ARP entries learnt or refreshed")                \
	X(MN_ARP_IGNORED, "ARP not for us and not in the table")          \
	X(MN_NOBUF, "no buffer for an ARP packet")
enum { MAIN_ERRORS(SL_ERR_ENUM) MN_NB };
static const char *const mn_reasons[] = {MAIN_ERRORS(SL_ERR_STR)};
static uint16_t mn_err;
RTE_INIT(mn_errors)
{
	mn_err = sl_error_register("arp (main)", mn_reasons, MN_NB);
}

static void arp_fill(struct rte_mbuf *m, uint16_t port, uint16_t op, const uint8_t *dmac,
		     uint32_t sip, const uint8_t *tmac, uint32_t tip)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eh + 1);
	memcpy(&eh->dst_addr, dmac, 6);
	eh->src_addr = sl_ifaces[port].mac;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = 6;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	a->arp_data.arp_sha = sl_ifaces[port].mac;
	a->arp_data.arp_sip = rte_cpu_to_be_32(sip);
	memcpy(&a->arp_data.arp_tha, tmac, 6);
	a->arp_data.arp_tip = rte_cpu_to_be_32(tip);
	m->data_len = m->pkt_len = 60; /* minimum frame, zero padded */
	memset((uint8_t *)(a + 1), 0, 60 - sizeof(*eh) - sizeof(*a));
}

void sl_arp_request(uint16_t port, uint32_t ip)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, zero[6] = {0};
	uint32_t sip = connected_src(port, ip);
	if (!sip)
		sip = sl_ifaces[port].ip4;
	if (!sip || !sl_ifaces[port].up || sl_ifaces[port].p2p)
		return;
	struct sl_neigh *n = sl_neigh_find(port, ip);
	uint64_t now = rte_rdtsc();
	if (n) {
		/* at most ten requests a second per neighbour */
		if (n->last_req && now - n->last_req < rte_get_tsc_hz() / 10)
			return;
		n->last_req = now;
	}
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	if (!m) {
		sl_main_ctx->errors[mn_err + MN_NOBUF]++;
		return;
	}
	arp_fill(m, port, RTE_ARP_OP_REQUEST, bcast, sip, zero, ip);
	sl_main_ctx->errors[mn_err + MN_ARP_REQ]++;
	sl_iface_inject(m, port);
}

static void arp_input(struct rte_mbuf *m)
{
	uint16_t port = m->port;
	struct rte_arp_hdr *a = rte_pktmbuf_mtod(m, struct rte_arp_hdr *);
	uint32_t sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	uint32_t tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	uint8_t smac[6];
	memcpy(smac, &a->arp_data.arp_sha, 6);
	bool for_us = false;
	for (int i = 0; i < sl_ifaces[port].naddr; i++)
		for_us |= sl_ifaces[port].addrs[i] == tip;
	/* RFC 826: merge the sender if known; add it if the packet is for us */
	bool known = sl_neigh_find(port, sip) != NULL;
	if (sip && connected_src(port, sip) && !rte_is_multicast_ether_addr((void *)smac) &&
	    (for_us || known)) {
		sl_ip4_neigh_set(port, sip, smac, false);
		sl_main_ctx->errors[mn_err + MN_ARP_LEARN]++;
	}
	if (for_us && a->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST)) {
		rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN);
		arp_fill(m, port, RTE_ARP_OP_REPLY, smac, tip, smac, sip);
		sl_main_ctx->errors[mn_err + MN_ARP_REPLY]++;
		sl_iface_inject(m, port);
		return;
	}
	if (!for_us && !known)
		sl_main_ctx->errors[mn_err + MN_ARP_IGNORED]++;
	rte_pktmbuf_free(m);
}

void sl_ip4_punt(struct rte_mbuf *m)
{
	if (sl_meta2(m)->punt == SL_PUNT_ARP) {
		arp_input(m);
		return;
	}
	sl_ip4_hold(m, sl_meta(m)->adj);
}

void sl_ip4_hold(struct rte_mbuf *m, uint32_t adj_id)
{
	const struct sl_adj *adj = sl_adj_get(adj_id);
	struct sl_neigh *n = NULL;
	if (adj->type == SL_ADJ_GLEAN) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
		uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
		n = neigh_get(adj->port, dst);
		sl_arp_request(adj->port, dst);
	} else if (adj->type == SL_ADJ_INCOMPLETE) {
		n = sl_neigh_find(adj->port, adj->nh);
		sl_arp_request(adj->port, adj->nh);
	}
	if (n && n->state != SL_NEIGH_INCOMPLETE) {
		/* resolved since the worker looked: send it now */
		n->held[n->nheld++] = m;
		held_release(n);
		return;
	}
	if (n && n->nheld < SL_NEIGH_HOLD) {
		if (!n->nheld)
			n->held_since = rte_rdtsc();
		n->held[n->nheld++] = m;
		sl_main_ctx->errors[mn_err + MN_HELD]++;
		return;
	}
	sl_main_ctx->errors[mn_err + MN_GLEAN_DROP]++;
	sl_main_ctx->ifc[m->port].drops++;
	rte_pktmbuf_free(m);
}

int sl_ip4_send(uint16_t fib, struct rte_mbuf *m, uint32_t dst)
{
	uint32_t id = sl_adj_first_path(sl_ip4_fib_lookup(fib, dst));
	const struct sl_adj *a = sl_adj_get(id);
	if (a->type == SL_ADJ_INCOMPLETE || a->type == SL_ADJ_GLEAN) {
		/* held packets leave as routed ones, their TTL one less: this router's own
		 * leaves with the TTL it was given */
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
		if (ip->time_to_live < 255) {
			ip->time_to_live++;
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		sl_ip4_hold(m, id);
		return 0;
	}
	return sl_adj_inject(m, a);
}

int sl_adj_inject(struct rte_mbuf *m, const struct sl_adj *a)
{
	uint8_t *eh = a->type == SL_ADJ_FORWARD
			      ? (uint8_t *)rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN) : NULL;
	if (!eh) {
		rte_pktmbuf_free(m);
		return -EHOSTUNREACH;
	}
	memcpy(eh, a->rewrite, RTE_ETHER_HDR_LEN);
	return sl_iface_inject(m, a->port);
}

static int age_one(const struct sl_neigh *cn, void *arg)
{
	uint64_t now = *(uint64_t *)arg, hz = rte_get_tsc_hz();
	struct sl_neigh *n = (struct sl_neigh *)cn;
	if (n->nheld && now - n->held_since > SL_NEIGH_HOLD_MS * hz / 1000)
		held_drop(n);
	if (n->state == SL_NEIGH_DYNAMIC && now - n->last_seen > sl_neigh_age_s * hz) {
		sl_ip4_neigh_del(n->port, n->ip);
		return 1; /* the table changed: restart next tick */
	}
	if (n->state == SL_NEIGH_INCOMPLETE && n->refcnt == 0 && now - n->created > 3 * hz) {
		neigh_free(n);
		return 1;
	}
	return 0;
}

void sl_ip4_tick(uint64_t now)
{
	for (int i = 0; i < 64 && sl_neigh_walk(age_one, &now); i++)
		;
}

/* ---------------- interface deletion ---------------- */

struct neigh_on {
	uint16_t port;
	const struct sl_neigh *hit;
	bool routed; /* only neighbours that routes or static entries hold */
};

static int neigh_on_fn(const struct sl_neigh *n, void *arg)
{
	struct neigh_on *a = arg;
	/* a point-to-point interface's neighbours are static only because it has no ARP */
	bool pinned = n->state == SL_NEIGH_STATIC && !sl_ifaces[n->port].p2p;
	if (n->port != a->port || (a->routed && !n->refcnt && !pinned))
		return 0;
	a->hit = n;
	return 1;
}

/* An interface with addresses, static neighbours or routes through it is not deleted; the
 * neighbours it learnt (and their host routes) go with it. */
static int ip4_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	struct neigh_on a = {.port = f->port, .routed = !commit};
	if (commit) {
		while (sl_neigh_walk(neigh_on_fn, &a) && a.hit) {
			struct sl_neigh *n = (struct sl_neigh *)(uintptr_t)a.hit;
			a.hit = NULL;
			neigh_free(n);
		}
		return 0;
	}
	char ip[32];
	if (f->naddr) {
		sl_fmt_ip4(ip, f->addrs[0]);
		snprintf(why, len, "%s has address %s/%u (set interface ip address del)", f->name, ip,
			 f->plens[0]);
		return 1;
	}
	if (sl_neigh_walk(neigh_on_fn, &a) && a.hit) {
		sl_fmt_ip4(ip, a.hit->ip);
		snprintf(why, len, "%s is the interface of %s %s", f->name,
			 a.hit->refcnt ? "a route via" : "static neighbour", ip);
		return 1;
	}
	return 0;
}

RTE_INIT(ip4_busy_init)
{
	sl_iface_busy_register(ip4_busy);
	sl_iface_watch(adj_sync);
	sl_punt_register(SL_PUNT_ARP, sl_ip4_punt);
	sl_punt_register(SL_PUNT_GLEAN, sl_ip4_punt);
}

static int ip4_module_init(const struct sl_config *c)
{
	return sl_ip4_init(c->ip4_max_routes, c->ip4_tbl8s);
}
SL_MODULE_REGISTER(ip4_module, .name = "ip4 (FIB, adjacencies, neighbours)",
		   .init = ip4_module_init, .tick = sl_ip4_tick, .fini = sl_ip4_fini)

/* ---------------- FIB tables (VRFs) ---------------- */

int sl_ip4_table_find(uint32_t id)
{
	for (int t = 0; t < SL_FIB_MAX; t++)
		if (sl_fibs[t] && sl_fib_ids[t] == id)
			return t;
	return -1;
}

int sl_ip4_table_add(uint32_t id)
{
	int t = sl_ip4_table_find(id);
	if (t >= 0)
		return t; /* as VPP: adding an existing table is not an error */
	t = 1;
	while (t < SL_FIB_MAX && sl_fibs[t])
		t++;
	if (t == SL_FIB_MAX)
		return -ENOSPC;
	struct rte_fib *f = fib_create(id, vrf_max_routes, vrf_tbl8s);
	if (!f)
		return -ENOMEM;
	sl_fib_ids[t] = id;
	__atomic_store_n(&sl_fibs[t], f, __ATOMIC_RELEASE);
	nb_fibs++;
	__atomic_store_n(&sl_fib_multi, true, __ATOMIC_RELEASE);
	return t;
}

static int (*table_users[4])(uint16_t fib, char *why, size_t len);

void sl_table_user_register(int (*fn)(uint16_t fib, char *why, size_t len))
{
	for (unsigned i = 0; i < RTE_DIM(table_users); i++)
		if (!table_users[i]) {
			table_users[i] = fn;
			return;
		}
	RTE_VERIFY(0);
}

int sl_ip4_table_del(uint32_t id, char *why, size_t len)
{
	int t = sl_ip4_table_find(id);
	if (t < 0) {
		snprintf(why, len, "no table %u", id);
		return -ENOENT;
	}
	if (t == 0) {
		snprintf(why, len, "table 0 is the default table and stays");
		return -EPERM;
	}
	for (uint32_t i = 0; i < sl_if_hwm; i++)
		if (sl_ifaces[i].used && sl_ifaces[i].fib == t) {
			snprintf(why, len, "interface %s is in table %u", sl_ifaces[i].name, id);
			return -EBUSY;
		} else if (sl_ifaces[i].used && sl_ifaces[i].outer_fib == t) {
			snprintf(why, len, "tunnel %s encapsulates in table %u", sl_ifaces[i].name, id);
			return -EBUSY;
		}
	for (unsigned i = 0; i < RTE_DIM(table_users) && table_users[i]; i++)
		if (table_users[i]((uint16_t)t, why, len))
			return -EBUSY;
	/* no interface is left in it, so only static routes are: they go with the table */
	const void *k;
	void *d;
	uint32_t it = 0, n = 0;
	struct sl_route **v = malloc(sizeof(*v) * (nroutes + 1));
	if (!v)
		return -ENOMEM;
	while (rte_hash_iterate(rib, &k, &d, &it) >= 0)
		if (((struct sl_route *)d)->fib == t)
			v[n++] = d;
	for (uint32_t i = 0; i < n; i++)
		sl_ip4_route_del((uint16_t)t, v[i]->pfx, v[i]->len);
	free(v);
	sl_ip6_table_gone((uint16_t)t);
	sl_fh_reset((uint16_t)t); /* a table made again at this index starts from the defaults */
	struct rte_fib *f = sl_fibs[t];
	__atomic_store_n(&sl_fibs[t], NULL, __ATOMIC_RELEASE);
	if (--nb_fibs == 1)
		__atomic_store_n(&sl_fib_multi, false, __ATOMIC_RELEASE);
	sl_rcu_sync(); /* its name may be created again at once */
	rte_fib_free(f);
	return 0;
}

int sl_ip4_table_set(uint16_t ifx, uint16_t fib, char *why, size_t len)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	if (f->fib == fib)
		return 0;
	if (f->naddr) {
		snprintf(why, len, "%s has IPv4 addresses: delete them first", f->name);
		return -EBUSY;
	}
	struct neigh_on a = {.port = ifx, .routed = true};
	if (sl_neigh_walk(neigh_on_fn, &a) && a.hit) {
		snprintf(why, len, "%s has static neighbours or routes through it: delete them first",
			 f->name);
		return -EBUSY;
	}
	int rc = sl_ip6_table_busy(ifx, why, len);
	if (rc)
		return rc;
	if ((rc = sl_ip6_table_move(ifx, fib))) {
		snprintf(why, len, "no room in table %u's IPv6 FIB for %s's link-local", sl_fib_ids[fib],
			 f->name);
		return rc;
	}
	a.routed = false; /* what it learnt in the old table goes */
	while (sl_neigh_walk(neigh_on_fn, &a) && a.hit) {
		struct sl_neigh *n = (struct sl_neigh *)(uintptr_t)a.hit;
		a.hit = NULL;
		neigh_free(n);
	}
	__atomic_store_n(&f->fib, fib, __ATOMIC_RELEASE);
	return 0;
}


/* ---------------- packets held while a next hop resolves ---------------- */

static void held_drop(struct sl_neigh *n)
{
	for (uint8_t i = 0; i < n->nheld; i++) {
		sl_main_ctx->errors[mn_err + MN_HELD_TIMEOUT]++;
		sl_main_ctx->ifc[n->held[i]->port].drops++;
		rte_pktmbuf_free(n->held[i]);
	}
	n->nheld = 0;
}

/* The next hop is known: each held packet gets what ip4-rewrite would have done (TTL,
 * checksum, Ethernet header) and leaves through worker 0, in the order it came. */
static void held_release(struct sl_neigh *n)
{
	const struct sl_iface *f = &sl_ifaces[n->port];
	for (uint8_t i = 0; i < n->nheld; i++) {
		struct rte_mbuf *m = n->held[i];
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
		struct rte_ether_hdr *eh;
		/* RFC 1812 5.3.1 */
		if (ip->time_to_live <= 1 ||
		    !(eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN))) {
			sl_main_ctx->errors[mn_err + MN_HELD_TTL]++;
			sl_main_ctx->ifc[m->port].drops++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (m->pkt_len - RTE_ETHER_HDR_LEN > f->mtu) { /* ip4-frag is the workers' */
			sl_main_ctx->errors[mn_err + MN_HELD_MTU]++;
			sl_main_ctx->ifc[m->port].drops++;
			rte_pktmbuf_free(m);
			continue;
		}
		ip->time_to_live--;
		ip->hdr_checksum = sl_cksum_ttl_dec(ip->hdr_checksum);
		memcpy(&eh->dst_addr, n->mac, 6);
		eh->src_addr = f->mac;
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		sl_iface_inject(m, n->port);
	}
	n->nheld = 0;
}

static int flush_one(const struct sl_neigh *cn, void *arg)
{
	(void)arg;
	held_drop((struct sl_neigh *)(uintptr_t)cn);
	return 0;
}

void sl_ip4_held_flush(void)
{
	if (neighs)
		sl_neigh_walk(flush_one, NULL);
}
