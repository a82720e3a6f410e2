/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer: arbitrary frames through the whole graph (ethernet, ARP, ip4 input, lookup,
 * local, ICMP errors, rewrite, fragmentation; IPv6 input, lookup with ECMP, local, ICMPv6,
 * neighbour discovery and MLD queries on the main lcore, ICMPv6 errors; VXLAN, GRE (keyed, teb)
 * and IP-in-IP over IPv4 and IPv6 (VXLAN's UDP checksum checked), and
 * MPLS (over Ethernet, UDP and GRE) decapsulation into a bridge domain or routing, and
 * encapsulation of bridged and routed packets; a policer on port0's input that marks), or
 * through an L2 mode (io, mac, macswap, 5tswap) chosen by the first byte, traced or not (its
 * bit 7); ACLs on port0's input (deny UDP to port 7, TCP SYN+FIN, ICMPv6 type 1, then
 * permit), on port1's output and on tunnels' input (VXLAN routed and bridged, GRE, IP-in-IP);
 * 49.0.0.0/8 has two paths of weights 1 and 3 (each packet's flow hash read from its header); drop routes 61.0.0.0/8 and 2001:db8:61::/48; hierarchical QoS
 * on port1's output (rte_sched: pipes by VLAN IDs, TCs by DSCP) and port0's (the timing
 * wheel: pipes by destination); PPPoE (discovery, and a session with IPCP and IPv6CP); IPoE's
 * DHCP; no crash and no
 * buffer leak, and show trace formats whatever the nodes recorded. */
#include "fuzz.h"
#include "../common/ring_env.h"
#include "../../src/sluice.h"
#include "../../src/ip4/ip4.h"
#include "../../src/ip6/ip6.h"
#include "../../src/runtime/runtime.h"
#include <rte_cycles.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static unsigned base;

static void drain_tx(void)
{
	void *m[64];
	unsigned n;
	for (int p = 0; p < 2; p++)
		while ((n = rte_ring_dequeue_burst(env_tx[p], m, 64, NULL)))
			rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	if (env_init((*argv)[0], "sl-fuzz-ip4"))
		abort();
	env_cli("set interface mtu 576 port1", false);
	/* tagged frames: a routed dot1q sub-interface and a QinQ one in a bridge domain */
	if (env_cli("create sub-interfaces port0 100", false) ||
	    env_cli("set interface ip address port0.100 10.10.100.1/24", false) ||
	    env_cli("set interface state port0.100 up", false) ||
	    env_cli("create sub-interfaces port0 200 dot1ad 200 inner-dot1q 300", false) ||
	    env_cli("set interface state port0.200 up", false) ||
	    env_cli("create bridge-domain 1 age 1", false) ||
	    env_cli("set interface l2 bridge port0.200 1", false) ||
	    env_cli("set interface l2 bridge port1 1", false) ||
	    env_cli("set interface l3 port1", false) ||
	    env_cli("ip neighbor port1 10.10.2.2 42:01:0a:0a:02:02", false) ||
	    env_cli("ip route add 49.0.0.0/8 via 10.10.2.1", false) ||
	    env_cli("ip route add 49.0.0.0/8 via 10.10.2.2 weight 3", false) ||
	    env_cli("set interface ip address port0 2001:db8:1::10/64", false) ||
	    env_cli("set interface ip address port1 2001:db8:2::10/64", false) ||
	    env_cli("ip neighbor port1 2001:db8:2::1 42:01:0a:0a:02:01", false) ||
	    env_cli("ip route add 2001:db8:48::/48 via 2001:db8:2::1", false) ||
	    env_cli("ip route add 2001:db8:49::/48 via 2001:db8:2::1", false) ||
	    env_cli("ip route add 2001:db8:49::/48 via 2001:db8:2::2 weight 3", false) ||
	    env_cli("ip route add 61.0.0.0/8 via drop", false) ||
	    env_cli("ip route add 2001:db8:61::/48 via drop", false) ||
	    /* VXLAN: VNI 7 bridged with the QinQ sub-interface, VNI 8 routed (50.0.0.0/8) */
	    env_cli("create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 7", false) ||
	    env_cli("set interface state vxlan_tunnel0 up", false) ||
	    env_cli("set interface l2 bridge vxlan_tunnel0 1", false) ||
	    env_cli("create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 8", false) ||
	    env_cli("set interface state vxlan_tunnel1 up", false) ||
	    env_cli("set interface ip address vxlan_tunnel1 172.16.0.1/30", false) ||
	    env_cli("ip neighbor vxlan_tunnel1 172.16.0.2 02:00:00:00:77:02", false) ||
	    env_cli("ip route add 50.0.0.0/8 via 172.16.0.2 vxlan_tunnel1", false) ||
	    /* VXLAN over IPv6: VNI 9 routed (58.0.0.0/8), VNI 10 bridged */
	    env_cli("ip neighbor port0 2001:db8:1::2 02:00:00:00:00:99", false) ||
	    env_cli("create vxlan tunnel src 2001:db8:1::10 dst 2001:db8:1::2 vni 9", false) ||
	    env_cli("set interface state vxlan_tunnel2 up", false) ||
	    env_cli("set interface ip address vxlan_tunnel2 172.16.9.1/30", false) ||
	    env_cli("ip neighbor vxlan_tunnel2 172.16.9.2 02:00:00:00:77:02", false) ||
	    env_cli("ip route add 58.0.0.0/8 via 172.16.9.2 vxlan_tunnel2", false) ||
	    env_cli("create vxlan tunnel src 2001:db8:1::10 dst 2001:db8:1::2 vni 10", false) ||
	    env_cli("set interface state vxlan_tunnel3 up", false) ||
	    env_cli("set interface l2 bridge vxlan_tunnel3 1", false) ||
	    /* a VRF: VNI 11 routed in table 1 (62.0.0.0/8), so that ip4-lookup and ip6-lookup
	     * look at every vector's ports and tables */
	    env_cli("ip table add 1", false) ||
	    env_cli("create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 11", false) ||
	    env_cli("set interface ip table vxlan_tunnel4 1", false) ||
	    env_cli("set interface state vxlan_tunnel4 up", false) ||
	    env_cli("set interface ip address vxlan_tunnel4 172.16.12.1/30", false) ||
	    env_cli("ip neighbor vxlan_tunnel4 172.16.12.2 02:00:00:00:77:02", false) ||
	    env_cli("ip route add table 1 62.0.0.0/8 via 172.16.12.2 vxlan_tunnel4", false) ||
	    /* GRE with a key (routed), GRE teb (bridged), IP-in-IP (routed, IPv4 and IPv6) */
	    env_cli("create gre tunnel src 10.10.1.10 dst 10.10.1.2 key 3", false) ||
	    env_cli("set interface state gre0 up", false) ||
	    env_cli("set interface ip address gre0 172.16.3.1/30", false) ||
	    env_cli("ip route add 53.0.0.0/8 via 172.16.3.2 gre0", false) ||
	    env_cli("create gre tunnel src 10.10.1.10 dst 10.10.1.2 teb", false) ||
	    env_cli("set interface state gre1 up", false) ||
	    env_cli("set interface l2 bridge gre1 1", false) ||
	    env_cli("create ipip tunnel src 10.10.1.10 dst 10.10.1.2", false) ||
	    env_cli("set interface state ipip0 up", false) ||
	    env_cli("set interface ip address ipip0 172.16.4.1/30", false) ||
	    env_cli("set interface ip address ipip0 2001:db8:44::1/64", false) ||
	    env_cli("ip route add 54.0.0.0/8 via 172.16.4.2 ipip0", false) ||
	    env_cli("ip route add 2001:db8:54::/48 via 2001:db8:44::2 ipip0", false) ||
	    /* GRE (keyed, routed: 59.0.0.0/8) and IP-in-IP over IPv6 */
	    env_cli("create gre tunnel src 2001:db8:1::10 dst 2001:db8:1::2 key 9", false) ||
	    env_cli("set interface state gre2 up", false) ||
	    env_cli("set interface ip address gre2 172.16.10.1/30", false) ||
	    env_cli("ip route add 59.0.0.0/8 via 172.16.10.2 gre2", false) ||
	    env_cli("create ipip tunnel src 2001:db8:1::10 dst 2001:db8:1::2", false) ||
	    env_cli("set interface state ipip1 up", false) ||
	    env_cli("set interface ip address ipip1 2001:db8:45::1/64", false) ||
	    /* MPLS: label 100 pops into table 0 (also under 300, non-eos), from Ethernet on
	     * port0, UDP or GRE; 55/8 leaves by an MPLS-over-UDP tunnel with label 200, 56/8 by an
	     * MPLS-over-GRE one with 300 */
	    env_cli("mpls table add 0", false) ||
	    env_cli("mpls local-label add 100 eos via ip4-lookup-in-table 0", false) ||
	    env_cli("mpls local-label add 300 non-eos via mpls-lookup-in-table 0", false) ||
	    env_cli("set interface mpls port0 enable", false) ||
	    env_cli("create mpls-udp tunnel src 10.10.1.10 dst 10.10.1.2 out-label 200", false) ||
	    env_cli("set interface state mplsudp0 up", false) ||
	    env_cli("set interface ip address mplsudp0 172.16.5.1/30", false) ||
	    env_cli("ip route add 55.0.0.0/8 via 172.16.5.2 mplsudp0", false) ||
	    env_cli("create mpls-gre tunnel src 10.10.1.10 dst 10.10.1.2 out-label 300", false) ||
	    env_cli("set interface state mplsgre0 up", false) ||
	    env_cli("set interface ip address mplsgre0 172.16.6.1/30", false) ||
	    env_cli("ip route add 56.0.0.0/8 via 172.16.6.2 mplsgre0", false) ||
	    /* MPLS over UDP over IPv6 (60.0.0.0/8) */
	    env_cli("create mpls-udp tunnel src 2001:db8:1::10 dst 2001:db8:1::2 out-label 201", false) ||
	    env_cli("set interface state mplsudp1 up", false) ||
	    env_cli("set interface ip address mplsudp1 172.16.11.1/30", false) ||
	    env_cli("ip route add 60.0.0.0/8 via 172.16.11.2 mplsudp1", false) ||
	    /* label swaps (400 at the bottom for 401 402, 410 above another for 411), 420
	     * popped and its IP packet forwarded, and an
	     * MPLS tunnel pushing 500 501 for 57/8 and 2001:db8:57::/48, all to 10.10.1.2 */
	    env_cli("mpls local-label add 400 eos via 10.10.1.2 port0 out-labels 401 402", false) ||
	    env_cli("mpls local-label add 410 non-eos via 10.10.1.2 port0 out-labels 411", false) ||
	    env_cli("mpls local-label add 420 eos via 10.10.1.2 port0", false) ||
	    env_cli("mpls tunnel add via 10.10.1.2 port0 out-labels 500 501", false) ||
	    env_cli("set interface state mpls-tunnel0 up", false) ||
	    env_cli("ip route add 57.0.0.0/8 via mpls-tunnel0", false) ||
	    env_cli("ip route add 2001:db8:57::/48 via mpls-tunnel0", false) ||
	    /* PPPoE served on port0: discovery and PPP to the main lcore's parsers */
	    env_cli("set pppoe address 100.64.0.1", false) ||
	    env_cli("set pppoe pool 100.64.1.1 100.64.1.9", false) ||
	    env_cli("set pppoe user u password p", false) ||
	    env_cli("set pppoe ipv6 prefix 2001:db8:100::/48", false) ||
	    env_cli("set pppoe access port0", false) ||
	    /* a session up at once (its PPP elsewhere): LCP, IPCP and IPv6CP parsed for it, IPv4
	     * and, once IPv6CP opens, IPv6 through it */
	    env_cli("create pppoe session client-ip 100.64.5.5 session-id 4660 client-mac "
		    "02:00:00:00:00:c1 access port0", false) ||
	    /* IPoE (DHCP) on VLAN 300 of port0 */
	    env_cli("create sub-interfaces port0 300", false) ||
	    env_cli("set interface state port0.300 up", false) ||
	    env_cli("set interface ip address port0.300 100.65.0.1/24", false) ||
	    env_cli("set ipoe pool 100.65.0.10 100.65.0.20", false) ||
	    env_cli("set ipoe access port0.300", false) ||
	    /* a policer on port0 that marks what exceeds and violates (nothing dropped) */
	    env_cli("policer add name fz type 1r3c cir 8 cb 1000 eb 500 exceed-action "
		    "mark-and-transmit AF11 violate-action mark-and-transmit 46", false) ||
	    env_cli("policer input name fz port0", false) ||
	    /* port0's input: 9 IPv4 rules and 9 IPv6 ones, so rte_acl with the flow cache in
	     * front for each family (port1's output: linear) */
	    env_cli("set acl-plugin acl deny src 10.99.0.0/16 proto 17, deny dst 48.99.0.0/16 "
		    "proto 6 tcpflags 2 mask 2, deny src 10.98.0.0/16, deny src 10.97.0.0/16 sport "
		    "1-9, deny proto 17 dport 7, deny proto 6 tcpflags 3 mask 3, "
		    "deny src ::/0 proto 58 sport 1, permit src 10.0.0.0/8 dst 48.0.0.0/8 sport "
		    "1-1000, permit", false) ||
	    env_cli("set acl-plugin acl deny dst 2001:db8:48:1::/64, deny src 2001:db8:99::/48 "
		    "proto 17, deny dst 2001:db8:48:2::/64 proto 6 tcpflags 2 mask 2, deny src "
		    "2001:db8:98::/48 sport 1-9, permit", false) ||
	    env_cli("set acl-plugin interface port0 input acl 0", false) ||
	    env_cli("set acl-plugin interface port0 input acl 1", false) ||
	    env_cli("set acl-plugin interface port1 output acl 1", false) ||
	    /* tunnels' own input ACLs: a routed VXLAN tunnel's, a bridged one's, and an L3
	     * tunnel's (its IP made a frame for them) */
	    env_cli("set acl-plugin interface vxlan_tunnel1 input acl 0", false) ||
	    env_cli("set acl-plugin interface vxlan_tunnel3 input acl 1", false) ||
	    env_cli("set acl-plugin interface gre0 input acl 0", false) ||
	    env_cli("set acl-plugin interface ipip0 input acl 1", false) ||
	    /* hierarchical QoS on port1: pipes by VLAN IDs, TCs by DSCP, some remapped */
	    env_cli("qos profile fz rate 10g tc-rates 5g 5g", false) ||
	    env_cli("set interface qos port1 rate 10g profile fz subports 2 pipes 16 "
		    "pipe-from vlan queue-size 64", false) ||
	    env_cli("set qos map port1 dscp 46 tc 0", false) ||
	    env_cli("set qos map port1 dscp 2 tc 12 queue 2", false) ||
	    /* and on port0's output the timing wheel, pipes by destination (qos-output's
	     * wheel_lean: IPv4, IPv6 and PPPoE frames classified in place, the rest by
	     * qos_classify), EF to TC0 */
	    env_cli("qos profile fw rate 10g", false) ||
	    env_cli("set interface qos port0 rate 10g profile fw pipes 16 pipe-from ip-dst "
		    "scheduler wheel", false) ||
	    env_cli("set qos map port0 dscp 46 tc 0", false))
		abort();
	env_walk(2); /* what the set-up sent (a neighbour solicitation) leaves first */
	drain_tx();
	base = rte_mempool_in_use_count(sl_pool);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first byte picks port0's mode (and more below); then one or more frames, each prefixed by a length
	 * byte pair */
	static const char *const modes[] = {
		"set interface l3 port0", "set interface l2 xconnect port0 port1",
		"set interface fwd-mode port0 mac peer port1", "set interface fwd-mode port0 macswap",
		"set interface fwd-mode port0 5tswap peer port1", "set interface l2 bridge port0 1"};
	if (size == 0)
		return 0;
	env_cli(modes[(data[0] & 0x7f) % 6], false);
	/* bit 6: IPoE's DHCP relayed (answers from a server to port0.300's address parsed), else
	 * answered by sluiced's own server */
	env_cli(data[0] & 0x40 ? "set ipoe dhcp-relay server 10.10.2.1" : "set ipoe dhcp-relay del",
		false);
	/* half the first bytes (by another digit than the mode's): VXLAN to the router's VTEPs
	 * straight from ipN-input to vxlanN-input (ip4- and ip6-vxlan-bypass), the rest the long
	 * way */
	bool bypass = (data[0] & 0x7f) / 6 % 2;
	env_cli(bypass ? "set interface ip vxlan-bypass port0" : "set interface ip vxlan-bypass port0 del",
		false);
	env_cli(bypass ? "set interface ip6 vxlan-bypass port0"
		       : "set interface ip6 vxlan-bypass port0 del",
		false);
	bool traced = data[0] & 0x80;
	if (traced)
		env_cli("trace add port-rx 50", true);
	size_t off = 1;
	while (off + 2 <= size) {
		size_t len = ((size_t)data[off] << 8 | data[off + 1]) % 2048;
		off += 2;
		if (len > size - off)
			len = size - off;
		struct rte_mbuf *m = rte_pktmbuf_alloc(sl_pool);
		if (!m)
			abort();
		if (len && !rte_pktmbuf_append(m, (uint16_t)len)) {
			rte_pktmbuf_free(m);
			break;
		}
		memcpy(rte_pktmbuf_mtod(m, void *), data + off, len);
		m->port = 0;
		/* the RX ring holds 1,023 frames: an input with more has the graph take those in
		 * before the rest (a frame the ring refused would be the harness's leak) */
		if (rte_ring_full(env_rx[0]))
			env_walk(4);
		if (rte_ring_enqueue(env_rx[0], m)) {
			rte_pktmbuf_free(m);
			break;
		}
		off += len;
	}
	env_walk(4);
	sl_runtime_drain_punts(sl_punt);
	sl_modules_poll(rte_rdtsc());
	env_walk(2);
	sl_ip4_held_flush(); /* packets held for ARP or ND wait up to a second */
	sl_ip6_held_flush();
	if (traced) {
		env_cli("show trace", true);
		env_cli("clear trace", true);
	}
	drain_tx();
	if (rte_mempool_in_use_count(sl_pool) != base)
		abort(); /* a buffer leaked */
	return 0;
}
