/* SPDX-License-Identifier: BSD-3-Clause */
/* VXLAN tunnels, control (main lcore): create vxlan tunnel src A dst B vni N [instance N]
 * [encap-vrf-id T] [l3] [del], show vxlan tunnel. A tunnel is an interface vxlan_tunnelN
 * (MTU 1450 over IPv4, 1430 over IPv6: 1500 less the 50 or 70 bytes of outer headers),
 * routed or put in a bridge domain as any other. */
#include "vxlan.h"
#include "../cli/cli.h"
#include "../runtime/runtime.h"
#include "../runtime/feature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_udp.h>

uint8_t sl_vx_port_idx[1 << 16];
static uint16_t vx_ports[SL_VX_PORTS] = {SL_VXLAN_PORT}; /* host order; 0: a free slot */
static uint32_t vx_port_users[SL_VX_PORTS];

/* The index of port (host order), a free slot for a new one, or -1 after answering why not. */
static int port_slot(struct sl_out *o, uint16_t port)
{
	int free_slot = -1;
	for (int i = 0; i < SL_VX_PORTS; i++) {
		if (vx_ports[i] == port)
			return i;
		if (free_slot < 0 && (!vx_ports[i] || !vx_port_users[i]) && i)
			free_slot = i;
	}
	if (free_slot < 0)
		return sl_out_error(o, "%d VXLAN UDP ports in use already, the most tunnels listen on",
				    SL_VX_PORTS);
	for (int f = 0; f < 2; f++) {
		struct sl_dispatch *d = f ? &sl_udp6_ports : &sl_udp_ports;
		const char *to = sl_dispatch_name(d, rte_cpu_to_be_16(port));
		if (to || d->next[rte_cpu_to_be_16(port)])
			return sl_out_error(o, "UDP port %u is taken%s%s", port, to ? " by " : "",
					    to ? to : "");
	}
	return free_slot;
}

/* A tunnel on port slot i was created (+1) or deleted (-1): the first listens on the port,
 * over both families (the index published before the dispatches that lead to it), the last
 * stops. */
static void port_use(int i, uint16_t port, int delta)
{
	if (delta > 0 && vx_port_users[i]++ == 0 && i) {
		if (vx_ports[i] && vx_ports[i] != port)
			sl_vx_port_idx[vx_ports[i]] = SL_VX_NO_PORT;
		vx_ports[i] = port;
		__atomic_store_n(&sl_vx_port_idx[port], (uint8_t)i, __ATOMIC_RELEASE);
		RTE_VERIFY(sl_dispatch_alias(&sl_udp_ports, rte_cpu_to_be_16(port),
					     RTE_BE16(SL_VXLAN_PORT)) == 0);
		RTE_VERIFY(sl_dispatch_alias(&sl_udp6_ports, rte_cpu_to_be_16(port),
					     RTE_BE16(SL_VXLAN_PORT)) == 0);
	} else if (delta < 0 && --vx_port_users[i] == 0 && i) {
		sl_dispatch_unalias(&sl_udp_ports, rte_cpu_to_be_16(port));
		sl_dispatch_unalias(&sl_udp6_ports, rte_cpu_to_be_16(port));
		/* ip4-vxlan-bypass leaves the port to ip4-udp-local's port unreachable again */
		__atomic_store_n(&sl_vx_port_idx[port], SL_VX_NO_PORT, __ATOMIC_RELEASE);
	}
}

static int cmd_create_vxlan(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: create vxlan tunnel src A dst B vni N [instance N] "
				    "[encap-vrf-id T] [dst_port P] [l3] [del]";
	uint32_t vni = UINT32_MAX, port = SL_VXLAN_PORT;
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
		} else if ((!strcmp(a, "dst_port") || !strcmp(a, "dst-port")) && val) {
			if (sl_arg_u32(o, "dst_port", val, 1, 65535, &port))
				return -1;
			i++;
		} else if (!strcmp(a, "vni") && val) {
			if (sl_arg_u32(o, "vni", val, 0, (1u << 24) - 1, &vni))
				return -1;
			i++;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!ta.fam_src || !ta.fam_dst || vni == UINT32_MAX)
		return sl_out_error(o, "src, dst and vni are required; %s", usage);
	if (sl_tun_ends(o, &ta, usage))
		return -1;
	int slot = port_slot(o, (uint16_t)port);
	if (slot < 0)
		return -1;
	struct sl_tun_key k = {.kind = SL_TUN_VXLAN, .id = vni | (uint32_t)slot << 24};
	int rc;
	struct sl_tun *t = sl_tun_begin(o, &k, &ta, &rc);
	if (!t) {
		if (ta.del && rc == 0)
			port_use(slot, (uint16_t)port, -1);
		return rc;
	}
	t->eth = true;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(t->hdr + sl_tun_iplen(t));
	t->hlen += sizeof(*u) + 8;
	uint8_t *vx = (uint8_t *)(u + 1);
	/* checksum: 0 over IPv4 (RFC 7348 5 allows it), vxlan6-encap's over IPv6 */
	u->dst_port = rte_cpu_to_be_16((uint16_t)port);
	vx[0] = 0x08;
	vx[4] = (uint8_t)(vni >> 16);
	vx[5] = (uint8_t)(vni >> 8);
	vx[6] = (uint8_t)vni;
	rc = sl_tun_create(o, t, t->v6 ? SL_IF_VXLAN6 : SL_IF_VXLAN, "vxlan_tunnel", ta.inst,
			   (const uint8_t[]){0x76, 0x78},
			   1500 - (t->v6 ? SL_VXLAN6_OVERHEAD : SL_VXLAN_OVERHEAD));
	if (rc >= 0)
		port_use(slot, (uint16_t)port, +1);
	return rc;
}
SL_CLI_COMMAND(create_vxlan, .path = "create vxlan tunnel",
	       .usage = "src A dst B vni N [instance N] [encap-vrf-id T] [dst_port P] [l3] [del]",
	       .help = "a VXLAN tunnel interface vxlan_tunnelN (RFC 7348, UDP 4789 or P) from local "
		       "address A to remote VTEP B (both IPv4 or both IPv6), its outer headers "
		       "routed in table T: routed (l3, the default) or put in a bridge domain; del "
		       "deletes it",
	       .fn = cmd_create_vxlan)

static void vxlan_cols(const struct sl_tun *t, char (*v)[48])
{
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(t->hdr + sl_tun_iplen(t));
	snprintf(v[0], sizeof(v[0]), "%u", t->key.id & 0xffffff);
	snprintf(v[1], sizeof(v[1]), "%u", rte_be_to_cpu_16(u->dst_port));
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

/* set interface ip vxlan-bypass IFACE [del] and set interface ip6 vxlan-bypass IFACE [del]
 * (VPP's grammar): ip4-vxlan-bypass or ip6-vxlan-bypass on IFACE */
static int vxlan_bypass(struct sl_out *o, int argc, char **argv, bool v6)
{
	if (argc < 1 || argc > 2 || (argc == 2 && strcmp(argv[1], "del")))
		return sl_out_error(o, "usage: set interface %s vxlan-bypass IFACE [del]",
				    v6 ? "ip6" : "ip");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	char why[128];
	if (sl_feature_set(f->port, v6 ? SL_ARC_IP6_UNICAST : SL_ARC_IP4_UNICAST,
			   v6 ? "ip6-vxlan-bypass" : "ip4-vxlan-bypass", argc == 1, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}

static int cmd_vxlan_bypass(struct sl_out *o, int argc, char **argv)
{
	return vxlan_bypass(o, argc, argv, false);
}
SL_CLI_COMMAND(vxlan_bypass, .path = "set interface ip vxlan-bypass", .usage = "IFACE [del]",
	       .help = "VXLAN over IPv4 received on IFACE for a tunnel's local address goes "
		       "straight to vxlan4-input (past ip4-lookup, ip4-local, ip4-udp-local)",
	       .fn = cmd_vxlan_bypass)

static int cmd_vxlan6_bypass(struct sl_out *o, int argc, char **argv)
{
	return vxlan_bypass(o, argc, argv, true);
}
SL_CLI_COMMAND(vxlan6_bypass, .path = "set interface ip6 vxlan-bypass", .usage = "IFACE [del]",
	       .help = "VXLAN over IPv6 received on IFACE for a tunnel's local address goes "
		       "straight to vxlan6-input (past ip6-lookup, ip6-local, ip6-udp-local)",
	       .fn = cmd_vxlan6_bypass)

/* Every tunnel is gone at fini (src/tunnel): the ports with it. */
static void vx_ports_reset(void)
{
	for (int i = 1; i < SL_VX_PORTS; i++)
		if (vx_ports[i] && vx_port_users[i])
			sl_dispatch_unalias(&sl_udp_ports, rte_cpu_to_be_16(vx_ports[i]));
	memset(vx_ports, 0, sizeof(vx_ports));
	memset(vx_port_users, 0, sizeof(vx_port_users));
	vx_ports[0] = SL_VXLAN_PORT;
	memset(sl_vx_port_idx, SL_VX_NO_PORT, sizeof(sl_vx_port_idx));
	sl_vx_port_idx[SL_VXLAN_PORT] = 0;
}

static int vxlan_init(const struct sl_config *c)
{
	(void)c;
	vx_ports_reset();
	return 0;
}

SL_MODULE_REGISTER(vxlan_module, .name = "vxlan", .init = vxlan_init, .fini = vx_ports_reset)
