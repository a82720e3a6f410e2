/* SPDX-License-Identifier: BSD-3-Clause */
/* sluice-gen's subscriber emulator (the part BNG Blaster plays for BNG vendors): N PPPoE
 * sessions (discovery, LCP, PAP or CHAP-MD5 as the server asks, IPCP, and with ipv6 IPv6CP
 * and SLAAC from the router advertisement; untagged or over a range of VLANs) and M IPoE
 * clients
 * (DHCPv4 DISCOVER, OFFER, REQUEST, ACK; untagged or on a VLAN) brought up on the access
 * port at a set rate, signed traffic each way per session between them and the peer port,
 * then torn down (PADT, DHCPRELEASE); reported: set-up rate, failures by phase, loss and
 * latency. */
#ifndef SL_BNG_EMU_H
#define SL_BNG_EMU_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include <rte_mempool.h>

struct bng_emu_opts {
	unsigned sessions;          /* PPPoE clients */
	unsigned ipoe_sessions;     /* IPoE (DHCPv4) clients; both 0: the emulator is off */
	uint16_t ipoe_vlan;         /* the IPoE clients' 802.1Q VLAN; 0: untagged */
	uint16_t pppoe_vlan, pppoe_vlans; /* PPPoE client i on VLAN pppoe_vlan + i % pppoe_vlans
					   * (one VLAN per customer); 0: untagged */
	uint16_t pppoe_svlan;       /* with pppoe_vlans: that VLAN the inner (C) tag under this
				     * 802.1ad service (S) tag (QinQ); 0: single tagged */
	double rate;                /* clients started a second, both kinds together */
	const char *user, *password;
	unsigned traffic;           /* packets each way per session (0: none) */
	double traffic_rate;        /* those packets a second per session, each way (rounds
				     * paced at it); 0: each round as soon as the last is out */
	uint32_t target;            /* host order: where upstream packets go (behind the peer
				     * port, which answers ARP for it) */
	struct rte_ether_addr router_mac; /* downstream packets' destination on the peer port */
	bool ipv6;                  /* PPPoE sessions dual-stack: IPv6CP, an address by SLAAC
				     * from the router advertisement, the traffic over IPv6 too */
	uint8_t target6[16];        /* the IPv6 traffic's far end (the peer port answers its
				     * neighbour solicitations) */
	double timeout;             /* seconds a phase may take */
	bool json;
};

/* Runs it on the main lcore with queue 0 of each port; 0 when every session came up and no
 * packet was lost, 1 otherwise. */
int bng_emu_run(const struct bng_emu_opts *o, uint16_t access, uint16_t peer,
		struct rte_mempool *mp);

#endif
