# SPDX-License-Identifier: BSD-3-Clause
"""VXLAN on pcap ports, every byte checked with scapy's VXLAN layer: encapsulation of routed
and bridged traffic (outer headers, source port from the inner flow, checksums), decapsulation
into routing and bridging, each malformed or unknown packet dropped under its name, and the
CLI's refusals. test_vxlan_netns has the kernel as the remote VTEP."""
from pathlib import Path

from scapy.all import IP, UDP, Ether, Raw, rdpcap, wrpcap, raw
from scapy.layers.vxlan import VXLAN

from conftest import MAC0, MAC1, NH1, PEER0

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
TUN_MAC = "02:fe:76:78:00:00"     # vxlan_tunnel0's own
FAR = "02:00:00:00:77:02"         # a host behind the remote VTEP
TUNNEL = ["create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 77",
          "set interface state vxlan_tunnel0 up"]


def run(factory, tmp_path, in0, in1, cli):
    wrpcap(str(tmp_path / "in0.pcap"), in0, linktype=1)
    wrpcap(str(tmp_path / "in1.pcap"), in1, linktype=1)
    devs = [
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/in1.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ]
    s = factory(devs, ROUTER + TUNNEL + cli)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    ifs = {n: s.iface(n) for n in ("port0", "port1", "vxlan_tunnel0")}
    assert s.stop() == 0
    return errs, ifs, list(rdpcap(str(tmp_path / "out0.pcap"))), list(rdpcap(str(tmp_path / "out1.pcap")))


def vx(inner, vni=77, src="10.10.2.1", flags=0x08):
    return Ether(dst=MAC1, src=NH1) / IP(src=src, dst="10.10.2.10") / \
        UDP(sport=50000, dport=4789, chksum=0) / VXLAN(flags=flags, vni=vni) / inner


def check_outer(o, vni=77):
    """The outer headers sluiced writes (RFC 7348 5), and valid lengths and checksum."""
    assert o[Ether].dst == NH1 and o[Ether].src == MAC1
    ip = o[IP]
    assert (ip.src, ip.dst, ip.ttl, ip.flags, ip.frag, ip.proto, ip.tos, ip.id) == \
        ("10.10.2.10", "10.10.2.1", 63, "DF", 0, 17, 0, 0)
    assert ip.len == len(raw(ip))
    fixed = IP(raw(ip))
    del fixed.chksum
    assert IP(raw(fixed)).chksum == ip.chksum
    u = o[UDP]
    assert u.dport == 4789 and 49152 <= u.sport <= 65535 and u.chksum == 0
    assert u.len == len(raw(u))
    assert o[VXLAN].flags == 0x08 and o[VXLAN].vni == vni and o[VXLAN].reserved2 == 0


def test_vxlan_routed_exact(sluiced_factory, tmp_path):
    # 8 flows, two packets each, routed into the tunnel
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="49.0.0.9", ttl=64, id=i) /
           UDP(sport=1000 + i % 8, dport=53) / Raw(b"q" * 30) for i in range(16)]
    # from the remote VTEP: routed out of port0; then the malformed and the unknown
    back = Ether(dst=TUN_MAC, src=FAR) / IP(src="49.0.0.9", dst="10.10.1.2", ttl=64) / \
        UDP(sport=53, dport=1000) / Raw(b"a" * 30)
    in1 = [vx(back) for _ in range(5)] + [
        vx(back, vni=78),                       # no tunnel has VNI 78
        vx(back, src="10.10.2.3"),              # nor this remote
        vx(back, flags=0x00),                   # no I flag
        vx(Raw(b"\x00" * 6)),                   # no whole inner Ethernet header
        vx(Ether(dst="02:00:00:00:00:55", src=FAR) / IP(dst="10.10.1.2")),  # not to our MAC
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
        "create vxlan tunnel src 10.0.0.1 dst 239.1.1.1 vni 1": "multicast VTEPs are not supported",
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
        for v in range(200):
            s.cli(f"create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni {1000 + v}")
        assert len(s.js("show vxlan tunnel")["tunnels"]) == 200
        for v in range(200):
            s.cli(f"create vxlan tunnel src 10.0.0.1 dst 10.0.0.2 vni {1000 + v} del")
        assert s.js("show vxlan tunnel")["tunnels"] == []
