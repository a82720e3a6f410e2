/* SPDX-License-Identifier: BSD-3-Clause */
/* Feature arcs (VPP's VNET_FEATURE_ARC_INIT): an arc is a point on the path (between its
 * start node and its end node) where each interface may have an ordered list of feature
 * nodes. A feature registers itself on an arc from a constructor; every feature node gets an
 * edge to each later feature of its arc and to the arc's end, the start node one to each
 * feature. An interface's features on an arc are a bitmask in sl_iface (order: registration
 * order), so a feature node's next is the next bit set for the packet's interface, and the
 * start node pays one load per vector while no interface has a feature on the arc. */
#ifndef SL_FEATURE_H
#define SL_FEATURE_H

#include "../sluice.h"

enum sl_arc_id {
	SL_ARC_IP4_UNICAST,   /* ip4-input -> ip4-lookup: checked IPv4 packets, before the FIB */
	SL_NB_ARCS
};
#define SL_ARC_MAX_FEATS 8

struct sl_arc {
	const char *name;
	const char *start, *end;    /* node names */
	uint8_t nfeat;
	struct {
		const char *name, *node;
	} feat[SL_ARC_MAX_FEATS];
	uint16_t start_edge[SL_ARC_MAX_FEATS];           /* the start node's edge to feature f */
	uint16_t edge[SL_ARC_MAX_FEATS][SL_ARC_MAX_FEATS + 1]; /* f's edge to g, or to the end */
};
extern struct sl_arc sl_arcs[SL_NB_ARCS];
extern uint32_t sl_arc_users[SL_NB_ARCS]; /* interfaces with a feature on the arc */
extern uint8_t sl_if_features[SL_IF_MAX][SL_NB_ARCS]; /* per interface: bit f = feature f on */

/* From a constructor: feature `name` (node `node`) on an arc; returns its index (its bit). */
uint8_t sl_feature_register(enum sl_arc_id arc, const char *name, const char *node);
/* Adds the arcs' edges; once, before the first graph (runtime.c). */
void sl_feature_resolve(void);
/* Control: turns feature `name` on or off for interface ifx; -ENOENT for an unknown name. */
int sl_feature_set(uint16_t ifx, enum sl_arc_id arc, const char *name, bool on);
struct sl_out;
/* The arcs and their features, as a table (show graph). */
void sl_feature_show(struct sl_out *o);
/* An interface goes: its features go off. */
void sl_feature_clear(uint16_t ifx);

/* The start node's edge for a packet of interface ifx entering the arc, or `none` when
 * the interface has no feature there. */
static inline uint16_t sl_feature_first(enum sl_arc_id arc, uint16_t ifx, uint16_t none)
{
	uint8_t mask = __atomic_load_n(&sl_if_features[ifx][arc], __ATOMIC_RELAXED);
	return mask ? sl_arcs[arc].start_edge[__builtin_ctz(mask)] : none;
}

/* Feature `me`'s edge for a packet of interface ifx: the next feature on, or the arc's end. */
static inline uint16_t sl_feature_next(enum sl_arc_id arc, uint8_t me, uint16_t ifx)
{
	uint8_t mask = __atomic_load_n(&sl_if_features[ifx][arc], __ATOMIC_RELAXED) &
		       (uint8_t)(0xfe << me);
	const struct sl_arc *a = &sl_arcs[arc];
	return a->edge[me][mask ? __builtin_ctz(mask) : SL_ARC_MAX_FEATS];
}

#endif
