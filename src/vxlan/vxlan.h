/* SPDX-License-Identifier: BSD-3-Clause */
/* VXLAN (RFC 7348) over IPv4: a tunnel is a logical interface (type vxlan, vxlan_tunnelN),
 * routed or in an L2 mode like any other (the shared part of tunnels: src/tunnel).
 * vxlan4-input (on ip4-udp-local, UDP 4789) finds the tunnel by (outer table, remote, local,
 * VNI) and hands the inner frame in as received on it; vxlan4-encap (the type's output node)
 * puts the outer IPv4/UDP/VXLAN headers in front. */
#ifndef SL_VXLAN_H
#define SL_VXLAN_H

#include "../tunnel/tunnel.h"

#define SL_VXLAN_PORT 4789
#define SL_VXLAN_ENCAP_LEN 36 /* outer IPv4, UDP and VXLAN headers, before the inner frame */
#define SL_VXLAN_OVERHEAD (SL_VXLAN_ENCAP_LEN + RTE_ETHER_HDR_LEN) /* 50: inner Ethernet too */

#endif
