/* SPDX-License-Identifier: BSD-3-Clause */
/* Label switched paths over Ethernet (VPP's grammar): out-paths (labels to an IPv4 next hop on
 * an interface), used by
 *   mpls tunnel add via NH IFACE out-labels L [L...]    -> mpls-tunnelN: IPv4 and IPv6 routed
 *   mpls tunnel del mpls-tunnelN                           into it leave with the labels pushed
 *   show mpls tunnel                                       (label imposition)
 * and by swapping local labels (mpls local-label add N eos|non-eos via NH IFACE out-labels
 * L..., src/mpls/mpls.c). mpls-tunnel-output is the tunnel type's output node: the IP packet
 * (ipN-rewrite took its hop off and wrote an Ethernet header, which is dropped here) gets the
 * labels with its TTL (RFC 3443's uniform model) and the next hop's Ethernet header. */
#include "mpls.h"
#include "../cli/cli.h"
#include "../ip4/route.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

struct sl_mpls_out *sl_mpls_outs[SL_MPLS_OUTS];
static uint16_t tun_out[SL_IF_MAX]; /* an MPLS tunnel interface's out-path id, 0: none */

/* ---- out-paths ---- */

int sl_mpls_out_add(uint16_t port, uint32_t nh, const uint32_t *labels, unsigned n)
{
	if (n > SL_MPLS_OUT_LABELS)
		return -EINVAL;
	uint16_t id = 1;
	while (id < SL_MPLS_OUTS && sl_mpls_outs[id])
		id++;
	if (id == SL_MPLS_OUTS)
		return -ENOSPC;
	struct sl_mpls_out *o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->port = port;
	o->nh = nh;
	o->n = (uint8_t)n;
	for (unsigned i = 0; i < n; i++)
		o->words[i] = labels[i] << 12;
	int rc = sl_ip4_neigh_hold(port, nh, &o->adj);
	if (rc) {
		free(o);
		return rc;
	}
	__atomic_store_n(&sl_mpls_outs[id], o, __ATOMIC_RELEASE);
	return id;
}

uint32_t sl_mpls_out_count(void)
{
	uint32_t n = 0;
	for (unsigned id = 1; id < SL_MPLS_OUTS; id++)
		n += sl_mpls_outs[id] != NULL;
	return n;
}

void sl_mpls_out_release(uint16_t id)
{
	struct sl_mpls_out *o = sl_mpls_outs[id];
	if (!o)
		return;
	__atomic_store_n(&sl_mpls_outs[id], NULL, __ATOMIC_RELEASE);
	sl_ip4_neigh_unhold(o->port, o->nh);
	sl_rcu_retire(sl_rcu_free, o, 0);
}

int sl_mpls_out_parse(struct sl_out *o, int argc, char **argv, bool pop)
{
	static const char usage[] = "via NEXTHOP IFACE out-labels L [L...] (at most 8 labels, "
				    "each 16-1048575)";
	struct in_addr a;
	bool popping = pop && argc == 3;
	if (!popping && (argc < 5 || strcmp(argv[0], "via") || strcmp(argv[3], "out-labels")))
		return sl_out_error(o, "usage: ... %s", usage);
	if (inet_pton(AF_INET, argv[1], &a) != 1)
		return sl_out_error(o, "next hop '%s' is not an IPv4 address", argv[1]);
	struct sl_iface *f = sl_iface_by_name(argv[2]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[2]);
	if (f->type != SL_IF_PORT && f->type != SL_IF_SUB)
		return sl_out_error(o, "%s is a %s: labels go out of a port or a VLAN "
				    "sub-interface", f->name, sl_if_type_names[f->type]);
	unsigned n = popping ? 0 : (unsigned)argc - 4;
	if (n > SL_MPLS_OUT_LABELS)
		return sl_out_error(o, "%u out-labels: at most %u", n, SL_MPLS_OUT_LABELS);
	uint32_t labels[SL_MPLS_OUT_LABELS];
	for (unsigned i = 0; i < n; i++)
		if (sl_arg_u32(o, "out-label", argv[4 + i], 16, SL_MPLS_LABEL_MAX, &labels[i]))
			return -1;
	int id = sl_mpls_out_add(f->port, rte_be_to_cpu_32(a.s_addr), labels, n);
	if (id < 0)
		return sl_out_error(o, "cannot add the out-path: %s", strerror(-id));
	return id;
}

void sl_mpls_out_fmt(char *buf, size_t len, uint16_t id)
{
	const struct sl_mpls_out *o = sl_mpls_outs[id];
	if (!o) {
		snprintf(buf, len, "-");
		return;
	}
	char ip[16];
	sl_fmt_ip4(ip, o->nh);
	size_t at = (size_t)snprintf(buf, len, "%s %s%s", ip, sl_ifaces[o->port].name,
				     o->n ? " out-labels" : "");
	for (unsigned i = 0; i < o->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, " %u", o->words[i] >> 12);
}

/* The main lcore's tick: a next hop that is not resolved (not yet, or gone stale and
 * deleted) is asked for again (sl_arp_request sends at most ten requests a second). */
static void lsp_tick(uint64_t now)
{
	(void)now;
	for (unsigned id = 1; id < SL_MPLS_OUTS; id++) {
		const struct sl_mpls_out *o = sl_mpls_outs[id];
		if (o && sl_adj_get(o->adj)->type != SL_ADJ_FORWARD)
			sl_arp_request(o->port, o->nh);
	}
}

static void lsp_fini(void)
{
	for (unsigned id = 1; id < SL_MPLS_OUTS; id++) {
		free(sl_mpls_outs[id]);
		sl_mpls_outs[id] = NULL;
	}
	memset(tun_out, 0, sizeof(tun_out));
}

SL_MODULE_REGISTER(lsp_module, .name = "mpls-lsp", .tick = lsp_tick, .fini = lsp_fini)

/* ---- MPLS tunnels ---- */

static int cmd_tunnel(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: mpls tunnel add via NEXTHOP IFACE out-labels L [L...] "
				    "| mpls tunnel del mpls-tunnelN";
	if (argc == 2 && !strcmp(argv[0], "del")) {
		struct sl_iface *f = sl_iface_by_name(argv[1]);
		if (!f || f->type != SL_IF_MPLSTUN)
			return sl_out_error(o, "no MPLS tunnel '%s'", argv[1]);
		uint16_t ifx = f->port, id = tun_out[ifx];
		char why[160] = "";
		int rc = sl_iface_delete(f, why, sizeof(why));
		if (rc)
			return sl_out_error(o, "cannot delete %s: %s", argv[1],
					    why[0] ? why : strerror(-rc));
		tun_out[ifx] = 0;
		sl_mpls_out_release(id);
		return 0;
	}
	if (argc < 1 || strcmp(argv[0], "add"))
		return sl_out_error(o, "%s", usage);
	int id = sl_mpls_out_parse(o, argc - 1, argv + 1, false);
	if (id < 0)
		return -1;
	const struct sl_mpls_out *out = sl_mpls_outs[id];
	char name[32];
	unsigned inst = 0;
	while (snprintf(name, sizeof(name), "mpls-tunnel%u", inst), sl_iface_by_name(name))
		inst++;
	struct rte_ether_addr mac = {{0x02, 0xfe, 0x6d, 0x74, (uint8_t)(inst >> 8), (uint8_t)inst}};
	struct sl_iface *f;
	int rc = sl_iface_create(SL_IF_MPLSTUN, name, &mac, &f);
	if (rc) {
		sl_mpls_out_release((uint16_t)id);
		return sl_out_error(o, "cannot create %s: %s", name, strerror(-rc));
	}
	/* the inner packet's limit: the interface's MTU less the labels */
	sl_iface_set_mtu(f->port, (uint16_t)(sl_ifaces[out->port].mtu - 4 * out->n));
	f->p2p = true;
	__atomic_store_n(&tun_out[f->port], (uint16_t)id, __ATOMIC_RELEASE);
	sl_out_msg(o, "%s", f->name);
	return 0;
}
SL_CLI_COMMAND(mpls_tunnel, .path = "mpls tunnel",
	       .usage = "add via NEXTHOP IFACE out-labels L [L...] | del mpls-tunnelN",
	       .help = "an MPLS tunnel interface mpls-tunnelN (point to point): IPv4 and IPv6 routed "
		       "into it leave IFACE to the IPv4 next hop with the labels pushed (outermost "
		       "first, at most 8, each with the packet's TTL); the next hop is resolved by "
		       "ARP",
	       .fn = cmd_tunnel)

static int cmd_show_tunnel(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show mpls tunnel");
	sl_tbl_begin(o, "mpls-tunnels", 5,
		     (const char *[]){"name", "via", "state", "mtu:u", "next-hop"});
	for (uint32_t i = SL_IF_FIRST_LOGICAL; i < sl_if_hwm; i++) {
		const struct sl_iface *f = &sl_ifaces[i];
		if (!f->used || f->type != SL_IF_MPLSTUN || !tun_out[i])
			continue;
		char via[160], mtu[8];
		sl_mpls_out_fmt(via, sizeof(via), tun_out[i]);
		snprintf(mtu, sizeof(mtu), "%u", f->mtu);
		bool ok = sl_adj_get(sl_mpls_outs[tun_out[i]]->adj)->type == SL_ADJ_FORWARD;
		sl_tbl_row(o, f->name, via, f->up ? "up" : "down", mtu,
			   ok ? "resolved" : "resolving");
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_mpls_tunnel, .path = "show mpls tunnel", .usage = "",
	       .help = "MPLS tunnels: next hop, interface, labels, state, MTU, and whether the "
		       "next hop is resolved",
	       .fn = cmd_show_tunnel)

/* ---- mpls-tunnel-output ---- */

#define MT_ERRORS(X)                                                              \
	X(MT_ERR_DOWN, "tunnel down")                                             \
	X(MT_ERR_NOT_IP, "not IPv4 or IPv6 (a point-to-point tunnel carries IP)") \
	X(MT_ERR_UNRESOLVED, "next hop not resolved (ARP asked)")                 \
	X(MT_ERR_HEADROOM, "no headroom for the labels")
enum { MT_ERRORS(SL_ERR_ENUM) MT_NB_ERR };
static const char *const mt_reasons[] = {MT_ERRORS(SL_ERR_STR)};
static uint16_t mt_err;

enum { MT_NEXT_DROP, MT_NB_STATIC };
static rte_edge_t mt_tx0;

static inline uint16_t mt_one(struct sl_worker *w, struct rte_mbuf *m)
{
	uint16_t ifx = sl_meta(m)->tx_if, e;
	uint16_t id = __atomic_load_n(&tun_out[ifx], __ATOMIC_ACQUIRE);
	const struct sl_mpls_out *o = id ? __atomic_load_n(&sl_mpls_outs[id], __ATOMIC_ACQUIRE)
					 : NULL;
	if (unlikely(!o || !sl_ifaces[ifx].up)) {
		e = MT_ERR_DOWN;
		goto drop;
	}
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;
	memcpy(&type, fr + 12, 2);
	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + 20 ||
		     (type != RTE_BE16(RTE_ETHER_TYPE_IPV4) && type != RTE_BE16(RTE_ETHER_TYPE_IPV6)))) {
		e = MT_ERR_NOT_IP;
		goto drop;
	}
	uint8_t ttl = fr[RTE_ETHER_HDR_LEN + (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) ? 8 : 7)];
	w->ifc[ifx].tx_pkts++;
	w->ifc[ifx].tx_bytes += m->pkt_len - RTE_ETHER_HDR_LEN;
	rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN);
	bool unresolved;
	uint16_t next = sl_mpls_push(m, o, ttl, true, mt_tx0, &unresolved);
	if (likely(next != UINT16_MAX))
		return next;
	e = unresolved ? MT_ERR_UNRESOLVED : MT_ERR_HEADROOM;
drop:
	w->ifc[ifx].drops++;
	sl_set_error(m, mt_err + e);
	return MT_NEXT_DROP;
}

SL_NODE_EACH(mt_process, mt_one)

static struct rte_node_register mt_node = {
	.name = "mpls-tunnel-output",
	.process = mt_process,
	.init = sl_node_init,
	.nb_edges = MT_NB_STATIC,
	.next_nodes = {[MT_NEXT_DROP] = "error-drop"},
};
SL_NODE_REGISTER(mt_node)

/* A tunnel that routes or neighbours use is not deleted (ip4 and ip6 say so); one that
 * nothing uses is. */
RTE_INIT(lsp_init)
{
	mt_err = sl_error_register("mpls-tunnel-output", mt_reasons, MT_NB_ERR);
	sl_iface_output_register(SL_IF_MPLSTUN, "mpls-tunnel-output");
	sl_iface_tx_user("mpls-tunnel-output", &mt_tx0);
}
