/* SPDX-License-Identifier: BSD-3-Clause */
/* VXLAN (RFC 7348) over IPv4 or IPv6: a tunnel is a logical interface (type vxlan or vxlan6,
 * vxlan_tunnelN), routed or in an L2 mode like any other (the shared part of tunnels:
 * src/tunnel). vxlan4-input and vxlan6-input (on ip4-udp-local and ip6-udp-local, UDP 4789)
 * find the tunnel by (outer table, remote, local, VNI) and hand the inner frame in as
 * received on it; vxlan4-encap and vxlan6-encap (the types' output nodes) put the outer
 * IPv4 or IPv6, UDP and VXLAN headers in front. */
#ifndef SL_VXLAN_H
#define SL_VXLAN_H

#include "../tunnel/tunnel.h"

#define SL_VXLAN_PORT 4789
/* The UDP ports tunnels listen on (dst_port): 4789 and up to 7 more, each an index in the top
 * 8 bits of the tunnels' key id (VNI below); sl_vx_port_idx[port] (host order) is the index
 * of a port in use, SL_VX_NO_PORT for any other. */
#define SL_VX_PORTS 8
#define SL_VX_NO_PORT 0xff
extern uint8_t sl_vx_port_idx[1 << 16];
#define SL_VXLAN_ENCAP_LEN 36 /* outer IPv4, UDP and VXLAN headers, before the inner frame */
#define SL_VXLAN_OVERHEAD (SL_VXLAN_ENCAP_LEN + RTE_ETHER_HDR_LEN) /* 50: inner Ethernet too */
#define SL_VXLAN6_ENCAP_LEN 56 /* outer IPv6, UDP and VXLAN headers */
#define SL_VXLAN6_OVERHEAD (SL_VXLAN6_ENCAP_LEN + RTE_ETHER_HDR_LEN) /* 70 */

#endif
