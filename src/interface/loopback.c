/* SPDX-License-Identifier: BSD-3-Clause */
/* Loopback interfaces (VPP's loopN): routed interfaces with no port; what is sent out of one
 * is received on it again (loop-output -> ethernet-input). create loopback interface [mac M]
 * [instance N], delete loopback interface intfc loopN. */
#include "../cli/cli.h"
#include "../runtime/feature.h"
#include "iface.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum { LO_NEXT_ETH, LO_NEXT_FEAT, LO_NB_NEXT };

/* What a loopback sends it receives: to ethernet-input, or through its device-input features
 * first (an input ACL, a policer) when it has any */
static uint16_t lo_out_process(struct rte_graph *g, struct rte_node *node, void **objs,
			       uint16_t n)
{
	sl_iface_loop_back(sl_node_worker(node), objs, n, true);
	if (likely(!__atomic_load_n(&sl_arc_users[SL_ARC_DEVICE_INPUT], __ATOMIC_RELAXED))) {
		rte_node_next_stream_move(g, node, LO_NEXT_ETH);
		return n;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		rte_node_enqueue_x1(g, node, sl_if_features(m->port, SL_ARC_DEVICE_INPUT) ?
						     LO_NEXT_FEAT : LO_NEXT_ETH, m);
	}
	return n;
}

static struct rte_node_register lo_out_node = {
	.name = "loop-output",
	.process = lo_out_process,
	.init = sl_node_init,
	.nb_edges = LO_NB_NEXT,
	.next_nodes = {[LO_NEXT_ETH] = "ethernet-input", [LO_NEXT_FEAT] = "device-input-features"},
};
SL_NODE_REGISTER(lo_out_node)

RTE_INIT(lo_init)
{
	sl_iface_output_register(SL_IF_LOOP, "loop-output");
}

/* Parses [instance N] [mac MAC] for loopbacks and BVIs; instance -1 when not given. */
int sl_iface_parse_inst_mac(struct sl_out *o, int argc, char **argv, const char *usage,
			    int64_t *inst, struct rte_ether_addr *mac, bool *have_mac)
{
	*inst = -1;
	*have_mac = false;
	for (int i = 0; i < argc; i += 2) {
		uint32_t v;
		if (i + 1 >= argc)
			return sl_out_error(o, "%s", usage);
		if (!strcmp(argv[i], "instance")) {
			if (sl_arg_u32(o, "instance", argv[i + 1], 0, 9999, &v))
				return -1;
			*inst = v;
		} else if (!strcmp(argv[i], "mac")) {
			if (sl_arg_mac(o, argv[i + 1], mac->addr_bytes))
				return -1;
			*have_mac = true;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", argv[i], usage);
		}
	}
	return 0;
}

/* Creates PREFIX<instance> of type t (the first free instance unless given); its MAC is
 * base with the instance in the last two bytes unless given. Answers the name. */
int sl_iface_create_named(struct sl_out *o, enum sl_if_type t, const char *prefix, int64_t inst,
			  struct rte_ether_addr mac, bool have_mac)
{
	char name[16];
	if (inst < 0) /* the first free instance */
		for (inst = 0; snprintf(name, sizeof(name), "%s%u", prefix, (unsigned)inst),
		     sl_iface_by_name(name);)
			inst++;
	snprintf(name, sizeof(name), "%s%u", prefix, (unsigned)inst);
	if (!have_mac) {
		mac.addr_bytes[4] = (uint8_t)(inst >> 8);
		mac.addr_bytes[5] = (uint8_t)inst;
	}
	struct sl_iface *f;
	int rc = sl_iface_create(t, name, &mac, &f);
	if (rc == -EEXIST)
		return sl_out_error(o, "interface '%s' exists", name);
	if (rc)
		return sl_out_error(o, "cannot create %s: %s", name, strerror(-rc));
	sl_out_msg(o, "%s", f->name);
	return 0;
}

/* Deletes NAME if it is an interface of type t. */
int sl_iface_delete_named(struct sl_out *o, enum sl_if_type t, const char *name)
{
	struct sl_iface *f = sl_iface_by_name(name);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", name);
	if (f->type != t)
		return sl_out_error(o, "%s is not a %s interface", name, sl_if_type_names[t]);
	char why[160] = "";
	int rc = sl_iface_delete(f, why, sizeof(why));
	if (rc)
		return sl_out_error(o, "cannot delete %s: %s", name, why[0] ? why : strerror(-rc));
	return 0;
}

static int cmd_create_loop(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: create loopback interface [mac MAC] [instance N]";
	int64_t inst;
	struct rte_ether_addr mac = {{0x02, 0xfe, 0x10, 0x0b, 0, 0}};
	bool have_mac;
	if (sl_iface_parse_inst_mac(o, argc, argv, usage, &inst, &mac, &have_mac))
		return -1;
	return sl_iface_create_named(o, SL_IF_LOOP, "loop", inst, mac, have_mac);
}
SL_CLI_COMMAND(create_loop, .path = "create loopback interface", .usage = "[mac MAC] [instance N]",
	       .help = "a loopback interface loopN (routed; what it sends it receives)",
	       .fn = cmd_create_loop)

static int cmd_delete_loop(struct sl_out *o, int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[0], "intfc"))
		return sl_out_error(o, "usage: delete loopback interface intfc loopN");
	return sl_iface_delete_named(o, SL_IF_LOOP, argv[1]);
}
SL_CLI_COMMAND(delete_loop, .path = "delete loopback interface", .usage = "intfc loopN",
	       .help = "delete a loopback interface that nothing refers to", .fn = cmd_delete_loop)
