# SPDX-License-Identifier: BSD-3-Clause
"""VXLAN on pcap ports, every byte checked with scapy's VXLAN layer: encapsulation of routed
and bridged traffic (outer headers, source port from the inner flow, checksums), decapsulation
into routing and bridging, each malformed or unknown packet dropped under its name, and the
CLI's refusals. test_vxlan_netns has the kernel as the remote VTEP."""
from pathlib import Path

import pytest
from scapy.all import ICMP, IP, UDP, Dot1Q, Ether, IPOption_NOP, IPv6, Raw, wrpcap, raw
from scapy.layers.vxlan import VXLAN

from conftest import MAC0, MAC1, NH1, PEER0, pcap_ports, pcap_outs

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
TUN_MAC = "02:fe:76:78:00:00"     # vxlan_tunnel0's own
FAR = "02:00:00:00:77:02"         # a host behind the remote VTEP
TUNNEL = ["create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 77",
          "set interface state vxlan_tunnel0 up"]


def run(factory, tmp_path, in0, in1, cli, **kw):
    s = factory(pcap_ports(tmp_path, in0, in1), ROUTER + TUNNEL + cli, **kw)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    ifs = {n: s.iface(n) for n in ("port0", "port1", "vxlan_tunnel0")}
    assert s.stop() == 0
    return errs, ifs, *pcap_outs(tmp_path, 2)


def vx(inner, vni=77, src="10.10.2.1", flags=0x08):
    return Ether(dst=MAC1, src=NH1) / IP(src=src, dst="10.10.2.10") / \
        UDP(sport=50000, dport=4789, chksum=0) / VXLAN(flags=flags, vni=vni) / inner


def check_outer(o, vni=77):
    """The outer headers sluiced writes (RFC 7348 5), and valid lengths and checksum."""
    assert o[Ether].dst == NH1 and o[Ether].src == MAC1
    ip = o[IP]
    assert (ip.src, ip.dst, ip.ttl, ip.flags, ip.frag, ip.proto, ip.tos, ip.id) == \
        ("10.10.2.10", "10.10.2.1", 64, "DF", 0, 17, 0, 0)
    assert ip.len == len(raw(ip))
    fixed = IP(raw(ip))
    del fixed.chksum
    assert IP(raw(fixed)).chksum == ip.chksum
    u = o[UDP]
    assert u.dport == 4789 and 49152 <= u.sport <= 65535 and u.chksum == 0
    assert u.len == len(raw(u))
    assert o[VXLAN].flags == 0x08 and o[VXLAN].vni == vni and o[VXLAN].reserved2 == 0


def routed_exactly(out, inner, mac):
    """out, frames routed out of port0 to mac, are the inner frames' IPv4 packets one hop on,
    in order."""
    assert len(out) == len(inner)
    for o, p in zip(out, inner):
        assert o[Ether].dst == mac and o[Ether].src == MAC0
        exp = p[IP].copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(o[IP]) == raw(IP(raw(exp)))


def test_vxlan_routed_exact(sluiced_factory, tmp_path):
    # 8 flows, two packets each, routed into the tunnel
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="49.0.0.9", ttl=64, id=i) /
           UDP(sport=1000 + i % 8, dport=53) / Raw(b"q" * 30) for i in range(16)]
    # from the remote VTEP: routed out of port0; between them, each right after a packet of
    # the tunnel (vxlan4-input's run of it), the malformed and the unknown
    back = Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst="10.10.1.2", ttl=64) / \
        UDP(sport=53, dport=1000) / Raw(b"a" * 30)
    in1 = [vx(back), vx(back),
           vx(back, flags=0x00),                   # no I flag
           vx(back),
           vx(Raw(b"\x00" * 6)),                   # no whole inner Ethernet header
           vx(back),
           vx(Ether(dst="02:00:00:00:00:55", src=FAR) / IP(dst="10.10.1.2")),  # not to our MAC
           vx(back),
           vx(back, vni=78),                       # no tunnel has VNI 78
           vx(back, src="10.10.2.3"),              # nor this remote
           ]
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, in0, in1, [
        "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        f"ip neighbor vxlan_tunnel0 172.16.0.2 {FAR}",
        "ip route add 49.0.0.0/8 via 172.16.0.2 vxlan_tunnel0"])
    assert len(out1) == 16
    sports = {}
    for o, p in zip(out1, in0):
        check_outer(o)
        inner = o[VXLAN].payload
        assert inner[Ether].dst == FAR and inner[Ether].src == TUN_MAC
        exp = p[IP].copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(inner[IP]) == raw(IP(raw(exp)))
        sports.setdefault(p[UDP].sport, set()).add(o[UDP].sport)
    # one source port per inner flow, and the flows spread over several
    assert all(len(v) == 1 for v in sports.values())
    assert len({next(iter(v)) for v in sports.values()}) >= 4
    assert len(out0) == 5
    for o in out0:
        assert o[Ether].dst == PEER0 and o[Ether].src == MAC0
        exp = back[IP].copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(o[IP]) == raw(IP(raw(exp)))
    assert ifs["vxlan_tunnel0"]["tx-packets"] == 16 and ifs["vxlan_tunnel0"]["rx-packets"] == 6
    assert errs == {("vxlan4-input", "no tunnel for the VNI and addresses"): 2,
                    ("vxlan4-input", "VXLAN header without the I flag"): 1,
                    ("vxlan4-input", "VXLAN packet truncated"): 1,
                    ("ethernet-input", "destination MAC not ours"): 1}


def test_vxlan_bridged_exact(sluiced_factory, tmp_path):
    near = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / \
        UDP(sport=7, dport=7) / Raw(b"b" * 40)
    big = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / Raw(b"x" * 1431)
    back = Ether(dst=PEER0, src=FAR) / IP(src="192.168.9.2", dst="192.168.9.1") / \
        UDP(sport=7, dport=7) / Raw(b"c" * 40)
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [near, near, big], [vx(back)] * 3, [
        "create bridge-domain 5", "set interface l2 bridge port0 5",
        "set interface l2 bridge vxlan_tunnel0 5"])
    # the inner frame exactly as it came in (flooded, then known), and nothing over the MTU
    assert len(out1) == 2
    for o in out1:
        check_outer(o)
        assert raw(o[VXLAN].payload) == raw(near)
    assert [raw(o) for o in out0] == [raw(back)] * 3
    # (floods are counted by l2-bridge too, as many as frames came before the MACs were learnt)
    assert {k: v for k, v in errs.items() if k[0] != "l2-bridge"} == \
        {("vxlan4-encap", "frame longer than the tunnel's MTU"): 1}
    assert ifs["vxlan_tunnel0"]["rx-packets"] == 3


def test_vxlan_cli(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 }}"]
    s = sluiced_factory(devs, ["ip table add 7", "set interface ip address port0 10.0.0.1/24",
                               "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 5 encap-vrf-id 7 instance 3",
                               "create bridge-domain 2", "set interface l2 bridge vxlan_tunnel3 2"])
    t = s.js("show vxlan tunnel")["tunnels"]
    assert [(x["name"], x["vni"], x["encap-vrf-id"], x["dst-port"], x["mtu"], x["state"]) for x in t] == \
        [("vxlan_tunnel3", 5, 7, 4789, 1450, "down")]
    s.check_refused({
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 5 encap-vrf-id 7":
            "a tunnel with these addresses and VNI exists (vxlan_tunnel3)",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2": "src, dst and vni are required",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.1 vni 1": "src and dst must differ",
        "create vxlan tunnel src 10.0.0.1 dst 239.1.1.1 vni 1": "multicast tunnels are not supported",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 16777216": "vni must be a number from 0 to 16777215",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1 encap-vrf-id 9": "no table 9",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1 instance 3": "interface 'vxlan_tunnel3' exists",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 6 del": "no such tunnel",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 1 colour red": "unknown option 'colour'",
        "create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 5 encap-vrf-id 7 del":
            "cannot delete vxlan_tunnel3: vxlan_tunnel3 is in bridge-domain 2 (set interface l3 vxlan_tunnel3)",
        "ip table del 7": "tunnel vxlan_tunnel3 encapsulates in table 7",
    })
    assert len(s.js("show vxlan tunnel")["tunnels"]) == 1
    s.cli("set interface l3 vxlan_tunnel3")
    s.cli("create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni 5 encap-vrf-id 7 del")
    assert s.js("show vxlan tunnel")["tunnels"] == []
    assert "vxlan_tunnel3" not in s.cli("show interface")
    s.cli("ip table del 7")
    # many tunnels come and go: the table's slots are reused
    for rnd in range(2):
        lines = tmp_path / "add.cli"  # one CLI request: the point is the table, not 200 sluicectl runs
        lines.write_text("".join(f"create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni {1000 + v}\n" for v in range(200)))
        s.cli(f"exec {lines}")
        assert len(s.js("show vxlan tunnel")["tunnels"]) == 200
        lines.write_text("".join(f"create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni {1000 + v} del\n" for v in range(200)))
        s.cli(f"exec {lines}")
        assert s.js("show vxlan tunnel")["tunnels"] == []


def test_vxlan_vrf_isolation(sluiced_factory, tmp_path):
    """Two customers with the same prefix (192.168.1.0/24) in tables 1 and 2, on port0's
    VLAN 100 and VLAN 200; VNI 10 is customer 1's tunnel, VNI 20 customer 2's. Each VNI reaches only its
    customer's host, each customer's traffic leaves only in its VNI, and a prefix that only
    customer 2 has is no route for VNI 10."""
    A, B = "02:00:00:00:0a:0a", "02:00:00:00:0b:0b"
    cli = ["ip table add 1", "ip table add 2",
           "create sub-interfaces port0 100", "set interface state port0.100 up",
           "create sub-interfaces port0 200", "set interface state port0.200 up",
           "set interface ip table port0.100 1", "set interface ip table port0.200 2",
           "set interface ip address port0.100 192.168.1.1/24",
           "set interface ip address port0.200 192.168.1.1/24",
           f"ip neighbor port0.100 192.168.1.2 {A}", f"ip neighbor port0.200 192.168.1.2 {B}",
           "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 10",
           "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 20",
           "set interface ip table vxlan_tunnel1 1", "set interface ip table vxlan_tunnel2 2",
           "set interface ip address vxlan_tunnel1 172.16.0.1/30",
           "set interface ip address vxlan_tunnel2 172.16.0.1/30",
           "set interface state vxlan_tunnel1 up", "set interface state vxlan_tunnel2 up",
           f"ip neighbor vxlan_tunnel1 172.16.0.2 {FAR}", f"ip neighbor vxlan_tunnel2 172.16.0.2 {FAR}",
           "ip route add table 1 10.99.0.0/16 via 172.16.0.2 vxlan_tunnel1",
           "ip route add table 2 10.99.0.0/16 via 172.16.0.2 vxlan_tunnel2",
           "ip route add table 2 10.20.0.0/16 via 192.168.1.2 port0.200"]

    def inner(mac, dst, tag):
        return Ether(dst=mac, src=FAR) / IP(src="10.99.0.5", dst=dst) / UDP(sport=9, dport=9) / \
            Raw(tag * 20)
    t1 = "02:fe:76:78:00:01"
    t2 = "02:fe:76:78:00:02"
    in1 = [vx(inner(t1, "192.168.1.2", b"1"), vni=10), vx(inner(t2, "192.168.1.2", b"2"), vni=20),
           vx(inner(t1, "10.20.0.1", b"3"), vni=10)]   # only table 2 has 10.20/16
    in0 = [Ether(dst=MAC0, src=A) / Dot1Q(vlan=100) / IP(src="192.168.1.2", dst="10.99.1.1") /
           UDP(sport=9, dport=9) / Raw(b"a" * 20),
           Ether(dst=MAC0, src=B) / Dot1Q(vlan=200) / IP(src="192.168.1.2", dst="10.99.1.1") /
           UDP(sport=9, dport=9) / Raw(b"b" * 20)]
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, in0, in1,
                                cli, memory=1024)  # three FIB tables
    got = sorted((o[Ether].dst, Dot1Q in o and o[Dot1Q].vlan, bytes(o[Raw].load[:1])) for o in out0)
    assert got == [(A, 100, b"1"), (B, 200, b"2")]
    # customer 1's packets in VNI 10, customer 2's in VNI 20, and the net unreachable for
    # 10.20.0.1 back to customer 1's sender, in its own VNI
    assert sorted((o[VXLAN].vni, bytes(o[Raw].load[:1]) if ICMP not in o else b"unreach")
                  for o in out1) == [(10, b"a"), (10, b"unreach"), (20, b"b")]
    for o in out1:
        check_outer(o, vni=o[VXLAN].vni)
    icmp = [o[VXLAN].payload for o in out1 if ICMP in o][0]
    assert (icmp[IP].src, icmp[IP].dst, icmp[ICMP].type, icmp[ICMP].code) == \
        ("172.16.0.1", "10.99.0.5", 3, 0)
    assert errs[("ip4-lookup", "no route (ICMP unreachable follows)")] == 1


def test_vxlan_underlay_ecmp(sluiced_factory, tmp_path):
    """The remote VTEP behind two equal paths: the outer packets go through ip4-lookup's
    load-balance (the source port, from the inner flow, spreads the flows over both next
    hops and keeps each on one), with the same outer headers as on the direct way (TTL 64)."""
    NH2 = "42:01:0a:0a:02:02"
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="49.0.0.9", id=i) /
           UDP(sport=2000 + i % 32, dport=53) / Raw(b"e" * 30) for i in range(64)]
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, in0, [], [
        "create vxlan tunnel src 10.10.2.10 dst 10.20.0.1 vni 9",
        "set interface state vxlan_tunnel1 up",
        "set interface ip address vxlan_tunnel1 172.16.1.1/30",
        f"ip neighbor vxlan_tunnel1 172.16.1.2 {FAR}",
        "ip route add 49.0.0.0/8 via 172.16.1.2 vxlan_tunnel1",
        f"ip neighbor port1 10.10.2.2 {NH2}",
        "ip route add 10.20.0.0/16 via 10.10.2.1", "ip route add 10.20.0.0/16 via 10.10.2.2"])
    assert len(out1) == 64 and errs == {}
    by_flow = {}
    for o, p in zip(out1, in0):
        assert o[IP].dst == "10.20.0.1" and o[IP].ttl == 64 and o[IP].flags == "DF"
        fixed = IP(raw(o[IP]))
        del fixed.chksum
        assert IP(raw(fixed)).chksum == o[IP].chksum
        assert o[VXLAN].vni == 9 and o[VXLAN].payload[IP].dst == "49.0.0.9"
        by_flow.setdefault(p[UDP].sport, set()).add((o[Ether].dst, o[UDP].sport))
    assert all(len(v) == 1 for v in by_flow.values())
    assert {next(iter(v))[0] for v in by_flow.values()} == {NH1, NH2}


def test_vxlan_dst_port(sluiced_factory, tmp_path):
    """dst_port P: a tunnel sends to UDP P and is found only by packets to P (a second tunnel
    with the same addresses and VNI on 4789 is another tunnel); the port stops listening with
    its last tunnel; ports another node listens on are refused."""
    def vxp(port, inner):
        p = vx(inner)
        p[UDP].dport = port
        return p
    back = Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst="10.10.1.2") / UDP(sport=53, dport=1000)
    back1 = back.copy()
    back1[Ether].dst = "02:fe:76:78:00:01"  # vxlan_tunnel1's MAC
    in1 = [vxp(8472, back1)] * 3 + [vxp(4789, back)] * 2 + [vxp(8473, back)]
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="49.0.0.9") / UDP(sport=1, dport=53)]
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), ROUTER + TUNNEL + [
        "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 77 dst_port 8472",
        "set interface state vxlan_tunnel1 up", "set interface ip address vxlan_tunnel1 172.16.1.1/30",
        f"ip neighbor vxlan_tunnel1 172.16.1.2 {FAR}",
        "ip route add 49.0.0.0/8 via 172.16.1.2 vxlan_tunnel1"])
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    t = {x["name"]: x for x in s.js("show vxlan tunnel")["tunnels"]}
    assert (t["vxlan_tunnel0"]["dst-port"], t["vxlan_tunnel1"]["dst-port"]) == (4789, 8472)
    assert (t["vxlan_tunnel0"]["vni"], t["vxlan_tunnel1"]["vni"]) == (77, 77)
    assert s.iface("vxlan_tunnel1")["rx-packets"] == 3 and s.iface("vxlan_tunnel0")["rx-packets"] == 2
    assert s.errors() == {("ip4-udp-local", "port unreachable (ICMP follows)"): 1,
                          ("icmp4-error", "destination unreachable sent"): 1}
    s.check_refused({
        "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 78 dst_port 6635":
            "UDP port 6635 is taken by mpls4-udp-input",
        "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 78 dst_port 0": "dst_port must be a number from 1",
        "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 77 dst_port 8472":
            "a tunnel with these addresses and VNI exists (vxlan_tunnel1)"})
    for p in range(9000, 9006):  # six more ports: eight with 4789 and 8472
        s.cli(f"create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 5 dst_port {p}")
    s.check_refused({"create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 5 dst_port 9006":
                     "8 VXLAN UDP ports in use already"})
    for p in range(9000, 9006):
        s.cli(f"create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 5 dst_port {p} del")
    # the last tunnel on 8472 goes: the port answers port unreachable again
    s.cli("ip route del 49.0.0.0/8 via 172.16.1.2 vxlan_tunnel1")
    s.cli(f"ip neighbor del vxlan_tunnel1 172.16.1.2 {FAR}")
    s.cli("set interface ip address del vxlan_tunnel1 172.16.1.1/30")
    s.cli("create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 77 dst_port 8472 del")
    from scapy.all import wrpcap as wr
    wr(str(tmp_path / "late.pcap"), [vxp(8472, back1)], linktype=1)
    s.cli(f"packet-generator new {{ name late limit 1 interface port1 pcap {tmp_path}/late.pcap }}")
    s.cli("packet-generator enable-stream late")
    import time
    deadline = time.time() + 10
    while s.errors().get(("ip4-udp-local", "port unreachable (ICMP follows)"), 0) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert s.errors()[("ip4-udp-local", "port unreachable (ICMP follows)")] == 2
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    enc = [o for o in out1 if o[IP].proto == 17]  # the rest: ICMP port unreachable
    assert len(enc) == 1 and enc[0][UDP].dport == 8472 and enc[0][VXLAN].vni == 77
    assert len(out0) == 5  # what both tunnels decapsulated, routed to port0



def test_vxlan_runs_interleaved(sluiced_factory, tmp_path):
    """vxlan4-encap and vxlan4-input take runs of packets of one tunnel the fast way. Packets of
    two tunnels interleaved, with one too long for the underlay once encapsulated, one for a
    tunnel that is down, an outer header with options and IPv6 inside: every packet exact and
    in order, the odd ones as before, and each tunnel's counters its own packets and bytes."""
    TUN1_MAC = "02:fe:76:78:00:01"
    cli = ["create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 78",
           "set interface state vxlan_tunnel1 up",
           "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 79",  # vxlan_tunnel2, down
           "set interface ip address vxlan_tunnel0 172.16.0.1/30",
           "set interface ip address vxlan_tunnel1 172.16.1.1/30",
           f"ip neighbor vxlan_tunnel0 172.16.0.2 {FAR}",
           f"ip neighbor vxlan_tunnel1 172.16.1.2 {FAR}",
           "ip route add 49.0.0.0/8 via 172.16.0.2 vxlan_tunnel0",
           "ip route add 50.0.0.0/8 via 172.16.1.2 vxlan_tunnel1",
           "set interface mtu 1400 port1"]
    # 49 -> tunnel 0, 50 -> tunnel 1; "big" (1,380 bytes) fits the tunnel's MTU (1450) but not,
    # encapsulated, port1's (1400)
    plan = ["49", "49", "50", "49", "50", "50", "big", "49", "49", "50"]
    in0 = [Ether(dst=MAC0, src=PEER0) /
           IP(src="10.10.1.2", dst="49.0.0.1" if d == "big" else f"{d}.0.0.{i}", id=i) /
           UDP(sport=1000 + i, dport=53) / Raw(b"r" * (1352 if d == "big" else 30 + i))
           for i, d in enumerate(plan)]

    def back(mac, i):
        return Ether(dst=mac, src=FAR) / IP(src="49.0.0.9", dst="10.10.1.2", id=i) / \
            UDP(sport=53, dport=1000 + i) / Raw(b"b" * (20 + i))
    b6 = Ether(dst=TUN1_MAC, src=FAR) / IPv6(src="2001:db8::9", dst="2001:db8::1") / \
        UDP(sport=53, dport=53) / Raw(b"six")
    opt = vx(back(TUN_MAC, 5))
    opt[IP].options = [IPOption_NOP()] * 4
    in1 = [Ether(raw(p)) for p in (
        vx(back(TUN_MAC, 0)), vx(back(TUN_MAC, 1)), vx(back(TUN1_MAC, 2), vni=78),
        vx(back(TUN_MAC, 3)), vx(b6, vni=78), vx(back(TUN1_MAC, 4), vni=78), opt,
        vx(back(TUN_MAC, 6), vni=79), vx(back(TUN_MAC, 7)))]
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), ROUTER + TUNNEL + cli)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    ifs = {n: s.iface(n) for n in ("vxlan_tunnel0", "vxlan_tunnel1", "vxlan_tunnel2")}
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)

    t0 = [p for p, d in zip(in0, plan) if d == "49"]
    t1 = [p for p, d in zip(in0, plan) if d == "50"]
    sent = [p for p, d in zip(in0, plan) if d != "big"]
    assert len(out1) == len(sent)
    for o, p in zip(out1, sent):
        check_outer(o, vni=77 if p in t0 else 78)
        exp = p[IP].copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(o[VXLAN].payload[IP]) == raw(IP(raw(exp)))
    routed = [in1[i] for i in (0, 1, 2, 3, 5, 6, 8)]
    assert [o[IP].id for o in out0] == [p[VXLAN].payload[IP].id for p in routed]
    for o, p in zip(out0, routed):
        exp = p[VXLAN].payload[IP].copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(o[IP]) == raw(IP(raw(exp)))
    # a routed packet leaves a tunnel as a frame: its Ethernet header and the IP packet
    assert (ifs["vxlan_tunnel0"]["tx-packets"], ifs["vxlan_tunnel0"]["tx-bytes"]) == \
        (len(t0) + 1, sum(len(p) for p in t0) + len(in0[plan.index("big")]))
    assert (ifs["vxlan_tunnel1"]["tx-packets"], ifs["vxlan_tunnel1"]["tx-bytes"]) == \
        (len(t1), sum(len(p) for p in t1))
    # received: the inner frame (the IPv6 one counted, then not routed: no IPv6 on tunnel 1)
    rx0 = [in1[i] for i in (0, 1, 3, 6, 8)]
    rx1 = [in1[i] for i in (2, 4, 5)]
    assert (ifs["vxlan_tunnel0"]["rx-packets"], ifs["vxlan_tunnel0"]["rx-bytes"]) == \
        (len(rx0), sum(len(p[VXLAN].payload) for p in rx0))
    assert (ifs["vxlan_tunnel1"]["rx-packets"], ifs["vxlan_tunnel1"]["rx-bytes"]) == \
        (len(rx1), sum(len(p[VXLAN].payload) for p in rx1))
    assert ifs["vxlan_tunnel2"]["rx-packets"] == 0
    # "big" refused by port1's ip4-rewrite, the ICMP it sends to our own address dropped
    assert errs == {("ip4-rewrite", "too big with DF set (ICMP frag needed follows)"): 1,
                    ("icmp4-error", "fragmentation needed sent"): 1,
                    ("ip4-icmp-input", "ICMP type not handled locally"): 1,
                    ("ip6-lookup", "no route (ICMPv6 unreachable follows)"): 1,
                    ("icmp6-error", "no IPv6 address on the receiving interface"): 1,
                    ("vxlan4-input", "tunnel down"): 1}


def test_vxlan_bypass(sluiced_factory, tmp_path):
    """set interface ip vxlan-bypass (VPP's ip4-vxlan-bypass on the ip4-unicast arc): VXLAN to
    a tunnel's local address on a tunnel's port is decapsulated by the bypass itself, its
    inner IPv4 to ip4-input (and the tunnel's own ip4-unicast features: unicast RPF);
    everything else goes on to ip4-lookup as without it
    (transit VXLAN forwarded, options, fragments and other ports the router's own way), and
    the outcome of every packet is the same as without the bypass. A port whose last tunnel
    went answers port unreachable."""
    from scapy.all import rdpcap
    from test_arp_hold import pg_ifaces, send
    from test_features import wait_tx
    pg0, h0, nh = "02:fe:00:00:00:00", "02:00:00:00:00:0a", "42:01:0a:0a:02:01"
    lines = pg_ifaces(2, tmp_path) + [
        "set interface ip address pg0 10.10.1.10/24", "set interface ip address pg1 10.10.2.10/24",
        f"ip neighbor pg0 10.10.1.2 {h0}", f"ip neighbor pg1 10.10.2.1 {nh}",
        "ip route add 48.0.0.0/8 via 10.10.2.1",
        "create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 42",
        "set interface state vxlan_tunnel0 up", "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        "create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 43 dst_port 8472",
        "set interface state vxlan_tunnel1 up", "set interface ip address vxlan_tunnel1 172.16.1.1/30"]
    s = sluiced_factory([], lines)
    assert {f["feature"]: f["enabled"] for f in s.js("show interface features pg0")["features"]
            if f["arc"] == "ip4-unicast"}["ip4-vxlan-bypass"] == "no"
    s.cli("set interface ip vxlan-bypass pg0")
    assert {f["feature"]: f["enabled"] for f in s.js("show interface features pg0")["features"]
            if f["arc"] == "ip4-unicast"}["ip4-vxlan-bypass"] == "yes"

    def inner(i, mac=TUN_MAC):
        return Ether(dst=mac, src=FAR) / IP(src="49.0.0.9", dst=f"48.0.0.{i}", ttl=9, id=i) / \
            UDP(sport=53, dport=1000 + i) / Raw(b"v" * 12)

    def outer(p, dst="10.10.1.10", dport=4789, vni=42, **ip):
        return Ether(dst=pg0, src=h0) / IP(src="10.10.1.2", dst=dst, id=7, **ip) / \
            UDP(sport=49999, dport=dport, chksum=0) / VXLAN(vni=vni) / p

    opt = outer(inner(5))
    opt[IP].options = [IPOption_NOP()] * 4
    pkts = [outer(inner(i)) for i in (1, 2, 3)] + [
        outer(inner(4, "02:fe:76:78:00:01"), dport=8472, vni=43),  # tunnel 1, its own port
        outer(inner(6), dst="48.0.0.9"),            # transit VXLAN: forwarded as it is
        opt,                                        # options: the router's own way, decapsulated
        outer(inner(7), flags="MF"),                # a fragment: ip4-local drops it
        outer(inner(8), dport=9999),                # no one listens: port unreachable
        outer(inner(9), vni=99)]                    # no such VNI: vxlan4-input drops it
    s.cli(f"trace add pg-input {len(pkts)}")
    send(s, tmp_path, "a", "pg0", pkts)
    wait_tx(s, "pg1", 6)
    hops = {(r["node"], r["next"]) for r in s.js("show trace")["trace"]}
    assert {("ip4-input", "ip4-vxlan-bypass"), ("ip4-vxlan-bypass", "ip4-input"),
            ("ip4-vxlan-bypass", "ip4-lookup"), ("ip4-vxlan-bypass", "error-drop"),
            ("ip4-udp-local", "vxlan4-input")} <= hops
    assert ("ip4-vxlan-bypass", "vxlan4-input") not in hops
    s.cli("clear trace")
    assert s.iface("vxlan_tunnel0")["rx-packets"] == 4 and s.iface("vxlan_tunnel1")["rx-packets"] == 1

    # unicast RPF on the tunnel (a feature of its ip4-unicast arc): ip4-input sends its inner
    # packets to the check (49.0.0.9 is routed back by the tunnel)
    s.cli(f"ip neighbor vxlan_tunnel0 172.16.0.2 {FAR}")
    s.cli("ip route add 49.0.0.0/8 via 172.16.0.2 vxlan_tunnel0")
    s.cli("set interface ip source-check vxlan_tunnel0")
    s.cli("trace add pg-input 1")
    send(s, tmp_path, "r", "pg0", [outer(inner(12))])
    wait_tx(s, "pg1", 7)
    hops = {(r["node"], r["next"]) for r in s.js("show trace")["trace"]}
    assert {("ip4-vxlan-bypass", "ip4-input"), ("ip4-input", "ip4-source-check-via-rx")} <= hops
    s.cli("set interface ip source-check vxlan_tunnel0 del")
    s.cli("clear trace")

    # tunnel 1 goes, the last on 8472: the bypass leaves 8472 to port unreachable
    s.cli("set interface ip address del vxlan_tunnel1 172.16.1.1/30")
    s.cli("create vxlan tunnel src 10.10.1.10 dst 10.10.1.2 vni 43 dst_port 8472 del")
    send(s, tmp_path, "b", "pg0", [outer(inner(10, "02:fe:76:78:00:01"), dport=8472, vni=43)])
    # off again: the same packets the router's own way
    s.cli("set interface ip vxlan-bypass pg0 del")
    assert all(f["enabled"] == "no" for f in s.js("show interface features pg0")["features"])
    s.cli("trace add pg-input 1")
    send(s, tmp_path, "c", "pg0", [outer(inner(11))])
    wait_tx(s, "pg1", 8)
    hops = [(r["node"], r["next"]) for r in s.js("show trace")["trace"]]
    assert ("ip4-input", "ip4-lookup") in hops and ("ip4-udp-local", "vxlan4-input") in hops
    s.check_refused({"set interface ip vxlan-bypass pg9": "unknown interface 'pg9'",
                     "set interface ip vxlan-bypass": "usage: set interface ip vxlan-bypass IFACE [del]",
                     "set interface ip vxlan-bypass pg0 now": "usage:",
                     "set interface ip6 vxlan-bypass pg9": "unknown interface 'pg9'",
                     "set interface ip6 vxlan-bypass pg0 del del": "usage: set interface ip6 vxlan-bypass IFACE [del]"})
    errs = s.errors()
    assert s.stop() == 0
    assert errs == {("ip4-local", "fragment for a local address"): 1,
                    ("ip4-udp-local", "port unreachable (ICMP follows)"): 2,
                    ("icmp4-error", "destination unreachable sent"): 2,
                    ("vxlan4-input", "no tunnel for the VNI and addresses"): 1}
    out = [p for p in rdpcap(str(tmp_path / "pg1.pcap")) if UDP in p]
    # the decapsulated packets routed (TTL 8), the transit one as it came (its TTL less one)
    dec = [inner(i)[IP] for i in (1, 2, 3, 4, 5, 11, 12)]
    assert sorted(p[IP].id for p in out) == [1, 2, 3, 4, 5, 7, 11, 12]
    for p in out:
        assert p[Ether].dst == nh and p[Ether].src == "02:fe:00:00:00:01"
        if p[IP].id == 7:  # the transit VXLAN, its inner frame untouched
            assert p[IP].dst == "48.0.0.9" and p[IP].ttl == 63 and raw(p[VXLAN].payload) == raw(inner(6))
            continue
        exp = next(d for d in dec if d.id == p[IP].id).copy()
        exp.ttl = 8
        del exp.chksum
        assert raw(p[IP]) == raw(IP(raw(exp)))
    unreach = [p for p in rdpcap(str(tmp_path / "pg0.pcap")) if ICMP in p]
    assert [(p[ICMP].type, p[ICMP].code, p[IP].dst) for p in unreach] == [(3, 3, "10.10.1.2")] * 2


@pytest.mark.parametrize("bypass", [False, True], ids=["local", "bypass"])
def test_vxlan_input_features(sluiced_factory, tmp_path, bypass):
    """A tunnel's own input features (the device-input arc: here an input ACL) see what it
    receives, decapsulated, as a port's would, by ip4-udp-local's way and the bypass's (runs of
    one tunnel included): the permitted packets routed exactly, the rest denied and counted,
    the tunnel's counters all of them."""
    def back(d, i):
        return Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst=d, ttl=64, id=i) / \
            UDP(sport=53, dport=1000 + i) / Raw(b"a" * (20 + i))
    b6 = Ether(dst=TUN_MAC, src=FAR) / IPv6(src="2001:db8::9", dst="2001:db8:1::2") / \
        UDP(sport=53, dport=53) / Raw(b"six")
    dsts = ["10.10.1.3", "10.10.1.2", "10.10.1.3", "10.10.1.3", "10.10.1.2", "10.10.1.3"]
    in1 = [vx(back(d, i)) for i, d in enumerate(dsts)] + [vx(b6)]
    s = sluiced_factory(pcap_ports(tmp_path, [], in1), ROUTER + TUNNEL + [
        "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        "set interface ip address port0 2001:db8:1::10/64",
        "ip neighbor port0 10.10.1.3 02:00:00:00:00:33",
        "set acl-plugin acl permit src 0.0.0.0/0 dst 10.10.1.3/32",
        "set acl-plugin interface vxlan_tunnel0 input acl 0"] +
        (["set interface ip vxlan-bypass port1"] if bypass else []) + ["trace add port-rx 50"])
    s.wait_rx("port1", len(in1))
    hops = {(r["node"], r["next"]) for r in s.js("show trace")["trace"]}
    assert (("ip4-vxlan-bypass" if bypass else "vxlan4-input"), "device-input-features") in hops
    assert ("device-input-features", "acl-input") in hops
    errs = s.errors()
    tun = s.iface("vxlan_tunnel0")
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    assert errs == {("acl-input", "acl no rule matched (default deny)"): 3}
    assert tun["rx-packets"] == len(in1)
    assert out1 == []
    permitted = [back(d, i) for i, d in enumerate(dsts) if d == "10.10.1.3"]
    routed_exactly(out0, permitted, "02:00:00:00:00:33")


def test_vxlan_input_policer(sluiced_factory, tmp_path):
    """A policer on a tunnel's input meters its decapsulated frames (100 bytes each), with the
    RFC 2697 arithmetic of a port's (test_policer): cb 1000 and eb 500 at cir 8 kbps pass 10
    frames green and 5 yellow (marked AF11), and drop the other 15."""
    back = [Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst="10.10.1.2", id=i) /
            UDP(sport=i, dport=9) / Raw(b"p" * 58) for i in range(30)]
    assert len(raw(back[0])) == 100
    errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [], [vx(b) for b in back], [
        "set interface ip address vxlan_tunnel0 172.16.0.1/30",
        "policer add name p1 type 1r3c cir 8 cb 1000 eb 500 conform-action transmit "
        "exceed-action mark-and-transmit AF11 violate-action drop",
        "policer input name p1 vxlan_tunnel0"])
    assert errs == {("policer-input", "policer violate-action drop"): 15}
    assert ifs["vxlan_tunnel0"]["rx-packets"] == 30
    assert [o[IP].id for o in out0] == list(range(15))
    assert [o[IP].tos >> 2 for o in out0] == [0] * 10 + [10] * 5
    assert out1 == []
