/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethernet: what ethernet-input hands on, by ethertype. */
#ifndef SL_ETHERNET_H
#define SL_ETHERNET_H

#include "../sluice.h"

/* From a constructor: frames of this ethertype (host order; after a sub-interface's tags)
 * for one of our MACs (or multicast) leave ethernet-input for node_name, the Ethernet
 * header stripped. */
void sl_eth_type_register(uint16_t ethertype, const char *node_name);
extern struct sl_dispatch sl_eth_types;

#endif
