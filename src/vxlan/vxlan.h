/* SPDX-License-Identifier: BSD-3-Clause */
/* VXLAN (RFC 7348) over IPv4: a tunnel is a logical interface (type vxlan, vxlan_tunnelN),
 * routed or in an L2 mode like any other. vxlan4-input (on ip4-udp-local, UDP 4789) finds
 * the tunnel by (outer table, remote, local, VNI) and hands the inner frame in as received on
 * it; vxlan4-encap (the type's output node) puts the outer IPv4/UDP/VXLAN headers in front
 * and sends the packet to ip4-lookup in the tunnel's encap table, so the underlay route
 * (ECMP, ARP resolution, packets held while resolving) is the routing path's own. */
#ifndef SL_VXLAN_H
#define SL_VXLAN_H

#include "../interface/iface.h"

#define SL_VXLAN_PORT 4789
#define SL_VXLAN_ENCAP_LEN 36 /* outer IPv4, UDP and VXLAN headers, before the inner frame */
#define SL_VXLAN_OVERHEAD (SL_VXLAN_ENCAP_LEN + RTE_ETHER_HDR_LEN) /* 50: inner Ethernet too */

/* Decapsulation's key: the outer packet's table, addresses (network order) and VNI (8-byte
 * aligned: rte_hash_crc reads it 8 bytes at a time). */
struct __rte_aligned(8) sl_vxlan_key {
	uint32_t remote, local;
	uint32_t vni;
	uint16_t fib;
	uint16_t pad;
};

struct sl_vxlan {
	uint8_t hdr[SL_VXLAN_ENCAP_LEN]; /* the outer headers, total length and UDP source port
					  * and length left zero */
	uint32_t hdr_sum;                /* rte_raw_cksum of hdr's IPv4 header */
	uint16_t fib;                    /* encap table's index */
	uint16_t ifx;
	struct sl_vxlan_key key;
	uint32_t table_id;
	int32_t pos;                     /* its key's slot, freed after the grace period */
};

/* The tunnel of interface ifx (workers: while the interface is up). */
extern struct sl_vxlan *sl_vxlan_by_if[SL_IF_MAX];
/* How many tunnels there are. */
uint32_t sl_vxlan_count(void);
/* ifx of the tunnel with key k, or UINT16_MAX. */
uint16_t sl_vxlan_find(const struct sl_vxlan_key *k);

#endif
