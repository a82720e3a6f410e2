/* SPDX-License-Identifier: BSD-3-Clause */
/* L2 modes: the control function (l2.h) and its CLI: set interface l2 xconnect, set interface
 * fwd-mode, set interface l3. */
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "l2.h"

#include <string.h>

const char *const sl_mode_names[SL_NB_MODES] = {"l3", "io", "mac", "macswap", "5tswap",
						 "bridge"};

/* The peer, MACs and mode are written while workers read them: the mode last, released, so
 * a worker that sees the new mode sees its settings (a vector in flight may still use the
 * previous ones: every value is a valid port or address). */
void sl_l2_set_mode(uint16_t ifx, enum sl_mode mode, uint16_t peer,
		    const struct rte_ether_addr *dst, const struct rte_ether_addr *src)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	uint16_t left = f->mode == SL_MODE_BRIDGE || f->bvi ? f->bd : 0;
	f->bvi = false; /* a BVI set to a mode or to l3 leaves its bridge domain */
	f->peer = peer;
	if (dst)
		f->mac_dst = *dst;
	if (src)
		f->mac_src = *src;
	__atomic_store_n(&f->mode, (uint8_t)mode, __ATOMIC_RELEASE);
	if (left)
		sl_l2_bridge_left(f, left); /* no longer flooded to */
}

static int cmd_xconnect(struct sl_out *o, int argc, char **argv)
{
	if (argc != 2)
		return sl_out_error(o, "usage: set interface l2 xconnect IFACE PEER");
	struct sl_iface *f = sl_iface_by_name(argv[0]), *p = sl_iface_by_name(argv[1]);
	if (!f || !p)
		return sl_out_error(o, "unknown interface '%s'", f ? argv[1] : argv[0]);
	sl_l2_set_mode(f->port, SL_MODE_IO, p->port, NULL, NULL);
	return 0;
}
SL_CLI_COMMAND(xconnect, .path = "set interface l2 xconnect", .usage = "IFACE PEER",
	       .help = "send what IFACE receives out of PEER unchanged (one direction)",
	       .fn = cmd_xconnect)

static int cmd_fwd_mode(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: set interface fwd-mode IFACE io|mac|macswap|5tswap "
			    "[peer IFACE] [dst MAC] [src MAC]";
	if (argc < 2)
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[0]), *p;
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	int mode = -1;
	for (int m = SL_MODE_IO; m < SL_MODE_BRIDGE; m++)
		if (!strcmp(argv[1], sl_mode_names[m]))
			mode = m;
	if (mode < 0)
		return sl_out_error(o, "unknown mode '%s'; %s", argv[1], usage);
	uint16_t peer = f->port;
	struct rte_ether_addr dst = {{0x02, 0, 0, 0, 0, 0x01}}, src;
	bool have_src = false;
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc)
			return sl_out_error(o, "'%s' needs a value; %s", argv[i], usage);
		if (!strcmp(argv[i], "peer")) {
			if (!(p = sl_iface_by_name(argv[i + 1])))
				return sl_out_error(o, "unknown interface '%s'", argv[i + 1]);
			peer = p->port;
		} else if ((!strcmp(argv[i], "dst") || !strcmp(argv[i], "src")) && mode == SL_MODE_MAC) {
			bool d = argv[i][0] == 'd';
			if (sl_arg_mac(o, argv[i + 1], d ? dst.addr_bytes : src.addr_bytes))
				return -1;
			have_src |= !d;
		} else {
			return sl_out_error(o, "unknown option '%s' for mode %s; %s", argv[i], argv[1],
					    usage);
		}
	}
	/* like testpmd's mac mode: the source is the sending port's own address by default */
	if (!have_src)
		src = sl_ifaces[peer].mac;
	sl_l2_set_mode(f->port, (enum sl_mode)mode, peer, &dst, &src);
	return 0;
}
SL_CLI_COMMAND(fwd_mode, .path = "set interface fwd-mode",
	       .usage = "IFACE io|mac|macswap|5tswap [peer IFACE] [dst MAC] [src MAC]",
	       .help = "forward what IFACE receives out of IFACE (or its peer) as testpmd's mode does",
	       .fn = cmd_fwd_mode)

static int cmd_l3(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: set interface l3 IFACE");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	sl_l2_set_mode(f->port, SL_MODE_L3, f->port, NULL, NULL);
	return 0;
}
SL_CLI_COMMAND(l3, .path = "set interface l3", .usage = "IFACE",
	       .help = "route what IFACE receives (the default)", .fn = cmd_l3)
