/* SPDX-License-Identifier: BSD-3-Clause */
/* GRE (RFC 2784, keys of RFC 2890) and IP-in-IP (RFC 2003, IPv6 in IPv4 as RFC 4213) tunnels,
 * control: create gre tunnel src A dst B [instance N] [outer-table-id T] [teb] [key K] [del],
 * create ipip tunnel src A dst B [instance N] [outer-table-id T] [del], show gre tunnel,
 * show ipip tunnel. An L3 tunnel (GRE, IP-in-IP) is a point-to-point interface: its
 * neighbours need no resolution (p2p); a GRE teb tunnel carries Ethernet frames and is
 * bridged or routed as any Ethernet interface. */
#include "gre.h"
#include "../cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tun_cmd(struct sl_out *o, int argc, char **argv, bool gre)
{
	const char *usage = gre ? "usage: create gre tunnel src A dst B [instance N] "
				  "[outer-table-id T] [teb] [key K] [del]"
				: "usage: create ipip tunnel src A dst B [instance N] "
				  "[outer-table-id T] [del]";
	uint32_t key = 0;
	struct sl_tun_args ta = SL_TUN_ARGS_INIT;
	bool teb = false, has_key = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = sl_tun_arg(o, a, val, "outer-table-id", &ta);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			i += rc - 1;
		} else if (gre && !strcmp(a, "teb")) {
			teb = true;
		} else if (gre && !strcmp(a, "key") && val) {
			if (sl_arg_u32(o, "key", val, 0, UINT32_MAX, &key))
				return -1;
			has_key = true;
			i++;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (sl_tun_ends(o, &ta, usage))
		return -1;
	struct sl_tun_key k = {.kind = gre ? SL_TUN_GRE : SL_TUN_IPIP, .id = key,
			       .keyed = has_key};
	int rc;
	struct sl_tun *t = sl_tun_begin(o, &k, &ta, &rc);
	if (!t)
		return rc;
	t->eth = teb;
	t->has_key = has_key;
	if (gre) {
		uint8_t *g = t->hdr + t->hlen;
		g[0] = has_key ? 0x20 : 0; /* K; no checksum, no sequence numbers, version 0 */
		if (teb) {
			g[2] = SL_ETHER_TYPE_TEB >> 8;
			g[3] = SL_ETHER_TYPE_TEB & 0xff;
		}
		if (has_key) {
			uint32_t kb = rte_cpu_to_be_32(key);
			memcpy(g + 4, &kb, 4);
		}
		t->hlen += has_key ? 8 : 4;
	}
	uint16_t mtu = (uint16_t)(1500 - t->hlen - (teb ? RTE_ETHER_HDR_LEN : 0));
	enum sl_if_type type = gre ? (t->v6 ? SL_IF_GRE6 : SL_IF_GRE)
				   : (t->v6 ? SL_IF_IPIP6 : SL_IF_IPIP);
	return sl_tun_create(o, t, type, gre ? "gre" : "ipip", ta.inst,
			     gre ? (const uint8_t[]){0x67, 0x72} : (const uint8_t[]){0x69, 0x70},
			     mtu);
}

static int cmd_create_gre(struct sl_out *o, int argc, char **argv)
{
	return tun_cmd(o, argc, argv, true);
}
SL_CLI_COMMAND(create_gre, .path = "create gre tunnel",
	       .usage = "src A dst B [instance N] [outer-table-id T] [teb] [key K] [del]",
	       .help = "a GRE tunnel interface greN (RFC 2784) from local address A to B, its "
		       "outer headers routed in table T: point to point for IPv4 and IPv6, or "
		       "with teb an Ethernet one (bridged or routed); key K (RFC 2890) tells "
		       "tunnels between the same addresses apart; del deletes it",
	       .fn = cmd_create_gre)

static int cmd_create_ipip(struct sl_out *o, int argc, char **argv)
{
	return tun_cmd(o, argc, argv, false);
}
SL_CLI_COMMAND(create_ipip, .path = "create ipip tunnel",
	       .usage = "src A dst B [instance N] [outer-table-id T] [del]",
	       .help = "an IP-in-IP tunnel interface ipipN (RFC 2003; IPv6 inside as RFC 4213) "
		       "from local address A to B, point to point, its outer headers routed in "
		       "table T; del deletes it",
	       .fn = cmd_create_ipip)

static void gre_cols(const struct sl_tun *t, char (*v)[48])
{
	snprintf(v[0], sizeof(v[0]), "%s", t->eth ? "teb" : "l3");
	if (t->has_key)
		snprintf(v[1], sizeof(v[1]), "%u", t->key.id);
	else
		snprintf(v[1], sizeof(v[1]), "-");
}

static void ipip_cols(const struct sl_tun *t, char (*v)[48])
{
	(void)t, (void)v;
}

static int cmd_show_gre(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	return sl_tun_show(o, argc, "show gre tunnel", SL_TUN_GRE, 2,
			   (const char *[]){"type", "key"}, gre_cols);
}
SL_CLI_COMMAND(show_gre, .path = "show gre tunnel", .usage = "",
	       .help = "GRE tunnels: addresses, type (l3 or teb), key, outer table, MTU, state",
	       .fn = cmd_show_gre)

static int cmd_show_ipip(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	return sl_tun_show(o, argc, "show ipip tunnel", SL_TUN_IPIP, 0, NULL, ipip_cols);
}
SL_CLI_COMMAND(show_ipip, .path = "show ipip tunnel", .usage = "",
	       .help = "IP-in-IP tunnels: addresses, outer table, MTU, state", .fn = cmd_show_ipip)
