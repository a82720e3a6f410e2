/* SPDX-License-Identifier: BSD-3-Clause */
/* MPLS control (main lcore): mpls table add|del 0, mpls local-label add|del LABEL eos via
 * ip4-lookup-in-table T, show mpls fib, set interface mpls IF enable|disable, and
 * MPLS-over-UDP and MPLS-over-GRE tunnels: create mpls-udp|mpls-gre tunnel src A dst B
 * out-label L [instance N] [outer-table-id T] [del], show mpls-udp|mpls-gre tunnel. The
 * local labels are one lock-free rte_hash (label << 1 | eos -> action and table) that the
 * workers read. */
#include "mpls.h"
#include "../cli/cli.h"
#include "../runtime/runtime.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ether.h>
#include <rte_udp.h>

#define SL_MPLS_LABELS 65536

static struct rte_hash *labels;
static bool table0;
static uint32_t nlabels;

static inline uint32_t lkey(uint32_t label, bool eos)
{
	return label << 1 | eos;
}

uint64_t sl_mpls_find(uint32_t label, bool eos)
{
	void *d;
	uint32_t k = lkey(label, eos);
	return rte_hash_lookup_data(labels, &k, &d) < 0 ? 0 : (uint64_t)(uintptr_t)d;
}

uint32_t sl_mpls_count(void)
{
	return nlabels;
}

/* mpls table add|del 0 (VPP's: the only table, needed before local labels) */
static int cmd_table(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: mpls table add|del 0";
	uint32_t id;
	if (argc != 2 || (strcmp(argv[0], "add") && strcmp(argv[0], "del")))
		return sl_out_error(o, "%s", usage);
	if (sl_arg_u32(o, "MPLS table", argv[1], 0, 0, &id))
		return -1;
	if (argv[0][0] == 'd' && nlabels)
		return sl_out_error(o, "MPLS table 0 has %u local labels (mpls local-label del)",
				    nlabels);
	table0 = argv[0][0] == 'a';
	return 0;
}
SL_CLI_COMMAND(mpls_table, .path = "mpls table", .usage = "add|del 0",
	       .help = "the MPLS table (table 0 only), needed before local labels", .fn = cmd_table)

/* An entry's out-path (a swap's), or 0. */
static uint16_t swap_out(uint64_t d)
{
	return d >> 32 == SL_MPLS_SWAP ? (uint16_t)d : 0;
}

/* mpls local-label add|del LABEL eos via ip4-lookup-in-table T, or LABEL non-eos via
 * mpls-lookup-in-table 0, or LABEL eos|non-eos via NH IFACE out-labels L... (swap) */
static int cmd_label(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: mpls local-label add|del LABEL eos via "
				    "ip4-lookup-in-table T | LABEL non-eos via mpls-lookup-in-table 0"
				    " | LABEL eos|non-eos via NEXTHOP IFACE out-labels L [L...]"
				    " | LABEL eos via NEXTHOP IFACE";
	uint32_t label, tid;
	if (argc < 3 || (strcmp(argv[0], "add") && strcmp(argv[0], "del")))
		return sl_out_error(o, "%s", usage);
	bool add = argv[0][0] == 'a';
	if (sl_arg_u32(o, "label", argv[1], 16, SL_MPLS_LABEL_MAX, &label))
		return -1;
	if (strcmp(argv[2], "eos") && strcmp(argv[2], "non-eos"))
		return sl_out_error(o, "%s", usage);
	bool eos = argv[2][0] == 'e';
	uint32_t k = lkey(label, eos);
	if (!add) {
		if (argc != 3)
			return sl_out_error(o, "usage: mpls local-label del LABEL eos|non-eos");
		uint16_t out = swap_out(sl_mpls_find(label, eos));
		int32_t pos = rte_hash_del_key(labels, &k);
		if (pos < 0)
			return sl_out_error(o, "no local label %u %s", label, argv[2]);
		sl_rcu_sync(); /* no worker holds the slot any more */
		rte_hash_free_key_with_position(labels, pos);
		nlabels--;
		if (out)
			sl_mpls_out_release(out);
		return 0;
	}
	struct in_addr nh;
	bool pop_fwd = argc == 6 && !strcmp(argv[3], "via") && inet_pton(AF_INET, argv[4], &nh) == 1;
	if (pop_fwd || (argc >= 8 && !strcmp(argv[3], "via") && !strcmp(argv[6], "out-labels"))) {
		if (!table0)
			return sl_out_error(o, "no MPLS table (mpls table add 0)");
		if (pop_fwd && !eos)
			return sl_out_error(o, "via NEXTHOP IFACE without out-labels pops the bottom "
					    "label (eos) only");
		uint64_t before = sl_mpls_find(label, eos);
		if (!before && nlabels >= SL_MPLS_LABELS)
			return sl_out_error(o, "MPLS table full (%u labels)", nlabels);
		int id = sl_mpls_out_parse(o, argc - 3, argv + 3, true);
		if (id < 0)
			return -1;
		uint64_t d = sl_mpls_data(SL_MPLS_SWAP, (uint16_t)id);
		if (rte_hash_add_key_data(labels, &k, (void *)(uintptr_t)d)) {
			sl_mpls_out_release((uint16_t)id);
			return sl_out_error(o, "MPLS table full");
		}
		nlabels += !before;
		if (swap_out(before))
			sl_mpls_out_release(swap_out(before)); /* retired after a grace period */
		return 0;
	}
	if (argc != 6 || strcmp(argv[3], "via") ||
	    (eos && strcmp(argv[4], "ip4-lookup-in-table") && strcmp(argv[4], "ip6-lookup-in-table")) ||
	    (!eos && strcmp(argv[4], "mpls-lookup-in-table")))
		return sl_out_error(o, "%s", usage);
	if (!table0)
		return sl_out_error(o, "no MPLS table (mpls table add 0)");
	if (sl_arg_u32(o, "table", argv[5], 0, eos ? UINT32_MAX : 0, &tid))
		return -1;
	int fib = eos ? sl_ip4_table_find(tid) : 0;
	if (fib < 0)
		return sl_out_error(o, "no table %u (ip table add %u)", tid, tid);
	bool had = sl_mpls_find(label, eos) != 0;
	if (!had && nlabels >= SL_MPLS_LABELS)
		return sl_out_error(o, "MPLS table full (%u labels)", nlabels);
	uint64_t d = eos ? sl_mpls_data(SL_MPLS_POP_LOOKUP, (uint16_t)fib)
			 : sl_mpls_data(SL_MPLS_POP_MPLS, 0);
	uint16_t old_out = swap_out(sl_mpls_find(label, eos));
	if (rte_hash_add_key_data(labels, &k, (void *)(uintptr_t)d))
		return sl_out_error(o, "MPLS table full");
	nlabels += !had;
	if (old_out)
		sl_mpls_out_release(old_out);
	return 0;
}
SL_CLI_COMMAND(mpls_label, .path = "mpls local-label",
	       .usage = "add|del LABEL eos via ip4-lookup-in-table T | LABEL non-eos via "
			"mpls-lookup-in-table 0 | LABEL eos|non-eos via NEXTHOP IFACE out-labels "
			"L [L...] | LABEL eos via NEXTHOP IFACE",
	       .help = "a local label (16-1048575): at the bottom of the stack (eos) popped and the "
		       "IPv4 or IPv6 packet under it looked up in table T (ip6-lookup-in-table: "
		       "the same); above it (non-eos) popped and the next label looked up; with "
		       "out-labels swapped for them (outermost first, TTL less one, the S bit "
		       "kept) and sent to the IPv4 next hop out of IFACE; eos via NEXTHOP IFACE "
		       "alone: popped and the IP packet under it sent to the next hop, its TTL "
		       "less one",
	       .fn = cmd_label)

static int cmd_show_fib(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show mpls fib");
	sl_tbl_begin(o, "labels", 5,
		     (const char *[]){"label:u", "eos", "action", "table:u", "via"});
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rte_hash_iterate(labels, &k, &d, &it) >= 0) {
		uint32_t key = *(const uint32_t *)k;
		uint64_t v = (uint64_t)(uintptr_t)d;
		char l[12], t[12];
		snprintf(l, sizeof(l), "%u", key >> 1);
		bool ip = v >> 32 == SL_MPLS_POP_LOOKUP, swap = swap_out(v) != 0;
		snprintf(t, sizeof(t), "%u", ip ? sl_fib_ids[v & 0xffff] : 0);
		char via[160] = "-";
		if (swap)
			sl_mpls_out_fmt(via, sizeof(via), swap_out(v));
		const char *act = ip ? "pop, look up"
				  : swap ? (sl_mpls_outs[swap_out(v)]->n ? "swap" : "pop, forward")
					 : "pop, look up the next label";
		sl_tbl_row(o, l, key & 1 ? "eos" : "non-eos", act, t, via);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_mpls_fib, .path = "show mpls fib", .usage = "",
	       .help = "the local labels and their actions", .fn = cmd_show_fib)

static int cmd_if_mpls(struct sl_out *o, int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "enable") && strcmp(argv[1], "disable")))
		return sl_out_error(o, "usage: set interface mpls IFACE enable|disable");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	__atomic_store_n(&f->mpls, argv[1][0] == 'e', __ATOMIC_RELEASE);
	return 0;
}
SL_CLI_COMMAND(if_mpls, .path = "set interface mpls", .usage = "IFACE enable|disable",
	       .help = "take MPLS frames (ethertype 0x8847) in on IFACE", .fn = cmd_if_mpls)

/* A table a label looks packets up in is not deleted. */
static int labels_on(uint16_t fib, char *why, size_t len)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rte_hash_iterate(labels, &k, &d, &it) >= 0) {
		uint64_t v = (uint64_t)(uintptr_t)d;
		if (v >> 32 == SL_MPLS_POP_LOOKUP && (v & 0xffff) == fib) {
			snprintf(why, len, "MPLS local label %u looks packets up in table %u",
				 *(const uint32_t *)k >> 1, sl_fib_ids[fib]);
			return 1;
		}
	}
	return 0;
}

/* ---- MPLS-over-UDP and MPLS-over-GRE tunnels ---- */

static int tunnel_cmd(struct sl_out *o, int argc, char **argv, bool gre)
{
	const char *usage = gre ? "usage: create mpls-gre tunnel src A dst B out-label L "
				  "[instance N] [outer-table-id T] [del]"
				: "usage: create mpls-udp tunnel src A dst B out-label L "
				  "[instance N] [outer-table-id T] [del]";
	uint32_t label = UINT32_MAX;
	struct sl_tun_args ta = SL_TUN_ARGS_INIT;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = sl_tun_arg(o, a, val, "outer-table-id", &ta);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			i += rc - 1;
		} else if (!strcmp(a, "out-label") && val) {
			if (sl_arg_u32(o, "out-label", val, 16, SL_MPLS_LABEL_MAX, &label))
				return -1;
			i++;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!ta.fam_src || !ta.fam_dst || label == UINT32_MAX)
		return sl_out_error(o, "src, dst and out-label are required; %s", usage);
	if (sl_tun_ends(o, &ta, usage))
		return -1;
	struct sl_tun_key k = {.kind = gre ? SL_TUN_MPLSGRE : SL_TUN_MPLSUDP, .id = label};
	int rc;
	struct sl_tun *t = sl_tun_begin(o, &k, &ta, &rc);
	if (!t)
		return rc;
	t->mpls = true;
	uint8_t *h = t->hdr + sl_tun_iplen(t);
	if (gre) {
		t->hlen += 4 + 4;
		h[2] = RTE_ETHER_TYPE_MPLS >> 8; /* no checksum, key or sequence; version 0 */
		h[3] = RTE_ETHER_TYPE_MPLS & 0xff;
		h += 4;
	} else {
		t->hlen += sizeof(struct rte_udp_hdr) + 4;
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)h;
		/* checksum 0 over IPv4 (RFC 7510 3.2), mplsudp6-encap's over IPv6 */
		u->dst_port = RTE_BE16(SL_MPLS_UDP_PORT);
		h += sizeof(*u);
	}
	uint32_t lw = rte_cpu_to_be_32(label << 12 | 1u << 8); /* bottom of stack, TTL later */
	memcpy(h, &lw, 4);
	enum sl_if_type type = gre ? (t->v6 ? SL_IF_MPLSGRE6 : SL_IF_MPLSGRE)
				   : (t->v6 ? SL_IF_MPLSUDP6 : SL_IF_MPLSUDP);
	return sl_tun_create(o, t, type, gre ? "mplsgre" : "mplsudp",
			     ta.inst, gre ? (const uint8_t[]){0x6d, 0x67} : (const uint8_t[]){0x6d, 0x75},
			     (uint16_t)(1500 - t->hlen));
}

static int cmd_create_udp(struct sl_out *o, int argc, char **argv)
{
	return tunnel_cmd(o, argc, argv, false);
}
SL_CLI_COMMAND(create_mplsudp, .path = "create mpls-udp tunnel",
	       .usage = "src A dst B out-label L [instance N] [outer-table-id T] [del]",
	       .help = "an MPLS-over-UDP tunnel interface mplsudpN (RFC 7510, UDP 6635) from local "
		       "address A to B, point to point: IPv4 and IPv6 routed into it leave with "
		       "label L (the remote's local label for the destination's table)",
	       .fn = cmd_create_udp)

static int cmd_create_gre(struct sl_out *o, int argc, char **argv)
{
	return tunnel_cmd(o, argc, argv, true);
}
SL_CLI_COMMAND(create_mplsgre, .path = "create mpls-gre tunnel",
	       .usage = "src A dst B out-label L [instance N] [outer-table-id T] [del]",
	       .help = "an MPLS-over-GRE tunnel interface mplsgreN (RFC 4023, GRE protocol 0x8847) "
		       "from local address A to B, point to point: IPv4 and IPv6 routed into it "
		       "leave with label L",
	       .fn = cmd_create_gre)

static void tun_cols(const struct sl_tun *t, char (*v)[48])
{
	snprintf(v[0], sizeof(v[0]), "%u", t->key.id);
}

static int cmd_show_udp(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	return sl_tun_show(o, argc, "show mpls-udp tunnel", SL_TUN_MPLSUDP, 1,
			   (const char *[]){"out-label:u"}, tun_cols);
}
SL_CLI_COMMAND(show_mplsudp, .path = "show mpls-udp tunnel", .usage = "",
	       .help = "MPLS-over-UDP tunnels: addresses, label, outer table, MTU, state",
	       .fn = cmd_show_udp)

static int cmd_show_gre(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	return sl_tun_show(o, argc, "show mpls-gre tunnel", SL_TUN_MPLSGRE, 1,
			   (const char *[]){"out-label:u"}, tun_cols);
}
SL_CLI_COMMAND(show_mplsgre, .path = "show mpls-gre tunnel", .usage = "",
	       .help = "MPLS-over-GRE tunnels: addresses, label, outer table, MTU, state",
	       .fn = cmd_show_gre)

static int mpls_init(const struct sl_config *c)
{
	(void)c;
	struct rte_hash_parameters hp = {
		.name = "sl_mpls", .entries = SL_MPLS_LABELS, .key_len = sizeof(uint32_t),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_NO_FREE_ON_DEL,
	};
	return (labels = rte_hash_create(&hp)) ? 0 : -ENOMEM;
}

static void mpls_fini(void)
{
	rte_hash_free(labels);
	labels = NULL;
	table0 = false;
	nlabels = 0;
}

SL_MODULE_REGISTER(mpls_module, .name = "mpls", .init = mpls_init, .fini = mpls_fini)

RTE_INIT(mpls_ctl_init)
{
	sl_table_user_register(labels_on);
}
