/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 CLI in VPP's grammar: show ip6 fib, show ip6 neighbors, link-locals; addresses,
 * routes and neighbours are IPv4's commands with an IPv6 argument (src/ip4/cli.c). */
#include "ip6.h"
#include "../cli/cli.h"
#include "../interface/iface.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>

/* One row: the route through adjacency id (source src), with weight w. */
static void row_adj(struct sl_out *o, const struct sl_route6 *r, int src, uint32_t id, uint16_t w)
{
	const struct sl_adj *a = sl_adj_tbl[id];
	char pfx[52], ip[46], nh[46] = "", ids[12], mac[20] = "", ws[8], tbl[12];
	sl_fmt_ip6(ip, r->pfx);
	snprintf(pfx, sizeof(pfx), "%s/%u", ip, r->len);
	const struct sl_neigh6 *n = a->type == SL_ADJ_FORWARD || a->type == SL_ADJ_INCOMPLETE
					    ? sl_ip6_neigh_by_id(a->nh)
					    : NULL;
	if (n)
		sl_fmt_ip6(nh, n->ip);
	if (a->type == SL_ADJ_FORWARD)
		sl_fmt_mac(mac, a->rewrite);
	snprintf(ids, sizeof(ids), "%u", id);
	snprintf(tbl, sizeof(tbl), "%u", sl_fib_ids[r->fib]);
	snprintf(ws, sizeof(ws), "%u", w);
	const char *ifn = a->type >= SL_ADJ_GLEAN ? sl_ifaces[a->port].name : "";
	sl_tbl_row(o, tbl, pfx, sl_ip_src_names[src], sl_adj_type_names[a->type], nh, ifn, mac,
		   ids, ws);
}

static void route_row(struct sl_out *o, const struct sl_route6 *r)
{
	int src = 0;
	while (src < SL_SRC_N && !(r->present & (1u << src)))
		src++;
	if (src == SL_SRC_STATIC && r->npaths) { /* none: a drop route's one row */
		for (int i = 0; i < r->npaths; i++) {
			const struct sl_rpath6 *p = &r->paths[i];
			const struct sl_neigh6 *n = sl_ip6_neigh_find(p->port, p->nh);
			row_adj(o, r, src, n ? n->adj : SL_ADJ_ID_DROP, p->weight);
		}
		return;
	}
	row_adj(o, r, src, r->adj[src], 1);
}

struct collect {
	const struct sl_route6 **v;
	size_t n, cap;
	int fib;
};

static int collect_one(const struct sl_route6 *r, void *arg)
{
	struct collect *c = arg;
	if (c->fib >= 0 && r->fib != c->fib)
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		const struct sl_route6 **v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!v)
			return 1;
		c->v = v;
	}
	c->v[c->n++] = r;
	return 0;
}

static int cmp_route(const void *a, const void *b)
{
	const struct sl_route6 *x = *(const struct sl_route6 *const *)a;
	const struct sl_route6 *y = *(const struct sl_route6 *const *)b;
	if (x->fib != y->fib)
		return sl_fib_ids[x->fib] < sl_fib_ids[y->fib] ? -1 : 1;
	int c = memcmp(x->pfx, y->pfx, 16);
	return c ? c : (int)x->len - (int)y->len;
}

static int cmd_show_fib6(struct sl_out *o, int argc, char **argv)
{
	uint16_t fib = 0;
	bool one_table = false;
	for (int i = 0; i < argc; i++)
		one_table |= !strcmp(argv[i], "table");
	if (sl_ip_cli_table(o, &argc, argv, &fib))
		return -1;
	if (argc == 1 && !strcmp(argv[0], "summary")) {
		char n[16];
		snprintf(n, sizeof(n), "%u", sl_ip6_route_count());
		sl_tbl_begin(o, "summary", 1, (const char *[]){"routes:u"});
		sl_tbl_row(o, n);
		sl_tbl_end(o);
		return 0;
	}
	if (argc == 1) {
		uint8_t ip[16], len = 128;
		if (strchr(argv[0], '/') ? sl_arg_prefix6(o, argv[0], ip, &len)
					 : sl_arg_ip6(o, argv[0], ip))
			return -1;
		sl_tbl_begin(o, "routes", 9, sl_ip_fib_cols);
		for (int l = len; l >= 0; l--) {
			const struct sl_route6 *r = sl_ip6_rib_find(fib, ip, (uint8_t)l);
			if (r) {
				route_row(o, r);
				break;
			}
		}
		sl_tbl_end(o);
		return 0;
	}
	if (argc > 1)
		return sl_out_error(o, "usage: show ip6 fib [table N] [PREFIX | ADDRESS | summary]");
	struct collect c = {.fib = one_table ? fib : -1};
	sl_ip6_rib_walk(collect_one, &c);
	if (c.n) /* c.v is NULL when no route matched: qsort wants an array */
		qsort(c.v, c.n, sizeof(*c.v), cmp_route);
	sl_tbl_begin(o, "routes", 9, sl_ip_fib_cols);
	for (size_t i = 0; i < c.n; i++)
		route_row(o, c.v[i]);
	sl_tbl_end(o);
	free(c.v);
	return 0;
}
SL_CLI_COMMAND(show_fib6, .path = "show ip6 fib", .usage = "[table N] [PREFIX | ADDRESS | summary]",
	       .help = "IPv6 routes (of every table, or one): all, the best match of one prefix, "
		       "or the count",
	       .fn = cmd_show_fib6)

static int neigh_row(const struct sl_neigh6 *n, void *arg)
{
	struct sl_out *o = arg;
	char ip[46], mac[20] = "", age[24], router[4];
	sl_fmt_ip6(ip, n->ip);
	if (n->state != SL_ND_INCOMPLETE)
		sl_fmt_mac(mac, n->mac);
	snprintf(age, sizeof(age), "%.1f", (double)(rte_rdtsc() - n->since) / (double)rte_get_tsc_hz());
	snprintf(router, sizeof(router), "%s", n->router ? "yes" : "no");
	sl_tbl_row(o, sl_ifaces[n->port].name, ip, mac, sl_nd_state_names[n->state], age, router);
	return 0;
}

static int cmd_show_neigh6(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show ip6 neighbors");
	sl_tbl_begin(o, "neighbors", 6, (const char *[]){"interface", "address", "mac", "state",
							 "in-state-s", "router"});
	sl_ip6_neigh_walk(neigh_row, o);
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_neigh6, .path = "show ip6 neighbors", .usage = "",
	       .help = "the IPv6 neighbour table (RFC 4861 states)", .fn = cmd_show_neigh6)

static int cmd_ll(struct sl_out *o, int argc, char **argv)
{
	if (argc != 2)
		return sl_out_error(o, "usage: set ip6 link-local address IFACE fe80::X");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	uint8_t ip[16];
	if (sl_arg_ip6(o, argv[1], ip))
		return -1;
	if (!sl_ip6_is_ll(ip))
		return sl_out_error(o, "%s is not a link-local address (fe80::/10)", argv[1]);
	int rc = sl_ip6_enable(f->port, ip);
	return rc ? sl_out_error(o, "%s: %s", argv[1], strerror(-rc)) : 0;
}
SL_CLI_COMMAND(ll6, .path = "set ip6 link-local address", .usage = "IFACE fe80::X",
	       .help = "the interface's IPv6 link-local address (default: EUI-64 of its MAC)",
	       .fn = cmd_ll)

static int cmd_enable6(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: enable ip6 interface IFACE");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	int rc = sl_ip6_enable(f->port, NULL);
	return rc ? sl_out_error(o, "%s: %s", argv[0], strerror(-rc)) : 0;
}
SL_CLI_COMMAND(enable6, .path = "enable ip6 interface", .usage = "IFACE",
	       .help = "IPv6 on an interface without a global address (EUI-64 link-local)",
	       .fn = cmd_enable6)

static int cmd_show_if6(struct sl_out *o, int argc, char **argv)
{
	struct sl_iface *only = NULL;
	if (argc > 1 || (argc == 1 && !(only = sl_iface_by_name(argv[0]))))
		return sl_out_error(o, argc > 1 ? "usage: show ip6 interface [IFACE]"
						: "unknown interface '%s'", argv[0]);
	sl_tbl_begin(o, "interfaces", 3, (const char *[]){"name", "scope", "address"});
	for (uint32_t p = 0; p < sl_if_hwm; p++) {
		const struct sl_iface *f = &sl_ifaces[p];
		if (!f->used || (only && only != f) || sl_ip6_is_zero(f->ip6_ll))
			continue;
		char ip[46], a[52];
		sl_fmt_ip6(ip, f->ip6_ll);
		sl_tbl_row(o, f->name, "link-local", ip);
		for (int i = 0; i < f->naddr6; i++) {
			sl_fmt_ip6(ip, f->addrs6[i]);
			snprintf(a, sizeof(a), "%s/%u", ip, f->plens6[i]);
			sl_tbl_row(o, f->name, "global", a);
		}
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_if6, .path = "show ip6 interface", .usage = "[IFACE]",
	       .help = "interfaces with IPv6: their link-local and global addresses",
	       .fn = cmd_show_if6)
