# SPDX-License-Identifier: BSD-3-Clause
"""make bench-graph: the IPv4 and IPv6 routing paths in memory, as VPP measures them with pg
interfaces. sluiced gets two packet-generator interfaces (pg0 in, pg1 out: pg-output counts and
frees), routes 48.0.0.0/8 (IPv6: 2400::/8) via a neighbour on pg1, and a pg stream of UDP
(64-byte frames; IPv6: 62, the smallest IPv6/UDP) pushes a fixed number of packets through one
worker. Reports clocks/packet per node from `show runtime` (median of trials), with one route
and with ROUTES routes (IPv4 /24s, IPv6 /48s, DESTS destinations spread over them; the IPv6
routes' load time too), and instructions/packet per node from a run under callgrind that counts only
the nodes' own functions (N packets minus a run with none), for one path and for 4 (ECMP).
Tunnels (TUNNELS=0 leaves them out): the same route through a VXLAN tunnel and through an
MPLS-over-UDP tunnel, encapsulated (48.0.0.0/8 via the tunnel, its outer headers routed to pg1)
and decapsulated (tunnelled packets in on pg0, the inner packet routed to pg1; VXLAN also with
VPP's bypass on pg0: vxlan-decap-bypass, vxlan6-decap-bypass), against the
plain routed path, in clocks and instructions per packet (and the routed path's frames tagged
802.1Q on a routed sub-interface of pg0: vlan); and the same routed path with an
input policer that every packet conforms to, with an input ACL of one rule and of 1,000
(ACL_RULES) rules that every packet passes by the last (the same over IPv6: routed6 and
acl6-1 and acl6-1000 against it; ACL_FLOW_CACHE=off without the ACL flow cache, FLOWS=N destinations
instead of 4,096), and with hierarchical QoS of 4,096
(QOS_PIPES) pipes on pg1's output (rte_sched, and the same pipes on the timing wheel); the
route over 4 equal paths (ecmp, ecmp6: in clocks, against routed and routed6; with flow-hash
fields set: ecmp-symmetric, ecmp6-symmetric, ecmp6-flowlabel), and 48.0.0.0/8's
256 /16s via 200 neighbours (many-nh: ipN-rewrite's loop for vectors to many adjacencies);
the routed paths in FIB table 1 (vrf, vrf6: ipN-lookup with several tables).
RUNS=routed,acl-1,acl-1000,qos-4096 runs only those of the tunnel runs, and nothing else.
PAIRED=N (with RUNS): each of its feature runs (policer, acl-N, acl6-N, qos-N, qos-N-wheel) in
one daemon, the feature taken off and put back between trials, N pairs of trials in ABBA order:
the cost as the median of the pairs' differences, the rate as the median of their ratios (a
pair's two trials fall in the same period of this host's speed), of the data plane's nodes
alone (pg-input left out) and of the whole path (pg-input, the port's receive, counted), and
the feature's own nodes.
BENCH_KEEP=1 keeps the runs' folder (printed at the end: callgrind's output files, to annotate
per source line with a build that has debug information, SLUICE_BUILD=...)."""
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sluice_run import BUILD, ROOT, Daemon, HugepagesAtLeast, callgrind_inclusive, wait_or_kill  # noqa: E402

PACKETS = int(os.environ.get("PACKETS", "20000000"))
TRIALS = int(os.environ.get("BENCH_TRIALS", "7"))
CG_PACKETS = int(os.environ.get("CG_PACKETS", "100000"))
ROUTES = int(os.environ.get("ROUTES", str(1 << 20)))
# the functions callgrind counts: every node that packets reach, and pg-input's generation
# (not its empty polls, whose number depends on time)
NODE_FUNCS = ["pg_stream_run", "eth_process", "in_process", "lk_process", "rw_process",
              "out_process", "tx_process", "po_process", "drop_process", "arp_process", "lo_process",
              "ie_process", "fr_process", "punt_process", "ic_process", "gl_process",
              "ul_process", "vxi_process", "vxo_process", "vxi6_process", "vxo6_process", "byp_process", "byp6_process",
              "gi_process", "ge_process", "gi6_process", "ge6_process", "mu6_process",
              "me6_process",
              "mu_process", "me_process",
              "pi_process", "ai_process", "qo_process", "qs_polled", "pppoe_in_process",
              "pppoe_out_process"]
# functions called inside counted ones, shown apart (their inclusive counts; not toggled)
INNER_FUNCS = ["rte_acl_classify", "rte_sched_port_enqueue", "rte_sched_port_dequeue", "sl_wheel_enqueue",
               "sl_wheel_dequeue"]
# ECMP's instructions also with pg0 giving the RSS hash (ECMP_RSS=0: not)
ECMP_RSS = os.environ.get("ECMP_RSS", "1") != "0"
TUNNELS = os.environ.get("TUNNELS", os.environ.get("VXLAN", "1")) != "0"

SETUP = """create packet-generator interface pg0
create packet-generator interface pg1
set interface ip address pg0 10.10.1.10/24
set interface ip address pg1 10.10.2.10/24
set interface state pg0 up
set interface state pg1 up
ip neighbor pg1 10.10.2.1 42:01:0a:0a:02:01
ip route add 48.0.0.0/8 via 10.10.2.1
"""
# the same path in FIB table 1 (a VRF): both interfaces in it, so that ip4-lookup takes its
# several tables' loop (one bulk lookup per run of packets in one table)
VRF_SETUP = ("create packet-generator interface pg0\ncreate packet-generator interface pg1\n"
             "ip table add 1\nset interface ip table pg0 1\nset interface ip table pg1 1\n" +
             SETUP.split("create packet-generator interface pg1\n", 1)[1].replace(
                 "ip route add 48.0.0.0/8", "ip route add table 1 48.0.0.0/8"))
# the same route over 4 equal paths (ECMP): four neighbours on pg1, the flow hash per packet
ECMP_SETUP = SETUP + "".join(f"ip neighbor pg1 10.10.2.{i} 42:01:0a:0a:02:0{i}\n"
                             f"ip route add 48.0.0.0/8 via 10.10.2.{i}\n" for i in range(2, 5))

# many adjacencies (as hosts or sessions give ipN-rewrite): 48.0.0.0/8's 256 /16s, each via
# one of 200 neighbours on pg1, the stream's destinations spread over them
MANY_NH_SETUP = SETUP + "".join(f"ip neighbor pg1 10.10.2.{20 + i} 42:01:0a:0a:03:{i:02x}\n"
                                for i in range(200)) + "".join(
    f"ip route add 48.{i}.0.0/16 via 10.10.2.{20 + i % 200}\n" for i in range(256))

# IPv6: the same topology, 2400::/8 via a neighbour on pg1 (ECMP: four of them)
SETUP6 = """create packet-generator interface pg0
create packet-generator interface pg1
set interface ip address pg0 2001:db8:1::10/64
set interface ip address pg1 2001:db8:2::10/64
set interface state pg0 up
set interface state pg1 up
ip neighbor pg1 2001:db8:2::1 42:01:0a:0a:02:01
ip route add 2400::/8 via 2001:db8:2::1
"""
VRF6_SETUP = SETUP6.replace("create packet-generator interface pg1\n", "create packet-generator interface pg1\n"
                            "ip table add 1\nset interface ip table pg0 1\nset interface ip table pg1 1\n"
                            ).replace("ip route add 2400::/8", "ip route add table 1 2400::/8")
ECMP_SETUP6 = SETUP6 + "".join(f"ip neighbor pg1 2001:db8:2::{i} 42:01:0a:0a:02:0{i}\n"
                               f"ip route add 2400::/8 via 2001:db8:2::{i}\n" for i in range(2, 5))

# VXLAN: 48.0.0.0/8 routed into a tunnel whose outer headers go to 10.10.2.1 on pg1 (encap),
# and VXLAN packets from 10.10.1.2 to pg0's address, decapsulated into the tunnel and routed
# to 48.0.0.0/8 on pg1 as in SETUP (decap)
TUN_MAC = "02:fe:76:78:00:00"
VX_ENCAP_SETUP = SETUP.replace("ip route add 48.0.0.0/8 via 10.10.2.1\n", "") + """create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 42
set interface state vxlan_tunnel0 up
set interface ip address vxlan_tunnel0 172.16.0.1/30
ip neighbor vxlan_tunnel0 172.16.0.2 02:00:00:00:77:02
ip route add 48.0.0.0/8 via 172.16.0.2 vxlan_tunnel0
"""
VX_DECAP_SETUP = SETUP + """create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 42
set interface state vxlan_tunnel0 up
set interface ip address vxlan_tunnel0 172.16.0.1/30
"""
# the same with VPP's bypass on pg0: ip4-input hands the VXLAN straight to vxlan4-input
VX_BYPASS_SETUP = VX_DECAP_SETUP + "set interface ip vxlan-bypass pg0\n"
# the same over an IPv6 underlay: the outer headers to 2001:db8:2::1 on pg1, and VXLAN from
# 2001:db8:1::2 to pg0's IPv6 address (its UDP checksum right: ip6-udp-local checks it)
VX6_ENCAP_SETUP = VX_ENCAP_SETUP.replace(
    "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 42",
    "set interface ip address pg1 2001:db8:2::10/64\n"
    "ip neighbor pg1 2001:db8:2::1 42:01:0a:0a:02:01\n"
    "create vxlan tunnel src 2001:db8:2::10 dst 2001:db8:2::1 vni 42")
VX6_DECAP_SETUP = SETUP + """set interface ip address pg0 2001:db8:1::10/64
create vxlan tunnel src 2001:db8:1::10 dst 2001:db8:1::2 vni 42
set interface state vxlan_tunnel0 up
set interface ip address vxlan_tunnel0 172.16.0.1/30
"""
VX6_BYPASS_SETUP = VX6_DECAP_SETUP + "set interface ip6 vxlan-bypass pg0\n"
# GRE (point to point) the same ways, over IPv4 and over IPv6
GRE_ENCAP_SETUP = VX_ENCAP_SETUP.replace(
    "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 42", "create gre tunnel src 10.10.2.10 dst 10.10.2.1").replace(
    "vxlan_tunnel0", "gre0").replace("ip neighbor gre0 172.16.0.2 02:00:00:00:77:02\n", "")
GRE6_ENCAP_SETUP = VX6_ENCAP_SETUP.replace(
    "create vxlan tunnel src 2001:db8:2::10 dst 2001:db8:2::1 vni 42",
    "create gre tunnel src 2001:db8:2::10 dst 2001:db8:2::1").replace(
    "vxlan_tunnel0", "gre0").replace("ip neighbor gre0 172.16.0.2 02:00:00:00:77:02\n", "")
GRE_DECAP_SETUP = VX_DECAP_SETUP.replace("create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 42",
                                         "create gre tunnel src 10.10.1.10 dst 10.10.1.2").replace(
    "vxlan_tunnel0", "gre0")
GRE6_DECAP_SETUP = VX6_DECAP_SETUP.replace("create vxlan tunnel src 2001:db8:1::10 dst 2001:db8:1::2 vni 42",
                                           "create gre tunnel src 2001:db8:1::10 dst 2001:db8:1::2").replace(
    "vxlan_tunnel0", "gre0")


def gre_wrap(p, v6=False):
    """p as the remote 10.10.1.2 (2001:db8:1::2) sends it to pg0 in GRE."""
    from scapy.all import GRE, IP, Ether, IPv6
    outer = IPv6(src="2001:db8:1::2", dst="2001:db8:1::10") if v6 else IP(src="10.10.1.2", dst="10.10.1.10")
    return Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") / outer / GRE() / p[IP]


def gre6_wrap(p):
    return gre_wrap(p, True)


def vxlan6_wrap(p):
    """p as the remote VTEP 2001:db8:1::2 sends it to pg0 in VNI 42 over IPv6."""
    from scapy.all import IP, UDP, Ether, IPv6
    from scapy.layers.vxlan import VXLAN
    return (Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") /
            IPv6(src="2001:db8:1::2", dst="2001:db8:1::10") / UDP(sport=49152, dport=4789) /
            VXLAN(vni=42) / Ether(dst=TUN_MAC, src="02:00:00:00:77:02") / p[IP])


def vxlan_wrap(p):
    """p (a routed test frame) as the remote VTEP 10.10.1.2 sends it to pg0 in VNI 42."""
    from scapy.all import IP, UDP, Ether
    from scapy.layers.vxlan import VXLAN
    return (Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") /
            IP(src="10.10.1.2", dst="10.10.1.10") / UDP(sport=49152, dport=4789, chksum=0) /
            VXLAN(vni=42) / Ether(dst=TUN_MAC, src="02:00:00:00:77:02") / p[IP])


# MPLS over UDP: the same, the encap tunnel pushing label 100, the decap side popping label 100
# into table 0
MU_ENCAP_SETUP = SETUP.replace("ip route add 48.0.0.0/8 via 10.10.2.1\n", "") + """create mpls-udp tunnel src 10.10.2.10 dst 10.10.2.1 out-label 100
set interface state mplsudp0 up
set interface ip address mplsudp0 172.16.0.1/30
ip route add 48.0.0.0/8 via 172.16.0.2 mplsudp0
"""
MU_DECAP_SETUP = SETUP + """mpls table add 0
mpls local-label add 100 eos via ip4-lookup-in-table 0
"""


# PPPoE: 48.0.0.0/8 routed into a session on pg1 (encap: PPPoE and PPP in front of each
# packet, to the client's MAC), and the same frames arriving in a session on pg0 (decap)
PPPOE_ENCAP_SETUP = SETUP.replace("ip route add 48.0.0.0/8 via 10.10.2.1\n", "") + """set pppoe access pg1
create pppoe session client-ip 10.10.2.1 session-id 4660 client-mac 42:01:0a:0a:02:01 access pg1
ip route add 48.0.0.0/8 via pppoe4660
"""
PPPOE_DECAP_SETUP = SETUP + """set pppoe access pg0
create pppoe session client-ip 10.10.1.2 session-id 4660 client-mac 02:00:00:00:00:01 access pg0
"""


def pppoe_wrap(p):
    """p (a routed test frame) as the client sends it to pg0 in session 4660."""
    from scapy.all import IP, Ether, Raw, raw
    from scapy.layers.ppp import PPPoE
    return (Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") / PPPoE(sessionid=4660) /
            Raw(b"\x00\x21" + raw(p[IP])))


# the routed path's frames arriving tagged (802.1Q VLAN 100) on pg0's sub-interface pg0.100,
# which holds pg0's address (vlan: against routed)
VLAN_SETUP = SETUP.replace("set interface ip address pg0 10.10.1.10/24\n", "").replace(
    "set interface state pg0 up\n", "set interface state pg0 up\ncreate sub-interfaces pg0 100\n"
    "set interface ip address pg0.100 10.10.1.10/24\nset interface state pg0.100 up\n")


def vlan_wrap(p):
    from scapy.all import IP, Dot1Q, Ether
    return Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") / Dot1Q(vlan=100) / p[IP]


# a policer on pg0's input that every packet conforms to (100 Gb/s, 100 MB of burst): the
# metering's cost on the routed path
POLICER_SETUP = SETUP + """policer add name p cir 100000000 cb 100000000
policer input name p pg0
"""


ACL_RULES = int(os.environ.get("ACL_RULES", "1000"))
# ACL_LINEAR_MAX=N: set acl-plugin linear-max N before the ACLs of the ACL and BNG runs (0:
# rte_acl always; unset: sluiced's default, rules matched one by one up to 8 a family)
ACL_PRE = (f"set acl-plugin linear-max {os.environ['ACL_LINEAR_MAX']}\n"
           if os.environ.get("ACL_LINEAR_MAX") else "")
# ACL_FLOW_CACHE=off: rte_acl's classifiers without the flow cache in front (on by default)
if os.environ.get("ACL_FLOW_CACHE") == "off":
    ACL_PRE += "set acl-plugin flow-cache off\n"

# hierarchical QoS on pg1's output: 4,096 pipes (seed 003's measure: forwarding with hQoS at
# 0.65 of the rate without), each packet's pipe the low 12 bits of its destination (the
# stream's 4,096 random destinations spread over about 4,000 pipes), the port at 100 Gbit/s
# so that the scheduler, not its shaping, is what is measured
QOS_PIPES = int(os.environ.get("QOS_PIPES", "4096"))
QOS_SETUP = SETUP + f"""qos profile q rate 20g
set interface qos pg1 rate 100g profile q pipes {QOS_PIPES} pipe-from ip-dst
"""


def acl_setup(n, fam=4):
    """The routed path with an input ACL on pg0 of n rules: n - 1 that the stream's packets
    (UDP 10.10.1.2:2123 -> 48.0.0.0/8:10000; IPv6: 2001:db8:1::2 -> 2400::/8) miss, of random
    sources (IPv4 /16-/32 in 10.11-249.0.0; IPv6 /48-/128 in 2001:db8:100::/40) and
    destinations (/16 and /24 in 48.0.0.0/8; /32 and /48 in 2400::/8), protocols and port
    ranges (the same rules in every run), then the one that permits them."""
    rnd = random.Random(16)
    rules = []
    while len(rules) < n - 1:
        if fam == 4:
            src = f"10.{rnd.randrange(11, 250)}.{rnd.randrange(256)}.{rnd.randrange(256)}"
            dst = f"48.{rnd.randrange(256)}.{rnd.randrange(256)}.0"
            lens = ((16, 24, 32), (16, 24))
        else:
            src = (f"2001:db8:{rnd.randrange(0x100, 0x200):x}:{rnd.randrange(65536):x}::"
                   f"{rnd.randrange(1, 65536):x}")
            dst = f"24{rnd.randrange(256):02x}:{rnd.randrange(65536):x}::"
            lens = ((48, 64, 128), (32, 48))
        lo = rnd.randrange(65536)
        hi = min(65535, lo + rnd.choice((0, 0, 15, 1023)))
        rules.append(f"{rnd.choice(('deny', 'permit'))} src {src}/{rnd.choice(lens[0])} "
                     f"dst {dst}/{rnd.choice(lens[1])} proto {rnd.choice((6, 17))} "
                     f"dport {lo}-{hi}")
    rules.append("permit src 10.10.1.0/24 dst 48.0.0.0/8 proto 17" if fam == 4 else
                 "permit src 2001:db8:1::/64 dst 2400::/8 proto 17")
    return ((SETUP if fam == 4 else SETUP6) + ACL_PRE + "set acl-plugin acl " +
            ", ".join(rules) + "\nset acl-plugin interface pg0 input acl 0\n")


def ip6_wrap(p):
    """p (a routed test frame to 48.a.b.c) as the same UDP packet over IPv6, from
    2001:db8:1::2 to 24aa:b::c (routed by SETUP6); 62 bytes."""
    from scapy.all import IP, UDP, Ether, IPv6
    a, b, c = (int(x) for x in p[IP].dst.split(".")[1:])
    return (Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") /
            IPv6(src="2001:db8:1::2", dst=f"24{a:02x}:{b:x}::{c:x}") / UDP(sport=2123, dport=10000))


def mpls_wrap(p):
    """p (a routed test frame) as a remote sends it to pg0 over UDP with label 100."""
    from scapy.all import IP, UDP, Ether
    from scapy.contrib.mpls import MPLS
    return (Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") /
            IP(src="10.10.1.2", dst="10.10.1.10") / UDP(sport=49152, dport=6635, chksum=0) /
            MPLS(label=100, s=1, ttl=64) / p[IP])


# MPLS over UDP over IPv6: the same ways, the outer headers IPv6 (the UDP checksum computed)
MU6_ENCAP_SETUP = MU_ENCAP_SETUP.replace(
    "create mpls-udp tunnel src 10.10.2.10 dst 10.10.2.1 out-label 100",
    "set interface ip address pg1 2001:db8:2::10/64\nip neighbor pg1 2001:db8:2::1 42:01:0a:0a:02:01\n"
    "create mpls-udp tunnel src 2001:db8:2::10 dst 2001:db8:2::1 out-label 100")
MU6_DECAP_SETUP = MU_DECAP_SETUP + "set interface ip address pg0 2001:db8:1::10/64\n"


def mpls6_wrap(p):
    from scapy.all import IP, UDP, Ether, IPv6
    from scapy.contrib.mpls import MPLS
    return (Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") /
            IPv6(src="2001:db8:1::2", dst="2001:db8:1::10") / UDP(sport=49152, dport=6635) /
            MPLS(label=100, s=1, ttl=64) / p[IP])


def stream(limit, pcap):
    return (f"packet-generator new {{ name s0 limit {limit} interface pg0 worker 0 "
            f"pcap {pcap} }}\n")


def write_pcap(path, dsts, wrap=None):
    from scapy.all import IP, UDP, Ether, IPv6, Raw, wrpcap
    eth = Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01")
    pkts = [eth / IPv6(src="2001:db8:1::2", dst=d) / UDP(sport=2123, dport=10000)
            if ":" in d else
            eth / IP(src="10.10.1.2", dst=d) / UDP(sport=2123, dport=10000) / Raw(b"\0" * 18)
            for d in dsts]
    wrpcap(str(path), [wrap(p) for p in pkts] if wrap else pkts)


def route6(i):
    """The i-th IPv6 /48 of the table with many routes: 2001:d00::/40 upwards (16 /32s)."""
    return f"2001:{0xd00 + (i >> 16):x}:{i & 0xffff:x}::/48"


# destinations in the stream: with many routes, enough that the FIB's lines they touch do not
# all stay in the caches (4096 destinations touch 4096 /24s or /48s: about 1 MiB of lines)
DESTS = int(os.environ.get("DESTS", "65536"))
# with one route: FLOWS destinations (4,096; each a flow of its own, as the ACL flow cache
# sees them: FLOWS=262144 is traffic of more flows than it holds)
FLOWS = int(os.environ.get("FLOWS", "4096"))


def destinations(routes, fam=4):
    rnd = random.Random(1)
    n = FLOWS if routes == 1 else DESTS
    if fam == 6:
        if routes == 1:
            return [f"24{rnd.randrange(256):02x}:{rnd.randrange(65536):x}::{rnd.randrange(1, 65536):x}"
                    for _ in range(n)]
        return [route6(rnd.randrange(routes)).replace("::/48", f"::{rnd.randrange(1, 65536):x}")
                for _ in range(n)]
    if routes == 1:
        return [f"48.{rnd.randrange(256)}.{rnd.randrange(256)}.{rnd.randrange(1, 255)}" for _ in range(n)]
    return [f"{16 + rnd.randrange(16)}.{rnd.randrange(256)}.{rnd.randrange(256)}.{rnd.randrange(1, 255)}"
            for _ in range(n)]


def route_lines(routes, fam=4):
    if fam == 6:
        return "".join(f"ip route add {route6(i)} via 2001:db8:2::1\n" for i in range(routes))
    return "".join(f"ip route add {16 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.0/24 via 10.10.2.1\n"
                   for i in range(routes))


def wait_sent(d, n, timeout=300):
    t0 = time.time()
    while time.time() - t0 < timeout:
        s = d.js("show packet-generator")["streams"][0]
        if s["state"] == "disabled" and s["sent"] >= n:
            return
        time.sleep(0.2)
    raise RuntimeError("the stream did not finish")


# issue 5 counts VPP's routing nodes as ip4-input + ip4-lookup + ip4-rewrite + output (its
# stream enters at ip4-input); sluiced's pg-output does both interface-output's and pg1-tx's work
def vpp_set(fam):
    return (f"ip{fam}-input", f"ip{fam}-lookup", f"ip{fam}-rewrite", "pg-output")


def routing(fam):
    return ("ethernet-input", f"ip{fam}-input", f"ip{fam}-lookup", f"ip{fam}-rewrite")


def one_trial(s):
    """One run of the stream s0 (PACKETS packets): clocks/packet per node."""
    s.cli("clear runtime")
    s.cli("packet-generator enable-stream s0")
    wait_sent(s, PACKETS)
    rt = s.js("show runtime")
    # nodes that saw the stream (not those of a stray neighbour discovery or router
    # advertisement: one packet's thousands of clocks would count as the path's)
    return {r["node"]: r["clocks/packet"] for r in rt["runtime"] if r["vectors"] * 100 >= PACKETS}


def stream_trials(s, fam=4):
    """TRIALS runs of the stream s0: each node's clocks/packet, median over the trials, and
    the sums per trial (this machine has fast and slow periods: the spread shows them)."""
    trials = [one_trial(s) for _ in range(TRIALS)]
    nodes = {k: statistics.median(t.get(k, 0) for t in trials) for k in trials[0]}
    sums = {"whole path": [sum(t.values()) for t in trials],
            "routing nodes": [sum(t.get(k, 0) for k in routing(fam)) for t in trials],
            "VPP's set": [sum(t.get(k, 0) for k in vpp_set(fam)) for t in trials]}
    return nodes, sums


def print_sums(sums):
    for k, v in sums.items():
        print(f"   {k:16s} per trial: {', '.join(f'{x:.1f}' for x in v)}; "
              f"min {min(v):.1f}, median {statistics.median(v):.1f}, max {max(v):.1f}")


def measure(tmp, routes, fam=4):
    """The stream through sluiced with `routes` routes of family fam. IPv6's routes are loaded
    by `exec` once sluiced runs, timed (IPv4's: `make bench` times them)."""
    d = tmp / f"rt{fam}-{routes}"
    d.mkdir()
    write_pcap(d / "in.pcap", destinations(routes, fam))
    many = route_lines(routes, fam) if routes > 1 else ""
    if fam == 6:
        (d / "routes.cli").write_text(many)
        setup = SETUP6 + stream(PACKETS, d / "in.pcap")
    else:
        setup = SETUP + many + stream(PACKETS, d / "in.pcap")
    (d / "setup.cli").write_text(setup)
    # DPDK's trie reserves 3 tbl8s (1 KiB each) for every /48 with no covering route longer
    # than /24: 1,048,576 /48s take 3.2 GB, and the IPv6 runs get 4.6 GB of hugepages
    # (both, so that the one-route run is measured with the same memory as the other)
    mem = 1024 if fam == 4 else 4600
    conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{ socket-mem {mem} {DPDK_EXTRA}}}
ip4 {{ max-routes {2097152 if fam == 4 else 1024} tbl8s {1024 if fam == 4 else 256} }}
ip6 {{ max-routes {ROUTES + 65536 if fam == 6 else 1024} tbl8s {3 * ROUTES + 4096 if fam == 6 else 256} }}
"""
    load = None
    with HugepagesAtLeast(mem + 64), Daemon(conf, d) as s:
        if many and fam == 6:
            t0 = time.time()
            s.cli(f"exec {d}/routes.cli")
            load = time.time() - t0
            n = sum(r["routes"] for r in s.js("show ip6 fib summary")["summary"])
            print(f"   {n} IPv6 routes in the table, {routes} loaded by exec in {load:.2f} s")
        nodes, sums = stream_trials(s, fam)
        tx = s.js("show interface pg1")["interfaces"][0]["tx-packets"]
        errs = s.js("show errors")["errors"]
    if errs:
        print(f"   errors: {errs}")
    return nodes, sums, tx


BRIDGE_MACS = int(os.environ.get("BRIDGE_MACS", "100000"))


def bridge(tmp, nmacs):
    """Bridging in memory: pg0 and pg1 (sinks) in bridge domain 1, nmacs MACs in the table
    (l2fib add ... static: learnt or static, the lookup is the same), a pcap stream of 4096
    frames to random ones of them from one source MAC."""
    d = tmp / f"bridge-{nmacs}"
    d.mkdir()
    rnd = random.Random(2)
    mac = lambda i: "02:%02x:%02x:%02x:%02x:02" % (i >> 24 & 255, i >> 16 & 255, i >> 8 & 255, i & 255)  # noqa: E731
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    wrpcap(str(d / "in.pcap"), [Ether(src="02:00:00:00:00:01", dst=mac(rnd.randrange(nmacs))) /
                                IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=2) / Raw(b"\0" * 18)
                                for _ in range(4096)])
    lines = ["create bridge-domain 1", "create packet-generator interface pg0",
             "create packet-generator interface pg1", "set interface state pg0 up",
             "set interface state pg1 up", "set interface l2 bridge pg0 1",
             "set interface l2 bridge pg1 1", "l2fib add 02:00:00:00:00:01 1 pg0 static"]
    lines += [f"l2fib add {mac(i)} 1 pg1 static" for i in range(nmacs)]
    (d / "setup.cli").write_text("\n".join(lines) + "\n" +
                                 f"packet-generator new {{ name s0 limit {PACKETS} interface pg0 "
                                 f"pcap {d}/in.pcap }}\n")
    conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{ socket-mem 1024 {DPDK_EXTRA}}}
"""
    with Daemon(conf, d) as s:
        nodes, _ = stream_trials(s)
        tx = s.js("show interface pg1")["interfaces"][0]["tx-packets"]
        macs = s.js("show bridge-domain 1")["bridge-domains"][0]["macs"]
    return nodes, tx, macs


def callgrind_until_sent(d, extra, n, limit_s, funcs=NODE_FUNCS):
    """sluiced (d/startup.conf) under callgrind with the extra options, counting inside the
    node functions, until pg's stream s0 has sent n frames (at most limit_s seconds, else an
    error: a partial count is not per packet); its output file."""
    out = d / "cg.out"
    args = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no"]
    args += extra + [f"--toggle-collect={f}" for f in funcs]
    log = open(d / "vg.log", "w")
    p = subprocess.Popen(args + [str(BUILD / "sluiced"), str(d / "startup.conf")], stdout=log,
                         stderr=subprocess.STDOUT)
    ctl = [str(BUILD / "sluicectl"), "-s", str(d / "cli.sock"), "--json", "show packet-generator"]
    try:
        for _ in range(limit_s * 2):
            time.sleep(0.5)
            if p.poll() is not None:
                raise RuntimeError((d / "vg.log").read_text()[-2000:])
            r = subprocess.run(ctl, capture_output=True, text=True)
            if r.returncode == 0 and json.loads(r.stdout)["streams"][0]["sent"] >= n:
                break
        else:
            raise RuntimeError(f"{d}: {n} frames not sent in {limit_s} s under callgrind")
    finally:
        if p.poll() is None:
            p.terminate()
            wait_or_kill(p, 300)
        log.close()
    return out


def callgrind(tmp, n, setup=SETUP, tag="1", fam=4, wrap=None):
    d = tmp / f"cg-{tag}-{n}"
    d.mkdir()
    write_pcap(d / "in.pcap", destinations(1, fam), wrap)
    (d / "setup.cli").write_text(setup + stream(max(n, 1), d / "in.pcap") +
                                 ("packet-generator enable-stream s0\n" if n else ""))
    conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
dpdk {{ no-huge {DPDK_EXTRA}}}
ip4 {{ max-routes 1024 tbl8s 256 }}
ip6 {{ max-routes 1024 tbl8s 256 }}
"""
    (d / "startup.conf").write_text(conf)
    out = callgrind_until_sent(d, [], n, 600)
    per, total = {}, 0
    for count, name, _ in callgrind_inclusive(out):
        if name == "PROGRAM":
            total = count
        elif name in NODE_FUNCS or name in INNER_FUNCS:
            per[name] = count
    return total, per


def callgrind_one(tmp, setup, tag, wrap=None):
    """Instructions/packet per counted function for IPv4 with this set-up, and the total."""
    t0, per0 = callgrind(tmp, 0, setup, tag, 4, wrap)
    t1, per1 = callgrind(tmp, CG_PACKETS, setup, tag, 4, wrap)
    return ({f: (per1[f] - per0.get(f, 0)) / CG_PACKETS for f in NODE_FUNCS + INNER_FUNCS
             if per1.get(f)}, (t1 - t0) / CG_PACKETS)


VX_RUNS = (("routed", SETUP, None), ("vxlan-encap", VX_ENCAP_SETUP, None),
           ("vxlan-decap", VX_DECAP_SETUP, vxlan_wrap),
           ("vxlan-decap-bypass", VX_BYPASS_SETUP, vxlan_wrap), ("vxlan6-encap", VX6_ENCAP_SETUP, None),
           ("vxlan6-decap", VX6_DECAP_SETUP, vxlan6_wrap),
           ("vxlan6-decap-bypass", VX6_BYPASS_SETUP, vxlan6_wrap), ("gre-encap", GRE_ENCAP_SETUP, None),
           ("gre-decap", GRE_DECAP_SETUP, gre_wrap), ("gre6-encap", GRE6_ENCAP_SETUP, None),
           ("gre6-decap", GRE6_DECAP_SETUP, gre6_wrap), ("mpls-encap", MU_ENCAP_SETUP, None),
           ("mpls-decap", MU_DECAP_SETUP, mpls_wrap), ("mpls6-encap", MU6_ENCAP_SETUP, None),
           ("mpls6-decap", MU6_DECAP_SETUP, mpls6_wrap), ("pppoe-encap", PPPOE_ENCAP_SETUP, None),
           ("pppoe-decap", PPPOE_DECAP_SETUP, pppoe_wrap), ("vlan", VLAN_SETUP, vlan_wrap),
           ("policer", POLICER_SETUP, None),
           ("acl-1", acl_setup(1), None), (f"acl-{ACL_RULES}", acl_setup(ACL_RULES), None),
           ("routed6", SETUP6, ip6_wrap), ("acl6-1", acl_setup(1, 6), ip6_wrap),
           (f"acl6-{ACL_RULES}", acl_setup(ACL_RULES, 6), ip6_wrap),
           ("ecmp", ECMP_SETUP, None), ("ecmp6", ECMP_SETUP6, ip6_wrap),
           # the same with the table's flow-hash fields set (computed for every packet)
           ("ecmp-symmetric", ECMP_SETUP + "set ip flow-hash table 0 src dst sport dport proto symmetric\n", None),
           ("ecmp6-symmetric", ECMP_SETUP6 + "set ip6 flow-hash table 0 src dst sport dport proto flowlabel symmetric\n",
            ip6_wrap),
           # IPv6's default and the flow label (RFC 6438), which the default leaves out as VPP's
           ("ecmp6-flowlabel", ECMP_SETUP6 + "set ip6 flow-hash table 0 src dst sport dport proto flowlabel\n",
            ip6_wrap),
           ("many-nh", MANY_NH_SETUP, None), ("vrf", VRF_SETUP, None), ("vrf6", VRF6_SETUP, ip6_wrap),
           (f"qos-{QOS_PIPES}", QOS_SETUP, None),
           (f"qos-{QOS_PIPES}-wheel", QOS_SETUP.replace("pipe-from ip-dst",
                                                         "pipe-from ip-dst scheduler wheel"), None))
# RUNS=routed,acl-1,acl-1000: only those (the routed one is what the others are compared with),
# and neither the routing tables' runs nor bridging nor ECMP
# DPDK_EXTRA="eal-args \"--force-max-simd-bitwidth=512\"": more for every daemon's dpdk section
DPDK_EXTRA = os.environ.get("DPDK_EXTRA", "") + " " if os.environ.get("DPDK_EXTRA") else ""
ONLY = bool(os.environ.get("RUNS"))  # (bng: the BNG runs below)
if ONLY:
    VX_RUNS = tuple(r for r in VX_RUNS if r[0] in os.environ["RUNS"].split(","))


# The BNG at issue 17's scale (RUNS=bng, or BNG=1 beside the rest): BNG_SESSIONS PPPoE sessions
# on pg1 (made by create pppoe session, the data path alone), the stream one packet to each
# session's address in a random order, against the same packets routed to pg1 without
# sessions (by one route to one next hop, and to as many hosts on pg1's subnet); then with each session's own QoS pipe (the port at 100 Gbit/s and every pipe at 10:
# the scheduler's cost, not its shaping) and an output ACL on each session's interface (two
# rules, the packets permitted by the first); and the same with the pipes on the timing wheel
# (scheduler wheel) instead of rte_sched
BNG_SESSIONS = int(os.environ.get("BNG_SESSIONS", "20000"))
BNG = os.environ.get("BNG") == "1" or "bng" in os.environ.get("RUNS", "").split(",")


def bng_addr(i):
    return f"100.64.{(i + 1) >> 8}.{(i + 1) & 255}"


def bng_mac(i):
    return "02:cc:00:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255, i & 255)


def bng_setups(n, base_setup=SETUP, up_if="pg0", dn_if="pg1"):
    """(name, CLI) of each BNG run: base_setup addresses up_if (10.10.1.10/24) and dn_if
    (10.10.2.10/24, neighbour 10.10.2.1) and routes 48.0.0.0/8 to it; scripts/memif_dut.py
    gives the same runs on memif ports."""
    routed = base_setup + "ip route add 100.64.0.0/16 via 10.10.2.1\n"
    base = base_setup + f"set pppoe access {dn_if}\n"
    mac = bng_mac
    sess = "".join(f"create pppoe session client-ip {bng_addr(i)} session-id {i + 1} client-mac {mac(i)} "
                   f"access {dn_if}{{q}}\n" for i in range(n))
    pipes = 1 << max(n, 1).bit_length()
    qos = (f"qos profile q rate 10g\nset interface qos {dn_if} rate 100g profile q pipes {pipes} "
           "pipe-from none\n" + ACL_PRE + "set acl-plugin acl permit dst 100.64.0.0/10 proto 17, deny\n")
    acls = "".join(f"set acl-plugin interface pppoe{i + 1} output acl 0\n" for i in range(n))
    # the same destinations as hosts on dn_if's subnet: an adjacency each, as the sessions have
    hosts = base_setup + f"set interface ip address {dn_if} 100.64.255.254/16\n" + "".join(
        f"ip neighbor {dn_if} {bng_addr(i)} {mac(i)}\n" for i in range(n))
    # upstream: the same sessions on up_if, each sending its packet to 48.0.0.0/8 (routed to
    # dn_if), with an input ACL each, against the same inner packets routed from up_if
    up = base_setup + f"set pppoe access {up_if}\n" + sess.replace(f"access {dn_if}{{q}}", f"access {up_if}")
    up_acls = (ACL_PRE + "set acl-plugin acl permit src 100.64.0.0/10 proto 17, deny\n" +
               "".join(f"set acl-plugin interface pppoe{i + 1} input acl 0\n" for i in range(n)))
    wheel = qos.replace("pipe-from none", "pipe-from none scheduler wheel")
    return (("bng-routed", routed), (f"bng-{n}-hosts", hosts), (f"bng-{n}", base + sess.replace("{q}", "")),
            (f"bng-{n}-qos-acl", base + qos + sess.replace("{q}", " qos-profile q") + acls),
            (f"bng-{n}-wheel-acl", base + wheel + sess.replace("{q}", " qos-profile q") + acls),
            ("bng-up-routed", base_setup), (f"bng-up-{n}", up), (f"bng-up-{n}-acl", up + up_acls))


def bng_up_pcap(path, order, sessions):
    """Upstream frames: session i's client (MAC bng_mac(i), session id i + 1) sending UDP from
    its address to 48.0.0.0/8, in PPPoE when sessions, else as plain IPv4 from its MAC."""
    from scapy.all import IP, UDP, Ether, Raw, raw, wrpcap
    from scapy.layers.ppp import PPPoE
    out = []
    for i in order:
        ip = IP(src=bng_addr(i), dst=f"48.0.{i >> 8 & 255}.{i & 255 or 1}") / UDP(sport=2123, dport=10000) / Raw(b"\0" * 18)
        e = Ether(dst="02:fe:00:00:00:00", src=bng_mac(i))
        out.append(e / PPPoE(sessionid=i + 1) / Raw(b"\x00\x21" + raw(ip)) if sessions else e / ip)
    wrpcap(str(path), out)


def bng_clocks(tmp):
    """Clocks/packet per node: the same packets routed, into BNG_SESSIONS sessions, and into
    them with a QoS pipe and an ACL each; how long each set-up took."""
    out = {}
    rnd = random.Random(17)
    order = list(range(BNG_SESSIONS))
    rnd.shuffle(order)
    only = os.environ.get("BNG_ONLY", "")  # tags to run (bng-routed,bng-20000,...); all
    for tag, setup in bng_setups(BNG_SESSIONS):
        if only and tag not in only.split(","):
            continue
        d = tmp / tag
        d.mkdir()
        if tag.startswith("bng-up"):
            bng_up_pcap(d / "in.pcap", order, tag != "bng-up-routed")
        else:
            write_pcap(d / "in.pcap", [bng_addr(i) for i in order])
        (d / "setup.cli").write_text(setup)
        (d / "stream.cli").write_text(stream(PACKETS, d / "in.pcap"))
        conf = f"""unix {{ cli-listen {d}/cli.sock log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{ socket-mem 1536 {DPDK_EXTRA}}}
"""
        with HugepagesAtLeast(1600), Daemon(conf, d) as s:
            t0 = time.time()
            s.cli(f"exec {d}/setup.cli")
            took = time.time() - t0
            s.cli(f"exec {d}/stream.cli")
            nodes, sums = stream_trials(s)
            tx = s.js("show interface pg1")["interfaces"][0]["tx-packets"]
            errs = s.js("show errors")["errors"]
            nsess = len(s.js("show pppoe sessions")["pppoe-sessions"])
        if errs:
            print(f"   {tag} errors: {errs}")
        out[tag] = (nodes, sums["whole path"], tx, took, nsess)
    return out


# BNG_SHAPE=R (a rate as `qos profile` takes it, 64k): issue 17's per-subscriber shaping at
# scale instead of the clocks. The BNG_SESSIONS sessions, each with its own pipe on the wheel
# at R and the output ACL (bng-N-wheel-acl's set-up with R for 10g, FIFOs of 8), offered BNG_OFFER frames a
# second in all (4,000,000: one to each session in turn, 200 a second each with 20,000, more
# than R allows); after BNG_WARMUP s (3), BNG_SAMPLE pipes of sessions taken at random (200)
# are read twice, BNG_WINDOW s (10) apart: each one's rate (frames sent, each counted with the
# scheduler's 24 bytes of overhead) against R.
BNG_SHAPE = os.environ.get("BNG_SHAPE", "")


def rate_bits(r):
    return float(r[:-1]) * {"k": 1e3, "m": 1e6, "g": 1e9}[r[-1]] if r[-1] in "kmg" else float(r)


def bng_shaping(tmp):
    """Each sampled pipe's rate / BNG_SHAPE, and what the stream and the scheduler did."""
    n, want = BNG_SESSIONS, rate_bits(BNG_SHAPE)
    offer = int(os.environ.get("BNG_OFFER", "4000000"))
    warm = float(os.environ.get("BNG_WARMUP", "3"))
    window = float(os.environ.get("BNG_WINDOW", "10"))
    sample = int(os.environ.get("BNG_SAMPLE", "200"))
    # FIFOs of 8 frames: 20,000 full ones of 64 would hold more buffers than the pool has
    setup = dict(bng_setups(n))[f"bng-{n}-wheel-acl"].replace(
        "qos profile q rate 10g", f"qos profile q rate {BNG_SHAPE}").replace(
        "pipe-from none", "queue-size 8 pipe-from none")
    order = list(range(n))
    rnd = random.Random(17)
    rnd.shuffle(order)
    d = tmp / "bng-shape"
    d.mkdir()
    write_pcap(d / "in.pcap", [bng_addr(i) for i in order])
    (d / "setup.cli").write_text(setup)
    (d / "stream.cli").write_text(f"packet-generator new {{ name s0 rate {offer} interface pg0 "
                                  f"worker 0 pcap {d / 'in.pcap'} }}\n")
    # buffers for every FIFO full (160,000) and the stream: 16,384 would leave most pipes
    # without a frame to send
    conf = f"""unix {{ cli-listen {d}/cli.sock log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{ socket-mem 1536 {DPDK_EXTRA}}}
buffers {{ buffers-per-numa 262144 }}
"""
    with HugepagesAtLeast(1600), Daemon(conf, d) as s:
        s.cli(f"exec {d}/setup.cli")
        s.cli(f"exec {d}/stream.cli")
        pipes = [x["qos-pipe"] for x in s.js("show pppoe sessions")["pppoe-sessions"]]
        picked = rnd.sample(pipes, min(sample, len(pipes)))
        s.cli("packet-generator enable-stream s0")
        time.sleep(warm)

        def read(p):  # the pipe's sent totals: frames that waited in a queue and those that
            # passed at once (a queue's counts have only the first)
            q = s.js(f"show qos pg1 subport 0 pipe {p}")["qos-pipe"][0]
            return time.time(), q["sent-packets"], q["sent-bytes"]
        first = {p: read(p) for p in picked}
        time.sleep(window)
        last = {p: read(p) for p in picked}
        sent = s.js("show packet-generator")["streams"][0]["sent"]
        tx = s.js("show interface pg1")["interfaces"][0]["tx-packets"]
        errs = s.js("show errors")["errors"]
    ratios = []
    for p in picked:
        (t0, f0, b0), (t1, f1, b1) = first[p], last[p]
        ratios.append((b1 - b0 + 24 * (f1 - f0)) * 8 / (t1 - t0) / want)
    return ratios, sent, tx, errs


# BNG_CACHE=N: each BNG run (BNG_ONLY's) under callgrind's cache simulation instead, N packets
# (several passes over the sessions) after the set-up: per node, instructions, data reads and
# writes, and the data lines missed in a 32 KB L1 and in a 1 MB last level (this machine's
# per-core L2), per packet. Deterministic, where the clocks of the runs above swing by hundreds.
BNG_CACHE = int(os.environ.get("BNG_CACHE", "0"))
CACHE_EVENTS = ("Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw")
# and the output arc's nodes, which the BNG's ACL and QoS runs go through (acl-output,
# interface-output-features, interface-tx)
CACHE_FUNCS = NODE_FUNCS + ["ao_process", "of_process", "it_process"]


def bng_cachesim(tmp):
    """tag -> {node function: {event: per packet}}, each BNG run's set-up then BNG_CACHE
    packets, the counts taken inside the node functions only; printed as each run ends."""
    out = {}
    order = list(range(BNG_SESSIONS))
    random.Random(17).shuffle(order)
    only = os.environ.get("BNG_ONLY", "")
    for tag, setup in bng_setups(BNG_SESSIONS):
        if only and tag not in only.split(","):
            continue
        d = tmp / f"cache-{tag}"
        d.mkdir()
        if tag.startswith("bng-up"):
            bng_up_pcap(d / "in.pcap", order, tag != "bng-up-routed")
        else:
            write_pcap(d / "in.pcap", [bng_addr(i) for i in order])
        (d / "setup.cli").write_text(setup + stream(BNG_CACHE, d / "in.pcap") +
                                     "packet-generator enable-stream s0\n")
        conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
dpdk {{ no-huge socket-mem 1536 {DPDK_EXTRA}}}
"""
        (d / "startup.conf").write_text(conf)
        cg = callgrind_until_sent(d, ["--cache-sim=yes", "--D1=32768,8,64", "--LL=1048576,16,64"],
                                  BNG_CACHE, 2400, CACHE_FUNCS)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--show=" + ",".join(CACHE_EVENTS),
                              str(cg)], capture_output=True, text=True).stdout
        per = {}
        for line in ann.splitlines():
            # each event's count ("." for none), maybe with its share in parentheses, then
            # the function
            toks = re.sub(r"\([^)]*\)", " ", line).split()
            if len(toks) <= len(CACHE_EVENTS) or not all(re.fullmatch(r"[\d,]+|\.", t)
                                                         for t in toks[:len(CACHE_EVENTS)]):
                continue
            nums = [int(t.replace(",", "")) if t != "." else 0 for t in toks[:len(CACHE_EVENTS)]]
            name = toks[len(CACHE_EVENTS)].rsplit(":", 1)[-1]
            if name in CACHE_FUNCS or name in INNER_FUNCS:
                per[name] = {e: v / BNG_CACHE for e, v in zip(CACHE_EVENTS, nums)}
        out[tag] = per
        print(f"   {tag}: " + "  ".join(CACHE_EVENTS), flush=True)
        for f in CACHE_FUNCS + INNER_FUNCS:
            if f in per:
                inner = "  (inside)" if f in INNER_FUNCS else ""
                print(f"     {f:18s} " + " ".join(f"{per[f][e]:7.1f}" for e in CACHE_EVENTS) + inner)
        tot = {e: sum(per[f][e] for f in per if f in CACHE_FUNCS) for e in CACHE_EVENTS}
        print(f"     {'all nodes':18s} " + " ".join(f"{tot[e]:7.1f}" for e in CACHE_EVENTS), flush=True)
    return out


def print_runs(runs, more=lambda v: ""):
    """runs: tag -> (clocks per node, whole path per trial, pg1 sent, ...): a table of the
    nodes, each run's trials; the medians of the whole path."""
    names = []
    for v in runs.values():
        names += [k for k in v[0] if k not in names]
    for k in names:
        print(f"   {k:16s} " + " | ".join(f"{runs[t][0].get(k, 0):8.1f}" for t in runs))
    med = {t: statistics.median(v[1]) for t, v in runs.items()}
    for t, v in runs.items():
        print(f"   {t:18s} whole path per trial: " + ", ".join(f"{x:.1f}" for x in v[1]) +
              f"; median {med[t]:.1f}; pg1 sent {v[2]}" + more(v))
    return med


def vx_added(v, unit, gen=None):
    """What encapsulation and decapsulation add to the routed path (v: per run), per kind;
    with gen (per run: what the packet generator's own part cost), also without it (the
    decapsulation runs' frames are longer to build: the generator's cost, not the path's)."""
    for label, w in (("", v),) + ((("; the data plane's nodes alone (pg-input left out)",
                                    {t: v[t] - gen[t] for t in v}),) if gen else ()):
        print(f"   added ({unit}){label}:")
        for t in (t for t in w if t.startswith("acl6-") and "routed6" in w):
            print(f"     an input ACL of {t[5:]} IPv6 rule(s), on the IPv6 routed path "
                  f"{w[t] - w['routed6']:+.1f}")
        if "vrf6" in w and "routed6" in w:
            print(f"     the IPv6 path in FIB table 1 (a VRF) {w['vrf6'] - w['routed6']:+.1f}")
        if "ecmp6" in w and "routed6" in w:
            print(f"     IPv6 over 4 equal paths (ECMP), against one {w['ecmp6'] - w['routed6']:+.1f}")
        if "ecmp6-symmetric" in w and "routed6" in w:
            print(f"     the same with set ip6 flow-hash ... symmetric {w['ecmp6-symmetric'] - w['routed6']:+.1f}")
        if "ecmp6-flowlabel" in w and "routed6" in w:
            print(f"     the same with set ip6 flow-hash ... flowlabel {w['ecmp6-flowlabel'] - w['routed6']:+.1f}")
        if "routed" not in w:  # RUNS without the IPv4 routed path: nothing else to compare
            continue
        r = w["routed"]
        if "ecmp" in w:
            print(f"     IPv4 over 4 equal paths (ECMP), against one {w['ecmp'] - r:+.1f}")
        if "ecmp-symmetric" in w:
            print(f"     the same with set ip flow-hash ... symmetric {w['ecmp-symmetric'] - r:+.1f}")
        for k in ("vxlan", "vxlan6", "mpls", "pppoe"):
            if f"{k}-encap" not in w or f"{k}-decap" not in w:
                continue
            e, d = w[f"{k}-encap"], w[f"{k}-decap"]
            print(f"     {k:6s} encapsulation {e - r:+.1f}, decapsulation {d - r:+.1f}, "
                  f"both {e + d - 2 * r:+.1f}")
            if f"{k}-decap-bypass" in w:
                b = w[f"{k}-decap-bypass"]
                print(f"     {k:6s} with the bypass on the underlay: decapsulation {b - r:+.1f}, "
                      f"both {e + b - 2 * r:+.1f}")
        if "policer" in w:
            print(f"     an input policer {w['policer'] - r:+.1f}")
        if "vrf" in w:
            print(f"     the same path in FIB table 1 (a VRF) {w['vrf'] - r:+.1f}")
        for t in (t for t in w if t.startswith("acl-")):
            print(f"     an input ACL of {t[4:]} rule(s) {w[t] - r:+.1f}")
        for t in (t for t in w if t.startswith("qos-")):
            print(f"     hierarchical QoS on {t[4:]} pipes {w[t] - r:+.1f}; rate with it / "
                  f"without (the ratio inverted) {r / w[t]:.3f}")


def stream_run_dir(tmp, name, setup, wrap):
    """A run's folder: the stream's pcap (FLOWS destinations, wrapped), its setup and the
    daemon's configuration (one worker), which it returns with the folder."""
    d = tmp / name
    d.mkdir()
    write_pcap(d / "in.pcap", destinations(1), wrap)
    (d / "setup.cli").write_text(setup + stream(PACKETS, d / "in.pcap"))
    return d, f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{ socket-mem 1024 {DPDK_EXTRA}}}
"""


def vxlan_clocks(tmp):
    """Clocks/packet per node and of the whole path per trial: routed, encapsulated and
    decapsulated, one daemon after the other."""
    out = {}
    for tag, setup, wrap in VX_RUNS:
        d, conf = stream_run_dir(tmp, f"vx-{tag}", setup, wrap)
        with Daemon(conf, d) as s:
            nodes, sums = stream_trials(s)
            tx = s.js("show interface pg1")["interfaces"][0]["tx-packets"]
            errs = s.js("show errors")["errors"]
            fc = (s.js("show acl-plugin flow-cache").get("acl-flow-cache", [])  # (older builds: none)
                  if tag.startswith("acl") else [])
        if errs:
            print(f"   {tag} errors: {errs}")
        for r in (r for r in fc if r["direction"] == "input" and r["lookups"] + r["bypassed"]):
            print(f"   {tag} {r['family']} flow cache (worker {r['worker']}): {r['state']}, {r['lookups']} looked up, "
                  f"{r['hits']} found, {r['bypassed']} classified by rte_acl alone while it rested")
        out[tag] = (nodes, sums["whole path"], tx)
    return out


# PAIRED=N: each feature run of RUNS measured against routing in one daemon, the feature taken
# off and put back between trials (the commands below), N pairs in ABBA order (off-on, on-off,
# ...), so that each pair's two trials fall in the same period of this host's speed; the
# cost as the median of the pairs' differences and the rate as the median of their ratios
QOS_LINE = QOS_SETUP.splitlines()[-1]
FEATURE_TOGGLES = {
    "policer": ("policer input name p pg0 unapply", "policer input name p pg0"),
    "acl": ("set acl-plugin interface pg0 input acl 0 del", "set acl-plugin interface pg0 input acl 0"),
    f"qos-{QOS_PIPES}": ("set interface qos pg1 disable", QOS_LINE),
    f"qos-{QOS_PIPES}-wheel": ("set interface qos pg1 disable", QOS_LINE + " scheduler wheel"),
}
PAIRED = int(os.environ.get("PAIRED", "0"))


def toggles(tag):
    return FEATURE_TOGGLES.get("acl" if tag.startswith(("acl-", "acl6-")) else tag)


def paired_clocks(tmp):
    """Per feature run with a toggle: (pairs of (off, on) whole-path sums without pg-input,
    the feature's own nodes' clocks per pair, pairs of (off, on) whole-path sums with it)."""
    out = {}
    for tag, setup, wrap in VX_RUNS:
        if not toggles(tag):
            continue
        off, on = toggles(tag)
        d, conf = stream_run_dir(tmp, f"pair-{tag}", setup, wrap)
        pairs, own, whole = [], [], []
        with Daemon(conf, d) as s:
            base_nodes, now = None, "on"
            for i in range(PAIRED):
                got = {}
                for state in (("off", "on") if i % 2 == 0 else ("on", "off")):
                    if state != now:  # (the set-up leaves it on)
                        s.cli(off if state == "off" else on)
                        now = state
                    got[state] = one_trial(s)
                if base_nodes is None:
                    base_nodes = set(got["off"])
                alone = {k: sum(v for n, v in t.items() if n != "pg-input") for k, t in got.items()}
                pairs.append((alone["off"], alone["on"]))
                whole.append((sum(got["off"].values()), sum(got["on"].values())))
                own.append(sum(v for n, v in got["on"].items() if n not in base_nodes))
            errs = s.js("show errors")["errors"]
        if errs:
            print(f"   {tag} errors: {errs}")
        out[tag] = (pairs, own, whole)
    return out


def print_paired(res):
    for tag, (pairs, own, whole) in res.items():
        diffs = [b - a for a, b in pairs]
        ratios = [a / b for a, b in pairs]
        print(f"   {tag}: {len(pairs)} pairs, the nodes alone (pg-input left out), off -> on: " +
              ", ".join(f"{a:.1f} -> {b:.1f}" for a, b in pairs))
        print("     the feature's own nodes per pair: " + ", ".join(f"{x:.1f}" for x in own) +
              f"; median {statistics.median(own):.1f}")
        print(f"     cost (the pairs' differences, median) {statistics.median(diffs):+.1f}; "
              f"rate with it / without (the pairs' ratios inverted, median) "
              f"{statistics.median(ratios):.3f}; each: " + ", ".join(f"{x:.3f}" for x in ratios))
        # the forwarding rate itself: the whole path, pg-input (the port's receive) counted
        wr = [a / b for a, b in whole]
        print("     the whole path (pg-input counted), off -> on: " +
              ", ".join(f"{a:.1f} -> {b:.1f}" for a, b in whole) +
              f"; rate with it / without (median) {statistics.median(wr):.3f}; each: " +
              ", ".join(f"{x:.3f}" for x in wr))


def callgrind_pair(tmp, fam, setup, ecmp_setup, tag=""):
    """Instructions/packet per counted function, one path and 4 equal paths; the totals."""
    t0, per0 = callgrind(tmp, 0, setup, f"{fam}{tag}-1", fam)
    t1, per1 = callgrind(tmp, CG_PACKETS, setup, f"{fam}{tag}-1", fam)
    one = {f: (per1[f] - per0.get(f, 0)) / CG_PACKETS for f in NODE_FUNCS if per1.get(f)}
    e0, pe0 = callgrind(tmp, 0, ecmp_setup, f"{fam}{tag}-ecmp", fam)
    e1, pe1 = callgrind(tmp, CG_PACKETS, ecmp_setup, f"{fam}{tag}-ecmp", fam)
    four = {f: (pe1[f] - pe0.get(f, 0)) / CG_PACKETS for f in NODE_FUNCS if pe1.get(f)}
    return one, (t1 - t0) / CG_PACKETS, four, (e1 - e0) / CG_PACKETS


def main():
    tmp = Path(tempfile.mkdtemp(prefix="sluice-bench-graph-"))
    try:
        results = {}
        for fam in (4, 6) if PACKETS and not ONLY else ():
            for routes in sorted({1, ROUTES}):
                print(f"== IPv{fam}, {routes} route(s), {PACKETS} packets of "
                      f"{64 if fam == 4 else 62} bytes, {TRIALS} trials (clocks/packet, median)",
                      flush=True)
                nodes, sums, tx = measure(tmp, routes, fam)
                results[fam, routes] = statistics.median(sums["routing nodes"])
                for k, v in nodes.items():
                    print(f"   {k:16s} {v:8.1f}")
                print(f"   routing nodes ({' + '.join(routing(fam))}): "
                      f"{sum(nodes.get(k, 0) for k in routing(fam)):.1f}; VPP's set "
                      f"({' + '.join(vpp_set(fam))}): {sum(nodes.get(k, 0) for k in vpp_set(fam)):.1f}; "
                      f"whole path: {sum(nodes.values()):.1f}; pg1 sent {tx}")
                print_sums(sums)
        if PACKETS and not ONLY:
            print("== routing nodes, medians of the per-trial sums (clocks/packet): "
                  + "; ".join(f"IPv{f} {r} route(s) {v:.1f}" for (f, r), v in results.items()))
            for r in sorted({1, ROUTES}):
                print(f"   IPv6 / IPv4, {r} route(s): {results[6, r] / results[4, r]:.2f}")
            if ROUTES > 1:
                for f in (4, 6):
                    print(f"   IPv{f} rate with {ROUTES} routes / with one (clocks ratio inverted): "
                          f"{results[f, 1] / results[f, ROUTES]:.2f}")
        if BRIDGE_MACS and PACKETS and not ONLY:
            for nm in (10, BRIDGE_MACS):
                nodes, tx, macs = bridge(tmp, nm)
                print(f"== bridging, {macs} MACs in the table, {PACKETS} packets of 64 bytes "
                      f"(clocks/packet, median of {TRIALS})", flush=True)
                for k, v in nodes.items():
                    print(f"   {k:16s} {v:8.1f}")
                print(f"   whole path: {sum(nodes.values()):.1f}; pg1 sent {tx}")
        if TUNNELS and PACKETS and VX_RUNS and not PAIRED:
            print(f"== tunnels, {PACKETS} packets (64-byte inner frames), {TRIALS} trials "
                  "(clocks/packet, median): " + " | ".join(t for t, _, _ in VX_RUNS), flush=True)
            vx = vxlan_clocks(tmp)
            med = print_runs(vx)
            vx_added(med, "clocks/packet", {t: vx[t][0].get("pg-input", 0) for t in vx})
        if PAIRED and PACKETS and VX_RUNS:
            print(f"== features paired with routing in one daemon, {PACKETS} packets (64-byte "
                  f"frames) a trial, {PAIRED} pairs (clocks/packet)", flush=True)
            print_paired(paired_clocks(tmp))
        if BNG and PACKETS:
            print(f"== BNG: {PACKETS} packets of 64 bytes, one to each of {BNG_SESSIONS} addresses "
                  f"in turn, {TRIALS} trials (clocks/packet, median)", flush=True)
            b = bng_clocks(tmp)
            med = print_runs(b, lambda v: f"; {v[4]} sessions set up in {v[3]:.1f} s")
            bases = ("bng-routed", f"bng-{BNG_SESSIONS}-hosts", "bng-up-routed")
            for base in [t for t in bases if t in b]:
                up = base.startswith("bng-up")
                for t in [t for t in b if t not in bases and t.startswith("bng-up") == up]:
                    print(f"   {t}: rate / {base} (clocks ratio inverted) {med[base] / med[t]:.3f}")
        if BNG and BNG_SHAPE:
            print(f"== BNG shaping: {BNG_SESSIONS} sessions, each pipe on the wheel at "
                  f"{BNG_SHAPE}, rate of sampled pipes / {BNG_SHAPE}", flush=True)
            ratios, sent, tx, errs = bng_shaping(tmp)
            ok = sum(abs(r - 1) < 0.05 for r in ratios)
            q = statistics.quantiles(ratios, n=100)
            print(f"   {len(ratios)} pipes: min {min(ratios):.4f}, p1 {q[0]:.4f}, median "
                  f"{statistics.median(ratios):.4f}, p99 {q[98]:.4f}, max {max(ratios):.4f}; "
                  f"within 5%: {ok} of {len(ratios)}")
            print(f"   stream sent {sent}, pg1 sent {tx}; errors: {errs}")
        if BNG and BNG_CACHE and shutil.which("valgrind"):
            print(f"== BNG under callgrind's cache simulation (L1 32 KB, last level 1 MB): "
                  f"{BNG_CACHE} packets over {BNG_SESSIONS} sessions, per packet", flush=True)
            bng_cachesim(tmp)
        if shutil.which("valgrind") and CG_PACKETS and TUNNELS and VX_RUNS:
            print(f"== callgrind, tunnels: instructions/packet ({CG_PACKETS} packets minus 0), "
                  + " | ".join(t for t, _, _ in VX_RUNS), flush=True)
            cg = {t: callgrind_one(tmp, setup, f"vx-{t}", wrap) for t, setup, wrap in VX_RUNS}
            for f in NODE_FUNCS + INNER_FUNCS:
                if any(f in v[0] for v in cg.values()):
                    inner = "  (inside the above)" if f in INNER_FUNCS else ""
                    print(f"   {f:16s} " + " | ".join(f"{cg[t][0].get(f, 0):8.1f}" for t in cg)
                          + inner)
            tot = {t: v[1] for t, v in cg.items()}
            print("   all counted functions: " + " | ".join(f"{v:.1f}" for v in tot.values()))
            vx_added(tot, "instructions/packet", {t: v[0].get("pg_stream_run", 0) for t, v in cg.items()})
        if shutil.which("valgrind") and CG_PACKETS and not ONLY:
            totals = {}
            for fam, setup, ecmp in ((4, SETUP, ECMP_SETUP), (6, SETUP6, ECMP_SETUP6)):
                print(f"== callgrind, IPv{fam}: instructions/packet ({CG_PACKETS} packets minus 0), "
                      "one path | 4 equal paths (ECMP)", flush=True)
                one, t1, four, t4 = callgrind_pair(tmp, fam, setup, ecmp)
                for f in NODE_FUNCS:
                    if f in one or f in four:
                        print(f"   {f:16s} {one.get(f, 0):8.1f} | {four.get(f, 0):8.1f}")
                print(f"   all counted functions: {t1:.1f} | {t4:.1f} ({t4 - t1:+.1f} for ECMP)")
                totals[fam] = (one, t1)
                if not ECMP_RSS:
                    continue
                # pg0 gives each frame the RSS hash, as a NIC with RSS does: the flow hash is
                # not computed (pg-input's own count then includes the NIC's work)
                rss = lambda x: x.replace("interface pg0\n", "interface pg0 rss\n", 1)  # noqa: E731
                one, t1, four, t4 = callgrind_pair(tmp, fam, rss(setup), rss(ecmp), "-rss")
                n1 = t1 - one.get("pg_stream_run", 0)
                n4 = t4 - four.get("pg_stream_run", 0)
                print(f"   pg0 giving the RSS hash: all counted functions {t1:.1f} | {t4:.1f} "
                      f"({t4 - t1:+.1f} for ECMP); ipN-lookup "
                      f"{one.get('lk_process', 0):.1f} | {four.get('lk_process', 0):.1f}, "
                      f"ipN-rewrite {one.get('rw_process', 0):.1f} | {four.get('rw_process', 0):.1f}; "
                      f"the nodes alone {n1:.1f} | {n4:.1f} ({n4 - n1:+.1f})")
            nodes4 = sum(v for f, v in totals[4][0].items() if f != "pg_stream_run")
            nodes6 = sum(v for f, v in totals[6][0].items() if f != "pg_stream_run")
            print(f"   the nodes (all but pg_stream_run), one path: IPv4 {nodes4:.1f}, IPv6 {nodes6:.1f}, "
                  f"IPv6 / IPv4 {nodes6 / nodes4:.2f}")
    finally:
        if os.environ.get("BENCH_KEEP"):  # callgrind's files and the logs, to annotate
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
