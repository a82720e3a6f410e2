/* SPDX-License-Identifier: BSD-3-Clause */
/* VXLAN tunnels, control (main lcore): create vxlan tunnel src A dst B vni N [instance N]
 * [encap-vrf-id T] [l3] [del], show vxlan tunnel. A tunnel is an interface vxlan_tunnelN
 * (MTU 1450: 1500 less the 50 bytes of outer headers), routed or put in a bridge domain as
 * any other. */
#include "vxlan.h"
#include "../cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_udp.h>

static int cmd_create_vxlan(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: create vxlan tunnel src A dst B vni N [instance N] "
				    "[encap-vrf-id T] [l3] [del]";
	uint32_t vni = UINT32_MAX;
	struct sl_tun_args ta = SL_TUN_ARGS_INIT;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = sl_tun_arg(o, a, val, "encap-vrf-id", &ta);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			i += rc - 1;
		} else if (!strcmp(a, "l3")) {
			/* routed is what a new interface is; a bridge domain makes it L2 */
		} else if (!strcmp(a, "vni") && val) {
			if (sl_arg_u32(o, "vni", val, 0, (1u << 24) - 1, &vni))
				return -1;
			i++;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!ta.src || !ta.dst || vni == UINT32_MAX)
		return sl_out_error(o, "src, dst and vni are required; %s", usage);
	struct sl_tun_key k = {.kind = SL_TUN_VXLAN, .id = vni};
	int rc;
	struct sl_tun *t = sl_tun_begin(o, &k, &ta, &rc);
	if (!t)
		return rc;
	t->eth = true;
	t->hlen = SL_VXLAN_ENCAP_LEN;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(t->hdr + sizeof(struct rte_ipv4_hdr));
	uint8_t *vx = (uint8_t *)(u + 1);
	u->dst_port = RTE_BE16(SL_VXLAN_PORT); /* checksum 0: RFC 7348 5 allows it over IPv4 */
	vx[0] = 0x08;
	vx[4] = (uint8_t)(vni >> 16);
	vx[5] = (uint8_t)(vni >> 8);
	vx[6] = (uint8_t)vni;
	return sl_tun_create(o, t, SL_IF_VXLAN, "vxlan_tunnel", ta.inst,
			     (const uint8_t[]){0x76, 0x78}, 1500 - SL_VXLAN_OVERHEAD);
}
SL_CLI_COMMAND(create_vxlan, .path = "create vxlan tunnel",
	       .usage = "src A dst B vni N [instance N] [encap-vrf-id T] [l3] [del]",
	       .help = "a VXLAN tunnel interface vxlan_tunnelN (RFC 7348, UDP 4789) from local "
		       "address A to remote VTEP B, its outer headers routed in table T: routed "
		       "(l3, the default) or put in a bridge domain; del deletes it",
	       .fn = cmd_create_vxlan)

static void vxlan_cols(const struct sl_tun *t, char (*v)[24])
{
	snprintf(v[0], sizeof(v[0]), "%u", t->key.id);
	snprintf(v[1], sizeof(v[1]), "%u", SL_VXLAN_PORT);
}

static int cmd_show_vxlan(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	return sl_tun_show(o, argc, "show vxlan tunnel", SL_TUN_VXLAN, 2,
			   (const char *[]){"vni:u", "dst-port:u"}, vxlan_cols);
}
SL_CLI_COMMAND(show_vxlan, .path = "show vxlan tunnel", .usage = "",
	       .help = "VXLAN tunnels: addresses, VNI, UDP port, encap table, MTU, state",
	       .fn = cmd_show_vxlan)
