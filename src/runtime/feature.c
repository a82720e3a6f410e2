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
	[SL_ARC_DEVICE_INPUT] = {.name = "device-input", .end = {SL_MODE_NODES},
				 .nend = SL_NB_MODES},
	[SL_ARC_IP4_UNICAST] = {.name = "ip4-unicast", .end = {"ip4-lookup"}, .nend = 1},
	[SL_ARC_INTERFACE_OUTPUT] = {.name = "interface-output", .end = {"interface-tx"},
				     .nend = 1, .changed = sl_iface_out_features},
	[SL_ARC_IP6_UNICAST] = {.name = "ip6-unicast", .end = {"ip6-lookup"}, .nend = 1},
};
uint32_t sl_arc_users[SL_NB_ARCS];

uint8_t sl_feature_register(enum sl_arc_id arc, const char *name, const char *node)
{
	struct sl_arc *a = &sl_arcs[arc];
	RTE_VERIFY(a->nfeat < SL_ARC_MAX_FEATS);
	a->feat[a->nfeat].name = name;
	a->feat[a->nfeat].node = node;
	return a->nfeat++;
}

void sl_feature_hook(enum sl_arc_id arc, uint8_t f, sl_feature_hook_fn hook)
{
	sl_arcs[arc].feat[f].hook = hook;
}

void sl_feature_also(enum sl_arc_id arc, uint8_t f, const char *node)
{
	sl_arcs[arc].feat[f].also = node;
}

void sl_feature_start(enum sl_arc_id arc, const char *node, uint16_t edges[SL_ARC_MAX_FEATS])
{
	struct sl_arc *a = &sl_arcs[arc];
	RTE_VERIFY(a->nstart < SL_ARC_MAX_STARTS);
	a->start[a->nstart].node = node;
	a->start[a->nstart++].edges = edges;
}

/* Feature f's edges from node id (f's own node, or its `also`), in the arc's table. */
static void feature_edges(struct sl_arc *a, uint8_t f, rte_node_t id, bool check)
{
	for (uint8_t g = f + 1; g < a->nfeat; g++) {
		uint16_t e = sl_edge_to(id, a->feat[g].node);
		RTE_VERIFY(!check || e == a->edge[f][g]);
		a->edge[f][g] = e;
	}
	for (uint8_t e = 0; e < a->nend; e++) {
		uint16_t x = sl_edge_to(id, a->end[e]);
		RTE_VERIFY(!check || x == a->edge[f][SL_ARC_MAX_FEATS + e]);
		a->edge[f][SL_ARC_MAX_FEATS + e] = x;
	}
}

void sl_feature_resolve(void)
{
	for (int arc = 0; arc < SL_NB_ARCS; arc++) {
		struct sl_arc *a = &sl_arcs[arc];
		for (uint8_t s = 0; s < a->nstart; s++) {
			rte_node_t start = rte_node_from_name(a->start[s].node);
			RTE_VERIFY(start != RTE_NODE_ID_INVALID);
			for (uint8_t f = 0; f < a->nfeat; f++)
				a->start[s].edges[f] = sl_edge_to(start, a->feat[f].node);
		}
		for (uint8_t f = 0; f < a->nfeat; f++) {
			rte_node_t id = rte_node_from_name(a->feat[f].node);
			RTE_VERIFY(id != RTE_NODE_ID_INVALID);
			feature_edges(a, f, id, false);
			if (a->feat[f].also) {
				id = rte_node_from_name(a->feat[f].also);
				RTE_VERIFY(id != RTE_NODE_ID_INVALID);
				feature_edges(a, f, id, true);
			}
		}
	}
}

int sl_arc_find(const char *name)
{
	for (int arc = 0; arc < SL_NB_ARCS; arc++)
		if (!strcmp(sl_arcs[arc].name, name))
			return arc;
	return -1;
}

/* Whether interface ifx receives nothing of its own, so that a device-input feature there
 * would see nothing: an MPLS tunnel's packets are taken by their label (mpls local-label),
 * never received on the tunnel (VPP's MPLS tunnels are output-only too). */
static bool receives_nothing(uint16_t ifx)
{
	switch (sl_ifaces[ifx].type) {
	case SL_IF_MPLSUDP:
	case SL_IF_MPLSGRE:
	case SL_IF_MPLSTUN:
	case SL_IF_MPLSUDP6:
	case SL_IF_MPLSGRE6:
		return true;
	default:
		return false;
	}
}

int sl_feature_set(uint16_t ifx, enum sl_arc_id arc, const char *name, bool on, char *why,
		   size_t len)
{
	struct sl_arc *a = &sl_arcs[arc];
	uint8_t f;
	for (f = 0; f < a->nfeat && strcmp(a->feat[f].name, name); f++)
		;
	if (f == a->nfeat) {
		snprintf(why, len, "no feature '%s' on arc %s", name, a->name);
		return -ENOENT;
	}
	uint8_t old = sl_if_fast[ifx].features[arc];
	if (!!(old & 1u << f) == on)
		return 0;
	if (on && arc == SL_ARC_DEVICE_INPUT && receives_nothing(ifx)) {
		snprintf(why, len, "%s receives no packets of its own (an MPLS tunnel's are "
			 "taken by their label): input features do not apply", sl_ifaces[ifx].name);
		return -EPERM;
	}
	if (on && a->feat[f].hook && a->feat[f].hook(ifx, true, why, len))
		return -EPERM;
	uint8_t mask = on ? (uint8_t)(old | 1u << f) : (uint8_t)(old & ~(1u << f));
	if (mask && !old)
		__atomic_add_fetch(&sl_arc_users[arc], 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sl_if_fast[ifx].features[arc], mask, __ATOMIC_RELEASE);
	if (!mask && old)
		__atomic_sub_fetch(&sl_arc_users[arc], 1, __ATOMIC_RELEASE);
	if (a->changed)
		a->changed(ifx, mask, old);
	if (!on && a->feat[f].hook)
		a->feat[f].hook(ifx, false, why, len);
	return 0;
}

void sl_feature_clear(uint16_t ifx)
{
	char why[64]; /* unread: turning off is never refused */
	for (int arc = 0; arc < SL_NB_ARCS; arc++)
		for (uint8_t f = 0; f < sl_arcs[arc].nfeat; f++)
			sl_feature_set(ifx, (enum sl_arc_id)arc, sl_arcs[arc].feat[f].name, false,
				       why, sizeof(why));
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
	int arc = sl_arc_find(argv[3]);
	if (arc < 0)
		return sl_out_error(o, "unknown arc '%s'", argv[3]);
	char why[160];
	if (sl_feature_set(f->port, (enum sl_arc_id)arc, argv[1], !off, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
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
				   sl_if_features(f->port, (enum sl_arc_id)arc) & (1u << i) ? "yes" : "no");
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
		char start[256] = "", end[256] = "";
		size_t k = 0;
		for (uint8_t s = 0; s < a->nstart && k < sizeof(start); s++)
			k += (size_t)snprintf(start + k, sizeof(start) - k, "%s%s", s ? "," : "",
					      a->start[s].node);
		k = 0;
		for (uint8_t e = 0; e < a->nend && k < sizeof(end); e++)
			k += (size_t)snprintf(end + k, sizeof(end) - k, "%s%s", e ? "," : "",
					      a->end[e]);
		for (uint8_t i = 0; i < a->nfeat; i++)
			sl_tbl_row(o, a->name, start, end, a->feat[i].name, a->feat[i].node);
	}
	sl_tbl_end(o);
}

SL_CLI_COMMAND(show_features, .path = "show interface features", .usage = "IFACE",
	       .help = "every feature of every arc, in path order, and whether IFACE has it on",
	       .fn = cmd_show_features)
