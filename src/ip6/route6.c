/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 control plane (main lcore only): the RIB (exact routes by source) compiled into one
 * rte_fib6 per FIB table, addresses and link-locals, static routes with ECMP/UCMP paths
 * (IPv4's load-balances), and neighbour discovery (RFC 4861): NS/NA sent and answered,
 * neighbours through INCOMPLETE, REACHABLE, STALE, DELAY and PROBE, packets held while
 * their next hop resolves. Adjacencies are IPv4's (src/ip4/route.c) with an IPv6 rewrite;
 * an IPv6 adjacency's nh is its neighbour's id. */
#include "ip6.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_icmp.h>
#include <rte_jhash.h>

struct rte_fib6 *sl_fib6s[SL_FIB_MAX];
const char *const sl_nd_state_names[SL_ND_NB_STATES] = {"incomplete", "reachable", "stale",
							 "delay", "probe", "static"};
static uint32_t max_routes6 = 1 << 16, tbl8s6 = 1 << 12;
static struct rte_hash *rib6, *neighs6;
static struct sl_neigh6 *by_id[SL_ND_MAX];
static uint32_t ids_free[SL_ND_MAX], nids_free;
static uint32_t glean6_adj[SL_IF_MAX];
static uint32_t nroutes6;

#define MAIN6_ERRORS(X)                                                                   \
	X(M6_HELD, "packets held while resolving a next hop (not a drop)")                \
	X(M6_HOLD_DROP, "packets dropped while resolving a next hop (4 held already)")    \
	X(M6_HELD_TIMEOUT, "held packets dropped: no neighbour advertisement within 1 s") \
	X(M6_HELD_HLIM, "held packets dropped: hop limit expired")                        \
	X(M6_HELD_MTU, "held packets dropped: larger than the MTU")                       \
	X(M6_NS_SENT, "neighbour solicitations sent")                                     \
	X(M6_NA_SENT, "neighbour advertisements sent")                                    \
	X(M6_LEARN, "neighbours learnt or refreshed")                                     \
	X(M6_NS_NOT_OURS, "solicitation for a target that is not ours")                   \
	X(M6_NA_UNKNOWN, "advertisement for no neighbour of ours (ignored)")              \
	X(M6_ND_BAD, "invalid neighbour discovery message (RFC 4861 7.1)")                \
	X(M6_GONE, "neighbour unreachable after probes: removed")                         \
	X(M6_NOBUF, "no buffer for a neighbour discovery packet")
enum { MAIN6_ERRORS(SL_ERR_ENUM) M6_NB };
static const char *const m6_reasons[] = {MAIN6_ERRORS(SL_ERR_STR)};
static uint16_t m6_err;

static inline void m6_count(unsigned e)
{
	sl_main_ctx->errors[m6_err + e]++;
}

static uint64_t ms_tsc(uint64_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

void sl_fmt_ip6(char *buf, const uint8_t ip[16])
{
	inet_ntop(AF_INET6, ip, buf, 46);
}

void sl_ip6_pfx_mask(uint8_t out[16], const uint8_t in[16], uint8_t len)
{
	for (int i = 0; i < 16; i++) {
		int bits = RTE_MAX(0, RTE_MIN(8, (int)len - 8 * i));
		out[i] = in[i] & (uint8_t)(0xff00 >> bits);
	}
}

static bool pfx_match(const uint8_t a[16], const uint8_t b[16], uint8_t len)
{
	uint8_t x[16], y[16];
	sl_ip6_pfx_mask(x, a, len);
	sl_ip6_pfx_mask(y, b, len);
	return !memcmp(x, y, 16);
}

/* ---------------- FIBs ---------------- */

int sl_ip6_fib_get(uint16_t fib)
{
	if (fib >= SL_FIB_MAX || !sl_fibs[fib])
		return -ENXIO;
	if (sl_fib6s[fib])
		return 0;
	struct rte_fib6_conf cfg = {
		.type = RTE_FIB6_TRIE, .default_nh = SL_ADJ_ID_DROP,
		/* VRFs are smaller, as IPv4's are (route.c) */
		.max_routes = (int)(fib ? RTE_MIN(max_routes6, 1u << 16) : max_routes6),
		.trie = {.nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = fib ? RTE_MIN(tbl8s6, 1u << 10) : tbl8s6},
	};
	char name[32];
	snprintf(name, sizeof(name), "sl_ip6_%u", sl_fib_ids[fib]);
	struct rte_fib6 *f = rte_fib6_create(name, SOCKET_ID_ANY, &cfg);
	if (!f)
		return -ENOMEM;
	__atomic_store_n(&sl_fib6s[fib], f, __ATOMIC_RELEASE);
	/* multicast for us: all-nodes, all-routers, every solicited-node group (RFC 4291
	 * 2.7.1; ip6-local and the main lcore's ND look further) */
	static const uint8_t all_nodes[16] = {0xff, 2, [15] = 1}, all_routers[16] = {0xff, 2, [15] = 2},
			     sol[16] = {0xff, 2, [11] = 1, [12] = 0xff};
	/* other groups: no multicast routing, so never forwarded (a default route would) */
	static const uint8_t mcast[16] = {0xff};
	rte_fib6_add(f, mcast, 8, SL_ADJ_ID_DROP);
	rte_fib6_add(f, all_nodes, 128, SL_ADJ_ID_LOCAL);
	rte_fib6_add(f, all_routers, 128, SL_ADJ_ID_LOCAL);
	rte_fib6_add(f, sol, 104, SL_ADJ_ID_LOCAL);
	return 0;
}

/* ---------------- RIB ---------------- */

struct rkey6 {
	uint8_t pfx[16];
	uint8_t len;
	uint8_t pad;
	uint16_t fib;
};

static struct sl_route6 *rib_find(uint16_t fib, const uint8_t pfx[16], uint8_t len)
{
	struct rkey6 k = {.len = len, .fib = fib};
	sl_ip6_pfx_mask(k.pfx, pfx, len);
	void *d;
	return rte_hash_lookup_data(rib6, &k, &d) >= 0 ? d : NULL;
}

const struct sl_route6 *sl_ip6_rib_find(uint16_t fib, const uint8_t pfx[16], uint8_t len)
{
	return rib6 ? rib_find(fib, pfx, len) : NULL;
}

static uint32_t route_active(const struct sl_route6 *r)
{
	for (int s = 0; s < SL_SRC_N; s++)
		if (r->present & (1u << s))
			return r->adj[s];
	return 0;
}

static void route_free(struct sl_route6 *r)
{
	struct rkey6 k = {.len = r->len, .fib = r->fib};
	memcpy(k.pfx, r->pfx, 16);
	rte_hash_del_key(rib6, &k);
	free(r->paths);
	free(r->owner);
	free(r);
	nroutes6--;
}

/* Sets or clears (adj = ~0) one source of a prefix and reprograms the FIB. */
static int rib_set(uint16_t fib, const uint8_t pfx_in[16], uint8_t len, int src, uint32_t adj)
{
	int rc = sl_ip6_fib_get(fib);
	if (rc)
		return rc;
	struct rkey6 k = {.len = len, .fib = fib};
	sl_ip6_pfx_mask(k.pfx, pfx_in, len);
	struct sl_route6 *r = rib_find(fib, k.pfx, len);
	if (!r) {
		if (adj == ~0u)
			return -ENOENT;
		r = calloc(1, sizeof(*r));
		if (!r)
			return -ENOMEM;
		memcpy(r->pfx, k.pfx, 16);
		r->len = len;
		r->fib = fib;
		if (rte_hash_add_key_data(rib6, &k, r)) {
			free(r);
			return -ENOSPC;
		}
		nroutes6++;
	}
	uint32_t before = r->present ? route_active(r) : ~0u;
	if (adj == ~0u) {
		if (!(r->present & (1u << src)))
			return -ENOENT;
		r->present &= (uint8_t)~(1u << src);
	} else {
		r->present |= (uint8_t)(1u << src);
		r->adj[src] = adj;
	}
	if (!r->present) {
		rte_fib6_delete(sl_fib6s[fib], k.pfx, len);
		__atomic_fetch_add(&sl_fib_gen, 1, __ATOMIC_RELEASE);
		/* the trie recycles a tbl8 group at once (as IPv4's DIR-24-8 does): no later add
		 * may reuse it while a worker may still index it */
		if (len > 24)
			sl_rcu_sync();
		route_free(r);
		return 0;
	}
	uint32_t after = route_active(r);
	if (after != before)
		rc = rte_fib6_add(sl_fib6s[fib], k.pfx, len, after);
	if (rc) {
		r->present &= (uint8_t)~(1u << src);
		if (!r->present)
			route_free(r);
	}
	/* after the change: a tunnel's cached next hop is looked up again */
	__atomic_fetch_add(&sl_fib_gen, 1, __ATOMIC_RELEASE);
	return rc;
}

uint32_t sl_ip6_route_count(void)
{
	return nroutes6;
}

int sl_ip6_rib_walk(int (*fn)(const struct sl_route6 *r, void *arg), void *arg)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rib6 && rte_hash_iterate(rib6, &k, &d, &it) >= 0)
		if (fn(d, arg))
			return 1;
	return 0;
}

/* ---------------- addresses ---------------- */

/* The address of port whose subnet holds ip, or NULL. */
static const uint8_t *connected_src(uint16_t port, const uint8_t ip[16])
{
	const struct sl_iface *f = &sl_ifaces[port];
	if (sl_ip6_is_ll(ip))
		return sl_ip6_is_zero(f->ip6_ll) ? NULL : f->ip6_ll;
	for (int i = 0; i < f->naddr6; i++)
		if (pfx_match(f->addrs6[i], ip, f->plens6[i]))
			return f->addrs6[i];
	return NULL;
}

static int connected_port(uint16_t fib, const uint8_t ip[16])
{
	if (sl_ip6_is_ll(ip))
		return -1; /* on every link: the interface must be named */
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		if (sl_ifaces[p].used && sl_ifaces[p].fib == fib && connected_src((uint16_t)p, ip))
			return (int)p;
	return -1;
}

/* Our address on port that is target (ND), or NULL. */
static bool is_ours(uint16_t port, const uint8_t t[16])
{
	const struct sl_iface *f = &sl_ifaces[port];
	if (!sl_ip6_is_zero(f->ip6_ll) && !memcmp(f->ip6_ll, t, 16))
		return true;
	for (int i = 0; i < f->naddr6; i++)
		if (!memcmp(f->addrs6[i], t, 16))
			return true;
	return false;
}

/* The source for a packet of ours to dst out of port: the link-local for a link-local
 * destination, else the address on dst's subnet, the first global, the link-local. */
static const uint8_t *src_for(uint16_t port, const uint8_t dst[16])
{
	const struct sl_iface *f = &sl_ifaces[port];
	if (!sl_ip6_is_ll(dst)) {
		const uint8_t *a = connected_src(port, dst);
		if (a)
			return a;
		if (f->naddr6)
			return f->addrs6[0];
	}
	return f->ip6_ll;
}

static int local_add(uint16_t fib, const uint8_t ip[16])
{
	struct sl_route6 *r = rib_find(fib, ip, 128);
	if (r && (r->present & (1u << SL_SRC_LOCAL))) {
		r->local_refs++;
		return 0;
	}
	int rc = rib_set(fib, ip, 128, SL_SRC_LOCAL, SL_ADJ_ID_LOCAL);
	if (!rc)
		rib_find(fib, ip, 128)->local_refs = 1;
	return rc;
}

static void local_del(uint16_t fib, const uint8_t ip[16])
{
	struct sl_route6 *r = rib_find(fib, ip, 128);
	if (!r || !(r->present & (1u << SL_SRC_LOCAL)))
		return;
	if (--r->local_refs == 0)
		rib_set(fib, ip, 128, SL_SRC_LOCAL, ~0u);
}

int sl_ip6_enable(uint16_t port, const uint8_t *ll)
{
	struct sl_iface *f = &sl_ifaces[port];
	if (!f->used)
		return -ENODEV;
	uint8_t a[16] = {0xfe, 0x80};
	if (ll) {
		if (!sl_ip6_is_ll(ll))
			return -EINVAL;
		memcpy(a, ll, 16);
	} else {
		if (!sl_ip6_is_zero(f->ip6_ll))
			return 0;
		const uint8_t *m = f->mac.addr_bytes; /* RFC 4291 appendix A: modified EUI-64 */
		uint8_t eui[8] = {m[0] ^ 2, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]};
		memcpy(a + 8, eui, 8);
	}
	if (!sl_ip6_is_zero(f->ip6_ll) && !memcmp(f->ip6_ll, a, 16))
		return 0;
	int rc = local_add(f->fib, a);
	if (rc)
		return rc;
	if (!sl_ip6_is_zero(f->ip6_ll))
		local_del(f->fib, f->ip6_ll);
	memcpy(f->ip6_ll, a, 16);
	f->ll6_conf = ll != NULL;
	return 0;
}

int sl_ip6_addr_add(uint16_t port, const uint8_t ip[16], uint8_t len)
{
	struct sl_iface *f = &sl_ifaces[port];
	if (!f->used)
		return -ENODEV;
	if (len == 0 || len > 128 || sl_ip6_is_zero(ip) || sl_ip6_is_mcast(ip) ||
	    sl_ip6_is_loopback(ip) || sl_ip6_is_ll(ip))
		return -EINVAL;
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		for (int i = 0; sl_ifaces[p].used && sl_ifaces[p].fib == f->fib &&
				i < sl_ifaces[p].naddr6; i++)
			if (!memcmp(sl_ifaces[p].addrs6[i], ip, 16))
				return -EEXIST;
	if (f->naddr6 >= SL_IF_MAX_ADDRS)
		return -EMLINK; /* the interface's addresses, not the table, are full */
	int rc = sl_ip6_enable(port, NULL);
	if (rc)
		return rc;
	if ((rc = local_add(f->fib, ip)))
		return rc;
	if (len < 128) {
		if (!glean6_adj[port] &&
		    sl_adj_alloc(sl_adj_new(SL_ADJ_GLEAN, port, 0, NULL, RTE_ETHER_TYPE_IPV6),
				 &glean6_adj[port])) {
			local_del(f->fib, ip);
			return -ENOSPC;
		}
		if ((rc = rib_set(f->fib, ip, len, SL_SRC_CONNECTED, glean6_adj[port]))) {
			local_del(f->fib, ip);
			return rc;
		}
	}
	memcpy(f->addrs6[f->naddr6], ip, 16);
	f->plens6[f->naddr6++] = len;
	return 0;
}

int sl_ip6_addr_del(uint16_t port, const uint8_t ip[16], uint8_t len)
{
	struct sl_iface *f = &sl_ifaces[port];
	int i;
	for (i = 0; i < f->naddr6; i++)
		if (!memcmp(f->addrs6[i], ip, 16) && f->plens6[i] == len)
			break;
	if (i == f->naddr6)
		return -ENOENT;
	local_del(f->fib, ip);
	if (len < 128)
		rib_set(f->fib, ip, len, SL_SRC_CONNECTED, ~0u);
	f->naddr6--;
	memmove(&f->addrs6[i], &f->addrs6[i + 1], (size_t)(f->naddr6 - i) * 16);
	memmove(&f->plens6[i], &f->plens6[i + 1], (size_t)(f->naddr6 - i));
	return 0;
}

/* ---------------- neighbours ---------------- */

struct nkey6 {
	uint8_t ip[16];
	uint16_t port;
	uint16_t pad;
};

static struct sl_neigh6 *neigh_find(uint16_t port, const uint8_t ip[16])
{
	struct nkey6 k = {.port = port};
	memcpy(k.ip, ip, 16);
	void *d;
	return neighs6 && rte_hash_lookup_data(neighs6, &k, &d) >= 0 ? d : NULL;
}

const struct sl_neigh6 *sl_ip6_neigh_find(uint16_t port, const uint8_t ip[16])
{
	return neigh_find(port, ip);
}

const struct sl_neigh6 *sl_ip6_neigh_by_id(uint32_t id)
{
	return id < SL_ND_MAX ? by_id[id] : NULL;
}

int sl_ip6_neigh_walk(int (*fn)(const struct sl_neigh6 *n, void *arg), void *arg)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	while (neighs6 && rte_hash_iterate(neighs6, &k, &d, &it) >= 0)
		if (fn(d, arg))
			return 1;
	return 0;
}

static struct sl_adj *adj6(uint8_t type, const struct sl_neigh6 *n)
{
	return sl_adj_new(type, n->port, n->id, type == SL_ADJ_FORWARD ? n->mac : NULL,
			  RTE_ETHER_TYPE_IPV6);
}

static struct sl_neigh6 *neigh_get(uint16_t port, const uint8_t ip[16])
{
	struct sl_neigh6 *n = neigh_find(port, ip);
	if (n)
		return n;
	if (nids_free == 0 || !(n = calloc(1, sizeof(*n))))
		return NULL;
	n->port = port;
	memcpy(n->ip, ip, 16);
	n->state = SL_ND_INCOMPLETE;
	n->created = n->since = rte_rdtsc();
	n->id = ids_free[--nids_free];
	if (sl_adj_alloc(adj6(SL_ADJ_INCOMPLETE, n), &n->adj)) {
		ids_free[nids_free++] = n->id;
		free(n);
		return NULL;
	}
	struct nkey6 k = {.port = port};
	memcpy(k.ip, ip, 16);
	if (rte_hash_add_key_data(neighs6, &k, n)) {
		sl_adj_release(n->adj);
		ids_free[nids_free++] = n->id;
		free(n);
		return NULL;
	}
	by_id[n->id] = n;
	/* a point-to-point link (an IP tunnel) reaches every neighbour as it is: no ND */
	if (sl_ifaces[port].p2p)
		sl_ip6_neigh_set(port, ip, (const uint8_t[6]){0}, true);
	return n;
}

static void held_drop(struct sl_neigh6 *n)
{
	for (uint8_t i = 0; i < n->nheld; i++) {
		m6_count(M6_HELD_TIMEOUT);
		sl_main_ctx->ifc[n->held[i]->port].drops++;
		rte_pktmbuf_free(n->held[i]);
	}
	n->nheld = 0;
}

/* The neighbour's MAC is known: each held packet gets what ip6-rewrite does (hop limit,
 * Ethernet header) and leaves through worker 0, in the order it came. */
static void held_release(struct sl_neigh6 *n)
{
	const struct sl_iface *f = &sl_ifaces[n->port];
	for (uint8_t i = 0; i < n->nheld; i++) {
		struct rte_mbuf *m = n->held[i];
		struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
		struct rte_ether_hdr *eh;
		if (ip->hop_limits <= 1 ||
		    !(eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN))) {
			m6_count(M6_HELD_HLIM);
			sl_main_ctx->ifc[m->port].drops++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (m->pkt_len - RTE_ETHER_HDR_LEN > f->mtu) {
			m6_count(M6_HELD_MTU);
			sl_main_ctx->ifc[m->port].drops++;
			rte_pktmbuf_free(m);
			continue;
		}
		ip->hop_limits--;
		memcpy(&eh->dst_addr, n->mac, 6);
		eh->src_addr = f->mac;
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		sl_iface_inject(m, n->port);
	}
	n->nheld = 0;
}

static void neigh_free(struct sl_neigh6 *n)
{
	struct nkey6 k = {.port = n->port};
	memcpy(k.ip, n->ip, 16);
	if (n->host_route)
		rib_set(sl_ifaces[n->port].fib, n->ip, 128, SL_SRC_ADJ, ~0u);
	rte_hash_del_key(neighs6, &k);
	sl_adj_release(n->adj);
	held_drop(n);
	by_id[n->id] = NULL;
	ids_free[nids_free++] = n->id;
	free(n);
}

static void nd_state(struct sl_neigh6 *n, uint8_t st)
{
	n->state = st;
	n->since = rte_rdtsc();
	n->probes = 0;
}

/* The neighbour's link-layer address is mac (learnt, or configured). */
static int neigh_update(struct sl_neigh6 *n, const uint8_t mac[6], uint8_t st)
{
	bool same = n->state != SL_ND_INCOMPLETE && !memcmp(n->mac, mac, 6);
	nd_state(n, st);
	if (!same) {
		memcpy(n->mac, mac, 6);
		struct sl_adj *a = adj6(SL_ADJ_FORWARD, n);
		if (!a)
			return -ENOMEM;
		sl_adj_publish(n->adj, a);
	}
	held_release(n);
	if (!n->host_route && connected_src(n->port, n->ip) && !sl_ip6_is_ll(n->ip) &&
	    rib_set(sl_ifaces[n->port].fib, n->ip, 128, SL_SRC_ADJ, n->adj) == 0)
		n->host_route = true;
	return 0;
}

int sl_ip6_neigh_set(uint16_t port, const uint8_t ip[16], const uint8_t mac[6], bool is_static)
{
	if (!sl_ifaces[port].used)
		return -ENODEV;
	if (sl_ip6_is_mcast(ip) || (sl_ip6_is_zero(ip) && !sl_ifaces[port].p2p))
		return -EINVAL;
	if (sl_ifaces[port].ip6_ll[0] == 0 && sl_ip6_enable(port, NULL))
		return -ENOSPC;
	struct sl_neigh6 *n = neigh_get(port, ip);
	if (!n)
		return -ENOSPC;
	if (n->state == SL_ND_STATIC && !is_static)
		return 0; /* learning never overrides a static entry */
	return neigh_update(n, mac, is_static ? SL_ND_STATIC : SL_ND_STALE);
}

/* RFC 4861 7.2.3 (a neighbour solicitation) and 6.2.6 (a router solicitation): the
 * sender's link-layer address option creates its entry, STALE, or updates one whose address
 * differs; an entry already resolved to that address keeps its state. */
void sl_ip6_neigh_learn(uint16_t port, const uint8_t ip[16], const uint8_t mac[6])
{
	struct sl_neigh6 *n = neigh_find(port, ip);
	if (!n || n->state == SL_ND_INCOMPLETE || memcmp(n->mac, mac, 6))
		sl_ip6_neigh_set(port, ip, mac, false);
	m6_count(M6_LEARN);
}

/* Back to INCOMPLETE (routes use it) or gone. */
static void neigh_forget(struct sl_neigh6 *n)
{
	if (!n->refcnt) {
		neigh_free(n);
		return;
	}
	nd_state(n, SL_ND_INCOMPLETE);
	memset(n->mac, 0, 6);
	sl_adj_publish(n->adj, adj6(SL_ADJ_INCOMPLETE, n));
	if (n->host_route) {
		rib_set(sl_ifaces[n->port].fib, n->ip, 128, SL_SRC_ADJ, ~0u);
		n->host_route = false;
	}
}

int sl_ip6_neigh_del(uint16_t port, const uint8_t ip[16])
{
	struct sl_neigh6 *n = neigh_find(port, ip);
	if (!n || n->state == SL_ND_INCOMPLETE)
		return -ENOENT;
	neigh_forget(n);
	return 0;
}

/* ---------------- neighbour discovery messages ---------------- */


struct rte_mbuf *sl_ip6_ctl_frame(uint16_t port, const uint8_t *dmac, const uint8_t src[16],
				  const uint8_t dst[16], uint8_t hop_limit, bool alert,
				  uint16_t icmp_len, uint8_t **icmp)
{
	uint16_t ext = alert ? 8 : 0;
	struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN + 40 + ext + icmp_len)
		       : NULL;
	if (!p) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	uint8_t mcast[6] = {0x33, 0x33, dst[12], dst[13], dst[14], dst[15]};
	memcpy(&eh->dst_addr, dmac ? dmac : mcast, 6);
	eh->src_addr = sl_ifaces[port].mac;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
	ip->vtc_flow = RTE_BE32(0x60000000);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(ext + icmp_len));
	ip->proto = alert ? IPPROTO_HOPOPTS : IPPROTO_ICMPV6;
	ip->hop_limits = hop_limit;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	if (alert) { /* next header ICMPv6, length 0; router alert (RFC 2711) for MLD (0); PadN */
		static const uint8_t hbh[8] = {IPPROTO_ICMPV6, 0, 5, 2, 0, 0, 1, 0};
		memcpy(ip + 1, hbh, 8);
	}
	*icmp = (uint8_t *)(ip + 1) + ext;
	memset(*icmp, 0, icmp_len);
	return m;
}

struct rte_mbuf *sl_ip6_nd_frame(uint16_t port, const uint8_t *dmac, const uint8_t src[16],
				 const uint8_t dst[16], uint16_t icmp_len, uint8_t **icmp)
{
	/* RFC 4861 6.1 and 7.1: receivers check the hop limit */
	return sl_ip6_ctl_frame(port, dmac, src, dst, 255, false, icmp_len, icmp);
}

void sl_ip6_nd_send(struct rte_mbuf *m, uint16_t port)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint16_t ext = ip->proto == IPPROTO_HOPOPTS ? 8 : 0;
	uint8_t *ic = (uint8_t *)(ip + 1) + ext;
	uint16_t ck = (uint16_t)~sl_ip6_l4_sum(ip, ic, rte_be_to_cpu_16(ip->payload_len) - ext,
						IPPROTO_ICMPV6);
	memcpy(ic + 2, &ck, 2);
	sl_iface_inject(m, port);
}

/* An NS or NA from port: src, dst, the target, flags (NA), and our MAC as the option. */
static void nd_send(uint16_t port, const uint8_t *dmac, const uint8_t src[16],
		    const uint8_t dst[16], uint8_t type, uint8_t flags, const uint8_t target[16])
{
	uint8_t *ic;
	struct rte_mbuf *m = sl_ip6_nd_frame(port, dmac, src, dst, 24 + 8, &ic);
	if (!m) {
		m6_count(M6_NOBUF);
		return;
	}
	ic[0] = type;
	ic[4] = flags;
	memcpy(ic + 8, target, 16);
	ic[24] = type == SL_ICMP6_NS ? 1 : 2; /* source / target link-layer address */
	ic[25] = 1;
	memcpy(ic + 26, &sl_ifaces[port].mac, 6);
	m6_count(type == SL_ICMP6_NS ? M6_NS_SENT : M6_NA_SENT);
	sl_ip6_nd_send(m, port);
}

/* A solicitation for n: multicast to its solicited-node group, or unicast (probe). */
static void ns_send(struct sl_neigh6 *n, bool unicast)
{
	const struct sl_iface *f = &sl_ifaces[n->port];
	if (!f->up || sl_ip6_is_zero(f->ip6_ll) || f->p2p)
		return;
	uint8_t dst[16];
	if (unicast)
		memcpy(dst, n->ip, 16);
	else
		sl_ip6_sol_node(dst, n->ip);
	n->last_req = rte_rdtsc();
	n->probes++;
	nd_send(n->port, unicast ? n->mac : NULL, src_for(n->port, n->ip), dst, SL_ICMP6_NS, 0,
		n->ip);
}

/* Resolution wanted now (a route added, a packet punted): at most one NS a second. */
static void resolve(struct sl_neigh6 *n)
{
	if (n->state != SL_ND_INCOMPLETE)
		return;
	if (n->last_req && rte_rdtsc() - n->last_req < ms_tsc(SL_ND_RETRANS_MS))
		return;
	ns_send(n, false);
}

/* The link-layer address option of type want, or NULL; false when an option is malformed
 * (RFC 4861 7.1.1: length 0, or past the end). */
static bool nd_opt(const uint8_t *o, uint32_t len, uint8_t want, const uint8_t **mac)
{
	*mac = NULL;
	while (len >= 2) {
		uint32_t ol = o[1] * 8u;
		if (ol == 0 || ol > len)
			return false;
		if (o[0] == want && ol >= 8)
			*mac = o + 2;
		o += ol;
		len -= ol;
	}
	return true;
}

/* NS and NA punted by ip6-icmp-input (hop limit 255, code 0, checksum checked): the IPv6
 * header at the data, no extension headers. */
static void nd_input(struct rte_mbuf *m)
{
	uint16_t port = m->port;
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	const uint8_t *ic = (const uint8_t *)(ip + 1), *target = ic + 8, *mac;
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod_offset(m, const struct rte_ether_hdr *, -RTE_ETHER_HDR_LEN);
	bool unspec = sl_ip6_is_zero(ip->src_addr);
	if (len < 24 || len + 40u > m->data_len || sl_ip6_is_mcast(target) ||
	    !nd_opt(ic + 24, len - 24, ic[0] == SL_ICMP6_NS ? 1 : 2, &mac) ||
	    (ic[0] == SL_ICMP6_NS && unspec && mac)) {
		m6_count(M6_ND_BAD);
		goto done;
	}
	if (ic[0] == SL_ICMP6_NS) {
		if (!is_ours(port, target)) {
			m6_count(M6_NS_NOT_OURS);
			goto done;
		}
		/* RFC 4861 7.2.3: learn the sender (STALE), answer solicited and overriding;
		 * a DAD probe (unspecified source) is answered to all nodes */
		static const uint8_t all_nodes[16] = {0xff, 2, [15] = 1};
		if (unspec) {
			nd_send(port, NULL, target, all_nodes, SL_ICMP6_NA, 0xa0, target);
			goto done;
		}
		uint8_t src[16], smac[6];
		memcpy(src, ip->src_addr, 16);
		memcpy(smac, mac ? mac : eh->src_addr.addr_bytes, 6);
		if (mac)
			sl_ip6_neigh_learn(port, src, mac);
		nd_send(port, smac, target, src, SL_ICMP6_NA, 0xe0, target);
		goto done;
	}
	/* NA, RFC 4861 7.2.5 */
	uint8_t flags = ic[4];
	bool solicited = flags & 0x40, override = flags & 0x20;
	struct sl_neigh6 *n = neigh_find(port, target);
	if (!n || n->state == SL_ND_STATIC) {
		m6_count(M6_NA_UNKNOWN);
		goto done;
	}
	m6_count(M6_LEARN);
	n->router = flags & 0x80;
	if (n->state == SL_ND_INCOMPLETE) {
		if (mac)
			neigh_update(n, mac, solicited ? SL_ND_REACHABLE : SL_ND_STALE);
		goto done;
	}
	bool differs = mac && memcmp(mac, n->mac, 6);
	if (!override && differs) {
		if (n->state == SL_ND_REACHABLE)
			nd_state(n, SL_ND_STALE);
		goto done;
	}
	if (differs)
		neigh_update(n, mac, solicited ? SL_ND_REACHABLE : SL_ND_STALE);
	else if (solicited)
		nd_state(n, SL_ND_REACHABLE);
done:
	rte_pktmbuf_free(m);
}

/* A packet whose next hop is resolving: held (four per neighbour), or sent at once when
 * the neighbour resolved since the worker looked. */
static void hold(struct sl_neigh6 *n, struct rte_mbuf *m)
{
	if (n && n->state != SL_ND_INCOMPLETE) {
		n->held[n->nheld++] = m;
		held_release(n);
		return;
	}
	if (n && n->nheld < SL_NEIGH_HOLD) {
		if (!n->nheld)
			n->held_since = rte_rdtsc();
		n->held[n->nheld++] = m;
		m6_count(M6_HELD);
		resolve(n);
		return;
	}
	m6_count(M6_HOLD_DROP);
	sl_main_ctx->ifc[m->port].drops++;
	rte_pktmbuf_free(m);
}

/* ip6-glean: a connected destination (GLEAN) or a route's next hop (INCOMPLETE); ip6-local
 * and icmp6-error: a packet of ours to a link-local destination, out of the port it came
 * in by (SL_PUNT_LL6). */
/* The neighbour that packet m (its IPv6 header at its data) waits on: adj NULL, a link-local
 * destination on m->port's link; else adj's (a connected destination's, made if new, or a
 * route's next hop); NULL for any other adjacency. */
static struct sl_neigh6 *waits_on(struct rte_mbuf *m, const struct sl_adj *adj)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	if (!adj)
		return neigh_get(m->port, ip->dst_addr);
	if (adj->type == SL_ADJ_GLEAN)
		return neigh_get(adj->port, ip->dst_addr);
	if (adj->type == SL_ADJ_INCOMPLETE && adj->nh < SL_ND_MAX)
		return by_id[adj->nh];
	return NULL;
}

static void glean_input(struct rte_mbuf *m)
{
	hold(waits_on(m, sl_meta2(m)->punt == SL_PUNT_LL6 ? NULL : sl_adj_tbl[sl_meta(m)->adj]), m);
}

int sl_ip6_send(uint16_t fib, struct rte_mbuf *m)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	const struct sl_adj *a = NULL; /* a link-local destination: on m->port's link */
	if (!sl_ip6_is_ll(ip->dst_addr)) {
		struct rte_fib6 *f = fib < SL_FIB_MAX ? sl_fib6s[fib] : NULL;
		uint64_t hop = SL_ADJ_ID_DROP;
		if (f)
			rte_fib6_lookup_bulk(f, &ip->dst_addr, &hop, 1);
		a = sl_adj_get(sl_adj_first_path((uint32_t)hop));
	}
	if (!a || a->type == SL_ADJ_GLEAN || a->type == SL_ADJ_INCOMPLETE) {
		/* held packets leave with one hop less (held_release): ours with its own */
		ip->hop_limits += ip->hop_limits < 255;
		hold(waits_on(m, a), m);
		return 0;
	}
	return sl_adj_inject(m, a);
}

/* ---------------- aging: RFC 4861 7.3.3, on the main lcore's tick ---------------- */

static int age_one(const struct sl_neigh6 *cn, void *arg)
{
	uint64_t now = *(uint64_t *)arg;
	struct sl_neigh6 *n = (struct sl_neigh6 *)(uintptr_t)cn;
	uint64_t in = now - n->since;
	if (n->nheld && now - n->held_since > ms_tsc(SL_NEIGH_HOLD_MS))
		held_drop(n);
	switch (n->state) {
	case SL_ND_INCOMPLETE:
		if (n->refcnt == 0 && now - n->created > 3 * rte_get_tsc_hz()) {
			neigh_free(n);
			return 1; /* the table changed: go on next tick */
		}
		break;
	case SL_ND_REACHABLE:
		if (in > ms_tsc(SL_ND_REACHABLE_MS))
			nd_state(n, SL_ND_STALE);
		break;
	case SL_ND_STALE:
		/* no per-packet use is seen here: an entry that routes or a host route hold is
		 * in use and is confirmed; one that nothing holds goes after the ARP age */
		if (n->refcnt || n->host_route)
			nd_state(n, SL_ND_DELAY);
		else if (in > sl_neigh_age_s * rte_get_tsc_hz()) {
			neigh_free(n);
			return 1;
		}
		break;
	case SL_ND_DELAY:
		if (in > ms_tsc(SL_ND_DELAY_MS)) {
			nd_state(n, SL_ND_PROBE);
			ns_send(n, true);
		}
		break;
	case SL_ND_PROBE:
		if (now - n->last_req > ms_tsc(SL_ND_RETRANS_MS)) {
			if (n->probes >= SL_ND_MAX_UCAST) {
				m6_count(M6_GONE);
				bool freed = !n->refcnt;
				neigh_forget(n);
				if (freed)
					return 1;
			} else {
				ns_send(n, true);
			}
		}
		break;
	}
	return 0;
}

static void ip6_tick(uint64_t now)
{
	for (int i = 0; i < 64 && sl_ip6_neigh_walk(age_one, &now); i++)
		;
}

static int flush_one(const struct sl_neigh6 *cn, void *arg)
{
	(void)arg;
	held_drop((struct sl_neigh6 *)(uintptr_t)cn);
	return 0;
}

void sl_ip6_held_flush(void)
{
	sl_ip6_neigh_walk(flush_one, NULL);
}

/* ---------------- static routes (ECMP/UCMP over IPv4's load-balances) ---------------- */

static int path_find(const struct sl_route6 *r, const uint8_t nh[16], int port)
{
	for (int i = 0; i < r->npaths; i++)
		if (!memcmp(r->paths[i].nh, nh, 16) && (port < 0 || r->paths[i].port == port))
			return i;
	return -1;
}

/* Publishes r's load-balance from its paths (old: each old path's new index, or NULL). */
static int paths_rebalance(struct sl_route6 *r, const int16_t *old)
{
	uint16_t w[SL_PATHS_MAX];
	uint32_t adj[SL_PATHS_MAX];
	for (int i = 0; i < r->npaths; i++) {
		w[i] = r->paths[i].weight;
		adj[i] = neigh_find(r->paths[i].port, r->paths[i].nh)->adj;
	}
	sl_lb_assign(r->owner, old, w, r->npaths);
	return sl_lb_publish(r->lb, r->owner, adj, r->fib);
}

static void same_map(int16_t map[SL_PATHS_MAX], int n)
{
	for (int k = 0; k < SL_PATHS_MAX; k++)
		map[k] = (int16_t)(k < n ? k : -1);
}

static void neigh_unref(uint16_t port, const uint8_t nh[16])
{
	struct sl_neigh6 *n = neigh_find(port, nh);
	if (n && n->refcnt)
		n->refcnt--;
}

static struct sl_route6 *static_route(uint16_t fib, const uint8_t pfx[16], uint8_t len, int *rc)
{
	*rc = len > 128 ? -EINVAL : fib >= SL_FIB_MAX || !sl_fibs[fib] ? -ENXIO : -ENOENT;
	if (*rc != -ENOENT || !rib6)
		return NULL;
	struct sl_route6 *r = rib_find(fib, pfx, len);
	if (!r || !(r->present & (1u << SL_SRC_STATIC)))
		return NULL;
	*rc = 0;
	return r;
}

int sl_ip6_route_path_weight(uint16_t fib, const uint8_t pfx[16], uint8_t len,
			     const uint8_t nh[16], int port)
{
	int rc;
	const struct sl_route6 *r = static_route(fib, pfx, len, &rc);
	if (!r)
		return rc;
	int i = path_find(r, nh, port);
	return i < 0 ? -ENOENT : r->paths[i].weight;
}

/* A second path: a load-balance for the route, the FIB to it. */
static int paths_make(struct sl_route6 *r)
{
	if (!(r->owner = calloc(1, SL_LB_BUCKETS)))
		return -ENOMEM;
	int rc = sl_lb_alloc(&r->lb);
	if (!rc) {
		if (!(rc = paths_rebalance(r, NULL)) &&
		    !(rc = rib_set(r->fib, r->pfx, r->len, SL_SRC_STATIC, SL_LB_FLAG | r->lb)))
			return 0;
		sl_lb_free(r->lb, false); /* no FIB entry named it */
	}
	free(r->owner);
	r->owner = NULL;
	return rc;
}

int sl_ip6_route_add_path(uint16_t fib, const uint8_t pfx[16], uint8_t len, const uint8_t nh[16],
			  int port, uint16_t weight)
{
	/* :: only as a point-to-point interface's one neighbour (via IFACE alone) */
	if (len > 128 || sl_ip6_is_mcast(nh) ||
	    (sl_ip6_is_zero(nh) && (port < 0 || !sl_ifaces[port].p2p)))
		return -EINVAL;
	int rc = sl_ip6_fib_get(fib);
	if (rc)
		return rc;
	if (port < 0)
		port = connected_port(fib, nh);
	else if (!sl_ifaces[port].used)
		return -ENODEV;
	if (port < 0)
		return -ENETUNREACH;
	if (sl_ifaces[port].ip6_ll[0] == 0 && (rc = sl_ip6_enable((uint16_t)port, NULL)))
		return rc;
	weight = weight ? weight : 1;
	struct sl_route6 *r = rib_find(fib, pfx, len);
	bool have = r && (r->present & (1u << SL_SRC_STATIC));
	if (have && !r->npaths) /* a drop route: deleted first */
		return -EEXIST;
	if (have) {
		int i = path_find(r, nh, port);
		if (i >= 0) {
			if (r->paths[i].weight == weight || r->npaths == 1) {
				r->paths[i].weight = weight; /* alone, a weight changes nothing */
				return 0;
			}
			int16_t same[SL_PATHS_MAX];
			same_map(same, r->npaths);
			r->paths[i].weight = weight;
			return paths_rebalance(r, same);
		}
		if (r->npaths == SL_PATHS_MAX)
			return -E2BIG;
	}
	struct sl_neigh6 *n = neigh_get((uint16_t)port, nh);
	if (!n)
		return -ENOSPC;
	n->refcnt++;
	struct sl_rpath6 p = {.port = (uint16_t)port, .weight = weight};
	memcpy(p.nh, nh, 16);
	if (!have) {
		struct sl_rpath6 *ps = malloc(sizeof(*ps));
		rc = ps ? rib_set(fib, pfx, len, SL_SRC_STATIC, n->adj) : -ENOMEM;
		if (!rc) {
			r = rib_find(fib, pfx, len);
			r->paths = ps;
			r->paths[0] = p;
			r->npaths = 1;
		} else {
			free(ps);
		}
	} else {
		struct sl_rpath6 *ps = realloc(r->paths, sizeof(*ps) * (r->npaths + 1u));
		rc = ps ? 0 : -ENOMEM;
		if (ps) {
			r->paths = ps;
			r->paths[r->npaths++] = p;
			int16_t same[SL_PATHS_MAX];
			same_map(same, r->npaths - 1);
			rc = r->npaths == 2 ? paths_make(r) : paths_rebalance(r, same);
			if (rc) {
				r->npaths--;
				if (r->npaths > 1)
					paths_rebalance(r, same);
			}
		}
	}
	if (rc) {
		n->refcnt--;
		return rc;
	}
	resolve(n);
	return 0;
}

int sl_ip6_route_del(uint16_t fib, const uint8_t pfx[16], uint8_t len)
{
	int rc;
	struct sl_route6 *r = static_route(fib, pfx, len, &rc);
	if (!r)
		return rc;
	for (int i = 0; i < r->npaths; i++)
		neigh_unref(r->paths[i].port, r->paths[i].nh);
	if (r->npaths > 1)
		sl_lb_free(r->lb, true);
	free(r->paths);
	free(r->owner);
	r->paths = NULL;
	r->owner = NULL;
	r->npaths = 0;
	return rib_set(fib, pfx, len, SL_SRC_STATIC, ~0u); /* may free r */
}

int sl_ip6_route_add_drop(uint16_t fib, const uint8_t pfx_in[16], uint8_t len)
{
	if (len > 128)
		return -EINVAL;
	int rc = sl_ip6_fib_get(fib);
	if (rc)
		return rc;
	uint8_t pfx[16];
	sl_ip6_pfx_mask(pfx, pfx_in, len);
	const struct sl_route6 *r = rib_find(fib, pfx, len);
	if (r && (r->present & (1u << SL_SRC_STATIC)))
		return r->npaths ? -EEXIST : 0;
	return rib_set(fib, pfx, len, SL_SRC_STATIC, SL_ADJ_ID_BLACKHOLE); /* no paths */
}

int sl_ip6_route_del_path(uint16_t fib, const uint8_t pfx[16], uint8_t len, const uint8_t nh[16],
			  int port)
{
	int rc;
	struct sl_route6 *r = static_route(fib, pfx, len, &rc);
	if (!r)
		return rc;
	int i = path_find(r, nh, port);
	if (i < 0)
		return -ENOENT;
	if (r->npaths == 1)
		return sl_ip6_route_del(fib, pfx, len);
	struct sl_rpath6 gone = r->paths[i];
	if (r->npaths == 2) {
		/* back to one path: the FIB to its neighbour, the load-balance retired */
		struct sl_rpath6 keep = r->paths[1 - i];
		rc = rib_set(fib, pfx, len, SL_SRC_STATIC, neigh_find(keep.port, keep.nh)->adj);
		if (rc)
			return rc;
		sl_lb_free(r->lb, true);
		free(r->owner);
		r->owner = NULL;
		r->paths[0] = keep;
		r->npaths = 1;
	} else {
		int16_t map[SL_PATHS_MAX];
		for (int k = 0; k < SL_PATHS_MAX; k++)
			map[k] = (int16_t)(k < i ? k : k == i ? -1 : k - 1);
		memmove(&r->paths[i], &r->paths[i + 1], sizeof(r->paths[0]) * (size_t)(r->npaths - i - 1));
		r->npaths--;
		if ((rc = paths_rebalance(r, map)))
			return rc;
	}
	neigh_unref(gone.port, gone.nh);
	return 0;
}

/* ---------------- tables and interfaces ---------------- */

void sl_ip6_table_gone(uint16_t fib)
{
	if (!sl_fib6s[fib])
		return;
	const void *k;
	void *d;
	uint32_t it = 0, n = 0;
	struct sl_route6 **v = malloc(sizeof(*v) * (nroutes6 + 1));
	while (v && rte_hash_iterate(rib6, &k, &d, &it) >= 0)
		if (((struct sl_route6 *)d)->fib == fib)
			v[n++] = d;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i]->present & (1u << SL_SRC_STATIC))
			sl_ip6_route_del(fib, v[i]->pfx, v[i]->len);
		else
			route_free(v[i]); /* the FIB goes whole */
	}
	free(v);
	struct rte_fib6 *f = sl_fib6s[fib];
	__atomic_store_n(&sl_fib6s[fib], NULL, __ATOMIC_RELEASE);
	sl_rcu_sync();
	rte_fib6_free(f);
}

struct neigh_on {
	uint16_t port;
	bool routed; /* only neighbours that routes or static entries hold */
	struct sl_neigh6 *hit;
};

static int neigh_on_fn(const struct sl_neigh6 *n, void *arg)
{
	struct neigh_on *a = arg;
	/* a point-to-point interface's neighbours are static only because it has no ND */
	bool pinned = n->state == SL_ND_STATIC && !sl_ifaces[n->port].p2p;
	if (n->port != a->port || (a->routed && !n->refcnt && !pinned))
		return 0;
	a->hit = (struct sl_neigh6 *)(uintptr_t)n;
	return 1;
}

/* Drops what port learnt; its link-local leaves its table. */
static void port_forget(struct sl_iface *f)
{
	struct neigh_on a = {.port = f->port};
	while (sl_ip6_neigh_walk(neigh_on_fn, &a) && a.hit) {
		neigh_free(a.hit);
		a.hit = NULL;
	}
	if (!sl_ip6_is_zero(f->ip6_ll)) {
		local_del(f->fib, f->ip6_ll);
		memset(f->ip6_ll, 0, 16);
	}
}

int sl_ip6_table_busy(uint16_t port, char *why, size_t len)
{
	struct sl_iface *f = &sl_ifaces[port];
	if (f->naddr6) {
		snprintf(why, len, "%s has IPv6 addresses: delete them first", f->name);
		return -EBUSY;
	}
	struct neigh_on a = {.port = port, .routed = true};
	if (sl_ip6_neigh_walk(neigh_on_fn, &a) && a.hit) {
		snprintf(why, len, "%s has static IPv6 neighbours or routes through it: delete "
				   "them first", f->name);
		return -EBUSY;
	}
	return 0;
}

int sl_ip6_table_move(uint16_t port, uint16_t fib)
{
	struct sl_iface *f = &sl_ifaces[port];
	struct neigh_on a = {.port = port};
	while (sl_ip6_neigh_walk(neigh_on_fn, &a) && a.hit) {
		neigh_free(a.hit);
		a.hit = NULL;
	}
	if (sl_ip6_is_zero(f->ip6_ll))
		return 0;
	int rc = local_add(fib, f->ip6_ll);
	if (!rc)
		local_del(f->fib, f->ip6_ll);
	return rc;
}

static int ip6_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	if (commit) {
		port_forget((struct sl_iface *)(uintptr_t)f);
		return 0;
	}
	char ip[46];
	if (f->naddr6) {
		sl_fmt_ip6(ip, f->addrs6[0]);
		snprintf(why, len, "%s has address %s/%u (set interface ip address del)", f->name,
			 ip, f->plens6[0]);
		return 1;
	}
	struct neigh_on a = {.port = f->port, .routed = true};
	if (sl_ip6_neigh_walk(neigh_on_fn, &a) && a.hit) {
		sl_fmt_ip6(ip, a.hit->ip);
		snprintf(why, len, "%s is the interface of %s %s", f->name,
			 a.hit->refcnt ? "a route via" : "static neighbour", ip);
		return 1;
	}
	return 0;
}

static int ip6_init(const struct sl_config *c)
{
	max_routes6 = c->ip6_max_routes;
	tbl8s6 = c->ip6_tbl8s;
	struct rte_hash_parameters hp = {
		.name = "sl_rib6", .entries = max_routes6 + 1024, .key_len = sizeof(struct rkey6),
		.hash_func = rte_jhash, .socket_id = SOCKET_ID_ANY,
	};
	if (!(rib6 = rte_hash_create(&hp)))
		return -rte_errno;
	hp.name = "sl_neigh6";
	hp.entries = SL_ND_MAX;
	hp.key_len = sizeof(struct nkey6);
	if (!(neighs6 = rte_hash_create(&hp)))
		return -rte_errno;
	nids_free = 0;
	for (uint32_t i = SL_ND_MAX; i > 0; i--)
		ids_free[nids_free++] = i - 1;
	return sl_ip6_fib_get(0);
}

static void ip6_fini(void)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	sl_ip6_held_flush();
	while (rib6 && rte_hash_iterate(rib6, &k, &d, &it) >= 0) {
		struct sl_route6 *r = d;
		free(r->paths);
		free(r->owner);
		free(r);
	}
	it = 0;
	while (neighs6 && rte_hash_iterate(neighs6, &k, &d, &it) >= 0)
		free(d);
	rte_hash_free(rib6);
	rte_hash_free(neighs6);
	rib6 = neighs6 = NULL;
	nroutes6 = 0;
	memset(by_id, 0, sizeof(by_id));
	memset(glean6_adj, 0, sizeof(glean6_adj));
	for (int t = 0; t < SL_FIB_MAX; t++) {
		rte_fib6_free(sl_fib6s[t]);
		sl_fib6s[t] = NULL;
	}
}
/* after ip4's module (link order, meson.build): the adjacencies are its */
SL_MODULE_REGISTER(ip6_module, .name = "ip6 (FIB, neighbour discovery)", .init = ip6_init,
		   .tick = ip6_tick, .fini = ip6_fini)

RTE_INIT(ip6_route_init)
{
	m6_err = sl_error_register("ip6-nd (main)", m6_reasons, M6_NB);
	sl_iface_busy_register(ip6_busy);
	sl_punt_register(SL_PUNT_ND6, nd_input);
	sl_punt_register(SL_PUNT_GLEAN6, glean_input);
	sl_punt_register(SL_PUNT_LL6, glean_input);
}
