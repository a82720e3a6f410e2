# SPDX-License-Identifier: BSD-3-Clause
"""VXLAN over an IPv6 underlay on pcap ports, every byte checked with scapy: the outer IPv6
and UDP headers (the UDP checksum is mandatory over IPv6, RFC 8200 8.1), IPv4 and IPv6 routed
into the tunnel and out of it, bridged frames and the tunnel's 1430-byte MTU, a remote
behind two paths and one still to be resolved by neighbour discovery, each malformed packet
dropped under its name, UDP to a port nobody listens on answered, and the CLI.
test_vxlan_netns has the kernel as the remote VTEP over IPv6 too."""
import pytest
from scapy.all import (ICMPv6DestUnreach, ICMPv6ND_NS, IP, IPv6, IPv6ExtHdrDestOpt, UDP, Ether,
                       Raw, raw, wrpcap)
from scapy.layers.vxlan import VXLAN

from conftest import MAC0, MAC1, NH1, PEER0, pcap_ports, pcap_outs

ME, VTEP = "2001:db8:2::10", "2001:db8:2::1"
ROUTER = ["set interface ip address port0 10.10.1.10/24",
          "set interface ip address port0 2001:db8:1::10/64",
          f"set interface ip address port1 {ME}/64",
          "set interface state port0 up", "set interface state port1 up",
          f"ip neighbor port0 10.10.1.2 {PEER0}", f"ip neighbor port0 2001:db8:1::2 {PEER0}",
          f"ip neighbor port1 {VTEP} {NH1}"]
TUN_MAC = "02:fe:76:78:00:00"
FAR = "02:00:00:00:77:02"
TUNNEL = [f"create vxlan tunnel src {ME} dst {VTEP} vni 77",
          "set interface state vxlan_tunnel0 up"]


def run(factory, tmp_path, in0, in1, cli, hops=None):
    """...; hops, when given, gets the (node, next) pairs of the packets' traces."""
    s = factory(pcap_ports(tmp_path, in0, in1), ROUTER + TUNNEL + cli)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    if hops is not None:
        hops.update((r["node"], r["next"]) for r in s.js("show trace")["trace"])
    # tx-packets less the MLD reports an IPv6 tunnel interface sends (read_out drops those),
    # read before and after in case one leaves meanwhile
    mld0 = s.mld_sent("vxlan_tunnel0")
    ifs = {n: s.iface(n) for n in ("port0", "port1", "vxlan_tunnel0")}
    mld1 = s.mld_sent("vxlan_tunnel0")
    tx = ifs["vxlan_tunnel0"]["tx-packets"]
    ifs["vxlan_tunnel0"]["tx-packets"] = tx - mld0 if tx - mld1 <= 20 <= tx - mld0 else tx - mld1
    assert s.stop() == 0
    return errs, ifs, *pcap_outs(tmp_path, 2)


def vx(inner, vni=77, src=VTEP, flags=0x08, chksum=None, dport=4789):
    """A VXLAN packet from the remote VTEP, its UDP checksum right (scapy's) unless given."""
    u = UDP(sport=50000, dport=dport) if chksum is None else UDP(sport=50000, dport=dport, chksum=chksum)
    return Ether(dst=MAC1, src=NH1) / IPv6(src=src, dst=ME) / u / VXLAN(flags=flags, vni=vni) / inner


def check_outer(o, vni=77, dst_mac=NH1, dst=VTEP):
    """The outer headers sluiced writes: IPv6 (traffic class and flow label 0), UDP with its
    checksum, VXLAN (RFC 7348 5)."""
    assert o[Ether].dst == dst_mac and o[Ether].src == MAC1 and o[Ether].type == 0x86dd
    ip = o[IPv6]
    assert (ip.src, ip.dst, ip.hlim, ip.nh, ip.tc, ip.fl) == (ME, dst, 64, 17, 0, 0)
    assert ip.plen == len(raw(ip.payload))
    u = o[UDP]
    assert u.dport == 4789 and 49152 <= u.sport <= 65535 and u.len == ip.plen
    fixed = IPv6(src=ip.src, dst=ip.dst) / UDP(sport=u.sport, dport=u.dport) / u.payload
    assert u.chksum != 0 and IPv6(raw(fixed))[UDP].chksum == u.chksum
    assert o[VXLAN].flags == 0x08 and o[VXLAN].vni == vni and o[VXLAN].reserved2 == 0


@pytest.mark.parametrize("bypass", [False, True], ids=["", "bypass"])
def test_vxlan6_routed_exact(sluiced_factory, tmp_path, bypass):
    """... and with VPP's `set interface ip6 vxlan-bypass` on the underlay, every packet's
    outcome the same: the good VXLAN decapsulated by the bypass, past ip6-lookup, the rest
    (options, bad checksums, other ports) on the long way."""
    # 8 IPv4 flows, two packets each, and 4 IPv6 packets, routed into the tunnel
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="49.0.0.9", id=i) /
           UDP(sport=1000 + i % 8, dport=53) / Raw(b"q" * 30) for i in range(16)]
    in0 += [Ether(dst=MAC0, src=PEER0) / IPv6(src="2001:db8:1::2", dst="2001:db8:99::9") /
            UDP(sport=3000 + i, dport=53) / Raw(b"s" * 20) for i in range(4)]
    back = Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst="10.10.1.2", ttl=64) / \
        UDP(sport=53, dport=1000) / Raw(b"a" * 30)
    back6 = Ether(dst=TUN_MAC, src=FAR) / IPv6(src="2001:db8:99::9", dst="2001:db8:1::2") / \
        UDP(sport=53, dport=3000) / Raw(b"b" * 20)
    # the outer packet with a destination options header before UDP is decapsulated as well
    opt = Ether(dst=MAC1, src=NH1) / IPv6(src=VTEP, dst=ME) / IPv6ExtHdrDestOpt() / \
        UDP(sport=50001, dport=4789) / VXLAN(vni=77) / back
    in1 = [vx(back) for _ in range(4)] + [vx(back6), vx(back6), opt] + [
        vx(back, vni=78),                       # no tunnel has VNI 78
        vx(back, src="2001:db8:2::3"),          # nor this remote
        vx(back, flags=0x00),                   # no I flag
        vx(Raw(b"\x00" * 6)),                   # no whole inner Ethernet header
        vx(back, chksum=0),                     # no UDP checksum: refused over IPv6
        vx(back, chksum=0x1234),                # a wrong one
        Ether(dst=MAC1, src=NH1) / IPv6(src=VTEP, dst=ME) / UDP(sport=9, dport=4000) / Raw(b"x" * 8),
        vx(back),                               # the tunnel again, after all those: a new run
    ]
    hops = set()
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, in0, in1, [
        "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        "set interface ip address vxlan_tunnel0 2001:db8:77::1/64",
        f"ip neighbor vxlan_tunnel0 172.16.0.2 {FAR}",
        f"ip neighbor vxlan_tunnel0 2001:db8:77::2 {FAR}",
        "ip route add 49.0.0.0/8 via 172.16.0.2 vxlan_tunnel0",
        "ip route add 2001:db8:99::/48 via 2001:db8:77::2 vxlan_tunnel0"] +
        (["set interface ip6 vxlan-bypass port1"] if bypass else []) +
        ["trace add port-rx 50"], hops)
    # the long way without the bypass; with it, the good VXLAN past the lookup, the options
    # and the bad checksums along the arc to ip6-udp-local
    assert (("ip6-input", "ip6-vxlan-bypass") in hops) == bypass
    # the bypass decapsulates itself: the inner packets from it to ip4-input and ip6-input
    assert (("ip6-vxlan-bypass", "ip4-input") in hops) == bypass
    assert (("ip6-vxlan-bypass", "ip6-input") in hops) == bypass
    assert ("ip6-vxlan-bypass", "vxlan6-input") not in hops
    assert (("ip6-vxlan-bypass", "ip6-lookup") in hops) == bypass
    assert ("ip6-udp-local", "vxlan6-input") in hops
    enc = [o for o in out1 if VXLAN in o]
    assert len(enc) == 20
    sports = {}
    for o, p in zip(enc, in0):
        check_outer(o)
        inner = o[VXLAN].payload
        assert inner[Ether].dst == FAR and inner[Ether].src == TUN_MAC
        if IP in p:
            exp = p[IP].copy()
            exp.ttl = 63
            del exp.chksum
            assert raw(inner[IP]) == raw(IP(raw(exp)))
            sports.setdefault(p[UDP].sport, set()).add(o[UDP].sport)
        else:
            exp = p[IPv6].copy()
            exp.hlim = 63
            assert raw(inner[IPv6]) == raw(exp)
    # one source port per inner flow, and the flows spread over several
    assert all(len(v) == 1 for v in sports.values())
    assert len({next(iter(v)) for v in sports.values()}) >= 4
    # the port unreachable for UDP 4000, from our address, quoting the packet
    un = [o for o in out1 if ICMPv6DestUnreach in o]
    assert len(un) == 1 and un[0][IPv6].src == ME and un[0][IPv6].dst == VTEP
    assert un[0][ICMPv6DestUnreach].code == 4
    assert len(out1) == 21
    # decapsulated and routed out of port0: 6 IPv4 (one after the options), 2 IPv6
    assert len(out0) == 8
    for o in out0:
        assert o[Ether].dst == PEER0 and o[Ether].src == MAC0
        if IP in o:
            exp = back[IP].copy()
            exp.ttl = 63
            del exp.chksum
            assert raw(o[IP]) == raw(IP(raw(exp)))
        else:
            exp = back6[IPv6].copy()
            exp.hlim = 63
            assert raw(o[IPv6]) == raw(exp)
    assert ifs["vxlan_tunnel0"]["tx-packets"] == 20 and ifs["vxlan_tunnel0"]["rx-packets"] == 8
    # received: the inner frames (runs of one tunnel count them as vxlan6-input's own way)
    assert ifs["vxlan_tunnel0"]["rx-bytes"] == 6 * len(back) + 2 * len(back6)
    assert errs == {("vxlan6-input", "no tunnel for the VNI and addresses"): 2,
                    ("vxlan6-input", "VXLAN header without the I flag"): 1,
                    ("vxlan6-input", "VXLAN packet truncated"): 1,
                    ("ip6-udp-local", "UDP checksum zero (RFC 8200 8.1)"): 1,
                    ("ip6-udp-local", "UDP checksum bad"): 1,
                    ("ip6-udp-local", "UDP port unreachable (ICMPv6 follows)"): 1,
                    ("icmp6-error", "destination unreachable sent"): 1}


def test_vxlan6_bridged_exact(sluiced_factory, tmp_path):
    near = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / \
        UDP(sport=7, dport=7) / Raw(b"b" * 40)
    # 1430 bytes of IP fit the tunnel's MTU (1500 less 70), 1431 do not
    fits = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / Raw(b"y" * 1410)
    big = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / Raw(b"x" * 1411)
    back = Ether(dst=PEER0, src=FAR) / IP(src="192.168.9.2", dst="192.168.9.1") / \
        UDP(sport=7, dport=7) / Raw(b"c" * 40)
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [near, near, fits, big], [vx(back)] * 3, [
        "create bridge-domain 5", "set interface l2 bridge port0 5",
        "set interface l2 bridge vxlan_tunnel0 5"])
    assert len(fits[IP]) == 1430 and len(big[IP]) == 1431
    # the inner frame exactly as it came in (flooded, then known), and nothing over the MTU
    assert len(out1) == 3
    for o, p in zip(out1, [near, near, fits]):
        check_outer(o)
        assert raw(o[VXLAN].payload) == raw(p)
    assert len(out1[2]) == 1500 + 14
    assert [raw(o) for o in out0] == [raw(back)] * 3
    assert {k: v for k, v in errs.items() if k[0] != "l2-bridge"} == \
        {("vxlan6-encap", "frame longer than the tunnel's MTU"): 1}
    assert ifs["vxlan_tunnel0"]["rx-packets"] == 3


def test_vxlan6_underlay_ecmp_and_resolution(sluiced_factory, tmp_path):
    """A remote VTEP behind two equal paths: the outer packets go through ip6-lookup's
    load-balance with the same headers as on the direct way (hop limit 64), each inner flow
    on one path. A second tunnel's remote on the link, not yet resolved: its packets go to
    ip6-lookup, which solicits it (RFC 4861)."""
    NH2 = "42:01:0a:0a:02:02"
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="49.0.0.9", id=i) /
           UDP(sport=2000 + i % 32, dport=53) / Raw(b"e" * 30) for i in range(64)]
    in0 += [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="50.0.0.9") /
            UDP(sport=1, dport=53)]
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, in0, [], [
        f"create vxlan tunnel src {ME} dst 2001:db8:20::1 vni 9",
        "set interface state vxlan_tunnel1 up",
        "set interface ip address vxlan_tunnel1 172.16.1.1/30",
        f"ip neighbor vxlan_tunnel1 172.16.1.2 {FAR}",
        "ip route add 49.0.0.0/8 via 172.16.1.2 vxlan_tunnel1",
        f"ip neighbor port1 2001:db8:2::2 {NH2}",
        "ip route add 2001:db8:20::/48 via 2001:db8:2::1",
        "ip route add 2001:db8:20::/48 via 2001:db8:2::2",
        f"create vxlan tunnel src {ME} dst 2001:db8:2::55 vni 10",
        "set interface state vxlan_tunnel2 up",
        "set interface ip address vxlan_tunnel2 172.16.2.1/30",
        f"ip neighbor vxlan_tunnel2 172.16.2.2 {FAR}",
        "ip route add 50.0.0.0/8 via 172.16.2.2 vxlan_tunnel2"])
    enc = [o for o in out1 if VXLAN in o]
    assert len(enc) == 64
    by_flow = {}
    for o, p in zip(enc, in0):
        check_outer(o, vni=9, dst_mac=o[Ether].dst, dst="2001:db8:20::1")
        assert o[VXLAN].payload[IP].dst == "49.0.0.9"
        by_flow.setdefault(p[UDP].sport, set()).add((o[Ether].dst, o[UDP].sport))
    assert all(len(v) == 1 for v in by_flow.values())
    assert {next(iter(v))[0] for v in by_flow.values()} == {NH1, NH2}
    ns = [o for o in out1 if ICMPv6ND_NS in o]
    assert [o[ICMPv6ND_NS].tgt for o in ns] == ["2001:db8:2::55"], [o.summary() for o in out1]


def test_vxlan6_cli(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 }}"]
    s = sluiced_factory(devs, ["ip table add 7", "set interface ip address port0 2001:db8::1/64",
                               "create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 5 encap-vrf-id 7 instance 3",
                               "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 5",
                               "create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 5 dst_port 8472"],
                        memory=1024)  # table 7's IPv6 FIB
    t = {x["name"]: x for x in s.js("show vxlan tunnel")["tunnels"]}
    assert [(x["name"], x["src"], x["dst"], x["vni"], x["encap-vrf-id"], x["dst-port"], x["mtu"])
            for x in sorted(t.values(), key=lambda x: x["name"])] == [
        ("vxlan_tunnel0", "10.0.0.1", "10.0.0.2", 5, 0, 4789, 1450),
        ("vxlan_tunnel1", "2001:db8::1", "2001:db8::2", 5, 0, 8472, 1430),
        ("vxlan_tunnel3", "2001:db8::1", "2001:db8::2", 5, 7, 4789, 1430)]
    ifs = {i["name"]: i for i in s.js("show interface")["interfaces"]}
    assert ifs["vxlan_tunnel3"]["type"] == "vxlan6" and ifs["vxlan_tunnel0"]["type"] == "vxlan"
    s.check_refused({
        "create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 5 encap-vrf-id 7":
            "a tunnel with these addresses and VNI exists (vxlan_tunnel3)",
        "create vxlan tunnel src 2001:db8::1 dst 10.0.0.2 vni 1":
            "src and dst must be of one family (both IPv4 or both IPv6)",
        "create vxlan tunnel src 2001:db8::1 dst 2001:db8::1 vni 1": "src and dst must differ",
        "create vxlan tunnel src 2001:db8::1 dst ff05::1 vni 1": "multicast tunnels are not supported",
        "create vxlan tunnel src fe80::1 dst 2001:db8::2 vni 1": "nor link-local ends",
        "create vxlan tunnel src 2001:db8::1 dst 2001:db8::zz vni 1": "'2001:db8::zz' is not an IPv6 address",
        "create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 6 del": "no such tunnel",
        "ip table del 7": "tunnel vxlan_tunnel3 encapsulates in table 7",
    })
    assert len(s.js("show vxlan tunnel")["tunnels"]) == 3
    s.cli("create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 5 encap-vrf-id 7 del")
    s.cli("create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 5 dst_port 8472 del")
    assert [x["name"] for x in s.js("show vxlan tunnel")["tunnels"]] == ["vxlan_tunnel0"]
    s.cli("ip table del 7")
    # many IPv6 tunnels come and go: the table's slots are reused
    for rnd in range(2):
        lines = tmp_path / "add.cli"  # one CLI request: the point is the table, not 200 sluicectl runs
        lines.write_text("".join(f"create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni {1000 + v}\n" for v in range(200)))
        s.cli(f"exec {lines}")
        assert len(s.js("show vxlan tunnel")["tunnels"]) == 201
        lines.write_text("".join(f"create vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni {1000 + v} del\n" for v in range(200)))
        s.cli(f"exec {lines}")
        assert len(s.js("show vxlan tunnel")["tunnels"]) == 1


@pytest.mark.parametrize("bypass", [False, True], ids=["local", "bypass"])
def test_vxlan6_input_features(sluiced_factory, tmp_path, bypass):
    """Over IPv6 too, a tunnel's input ACL sees its decapsulated packets (runs of one tunnel
    included, by ip6-udp-local's way and by the bypass's; a bad checksum still dropped by
    ip6-udp-local): the permitted ones routed exactly, the rest denied and counted."""
    def back(d, i):
        return Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst=d, ttl=64, id=i) / \
            UDP(sport=53, dport=1000 + i) / Raw(b"a" * (20 + i))
    dsts = ["10.10.1.3", "10.10.1.2", "10.10.1.3", "10.10.1.3", "10.10.1.2", "10.10.1.3"]
    in1 = [vx(back(d, i)) for i, d in enumerate(dsts)] + [vx(back("10.10.1.3", 9), chksum=0x1234)]
    from test_vxlan_pcap import routed_exactly
    hops = set()
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [], in1, [
        "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        "ip neighbor port0 10.10.1.3 02:00:00:00:00:33",
        "set acl-plugin acl permit src 0.0.0.0/0 dst 10.10.1.3/32",
        "set acl-plugin interface vxlan_tunnel0 input acl 0"] +
        (["set interface ip6 vxlan-bypass port1"] if bypass else []) + ["trace add port-rx 50"], hops)
    assert (("ip6-vxlan-bypass" if bypass else "vxlan6-input"), "device-input-features") in hops
    assert ("device-input-features", "acl-input") in hops
    assert errs == {("acl-input", "acl no rule matched (default deny)"): 2,
                    ("ip6-udp-local", "UDP checksum bad"): 1}
    assert ifs["vxlan_tunnel0"]["rx-packets"] == len(dsts)
    permitted = [back(d, i) for i, d in enumerate(dsts) if d == "10.10.1.3"]
    routed_exactly(out0, permitted, "02:00:00:00:00:33")
