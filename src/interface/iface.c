/* SPDX-License-Identifier: BSD-3-Clause */
/* Interfaces, control side: port start-up, logical interfaces (create, delete, names,
 * VLAN sub-interface table), state, MTU, rx placement, and their CLI. */
#include "iface.h"
#include "../cli/cli.h"
#include "../runtime/runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

struct sl_iface sl_ifaces[SL_IF_MAX];
struct sl_if_fast sl_if_fast[SL_IF_MAX] __rte_cache_aligned;
uint32_t sl_if_hwm;

unsigned sl_if_slot_register(const char *owner)
{
	static unsigned used;
	if (used == SL_IF_SLOTS)
		rte_panic("%s: no sl_if_fast slot left (SL_IF_SLOTS %u)\n", owner, SL_IF_SLOTS);
	return used++;
}

static void (*watchers[4])(uint16_t ifx);
static unsigned nb_watchers;

void sl_iface_watch(void (*fn)(uint16_t ifx))
{
	RTE_VERIFY(nb_watchers < RTE_DIM(watchers));
	watchers[nb_watchers++] = fn;
}

static void fast_changed(uint16_t ifx)
{
	for (unsigned i = 0; i < nb_watchers; i++)
		watchers[i](ifx);
}

/* Where senders send interface f's packets, in both copies (sl_if_fast). */
static void tx_slot_set(struct sl_iface *f, uint16_t slot)
{
	__atomic_store_n(&f->tx_slot, slot, __ATOMIC_RELEASE);
	__atomic_store_n(&sl_if_fast[f->port].tx_slot, slot, __ATOMIC_RELEASE);
	fast_changed(f->port);
}

const char *const sl_if_type_names[SL_IF_NB_TYPES] = {"port", "sub", "bvi", "loopback", "pg",
							  "vxlan", "gre", "ipip", "mplsudp",
							  "mplsgre", "mpls-tunnel", "pppoe",
							  "ipoe", "vxlan6", "gre6",
							  "ipip6", "mplsudp6", "mplsgre6"};
static uint16_t nb_graphs_cfg;
struct rte_ring *sl_inject_ring;
static struct rte_hash *sub_hash; /* VLAN sub-interfaces by parent and tags */

/* Names: a chained hash of indexes (control only; 0 ends a chain, so entries hold i + 1). */
#define NAME_BUCKETS (1u << 16)
static uint32_t name_head[NAME_BUCKETS], name_next[SL_IF_MAX];

static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h & (NAME_BUCKETS - 1);
}

struct sl_iface *sl_iface_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (uint32_t e = name_head[name_hash(name)]; e; e = name_next[e - 1])
		if (sl_ifaces[e - 1].used && !strcmp(sl_ifaces[e - 1].name, name))
			return &sl_ifaces[e - 1];
	return NULL;
}

static void name_link(uint32_t i)
{
	uint32_t h = name_hash(sl_ifaces[i].name);
	name_next[i] = name_head[h];
	name_head[h] = i + 1;
	if (i + 1 > sl_if_hwm)
		sl_if_hwm = i + 1;
}

static void name_unlink(uint32_t i)
{
	for (uint32_t *e = &name_head[name_hash(sl_ifaces[i].name)]; *e; e = &name_next[*e - 1])
		if (*e == i + 1) {
			*e = name_next[i];
			return;
		}
}

static int port_start(struct sl_iface *ifc, struct rte_mempool *mp, struct rte_ether_addr *mac)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf = {0};
	uint16_t p = ifc->port;
	int rc = rte_eth_dev_info_get(p, &info);
	if (rc)
		return rc;
	snprintf(ifc->driver, sizeof(ifc->driver), "%s", info.driver_name);
	if (ifc->nb_rxq > info.max_rx_queues) {
		fprintf(stderr, "sluiced: %s: wants %u rx queues, device has %u\n", ifc->name,
			ifc->nb_rxq, info.max_rx_queues);
		return -EINVAL;
	}
	/* like VPP: with fewer TX queues than workers, workers share them under a lock */
	if (ifc->nb_txq > info.max_tx_queues)
		ifc->nb_txq = info.max_tx_queues;
	ifc->tx_shared = ifc->nb_txq < nb_graphs_cfg;
	for (int q = 0; q < SL_MAX_WORKERS; q++)
		rte_spinlock_init(&ifc->txq_lock[q]);
	if (ifc->nb_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) &
			info.flow_type_rss_offloads;
		if (conf.rx_adv_conf.rss_conf.rss_hf) /* before its first packet */
			__atomic_store_n(&sl_flow_rss, true, __ATOMIC_RELEASE);
	}
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	if ((rc = rte_eth_dev_configure(p, ifc->nb_rxq, ifc->nb_txq, &conf)))
		return rc;
	if ((rc = rte_eth_dev_adjust_nb_rx_tx_desc(p, &ifc->nb_rxd, &ifc->nb_txd)))
		return rc;
	int sock = rte_eth_dev_socket_id(p);
	for (uint16_t q = 0; q < ifc->nb_rxq; q++)
		if ((rc = rte_eth_rx_queue_setup(p, q, ifc->nb_rxd, sock, NULL, mp)))
			return rc;
	struct rte_eth_txconf txc = info.default_txconf;
	txc.offloads = conf.txmode.offloads;
	for (uint16_t q = 0; q < ifc->nb_txq; q++)
		if ((rc = rte_eth_tx_queue_setup(p, q, ifc->nb_txd, sock, &txc)))
			return rc;
	rte_eth_macaddr_get(p, &ifc->mac);
	if (mac) {
		/* drivers that cannot change it (pcap, null) still get it in software: the graph
		 * reads ifc->mac, and the port is promiscuous */
		rc = rte_eth_dev_default_mac_addr_set(p, mac);
		if (rc && rc != -ENOTSUP)
			return rc;
		ifc->mac = *mac;
	}
	uint16_t mtu = 1500;
	rte_eth_dev_get_mtu(p, &mtu);
	sl_iface_set_mtu(p, mtu);
	rte_eth_promiscuous_enable(p);
	return rte_eth_dev_start(p);
}

int sl_iface_init(const struct sl_config *c, struct rte_mempool *mp, uint16_t nb_graphs)
{
	nb_graphs_cfg = nb_graphs;
	sl_inject_ring = rte_ring_create("sl_inject", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (!sl_inject_ring)
		return -ENOMEM;
	struct rte_hash_parameters hp = {
		.name = "sl_subifs", .entries = SL_IF_MAX, .key_len = sizeof(uint64_t),
		.hash_func = rte_hash_crc, .socket_id = SOCKET_ID_ANY,
		/* readers never lock; a deleted slot is freed after a grace period */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_NO_FREE_ON_DEL,
	};
	if (!(sub_hash = rte_hash_create(&hp)))
		return -ENOMEM;
	for (int i = 0; i < c->nb_devs; i++) {
		const struct sl_cfg_dev *d = &c->devs[i];
		char dname[SL_CFG_STR];
		snprintf(dname, sizeof(dname), "%s", d->devargs);
		char *comma = strchr(dname, ',');
		if (comma)
			*comma = 0;
		uint16_t port;
		if (rte_eth_dev_get_port_by_name(dname, &port)) {
			fprintf(stderr, "sluiced: device '%s' has no port: its driver is missing or "
				"could not open it (the EAL's log says why)\n", dname);
			return -ENODEV;
		}
		if (port >= SL_MAX_PORTS)
			return -ERANGE;
		struct sl_iface *ifc = &sl_ifaces[port];
		if (ifc->used) {
			fprintf(stderr, "sluiced: device '%s' given twice\n", dname);
			return -EEXIST;
		}
		char name[sizeof(ifc->name)];
		if (d->name[0])
			snprintf(name, sizeof(name), "%s", d->name);
		else
			snprintf(name, sizeof(name), "port%u", port);
		if (sl_iface_by_name(name)) {
			fprintf(stderr, "sluiced: interface name '%s' used twice\n", name);
			return -EEXIST;
		}
		ifc->used = true;
		ifc->type = SL_IF_PORT;
		ifc->port = port;
		ifc->memif_client = strncmp(d->devargs, "net_memif", 9) == 0 &&
				    (strstr(d->devargs, "role=client") || strstr(d->devargs, "role=slave"));
		ifc->out_slot = sl_if_fast[port].out_slot = (uint16_t)SL_TX_SLOT_PORT(port);
		tx_slot_set(ifc, ifc->out_slot);
		ifc->peer = port;
		memcpy(ifc->name, name, sizeof(name));
		name_link(port);
		ifc->nb_rxq = d->nb_rxq ? d->nb_rxq : 1;
		ifc->nb_txq = d->nb_txq ? RTE_MIN(d->nb_txq, nb_graphs) : nb_graphs;
		ifc->nb_rxd = d->nb_rxd ? d->nb_rxd : 1024;
		ifc->nb_txd = d->nb_txd ? d->nb_txd : 1024;
		for (uint16_t q = 0; q < ifc->nb_rxq; q++)
			ifc->rxq_worker[q] = (uint8_t)((port + q) % nb_graphs);
		struct rte_ether_addr mac;
		if (d->mac[0] && rte_ether_unformat_addr(d->mac, &mac)) {
			fprintf(stderr, "sluiced: %s: bad mac-address %s\n", ifc->name, d->mac);
			return -EINVAL;
		}
		int rc = port_start(ifc, mp, d->mac[0] ? &mac : NULL);
		if (rc) {
			fprintf(stderr, "sluiced: %s: cannot start port: %s\n", ifc->name,
				strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static struct sl_if_counters if_raw(uint32_t p);

/* After the workers stop: every interface's counters since start, on stdout, then close. */
void sl_iface_fini(void)
{
	for (uint32_t i = 0; i < sl_if_hwm; i++)
		if (sl_ifaces[i].used) {
			struct sl_if_counters c = if_raw(i);
			printf("sluiced: %s: rx %" PRIu64 " packets, tx %" PRIu64 " packets, drops %"
			       PRIu64 ", tx-error %" PRIu64 "\n", sl_ifaces[i].name, c.rx_pkts, c.tx_pkts,
			       c.drops, c.tx_error);
			if (sl_ifaces[i].type == SL_IF_PORT) {
				rte_eth_dev_stop((uint16_t)i);
				rte_eth_dev_close((uint16_t)i);
			}
			sl_ifaces[i].used = false;
		}
	rte_hash_free(sub_hash);
	sub_hash = NULL;
}

int sl_iface_publish_rx(void)
{
	struct sl_rxq_list *old[SL_MAX_WORKERS];
	for (uint16_t w = 0; w < sl_nb_workers; w++) {
		struct sl_rxq_list *l = rte_zmalloc("rxqs", sizeof(*l), RTE_CACHE_LINE_SIZE);
		if (!l)
			return -ENOMEM;
		for (int p = 0; p < SL_MAX_PORTS; p++)
			for (uint16_t q = 0; sl_ifaces[p].used && q < sl_ifaces[p].nb_rxq; q++)
				if (sl_ifaces[p].rxq_worker[q] == w)
					l->q[l->n++] = (struct sl_rxq){.port = p, .queue = q};
		old[w] = sl_workers[w].rxqs;
		__atomic_store_n(&sl_workers[w].rxqs, l, __ATOMIC_RELEASE);
	}
	for (uint16_t w = 0; w < sl_nb_workers; w++)
		if (old[w])
			sl_rcu_retire(sl_rcu_rte_free, old[w], 0);
	return 0;
}

static const char *const inject_reasons[] = {"main-lcore frames dropped: inject ring full"};
static uint16_t inject_err;
RTE_INIT(inject_errors)
{
	inject_err = sl_error_register("interface-output", inject_reasons, 1);
}

int sl_iface_inject(struct rte_mbuf *m, uint16_t port)
{
	sl_meta(m)->tx_if = port;
	if (rte_ring_mp_enqueue(sl_inject_ring, m)) {
		sl_main_ctx->errors[inject_err]++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	return 0;
}

/* Each type's output node (slot t), the interface-output arc, then port-tx-P. */
static const char *type_out[SL_IF_NB_TYPES];

void sl_iface_output_register(enum sl_if_type t, const char *node_name)
{
	RTE_VERIFY(t > SL_IF_PORT && t < SL_IF_NB_TYPES && !type_out[t]);
	type_out[t] = node_name;
}

/* Nodes with an edge to each type's output node and to port-tx-P for every port P. */
static struct {
	const char *node;
	rte_edge_t *first;      /* the node's variable, set when its edges are first added */
	rte_node_t id;          /* RTE_NODE_ID_INVALID until then */
	uint16_t n;             /* ports it has an edge to */
} tx_users[32];
static int nb_tx_users;

void sl_iface_tx_user(const char *node_name, rte_edge_t *first)
{
	RTE_VERIFY(nb_tx_users < (int)RTE_DIM(tx_users));
	tx_users[nb_tx_users++] = (typeof(tx_users[0])){.node = node_name, .first = first,
							 .id = RTE_NODE_ID_INVALID};
}

void sl_iface_sync_tx_edges(void)
{
	for (int u = 0; u < nb_tx_users; u++) {
		if (tx_users[u].id == RTE_NODE_ID_INVALID) {
			tx_users[u].id = rte_node_from_name(tx_users[u].node);
			RTE_VERIFY(tx_users[u].id != RTE_NODE_ID_INVALID);
			*tx_users[u].first = rte_node_edge_count(tx_users[u].id);
			for (int t = 0; t < SL_IF_NB_TYPES; t++) {
				/* a port's slot is its port-tx; a type without output (or whose
				 * output is this node: a sub-interface's parent is a port) drops */
				const char *o = type_out[t];
				const char *nn[] = {o && strcmp(o, tx_users[u].node) ? o : "error-drop"};
				rte_node_edge_update(tx_users[u].id, RTE_EDGE_ID_INVALID, nn, 1);
			}
			const char *arc[] = {strcmp(tx_users[u].node, "interface-output-features")
						     ? "interface-output-features"
						     : "error-drop"};
			rte_node_edge_update(tx_users[u].id, RTE_EDGE_ID_INVALID, arc, 1);
			const struct sl_arc *a = &sl_arcs[SL_ARC_INTERFACE_OUTPUT];
			for (uint8_t k = 0; k < SL_ARC_MAX_FEATS; k++) {
				const char *fn = k < a->nfeat ? a->feat[k].node : NULL;
				bool own = fn && (!strcmp(fn, tx_users[u].node) ||
						  (a->feat[k].also &&
						   !strcmp(a->feat[k].also, tx_users[u].node)));
				const char *nn[] = {fn && !own ? fn : "error-drop"};
				rte_node_edge_update(tx_users[u].id, RTE_EDGE_ID_INVALID, nn, 1);
			}
		}
		for (int p = tx_users[u].n; p < SL_MAX_PORTS && sl_ifaces[p].used; p++) {
			char name[RTE_NODE_NAMESIZE];
			snprintf(name, sizeof(name), "port-tx-%d", p);
			const char *nn[] = {name};
			if (rte_node_from_name(name) == RTE_NODE_ID_INVALID)
				break;
			rte_node_edge_update(tx_users[u].id, RTE_EDGE_ID_INVALID, nn, 1);
			tx_users[u].n++;
		}
	}
}

/* The interface-output arc: on, senders write meta->tx_if before any of them sends to the
 * arc (which reads it); off, no sender sends to the arc before they may stop writing it. */
void sl_iface_out_features(uint16_t ifx, uint8_t mask, uint8_t old)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	bool meta = f->type != SL_IF_PORT;
	if (mask) {
		if (!old) {
			__atomic_store_n(&f->tx_meta, true, __ATOMIC_RELEASE);
			sl_rcu_sync();
		}
		tx_slot_set(f, (uint16_t)SL_TX_SLOT_FEAT(__builtin_ctz(mask)));
	} else if (old) {
		tx_slot_set(f, f->out_slot);
		sl_rcu_sync();
		__atomic_store_n(&f->tx_meta, meta, __ATOMIC_RELEASE);
	}
}

/* ---------------- logical interfaces ---------------- */

static uint32_t free_idx[SL_IF_MAX - SL_IF_FIRST_LOGICAL], nb_free;
static uint32_t next_idx = SL_IF_FIRST_LOGICAL;
static sl_iface_busy_fn busy_fns[16];
static int nb_busy_fns;
static struct sl_if_counters if_base[SL_IF_MAX];

void sl_iface_busy_register(sl_iface_busy_fn fn)
{
	RTE_VERIFY(nb_busy_fns < (int)RTE_DIM(busy_fns));
	busy_fns[nb_busy_fns++] = fn;
}

int sl_iface_create(enum sl_if_type t, const char *name, const struct rte_ether_addr *mac,
		    struct sl_iface **out)
{
	if (t == SL_IF_PORT || t >= SL_IF_NB_TYPES || strlen(name) >= sizeof(sl_ifaces[0].name))
		return -EINVAL;
	if (sl_iface_by_name(name))
		return -EEXIST;
	uint32_t i;
	if (nb_free)
		i = free_idx[--nb_free]; /* the most recently freed: its pages are warm */
	else if (next_idx < SL_IF_MAX)
		i = next_idx++;
	else
		return -ENOSPC;
	struct sl_iface *f = &sl_ifaces[i];
	memset(f, 0, sizeof(*f));
	f->type = (uint8_t)t;
	/* no feature or type has data for it yet (the last user's went with it) */
	memset(sl_if_fast[i].slot, 0, sizeof(sl_if_fast[i].slot));
	memset(sl_if_fast[i].type, 0, sizeof(sl_if_fast[i].type));
	f->out_slot = sl_if_fast[i].out_slot = (uint16_t)t;
	f->tx_meta = true;
	f->port = (uint16_t)i;
	tx_slot_set(f, f->out_slot);
	sl_iface_set_up(f->port, false);
	sl_iface_set_mtu(f->port, 1500);
	f->peer = (uint16_t)i;
	f->virt = true;
	f->nb_txq = 1;
	f->rxq_worker[0] = SL_NO_WORKER;
	if (mac)
		f->mac = *mac;
	snprintf(f->name, sizeof(f->name), "%s", name);
	if_base[i] = if_raw(i); /* an index used before keeps its workers' counts: start at 0 */
	f->used = true;
	name_link(i);
	*out = f;
	return 0;
}

int sl_iface_delete(struct sl_iface *f, char *why, size_t len)
{
	if (!f->used)
		return -ENOENT;
	if (f->type == SL_IF_PORT) {
		snprintf(why, len, "%s is a DPDK port", f->name);
		return -EPERM;
	}
	if (f->nb_subs) {
		snprintf(why, len, "%s has %u sub-interfaces", f->name, f->nb_subs);
		return -EBUSY;
	}
	for (uint32_t i = 0; i < sl_if_hwm; i++) {
		const struct sl_iface *o = &sl_ifaces[i];
		if (o->used && o != f && o->mode != SL_MODE_L3 && o->mode != SL_MODE_BRIDGE &&
		    o->peer == f->port) {
			snprintf(why, len, "%s forwards to it (set interface l3 %s)", o->name, o->name);
			return -EBUSY;
		}
	}
	for (int k = 0; k < nb_busy_fns; k++)
		if (busy_fns[k](f, false, why, len))
			return -EBUSY;
	sl_iface_set_up(f->port, false);
	for (int k = 0; k < nb_busy_fns; k++)
		busy_fns[k](f, true, why, len);
	int32_t pos = -1;
	if (f->type == SL_IF_SUB) {
		pos = rte_hash_del_key(sub_hash, &(uint64_t){sl_iface_sub_key(f)});
		sl_ifaces[f->parent].nb_subs--;
	}
	/* every walk that may have seen it (or a packet received on it) ends first */
	sl_rcu_sync();
	if (pos >= 0)
		rte_hash_free_key_with_position(sub_hash, pos);
	uint32_t i = f->port;
	name_unlink(i);
	memset(f, 0, sizeof(*f));
	memset(sl_if_fast[i].type, 0, sizeof(sl_if_fast[i].type)); /* read by no walk now */
	free_idx[nb_free++] = i;
	return 0;
}

/* The sub-interface table's key: parent, TPID (802.1ad or 802.1Q), outer and inner VLAN. */
static inline uint64_t sub_key(uint16_t parent, uint16_t tpid, uint16_t vid, uint16_t inner)
{
	return (uint64_t)parent << 32 | (uint64_t)(tpid == RTE_ETHER_TYPE_QINQ) << 24 |
	       (uint64_t)(vid & 0xfff) << 12 | (inner & 0xfff);
}

uint64_t sl_iface_sub_key(const struct sl_iface *f)
{
	return sub_key(f->parent, f->tpid, f->vid, f->inner_vid);
}

uint16_t sl_iface_sub_find(uint16_t parent, uint16_t tpid, uint16_t vid, uint16_t inner)
{
	void *d;
	uint64_t k = sub_key(parent, tpid, vid, inner);
	if (rte_hash_lookup_data(sub_hash, &k, &d) < 0)
		return UINT16_MAX;
	return (uint16_t)(uintptr_t)d;
}

int sl_iface_sub_create(struct sl_iface *p, uint32_t id, uint16_t tpid, uint16_t vid,
			uint16_t inner, struct sl_iface **out)
{
	if (p->type != SL_IF_PORT && p->type != SL_IF_PG)
		return -EINVAL;
	uint64_t k = sub_key(p->port, tpid, vid, inner);
	if (rte_hash_lookup(sub_hash, &k) >= 0)
		return -EADDRINUSE;
	char name[80];
	if (snprintf(name, sizeof(name), "%s.%u", p->name, id) >= (int)sizeof(p->name))
		return -ENAMETOOLONG;
	struct sl_iface *f;
	int rc = sl_iface_create(SL_IF_SUB, name, &p->mac, &f);
	if (rc)
		return rc;
	f->parent = p->port;
	f->tpid = tpid;
	f->vid = vid;
	f->inner_vid = inner;
	sl_iface_set_mtu(f->port, p->mtu);
	if ((rc = rte_hash_add_key_data(sub_hash, &k, (void *)(uintptr_t)f->port))) {
		char why[8];
		f->nb_subs = 0;
		sl_iface_delete(f, why, sizeof(why));
		return rc;
	}
	p->nb_subs++;
	*out = f;
	return 0;
}

/* ---------------- CLI ---------------- */

/* Workers own their counters: "clear interfaces" records a baseline (if_base) instead. */
static struct sl_if_counters if_counters(uint32_t p);
static struct sl_if_counters if_raw(uint32_t p)
{
	struct sl_if_counters t = {0};
	for (int w = 0; w <= SL_MAX_WORKERS; w++) {
		const struct sl_if_counters *c = &sl_workers[w].ifc[p];
		t.rx_pkts += c->rx_pkts;
		t.rx_bytes += c->rx_bytes;
		t.tx_pkts += c->tx_pkts;
		t.tx_bytes += c->tx_bytes;
		t.drops += c->drops;
		t.tx_error += c->tx_error;
		t.punts += c->punts;
	}
	return t;
}

struct sl_if_counters sl_iface_counters(uint16_t ifx)
{
	return if_counters(ifx);
}

static struct sl_if_counters if_counters(uint32_t p)
{
	struct sl_if_counters t = if_raw(p), b = if_base[p];
	t.rx_pkts -= b.rx_pkts;
	t.rx_bytes -= b.rx_bytes;
	t.tx_pkts -= b.tx_pkts;
	t.tx_bytes -= b.tx_bytes;
	t.drops -= b.drops;
	t.tx_error -= b.tx_error;
	t.punts -= b.punts;
	return t;
}

static void u64s(char *b, uint64_t v)
{
	sprintf(b, "%" PRIu64, v);
}

static int cmd_show_interface(struct sl_out *o, int argc, char **argv)
{
	bool addr = argc > 0 && !strcmp(argv[0], "address");
	struct sl_iface *only = NULL;
	if (argc > 0 && !addr && !(only = sl_iface_by_name(argv[0])))
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (addr) {
		sl_tbl_begin(o, "addresses", 3, (const char *[]){"name", "state", "address"});
		for (uint32_t p = 0; p < sl_if_hwm; p++) {
			struct sl_iface *f = &sl_ifaces[p];
			if (!f->used)
				continue;
			if (f->naddr == 0)
				sl_tbl_row(o, f->name, f->up ? "up" : "down", "");
			for (int a = 0; a < f->naddr; a++) {
				char ip[32], s[40];
				sl_fmt_ip4(ip, f->addrs[a]);
				snprintf(s, sizeof(s), "%s/%u", ip, f->plens[a]);
				sl_tbl_row(o, f->name, f->up ? "up" : "down", s);
			}
		}
		sl_tbl_end(o);
		return 0;
	}
	static const char *cols[] = {"name",     "idx:u",      "type",       "state",
				     "mtu:u",    "mode",       "rx-packets:u", "rx-bytes:u",
				     "tx-packets:u", "tx-bytes:u", "drops:u",  "punt:u",
				     "tx-error:u", "rx-miss:u", "rx-error:u"};
	sl_tbl_begin(o, "interfaces", 15, cols);
	for (uint32_t p = only ? only->port : 0; p < (only ? only->port + 1u : sl_if_hwm); p++) {
		struct sl_iface *f = &sl_ifaces[p];
		if (!f->used)
			continue;
		struct rte_eth_stats st = {0};
		if (f->type == SL_IF_PORT)
			rte_eth_stats_get((uint16_t)p, &st);
		struct sl_if_counters c = if_counters(p);
		char v[11][24];
		sprintf(v[0], "%u", p);
		sprintf(v[1], "%u", f->mtu);
		u64s(v[2], c.rx_pkts);
		u64s(v[3], c.rx_bytes);
		u64s(v[4], c.tx_pkts);
		u64s(v[5], c.tx_bytes);
		u64s(v[6], c.drops);
		u64s(v[7], c.punts);
		u64s(v[8], c.tx_error + st.oerrors);
		u64s(v[9], st.imissed);
		u64s(v[10], st.ierrors + st.rx_nombuf);
		char mode[96], to[80] = "";
		if (f->mode == SL_MODE_BRIDGE)
			snprintf(to, sizeof(to), " %u", f->bd);
		else if (f->bvi)
			snprintf(to, sizeof(to), " (bvi of bridge-domain %u)", f->bd);
		else if (f->mode != SL_MODE_L3)
			snprintf(to, sizeof(to), " -> %s", sl_ifaces[f->peer].name);
		snprintf(mode, sizeof(mode), "%s%s%s", sl_mode_names[f->mode], to,
			 f->noisy ? " +noisy" : "");
		sl_tbl_row(o, f->name, v[0], sl_if_type_names[f->type], f->up ? "up" : "down", v[1],
			   mode, v[2], v[3], v[4],
			   v[5], v[6], v[7], v[8], v[9], v[10]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_interface, .path = "show interface", .usage = "[IFACE | address]",
	       .help = "interface state and counters", .fn = cmd_show_interface)

static int cmd_show_hardware(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "hardware", 10,
		     (const char *[]){"name", "port:u", "driver", "mac", "link", "speed:u",
				      "rx-queues:u", "tx-queues:u", "numa:s", "reconnects:u"});
	for (int p = 0; p < SL_MAX_PORTS; p++) {
		struct sl_iface *f = &sl_ifaces[p];
		if (!f->used || f->type != SL_IF_PORT)
			continue;
		struct rte_eth_link link = {0};
		rte_eth_link_get_nowait(p, &link);
		char mac[RTE_ETHER_ADDR_FMT_SIZE], v[6][16];
		rte_ether_format_addr(mac, sizeof(mac), &f->mac);
		sprintf(v[0], "%d", p);
		sprintf(v[1], "%u", link.link_speed);
		sprintf(v[2], "%u", f->nb_rxq);
		sprintf(v[3], "%u", f->nb_txq);
		sprintf(v[4], "%d", rte_eth_dev_socket_id(p));
		sprintf(v[5], "%u", f->reconnects);
		sl_tbl_row(o, f->name, v[0], f->driver, mac, link.link_status ? "up" : "down", v[1],
			   v[2], v[3], v[4], v[5]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_hardware, .path = "show hardware", .usage = "",
	       .help = "driver, MAC, link and queues of each port, and how often a memif client "
		       "port was restarted to connect again",
	       .fn = cmd_show_hardware)

/* ---------------- a memif client's server gone ---------------- */

/* DPDK 22.11's memif client does not connect again once its server went (VPP's memif does).
 * A memif client port that is up and whose link has been down for a second is paused
 * (port-rx and port-tx leave it alone; a grace period lets the bursts on it end), stopped
 * and started again, which connects it anew; the pause ends when the start succeeds (its
 * link comes up once the server answers). A start that fails (no server yet) leaves it
 * paused and stopped: the next second tries again. */
static void reconnect_tick(uint64_t now)
{
	const uint64_t hz = rte_get_tsc_hz();
	for (uint32_t p = 0; p < sl_if_hwm && p < SL_MAX_PORTS; p++) {
		struct sl_iface *f = &sl_ifaces[p];
		if (!f->used || f->type != SL_IF_PORT || !f->memif_client || !f->up)
			continue;
		struct rte_eth_link link;
		if (!f->retry_at || (!f->paused && rte_eth_link_get_nowait((uint16_t)p, &link) == 0 &&
				     link.link_status == RTE_ETH_LINK_UP)) {
			f->retry_at = now + hz;
			continue;
		}
		if (now < f->retry_at)
			continue;
		f->retry_at = now + hz; /* a start that succeeded: its handshake's second */
		__atomic_store_n(&f->paused, 1, __ATOMIC_RELEASE);
		sl_rcu_sync();
		rte_eth_dev_stop((uint16_t)p);
		if (rte_eth_dev_start((uint16_t)p) == 0) {
			f->reconnects++;
			__atomic_store_n(&f->paused, 0, __ATOMIC_RELEASE);
		}
	}
}
SL_MODULE_REGISTER(reconnect_module, .name = "memif reconnect", .tick = reconnect_tick)

/* ---------------- control ---------------- */

void sl_iface_set_up(uint16_t ifx, bool up)
{
	__atomic_store_n(&sl_ifaces[ifx].up, up, __ATOMIC_RELEASE);
	__atomic_store_n(&sl_if_fast[ifx].up, up, __ATOMIC_RELEASE);
}

void sl_iface_set_mtu(uint16_t ifx, uint16_t mtu)
{
	__atomic_store_n(&sl_ifaces[ifx].mtu, mtu, __ATOMIC_RELEASE);
	__atomic_store_n(&sl_if_fast[ifx].mtu, mtu, __ATOMIC_RELEASE);
	fast_changed(ifx);
}

uint32_t sl_if_fast_check(void)
{
	for (uint32_t i = 0; i < sl_if_hwm; i++) {
		const struct sl_iface *f = &sl_ifaces[i];
		const struct sl_if_fast *c = &sl_if_fast[i];
		if (f->used && (c->tx_slot != f->tx_slot || c->mtu != f->mtu || c->up != f->up ||
				c->out_slot != f->out_slot))
			return i + 1;
	}
	return 0;
}

int sl_iface_place_rxq(uint16_t ifx, uint16_t q, uint16_t w, char *why, size_t len)
{
	struct sl_iface *f = &sl_ifaces[ifx];
	if (f->virt) {
		snprintf(why, len, "%s has no rx queues to place", f->name);
		return -EINVAL;
	}
	if (q >= f->nb_rxq || w >= sl_nb_workers) {
		snprintf(why, len, "%s has queues 0-%u, and the workers are 0-%u", f->name,
			 f->nb_rxq - 1, sl_nb_workers - 1);
		return -ERANGE;
	}
	uint8_t old = f->rxq_worker[q];
	f->rxq_worker[q] = (uint8_t)w;
	if (sl_iface_publish_rx()) {
		f->rxq_worker[q] = old;
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* ---------------- CLI ---------------- */

static int cmd_set_state(struct sl_out *o, int argc, char **argv)
{
	struct sl_iface *f = argc > 0 ? sl_iface_by_name(argv[0]) : NULL;
	if (argc < 1)
		return sl_out_error(o, "usage: set interface state IFACE up|down");
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (argc != 2 || (strcmp(argv[1], "up") && strcmp(argv[1], "down")))
		return sl_out_error(o, "usage: set interface state IFACE up|down");
	sl_iface_set_up(f->port, argv[1][0] == 'u');
	return 0;
}
SL_CLI_COMMAND(set_state, .path = "set interface state", .usage = "IFACE up|down",
	       .help = "admin state of an interface", .fn = cmd_set_state)

static int cmd_set_mtu(struct sl_out *o, int argc, char **argv)
{
	uint32_t mtu;
	if (argc != 2)
		return sl_out_error(o, "usage: set interface mtu [packet] MTU IFACE");
	struct sl_iface *f = sl_iface_by_name(argv[1]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[1]);
	if (sl_arg_u32(o, "MTU", argv[0], 68, 9000, &mtu))
		return -1;
	sl_iface_set_mtu(f->port, (uint16_t)mtu);
	return 0;
}
SL_CLI_COMMAND(set_mtu, .path = "set interface mtu", .usage = "MTU IFACE",
	       .help = "IPv4 MTU used by ip4-rewrite (software check)", .fn = cmd_set_mtu)

static int cmd_show_placement(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sl_tbl_begin(o, "rx-placement", 4,
		     (const char *[]){"interface", "queue:u", "worker:u", "longest-gap-us:u"});
	for (int p = 0; p < SL_MAX_PORTS; p++)
		for (uint16_t q = 0; sl_ifaces[p].used && !sl_ifaces[p].virt && q < sl_ifaces[p].nb_rxq;
		     q++) {
			char qs[8], ws[8], gap[32];
			uint16_t w = sl_ifaces[p].rxq_worker[q];
			sprintf(qs, "%u", q);
			sprintf(ws, "%u", w);
			/* the longest time between two polls, from the worker's list (which only
			 * this lcore replaces) */
			uint64_t g = 0;
			const struct sl_rxq_list *l = w < sl_nb_workers ? sl_workers[w].rxqs : NULL;
			for (uint16_t i = 0; l && i < l->n; i++)
				if (l->q[i].port == p && l->q[i].queue == q)
					g = l->q[i].max_gap;
			snprintf(gap, sizeof(gap), "%.1f", sl_tsc_us(g));
			sl_tbl_row(o, sl_ifaces[p].name, qs, ws, gap);
		}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_placement, .path = "show interface rx-placement", .usage = "",
	       .help = "which worker polls each rx queue, and the longest time between two of "
		       "its polls (zeroed by clear runtime)",
	       .fn = cmd_show_placement)

static int cmd_set_placement(struct sl_out *o, int argc, char **argv)
{
	uint32_t q, w;
	if (argc != 5 || strcmp(argv[1], "queue") || strcmp(argv[3], "worker"))
		return sl_out_error(o, "usage: set interface rx-placement IFACE queue N worker M");
	struct sl_iface *f = sl_iface_by_name(argv[0]);
	if (!f)
		return sl_out_error(o, "unknown interface '%s'", argv[0]);
	if (sl_arg_u32(o, "queue", argv[2], 0, UINT16_MAX, &q) ||
	    sl_arg_u32(o, "worker", argv[4], 0, UINT16_MAX, &w))
		return -1;
	char why[128];
	if (sl_iface_place_rxq(f->port, (uint16_t)q, (uint16_t)w, why, sizeof(why)))
		return sl_out_error(o, "%s", why);
	return 0;
}
SL_CLI_COMMAND(set_placement, .path = "set interface rx-placement",
	       .usage = "IFACE queue N worker M", .help = "move an rx queue to a worker",
	       .fn = cmd_set_placement)


static int cmd_show_buffers(struct sl_out *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	char v[3][16];
	snprintf(v[0], 16, "%u", sl_pool->size);
	snprintf(v[1], 16, "%u", rte_mempool_in_use_count(sl_pool));
	snprintf(v[2], 16, "%u", rte_mempool_avail_count(sl_pool));
	sl_tbl_begin(o, "buffers", 4, (const char *[]){"pool", "size:u", "in-use:u", "free:u"});
	sl_tbl_row(o, sl_pool->name, v[0], v[1], v[2]);
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_buffers, .path = "show buffers", .usage = "",
	       .help = "packet buffer pool usage", .fn = cmd_show_buffers)

static int cmd_clear_interfaces(struct sl_out *o, int argc, char **argv)
{
	(void)o;
	(void)argc;
	(void)argv;
	for (uint16_t p = 0; p < SL_MAX_PORTS; p++)
		if (sl_ifaces[p].used && sl_ifaces[p].type == SL_IF_PORT)
			rte_eth_stats_reset(p);
	for (uint32_t p = 0; p < sl_if_hwm; p++)
		if_base[p] = if_raw(p);
	return 0;
}
SL_CLI_COMMAND(clear_interfaces, .path = "clear interfaces", .usage = "",
	       .help = "zero interface counters", .fn = cmd_clear_interfaces)
