# SPDX-License-Identifier: BSD-3-Clause
"""MPLS (RFC 3032) local labels and MPLS over UDP (RFC 7510), every byte checked with scapy's
MPLS layer (the kernel here has no MPLS): a customer's table (5, on VLAN 100 of port0)
reached through an MPLS-over-UDP tunnel that pushes the remote's label, and the local label
100 popping MPLS-over-UDP and MPLS-over-Ethernet packets into table 5; every bad packet
dropped by name; the CLI's refusals."""
from pathlib import Path

from scapy.all import IP, UDP, Dot1Q, Ether, Raw, raw
from scapy.contrib.mpls import MPLS

from conftest import MAC0, MAC1, NH1, PEER0, pcap_ports, pcap_outs

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
CUST = "02:00:00:00:0c:0c"
VRF = ["ip table add 5", "create sub-interfaces port0 100", "set interface state port0.100 up",
       "set interface ip table port0.100 5", "set interface ip address port0.100 192.168.1.1/24",
       f"ip neighbor port0.100 192.168.1.2 {CUST}",
       "mpls table add 0", "mpls local-label add 100 eos via ip4-lookup-in-table 5",
       "set interface mpls port1 enable",
       "create mpls-udp tunnel src 10.10.2.10 dst 10.10.2.1 out-label 200",
       "set interface ip table mplsudp0 5", "set interface state mplsudp0 up",
       "set interface ip address mplsudp0 172.16.0.1/30",
       "ip route add table 5 49.0.0.0/8 via 172.16.0.2 mplsudp0"]


def test_mpls_udp_exact(sluiced_factory, tmp_path):
    inner = IP(src="49.0.0.1", dst="192.168.1.2", ttl=64) / UDP(sport=9, dport=9) / Raw(b"m" * 20)
    ou = Ether(dst=MAC1, src=NH1) / IP(src="10.10.2.1", dst="10.10.2.10") / \
        UDP(sport=50000, dport=6635, chksum=0)
    oe = Ether(dst=MAC1, src=NH1, type=0x8847)
    in1 = [ou / MPLS(label=100, s=1, ttl=64) / inner,          # over UDP into table 5
           oe / MPLS(label=100, s=1, ttl=64) / inner,          # over Ethernet, the same
           ou / MPLS(label=101, s=1, ttl=64) / inner,          # no such label
           ou / MPLS(label=100, s=0, ttl=64) / MPLS(label=100, s=1, ttl=64) / inner,  # not bottom
           ou / MPLS(label=100, s=1, ttl=1) / inner,           # TTL expired
           ou / MPLS(label=100, s=1, ttl=64) / Raw(b"\x00" * 20),  # not IP under it
           ou / Raw(b"\x00\x06")]                              # truncated
    in0 = [Ether(dst=MAC0, src=CUST) / Dot1Q(vlan=100) / IP(src="192.168.1.2", dst="49.0.0.7", ttl=64) /
           UDP(sport=9, dport=9) / Raw(b"c" * 20),
           Ether(dst=MAC0, src=PEER0, type=0x8847) / MPLS(label=100, s=1, ttl=64) / inner]  # MPLS off
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), ROUTER + VRF, memory=768)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    fib = s.js("show mpls fib")["labels"]
    tun = s.js("show mpls-udp tunnel")["tunnels"]
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    # popped into table 5: out of VLAN 100 to the customer, one hop less
    assert len(out0) == 2
    for x in out0:
        assert x[Ether].dst == CUST and x[Dot1Q].vlan == 100
        exp = inner.copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(x[IP]) == raw(IP(raw(exp)))
    # into the tunnel: IPv4, UDP 6635, the remote's label 200 with the packet's TTL
    assert len(out1) == 1
    x = out1[0]
    assert x[Ether].dst == NH1 and x[Ether].src == MAC1
    ip = x[IP]
    assert (ip.src, ip.dst, ip.ttl, ip.flags, ip.proto, ip.len) == ("10.10.2.10", "10.10.2.1", 64, "DF", 17,
                                                                     len(raw(ip)))
    fixed = IP(raw(ip))
    del fixed.chksum
    assert IP(raw(fixed)).chksum == ip.chksum
    u = x[UDP]
    assert u.dport == 6635 and u.sport >= 49152 and u.chksum == 0 and u.len == len(raw(u))
    lab = MPLS(raw(u.payload))
    assert (lab.label, lab.s, lab.ttl, lab.cos) == (200, 1, 63, 0)
    sent = in0[0][IP].copy()
    sent.ttl = 63
    del sent.chksum
    assert raw(lab.payload) == raw(IP(raw(sent)))
    assert errs == {("mpls4-udp-input", "no local label for the label and its S bit"): 2,
                    ("mpls4-udp-input", "MPLS TTL expired"): 1,
                    ("mpls4-udp-input", "not IPv4 or IPv6 under the bottom label"): 1,
                    ("mpls4-udp-input", "MPLS packet truncated"): 1,
                    ("mpls-input", "MPLS not enabled on the interface"): 1}
    assert fib == [{"label": 100, "eos": "eos", "action": "pop, look up", "table": 5, "via": "-"}]
    assert [(t["name"], t["out-label"], t["mtu"]) for t in tun] == [("mplsudp0", 200, 1468)]


def test_mpls_cli(sluiced_factory, tmp_path):
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ["ip table add 5", "set interface ip address port1 10.0.0.1/24"],
                        memory=768)
    s.check_refused({"mpls local-label add 100 eos via ip4-lookup-in-table 5": "no MPLS table (mpls table add 0)",
                     "mpls table add 1": "MPLS table must be a number from 0 to 0"})
    s.cli("mpls table add 0")
    s.cli("mpls local-label add 100 eos via ip4-lookup-in-table 5")
    s.check_refused({"mpls local-label add 15 eos via ip4-lookup-in-table 5": "label must be a number from 16 to 1048575",
                     "mpls local-label add 101 non-eos via ip4-lookup-in-table 5": "usage: mpls local-label",
                     "mpls local-label add 101 eos via mpls-lookup-in-table 0": "usage: mpls local-label",
                     "mpls local-label add 101 non-eos via mpls-lookup-in-table 1": "table must be a number from 0 to 0",
                     "mpls local-label add 101 eos via ip4-lookup-in-table 6": "no table 6",
                     "mpls local-label add 101 eos via mpls-lookup-in-table 0": "usage: mpls local-label",
                     "mpls local-label del 102 eos": "no local label 102 eos",
                     "mpls local-label del 102 non-eos": "no local label 102 non-eos",
                     "mpls table del 0": "MPLS table 0 has 1 local labels",
                     "ip table del 5": "MPLS local label 100 looks packets up in table 5",
                     "set interface mpls nosuch enable": "unknown interface 'nosuch'",
                     "create mpls-udp tunnel src 10.0.0.1 dst 10.0.0.2": "src, dst and out-label are required",
                     "create mpls-udp tunnel src 10.0.0.1 dst 10.0.0.2 out-label 3": "out-label must be a number from 16"})
    assert len(s.js("show mpls fib")["labels"]) == 1
    s.cli("mpls local-label del 100 eos")
    s.cli("ip table del 5")
    s.cli("mpls table del 0")
    assert s.js("show mpls fib")["labels"] == []
    s.cli("create mpls-udp tunnel src 10.0.0.1 dst 10.0.0.2 out-label 300")
    s.cli("create mpls-udp tunnel src 10.0.0.1 dst 10.0.0.2 out-label 300 del")
    assert s.js("show mpls-udp tunnel")["tunnels"] == []


def test_mpls_vrf_isolation(sluiced_factory, tmp_path):
    """The same customer prefix in two tables (VLANs 100 and 200 of port0), one label and one
    tunnel each: label 100 reaches only the first customer, 101 only the second, and each
    customer's traffic leaves with its own table's out-label."""
    cust2 = "02:00:00:00:0d:0d"
    vrf2 = ["ip table add 6", "create sub-interfaces port0 200", "set interface state port0.200 up",
            "set interface ip table port0.200 6", "set interface ip address port0.200 192.168.1.1/24",
            f"ip neighbor port0.200 192.168.1.2 {cust2}",
            "mpls local-label add 101 eos via ip4-lookup-in-table 6",
            "create mpls-udp tunnel src 10.10.2.10 dst 10.10.2.1 out-label 201",
            "set interface ip table mplsudp1 6", "set interface state mplsudp1 up",
            "set interface ip address mplsudp1 172.16.0.1/30",
            "ip route add table 6 49.0.0.0/8 via 172.16.0.2 mplsudp1"]
    ou = Ether(dst=MAC1, src=NH1) / IP(src="10.10.2.1", dst="10.10.2.10") / UDP(sport=50000, dport=6635, chksum=0)
    in1 = [ou / MPLS(label=lab, s=1, ttl=64) / IP(src="49.0.0.1", dst="192.168.1.2") / UDP(sport=lab, dport=9)
           for lab in (100, 101, 101, 100, 101)]
    in0 = [Ether(dst=MAC0, src=mac) / Dot1Q(vlan=vlan) / IP(src="192.168.1.2", dst="49.0.0.7") /
           UDP(sport=vlan, dport=9) for mac, vlan in ((CUST, 100), (cust2, 200), (cust2, 200))]
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), ROUTER + VRF + vrf2, memory=768)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    got = sorted((x[Dot1Q].vlan, x[Ether].dst, x[UDP].sport) for x in out0)
    assert got == [(100, CUST, 100)] * 2 + [(200, cust2, 101)] * 3
    labs = []
    for x in out1:
        lab = MPLS(raw(x[UDP].payload))
        labs.append((lab.label, IP(raw(lab.payload))[UDP].sport))
    labs.sort()
    assert labs == [(200, 100), (201, 200), (201, 200)]
    assert errs == {}


def test_mpls_gre_exact(sluiced_factory, tmp_path):
    """MPLS over GRE (RFC 4023): GRE protocol 0x8847 from any sender popped by its label into
    table 5; an MPLS-over-GRE tunnel pushes the remote's label under a plain GRE header."""
    from scapy.layers.l2 import GRE
    inner = IP(src="49.0.0.1", dst="192.168.1.2", ttl=64) / UDP(sport=9, dport=9) / Raw(b"g" * 20)
    og = Ether(dst=MAC1, src=NH1) / IP(src="10.10.2.1", dst="10.10.2.10")
    in1 = [og / GRE(proto=0x8847) / MPLS(label=100, s=1, ttl=64) / inner,
           og / GRE(proto=0x8847, key_present=1, key=7) / MPLS(label=100, s=1, ttl=64) / inner,  # keys too
           og / GRE(proto=0x8847) / MPLS(label=102, s=1, ttl=64) / inner,                        # no label
           og / GRE(proto=0x8847) / Raw(b"\x00\x06")]                                              # truncated
    in0 = [Ether(dst=MAC0, src=CUST) / Dot1Q(vlan=100) / IP(src="192.168.1.2", dst="50.0.0.7", ttl=64) /
           UDP(sport=9, dport=9) / Raw(b"c" * 20)]
    gre = ["create mpls-gre tunnel src 10.10.2.10 dst 10.10.2.1 out-label 300",
           "set interface ip table mplsgre0 5", "set interface state mplsgre0 up",
           "set interface ip address mplsgre0 172.16.1.1/30",
           "ip route add table 5 50.0.0.0/8 via 172.16.1.2 mplsgre0"]
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), ROUTER + VRF + gre, memory=768)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    tun = s.js("show mpls-gre tunnel")["tunnels"]
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    assert len(out0) == 2
    for x in out0:
        assert x[Ether].dst == CUST and x[Dot1Q].vlan == 100 and x[IP].ttl == 63 and x[IP].dst == "192.168.1.2"
    assert len(out1) == 1
    ip = out1[0][IP]
    assert (ip.src, ip.dst, ip.ttl, ip.flags, ip.proto, ip.len) == ("10.10.2.10", "10.10.2.1", 64, "DF", 47,
                                                                     len(raw(ip)))
    g = GRE(raw(ip.payload))
    assert (g.chksum_present, g.key_present, g.seqnum_present, g.proto) == (0, 0, 0, 0x8847)
    lab = MPLS(raw(g.payload))
    assert (lab.label, lab.s, lab.ttl) == (300, 1, 63)
    sent = in0[0][IP].copy()
    sent.ttl = 63
    del sent.chksum
    assert raw(lab.payload) == raw(IP(raw(sent)))
    assert errs == {("mpls-gre-input", "no local label for the label and its S bit"): 1,
                    ("mpls-gre-input", "MPLS packet truncated"): 1}
    assert [(t["name"], t["out-label"], t["mtu"]) for t in tun] == [("mplsgre0", 300, 1472)]


def test_mpls_label_stack(sluiced_factory, tmp_path):
    """A non-eos label (300, via mpls-lookup-in-table 0) popped and the next one looked up: a
    stack of 300 over 100 reaches table 5; 300 at the bottom, 100 above the bottom, and a
    stack deeper than 4 labels are dropped by name."""
    inner = IP(src="49.0.0.1", dst="192.168.1.2", ttl=64) / UDP(sport=9, dport=9) / Raw(b"s" * 20)
    ou = Ether(dst=MAC1, src=NH1) / IP(src="10.10.2.1", dst="10.10.2.10") / UDP(sport=50000, dport=6635, chksum=0)
    in1 = [ou / MPLS(label=300, s=0, ttl=64) / MPLS(label=100, s=1, ttl=64) / inner,
           ou / MPLS(label=300, s=0, ttl=64) / MPLS(label=300, s=0, ttl=64) / MPLS(label=100, s=1, ttl=64) / inner,
           ou / MPLS(label=300, s=1, ttl=64) / inner,                                  # 300 eos: none
           ou / MPLS(label=300, s=0, ttl=64) / MPLS(label=100, s=0, ttl=64) / inner,   # 100 non-eos: none
           ou / MPLS(label=300, s=0, ttl=1) / MPLS(label=100, s=1, ttl=64) / inner,    # outer TTL 1
           ou / MPLS(label=300, s=0, ttl=64) / MPLS(label=100, s=1, ttl=1) / inner,    # inner TTL 1
           ou / MPLS(label=300, s=0, ttl=64) / MPLS(label=300, s=0, ttl=64) / MPLS(label=300, s=0, ttl=64) /
           MPLS(label=300, s=0, ttl=64) / MPLS(label=100, s=1, ttl=64) / inner,        # 5 labels
           ou / MPLS(label=300, s=0, ttl=64) / Raw(b"\x00\x00")]                    # nothing under it
    s = sluiced_factory(pcap_ports(tmp_path, [], in1), ROUTER + VRF + [
        "mpls local-label add 300 non-eos via mpls-lookup-in-table 0"], memory=768)
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    fib = sorted((x["label"], x["eos"], x["action"], x["table"]) for x in s.js("show mpls fib")["labels"])
    assert s.stop() == 0
    out0 = pcap_outs(tmp_path, 2)[0]
    assert len(out0) == 2
    for x in out0:
        assert x[Dot1Q].vlan == 100 and x[IP].dst == "192.168.1.2" and x[IP].ttl == 63
    assert errs == {("mpls4-udp-input", "no local label for the label and its S bit"): 2,
                    ("mpls4-udp-input", "MPLS TTL expired"): 2,
                    ("mpls4-udp-input", "label stack deeper than 4 labels"): 1,
                    ("mpls4-udp-input", "MPLS packet truncated"): 1}
    assert fib == [(100, "eos", "pop, look up", 5), (300, "non-eos", "pop, look up the next label", 0)]


LSP = ["mpls table add 0", "set interface mpls port1 enable",
       "set interface ip address port0 2001:db8:1::10/64",
       "mpls tunnel add via 10.10.2.1 port1 out-labels 300 301",   # mpls-tunnel0
       "set interface state mpls-tunnel0 up",
       "ip route add 50.0.0.0/8 via mpls-tunnel0", "ip route add 2400::/16 via mpls-tunnel0",
       "mpls tunnel add via 10.10.2.77 port1 out-labels 700",      # mpls-tunnel1: no answer
       "set interface state mpls-tunnel1 up", "ip route add 51.0.0.0/8 via mpls-tunnel1",
       "mpls local-label add 500 eos via 10.10.2.1 port1 out-labels 600",
       "mpls local-label add 501 non-eos via 10.10.2.1 port1 out-labels 601 602",
       "mpls local-label add 502 eos via 10.10.2.1 port1"]                 # pop, forward


def test_mpls_push_swap_exact(sluiced_factory, tmp_path):
    """Label imposition (IPv4 and IPv6 routed into an MPLS tunnel: two labels with the
    packet's TTL, the next hop's MAC, ethertype 0x8847), the tunnel's MTU (1,492 for two
    labels: fragmentation needed), swap of a bottom label and of a label above another (TTL
    less one, S kept, one label for two), a next hop that does not answer (dropped by name,
    ARP asked); every byte by scapy."""
    from scapy.all import ICMP, IPv6, ARP
    c = Ether(dst=MAC0, src=PEER0)
    p4 = IP(src="10.10.1.2", dst="50.0.0.1", ttl=64) / UDP(sport=7, dport=9) / Raw(b"4" * 20)
    p6 = IPv6(src="2001:db8:1::2", dst="2400::1", hlim=64) / UDP(sport=7, dport=9) / Raw(b"6" * 20)
    big = IP(src="10.10.1.2", dst="50.0.0.1", ttl=64, flags="DF") / UDP(sport=8, dport=9) / Raw(b"b" * 1465)
    in0 = [c / p4, c / p6, c / big,
           c / IP(src="10.10.1.2", dst="51.0.0.1") / UDP(sport=1, dport=9)]   # unresolved
    w = Ether(dst=MAC1, src=NH1, type=0x8847)
    inner = IP(src="60.0.0.1", dst="61.0.0.1", ttl=30) / UDP(sport=5, dport=9) / Raw(b"s" * 20)
    in1 = [w / MPLS(label=500, s=1, ttl=64, cos=5) / inner,
           w / MPLS(label=501, s=0, ttl=10) / MPLS(label=900, s=1, ttl=77) / inner,
           w / MPLS(label=500, s=1, ttl=1) / inner,                          # TTL expired
           w / MPLS(label=502, s=1, ttl=64) / inner,
           w / MPLS(label=502, s=1, ttl=64) / IPv6(src="2001:db8::5", dst="2001:db8::6", hlim=9) / UDP(),
           w / MPLS(label=502, s=1, ttl=64) / IP(src="60.0.0.1", dst="61.0.0.1", ttl=1),  # IP TTL
           w / MPLS(label=502, s=1, ttl=64) / Raw(b"\x45\x00")]              # truncated IP
    s = sluiced_factory(pcap_ports(tmp_path, in0, in1), ROUTER + LSP, memory=768)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    tuns = {t["name"]: t for t in s.js("show mpls tunnel")["mpls-tunnels"]}
    fib = {(x["label"], x["eos"]): x for x in s.js("show mpls fib")["labels"]}
    errs = s.errors()
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    assert tuns["mpls-tunnel0"]["via"] == "10.10.2.1 port1 out-labels 300 301"
    assert (tuns["mpls-tunnel0"]["mtu"], tuns["mpls-tunnel0"]["next-hop"]) == (1492, "resolved")
    assert tuns["mpls-tunnel1"]["next-hop"] == "resolving"
    assert fib[(500, "eos")]["action"] == "swap" and fib[(500, "eos")]["via"] == "10.10.2.1 port1 out-labels 600"
    assert fib[(501, "non-eos")]["via"] == "10.10.2.1 port1 out-labels 601 602"
    labelled = [x for x in out1 if x[Ether].type == 0x8847]
    # popped and forwarded: the IP packet alone, one hop less, its own ethertype
    popped = [x for x in out1 if x[Ether].type in (0x0800, 0x86dd)]
    assert len(popped) == 2 and all((x[Ether].dst, x[Ether].src) == (NH1, MAC1) for x in popped)
    hop4 = inner.copy()
    hop4.ttl = 29
    del hop4.chksum
    assert raw(popped[0])[14:] == raw(IP(raw(hop4)))
    assert popped[1][Ether].type == 0x86dd and popped[1][IPv6].hlim == 8 and popped[1][IPv6].dst == "2001:db8::6"
    assert errs[("mpls-input", "pop and forward: IP TTL expired")] == 1
    assert errs[("mpls-input", "not IPv4 or IPv6 under the bottom label")] == 1
    assert fib[(502, "eos")]["action"] == "pop, forward" and fib[(502, "eos")]["via"] == "10.10.2.1 port1"
    arps = [x for x in out1 if ARP in x]
    assert arps and all(a[ARP].pdst == "10.10.2.77" and a[ARP].op == 1 for a in arps)
    assert len(labelled) == 4, ([x.summary() for x in out1], errs)
    for x in labelled:
        assert (x[Ether].dst, x[Ether].src) == (NH1, MAC1)
    # the two ports' packets interleave by the walk: the pushed ones (300) in port0's order,
    # then the swapped ones in port1's
    pushed = [x for x in labelled if x[MPLS].label == 300]
    labelled = pushed + [x for x in labelled if x[MPLS].label != 300]
    # imposition: 300 then 301 (bottom), both with the packet's TTL after this hop
    want4 = p4.copy()
    want4.ttl = 63
    del want4.chksum
    assert raw(labelled[0])[14:] == raw(MPLS(label=300, s=0, ttl=63) / MPLS(label=301, s=1, ttl=63) / IP(raw(want4)))
    want6 = p6.copy()
    want6.hlim = 63
    assert raw(labelled[1])[14:] == raw(MPLS(label=300, s=0, ttl=63) / MPLS(label=301, s=1, ttl=63) / want6)
    # swaps: 500 (bottom, EXP 5 not kept: a new label's is 0) -> 600, TTL 63; 501 above 900
    # -> 601 602, neither the bottom, TTL 9; the IP packet and the label under untouched
    assert raw(labelled[2])[14:] == raw(MPLS(label=600, s=1, ttl=63) / inner)
    assert raw(labelled[3])[14:] == raw(MPLS(label=601, s=0, ttl=9) / MPLS(label=602, s=0, ttl=9) /
                                        MPLS(label=900, s=1, ttl=77) / inner)
    # the 1,493-byte packet with DF: fragmentation needed with the tunnel's MTU
    icmp = [x for x in out0 if ICMP in x]
    assert len(icmp) == 1 and (icmp[0][ICMP].type, icmp[0][ICMP].code, icmp[0][ICMP].nexthopmtu) == (3, 4, 1492)
    assert errs[("mpls-tunnel-output", "next hop not resolved (ARP asked)")] == 1
    assert errs[("mpls-input", "MPLS TTL expired")] == 1


def test_mpls_lsp_cli(sluiced_factory, tmp_path):
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ROUTER + LSP, memory=768)
    s.check_refused({
        "mpls tunnel add via 10.10.2.1 port1": "usage: ... via NEXTHOP IFACE out-labels",
        "mpls tunnel add via 10.10.2.1 nosuch out-labels 40": "unknown interface 'nosuch'",
        "mpls tunnel add via 2001:db8::1 port1 out-labels 40": "is not an IPv4 address",
        "mpls tunnel add via 10.10.2.1 port1 out-labels 3": "out-label must be a number from 16",
        "mpls tunnel add via 10.10.2.1 port1 out-labels 16 17 18 19 20 21 22 23 24": "9 out-labels: at most 8",
        "mpls tunnel add via 10.10.2.1 mpls-tunnel0 out-labels 40": "mpls-tunnel0 is a mpls-tunnel",
        "mpls tunnel del mpls-tunnel9": "no MPLS tunnel 'mpls-tunnel9'",
        "mpls tunnel del port0": "no MPLS tunnel 'port0'",
        "mpls tunnel del mpls-tunnel0": "cannot delete mpls-tunnel0",
        "ip route add 52.0.0.0/8 via port0": "port0 is not point to point",
        "mpls local-label add 503 eos via 10.10.2.1 port1 out-labels": "usage: mpls local-label",
        "mpls local-label add 503 eos via 10.10.2.1 port1 out-labels 1": "out-label must be a number from 16",
        "mpls local-label add 503 non-eos via 10.10.2.1 port1": "pops the bottom label (eos) only",
        "mpls local-label add 503 eos via 10.10.2.1 nosuch": "unknown interface 'nosuch'",
    })
    # an MPLS tunnel receives nothing of its own: input features refused, output ones taken
    s.cli("set acl-plugin acl permit src 0.0.0.0/0 dst 0.0.0.0/0")
    s.cli("policer add name p cir 1000 cb 1500")
    nothing = "mpls-tunnel0 receives no packets of its own (an MPLS tunnel's are taken by their label)"
    s.check_refused({"set acl-plugin interface mpls-tunnel0 input acl 0": nothing,
                     "policer input name p mpls-tunnel0": nothing,
                     "set interface feature mpls-tunnel0 pcap-rx arc device-input": nothing})
    assert s.js("show acl-plugin interface mpls-tunnel0")["acl-interfaces"] == []
    s.cli("set acl-plugin interface mpls-tunnel0 output acl 0")
    s.cli("set acl-plugin interface mpls-tunnel0 output acl 0 del")
    assert len(s.js("show mpls tunnel")["mpls-tunnels"]) == 2
    assert len(s.js("show mpls fib")["labels"]) == 3
    # replaced, then deleted; the tunnels go once no route uses them
    s.cli("mpls local-label add 500 eos via 10.10.2.1 port1 out-labels 610 611")
    fib = {x["label"]: x for x in s.js("show mpls fib")["labels"]}
    assert fib[500]["via"] == "10.10.2.1 port1 out-labels 610 611"
    s.cli("mpls local-label add 500 eos via ip4-lookup-in-table 0")
    assert {x["label"]: x["action"] for x in s.js("show mpls fib")["labels"]}[500] == "pop, look up"
    s.cli("mpls local-label del 500 eos")
    s.cli("mpls local-label del 501 non-eos")
    s.cli("ip route del 50.0.0.0/8")
    s.cli("ip route del 2400::/16")
    s.cli("mpls tunnel del mpls-tunnel0")
    assert [t["name"] for t in s.js("show mpls tunnel")["mpls-tunnels"]] == ["mpls-tunnel1"]
    assert "mpls-tunnel0" not in {i["name"] for i in s.js("show interface")["interfaces"]}
    s.check_refused({"ip route add 53.0.0.0/8 via mpls-tunnel0": "is not an IPv4 address"})
    assert s.stop() == 0


def test_mpls_udp_runs_interleaved(sluiced_factory, tmp_path):
    """mplsudp4-encap by runs of one tunnel: two tunnels' packets interleaved, each with its own
    TTL, each out exact (its tunnel's label with the packet's TTL) and in order; each tunnel
    counts its own packets and bytes (the IP packets it carries)."""
    cli = VRF + ["create mpls-udp tunnel src 10.10.2.10 dst 10.10.2.1 out-label 300",
                 "set interface ip table mplsudp1 5", "set interface state mplsudp1 up",
                 "set interface ip address mplsudp1 172.16.1.1/30",
                 "ip route add table 5 50.0.0.0/8 via 172.16.1.2 mplsudp1"]
    plan = [49, 49, 50, 49, 50, 50, 49, 50]
    in0 = [Ether(dst=MAC0, src=CUST) / Dot1Q(vlan=100) /
           IP(src="192.168.1.2", dst=f"{d}.0.0.{i}", ttl=20 + i, id=i) /
           UDP(sport=9 + i, dport=9) / Raw(b"c" * (20 + i)) for i, d in enumerate(plan)]
    s = sluiced_factory(pcap_ports(tmp_path, in0, []), ROUTER + cli, memory=768)
    s.wait_rx("port0", len(in0))
    ifs = {n: s.iface(n) for n in ("mplsudp0", "mplsudp1")}
    errs = s.errors()
    assert s.stop() == 0
    _, out1 = pcap_outs(tmp_path, 2)
    assert len(out1) == len(in0) and errs == {}
    for x, p, d in zip(out1, in0, plan):
        ip = x[IP]
        assert (ip.src, ip.dst, ip.ttl, ip.len) == ("10.10.2.10", "10.10.2.1", 64, len(raw(ip)))
        fixed = IP(raw(ip))
        del fixed.chksum
        assert IP(raw(fixed)).chksum == ip.chksum
        assert x[UDP].dport == 6635 and x[UDP].len == len(raw(x[UDP]))
        lab = MPLS(raw(x[UDP].payload))
        assert (lab.label, lab.s, lab.ttl) == ({49: 200, 50: 300}[d], 1, p[IP].ttl - 1)
        sent = p[IP].copy()
        sent.ttl -= 1
        del sent.chksum
        assert raw(lab.payload) == raw(IP(raw(sent)))
    for name, d in (("mplsudp0", 49), ("mplsudp1", 50)):
        mine = [p for p, x in zip(in0, plan) if x == d]
        assert (ifs[name]["tx-packets"], ifs[name]["tx-bytes"]) == \
            (len(mine), sum(len(p[IP]) for p in mine))
