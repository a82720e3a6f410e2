/* SPDX-License-Identifier: BSD-3-Clause */
/* Feature arcs (see feature.h) and their CLI. */
#include "feature.h"
#include "runtime.h"
#include "../cli/cli.h"
#include "../interface/iface.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct sl_arc sl_arcs[SL_NB_ARCS] = {
	[SL_ARC_IP4_UNICAST] = {.name = "ip4-unicast", .start = "ip4-input", .end = "ip4-lookup"},
};
uint32_t sl_arc_users[SL_NB_ARCS];
uint8_t sl_if_features[SL_IF_MAX][SL_NB_ARCS];

uint8_t sl_feature_register(enum sl_arc_id arc, const char *name, const char *node)
{
	struct sl_arc *a = &sl_arcs[arc];
	RTE_VERIFY(a->nfeat < SL_ARC_MAX_FEATS);
	a->feat[a->nfeat].name = name;
	a->feat[a->nfeat].node = node;
	return a->nfeat++;
}

void sl_feature_resolve(void)
{
	for (int arc = 0; arc < SL_NB_ARCS; arc++) {
		struct sl_arc *a = &sl_arcs[arc];
		if (!a->nfeat)
			continue;
		rte_node_t start = rte_node_from_name(a->start);
		RTE_VERIFY(start != RTE_NODE_ID_INVALID);
		for (uint8_t f = 0; f < a->nfeat; f++) {
			rte_node_t id = rte_node_from_name(a->feat[f].node);
			RTE_VERIFY(id != RTE_NODE_ID_INVALID);
			a->start_edge[f] = sl_edge_to(start, a->feat[f].node);
			for (uint8_t g = f + 1; g < a->nfeat; g++)
				a->edge[f][g] = sl_edge_to(id, a->feat[g].node);
			a->edge[f][SL_ARC_MAX_FEATS] = sl_edge_to(id, a->end);
		}
	}
}

static int arc_find(const char *name)
{
	for (int arc = 0; arc < SL_NB_ARCS; arc++)
		if (!strcmp(sl_arcs[arc].name, name))
			return arc;
	return -1;
}

int sl_feature_set(uint16_t ifx, enum sl_arc_id arc, const char *name, bool on)
{
	struct sl_arc *a = &sl_arcs[arc];
	uint8_t f;
	for (f = 0; f < a->nfeat && strcmp(a->feat[f].name, name); f++)
		;
	if (f == a->nfeat)
		return -ENOENT;
	uint8_t old = sl_if_features[ifx][arc];
	uint8_t mask = on ? (uint8_t)(old | 1u << f) : (uint8_t)(old & ~(1u << f));
	if (mask && !old)
		__atomic_add_fetch(&sl_arc_users[arc], 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sl_if_features[ifx][arc], mask, __ATOMIC_RELEASE);
	if (!mask && old)
		__atomic_sub_fetch(&sl_arc_users[arc], 1, __ATOMIC_RELEASE);
	return 0;
}

void sl_feature_clear(uint16_t ifx)
{
	for (int arc = 0; arc < SL_NB_ARCS; arc++)
		for (uint8_t f = 0; f < sl_arcs[arc].nfeat; f++)
			sl_feature_set(ifx, (enum sl_arc_id)arc, sl_arcs[arc].feat[f].name, false);
}

/* An interface's features go with it (deleting it is never refused for them). */
static int feature_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	(void)why;
	(void)len;
	if (commit)
		sl_feature_clear(f->port);
	return 0;
}

RTE_INIT(feature_init)
{
	sl_iface_busy_register(feature_busy);
}

/* set interface feature IFACE NAME arc ARC [disable] (VPP's grammar) */
static int cmd_set_feature(struct sl_out *o, int argc, char **argv)
{
	bool off = argc == 5 && !strcmp(argv[4], "disable");
	if ((argc != 4 && !off) || strcmp(argv[2], "arc"))
		return sl_out_error(o, "usage: set interface feature IFACE NAME arc ARC [disable]");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	int arc = arc_find(argv[3]);
	if (arc < 0)
		return sl_out_error(o, "unknown arc '%s'", argv[3]);
	if (sl_feature_set(f->port, (enum sl_arc_id)arc, argv[1], !off))
		return sl_out_error(o, "no feature '%s' on arc %s", argv[1], argv[3]);
	return 0;
}
SL_CLI_COMMAND(set_feature, .path = "set interface feature",
	       .usage = "IFACE NAME arc ARC [disable]",
	       .help = "turn a feature on (or off) on an interface's arc", .fn = cmd_set_feature)

static int cmd_show_features(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: show interface features IFACE");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	sl_tbl_begin(o, "features", 4, (const char *[]){"arc", "order:u", "feature", "enabled"});
	for (int arc = 0; arc < SL_NB_ARCS; arc++) {
		const struct sl_arc *a = &sl_arcs[arc];
		for (uint8_t i = 0; i < a->nfeat; i++) {
			char ord[8];
			snprintf(ord, sizeof(ord), "%u", i);
			sl_tbl_row(o, a->name, ord, a->feat[i].name,
				   sl_if_features[f->port][arc] & (1u << i) ? "yes" : "no");
		}
	}
	sl_tbl_end(o);
	return 0;
}
/* show graph's part: each arc, its features in path order and their nodes. */
void sl_feature_show(struct sl_out *o)
{
	sl_tbl_begin(o, "arcs", 5, (const char *[]){"arc", "start", "end", "feature", "node"});
	for (int arc = 0; arc < SL_NB_ARCS; arc++) {
		const struct sl_arc *a = &sl_arcs[arc];
		for (uint8_t i = 0; i < a->nfeat; i++)
			sl_tbl_row(o, a->name, a->start, a->end, a->feat[i].name, a->feat[i].node);
	}
	sl_tbl_end(o);
}

SL_CLI_COMMAND(show_features, .path = "show interface features", .usage = "IFACE",
	       .help = "every feature of every arc, in path order, and whether IFACE has it on",
	       .fn = cmd_show_features)
