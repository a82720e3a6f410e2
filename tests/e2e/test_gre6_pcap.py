# SPDX-License-Identifier: BSD-3-Clause
"""GRE (RFC 2784/2890, over IPv6 as RFC 7676) and IP-in-IP over IPv6 (RFC 2473: IPv4 and IPv6
inside) on pcap ports, every byte checked with scapy (the kernel here has no ip6gre or
ip6tnl): routed IPv4 and IPv6 into point-to-point tunnels, keys telling tunnels apart, GRE
teb carrying bridged frames, decapsulation into routing and bridging (also after an
extension header), every bad packet dropped by name, and the CLI."""
from scapy.all import (GRE, IP, UDP, Ether, IPv6, IPv6ExtHdrDestOpt, Raw, raw, wrpcap)

from conftest import MAC0, MAC1, NH1, PEER0, pcap_ports, pcap_outs

ME, FARV = "2001:db8:2::10", "2001:db8:2::1"
ROUTER = ["set interface ip address port0 10.10.1.10/24",
          "set interface ip address port0 2001:db8:1::10/64",
          f"set interface ip address port1 {ME}/64",
          "set interface state port0 up", "set interface state port1 up",
          f"ip neighbor port0 10.10.1.2 {PEER0}", f"ip neighbor port0 2001:db8:1::2 {PEER0}",
          f"ip neighbor port1 {FARV} {NH1}"]
FAR = "02:00:00:00:77:02"


def run(factory, tmp_path, in0, in1, cli):
    s = factory(pcap_ports(tmp_path, in0, in1), ROUTER + cli)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    js = {c: s.js(c) for c in ("show gre tunnel", "show ipip tunnel", "show interface")}
    assert s.stop() == 0
    return errs, js, *pcap_outs(tmp_path, 2)


def outer_ok(o, nh):
    """The outer IPv6 header sluiced writes: hop limit 64, traffic class and flow label 0."""
    assert o[Ether].dst == NH1 and o[Ether].src == MAC1 and o[Ether].type == 0x86dd
    ip = o[IPv6]
    assert (ip.src, ip.dst, ip.hlim, ip.nh, ip.tc, ip.fl) == (ME, FARV, 64, nh, 0, 0)
    assert ip.plen == len(raw(ip.payload))


def test_gre6_ipip6_routed_exact(sluiced_factory, tmp_path):
    cli = [f"create gre tunnel src {ME} dst {FARV}",
           f"create gre tunnel src {ME} dst {FARV} key 7",
           f"create ipip tunnel src {ME} dst {FARV}",
           "set interface state gre0 up", "set interface state gre1 up", "set interface state ipip0 up",
           "set interface ip address gre0 172.16.0.1/30", "set interface ip address gre1 172.16.1.1/30",
           "set interface ip address ipip0 172.16.2.1/30",
           "ip route add 50.0.0.0/8 via 172.16.0.2 gre0", "ip route add 51.0.0.0/8 via 172.16.1.2 gre1",
           "ip route add 52.0.0.0/8 via 172.16.2.2 ipip0",
           "set interface ip address gre0 2001:db8:99::1/64",
           "ip route add 2400::/16 via 2001:db8:99::2 gre0",
           "set interface ip address ipip0 2001:db8:98::1/64",
           "ip route add 2401::/16 via 2001:db8:98::2 ipip0"]
    inner = lambda d: IP(src="10.10.1.2", dst=d, ttl=64) / UDP(sport=5, dport=6) / Raw(b"g" * 20)  # noqa: E731
    inner6 = lambda d: IPv6(src="2001:db8:1::2", dst=d, hlim=64) / UDP(sport=5, dport=6) / Raw(b"h" * 20)  # noqa: E731
    e0 = Ether(dst=MAC0, src=PEER0)
    in0 = [e0 / inner("50.0.0.1"), e0 / inner("51.0.0.1"), e0 / inner("52.0.0.1"),
           e0 / inner6("2400::1"), e0 / inner6("2401::1")]
    w = Ether(dst=MAC1, src=NH1)
    back = IP(src="50.0.0.1", dst="10.10.1.2", ttl=64) / UDP(sport=6, dport=5) / Raw(b"r" * 20)
    back6 = IPv6(src="2400::1", dst="2001:db8:1::2", hlim=64) / UDP(sport=6, dport=5) / Raw(b"s" * 20)

    def o(nh=47, src=FARV):
        return IPv6(src=src, dst=ME, nh=nh)
    in1 = [w / o() / GRE() / back,                                 # gre0
           w / o() / GRE(key_present=1, key=7) / back,             # gre1
           w / o(4) / IP(raw(back)),                               # ipip0, IPv4 inside
           w / o(41) / IPv6(raw(back6)),                           # ipip0, IPv6 inside
           w / o() / GRE(proto=0x86dd) / back6,                    # IPv6 in gre0
           w / IPv6(src=FARV, dst=ME) / IPv6ExtHdrDestOpt(nh=47) / GRE() / back,  # after an option
           w / o() / GRE(chksum_present=1) / back,                 # a right checksum
           w / o() / GRE(key_present=1, key=8) / back,             # no tunnel has key 8
           w / o() / GRE(version=1) / back,                        # a version of RFC 2637
           w / o() / GRE(chksum_present=1, chksum=0x1234) / back,  # a wrong checksum
           w / o() / GRE(proto=0x6558) / Ether() / back,           # a frame on an L3 tunnel
           w / o(4, src="2001:db8:2::3") / IP(raw(back))]          # no IP-in-IP tunnel from there
    errs, js, out0, out1 = run(sluiced_factory, tmp_path, in0, in1, cli)
    assert len(out1) == 5
    want = {"50.0.0.1": (47, 0x0800, None), "51.0.0.1": (47, 0x0800, 7), "52.0.0.1": (4, None, None),
            "2400::1": (47, 0x86dd, None), "2401::1": (41, None, None)}
    sent = {p[1].dst: p for p in in0}
    got = {}
    for x in out1:
        inner_pkt = x[GRE].payload if GRE in x else x[IPv6].payload
        got[inner_pkt.dst] = x
    assert set(got) == set(want)
    for d, (nh, gtype, key) in want.items():
        p, x = sent[d], got[d]
        outer_ok(x, nh)
        if nh == 47:
            g = x[GRE]
            assert (g.chksum_present, g.routing_present, g.key_present, g.seqnum_present,
                    g.recursion_control, g.flags, g.version, g.proto) == \
                (0, 0, int(key is not None), 0, 0, 0, 0, gtype)
            if key is not None:
                assert g.key == key
            payload = raw(g.payload)
        else:
            payload = raw(x[IPv6].payload)
        exp = p[1].copy()  # the inner packet, one hop less
        if IPv6 in exp:
            exp.hlim = 63
        else:
            exp.ttl = 63
            del exp.chksum
        assert payload == raw(exp.__class__(raw(exp)))
    # decapsulated and routed out of port0 exactly: 2 IPv6, 5 IPv4
    v6 = [x for x in out0 if IPv6 in x]
    assert len(v6) == 2
    for x in v6:
        exp = back6.copy()
        exp.hlim = 63
        assert x[Ether].dst == PEER0 and raw(x[IPv6]) == raw(exp)
    v4 = [x for x in out0 if IPv6 not in x]
    assert len(v4) == 5
    for x in v4:
        assert x[Ether].dst == PEER0 and x[Ether].src == MAC0
        exp = back.copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(x[IP]) == raw(IP(raw(exp)))
    assert errs == {("gre6-input", "no tunnel for the addresses and key"): 1,
                    ("gre6-input", "GRE flags or version not supported (RFC 2784, 2890)"): 1,
                    ("gre6-input", "GRE checksum bad"): 1,
                    ("gre6-input", "inner protocol not carried by the tunnel"): 1,
                    ("ipip6-input", "no tunnel for the addresses"): 1}
    gre = {t["name"]: t for t in js["show gre tunnel"]["tunnels"]}
    assert (gre["gre0"]["src"], gre["gre0"]["dst"], gre["gre0"]["type"], gre["gre0"]["mtu"]) == \
        (ME, FARV, "l3", 1456)
    assert (gre["gre1"]["key"], gre["gre1"]["mtu"]) == ("7", 1452)
    assert [(t["name"], t["dst"], t["mtu"]) for t in js["show ipip tunnel"]["tunnels"]] == \
        [("ipip0", FARV, 1460)]
    types = {i["name"]: i["type"] for i in js["show interface"]["interfaces"]}
    assert (types["gre0"], types["ipip0"]) == ("gre6", "ipip6")


def test_gre6_teb_bridged_exact(sluiced_factory, tmp_path):
    near = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / \
        UDP(sport=7, dport=7) / Raw(b"t" * 40)
    # 1442 bytes of IP fill the teb tunnel's MTU (1500 less 40, 4 and 14), 1443 do not
    fits = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / Raw(b"y" * 1422)
    big = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / Raw(b"x" * 1423)
    back = Ether(dst=PEER0, src=FAR) / IP(src="192.168.9.2", dst="192.168.9.1") / \
        UDP(sport=7, dport=7) / Raw(b"u" * 40)
    w = Ether(dst=MAC1, src=NH1) / IPv6(src=FARV, dst=ME)
    errs, js, out0, out1 = run(sluiced_factory, tmp_path, [near, near, fits, big],
                               [w / GRE(proto=0x6558) / back, w / GRE() / back[IP]], [
        f"create gre tunnel src {ME} dst {FARV} teb", "set interface state gre0 up",
        "create bridge-domain 5", "set interface l2 bridge port0 5", "set interface l2 bridge gre0 5"])
    assert len(out1) == 3
    for x, p in zip(out1, [near, near, fits]):
        outer_ok(x, 47)
        assert x[GRE].proto == 0x6558 and raw(x[GRE].payload) == raw(p)
    assert len(out1[2]) == 1514
    assert [raw(x) for x in out0] == [raw(back)]
    assert {k: v for k, v in errs.items() if k[0] != "l2-bridge"} == \
        {("gre6-input", "inner protocol not carried by the tunnel"): 1,
         ("gre6-encap", "frame longer than the tunnel's MTU"): 1}
    t = js["show gre tunnel"]["tunnels"][0]
    assert (t["type"], t["mtu"]) == ("teb", 1442)


def test_gre6_ipip6_cli(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 }}"]
    s = sluiced_factory(devs, ["set interface ip address port0 2001:db8::1/64",
                               "create gre tunnel src 2001:db8::1 dst 2001:db8::2 key 5 instance 4",
                               "create gre tunnel src 10.0.0.1 dst 10.0.0.2 key 5",
                               "create ipip tunnel src 2001:db8::1 dst 2001:db8::2"])
    gre = {t["name"]: (t["src"], t["dst"], t["key"], t["mtu"]) for t in s.js("show gre tunnel")["tunnels"]}
    assert gre == {"gre4": ("2001:db8::1", "2001:db8::2", "5", 1452),
                   "gre0": ("10.0.0.1", "10.0.0.2", "5", 1472)}
    s.check_refused({
        "create gre tunnel src 2001:db8::1 dst 2001:db8::2 key 5":
            "a tunnel with these addresses and key exists (gre4)",
        "create ipip tunnel src 2001:db8::1 dst 2001:db8::2": "a tunnel with these addresses and key exists (ipip0)",
        "create gre tunnel src 2001:db8::1 dst 10.0.0.2": "src and dst must be of one family",
        "create ipip tunnel src 2001:db8::1 dst ff02::1": "multicast tunnels are not supported",
        "create gre tunnel src 2001:db8::1 dst 2001:db8::2 key 6 del": "no such tunnel",
    })
    s.cli("create gre tunnel src 2001:db8::1 dst 2001:db8::2 key 5 del")
    s.cli("create ipip tunnel src 2001:db8::1 dst 2001:db8::2 del")
    assert [t["name"] for t in s.js("show gre tunnel")["tunnels"]] == ["gre0"]
    assert s.js("show ipip tunnel")["tunnels"] == []
