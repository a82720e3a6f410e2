/* SPDX-License-Identifier: BSD-3-Clause */
/* Interfaces: DPDK ports with a name, admin state, MTU, addresses and rx placement. */
#ifndef SL_IFACE_H
#define SL_IFACE_H

#include "../sluice.h"
#include "../config/config.h"
#include <rte_ether.h>
#include <rte_spinlock.h>

#define SL_IF_MAX_ADDRS 8

/* What an interface does with what it receives: route it (ethernet-input), or one of the
 * L2 forwarding modes, each a node of its own. Every node that takes packets in (port-rx,
 * pg-input, noisy, noisy-fifo) has these edges first, in this order. */
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
#define SL_NO_WORKER 0xff

struct sl_iface {
	/* read by workers */
	volatile uint8_t up;
	uint16_t mtu;
	uint32_t ip4;                 /* primary address, host order; 0 = none */
	struct rte_ether_addr mac;
	uint16_t nb_txq;              /* worker w sends on queue w % nb_txq */
	bool tx_shared;               /* fewer TX queues than workers: queues are locked */
	bool sink;                    /* pg: port-tx counts and frees, like VPP's pg tx */
	uint8_t mode;                 /* enum sl_mode; written last, with a release store */
	uint16_t peer;                /* L2 modes: the port packets leave by */
	uint16_t bd;                  /* bridge mode (or a BVI's): the bridge domain */
	bool bvi;                     /* a bridge's routed interface: routed out into the
				       * bridge, bridged to it into routing */
	/* a VLAN sub-interface: its frames carry these tags on the parent port */
	bool sub;
	uint16_t parent;
	uint16_t tpid;                /* outer tag's ethertype: 0x8100 or 0x88a8 */
	uint16_t vid, inner_vid;      /* inner_vid 0: one tag */
	/* a parent's sub-interfaces, appended by main (count published last) */
	uint16_t nb_subs;
	uint16_t subs[8];
	struct rte_ether_addr mac_dst, mac_src; /* fwd-mode mac: the addresses written */
	struct sl_noisy *noisy;       /* the noisy-VNF input feature, or NULL */
	rte_spinlock_t txq_lock[SL_MAX_WORKERS];
	/* control only */
	bool used;
	bool virt;                    /* created by sluiced (pg): never polled */
	uint16_t port;
	char name[64];
	char driver[64];
	uint16_t nb_rxq, nb_rxd, nb_txd;
	uint8_t rxq_worker[SL_MAX_RXQ];
	uint32_t addrs[SL_IF_MAX_ADDRS];
	uint8_t plens[SL_IF_MAX_ADDRS];
	int naddr;
};

extern struct sl_iface sl_ifaces[SL_MAX_PORTS];

/* The input edge for packets received on port p: its noisy feature, else its mode. */
#define SL_IN_NEXT_NOISY SL_NB_MODES
static inline uint16_t sl_iface_in_next(uint16_t p)
{
	const struct sl_iface *f = &sl_ifaces[p];
	return f->noisy ? SL_IN_NEXT_NOISY : f->mode;
}

/* Starts the configured ports, nb_graphs TX queues each. */
int sl_iface_init(const struct sl_config *c, struct rte_mempool *mp, uint16_t nb_graphs);
void sl_iface_fini(void);
struct sl_iface *sl_iface_by_name(const char *name);
/* Publishes each worker's (port, queue) list from the placement. */
int sl_iface_publish_rx(void);
/* Hands a ready L2 frame (meta->aux = tx port) to worker 0 to transmit. */
int sl_iface_inject(struct rte_mbuf *m, uint16_t port);
/* Called from a constructor by a node that sends to any port: at start-up (and when a port
 * is added) it gets an edge to every port-tx-P, port P at edge *first + P. */
void sl_iface_tx_user(const char *node_name, rte_edge_t *first);
/* Adds the edges of ports created since to every node that asked for them. */
void sl_iface_sync_tx_edges(void);
/* Creates an interface on a hot-plugged vdev DRV_NAME with ARGS (never polled; what the
 * graph sends to it goes to the driver), then rebuilds the graphs. Main lcore only. */
int sl_iface_add_virtual(const char *name, const char *drv, const char *args,
			 const struct rte_ether_addr *mac, struct sl_iface **out);

#endif
