/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 control-plane tables, shared by route.c and the IPv4 CLI. */
#ifndef SL_IP4_ROUTE_H
#define SL_IP4_ROUTE_H

#include "ip4.h"

/* Route sources, most preferred first. */
enum { SL_SRC_LOCAL, SL_SRC_CONNECTED, SL_SRC_STATIC, SL_SRC_ADJ, SL_SRC_N };

/* A static route's paths when it has several (ECMP/UCMP): adj[SL_SRC_STATIC] is then
 * SL_LB_FLAG | lb; owner: each bucket's path index. */
struct sl_rpath {
	uint32_t nh;
	uint16_t port;
	uint16_t weight;
};
struct sl_paths {
	uint32_t lb;
	uint8_t owner[SL_LB_BUCKETS];
	struct sl_rpath p[SL_PATHS_MAX];
};

struct sl_route {
	uint32_t pfx;
	uint8_t len;
	uint8_t present;         /* bit per source */
	uint16_t port;           /* static route's interface (one path) */
	uint16_t fib;            /* its table's index */
	uint8_t npaths;          /* static paths: 1, or more with paths */
	uint16_t weight;         /* the one static path's weight */
	struct sl_paths *paths;  /* NULL with one static path (nh[SL_SRC_STATIC], port) */
	uint32_t adj[SL_SRC_N];
	uint32_t nh[SL_SRC_N];
};

enum { SL_NEIGH_INCOMPLETE, SL_NEIGH_DYNAMIC, SL_NEIGH_STATIC };

/* Packets held per unresolved next hop, and for how long (VPP holds a few too). */
#define SL_NEIGH_HOLD 4
#define SL_NEIGH_HOLD_MS 1000

struct sl_neigh {
	uint16_t port;
	uint8_t state;
	bool host_route;         /* /32 installed from this entry */
	uint32_t ip;
	uint8_t mac[6];
	uint32_t adj;
	uint32_t refcnt;         /* static routes through it */
	uint64_t created, last_seen, last_req;
	/* packets waiting for its MAC, oldest first (routed: IPv4 header at data_off) */
	uint8_t nheld;
	uint64_t held_since;
	struct rte_mbuf *held[SL_NEIGH_HOLD];
};

extern uint64_t sl_neigh_age_s;
/* Control: how long learnt neighbours live (set ip neighbor-config age). */
void sl_ip4_neigh_age_set(uint64_t seconds);
struct sl_route *sl_rib_find(uint16_t fib, uint32_t pfx, uint8_t len);
int sl_rib_walk(int (*fn)(const struct sl_route *r, void *arg), void *arg);
struct sl_neigh *sl_neigh_find(uint16_t port, uint32_t ip);
int sl_neigh_walk(int (*fn)(const struct sl_neigh *n, void *arg), void *arg);
void sl_arp_request(uint16_t port, uint32_t ip);

/* The IPv4 CLI's, shared with IPv6's (src/ip6/cli.c): "table N" among the arguments before
 * "via" (taken out of argv; -1: answered with an error), show ip fib's columns and the
 * route sources' names. */
struct sl_out;
int sl_ip_cli_table(struct sl_out *o, int *argc, char **argv, uint16_t *fib);
extern const char *const sl_ip_fib_cols[9];
extern const char *const sl_ip_src_names[SL_SRC_N];

#endif
