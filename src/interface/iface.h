/* SPDX-License-Identifier: BSD-3-Clause */
/* Interfaces: DPDK ports with a name, admin state, MTU, addresses and rx placement. */
#ifndef SL_IFACE_H
#define SL_IFACE_H

#include "../sluice.h"
#include "../config/config.h"
#include <rte_ether.h>
#include <rte_spinlock.h>

#define SL_IF_MAX_ADDRS 8
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

/* Starts the configured ports, nb_graphs TX queues each. */
int sl_iface_init(const struct sl_config *c, struct rte_mempool *mp, uint16_t nb_graphs);
void sl_iface_fini(void);
struct sl_iface *sl_iface_by_name(const char *name);
/* Publishes each worker's (port, queue) list from the placement. */
int sl_iface_publish_rx(void);
/* Hands a ready L2 frame (meta->aux = tx port) to worker 0 to transmit. */
int sl_iface_inject(struct rte_mbuf *m, uint16_t port);
/* Node helpers: add an edge to port-tx-P for every port, in port order, and return the
 * edge of port 0. */
rte_edge_t sl_iface_add_tx_edges(const char *node_name);
/* Adds the edges of ports created since to every node that asked for them. */
void sl_iface_sync_tx_edges(void);
/* Creates an interface on a hot-plugged vdev DRV_NAME with ARGS (never polled; what the
 * graph sends to it goes to the driver), then rebuilds the graphs. Main lcore only. */
int sl_iface_add_virtual(const char *name, const char *drv, const char *args,
			 const struct rte_ether_addr *mac, struct sl_iface **out);

#endif
