/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4 CLI: addresses, routes, neighbours, in VPP's grammar. */
#include "route.h"
#include "../ip6/ip6.h"
#include "../cli/cli.h"
#include "../interface/iface.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>

static int errno_msg(struct sl_out *o, int rc, const char *what)
{
	switch (rc) {
	case -EEXIST: return sl_out_error(o, "%s: already exists", what);
	case -ENOENT: return sl_out_error(o, "%s: not found", what);
	case -ENOSPC:
	case -ENOMEM:
		return sl_out_error(o, "%s: table full (max-routes or tbl8s of the startup "
				       "config's ip4 / ip6 section)", what);
	case -ENETUNREACH:
		return sl_out_error(o, "%s: next hop is not on a connected subnet "
				       "(add an interface address or name the interface)", what);
	case -EINVAL: return sl_out_error(o, "%s: invalid address or prefix", what);
	case -ENXIO: return sl_out_error(o, "%s: no such table", what);
	case -E2BIG: return sl_out_error(o, "%s: %d paths already, the most a route has", what, SL_PATHS_MAX);
	case -EMLINK:
		return sl_out_error(o, "%s: the interface has %d addresses of this family already, "
				       "the most it takes", what, SL_IF_MAX_ADDRS);
	default: return sl_out_error(o, "%s: %s", what, strerror(-rc));
	}
}

static int cmd_set_ip_address(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: set interface ip address [del] IFACE A.B.C.D/LEN | X:X::X/LEN";
	bool del = argc > 0 && !strcmp(argv[0], "del");
	if (argc != 2 + del)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[del]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[del]);
	uint32_t ip;
	uint8_t len, ip6[16];
	int rc;
	if (strchr(argv[del + 1], ':')) {
		if (sl_arg_prefix6(o, argv[del + 1], ip6, &len))
			return -1;
		if (sl_ip6_is_ll(ip6))
			return sl_out_error(o, "%s: a link-local address is set with 'set ip6 "
					       "link-local address IFACE ADDRESS'", argv[del + 1]);
		rc = del ? sl_ip6_addr_del(f->port, ip6, len) : sl_ip6_addr_add(f->port, ip6, len);
	} else {
		if (sl_arg_prefix4(o, argv[del + 1], &ip, &len))
			return -1;
		rc = del ? sl_ip4_addr_del(f->port, ip, len) : sl_ip4_addr_add(f->port, ip, len);
	}
	return rc ? errno_msg(o, rc, argv[del + 1]) : 0;
}
SL_CLI_COMMAND(set_ip_address, .path = "set interface ip address",
	       .usage = "[del] IFACE A.B.C.D/LEN | X:X::X/LEN",
	       .help = "add or delete an interface address (IPv4 or IPv6; the first IPv6 one "
		       "enables IPv6 with an EUI-64 link-local)",
	       .fn = cmd_set_ip_address)

/* An address of either family, and what route_cmd needs of each. */
union addr {
	uint32_t v4;
	uint8_t v6[16];
};

struct family {
	uint8_t max_len;
	int (*prefix)(struct sl_out *o, const char *s, union addr *a, uint8_t *len);
	int (*addr)(struct sl_out *o, const char *s, union addr *a);
	void (*fmt)(char *buf, const union addr *a);
	/* a + i prefixes of length len (count N) */
	void (*step)(union addr *out, const union addr *a, uint8_t len, uint32_t i);
	/* 0: no static route; 1: one with next hops; 2: a drop route */
	int (*static_kind)(uint16_t fib, const union addr *p, uint8_t len);
	int (*weight)(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh, int port);
	int (*add_path)(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh,
			int port, uint16_t w);
	int (*del_path)(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh,
			int port);
	int (*del)(uint16_t fib, const union addr *p, uint8_t len);
	int (*add_drop)(uint16_t fib, const union addr *p, uint8_t len);
};

static int v4_prefix(struct sl_out *o, const char *s, union addr *a, uint8_t *len)
{
	return sl_arg_prefix4(o, s, &a->v4, len);
}
static int v4_addr(struct sl_out *o, const char *s, union addr *a)
{
	return sl_arg_ip4(o, s, &a->v4);
}
static void v4_fmt(char *buf, const union addr *a)
{
	sl_fmt_ip4(buf, a->v4);
}
static void v4_step(union addr *out, const union addr *a, uint8_t len, uint32_t i)
{
	out->v4 = a->v4 + (len ? i << (32 - len) : 0);
}
static int v4_static_kind(uint16_t fib, const union addr *p, uint8_t len)
{
	const struct sl_route *r = sl_rib_find(fib, p->v4, len);
	return !r || !(r->present & (1u << SL_SRC_STATIC)) ? 0 : r->npaths ? 1 : 2;
}
static int v4_weight(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh, int port)
{
	return sl_ip4_route_path_weight(fib, p->v4, len, nh->v4, port);
}
static int v4_add_path(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh,
		       int port, uint16_t w)
{
	return sl_ip4_route_add_path(fib, p->v4, len, nh->v4, port, w);
}
static int v4_del_path(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh, int port)
{
	return sl_ip4_route_del_path(fib, p->v4, len, nh->v4, port);
}
static int v4_del(uint16_t fib, const union addr *p, uint8_t len)
{
	return sl_ip4_route_del(fib, p->v4, len);
}
static int v4_add_drop(uint16_t fib, const union addr *p, uint8_t len)
{
	return sl_ip4_route_add_drop(fib, p->v4, len);
}
static const struct family fam4 = {32, v4_prefix, v4_addr, v4_fmt, v4_step, v4_static_kind,
				   v4_weight, v4_add_path, v4_del_path, v4_del, v4_add_drop};

static int v6_prefix(struct sl_out *o, const char *s, union addr *a, uint8_t *len)
{
	return sl_arg_prefix6(o, s, a->v6, len);
}
static int v6_addr(struct sl_out *o, const char *s, union addr *a)
{
	return sl_arg_ip6(o, s, a->v6);
}
static void v6_fmt(char *buf, const union addr *a)
{
	sl_fmt_ip6(buf, a->v6);
}
/* 128-bit big-endian addition of i at bit len */
static void v6_step(union addr *out, const union addr *a, uint8_t len, uint32_t i)
{
	*out = *a;
	if (!len)
		return;
	unsigned bit = 128u - len; /* i counts in units of 2^bit */
	uint64_t carry = (uint64_t)i << (bit % 8);
	for (int b = 15 - (int)(bit / 8); b >= 0 && carry; b--) {
		carry += out->v6[b];
		out->v6[b] = (uint8_t)carry;
		carry >>= 8;
	}
}
static int v6_static_kind(uint16_t fib, const union addr *p, uint8_t len)
{
	const struct sl_route6 *r = sl_ip6_rib_find(fib, p->v6, len);
	return !r || !(r->present & (1u << SL_SRC_STATIC)) ? 0 : r->npaths ? 1 : 2;
}
static int v6_weight(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh, int port)
{
	return sl_ip6_route_path_weight(fib, p->v6, len, nh->v6, port);
}
static int v6_add_path(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh,
		       int port, uint16_t w)
{
	return sl_ip6_route_add_path(fib, p->v6, len, nh->v6, port, w);
}
static int v6_del_path(uint16_t fib, const union addr *p, uint8_t len, const union addr *nh, int port)
{
	return sl_ip6_route_del_path(fib, p->v6, len, nh->v6, port);
}
static int v6_del(uint16_t fib, const union addr *p, uint8_t len)
{
	return sl_ip6_route_del(fib, p->v6, len);
}
static int v6_add_drop(uint16_t fib, const union addr *p, uint8_t len)
{
	return sl_ip6_route_add_drop(fib, p->v6, len);
}
static const struct family fam6 = {128, v6_prefix, v6_addr, v6_fmt, v6_step, v6_static_kind,
				   v6_weight, v6_add_path, v6_del_path, v6_del, v6_add_drop};

static int route_err(struct sl_out *o, const struct family *fm, const union addr *p, uint8_t len,
		     int rc)
{
	char what[64], ip[46];
	fm->fmt(ip, p);
	snprintf(what, sizeof(what), "%s/%u", ip, len);
	return errno_msg(o, rc, what);
}

/* "table N" among the arguments before "via" (VPP takes it before or after the prefix): the
 * table's index in *fib, the pair taken out of argv. 0 done, -1 error (answered). */
int sl_ip_cli_table(struct sl_out *o, int *argc, char **argv, uint16_t *fib)
{
	*fib = 0;
	for (int i = 0; i < *argc && strcmp(argv[i], "via"); i++) {
		if (strcmp(argv[i], "table"))
			continue;
		uint32_t id;
		if (i + 1 >= *argc)
			return sl_out_error(o, "table: needs a table id");
		if (sl_arg_u32(o, "table", argv[i + 1], 0, UINT32_MAX, &id))
			return -1;
		int t = sl_ip4_table_find(id);
		if (t < 0)
			return sl_out_error(o, "table %u does not exist (ip table add %u)", id, id);
		*fib = (uint16_t)t;
		memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 2) * sizeof(*argv));
		*argc -= 2;
		return 0;
	}
	return 0;
}

/* ip route add|del [table N] [count N] PREFIX via NEXTHOP [IFACE] [weight N]: a second path
 * of a prefix makes it ECMP (UCMP with weights); del with via deletes that path only. A
 * point-to-point interface (a tunnel) may stand alone after via: its next hop is 0.0.0.0 or
 * ::, which it reaches as any other. via drop: a drop route (VPP's), no next hop. */
static int route_cmd(struct sl_out *o, int argc, char **argv, bool add)
{
	const char *usage = add ? "usage: ip route add [table N] [count N] PREFIX via NEXTHOP [IFACE] [weight N] | via drop"
				: "usage: ip route del [table N] [count N] PREFIX [via NEXTHOP [IFACE] | via drop]";
	uint32_t count = 1, weight = 1;
	union addr pfx, nh = {0};
	bool via = false, drop = false;
	uint8_t len;
	uint16_t fib;
	if (sl_ip_cli_table(o, &argc, argv, &fib))
		return -1;
	if (argc >= 2 && !strcmp(argv[0], "count")) {
		if (sl_arg_u32(o, "count", argv[1], 1, 1 << 24, &count))
			return -1;
		argc -= 2;
		argv += 2;
	}
	if (argc < 1)
		return sl_out_error(o, "%s", usage);
	const struct family *fm = strchr(argv[0], ':') ? &fam6 : &fam4;
	if (fm->prefix(o, argv[0], &pfx, &len))
		return -1;
	int port = -1;
	if (add && argc >= 2 && !strcmp(argv[argc - 2], "weight")) {
		if (sl_arg_u32(o, "weight", argv[argc - 1], 1, 65535, &weight))
			return -1;
		argc -= 2;
	}
	if (argc >= 2) {
		if (strcmp(argv[1], "via") || argc < 3 || argc > 4)
			return sl_out_error(o, "%s", usage);
		via = true;
		struct sl_iface *pf = argc == 3 ? sl_iface_by_name(argv[2]) : NULL;
		if (argc == 3 && !strcmp(argv[2], "drop") && !pf) {
			drop = true;
		} else if (pf) { /* via IFACE alone: a point-to-point interface's one neighbour */
			if (!pf->p2p)
				return sl_out_error(o, "%s is not point to point: give the next hop "
						    "(via NEXTHOP %s)", pf->name, pf->name);
			port = pf->port;
		} else if (fm->addr(o, argv[2], &nh)) {
			return -1;
		}
		if (drop && weight != 1)
			return sl_out_error(o, "a drop route has no weight; %s", usage);
		if (argc == 4) {
			struct sl_iface *f = sl_iface_by_name(argv[3]);
			if (!f)
				return sl_out_error(o, "unknown interface '%s'", argv[3]);
			port = f->port;
		}
	} else if (add) {
		return sl_out_error(o, "%s", usage);
	}
	union addr last;
	fm->step(&last, &pfx, len, count - 1);
	if (count > 1 && (len == 0 || (len <= 32 && (uint64_t)count > (1ull << len)) ||
			  (fm == &fam6 ? memcmp(last.v6, pfx.v6, 16) < 0 : last.v4 < pfx.v4)))
		return sl_out_error(o, "count %u overflows the address space from %s", count,
				    argv[0]);
	/* all or nothing: deletes are checked first (each route, or its path), adds are undone
	 * on failure, each as it was before: a route made removed, a path added deleted, a
	 * path's weight set back */
	for (uint32_t i = 0; i < count; i++) {
		union addr p;
		fm->step(&p, &pfx, len, i);
		int kind = fm->static_kind(fib, &p, len);
		char ip[46];
		fm->fmt(ip, &p);
		if (add && kind && drop != (kind == 2))
			return sl_out_error(o, "%s/%u: %s exists (delete it first)", ip, len,
					    kind == 2 ? "a drop route" : "a route with next hops");
		if (!add && (!kind || (drop && kind != 2) ||
			     (via && !drop && fm->weight(fib, &p, len, &nh, port) < 0)))
			return route_err(o, fm, &p, len, -ENOENT);
	}
	/* else: the path's weight before */
	const uint32_t UNDO_ROUTE = 0, UNDO_PATH = UINT32_MAX, UNDO_NONE = UINT32_MAX - 1;
	uint32_t *undo = add ? malloc(sizeof(uint32_t) * count) : NULL;
	if (add && !undo)
		return sl_out_error(o, "out of memory");
	int rc = 0;
	for (uint32_t i = 0; i < count && !rc; i++) {
		union addr p;
		fm->step(&p, &pfx, len, i);
		if (add) {
			int w = drop ? 0 : fm->weight(fib, &p, len, &nh, port);
			undo[i] = !fm->static_kind(fib, &p, len) ? UNDO_ROUTE
				  : drop			   ? UNDO_NONE
				  : w < 0			   ? UNDO_PATH
								   : (uint32_t)w;
		}
		rc = add && drop  ? fm->add_drop(fib, &p, len)
		     : add	  ? fm->add_path(fib, &p, len, &nh, port, (uint16_t)weight)
		     : via && !drop ? fm->del_path(fib, &p, len, &nh, port)
				    : fm->del(fib, &p, len);
		if (rc) {
			for (uint32_t j = 0; add && j < i; j++) {
				union addr q;
				fm->step(&q, &pfx, len, j);
				if (undo[j] == UNDO_NONE)
					continue;
				if (undo[j] == UNDO_ROUTE)
					fm->del(fib, &q, len);
				else if (undo[j] == UNDO_PATH)
					fm->del_path(fib, &q, len, &nh, port);
				else
					fm->add_path(fib, &q, len, &nh, port, (uint16_t)undo[j]);
			}
			route_err(o, fm, &p, len, rc);
		}
	}
	free(undo);
	return rc ? -1 : 0;
}

static int cmd_route_add(struct sl_out *o, int argc, char **argv)
{
	return route_cmd(o, argc, argv, true);
}
SL_CLI_COMMAND(route_add, .path = "ip route add",
	       .usage = "[table N] [count N] PREFIX via NEXTHOP [IFACE] | via P2P-IFACE [weight N] "
			"| via drop",
	       .help = "add a static route, or another path of one (ECMP; weight: UCMP, 64 "
		       "paths at most), or a drop route (via drop: packets to it dropped and "
		       "counted, no ICMP); count N adds N consecutive prefixes",
	       .fn = cmd_route_add)

static int cmd_route_del(struct sl_out *o, int argc, char **argv)
{
	return route_cmd(o, argc, argv, false);
}
SL_CLI_COMMAND(route_del, .path = "ip route del",
	       .usage = "[table N] [count N] PREFIX [via NEXTHOP | via drop]",
	       .help = "delete a static route", .fn = cmd_route_del)

static int cmd_neighbor(struct sl_out *o, int argc, char **argv)
{
	bool del = argc > 0 && !strcmp(argv[0], "del");
	const char *usage = "usage: ip neighbor [del] IFACE A.B.C.D|X:X::X [MAC] [static]";
	if (argc < 2 + del)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[del]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[del]);
	uint32_t ip;
	uint8_t mac[6], ip6[16];
	bool v6 = strchr(argv[del + 1], ':') != NULL;
	if (v6 ? sl_arg_ip6(o, argv[del + 1], ip6) : sl_arg_ip4(o, argv[del + 1], &ip))
		return -1;
	if (del) {
		int rc = v6 ? sl_ip6_neigh_del(f->port, ip6) : sl_ip4_neigh_del(f->port, ip);
		return rc ? errno_msg(o, rc, argv[2]) : 0;
	}
	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "static")))
		return sl_out_error(o, "%s", usage);
	if (sl_arg_mac(o, argv[2], mac))
		return -1;
	int rc = v6 ? sl_ip6_neigh_set(f->port, ip6, mac, true)
		    : sl_ip4_neigh_set(f->port, ip, mac, true);
	return rc ? errno_msg(o, rc, argv[1]) : 0;
}
SL_CLI_COMMAND(neighbor, .path = "ip neighbor", .usage = "[del] IFACE A.B.C.D|X:X::X MAC [static]",
	       .help = "add or delete a static ARP or IPv6 neighbour entry", .fn = cmd_neighbor)

const char *const sl_ip_src_names[SL_SRC_N] = {"local", "connected", "static", "adjacency"};

/* One row: the route's active source through adjacency id, with weight w. */
static void route_row_adj(struct sl_out *o, const struct sl_route *r, int src, uint32_t id,
			  uint16_t w)
{
	const struct sl_adj *a = sl_adj_tbl[id];
	char pfx[40], ip[20], nh[20] = "", ids[12], mac[20] = "", ws[8];
	sl_fmt_ip4(ip, r->pfx);
	snprintf(pfx, sizeof(pfx), "%s/%u", ip, r->len);
	if (a->type == SL_ADJ_FORWARD || a->type == SL_ADJ_INCOMPLETE)
		sl_fmt_ip4(nh, a->nh);
	if (a->type == SL_ADJ_FORWARD)
		sl_fmt_mac(mac, a->rewrite);
	char tbl[12];
	snprintf(ids, sizeof(ids), "%u", id);
	snprintf(tbl, sizeof(tbl), "%u", sl_fib_ids[r->fib]);
	snprintf(ws, sizeof(ws), "%u", w);
	const char *ifn = (a->type >= SL_ADJ_GLEAN) ? sl_ifaces[a->port].name : "";
	sl_tbl_row(o, tbl, pfx, sl_ip_src_names[src], sl_adj_type_names[a->type], nh, ifn, mac, ids, ws);
}

/* A route's rows: one, or one per path of a static route with several (ECMP/UCMP). */
static void route_row(struct sl_out *o, const struct sl_route *r)
{
	int src = 0;
	for (int s = 0; s < SL_SRC_N; s++)
		if (r->present & (1u << s)) {
			src = s;
			break;
		}
	if (src == SL_SRC_STATIC && r->paths) {
		for (int i = 0; i < r->npaths; i++) {
			const struct sl_rpath *p = &r->paths->p[i];
			const struct sl_neigh *n = sl_neigh_find(p->port, p->nh);
			route_row_adj(o, r, src, n ? n->adj : SL_ADJ_ID_DROP, p->weight);
		}
		return;
	}
	route_row_adj(o, r, src, r->adj[src], src == SL_SRC_STATIC ? r->weight : 1);
}

struct collect {
	const struct sl_route **v;
	size_t n, cap;
	int fib; /* -1: every table */
};

static int collect_one(const struct sl_route *r, void *arg)
{
	struct collect *c = arg;
	if (c->fib >= 0 && r->fib != c->fib)
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v)
			return 1;
	}
	c->v[c->n++] = r;
	return 0;
}

static int cmp_route(const void *a, const void *b)
{
	const struct sl_route *x = *(const struct sl_route *const *)a;
	const struct sl_route *y = *(const struct sl_route *const *)b;
	if (x->fib != y->fib)
		return sl_fib_ids[x->fib] < sl_fib_ids[y->fib] ? -1 : 1;
	if (x->pfx != y->pfx)
		return x->pfx < y->pfx ? -1 : 1;
	return (int)x->len - (int)y->len;
}

const char *const sl_ip_fib_cols[9] = {"table:u", "prefix", "source", "type", "next-hop",
				 "interface", "mac", "adj:u", "weight:u"};

static int cmd_show_fib(struct sl_out *o, int argc, char **argv)
{
	uint16_t fib = 0;
	bool one_table = false;
	for (int i = 0; i < argc; i++)
		one_table |= !strcmp(argv[i], "table");
	if (sl_ip_cli_table(o, &argc, argv, &fib))
		return -1;
	if (argc == 1 && !strcmp(argv[0], "summary")) {
		char n[16];
		snprintf(n, sizeof(n), "%u", sl_ip4_route_count());
		sl_tbl_begin(o, "summary", 1, (const char *[]){"routes:u"});
		sl_tbl_row(o, n);
		sl_tbl_end(o);
		return 0;
	}
	if (argc == 1) {
		uint32_t ip;
		uint8_t len = 32;
		if (strchr(argv[0], '/') ? sl_arg_prefix4(o, argv[0], &ip, &len)
					 : sl_arg_ip4(o, argv[0], &ip))
			return -1;
		sl_tbl_begin(o, "routes", 9, sl_ip_fib_cols);
		for (int l = len; l >= 0; l--) {
			const struct sl_route *r = sl_rib_find(fib, ip, (uint8_t)l);
			if (r) {
				route_row(o, r);
				break;
			}
		}
		sl_tbl_end(o);
		return 0;
	}
	if (argc > 1)
		return sl_out_error(o, "usage: show ip fib [table N] [PREFIX | ADDRESS | summary]");
	struct collect c = {.fib = one_table ? fib : -1};
	sl_rib_walk(collect_one, &c);
	if (c.n) /* c.v is NULL when no route matched: qsort wants an array */
		qsort(c.v, c.n, sizeof(*c.v), cmp_route);
	sl_tbl_begin(o, "routes", 9, sl_ip_fib_cols);
	for (size_t i = 0; i < c.n; i++)
		route_row(o, c.v[i]);
	sl_tbl_end(o);
	free(c.v);
	return 0;
}
SL_CLI_COMMAND(show_fib, .path = "show ip fib", .usage = "[table N] [PREFIX | ADDRESS | summary]",
	       .help = "routes (of every table, or one): all, the best match of one prefix, or "
		       "the count",
	       .fn = cmd_show_fib)

static int neigh_row(const struct sl_neigh *n, void *arg)
{
	struct sl_out *o = arg;
	static const char *st[] = {"incomplete", "dynamic", "static"};
	char ip[20], mac[20] = "", age[24] = "";
	sl_fmt_ip4(ip, n->ip);
	if (n->state != SL_NEIGH_INCOMPLETE) {
		sl_fmt_mac(mac, n->mac);
		snprintf(age, sizeof(age), "%.1f",
			 (double)(rte_rdtsc() - n->last_seen) / (double)rte_get_tsc_hz());
	}
	sl_tbl_row(o, sl_ifaces[n->port].name, ip, mac, st[n->state], age);
	return 0;
}

static int cmd_show_neigh(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "neighbors", 5,
		     (const char *[]){"interface", "address", "mac", "state", "age-s"});
	sl_neigh_walk(neigh_row, o);
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_neigh, .path = "show ip neighbors", .usage = "",
	       .help = "the ARP table", .fn = cmd_show_neigh)

static int cmd_neigh_age(struct sl_out *o, int argc, char **argv)
{
	uint32_t s;
	if (argc != 2 || strcmp(argv[0], "age"))
		return sl_out_error(o, "usage: set ip neighbor-config age SECONDS");
	if (sl_arg_u32(o, "age", argv[1], 1, 86400 * 7, &s))
		return -1;
	sl_ip4_neigh_age_set(s);
	return 0;
}
SL_CLI_COMMAND(neigh_age, .path = "set ip neighbor-config", .usage = "age SECONDS",
	       .help = "how long learnt ARP entries live", .fn = cmd_neigh_age)

/* ---- FIB tables (VRFs) ---- */

static int cmd_table(struct sl_out *o, int argc, char **argv, bool add)
{
	uint32_t id;
	if (argc != 1)
		return sl_out_error(o, "usage: ip table %s N", add ? "add" : "del");
	if (sl_arg_u32(o, "table", argv[0], 0, UINT32_MAX, &id))
		return -1;
	char why[128] = "";
	int rc = add ? sl_ip4_table_add(id) : sl_ip4_table_del(id, why, sizeof(why));
	if (rc == -ENOSPC)
		return sl_out_error(o, "table %u: %u tables at most", id, SL_FIB_MAX);
	if (rc == -ENOMEM)
		return sl_out_error(o, "table %u: no memory for its FIB (show memory)", id);
	if (rc < 0)
		return sl_out_error(o, "table %u: %s", id, why);
	return 0;
}

static int cmd_table_add(struct sl_out *o, int argc, char **argv)
{
	return cmd_table(o, argc, argv, true);
}
SL_CLI_COMMAND(table_add, .path = "ip table add", .usage = "N",
	       .help = "create IPv4 FIB table (VRF) N", .fn = cmd_table_add)

static int cmd_table_del(struct sl_out *o, int argc, char **argv)
{
	return cmd_table(o, argc, argv, false);
}
SL_CLI_COMMAND(table_del, .path = "ip table del", .usage = "N",
	       .help = "delete table N and its routes (no interface may be in it)",
	       .fn = cmd_table_del)

static int cmd_set_table(struct sl_out *o, int argc, char **argv)
{
	uint32_t id;
	if (argc != 2)
		return sl_out_error(o, "usage: set interface ip table IFACE N");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (sl_arg_u32(o, "table", argv[1], 0, UINT32_MAX, &id))
		return -1;
	int t = sl_ip4_table_find(id);
	if (t < 0)
		return sl_out_error(o, "table %u does not exist (ip table add %u)", id, id);
	char why[160];
	if (sl_ip4_table_set(f->port, (uint16_t)t, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}
SL_CLI_COMMAND(set_table, .path = "set interface ip table", .usage = "IFACE N",
	       .help = "put an interface (without addresses) in IPv4 table N", .fn = cmd_set_table)

/* set ip[6] flow-hash [table N] FIELD... | set ip flow-hash router-id N */
static int cmd_flow_hash(struct sl_out *o, int argc, char **argv, bool v6)
{
	const char *cmd = v6 ? "ip6" : "ip";
	if (!v6 && argc >= 1 && !strcmp(argv[0], "router-id")) {
		uint32_t id;
		if (argc != 2)
			return sl_out_error(o, "usage: set ip flow-hash router-id N (0: none)");
		if (sl_arg_u32(o, "router-id", argv[1], 0, UINT32_MAX, &id))
			return -1;
		sl_fh_seed_set(id);
		return 0;
	}
	uint16_t fib = 0, fields = 0;
	if (sl_ip_cli_table(o, &argc, argv, &fib))
		return -1;
	for (int i = 0; i < argc; i++) {
		unsigned b = 0;
		while (b < RTE_DIM(sl_fh_names) && strcmp(argv[i], sl_fh_names[b]))
			b++;
		if (b == RTE_DIM(sl_fh_names))
			return sl_out_error(o, "unknown field '%s' (src dst sport dport proto reverse "
					    "symmetric%s)", argv[i], v6 ? " flowlabel" : "");
		if (!v6 && (1u << b) == SL_FH_FLOWLABEL)
			return sl_out_error(o, "flowlabel: IPv6 only (set ip6 flow-hash)");
		fields |= (uint16_t)(1u << b);
	}
	if (!(fields & (SL_FH_SRC | SL_FH_DST | SL_FH_SPORT | SL_FH_DPORT | SL_FH_PROTO |
			SL_FH_FLOWLABEL)))
		return sl_out_error(o, "usage: set %s flow-hash [table N] [src] [dst] [sport] [dport] "
				    "[proto] [reverse] [symmetric]%s: at least one field", cmd,
				    v6 ? " [flowlabel]" : "");
	sl_fh_set(v6, fib, fields);
	return 0;
}

static int cmd_flow_hash4(struct sl_out *o, int argc, char **argv)
{
	return cmd_flow_hash(o, argc, argv, false);
}
SL_CLI_COMMAND(flow_hash4, .path = "set ip flow-hash",
	       .usage = "[table N] [src] [dst] [sport] [dport] [proto] [reverse] [symmetric] | "
			"router-id N",
	       .help = "what an IPv4 table's ECMP hash takes (default: src dst sport dport proto); "
		       "router-id N mixes N into both families' hashes (0: none)",
	       .fn = cmd_flow_hash4)

static int cmd_flow_hash6(struct sl_out *o, int argc, char **argv)
{
	return cmd_flow_hash(o, argc, argv, true);
}
SL_CLI_COMMAND(flow_hash6, .path = "set ip6 flow-hash",
	       .usage = "[table N] [src] [dst] [sport] [dport] [proto] [reverse] [symmetric] "
			"[flowlabel]",
	       .help = "what an IPv6 table's ECMP hash takes (default: src dst sport dport proto "
		       "flowlabel)",
	       .fn = cmd_flow_hash6)

static int cmd_show_tables(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show ip table");
	uint32_t routes[SL_FIB_MAX] = {0}, ifs[SL_FIB_MAX] = {0};
	struct collect c = {.fib = -1};
	sl_rib_walk(collect_one, &c);
	for (size_t i = 0; i < c.n; i++)
		routes[c.v[i]->fib]++;
	free(c.v);
	for (uint32_t i = 0; i < sl_if_hwm; i++)
		if (sl_ifaces[i].used)
			ifs[sl_ifaces[i].fib]++;
	sl_tbl_begin(o, "tables", 7, (const char *[]){"table:u", "index:u", "routes:u",
						      "interfaces:u", "flow-hash", "flow-hash6",
						      "router-id:u"});
	char rid[12];
	snprintf(rid, sizeof(rid), "%u", sl_fh_seed);
	for (int t = 0; t < SL_FIB_MAX; t++) {
		if (!sl_fibs[t])
			continue;
		char id[12], ix[8], r[12], n[12], fh[64], fh6[80];
		snprintf(id, sizeof(id), "%u", sl_fib_ids[t]);
		snprintf(ix, sizeof(ix), "%d", t);
		snprintf(r, sizeof(r), "%u", routes[t]);
		snprintf(n, sizeof(n), "%u", ifs[t]);
		sl_fh_format(fh, sizeof(fh), sl_fh_get(false, (uint16_t)t));
		sl_fh_format(fh6, sizeof(fh6), sl_fh_get(true, (uint16_t)t));
		sl_tbl_row(o, id, ix, r, n, fh, fh6, rid);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_tables, .path = "show ip table", .usage = "",
	       .help = "FIB tables: routes and interfaces in each, each family's ECMP flow-hash "
		       "fields, the router id",
	       .fn = cmd_show_tables)
