/* SPDX-License-Identifier: BSD-3-Clause */
/* Bridge domains: l2-bridge forwards by destination MAC within the input interface's bridge
 * domain, floods broadcast and unknown unicast to the other members, and learns source MACs.
 * The MAC table is one lock-free rte_hash keyed by (bridge domain, MAC), read by workers and
 * written only by the main lcore: workers post what they learn on a per-worker ring, and
 * deleted entries are reclaimed after an RCU grace period (rte_hash's QSBR defer queue).
 * An entry's data is its port, a static flag and the second it was last seen; a worker asks
 * for a refresh at most once a second per MAC, and the main lcore ages entries out. */
#include "../cli/cli.h"
#include "../interface/iface.h"
#include "../runtime/runtime.h"
#include "l2.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#define BD_MAX SL_BD_MAX
#define MAC_TABLE_SIZE (1u << 18)
#define LEARN_RING 4096

struct bd_members {
	uint16_t n;
	uint16_t port[]; /* interfaces */
};

struct bd {
	bool used, learn, flood, uu_flood;
	double age_min;                 /* 0: never */
	struct bd_members *members;     /* replaced whole, freed after a grace period */
};

static struct bd bds[BD_MAX];
static struct rte_hash *macs;
static struct rte_ring *learn_rings[SL_MAX_WORKERS];
static volatile uint32_t l2_now;  /* seconds since start, written by main */
static uint64_t start_tsc;

#define DATA_PORT(d) ((uint16_t)((d) & 0xffff))
#define DATA_STATIC (1ull << 16)
#define DATA_SEEN(d) ((uint32_t)((d) >> 32))
static inline uint64_t mkdata(uint16_t port, bool stat, uint32_t seen)
{
	return port | (stat ? DATA_STATIC : 0) | (uint64_t)seen << 32;
}
static inline uint64_t mkkey(uint16_t bd, const struct rte_ether_addr *a)
{
	uint64_t k = 0;
	memcpy(&k, a, 6);
	return k | (uint64_t)bd << 48;
}

struct learn_msg {
	uint64_t key;
	uint16_t port;
	uint16_t pad[3];
};

#define BR_ERRORS(X)                                                           \
	X(BR_ERR_SHORT, "frame shorter than an Ethernet header")               \
	X(BR_ERR_NOBD, "interface in no bridge domain")                        \
	X(BR_ERR_SAME, "destination is on the input interface")                \
	X(BR_ERR_NOFLOOD, "flooding disabled in the bridge domain")            \
	X(BR_ERR_LEARN, "learn queue full (MAC not learnt this time)")         \
	X(BR_ERR_COPY, "no buffer to flood a copy")                            \
	X(BR_FLOODED, "flooded (not a drop: packets sent to every member)")
enum { BR_ERRORS(SL_ERR_ENUM) BR_NB_ERR };
static const char *const br_reasons[] = {BR_ERRORS(SL_ERR_STR)};
static uint16_t br_err;

enum { BR_NEXT_DROP, BR_NEXT_ETH, BR_NEXT_FEAT, BR_NB_STATIC };
static rte_edge_t br_tx0;

RTE_INIT(br_init)
{
	br_err = sl_error_register("l2-bridge", br_reasons, BR_NB_ERR);
	sl_iface_tx_user("l2-bridge", &br_tx0);
}


static inline bool in_bd(const struct sl_iface *f)
{
	return f->mode == SL_MODE_BRIDGE || f->bvi;
}

/* The edge to member port p: its port-tx, or routing for the domain's BVI (which the frame
 * then appears to arrive on: through its device-input features first, an input ACL or
 * policer, when it has any). */
static inline uint16_t to_member(struct rte_mbuf *m, uint16_t p)
{
	if (unlikely(sl_ifaces[p].bvi)) {
		m->port = p;
		return sl_if_features(p, SL_ARC_DEVICE_INPUT) ? BR_NEXT_FEAT : BR_NEXT_ETH;
	}
	sl_meta(m)->tx_if = p;
	return sl_iface_tx_edge(br_tx0, p);
}

static inline void learn(struct sl_worker *w, uint64_t key, uint16_t port)
{
	struct learn_msg msg = {.key = key, .port = port};
	if (rte_ring_sp_enqueue_elem(learn_rings[w->id], &msg, sizeof(msg)))
		w->errors[br_err + BR_ERR_LEARN]++;
	else
		sl_main_wake();
}

static uint16_t br_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint64_t skeys[RTE_GRAPH_BURST_SIZE], dkeys[RTE_GRAPH_BURST_SIZE];
	const void *kp[2 * RTE_GRAPH_BURST_SIZE];
	void *data[2 * RTE_GRAPH_BURST_SIZE];
	uint64_t hs[RTE_GRAPH_BURST_SIZE / 64] = {0}, hd[RTE_GRAPH_BURST_SIZE / 64] = {0};
	uint16_t nexts[n], bdid[n], srun[n], ns = 0;
	uint32_t now = l2_now;
	/* keys for both lookups; a run of packets from one source is looked up (and learnt)
	 * once */
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		sl_prefetch_ahead(objs, i, n);
		bdid[i] = sl_ifaces[m->port].bd;
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		uint64_t sk = mkkey(bdid[i], &eh->src_addr);
		if (ns == 0 || skeys[ns - 1] != sk) {
			skeys[ns] = sk;
			kp[ns] = &skeys[ns];
			ns++;
		}
		srun[i] = ns - 1;
		dkeys[i] = mkkey(bdid[i], &eh->dst_addr);
		kp[RTE_GRAPH_BURST_SIZE + i] = &dkeys[i];
	}
	/* rte_hash looks up at most 64 keys per call: a hit mask per 64 keys */
	for (uint16_t off = 0; off < ns; off += 64)
		rte_hash_lookup_bulk_data(macs, kp + off, RTE_MIN(64u, (unsigned)(ns - off)),
					  &hs[off / 64], data + off);
	for (uint16_t off = 0; off < n; off += 64)
		rte_hash_lookup_bulk_data(macs, kp + RTE_GRAPH_BURST_SIZE + off,
					  RTE_MIN(64u, (unsigned)(n - off)), &hd[off / 64],
					  data + RTE_GRAPH_BURST_SIZE + off);
	uint16_t nfl = 0, from = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		const struct bd *b = &bds[bdid[i]];
		nexts[i] = BR_NEXT_DROP;
		if (unlikely(m->data_len < RTE_ETHER_HDR_LEN)) {
			sl_set_error(m, br_err + BR_ERR_SHORT);
			continue;
		}
		if (unlikely(!b->used || !in_bd(&sl_ifaces[m->port]))) {
			sl_set_error(m, br_err + BR_ERR_NOBD);
			continue;
		}
		uint16_t r = srun[i];
		bool shit = hs[r / 64] >> (r % 64) & 1, dhit = hd[i / 64] >> (i % 64) & 1;
		void *sd = data[r], *dd = data[RTE_GRAPH_BURST_SIZE + i];
		if (b->learn && (i == 0 || srun[i - 1] != r)) {
			uint64_t d = (uintptr_t)sd;
			if (!shit ||
			    (!(d & DATA_STATIC) && (DATA_PORT(d) != m->port || DATA_SEEN(d) != now)))
				learn(w, skeys[r], m->port);
		}
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		bool bcast = rte_is_multicast_ether_addr(&eh->dst_addr);
		if (!bcast && dhit) {
			uint16_t out = DATA_PORT((uintptr_t)dd);
			if (unlikely(out == m->port)) {
				sl_set_error(m, br_err + BR_ERR_SAME);
				continue;
			}
			nexts[i] = to_member(m, out);
			continue;
		}
		if (!(bcast ? b->flood : b->uu_flood)) {
			sl_set_error(m, br_err + BR_ERR_NOFLOOD);
			continue;
		}
		/* flood: a copy to every other member, the original to the last; what came
		 * before it leaves first, so that no member sees packets reordered */
		sl_enqueue_nexts(g, node, objs + from, nexts + from, i - from);
		from = i + 1;
		const struct bd_members *mb = __atomic_load_n(&b->members, __ATOMIC_ACQUIRE);
		uint16_t last = UINT16_MAX;
		for (uint16_t j = 0; mb && j < mb->n; j++) {
			uint16_t p = mb->port[j];
			if (p == m->port)
				continue;
			if (last != UINT16_MAX) {
				struct rte_mbuf *c = rte_pktmbuf_copy(m, sl_pool, 0, UINT32_MAX);
				if (!c) {
					w->errors[br_err + BR_ERR_COPY]++;
					continue;
				}
				rte_node_enqueue_x1(g, node, to_member(c, last), c);
			}
			last = p;
		}
		nfl++;
		if (last == UINT16_MAX) {
			sl_set_error(m, br_err + BR_ERR_SAME); /* alone in its domain */
			rte_node_enqueue_x1(g, node, BR_NEXT_DROP, m);
			continue;
		}
		rte_node_enqueue_x1(g, node, to_member(m, last), m);
	}
	w->errors[br_err + BR_FLOODED] += nfl;
	sl_enqueue_nexts(g, node, objs + from, nexts + from, n - from);
	return n;
}

static struct rte_node_register br_node = {
	.name = "l2-bridge",
	.process = br_process,
	.init = sl_node_init,
	.nb_edges = BR_NB_STATIC,
	.next_nodes = {[BR_NEXT_DROP] = "error-drop", [BR_NEXT_ETH] = "ethernet-input",
		       [BR_NEXT_FEAT] = "device-input-features"},
};
SL_NODE_REGISTER(br_node)

/* ---------------- control: table, learning, aging ---------------- */

static int l2_init(const struct sl_config *c)
{
	(void)c;
	struct rte_hash_parameters hp = {
		.name = "sl_macs",
		.entries = MAC_TABLE_SIZE,
		.key_len = sizeof(uint64_t),
		.hash_func = rte_hash_crc, /* the CRC32 instruction: cheaper than jhash */
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	if (!(macs = rte_hash_create(&hp)))
		return -ENOMEM;
	struct rte_hash_rcu_config rc = {.v = sl_rcu, .mode = RTE_HASH_QSBR_MODE_DQ};
	if (rte_hash_rcu_qsbr_add(macs, &rc))
		return -ENOMEM;
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		char name[32];
		snprintf(name, sizeof(name), "sl_learn_%u", w);
		learn_rings[w] = rte_ring_create_elem(name, sizeof(struct learn_msg), LEARN_RING,
						      SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (!learn_rings[w])
			return -ENOMEM;
	}
	start_tsc = rte_rdtsc();
	return 0;
}

static void l2_fini(void)
{
	for (uint16_t w = 0; w < SL_MAX_WORKERS; w++)
		rte_ring_free(learn_rings[w]);
	rte_hash_free(macs);
	for (int b = 0; b < BD_MAX; b++)
		rte_free(bds[b].members);
}

static void mac_set(uint64_t key, uint16_t port, bool stat)
{
	rte_hash_add_key_data(macs, &key, (void *)(uintptr_t)mkdata(port, stat, l2_now));
}

static void age_out(void)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	uint64_t dead[256];
	unsigned nd = 0;
	while (rte_hash_iterate(macs, &k, &d, &it) >= 0 && nd < RTE_DIM(dead)) {
		uint64_t key = *(const uint64_t *)k, v = (uintptr_t)d;
		const struct bd *b = &bds[key >> 48];
		if (!(v & DATA_STATIC) && b->age_min > 0 && l2_now - DATA_SEEN(v) > b->age_min * 60)
			dead[nd++] = key;
	}
	for (unsigned i = 0; i < nd; i++)
		rte_hash_del_key(macs, &dead[i]);
}

/* Main lcore, every turn of its loop: what the workers learnt, and once a second aging. */
static void l2_poll(void)
{
	uint32_t now = (uint32_t)((rte_rdtsc() - start_tsc) / rte_get_tsc_hz());
	bool tick = now != l2_now;
	l2_now = now;
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		struct learn_msg msg[32];
		unsigned k = rte_ring_sc_dequeue_burst_elem(learn_rings[w], msg, sizeof(msg[0]), 32,
							    NULL);
		for (unsigned i = 0; i < k; i++) {
			void *d;
			if (rte_hash_lookup_data(macs, &msg[i].key, &d) >= 0 &&
			    ((uintptr_t)d & DATA_STATIC))
				continue; /* static entries are never learnt over */
			if (!bds[msg[i].key >> 48].used)
				continue;
			if (sl_ifaces[msg[i].port].used && in_bd(&sl_ifaces[msg[i].port]))
				mac_set(msg[i].key, msg[i].port, false);
		}
	}
	if (tick)
		age_out();
}

/* ---------------- CLI ---------------- */

static void members_publish(uint16_t id)
{
	uint32_t n = 0;
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		n += sl_ifaces[p].used && in_bd(&sl_ifaces[p]) && sl_ifaces[p].bd == id;
	struct bd_members *m = rte_zmalloc("bd_members", sizeof(*m) + n * sizeof(m->port[0]), 0);
	struct bd_members *old = bds[id].members;
	if (!m)
		return;
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		if (sl_ifaces[p].used && in_bd(&sl_ifaces[p]) && sl_ifaces[p].bd == id)
			m->port[m->n++] = (uint16_t)p;
	__atomic_store_n(&bds[id].members, m, __ATOMIC_RELEASE);
	if (old)
		sl_rcu_retire(sl_rcu_rte_free, old, 0);
}

static void flush_bd(uint16_t id, bool statics)
{
	const void *k;
	void *d;
	uint32_t it = 0;
	for (;;) { /* delete in rounds: iterating while deleting skips entries */
		uint64_t dead[256];
		unsigned nd = 0;
		it = 0;
		while (rte_hash_iterate(macs, &k, &d, &it) >= 0 && nd < RTE_DIM(dead)) {
			uint64_t key = *(const uint64_t *)k;
			if (key >> 48 == id && (statics || !((uintptr_t)d & DATA_STATIC)))
				dead[nd++] = key;
		}
		for (unsigned i = 0; i < nd; i++)
			rte_hash_del_key(macs, &dead[i]);
		if (nd < RTE_DIM(dead))
			break;
	}
}

/* "learn" alone turns it on; VPP's "learn 0|1" says which */
static bool flag_arg(int argc, char **argv, int *i)
{
	if (*i + 1 < argc && (!strcmp(argv[*i + 1], "0") || !strcmp(argv[*i + 1], "1")))
		return argv[++*i][0] == '1';
	return true;
}

/* ---------------- control ---------------- */

int sl_l2_bd_set(uint16_t id, const struct sl_bd_settings *s)
{
	if (id == 0 || id >= BD_MAX)
		return -ERANGE;
	struct bd b = {.used = true, .learn = s->learn, .flood = s->flood,
		       .uu_flood = s->uu_flood, .age_min = s->age_min};
	if (bds[id].used) /* change the settings of an existing domain */
		b.members = bds[id].members;
	bds[id] = b;
	if (!b.members)
		members_publish(id);
	return 0;
}

int sl_l2_bd_del(uint16_t id, char *why, size_t len)
{
	if (id == 0 || id >= BD_MAX || !bds[id].used) {
		snprintf(why, len, "bridge-domain %u does not exist", id);
		return -ENOENT;
	}
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		if (sl_ifaces[p].used && in_bd(&sl_ifaces[p]) && sl_ifaces[p].bd == id) {
			snprintf(why, len, "bridge-domain %u still has %s", id, sl_ifaces[p].name);
			return -EBUSY;
		}
	bds[id].used = false;
	sl_rcu_sync();
	flush_bd(id, true);
	return 0;
}

int sl_l2_bd_member(uint16_t ifx, uint16_t id, bool bvi, char *why, size_t len)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	if (bvi != (f->type == SL_IF_BVI)) {
		snprintf(why, len, bvi ? "%s is not a BVI (bvi create makes one)"
				       : "%s is a BVI: set interface l2 bridge %s N bvi",
			 f->name, f->name);
		return -EINVAL;
	}
	if (id == 0 || id >= BD_MAX || !bds[id].used) {
		snprintf(why, len, "bridge-domain %u does not exist (create bridge-domain %u)", id,
			 id);
		return -ENOENT;
	}
	uint16_t was = in_bd(f) ? f->bd : 0;
	f->bd = id;
	f->peer = f->port;
	if (bvi) {
		/* a BVI routes what the bridge hands it: its mode stays l3; its MAC is static */
		f->bvi = true;
		if (was && was != id) {
			uint64_t k = mkkey(was, &f->mac);
			rte_hash_del_key(macs, &k);
		}
		mac_set(mkkey(id, &f->mac), f->port, true);
	} else {
		__atomic_store_n(&f->mode, (uint8_t)SL_MODE_BRIDGE, __ATOMIC_RELEASE);
	}
	members_publish(id);
	if (was && was != id)
		members_publish(was);
	return 0;
}

int sl_l2_fib_add(uint16_t id, const struct rte_ether_addr *mac, uint16_t ifx, bool stat,
		  char *why, size_t len)
{
	if (id == 0 || id >= BD_MAX || !bds[id].used) {
		snprintf(why, len, "bridge-domain %u does not exist", id);
		return -ENOENT;
	}
	if (rte_is_multicast_ether_addr(mac)) {
		snprintf(why, len, "a multicast address is not learnt");
		return -EINVAL;
	}
	mac_set(mkkey(id, mac), ifx, stat);
	return 0;
}

int sl_l2_fib_del(uint16_t id, const struct rte_ether_addr *mac, char *why, size_t len)
{
	if (id == 0 || id >= BD_MAX || !bds[id].used) {
		snprintf(why, len, "bridge-domain %u does not exist", id);
		return -ENOENT;
	}
	uint64_t key = mkkey(id, mac);
	if (rte_hash_del_key(macs, &key) < 0) {
		snprintf(why, len, "the MAC is not in bridge-domain %u", id);
		return -ENOENT;
	}
	return 0;
}

/* ---------------- CLI ---------------- */

static int cmd_create_bd(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: create bridge-domain N [learn [0|1]] [flood [0|1]] "
			    "[uu-flood [0|1]] [age|mac-age MINUTES] | N del";
	uint32_t id;
	char why[128];
	if (argc < 1)
		return sl_out_error(o, "%s", usage);
	if (sl_arg_u32(o, "bridge-domain", argv[0], 1, BD_MAX - 1, &id))
		return -1;
	if (argc == 2 && !strcmp(argv[1], "del"))
		return sl_l2_bd_del((uint16_t)id, why, sizeof(why)) ? sl_out_error(o, "%s", why) : 0;
	/* VPP's defaults: learning and both kinds of flooding on, no aging */
	struct sl_bd_settings b = {.learn = true, .flood = true, .uu_flood = true};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "learn"))
			b.learn = flag_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "flood"))
			b.flood = flag_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "uu-flood"))
			b.uu_flood = flag_arg(argc, argv, &i);
		else if (!strcmp(argv[i], "age") || !strcmp(argv[i], "mac-age")) {
			char *end = NULL;
			double a = i + 1 < argc ? strtod(argv[i + 1], &end) : -1;
			if (i + 1 >= argc || *end || !(a >= 0) || a > 1e6)
				return sl_out_error(o, "%s wants minutes (0: never), not '%s'", argv[i],
						    i + 1 < argc ? argv[i + 1] : "");
			b.age_min = a;
			i++;
		} else
			return sl_out_error(o, "unknown option '%s'; %s", argv[i], usage);
	}
	return sl_l2_bd_set((uint16_t)id, &b);
}
SL_CLI_COMMAND(create_bd, .path = "create bridge-domain",
	       .usage = "N [learn [0|1]] [flood [0|1]] [uu-flood [0|1]] [age MINUTES] | N del",
	       .help = "a bridge domain (learn, flood and uu-flood on unless set 0; no aging)",
	       .fn = cmd_create_bd)

static int cmd_set_bridge(struct sl_out *o, int argc, char **argv)
{
	uint32_t id;
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "bvi")))
		return sl_out_error(o, "usage: set interface l2 bridge IFACE N [bvi]");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (sl_arg_u32(o, "bridge-domain", argv[1], 1, BD_MAX - 1, &id))
		return -1;
	char why[160];
	if (sl_l2_bd_member(f->port, (uint16_t)id, argc == 3, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}
SL_CLI_COMMAND(set_bridge, .path = "set interface l2 bridge", .usage = "IFACE N [bvi]",
	       .help = "make IFACE a member of bridge domain N (bvi: its routed interface)",
	       .fn = cmd_set_bridge)

static int cmd_bvi_create(struct sl_out *o, int argc, char **argv)
{
	int64_t inst;
	struct rte_ether_addr mac = {{0x02, 0xfe, 0xb1, 0, 0, 0}};
	bool have_mac;
	if (sl_iface_parse_inst_mac(o, argc, argv, "usage: bvi create [instance N] [mac MAC]",
				    &inst, &mac, &have_mac))
		return -1;
	return sl_iface_create_named(o, SL_IF_BVI, "bvi", inst, mac, have_mac);
}
SL_CLI_COMMAND(bvi_create, .path = "bvi create", .usage = "[instance N] [mac MAC]",
	       .help = "a bridged virtual interface bviN: give it addresses and put it in a "
		       "bridge domain with 'set interface l2 bridge bviN N bvi'",
	       .fn = cmd_bvi_create)

static int cmd_bvi_delete(struct sl_out *o, int argc, char **argv)
{
	if (argc != 1)
		return sl_out_error(o, "usage: bvi delete bviN");
	return sl_iface_delete_named(o, SL_IF_BVI, argv[0]);
}
SL_CLI_COMMAND(bvi_delete, .path = "bvi delete", .usage = "bviN",
	       .help = "delete a BVI that is in no bridge domain and has no addresses",
	       .fn = cmd_bvi_delete)

/* An interface in a bridge domain is not deleted; the MACs learnt on it go with it. */
static int bridge_busy(const struct sl_iface *f, bool commit, char *why, size_t len)
{
	if (!commit) {
		if (!in_bd(f))
			return 0;
		snprintf(why, len, "%s is in bridge-domain %u (set interface l3 %s)", f->name, f->bd,
			 f->name);
		return 1;
	}
	for (;;) { /* delete in rounds: iterating while deleting skips entries */
		uint64_t dead[256];
		unsigned nd = 0;
		const void *k;
		void *d;
		uint32_t it = 0;
		while (rte_hash_count(macs) && rte_hash_iterate(macs, &k, &d, &it) >= 0 &&
		       nd < RTE_DIM(dead))
			if (DATA_PORT((uintptr_t)d) == f->port)
				dead[nd++] = *(const uint64_t *)k;
		for (unsigned i = 0; i < nd; i++)
			rte_hash_del_key(macs, &dead[i]);
		if (nd < RTE_DIM(dead))
			return 0;
	}
}
RTE_INIT(bridge_busy_init)
{
	sl_iface_busy_register(bridge_busy);
}

/* set interface l3 and the other modes call this when an interface leaves its domain */
void sl_l2_bridge_left(struct sl_iface *f, uint16_t bd)
{
	if (!bd || !bds[bd].used)
		return;
	members_publish(bd);
	uint64_t key = mkkey(bd, &f->mac);
	void *d;
	if (rte_hash_lookup_data(macs, &key, &d) >= 0 && DATA_PORT((uintptr_t)d) == f->port &&
	    ((uintptr_t)d & DATA_STATIC))
		rte_hash_del_key(macs, &key); /* a BVI's own MAC */
}

static int cmd_l2fib(struct sl_out *o, int argc, char **argv)
{
	const char *usage = "usage: l2fib add MAC N IFACE [static] | l2fib del MAC N";
	struct rte_ether_addr a;
	uint32_t id;
	char why[128];
	if (argc < 3 || (strcmp(argv[0], "add") && strcmp(argv[0], "del")))
		return sl_out_error(o, "%s", usage);
	if (sl_arg_mac(o, argv[1], a.addr_bytes) ||
	    sl_arg_u32(o, "bridge-domain", argv[2], 1, BD_MAX - 1, &id))
		return -1;
	if (argv[0][0] == 'd') {
		if (argc != 3)
			return sl_out_error(o, "%s", usage);
		if (sl_l2_fib_del((uint16_t)id, &a, why, sizeof(why)))
			return sl_out_error(o, "%s: %s", argv[1], why);
		return 0;
	}
	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "static")))
		return sl_out_error(o, "%s", usage);
	struct sl_iface *f = sl_iface_by_name(argv[3]);
	if (!f && bds[id].used)
		return sl_out_error(o, "unknown interface '%s'", argv[3]);
	if (sl_l2_fib_add((uint16_t)id, &a, f ? f->port : 0, argc == 5, why, sizeof(why)))
		return sl_out_error(o, "%s: %s", argv[1], why);
	return 0;
}
SL_CLI_COMMAND(l2fib, .path = "l2fib", .usage = "add MAC N IFACE [static] | del MAC N",
	       .help = "add or delete a MAC in a bridge domain's table", .fn = cmd_l2fib)

static int cmd_show_bd(struct sl_out *o, int argc, char **argv)
{
	uint32_t only = 0;
	bool detail = argc == 2 && !strcmp(argv[1], "detail");
	if (argc > 2 || (argc == 2 && !detail))
		return sl_out_error(o, "usage: show bridge-domain [N [detail]]");
	if (argc >= 1 && sl_arg_u32(o, "bridge-domain", argv[0], 1, BD_MAX - 1, &only))
		return -1;
	if (only && !bds[only].used)
		return sl_out_error(o, "bridge-domain %u does not exist", only);
	uint32_t count[BD_MAX] = {0};
	const void *k;
	void *d;
	uint32_t it = 0;
	while (rte_hash_iterate(macs, &k, &d, &it) >= 0)
		count[*(const uint64_t *)k >> 48]++;
	sl_tbl_begin(o, "bridge-domains", 7,
		     (const char *[]){"id:u", "learn", "flood", "uu-flood", "age-minutes:u",
				      "members", "macs:u"});
	for (uint32_t b = 1; b < BD_MAX; b++) {
		if (!bds[b].used || (only && b != only))
			continue;
		char v[4][32], mem[512] = "";
		snprintf(v[0], 32, "%u", b);
		snprintf(v[1], 32, "%g", bds[b].age_min);
		snprintf(v[2], 32, "%u", count[b]);
		const struct bd_members *m = bds[b].members;
		for (uint16_t j = 0; m && j < m->n; j++)
			snprintf(mem + strlen(mem), sizeof(mem) - strlen(mem), "%s%s", j ? " " : "",
				 sl_ifaces[m->port[j]].name);
		sl_tbl_row(o, v[0], bds[b].learn ? "on" : "off", bds[b].flood ? "on" : "off",
			   bds[b].uu_flood ? "on" : "off", v[1], mem, v[2]);
	}
	sl_tbl_end(o);
	if (!detail)
		return 0;
	sl_tbl_begin(o, "macs", 4, (const char *[]){"mac", "interface", "type", "age-seconds:u"});
	it = 0;
	while (rte_hash_iterate(macs, &k, &d, &it) >= 0) {
		uint64_t key = *(const uint64_t *)k, v = (uintptr_t)d;
		if (key >> 48 != only)
			continue;
		struct rte_ether_addr a;
		memcpy(&a, &key, 6);
		char mac[RTE_ETHER_ADDR_FMT_SIZE], age[16];
		snprintf(mac, sizeof(mac), RTE_ETHER_ADDR_PRT_FMT, RTE_ETHER_ADDR_BYTES(&a));
		for (char *c = mac; *c; c++) /* lower case, as VPP and ip neighbor print it */
			*c = (char)tolower((unsigned char)*c);
		snprintf(age, sizeof(age), "%u", l2_now - DATA_SEEN(v));
		sl_tbl_row(o, mac, sl_ifaces[DATA_PORT(v)].name,
			   v & DATA_STATIC ? "static" : "dynamic", age);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_bd, .path = "show bridge-domain", .usage = "[N [detail]]",
	       .help = "bridge domains: settings, members, MAC count; detail: the MAC table",
	       .fn = cmd_show_bd)

SL_MODULE_REGISTER(l2_module, .name = "l2 (MAC table, learning, aging)", .init = l2_init,
		   .poll = l2_poll, .fini = l2_fini)
