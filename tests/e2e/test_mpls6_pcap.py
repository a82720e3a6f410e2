# SPDX-License-Identifier: BSD-3-Clause
"""MPLS over UDP (RFC 7510) and over GRE (RFC 4023) with an IPv6 underlay, every byte checked
with scapy: a customer's table (5, on VLAN 100 of port0) reached through tunnels that push
the remote's labels, their outer IPv6 headers and the UDP checksum IPv6 requires; label 100
popping MPLS over UDP and over GRE from IPv6 into table 5; bad packets dropped by name."""
from scapy.all import GRE, IP, UDP, Dot1Q, Ether, IPv6, Raw, raw
from scapy.contrib.mpls import MPLS

from conftest import MAC0, MAC1, NH1, pcap_ports, pcap_outs

ME, FARV = "2001:db8:2::10", "2001:db8:2::1"
CUST = "02:00:00:00:0c:0c"
CLI = ["set interface state port0 up", "set interface state port1 up",
       f"set interface ip address port1 {ME}/64", f"ip neighbor port1 {FARV} {NH1}",
       "ip table add 5", "create sub-interfaces port0 100", "set interface state port0.100 up",
       "set interface ip table port0.100 5", "set interface ip address port0.100 192.168.1.1/24",
       f"ip neighbor port0.100 192.168.1.2 {CUST}",
       "mpls table add 0", "mpls local-label add 100 eos via ip4-lookup-in-table 5",
       f"create mpls-udp tunnel src {ME} dst {FARV} out-label 200",
       "set interface ip table mplsudp0 5", "set interface state mplsudp0 up",
       "set interface ip address mplsudp0 172.16.0.1/30",
       "ip route add table 5 49.0.0.0/8 via 172.16.0.2 mplsudp0",
       f"create mpls-gre tunnel src {ME} dst {FARV} out-label 300",
       "set interface ip table mplsgre0 5", "set interface state mplsgre0 up",
       "set interface ip address mplsgre0 172.16.1.1/30",
       "ip route add table 5 50.0.0.0/8 via 172.16.1.2 mplsgre0"]


def test_mpls_over_ipv6_exact(sluiced_factory, tmp_path):
    inner = IP(src="49.0.0.1", dst="192.168.1.2", ttl=64) / UDP(sport=9, dport=9) / Raw(b"m" * 20)
    o6 = Ether(dst=MAC1, src=NH1) / IPv6(src=FARV, dst=ME)
    in1 = [o6 / UDP(sport=50000, dport=6635) / MPLS(label=100, s=1, ttl=64) / inner,   # into table 5
           o6 / GRE(proto=0x8847) / MPLS(label=100, s=1, ttl=64) / inner,              # the same over GRE
           o6 / UDP(sport=50000, dport=6635) / MPLS(label=101, s=1, ttl=64) / inner,   # no such label
           o6 / UDP(sport=50000, dport=6635, chksum=0) / MPLS(label=100, s=1, ttl=64) / inner,
           o6 / UDP(sport=50000, dport=6635) / MPLS(label=100, s=1, ttl=1) / inner]    # TTL expired
    cust = Ether(dst=MAC0, src=CUST) / Dot1Q(vlan=100)
    in0 = [cust / IP(src="192.168.1.2", dst="49.0.0.7", ttl=64) / UDP(sport=9, dport=9) / Raw(b"c" * 20),
           cust / IP(src="192.168.1.2", dst="50.0.0.7", ttl=64) / UDP(sport=9, dport=9) / Raw(b"d" * 20)]
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), CLI, memory=768)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    tun = {t["name"]: t for c in ("show mpls-udp tunnel", "show mpls-gre tunnel")
           for t in s.js(c)["tunnels"]}
    types = {i["name"]: i["type"] for i in s.js("show interface")["interfaces"]}
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    # popped into table 5 (over UDP and over GRE): out of VLAN 100, one hop less
    assert len(out0) == 2
    for x in out0:
        assert x[Ether].dst == CUST and x[Dot1Q].vlan == 100
        exp = inner.copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(x[IP]) == raw(IP(raw(exp)))
    # into the tunnels: IPv6, then UDP 6635 with its checksum, or GRE 0x8847; the remote's
    # label with the packet's TTL (RFC 3443 uniform)
    assert len(out1) == 2
    by_label = {}
    for x in out1:
        assert x[Ether].dst == NH1 and x[Ether].src == MAC1 and x[Ether].type == 0x86dd
        ip = x[IPv6]
        assert (ip.src, ip.dst, ip.hlim, ip.tc, ip.fl, ip.plen) == (ME, FARV, 64, 0, 0, len(raw(ip.payload)))
        if ip.nh == 17:
            u = x[UDP]
            assert ip.nh == 17 and u.dport == 6635 and u.sport >= 49152 and u.len == ip.plen
            fixed = IPv6(src=ME, dst=FARV) / UDP(sport=u.sport, dport=6635) / u.payload
            assert u.chksum != 0 and IPv6(raw(fixed))[UDP].chksum == u.chksum
            lab = MPLS(raw(u.payload))
        else:
            g = x[GRE]
            assert ip.nh == 47 and g.proto == 0x8847 and (g.chksum_present, g.key_present) == (0, 0)
            lab = MPLS(raw(g.payload))
        by_label[lab.label] = lab
    assert set(by_label) == {200, 300}
    for label, p in ((200, in0[0]), (300, in0[1])):
        lab = by_label[label]
        assert (lab.s, lab.ttl, lab.cos) == (1, 63, 0)
        sent = p[IP].copy()
        sent.ttl = 63
        del sent.chksum
        assert raw(lab.payload) == raw(IP(raw(sent)))
    assert errs == {("mpls6-udp-input", "no local label for the label and its S bit"): 1,
                    ("mpls6-udp-input", "MPLS TTL expired"): 1,
                    ("ip6-udp-local", "UDP checksum zero (RFC 8200 8.1)"): 1}
    assert (tun["mplsudp0"]["src"], tun["mplsudp0"]["dst"], tun["mplsudp0"]["mtu"]) == (ME, FARV, 1448)
    assert tun["mplsgre0"]["mtu"] == 1452
    assert (types["mplsudp0"], types["mplsgre0"]) == ("mplsudp6", "mplsgre6")
