/* SPDX-License-Identifier: BSD-3-Clause */
/* VXLAN tunnels, control (main lcore): create vxlan tunnel src A dst B vni N [instance N]
 * [encap-vrf-id T] [l3] [del], show vxlan tunnel. A tunnel is an interface vxlan_tunnelN
 * (MTU 1450: 1500 less the 50 bytes of outer headers), routed or put in a bridge domain as
 * any other; its key (encap table, remote, local, VNI) goes in one lock-free rte_hash that
 * vxlan4-input reads. */
#include "vxlan.h"
#include "../cli/cli.h"
#include "../ip4/ip4.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_udp.h>

#define SL_VXLAN_MAX 16384

struct sl_vxlan *sl_vxlan_by_if[SL_IF_MAX];
static struct rte_hash *tunnels;
static uint32_t nb_tunnels;

uint32_t sl_vxlan_count(void)
{
	return nb_tunnels;
}

uint16_t sl_vxlan_find(const struct sl_vxlan_key *k)
{
	void *d;
	if (rte_hash_lookup_data(tunnels, k, &d) < 0)
		return UINT16_MAX;
	return (uint16_t)(uintptr_t)d;
}

static void hdr_make(struct sl_vxlan *t, uint32_t src, uint32_t dst, uint32_t vni)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)t->hdr;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *vx = (uint8_t *)(u + 1);
	memset(t->hdr, 0, sizeof(t->hdr));
	ip->version_ihl = 0x45;
	/* RFC 7348 4.3: VTEPs do not fragment; the tunnel's MTU keeps inner packets within */
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	u->dst_port = RTE_BE16(SL_VXLAN_PORT); /* checksum 0: RFC 7348 5 allows it over IPv4 */
	vx[0] = 0x08;
	vx[4] = (uint8_t)(vni >> 16);
	vx[5] = (uint8_t)(vni >> 8);
	vx[6] = (uint8_t)vni;
	t->hdr_sum = rte_raw_cksum(ip, sizeof(*ip));
}

/* Deleting a tunnel's interface: its key leaves the table and encapsulation stops before
 * the grace period sl_iface_delete waits; the slot and the tunnel go after it (tunnel_del). */
static int vxlan_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	(void)why, (void)len;
	struct sl_vxlan *t = sl_vxlan_by_if[f->port];
	if (!commit || f->type != SL_IF_VXLAN || !t)
		return 0;
	t->pos = rte_hash_del_key(tunnels, &t->key);
	__atomic_store_n(&sl_vxlan_by_if[f->port], NULL, __ATOMIC_RELEASE);
	/* vxlan4-encap's cached next hops are per interface index: a reused one looks up again */
	__atomic_fetch_add(&sl_ip4_fib_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

static int tunnel_del(struct sl_out *o, const struct sl_vxlan_key *k)
{
	uint16_t ifx = sl_vxlan_find(k);
	if (ifx == UINT16_MAX)
		return sl_out_error(o, "no such tunnel");
	struct sl_iface *f = &sl_ifaces[ifx];
	struct sl_vxlan *t = sl_vxlan_by_if[ifx];
	char why[160] = "";
	int rc = sl_iface_delete(f, why, sizeof(why));
	if (rc)
		return sl_out_error(o, "cannot delete %s: %s", f->name, why[0] ? why : strerror(-rc));
	if (t->pos >= 0)
		rte_hash_free_key_with_position(tunnels, t->pos);
	free(t);
	nb_tunnels--;
	return 0;
}

static int tunnel_add(struct sl_out *o, const struct sl_vxlan_key *k, uint32_t table_id,
		      int64_t inst)
{
	if (sl_vxlan_find(k) != UINT16_MAX)
		return sl_out_error(o, "a tunnel with these addresses and VNI exists (%s)",
				    sl_ifaces[sl_vxlan_find(k)].name);
	if (nb_tunnels >= SL_VXLAN_MAX)
		return sl_out_error(o, "cannot create a tunnel: %u tunnels already", nb_tunnels);
	struct sl_vxlan *t = calloc(1, sizeof(*t));
	if (!t)
		return sl_out_error(o, "cannot create a tunnel: out of memory");
	t->key = *k;
	t->fib = k->fib;
	t->table_id = table_id;
	t->pos = -1;
	hdr_make(t, rte_be_to_cpu_32(k->local), rte_be_to_cpu_32(k->remote), k->vni);
	char name[24];
	if (inst < 0)
		for (inst = 0; snprintf(name, sizeof(name), "vxlan_tunnel%u", (unsigned)inst),
		     sl_iface_by_name(name);)
			inst++;
	snprintf(name, sizeof(name), "vxlan_tunnel%u", (unsigned)inst);
	/* a locally administered MAC of its own (the inner frames' source) */
	struct rte_ether_addr mac = {{0x02, 0xfe, 0x76, 0x78, (uint8_t)(inst >> 8), (uint8_t)inst}};
	struct sl_iface *f;
	int rc = sl_iface_create(SL_IF_VXLAN, name, &mac, &f);
	if (rc) {
		free(t);
		return rc == -EEXIST ? sl_out_error(o, "interface '%s' exists", name)
				     : sl_out_error(o, "cannot create %s: %s", name, strerror(-rc));
	}
	f->mtu = 1500 - SL_VXLAN_OVERHEAD;
	f->outer_fib = t->fib;
	t->ifx = f->port;
	__atomic_store_n(&sl_vxlan_by_if[f->port], t, __ATOMIC_RELEASE);
	if ((rc = rte_hash_add_key_data(tunnels, k, (void *)(uintptr_t)f->port))) {
		char why[8];
		sl_vxlan_by_if[f->port] = NULL;
		sl_iface_delete(f, why, sizeof(why));
		free(t);
		return sl_out_error(o, "cannot create a tunnel: %s", strerror(-rc));
	}
	nb_tunnels++;
	__atomic_fetch_add(&sl_ip4_fib_gen, 1, __ATOMIC_RELEASE);
	sl_out_msg(o, "%s", f->name);
	return 0;
}

static int cmd_create_vxlan(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: create vxlan tunnel src A dst B vni N [instance N] "
				    "[encap-vrf-id T] [l3] [del]";
	uint32_t src = 0, dst = 0, vni = UINT32_MAX, table_id = 0, v;
	int64_t inst = -1;
	bool del = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "del")) {
			del = true;
		} else if (!strcmp(a, "l3")) {
			/* routed is what a new interface is; a bridge domain makes it L2 */
		} else if (!val) {
			return sl_out_error(o, "%s", usage);
		} else if (!strcmp(a, "src") || !strcmp(a, "dst")) {
			if (sl_arg_ip4(o, val, a[0] == 's' ? &src : &dst))
				return -1;
			i++;
		} else if (!strcmp(a, "vni")) {
			if (sl_arg_u32(o, "vni", val, 0, (1u << 24) - 1, &vni))
				return -1;
			i++;
		} else if (!strcmp(a, "instance")) {
			if (sl_arg_u32(o, "instance", val, 0, 9999, &v))
				return -1;
			inst = v;
			i++;
		} else if (!strcmp(a, "encap-vrf-id")) {
			if (sl_arg_u32(o, "encap-vrf-id", val, 0, UINT32_MAX, &table_id))
				return -1;
			i++;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!src || !dst || vni == UINT32_MAX)
		return sl_out_error(o, "src, dst and vni are required; %s", usage);
	if (src == dst)
		return sl_out_error(o, "src and dst must differ");
	if ((dst >> 28) == 0xe || (src >> 28) == 0xe || src == UINT32_MAX || dst == UINT32_MAX)
		return sl_out_error(o, "src and dst must be unicast addresses (multicast VTEPs are "
				    "not supported)");
	int fib = sl_ip4_table_find(table_id);
	if (fib < 0)
		return sl_out_error(o, "no table %u (ip table add %u)", table_id, table_id);
	struct sl_vxlan_key k = {.remote = rte_cpu_to_be_32(dst), .local = rte_cpu_to_be_32(src),
				 .vni = vni, .fib = (uint16_t)fib};
	return del ? tunnel_del(o, &k) : tunnel_add(o, &k, table_id, inst);
}
SL_CLI_COMMAND(create_vxlan, .path = "create vxlan tunnel",
	       .usage = "src A dst B vni N [instance N] [encap-vrf-id T] [l3] [del]",
	       .help = "a VXLAN tunnel interface vxlan_tunnelN (RFC 7348, UDP 4789) from local "
		       "address A to remote VTEP B, its outer headers routed in table T: routed "
		       "(l3, the default) or put in a bridge domain; del deletes it",
	       .fn = cmd_create_vxlan)

static int cmd_show_vxlan(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show vxlan tunnel");
	sl_tbl_begin(o, "tunnels", 8,
		     (const char *[]){"name", "src", "dst", "vni:u", "encap-vrf-id:u", "dst-port:u",
				      "mtu:u", "state"});
	for (uint32_t i = 0; i < sl_if_hwm; i++) {
		const struct sl_vxlan *t = sl_vxlan_by_if[i];
		const struct sl_iface *f = &sl_ifaces[i];
		if (!t || !f->used)
			continue;
		char s[16], d[16], vni[12], tid[12], port[8], mtu[8];
		sl_fmt_ip4(s, rte_be_to_cpu_32(t->key.local));
		sl_fmt_ip4(d, rte_be_to_cpu_32(t->key.remote));
		snprintf(vni, sizeof(vni), "%u", t->key.vni);
		snprintf(tid, sizeof(tid), "%u", t->table_id);
		snprintf(port, sizeof(port), "%u", SL_VXLAN_PORT);
		snprintf(mtu, sizeof(mtu), "%u", f->mtu);
		sl_tbl_row(o, f->name, s, d, vni, tid, port, mtu, f->up ? "up" : "down");
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_vxlan, .path = "show vxlan tunnel", .usage = "",
	       .help = "VXLAN tunnels: addresses, VNI, encap table, UDP port, MTU, state",
	       .fn = cmd_show_vxlan)

static int vxlan_init(const struct sl_config *c)
{
	(void)c;
	struct rte_hash_parameters hp = {
		.name = "sl_vxlan", .entries = SL_VXLAN_MAX, .key_len = sizeof(struct sl_vxlan_key),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		/* readers never lock; a deleted slot is freed after a grace period */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_NO_FREE_ON_DEL,
	};
	return (tunnels = rte_hash_create(&hp)) ? 0 : -ENOMEM;
}

static void vxlan_fini(void)
{
	for (uint32_t i = 0; i < SL_IF_MAX; i++) {
		free(sl_vxlan_by_if[i]);
		sl_vxlan_by_if[i] = NULL;
	}
	nb_tunnels = 0;
	rte_hash_free(tunnels);
	tunnels = NULL;
}

SL_MODULE_REGISTER(vxlan_module, .name = "vxlan", .init = vxlan_init, .fini = vxlan_fini)

RTE_INIT(vxlan_ctl_init)
{
	sl_iface_busy_register(vxlan_busy);
}
