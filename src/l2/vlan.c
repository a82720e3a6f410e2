/* SPDX-License-Identifier: BSD-3-Clause */
/* VLAN sub-interfaces: create sub-interfaces IFACE ID [dot1q|dot1ad VLAN [inner-dot1q VLAN]].
 * A sub-interface is an interface of its own (addresses, state, mode, counters) on a
 * hot-plugged null port that is never polled: ethernet-input maps a parent's tagged frames to
 * it and pops the tags, and its port-tx pushes them and sends on the parent's queue. */
#include "../cli/cli.h"
#include "../interface/iface.h"

#include <stdio.h>
#include <string.h>

static int cmd_create_sub(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: create sub-interfaces IFACE ID [dot1q VLAN | dot1ad VLAN "
			    "[inner-dot1q VLAN]]";
	uint32_t id, vid, inner = 0;
	uint16_t tpid = RTE_ETHER_TYPE_VLAN;
	if (argc < 2)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *p = sl_iface_by_name(argv[0]);
	if (!p)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (p->sub || p->bvi || !strncmp(p->name, "bvi", 3))
		return sl_out_error(o, "%s cannot have sub-interfaces (ports and pg interfaces can)",
				    p->name);
	if (sl_arg_u32(o, "sub-interface id", argv[1], 1, 4094, &id))
		return -1;
	vid = id;
	int i = 2;
	if (i < argc && (!strcmp(argv[i], "dot1q") || !strcmp(argv[i], "dot1ad"))) {
		tpid = argv[i][4] == 'a' ? RTE_ETHER_TYPE_QINQ : RTE_ETHER_TYPE_VLAN;
		if (sl_arg_u32(o, "VLAN", i + 1 < argc ? argv[i + 1] : NULL, 1, 4094, &vid))
			return -1;
		i += 2;
		if (i < argc && !strcmp(argv[i], "inner-dot1q")) {
			if (sl_arg_u32(o, "inner VLAN", i + 1 < argc ? argv[i + 1] : NULL, 1, 4094,
				       &inner))
				return -1;
			i += 2;
		}
	}
	if (i != argc)
		return sl_out_error(o, "%s", usage);
	if (p->nb_subs == RTE_DIM(p->subs))
		return sl_out_error(o, "%s has %zu sub-interfaces already", p->name, RTE_DIM(p->subs));
	for (uint16_t s = 0; s < p->nb_subs; s++) {
		const struct sl_iface *q = &sl_ifaces[p->subs[s]];
		if (q->tpid == tpid && q->vid == vid && q->inner_vid == inner)
			return sl_out_error(o, "%s has these tags already", q->name);
	}
	char name[80];
	if (snprintf(name, sizeof(name), "%s.%u", p->name, id) >= (int)sizeof(p->name))
		return sl_out_error(o, "the name %s.%u is too long", p->name, id);
	if (sl_iface_by_name(name))
		return sl_out_error(o, "interface '%s' exists", name);
	struct sl_iface *f;
	int rc = sl_iface_add_virtual(name, "net_null", "no-rx=1", &p->mac, &f);
	if (rc)
		return sl_out_error(o, "cannot create %s: %s", name, strerror(rc < 0 ? -rc : rc));
	f->parent = p->port;
	f->tpid = tpid;
	f->vid = (uint16_t)vid;
	f->inner_vid = (uint16_t)inner;
	f->mtu = p->mtu;
	f->sub = true; /* it is down: nothing is sent to it before this */
	p->subs[p->nb_subs] = f->port;
	__atomic_store_n(&p->nb_subs, (uint16_t)(p->nb_subs + 1), __ATOMIC_RELEASE);
	sl_out_msg(o, "%s", f->name);
	return 0;
}
SL_CLI_COMMAND(create_sub, .path = "create sub-interfaces",
	       .usage = "IFACE ID [dot1q VLAN | dot1ad VLAN [inner-dot1q VLAN]]",
	       .help = "a VLAN sub-interface IFACE.ID (tag ID unless given): routed, or in an L2 "
		       "mode, with its tags popped on input and pushed on output",
	       .fn = cmd_create_sub)
