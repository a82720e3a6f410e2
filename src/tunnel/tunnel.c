/* SPDX-License-Identifier: BSD-3-Clause */
/* Tunnels' control (main lcore): the tables of tunnels by key (one per outer family), their
 * interfaces' creation and deletion, show. */
#include "tunnel.h"
#include "../cli/cli.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

#define SL_TUN_MAX 16384

struct sl_tun *sl_tun_by_if[SL_IF_MAX];
struct sl_tun_cache sl_tun_cache[SL_MAX_WORKERS];
static struct rte_hash *tunnels, *tunnels6;
static uint32_t nb_kind[SL_TUN_NB_KINDS];
struct sl_vteps sl_vx_vteps;
static uint32_t vtep_refs[SL_VTEP_MAX]; /* the tunnels of each of sl_vx_vteps' keys */

struct sl_vteps6 *sl_vx_vteps6;

/* A VXLAN tunnel over IPv6 came (+1) or went (-1): sl_vx_vteps6 replaced by a copy with its
 * local address's count changed (the address added or gone); out of memory, the set stays
 * as it was (the bypass then leaves the address to the long way, or keeps taking it to
 * vxlan6-input, which finds no tunnel as ip6-udp-local's way would) */
static void vtep6_use(const struct sl_tun *t, int delta)
{
	const struct sl_vteps6 *old = sl_vx_vteps6;
	uint32_t n = old ? old->n : 0, i = 0;
	while (i < n && (old->e[i].fib != t->key6.fib || memcmp(old->e[i].addr, t->key6.local, 16)))
		i++;
	if (delta < 0 && i == n)
		return;
	uint32_t m = n + (i == n) - (delta < 0 && old->e[i].refs == 1);
	struct sl_vteps6 *v = malloc(sizeof(*v) + (m ? m : 1) * sizeof(v->e[0]));
	if (!v)
		return;
	v->n = 0;
	for (uint32_t j = 0; j < n; j++) {
		struct sl_vtep6 e = old->e[j];
		if (j == i && (e.refs += (uint32_t)delta) == 0)
			continue;
		v->e[v->n++] = e;
	}
	if (i == n) {
		struct sl_vtep6 e = {.fib = t->key6.fib, .refs = 1};
		memcpy(e.addr, t->key6.local, 16);
		v->e[v->n++] = e;
	}
	__atomic_store_n(&sl_vx_vteps6, v, __ATOMIC_RELEASE);
	if (old)
		sl_rcu_retire(sl_rcu_free, (void *)(uintptr_t)old, 0);
}

/* A VXLAN tunnel came (+1) or went (-1): its local address in sl_vx_vteps (IPv4) or
 * sl_vx_vteps6 */
static void vtep_use(const struct sl_tun *t, int delta)
{
	if (t->key.kind != SL_TUN_VXLAN)
		return;
	if (t->v6) {
		vtep6_use(t, delta);
		return;
	}
	struct sl_vteps *v = &sl_vx_vteps;
	uint64_t key = sl_vtep_key(t->key.fib, t->key.local);
	uint32_t i = 0;
	while (i < v->n && v->key[i] != key)
		i++;
	if (delta > 0) {
		if (i < v->n) {
			vtep_refs[i]++;
		} else if (v->n < SL_VTEP_MAX) {
			__atomic_store_n(&v->key[i], key, __ATOMIC_RELAXED);
			vtep_refs[i] = 1;
			__atomic_store_n(&v->n, i + 1, __ATOMIC_RELEASE);
		}
	} else if (i < v->n && --vtep_refs[i] == 0) {
		uint32_t last = v->n - 1;
		__atomic_store_n(&v->key[i], v->key[last], __ATOMIC_RELAXED);
		vtep_refs[i] = vtep_refs[last];
		__atomic_store_n(&v->n, last, __ATOMIC_RELEASE);
	}
}

uint32_t sl_tun_count(enum sl_tun_kind kind)
{
	return nb_kind[kind];
}

uint32_t sl_tun_total(void)
{
	uint32_t all = 0;
	for (int k = 0; k < SL_TUN_NB_KINDS; k++)
		all += nb_kind[k];
	return all;
}

uint16_t sl_tun_find(const struct sl_tun_key *k)
{
	void *d;
	if (rte_hash_lookup_data(tunnels, k, &d) < 0)
		return UINT16_MAX;
	return (uint16_t)(uintptr_t)d;
}

uint16_t sl_tun_find6(const struct sl_tun_key6 *k)
{
	void *d;
	if (rte_hash_lookup_data(tunnels6, k, &d) < 0)
		return UINT16_MAX;
	return (uint16_t)(uintptr_t)d;
}

int sl_tun_arg(struct sl_out *o, const char *a, const char *val, const char *table_kw,
	       struct sl_tun_args *ta)
{
	uint32_t v;
	if (!strcmp(a, "del")) {
		ta->del = true;
		return 1;
	}
	if (!val)
		return 0;
	if (!strcmp(a, "src") || !strcmp(a, "dst")) {
		bool s = a[0] == 's';
		bool v6 = strchr(val, ':') != NULL;
		if (v6 ? sl_arg_ip6(o, val, s ? ta->src6 : ta->dst6)
		       : sl_arg_ip4(o, val, s ? &ta->src : &ta->dst))
			return -1;
		*(s ? &ta->fam_src : &ta->fam_dst) = v6 ? 6 : 4;
		return 2;
	}
	if (!strcmp(a, table_kw))
		return sl_arg_u32(o, table_kw, val, 0, UINT32_MAX, &ta->table_id) ? -1 : 2;
	if (!strcmp(a, "instance")) {
		if (sl_arg_u32(o, "instance", val, 0, 9999, &v))
			return -1;
		ta->inst = v;
		return 2;
	}
	return 0;
}

int sl_tun_ends(struct sl_out *o, const struct sl_tun_args *ta, const char *usage)
{
	if (!ta->fam_src || !ta->fam_dst)
		return sl_out_error(o, "src and dst are required; %s", usage);
	if (ta->fam_src != ta->fam_dst)
		return sl_out_error(o, "src and dst must be of one family (both IPv4 or both IPv6)");
	return 0;
}

static int table_of(struct sl_out *o, uint32_t table_id)
{
	int fib = sl_ip4_table_find(table_id);
	if (fib < 0)
		return sl_out_error(o, "no table %u (ip table add %u)", table_id, table_id);
	return fib;
}

/* IPv6: the table's IPv6 FIB made now if it has none (the encapsulation looks the remote up
 * in it) */
static int key_make6(struct sl_out *o, struct sl_tun_key6 *k, const uint8_t *src,
		     const uint8_t *dst, uint32_t table_id)
{
	if (!memcmp(src, dst, 16))
		return sl_out_error(o, "src and dst must differ");
	if (sl_ip6_is_mcast(src) || sl_ip6_is_mcast(dst) || sl_ip6_is_zero(src) ||
	    sl_ip6_is_zero(dst) || sl_ip6_is_ll(src) || sl_ip6_is_ll(dst) ||
	    sl_ip6_is_loopback(src) || sl_ip6_is_loopback(dst))
		return sl_out_error(o, "src and dst must be global unicast addresses (multicast "
				    "tunnels are not supported, nor link-local ends)");
	int fib = table_of(o, table_id);
	if (fib < 0)
		return -1;
	if (sl_ip6_fib_get((uint16_t)fib))
		return sl_out_error(o, "cannot make table %u's IPv6 FIB: out of memory", table_id);
	memcpy(k->remote, dst, 16);
	memcpy(k->local, src, 16);
	k->fib = (uint16_t)fib;
	return 0;
}

static int key_make(struct sl_out *o, struct sl_tun_key *k, uint32_t src, uint32_t dst,
		    uint32_t table_id)
{
	if (src == dst)
		return sl_out_error(o, "src and dst must differ");
	if ((dst >> 28) == 0xe || (src >> 28) == 0xe || src == UINT32_MAX || dst == UINT32_MAX)
		return sl_out_error(o, "src and dst must be unicast addresses (multicast "
				    "tunnels are not supported)");
	int fib = table_of(o, table_id);
	if (fib < 0)
		return -1;
	k->remote = rte_cpu_to_be_32(dst);
	k->local = rte_cpu_to_be_32(src);
	k->fib = (uint16_t)fib;
	return 0;
}

static int tun_delete(struct sl_out *o, uint16_t ifx);

struct sl_tun *sl_tun_begin(struct sl_out *o, struct sl_tun_key *k, const struct sl_tun_args *ta,
			    int *rc)
{
	*rc = -1;
	bool v6 = ta->fam_src == 6;
	struct sl_tun_key6 k6 = {.id = k->id, .kind = k->kind, .keyed = k->keyed};
	if (v6 ? key_make6(o, &k6, ta->src6, ta->dst6, ta->table_id)
	       : key_make(o, k, ta->src, ta->dst, ta->table_id))
		return NULL;
	if (v6)
		k->fib = k6.fib;
	if (ta->del) {
		*rc = tun_delete(o, v6 ? sl_tun_find6(&k6) : sl_tun_find(k));
		return NULL;
	}
	struct sl_tun *t = calloc(1, sizeof(*t));
	if (!t) {
		sl_out_error(o, "cannot create a tunnel: out of memory");
		return NULL;
	}
	t->key = *k;
	t->key6 = k6;
	t->v6 = v6;
	t->hlen = (uint8_t)sl_tun_iplen(t);
	t->table_id = ta->table_id;
	return t;
}

/* Deleting a tunnel's interface: its key leaves the table and encapsulation stops before
 * the grace period sl_iface_delete waits; the slot and the tunnel go after it. */
static int tun_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	(void)why, (void)len;
	struct sl_tun *t = sl_tun_by_if[f->port];
	if (!commit || !t)
		return 0;
	t->pos = t->v6 ? rte_hash_del_key(tunnels6, &t->key6) : rte_hash_del_key(tunnels, &t->key);
	vtep_use(t, -1);
	__atomic_store_n(&sl_tun_by_if[f->port], NULL, __ATOMIC_RELEASE);
	/* the encap nodes' cached next hops are per interface index: a reused one looks again */
	__atomic_fetch_add(&sl_fib_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

static int tun_delete(struct sl_out *o, uint16_t ifx)
{
	if (ifx == UINT16_MAX)
		return sl_out_error(o, "no such tunnel");
	struct sl_iface *f = &sl_ifaces[ifx];
	struct sl_tun *t = sl_tun_by_if[ifx];
	char why[160] = "";
	int rc = sl_iface_delete(f, why, sizeof(why));
	if (rc)
		return sl_out_error(o, "cannot delete %s: %s", f->name, why[0] ? why : strerror(-rc));
	if (t->pos >= 0)
		rte_hash_free_key_with_position(t->v6 ? tunnels6 : tunnels, t->pos);
	nb_kind[t->key.kind]--;
	free(t);
	return 0;
}

int sl_tun_create(struct sl_out *o, struct sl_tun *t, enum sl_if_type type,
		  const char *prefix, int64_t inst, const uint8_t mac45[2], uint16_t mtu)
{
	uint16_t other = t->v6 ? sl_tun_find6(&t->key6) : sl_tun_find(&t->key);
	uint32_t all = sl_tun_total();
	int rc = 0;
	if (other != UINT16_MAX)
		rc = sl_out_error(o, "a tunnel with these addresses and %s exists (%s)",
				  t->key.kind == SL_TUN_VXLAN ? "VNI" : "key", sl_ifaces[other].name);
	else if (all >= SL_TUN_MAX)
		rc = sl_out_error(o, "cannot create a tunnel: %u tunnels already", all);
	if (rc) {
		free(t);
		return rc;
	}
	if (t->v6) {
		/* flow label 0: RFC 6438's from the inner flow would be per packet */
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)t->hdr;
		ip6->vtc_flow = RTE_BE32(6u << 28);
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, t->key6.local, 16);
		memcpy(ip6->dst_addr, t->key6.remote, 16);
		t->hdr_sum = rte_raw_cksum(ip6->src_addr, 32);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)t->hdr;
		ip->version_ihl = 0x45;
		/* RFC 7348 4.3, RFC 2003 3.1: the tunnel's MTU keeps inner packets within the
		 * path's, and the outer packet is not fragmented on the way */
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = 64;
		ip->next_proto_id = 0; /* sl_tun_encap writes it */
		ip->src_addr = t->key.local;
		ip->dst_addr = t->key.remote;
		t->hdr_sum = rte_raw_cksum(ip, sizeof(*ip));
	}
	t->fib = t->key.fib;
	t->pos = -1;
	char name[32];
	if (inst < 0)
		for (inst = 0; snprintf(name, sizeof(name), "%s%u", prefix, (unsigned)inst),
		     sl_iface_by_name(name);)
			inst++;
	snprintf(name, sizeof(name), "%s%u", prefix, (unsigned)inst);
	/* a locally administered MAC of its own (the inner frames' source) */
	struct rte_ether_addr mac = {{0x02, 0xfe, mac45[0], mac45[1], (uint8_t)(inst >> 8),
				      (uint8_t)inst}};
	struct sl_iface *f;
	if ((rc = sl_iface_create(type, name, &mac, &f))) {
		free(t);
		return rc == -EEXIST ? sl_out_error(o, "interface '%s' exists", name)
				     : sl_out_error(o, "cannot create %s: %s", name, strerror(-rc));
	}
	sl_iface_set_mtu(f->port, mtu);
	f->outer_fib = t->fib;
	f->p2p = !t->eth;
	t->ifx = f->port;
	__atomic_store_n(&sl_tun_by_if[f->port], t, __ATOMIC_RELEASE);
	if ((rc = t->v6 ? rte_hash_add_key_data(tunnels6, &t->key6, (void *)(uintptr_t)f->port)
			: rte_hash_add_key_data(tunnels, &t->key, (void *)(uintptr_t)f->port))) {
		char why[8];
		sl_tun_by_if[f->port] = NULL;
		sl_iface_delete(f, why, sizeof(why));
		free(t);
		return sl_out_error(o, "cannot create a tunnel: %s", strerror(-rc));
	}
	nb_kind[t->key.kind]++;
	vtep_use(t, 1);
	__atomic_fetch_add(&sl_fib_gen, 1, __ATOMIC_RELEASE);
	sl_out_msg(o, "%s", f->name);
	return 0;
}

int sl_tun_show(struct sl_out *o, int argc, const char *cmd, enum sl_tun_kind kind, int nextra,
		const char *const *cols, void (*extra)(const struct sl_tun *t, char (*vals)[48]))
{
	if (argc)
		return sl_out_error(o, "usage: %s", cmd);
	const char *specs[16] = {"name", "src", "dst"};
	int n = 3;
	for (int i = 0; i < nextra; i++)
		specs[n++] = cols[i];
	specs[n++] = "encap-vrf-id:u";
	specs[n++] = "mtu:u";
	specs[n++] = "state";
	sl_tbl_begin(o, "tunnels", n, specs);
	for (uint32_t i = 0; i < sl_if_hwm; i++) {
		const struct sl_tun *t = sl_tun_by_if[i];
		const struct sl_iface *f = &sl_ifaces[i];
		if (!t || !f->used || t->key.kind != kind)
			continue;
		char v[16][48];
		char *row[16];
		snprintf(v[0], sizeof(v[0]), "%s", f->name);
		if (t->v6) {
			sl_fmt_ip6(v[1], t->key6.local);
			sl_fmt_ip6(v[2], t->key6.remote);
		} else {
			sl_fmt_ip4(v[1], rte_be_to_cpu_32(t->key.local));
			sl_fmt_ip4(v[2], rte_be_to_cpu_32(t->key.remote));
		}
		extra(t, &v[3]);
		int k = 3 + nextra;
		snprintf(v[k++], sizeof(v[0]), "%u", t->table_id);
		snprintf(v[k++], sizeof(v[0]), "%u", f->mtu);
		snprintf(v[k++], sizeof(v[0]), "%s", f->up ? "up" : "down");
		for (int c = 0; c < k; c++)
			row[c] = v[c];
		sl_tbl_rowv(o, row);
	}
	sl_tbl_end(o);
	return 0;
}

static int tun_init(const struct sl_config *c)
{
	(void)c;
	struct rte_hash_parameters hp = {
		.name = "sl_tunnels", .entries = SL_TUN_MAX, .key_len = sizeof(struct sl_tun_key),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		/* readers never lock; a deleted slot is freed after a grace period */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_NO_FREE_ON_DEL,
	};
	if (!(tunnels = rte_hash_create(&hp)))
		return -ENOMEM;
	hp.name = "sl_tunnels6";
	hp.key_len = sizeof(struct sl_tun_key6);
	return (tunnels6 = rte_hash_create(&hp)) ? 0 : -ENOMEM;
}

static void tun_fini(void)
{
	for (uint32_t i = 0; i < SL_IF_MAX; i++) {
		free(sl_tun_by_if[i]);
		sl_tun_by_if[i] = NULL;
	}
	memset(nb_kind, 0, sizeof(nb_kind));
	memset(&sl_vx_vteps, 0, sizeof(sl_vx_vteps));
	free(sl_vx_vteps6); /* the workers have stopped */
	sl_vx_vteps6 = NULL;
	rte_hash_free(tunnels);
	rte_hash_free(tunnels6);
	tunnels = tunnels6 = NULL;
}

SL_MODULE_REGISTER(tun_module, .name = "tunnels", .init = tun_init, .fini = tun_fini)

RTE_INIT(tun_ctl_init)
{
	sl_iface_busy_register(tun_busy);
}
