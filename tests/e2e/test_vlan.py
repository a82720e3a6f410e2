# SPDX-License-Identifier: BSD-3-Clause
"""VLAN sub-interfaces: a routed dot1q sub-interface (tags popped in, pushed out), a QinQ
sub-interface cross-connected in both directions, frames of unknown VLANs counted."""
from scapy.all import IP, UDP, Dot1AD, Dot1Q, Ether, Raw, raw, rdpcap

from conftest import NH1
from test_bridge import Bridge

PG0, PG1 = "02:fe:00:00:00:00", "02:fe:00:00:00:01"
H = "02:00:00:00:00:0a"


def test_routed_and_qinq_sub_interfaces(sluiced_factory, tmp_path):
    b = Bridge(sluiced_factory, tmp_path)
    s = b.s
    for line in ["set interface l3 pg0", "set interface l3 pg1", "set interface l3 pg2",
                 "create sub-interfaces pg0 100",
                 "set interface ip address pg0.100 10.10.100.1/24", "set interface state pg0.100 up",
                 f"ip neighbor pg0.100 10.10.100.2 {H}",
                 "set interface ip address pg1 10.10.2.10/24",
                 f"ip neighbor pg1 10.10.2.1 {NH1}", "ip route add 48.0.0.0/8 via 10.10.2.1",
                 "create sub-interfaces pg0 200 dot1ad 200 inner-dot1q 300",
                 "set interface state pg0.200 up",
                 "set interface l2 xconnect pg0.200 pg2", "set interface l2 xconnect pg2 pg0.200"]:
        s.cli(line)
    names = [i["name"] for i in s.js("show interface")["interfaces"]]
    assert names == ["pg0", "pg1", "pg2", "pg0.100", "pg0.200"]
    routed_in = Ether(src=H, dst=PG0) / Dot1Q(vlan=100) / IP(src="10.10.100.2", dst="48.0.0.9", ttl=7) / UDP(sport=1, dport=2)
    qinq = Ether(src=H, dst="02:00:00:00:00:77") / Dot1AD(vlan=200) / Dot1Q(vlan=300) / IP(src="1.1.1.1", dst="2.2.2.2") / UDP(sport=3, dport=4) / Raw(b"q" * 8)
    stray = Ether(src=H, dst=PG0) / Dot1Q(vlan=999) / IP(src="1.1.1.1", dst="48.0.0.1") / UDP()
    b.send(0, [routed_in, qinq, stray])
    plain = Ether(src="02:00:00:00:00:77", dst=H) / IP(src="2.2.2.2", dst="1.1.1.1") / UDP(sport=4, dport=3)
    b.send(2, [plain])
    b.send(1, [Ether(src="02:00:00:00:00:99", dst=PG1) / IP(src="10.10.2.1", dst="10.10.100.2", ttl=9) / UDP(sport=5, dport=6)])
    assert s.errors() == {("ethernet-input", "VLAN tags of no sub-interface"): 1}
    assert s.iface("pg0.100")["rx-packets"] == 1 and s.iface("pg0.100")["tx-packets"] == 1
    assert s.iface("pg0.200")["rx-packets"] == 1 and s.iface("pg0.200")["tx-packets"] == 1
    s.check_refused({
        "create sub-interfaces pg0 100 dot1q 101": "exists",
        "create sub-interfaces pg0 101 dot1q 100": "has these tags already",
        "create sub-interfaces pg0.100 5": "cannot have sub-interfaces",
        "create sub-interfaces pg0 5000": "sub-interface id must be",
        "create sub-interfaces pg0 7 dot1q": "missing VLAN",
    })
    assert s.stop() == 0
    pg0 = list(rdpcap(str(tmp_path / "pg0.pcap")))
    pg1 = list(rdpcap(str(tmp_path / "pg1.pcap")))
    pg2 = list(rdpcap(str(tmp_path / "pg2.pcap")))
    # in on pg0.100 (tag popped), routed out of pg1
    assert len(pg1) == 1 and Dot1Q not in pg1[0] and pg1[0][IP].dst == "48.0.0.9" and pg1[0][IP].ttl == 6
    # the QinQ frame, tags popped, out of pg2 unchanged otherwise
    assert len(pg2) == 1 and raw(pg2[0]) == raw(Ether(src=H, dst="02:00:00:00:00:77") / qinq[Dot1Q].payload)
    # back: pg2 -> pg0.200 gets both tags; routed to 10.10.100.2 leaves pg0 tagged 100
    assert len(pg0) == 2
    assert raw(pg0[0]) == raw(Ether(src="02:00:00:00:00:77", dst=H) / Dot1AD(vlan=200) / Dot1Q(vlan=300) / plain[IP])
    r = pg0[1]
    assert r[Dot1Q].vlan == 100 and r[Ether].src == PG0 and r[Ether].dst == H and r[IP].ttl == 8


def test_routed_sub_interfaces_one_vector(sluiced_factory, tmp_path):
    """A trunk's vector (its first frame tagged: ethernet-input's VLAN loop, which looks a
    sub-interface up once per run of one VLAN and counts the run in registers): routed
    IPv4 and IPv6 of two sub-interfaces, their runs switching, each routed out of pg1 byte
    for byte and counted on its own sub-interface exactly; a frame of a sub-interface that is
    down, one to another MAC and one of an ACL'd sub-interface (a device-input feature: the
    slow path) each as before."""
    from scapy.all import IPv6
    b = Bridge(sluiced_factory, tmp_path)
    s = b.s
    for line in ["set interface l3 pg0", "set interface l3 pg1", "set interface l3 pg2",
                 "create sub-interfaces pg0 10", "create sub-interfaces pg0 20",
                 "create sub-interfaces pg0 30", "create sub-interfaces pg0 40",
                 "set interface ip address pg0.10 10.10.10.1/24",
                 "set interface ip address pg0.20 10.10.20.1/24",
                 "set interface ip address pg0.20 2001:db8:20::1/64",
                 "set interface ip address pg0.30 10.10.30.1/24",
                 "set interface ip address pg0.40 10.10.40.1/24",
                 "set interface state pg0.10 up", "set interface state pg0.20 up",
                 "set interface state pg0.40 up",
                 "set interface ip address pg1 10.10.2.10/24",
                 "set interface ip address pg1 2001:db8:2::10/64",
                 f"ip neighbor pg1 10.10.2.1 {NH1}", f"ip neighbor pg1 2001:db8:2::1 {NH1}",
                 "ip route add 48.0.0.0/8 via 10.10.2.1", "ip route add 2400::/8 via 2001:db8:2::1",
                 "set acl-plugin acl deny src 10.10.40.0/24 dst 0.0.0.0/0, permit",
                 "set acl-plugin interface pg0.40 input acl 0"]:
        s.cli(line)

    def tagged(vid, sport, v6=False, dst=PG0):
        ip = (IPv6(src=f"2001:db8:{vid}::2", dst="2400::9", hlim=9) if v6 else
              IP(src=f"10.10.{vid}.2", dst="48.0.0.9", ttl=9))
        return Ether(src=H, dst=dst) / Dot1Q(vlan=vid) / ip / UDP(sport=sport, dport=2) / Raw(b"t" * vid)

    frames = [tagged(10, 1), tagged(20, 2), tagged(20, 3, v6=True), tagged(10, 4), tagged(10, 5),
              tagged(30, 6), tagged(10, 7, dst="02:00:00:00:00:77"), tagged(40, 8), tagged(10, 9)]
    b.send(0, frames)
    subs = {v: s.iface(f"pg0.{v}") for v in (10, 20, 30, 40)}
    errs = s.errors()
    assert s.stop() == 0
    assert errs == {("ethernet-input", "VLAN tags of no sub-interface"): 1,
                    ("ethernet-input", "destination MAC not ours"): 1,
                    ("acl-input", "acl deny"): 1}, errs
    # each sub-interface's frames less the tag, the one to another MAC too (counted in, then
    # dropped: as the slow path counts it)
    fast = {10: [0, 3, 4, 6, 8], 20: [1, 2]}
    for v, idx in fast.items():
        want = (len(idx), sum(len(frames[i]) - 4 for i in idx))
        assert (subs[v]["rx-packets"], subs[v]["rx-bytes"]) == want, (v, subs[v])
    assert subs[40]["rx-packets"] == 1 and subs[30]["rx-packets"] == 0
    out = [p for p in rdpcap(str(tmp_path / "pg1.pcap")) if UDP in p]  # (not sluiced's own ND)
    # (IPv4 in order; the IPv6 one leaves by ip6's nodes, in another vector of pg1's)
    assert [p[UDP].sport for p in out if IP in p] == [1, 2, 4, 5, 9]
    assert sorted(p[UDP].sport for p in out) == [1, 2, 3, 4, 5, 9]
    for p in out:
        src = frames[p[UDP].sport - 1]
        want = src[Dot1Q].payload.copy()
        if IPv6 in want:
            want[IPv6].hlim = 8
        else:
            want[IP].ttl = 8
            del want[IP].chksum
        assert Dot1Q not in p and (p[Ether].src, p[Ether].dst) == (PG1, NH1)
        assert raw(p[Ether].payload) == raw(want.__class__(raw(want))), p[UDP].sport
