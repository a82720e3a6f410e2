/* SPDX-License-Identifier: BSD-3-Clause */
/* GRE and IP-in-IP tunnels over IPv4 (src/tunnel/gre.c, gre_node.c). */
#ifndef SL_GRE_H
#define SL_GRE_H

#include "tunnel.h"

#define SL_ETHER_TYPE_TEB 0x6558 /* transparent Ethernet bridging: GRE carries a frame */

#endif
