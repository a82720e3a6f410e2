/* SPDX-License-Identifier: BSD-3-Clause */
/* Feature arcs (VPP's VNET_FEATURE_ARC_INIT): an arc is a point on the path, between its start
 * nodes and its end, where each interface may have an ordered list of feature nodes. A
 * feature registers itself on an arc from a constructor, and so does each node that starts
 * the arc (sl_feature_start); at start-up every feature node gets an edge to each later
 * feature of its arc and to each of the arc's ends, each start node one to each feature. An
 * interface's features on an arc are a bitmask (order: registration order), so a feature
 * node's next is the next bit set for the packet's interface, and a start node pays one load
 * per vector (or per burst) while no interface has a feature on the arc.
 *
 * The arcs:
 *   device-input      port-rx, pg-input, ethernet-input (a sub-interface's frames, their tags
 *                     popped), pppoe-input (a session's IPv4, as an Ethernet frame),
 *                     device-input-features (an IPoE session's frames, a BVI's, a
 *                     loopback's, a tunnel's decapsulated ones; an L3 tunnel's IP as an
 *                     Ethernet frame; refused on MPLS tunnels, which receive nothing)
 *                     -> the interface's mode: ethernet-input or an L2 mode's node (end
 *                     e = the mode); frames as received
 *   ip4-unicast       ip4-input -> ip4-lookup: checked IPv4 packets, before the FIB
 *   interface-output  interface-output-features -> interface-tx: frames as sent. A sender
 *                     reaches the arc through the interface's tx_slot, which points at the
 *                     interface's first feature on the arc while it has one, so interfaces
 *                     without pay nothing at all; the features are tx users themselves and
 *                     send to the next feature or the interface's output directly
 *                     (sl_feature_next_out), so neither interface-output-features nor
 *                     interface-tx is a hop on the way: no sender reaches them any more;
 *                     they stay registered as the arc's start and end (show graph). */
#ifndef SL_FEATURE_H
#define SL_FEATURE_H

#include "../sluice.h"

enum sl_arc_id {
	SL_ARC_DEVICE_INPUT,
	SL_ARC_IP4_UNICAST,
	SL_ARC_INTERFACE_OUTPUT,
	SL_ARC_IP6_UNICAST,
	SL_NB_ARCS
};
#define SL_ARC_MAX_FEATS 8
#define SL_ARC_MAX_STARTS 8
#define SL_ARC_MAX_ENDS 8

/* A feature's own part in turning it on or off for interface ifx: called before its bit is
 * set (on: non-zero refuses, the reason in why) and after it is cleared (off). */
typedef int (*sl_feature_hook_fn)(uint16_t ifx, bool on, char *why, size_t len);

struct sl_arc {
	const char *name;
	const char *end[SL_ARC_MAX_ENDS]; /* end e: a node name */
	uint8_t nend;
	/* the arc's part: interface ifx's features on it are now mask (old before) */
	void (*changed)(uint16_t ifx, uint8_t mask, uint8_t old);
	uint8_t nfeat, nstart;
	struct {
		const char *name, *node;
		const char *also;   /* a node that continues the feature's packets (noisy-fifo) */
		sl_feature_hook_fn hook;
	} feat[SL_ARC_MAX_FEATS];
	struct {
		const char *node;
		uint16_t *edges;    /* the start node's edge to feature f: edges[f] */
	} start[SL_ARC_MAX_STARTS];
	/* feature f's edge to feature g (g > f), then to end e at [SL_ARC_MAX_FEATS + e] */
	uint16_t edge[SL_ARC_MAX_FEATS][SL_ARC_MAX_FEATS + SL_ARC_MAX_ENDS];
};
extern struct sl_arc sl_arcs[SL_NB_ARCS];
extern uint32_t sl_arc_users[SL_NB_ARCS]; /* interfaces with a feature on the arc */
_Static_assert(SL_NB_ARCS <= SL_IF_FAST_ARCS, "each interface's arcs in its sl_if_fast");
/* Interface ifx's features on arc `arc`: bit f = feature f on (sl_if_fast's features). */
static inline uint8_t sl_if_features(uint16_t ifx, enum sl_arc_id arc)
{
	return __atomic_load_n(&sl_if_fast[ifx].features[arc], __ATOMIC_RELAXED);
}

/* From a constructor: feature `name` (node `node`) on an arc; returns its index (its bit). */
uint8_t sl_feature_register(enum sl_arc_id arc, const char *name, const char *node);
/* From a constructor: feature f's hook, and a node that sends its packets on as f does
 * (it gets the same edges, at the same indexes: it must start with the same edges). */
void sl_feature_hook(enum sl_arc_id arc, uint8_t f, sl_feature_hook_fn hook);
void sl_feature_also(enum sl_arc_id arc, uint8_t f, const char *node);
/* From a constructor: node `node` starts the arc; edges[f] will be its edge to feature f. */
void sl_feature_start(enum sl_arc_id arc, const char *node, uint16_t edges[SL_ARC_MAX_FEATS]);
/* Adds the arcs' edges; once, before the first graph (runtime.c). */
void sl_feature_resolve(void);
/* Control: turns feature `name` on or off for interface ifx: 0, -ENOENT for an unknown name,
 * or -EPERM with the reason in why when the feature refuses. */
int sl_feature_set(uint16_t ifx, enum sl_arc_id arc, const char *name, bool on, char *why,
		   size_t len);
int sl_arc_find(const char *name);
struct sl_out;
/* The arcs and their features, as a table (show graph). */
void sl_feature_show(struct sl_out *o);
/* An interface goes: its features go off. */
void sl_feature_clear(uint16_t ifx);

/* A start node's edge for a packet of interface ifx entering the arc, or `none` when the
 * interface has no feature there. */
static inline uint16_t sl_feature_first(enum sl_arc_id arc, uint16_t ifx,
					const uint16_t *edges, uint16_t none)
{
	uint8_t mask = sl_if_features(ifx, arc);
	return mask ? edges[__builtin_ctz(mask)] : none;
}

/* sl_feature_first for a vector's packets in turn, the last interface's answer kept (runs of
 * one interface are the rule): an arc's state read once a run, as consistent as once a packet
 * (its writers publish each change whole). Starts as {.ifx = UINT32_MAX}. */
struct sl_feature_memo {
	uint32_t ifx;
	uint16_t next;
};

static inline uint16_t sl_feature_first_memo(struct sl_feature_memo *c, enum sl_arc_id arc,
					     uint16_t ifx, const uint16_t *edges, uint16_t none)
{
	if (unlikely(ifx != c->ifx)) {
		c->ifx = ifx;
		c->next = sl_feature_first(arc, ifx, edges, none);
	}
	return c->next;
}

/* Feature `me`'s edge for a packet of interface ifx: the next feature on, or the arc's end
 * number `end` (0 but on device-input, where it is the interface's mode). */
static inline uint16_t sl_feature_next(enum sl_arc_id arc, uint8_t me, uint16_t ifx,
				       uint8_t end)
{
	uint8_t mask = sl_if_features(ifx, arc) & (uint8_t)(0xfe << me);
	return sl_arcs[arc].edge[me][mask ? __builtin_ctz(mask) : SL_ARC_MAX_FEATS + end];
}

#endif
