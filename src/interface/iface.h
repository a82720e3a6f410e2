/* SPDX-License-Identifier: BSD-3-Clause */
/* Interfaces: logical interfaces (VPP's sw_if_index) of several types, DPDK ports among them,
 * with a name, admin state, MTU, addresses, mode and per-worker counters. */
#ifndef SL_IFACE_H
#define SL_IFACE_H

#include "../sluice.h"
#include "../config/config.h"
#include "../runtime/feature.h"
#include <rte_ether.h>
#include <rte_spinlock.h>

#define SL_IF_MAX_ADDRS 8

/* What an interface does with what it receives: route it (ethernet-input), or one of the
 * L2 forwarding modes, each a node of its own: the ends of the device-input arc. Every node
 * that takes packets in (port-rx, pg-input, and the arc's features: noisy, noisy-fifo,
 * pcap-rx) has these edges first, in this order. */
enum sl_mode {
	SL_MODE_L3,
	SL_MODE_IO,
	SL_MODE_MAC,
	SL_MODE_MACSWAP,
	SL_MODE_5TSWAP,
	SL_MODE_BRIDGE,
	SL_NB_MODES
};
#define SL_MODE_NODES "ethernet-input", "l2-io", "l2-mac", "l2-macswap", "l2-5tswap", "l2-bridge"
extern const char *const sl_mode_names[SL_NB_MODES];

/* l2-io's node context. port-rx notes how many of the packets now in l2-io's stream it put
 * there, all from one port (UINT32_MAX once they came from two), as VPP's device input
 * flags a frame from a single interface; l2-io moves a stream that port-rx filled alone
 * without reading its mbufs, and clears the note each time it takes its stream. Packets
 * from other nodes (pg-input, noisy) are not counted, so the note then falls short. */
struct sl_l2io_ctx {
	struct sl_worker *w; /* sl_node_init */
	uint16_t port;
	uint32_t from_rx;
};
_Static_assert(sizeof(struct sl_l2io_ctx) <= RTE_NODE_CTX_SZ, "l2-io's note fits its context");

/* port-rx: k more packets from port p into l2-io's stream (node is l2-io). */
static inline void sl_l2io_note(struct rte_node *node, uint16_t p, uint16_t k)
{
	struct sl_l2io_ctx *c = (struct sl_l2io_ctx *)node->ctx;
	if (c->from_rx == 0)
		c->port = p;
	c->from_rx = c->port == p && c->from_rx != UINT32_MAX ? c->from_rx + k : UINT32_MAX;
}

struct sl_noisy;
struct sl_pcap;
#define SL_NO_WORKER 0xff

/* Interface indexes: DPDK port P is interface P; the other types take indexes from
 * SL_IF_FIRST_LOGICAL up, created and deleted at run time without touching the graphs. */
#define SL_IF_FIRST_LOGICAL SL_MAX_PORTS

enum sl_if_type {
	SL_IF_PORT,     /* a DPDK port: polled by port-rx, sent by port-tx-P */
	SL_IF_SUB,      /* a VLAN sub-interface of a port: tags pushed by vlan-output */
	SL_IF_BVI,      /* a bridge's routed interface: bvi-output hands frames to l2-bridge */
	SL_IF_LOOP,     /* a loopback: loop-output receives what it sends */
	SL_IF_PG,       /* a packet-generator interface: pg-output counts, frees or writes a pcap */
	SL_IF_VXLAN,    /* a VXLAN tunnel: vxlan4-encap puts the outer headers on */
	SL_IF_GRE,      /* a GRE tunnel: gre4-encap */
	SL_IF_IPIP,     /* an IP-in-IP tunnel: ipip4-encap */
	SL_IF_MPLSUDP,  /* an MPLS-over-UDP tunnel: mplsudp4-encap */
	SL_IF_MPLSGRE,  /* an MPLS-over-GRE tunnel: gre4-encap */
	SL_IF_MPLSTUN,  /* an MPLS tunnel (labels over Ethernet to a next hop): mpls-tunnel-output */
	SL_IF_PPPOE,    /* a PPPoE session (point to point): pppoe-output */
	SL_IF_IPOE,     /* an IPoE subscriber session (point to point): ipoe-output */
	SL_IF_VXLAN6,   /* a VXLAN tunnel over IPv6: vxlan6-encap */
	SL_IF_GRE6,     /* a GRE tunnel over IPv6: gre6-encap */
	SL_IF_IPIP6,    /* an IP-in-IP tunnel over IPv6: ipip6-encap */
	SL_IF_MPLSUDP6, /* an MPLS-over-UDP tunnel over IPv6: mplsudp6-encap */
	SL_IF_MPLSGRE6, /* an MPLS-over-GRE tunnel over IPv6: gre6-encap */
	SL_IF_NB_TYPES
};
extern const char *const sl_if_type_names[SL_IF_NB_TYPES];

struct sl_iface {
	/* read by workers */
	volatile uint8_t up;
	volatile uint8_t paused;      /* a port being restarted (a memif client connecting
				       * again): port-rx and port-tx leave it alone */
	uint8_t type;                 /* enum sl_if_type */
	uint16_t tx_slot;             /* where senders send it: counted from a tx user's first
				       * edge (sl_iface_tx_edge): out_slot, or SL_TX_SLOT_FEAT
				       * while it has interface-output features */
	bool tx_meta;                 /* senders write meta->tx_if: every type's output node
				       * reads it, and the interface-output arc (a port's
				       * port-tx-P does not) */
	uint16_t mtu;
	uint32_t ip4;                 /* primary address, host order; 0 = none */
	uint16_t fib;                 /* its FIB table's index, both families (0: table 0) */
	uint8_t ip6_ll[16];           /* IPv6 link-local address; all zero: IPv6 is off */
	uint16_t ra_max_s;            /* router advertisements every at most this many
				       * seconds; 0: off (router solicitations dropped) */
	struct rte_ether_addr mac;
	uint16_t nb_txq;              /* worker w sends on queue w % nb_txq */
	bool tx_shared;               /* fewer TX queues than workers: queues are locked */
	uint8_t mode;                 /* enum sl_mode; written last, with a release store */
	uint16_t peer;                /* L2 modes: the interface packets leave by */
	uint16_t bd;                  /* bridge mode (or a BVI's): the bridge domain */
	bool bvi;                     /* a bridge's routed interface: routed out into the
				       * bridge, bridged to it into routing */
	/* a VLAN sub-interface: its frames carry these tags on the parent port */
	uint16_t parent;
	uint16_t tpid;                /* outer tag's ethertype: 0x8100 or 0x88a8 */
	uint16_t vid, inner_vid;      /* inner_vid 0: one tag */
	struct rte_ether_addr mac_dst, mac_src; /* fwd-mode mac: the addresses written */
	struct sl_noisy *noisy;       /* the noisy-VNF input feature, or NULL */
	struct sl_pcap *pcap;         /* a pg interface's pcap file, or NULL */
	bool pg_rss;                  /* a pg interface's frames carry an RSS hash, as a
				       * NIC's with RSS do (sl_pg_rss) */
	rte_spinlock_t txq_lock[SL_MAX_WORKERS];
	uint16_t out_slot;            /* its own output: its type's node, or port-tx-P */
	/* control only */
	bool used;
	bool virt;                    /* created by sluiced (pg, or any logical type): never polled */
	bool memif_client;            /* a memif port of role client: connected again when its
				       * server went (reconnect_tick) */
	uint64_t retry_at;            /* TSC: its next restart, at the earliest a second after
				       * its link was last seen up (0: not looked at yet) */
	uint32_t reconnects;          /* restarts that connected it again */
	uint16_t port;                /* its index (for a port, its DPDK port id) */
	uint32_t nb_subs;             /* a port's sub-interfaces */
	uint16_t outer_fib;           /* a tunnel: the table its outer headers are routed in */
	bool mpls;                    /* set interface mpls IF enable: MPLS frames taken in */
	bool p2p;                     /* point to point (an IP tunnel): neighbours need no
				       * resolution, each is reached by the one link */
	char name[64];
	char driver[64];
	uint16_t nb_rxq, nb_rxd, nb_txd;
	uint8_t rxq_worker[SL_MAX_RXQ];
	uint32_t addrs[SL_IF_MAX_ADDRS];
	uint8_t plens[SL_IF_MAX_ADDRS];
	int naddr;
	uint8_t addrs6[SL_IF_MAX_ADDRS][16]; /* IPv6 addresses but the link-local; workers read
					      * the first as their ICMPv6 source (sl_ip6_src_of) */
	uint8_t plens6[SL_IF_MAX_ADDRS];
	int naddr6;
	bool ll6_conf;                /* link-local configured, not EUI-64 */
	uint16_t ra_min_s, ra_lifetime_s; /* RFC 4861 6.2.1 MinRtrAdvInterval, AdvDefaultLifetime */
	bool ra_life_conf;            /* ra-lifetime given: not derived from the interval */
	uint8_t ra_initial;           /* initial advertisements still to send (6.2.4) */
	uint64_t ra_next, ra_last;    /* TSC of the next advertisement, and of the last */
	uint64_t ra_sent, rs_rx;      /* advertisements sent, solicitations answered */
	uint8_t ra_prefix[16];        /* a prefix advertised besides the addresses' (a PPPoE
				       * session's /64, routed through it) */
	uint8_t ra_prefix_len;        /* 0: none */
};

extern struct sl_iface sl_ifaces[SL_IF_MAX];
extern uint32_t sl_if_hwm;      /* one past the highest index ever used: loops stop there */

/* sl_if_fast (sluice.h): what the nodes read of an interface. */
/* Whether every used interface's copy matches it (tests): 0, or the first index that does not
 * plus one. */
uint32_t sl_if_fast_check(void);      /* one past the highest index ever used: loops stop there */

/* For the output nodes of types whose frames come back in (BVI, loopback): each frame
 * becomes its interface's (mbuf->port = meta->tx_if), counted as sent on it, and as received
 * too when rx. */
static inline void sl_iface_loop_back(struct sl_worker *w, void **objs, uint16_t n, bool rx)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		struct sl_if_counters *c = &w->ifc[m->port = sl_meta(m)->tx_if];
		c->tx_pkts++;
		c->tx_bytes += m->pkt_len;
		if (rx) {
			c->rx_pkts++;
			c->rx_bytes += m->pkt_len;
		}
	}
}

/* The packet's FIB table: the one a node chose ahead (sl_flag_fib), else its ingress
 * interface's (ip4-lookup, ip6-lookup). */
static inline uint16_t sl_pkt_fib(struct rte_mbuf *m)
{
	return unlikely(m->ol_flags & sl_flag_fib) ? sl_meta2(m)->fib : sl_ifaces[m->port].fib;
}

/* The end of the run of packets from start on in one table (*t, the first's): a packet from
 * the first's port with no table of its own is in it, its port compared, not its table
 * looked up (ip4-lookup's and ip6-lookup's runs with several tables). */
static __rte_always_inline uint16_t sl_fib_run_end(void **objs, uint16_t start, uint16_t n, uint16_t *t)
{
	const struct rte_mbuf *m0 = objs[start];
	uint16_t end = start + 1, port = m0->port;
	*t = sl_pkt_fib(objs[start]);
	while (end < n) {
		const struct rte_mbuf *m = objs[end];
		if (unlikely(m->port != port || (m->ol_flags & sl_flag_fib)) && sl_pkt_fib(objs[end]) != *t)
			break;
		end++;
	}
	return end;
}

/* ip4-lookup's and ip6-lookup's gathering: dst(m, i, arr) for each packet (its destination
 * into the node's array). The vector's table: 0 while only table 0 exists (multi false), else
 * the first packet's when all came from its port and none has a table of its own (the usual
 * case with VRFs: compared while gathering, not looked up per packet), else -1 (one lookup
 * per run of packets in one table). */
static __rte_always_inline int sl_gather_dsts(void **objs, uint16_t n, bool multi,
					      void (*dst)(const struct rte_mbuf *m, uint16_t i, void *arr),
					      void *arr)
{
	if (likely(!multi)) {
		for (uint16_t i = 0; i < n; i++)
			dst(objs[i], i, arr);
		return 0;
	}
	const struct rte_mbuf *m0 = objs[0];
	uint64_t other = 0, port = m0->port, own = sl_flag_fib;
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_mbuf *m = objs[i];
		dst(m, i, arr);
		other |= (m->port ^ port) | (m->ol_flags & own);
	}
	return other ? -1 : sl_pkt_fib(objs[0]);
}

/* Frames the main lcore sends (ARP), drained by worker 0's port-rx (sl_iface_inject). */
extern struct rte_ring *sl_inject_ring;
/* port-rx's burst size per queue (config rx-vector). */
extern uint16_t sl_rx_vector;
/* port-tx, the node each port's port-tx-P is cloned from. */
rte_node_t sl_tx_node_id(void);
/* Bridging (bridge.c): interface f left bridge domain bd, which no longer floods to it. */
void sl_l2_bridge_left(struct sl_iface *f, uint16_t bd);

/* Starts the configured ports, nb_graphs TX queues each. */
int sl_iface_init(const struct sl_config *c, struct rte_mempool *mp, uint16_t nb_graphs);
void sl_iface_fini(void);
struct sl_iface *sl_iface_by_name(const char *name);
/* Control (main lcore): admin state, MTU (ip4-rewrite's software check; the only writers of
 * both, for sl_if_fast's copy), and which worker polls a port's rx queue q (0, or -errno with
 * the reason in why). */
void sl_iface_set_up(uint16_t ifx, bool up);
void sl_iface_set_mtu(uint16_t ifx, uint16_t mtu);
/* From a constructor: fn(ifx) runs on the main lcore after interface ifx's MTU or tx slot
 * changed in sl_if_fast, for what keeps copies of them (the adjacencies). */
void sl_iface_watch(void (*fn)(uint16_t ifx));
int sl_iface_place_rxq(uint16_t ifx, uint16_t q, uint16_t w, char *why, size_t len);
/* An interface's counters summed over the workers, since it was made or last cleared. */
struct sl_if_counters sl_iface_counters(uint16_t ifx);
/* Publishes each worker's (port, queue) list from the placement. */
int sl_iface_publish_rx(void);
/* Hands a ready L2 frame (meta->tx_if = tx port) to worker 0 to transmit. */
int sl_iface_inject(struct rte_mbuf *m, uint16_t port);
/* Called from a constructor by a node that sends to any interface: at start-up it gets an
 * edge to each type's output node (sl_iface_output_register), then (and when a port is
 * added) one to every port-tx-P; interface i's is at *first + sl_ifaces[i].tx_slot. A packet
 * for an interface that is not a port carries the interface in meta->tx_if. */
void sl_iface_tx_user(const char *node_name, rte_edge_t *first);
/* Called from a constructor: frames out of interfaces of type t go to node_name. */
void sl_iface_output_register(enum sl_if_type t, const char *node_name);
static inline rte_edge_t sl_iface_tx_edge(rte_edge_t first, uint16_t ifx)
{
	return (rte_edge_t)(first + __atomic_load_n(&sl_if_fast[ifx].tx_slot, __ATOMIC_RELAXED));
}
/* A tx user's slots: each type's output node (t; a port's is error-drop), the
 * interface-output arc's start, each of the arc's features (f; error-drop for the user's own
 * feature and for those not registered), then port-tx-P. */
#define SL_TX_SLOT_ARC SL_IF_NB_TYPES
#define SL_TX_SLOT_FEAT(f) (SL_IF_NB_TYPES + 1 + (f))
#define SL_TX_SLOT_PORT(p) (SL_IF_NB_TYPES + 1 + SL_ARC_MAX_FEATS + (p))
/* The interface-output arc (feature.c): ifx's features there are now mask (old before);
 * senders then reach the first of them, or the interface's output, through its tx_slot. */
void sl_iface_out_features(uint16_t ifx, uint8_t mask, uint8_t old);
/* The edge of interface-output feature `me` (a node that is a tx user, its first tx edge tx0)
 * for a frame of interface ifx: the next feature on there, else the interface's own output
 * (no interface-tx hop). */
static inline rte_edge_t sl_feature_next_out(uint8_t me, uint16_t ifx, rte_edge_t tx0)
{
	uint8_t mask = sl_if_features(ifx, SL_ARC_INTERFACE_OUTPUT) & (uint8_t)(0xfe << me);
	return (rte_edge_t)(tx0 + (mask ? SL_TX_SLOT_FEAT(__builtin_ctz(mask))
				       : __atomic_load_n(&sl_if_fast[ifx].out_slot, __ATOMIC_RELAXED)));
}
/* Adds the edges of ports created since to every node that asked for them. */
void sl_iface_sync_tx_edges(void);

/* Logical interfaces (main lcore only; no graph rebuild, workers keep forwarding).
 * Creates an interface of type t, down, in l3 mode; 0 or -errno (-EEXIST, -ENOSPC). */
int sl_iface_create(enum sl_if_type t, const char *name, const struct rte_ether_addr *mac,
		    struct sl_iface **out);
/* Deletes a logical interface that nothing refers to: -EBUSY with the reason in why
 * otherwise. After it returns no worker sees the interface any more. */
int sl_iface_delete(struct sl_iface *f, char *why, size_t len);
/* Called from a constructor by a module that may refer to interfaces. With commit false:
 * non-zero, and the reason in why, when f is in use in a way that refuses its deletion;
 * with commit true (every module said no): drop what refers to f (learnt MACs, neighbours). */
typedef int (*sl_iface_busy_fn)(const struct sl_iface *f, bool commit, char *why, size_t len);
void sl_iface_busy_register(sl_iface_busy_fn fn);

/* VLAN sub-interfaces: (parent port, TPID, VLAN, inner VLAN) -> interface, read by
 * ethernet-input with lock-free readers, written by the main lcore. */
int sl_iface_sub_create(struct sl_iface *parent, uint32_t id, uint16_t tpid, uint16_t vid,
			uint16_t inner, struct sl_iface **out);
uint16_t sl_iface_sub_find(uint16_t parent, uint16_t tpid, uint16_t vid, uint16_t inner);
uint64_t sl_iface_sub_key(const struct sl_iface *f);

/* CLI helpers for the logical types (src/interface/loopback.c): [instance N] [mac MAC];
 * create PREFIX<instance> (first free instance unless given); delete NAME of type t. */
struct sl_out;
int sl_iface_parse_inst_mac(struct sl_out *o, int argc, char **argv, const char *usage,
			    int64_t *inst, struct rte_ether_addr *mac, bool *have_mac);
int sl_iface_create_named(struct sl_out *o, enum sl_if_type t, const char *prefix, int64_t inst,
			  struct rte_ether_addr mac, bool have_mac);
int sl_iface_delete_named(struct sl_out *o, enum sl_if_type t, const char *name);

#endif
