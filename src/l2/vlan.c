/* SPDX-License-Identifier: BSD-3-Clause */
/* VLAN sub-interfaces: create sub-interfaces IFACE ID [dot1q|dot1ad VLAN [inner-dot1q VLAN]],
 * delete sub-interface IFACE.ID. A sub-interface is a logical interface of its own
 * (addresses, state, mode, counters), created and deleted with no graph change:
 * ethernet-input finds it by (parent, tags) and pops the tags, vlan-output pushes them and
 * sends on the parent's port-tx. */
#include "../cli/cli.h"
#include "../interface/iface.h"

#include <errno.h>
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
	if (p->type != SL_IF_PORT && p->type != SL_IF_PG)
		return sl_out_error(o, "%s cannot have sub-interfaces (ports and pg interfaces can)",
				    p->name);
	if (sl_arg_u32(o, "sub-interface id", argv[1], 1, 999999999, &id))
		return -1;
	vid = id;
	int i = 2;
	if (id > 4094 && !(i < argc && (!strcmp(argv[i], "dot1q") || !strcmp(argv[i], "dot1ad"))))
		return sl_out_error(o, "sub-interface id must be from 1 to 4094 unless dot1q or "
				    "dot1ad gives the VLAN, not '%s'", argv[1]);
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
	struct sl_iface *f;
	int rc = sl_iface_sub_create(p, id, tpid, (uint16_t)vid, (uint16_t)inner, &f);
	if (rc == -EADDRINUSE)
		return sl_out_error(o, "%s has these tags already", p->name);
	if (rc == -EEXIST)
		return sl_out_error(o, "interface '%s.%u' exists", p->name, id);
	if (rc)
		return sl_out_error(o, "cannot create %s.%u: %s", p->name, id, strerror(-rc));
	sl_out_msg(o, "%s", f->name);
	return 0;
}
SL_CLI_COMMAND(create_sub, .path = "create sub-interfaces",
	       .usage = "IFACE ID [dot1q VLAN | dot1ad VLAN [inner-dot1q VLAN]]",
	       .help = "a VLAN sub-interface IFACE.ID (tag ID unless given): routed, or in an L2 "
		       "mode, with its tags popped on input and pushed on output",
	       .fn = cmd_create_sub)

static int cmd_delete_sub(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: delete sub-interface IFACE.ID");
	return sl_iface_delete_named(o, SL_IF_SUB, argv[0]);
}
SL_CLI_COMMAND(delete_sub, .path = "delete sub-interface", .usage = "IFACE.ID",
	       .help = "delete a VLAN sub-interface that nothing refers to", .fn = cmd_delete_sub)
