# SPDX-License-Identifier: BSD-3-Clause
"""GRE (RFC 2784/2890) and IP-in-IP (RFC 2003/4213) tunnels on pcap ports, every byte checked
with scapy's GRE and IP layers (the kernel here has neither): routed IPv4 and IPv6 into
point-to-point tunnels (no ARP or ND on them), keys telling tunnels apart, GRE teb carrying
bridged frames, decapsulation into routing and bridging, every bad packet dropped by name."""
from pathlib import Path

from scapy.all import GRE, IP, UDP, Ether, IPv6, Raw, wrpcap, raw

from conftest import MAC0, MAC1, NH1, PEER0, pcap_ports, pcap_outs

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
FAR = "02:00:00:00:77:02"


def run(factory, tmp_path, in0, in1, cli, **kw):
    s = factory(pcap_ports(tmp_path, in0, in1), ROUTER + cli, **kw)
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    js = {c: s.js(c) for c in ("show gre tunnel", "show ipip tunnel", "show ip neighbors")}
    assert s.stop() == 0
    return errs, js, *pcap_outs(tmp_path, 2)


def outer_ok(o, proto, dst="10.10.2.1"):
    assert o[Ether].dst == NH1 and o[Ether].src == MAC1
    ip = o[IP]
    assert (ip.src, ip.dst, ip.ttl, ip.flags, ip.frag, ip.proto, ip.id) == \
        ("10.10.2.10", dst, 64, "DF", 0, proto, 0)
    assert ip.len == len(raw(ip))
    fixed = IP(raw(ip))
    del fixed.chksum
    assert IP(raw(fixed)).chksum == ip.chksum


def test_gre_ipip_routed_exact(sluiced_factory, tmp_path):
    cli = ["create gre tunnel src 10.10.2.10 dst 10.10.2.1",
           "create gre tunnel src 10.10.2.10 dst 10.10.2.1 key 7",
           "create ipip tunnel src 10.10.2.10 dst 10.10.2.1",
           "set interface state gre0 up", "set interface state gre1 up", "set interface state ipip0 up",
           "set interface ip address gre0 172.16.0.1/30", "set interface ip address gre1 172.16.1.1/30",
           "set interface ip address ipip0 172.16.2.1/30",
           "set interface ip address port0 2001:db8:1::10/64",
           "ip neighbor port0 2001:db8:1::2 02:00:00:00:00:99",
           # the peers' addresses on the tunnels are next hops without ARP or ND
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
    o = IP(src="10.10.2.1", dst="10.10.2.10")
    back6 = IPv6(src="2400::1", dst="2001:db8:1::2", hlim=64) / UDP(sport=6, dport=5) / Raw(b"s" * 20)
    in1 = [w / o / GRE() / back,                                # gre0
           w / o / GRE(key_present=1, key=7) / back,            # gre1
           w / o / IP(raw(back)),                               # ipip0 (protocol 4)
           w / o / GRE(key_present=1, key=8) / back,            # no tunnel has key 8
           w / o / GRE(version=1) / back,                       # a version of RFC 2637
           w / o / GRE(routing_present=1) / back,               # RFC 1701's routing
           w / o / GRE(chksum_present=1, chksum=0x1234) / back,  # a wrong checksum
           w / o / GRE(chksum_present=1) / back,                # a right one (scapy computes it)
           w / o / GRE(proto=0x6558) / Ether() / back,          # a frame on an L3 tunnel
           w / IP(src="10.10.2.3", dst="10.10.2.10") / IP(raw(back)),  # no IP-in-IP tunnel from there
           w / o / GRE(proto=0x86dd) / back6,                   # IPv6 in gre0
           w / IP(src="10.10.2.1", dst="10.10.2.10", proto=41) / back6]  # IPv6 in ipip0
    errs, js, out0, out1 = run(sluiced_factory, tmp_path, in0, in1, cli)
    assert len(out1) == 5
    # by inner destination (IPv4 and IPv6, GRE and IP-in-IP take different nodes: the order
    # between them is not kept)
    want = {"50.0.0.1": (47, 0x0800, None), "51.0.0.1": (47, 0x0800, 7), "52.0.0.1": (4, None, None),
            "2400::1": (47, 0x86dd, None), "2401::1": (41, None, None)}
    sent = {p[1].dst: p for p in in0}
    got = {}
    for x in out1:
        inner_pkt = x[GRE].payload if GRE in x else x[IP].payload
        got[inner_pkt.dst] = x
    assert set(got) == set(want)
    for d, (proto, gtype, key) in want.items():
        p, x = sent[d], got[d]
        outer_ok(x, proto)
        if proto == 47:
            g = x[GRE]
            assert (g.chksum_present, g.routing_present, g.key_present, g.seqnum_present,
                    g.recursion_control, g.flags, g.version, g.proto) == \
                (0, 0, int(key is not None), 0, 0, 0, 0, gtype)
            if key is not None:
                assert g.key == key
            payload = raw(g.payload)
        else:
            payload = raw(x[IP].payload)
        exp = p[1].copy()  # the inner packet, one hop less
        if IPv6 in exp:
            exp.hlim = 63
        else:
            exp.ttl = 63
            del exp.chksum
        assert payload == raw(exp.__class__(raw(exp)))
    # gre0, gre1, ipip0 and the checksummed one: routed out of port0, exactly; and the IPv6
    v6 = [x for x in out0 if IPv6 in x]
    assert len(v6) == 2
    for x in v6:
        exp = back6.copy()
        exp.hlim = 63
        assert x[Ether].dst == PEER0 and raw(x[IPv6]) == raw(exp)
    out0 = [x for x in out0 if IPv6 not in x]
    assert len(out0) == 4
    for x in out0:
        assert x[Ether].dst == PEER0 and x[Ether].src == MAC0
        exp = back.copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(x[IP]) == raw(IP(raw(exp)))
    assert errs == {("gre4-input", "no tunnel for the addresses and key"): 1,
                    ("gre4-input", "GRE flags or version not supported (RFC 2784, 2890)"): 2,
                    ("gre4-input", "GRE checksum bad"): 1,
                    ("gre4-input", "inner protocol not carried by the tunnel"): 1,
                    ("ipip4-input", "no tunnel for the addresses"): 1}
    gre = {t["name"]: t for t in js["show gre tunnel"]["tunnels"]}
    assert (gre["gre0"]["type"], gre["gre0"]["key"], gre["gre0"]["mtu"]) == ("l3", "-", 1476)
    assert (gre["gre1"]["key"], gre["gre1"]["mtu"]) == ("7", 1472)
    assert [(t["name"], t["mtu"]) for t in js["show ipip tunnel"]["tunnels"]] == [("ipip0", 1480)]
    # the tunnels' next hops resolved without ARP (nothing but the routed packets left port1)
    nb = {(n["interface"], n["address"]): n for n in js["show ip neighbors"]["neighbors"]}
    assert nb[("gre0", "172.16.0.2")]["mac"] == "00:00:00:00:00:00"


# a keyless and a keyed GRE tunnel and an IP-in-IP tunnel, 50/8, 51/8 and 52/8 routed into them
THREE = ["create gre tunnel src 10.10.2.10 dst 10.10.2.1",
         "create gre tunnel src 10.10.2.10 dst 10.10.2.1 key 7",
         "create ipip tunnel src 10.10.2.10 dst 10.10.2.1",
         "set interface state gre0 up", "set interface state gre1 up", "set interface state ipip0 up",
         "set interface ip address gre0 172.16.0.1/30", "set interface ip address gre1 172.16.1.1/30",
         "set interface ip address ipip0 172.16.2.1/30",
         "ip route add 50.0.0.0/8 via 172.16.0.2 gre0", "ip route add 51.0.0.0/8 via 172.16.1.2 gre1",
         "ip route add 52.0.0.0/8 via 172.16.2.2 ipip0"]


def test_gre_runs_interleaved(sluiced_factory, tmp_path):
    """gre4-encap and ipip4-encap by runs of one tunnel: a keyless and a keyed GRE tunnel's and
    an IP-in-IP tunnel's IPv4 packets interleaved, each out exact and in order (its tunnel's
    key, protocol type 0x0800 or protocol 4, TTL one less inside); IPv6 into the keyless GRE
    tunnel (type 0x86dd) and into the IP-in-IP one (protocol 41, its per-packet way)."""
    cli = THREE + ["set interface ip address port0 2001:db8:1::10/64",
                   "set interface ip address gre0 2001:db8:99::1/64",
                   "ip route add 2400::/16 via 2001:db8:99::2 gre0",
                   "set interface ip address ipip0 2001:db8:98::1/64",
                   "ip route add 2401::/16 via 2001:db8:98::2 ipip0"]
    plan = [50, 51, 52, 50, 50, 52, 51, 51, 52, 50, 51, 6, 7, 6]
    e0 = Ether(dst=MAC0, src=PEER0)
    in0 = [e0 / (IPv6(src="2001:db8:1::2", dst=f"240{d - 6}::{i}", hlim=30 + i) if d < 10 else
                 IP(src="10.10.1.2", dst=f"{d}.0.0.{i}", ttl=30 + i, id=i)) /
           UDP(sport=5 + i, dport=6) / Raw(b"g" * (20 + i)) for i, d in enumerate(plan)]
    errs, js, out0, out1 = run(sluiced_factory, tmp_path, in0, [], cli)
    assert errs == {} and len(out1) == len(in0)

    def kind(x):  # GRE's protocol type, or IP-in-IP's protocol
        return ("gre", x[GRE].proto) if GRE in x else ("ipip", x[IP].proto)
    want = {("gre", 0x0800): [p for p, d in zip(in0, plan) if d in (50, 51)],
            ("ipip", 4): [p for p, d in zip(in0, plan) if d == 52],
            ("gre", 0x86dd): [p for p, d in zip(in0, plan) if d == 6],
            ("ipip", 41): [p for p, d in zip(in0, plan) if d == 7]}
    for k, sent in want.items():
        outs = [x for x in out1 if kind(x) == k]
        assert len(outs) == len(sent), k
        for x, p in zip(outs, sent):
            outer_ok(x, 47 if k[0] == "gre" else k[1])
            if k[0] == "gre":
                g = x[GRE]
                keyed = IP in p and p[IP].dst.startswith("51.")
                assert (g.key_present, g.chksum_present, g.seqnum_present) == (int(keyed), 0, 0)
                if keyed:
                    assert g.key == 7
                payload = raw(g.payload)
            else:
                payload = raw(x[IP].payload)
            exp = p[1].copy()
            if IPv6 in exp:
                exp.hlim -= 1
            else:
                exp.ttl -= 1
                del exp.chksum
            assert payload == raw(exp.__class__(raw(exp)))


def test_gre_runs_counters(sluiced_factory, tmp_path):
    """Two GRE tunnels' and an IP-in-IP tunnel's counters after interleaved packets: each its
    own packets and the IP bytes it carried (runs count a tunnel's packets as the run ends)."""
    cli = THREE
    plan = [50, 51, 51, 50, 52, 51, 50, 52, 52, 50, 51, 51]
    in0 = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst=f"{d}.0.0.{i}") /
           UDP(sport=5, dport=6) / Raw(b"c" * (10 + 3 * i)) for i, d in enumerate(plan)]
    s = sluiced_factory(pcap_ports(tmp_path, in0, []), ROUTER + cli)
    s.wait_rx("port0", len(in0))
    ifs = {n: s.iface(n) for n in ("gre0", "gre1", "ipip0")}
    assert s.stop() == 0
    for name, d in (("gre0", 50), ("gre1", 51), ("ipip0", 52)):
        mine = [p for p, x in zip(in0, plan) if x == d]
        assert (ifs[name]["tx-packets"], ifs[name]["tx-bytes"]) == \
            (len(mine), sum(len(p[IP]) for p in mine))


def test_gre_teb_bridged_exact(sluiced_factory, tmp_path):
    near = Ether(dst=FAR, src=PEER0) / IP(src="192.168.9.1", dst="192.168.9.2") / \
        UDP(sport=7, dport=7) / Raw(b"t" * 40)
    back = Ether(dst=PEER0, src=FAR) / IP(src="192.168.9.2", dst="192.168.9.1") / \
        UDP(sport=7, dport=7) / Raw(b"u" * 40)
    w = Ether(dst=MAC1, src=NH1) / IP(src="10.10.2.1", dst="10.10.2.10")
    errs, js, out0, out1 = run(sluiced_factory, tmp_path, [near, near],
                               [w / GRE(proto=0x6558) / back, w / GRE() / back[IP]], [
        "create gre tunnel src 10.10.2.10 dst 10.10.2.1 teb", "set interface state gre0 up",
        "create bridge-domain 5", "set interface l2 bridge port0 5", "set interface l2 bridge gre0 5"])
    assert len(out1) == 2
    for x in out1:
        outer_ok(x, 47)
        assert x[GRE].proto == 0x6558 and raw(x[GRE].payload) == raw(near)
    assert [raw(x) for x in out0] == [raw(back)]
    assert {k: v for k, v in errs.items() if k[0] != "l2-bridge"} == \
        {("gre4-input", "inner protocol not carried by the tunnel"): 1}
    t = js["show gre tunnel"]["tunnels"][0]
    assert (t["type"], t["mtu"]) == ("teb", 1462)


def test_gre_ipip_cli(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 }}"]
    s = sluiced_factory(devs, ["set interface ip address port0 10.0.0.1/24",
                               "create gre tunnel src 10.0.0.1 dst 10.0.0.2 key 5 instance 4",
                               "create ipip tunnel src 10.0.0.1 dst 10.0.0.2"])
    s.check_refused({
        "create gre tunnel src 10.0.0.1 dst 10.0.0.2 key 5":
            "a tunnel with these addresses and key exists (gre4)",
        "create gre tunnel src 10.0.0.1": "src and dst are required",
        "create gre tunnel src 10.0.0.1 dst 10.0.0.2 key x": "key must be a number",
        "create gre tunnel src 10.0.0.1 dst 10.0.0.2 outer-table-id 3": "no table 3",
        "create ipip tunnel src 10.0.0.1 dst 10.0.0.2 teb": "unknown option 'teb'",
        "create ipip tunnel src 10.0.0.1 dst 10.0.0.2": "a tunnel with these addresses and key exists (ipip0)",
        "create gre tunnel src 10.0.0.1 dst 10.0.0.2 del": "no such tunnel",
        "create gre tunnel src 10.0.0.1 dst 239.0.0.1": "multicast tunnels are not supported",
    })
    # no key and key 0 are two tunnels
    s.cli("create gre tunnel src 10.0.0.1 dst 10.0.0.2")
    s.cli("create gre tunnel src 10.0.0.1 dst 10.0.0.2 key 0")
    assert len(s.js("show gre tunnel")["tunnels"]) == 3
    for c in ("create gre tunnel src 10.0.0.1 dst 10.0.0.2 key 5 del",
              "create gre tunnel src 10.0.0.1 dst 10.0.0.2 del",
              "create gre tunnel src 10.0.0.1 dst 10.0.0.2 key 0 del",
              "create ipip tunnel src 10.0.0.1 dst 10.0.0.2 del"):
        s.cli(c)
    assert s.js("show gre tunnel")["tunnels"] == [] and s.js("show ipip tunnel")["tunnels"] == []


def test_gre_ipip_input_features(sluiced_factory, tmp_path):
    """An L3 tunnel's own input features (the device-input arc: here an input ACL on gre0 and
    on ipip0) see its inner packets as frames to the tunnel's MAC: the permitted ones routed
    exactly as without the ACL, the others (an IPv6 packet among them, which no rule names)
    denied and counted; each tunnel's counters all it received."""
    cli = ["create gre tunnel src 10.10.2.10 dst 10.10.2.1",
           "create ipip tunnel src 10.10.2.10 dst 10.10.2.1",
           "set interface state gre0 up", "set interface state ipip0 up",
           "set interface ip address gre0 172.16.0.1/30", "set interface ip address ipip0 172.16.2.1/30",
           "set interface ip address port0 2001:db8:1::10/64",
           "ip neighbor port0 10.10.1.3 02:00:00:00:00:33",
           "set acl-plugin acl permit src 0.0.0.0/0 dst 10.10.1.3/32",
           "set acl-plugin interface gre0 input acl 0", "set acl-plugin interface ipip0 input acl 0"]
    w = Ether(dst=MAC1, src=NH1)
    o = IP(src="10.10.2.1", dst="10.10.2.10")

    def back(d, i):
        return IP(src="50.0.0.1", dst=d, ttl=64, id=i) / UDP(sport=6, dport=5) / Raw(b"r" * (20 + i))
    b6 = IPv6(src="2400::1", dst="2001:db8:1::2", hlim=64) / UDP(sport=6, dport=5) / Raw(b"s" * 20)
    dsts = ["10.10.1.3", "10.10.1.2", "10.10.1.3", "10.10.1.3", "10.10.1.2"]
    in1 = [w / o / GRE() / back(d, i) for i, d in enumerate(dsts)] + [w / o / GRE(proto=0x86dd) / b6] + \
        [w / o / IP(raw(back(d, 10 + i))) for i, d in enumerate(dsts)]
    s = sluiced_factory(pcap_ports(tmp_path, [], in1), ROUTER + cli)
    s.wait_rx("port1", len(in1))
    errs = s.errors()
    rx = {n: s.iface(n)["rx-packets"] for n in ("gre0", "ipip0")}
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    assert errs == {("acl-input", "acl no rule matched (default deny)"): 5}
    assert rx == {"gre0": 6, "ipip0": 5}
    assert out1 == []
    permitted = [back(d, i) for i, d in enumerate(dsts) if d == "10.10.1.3"] + \
        [back(d, 10 + i) for i, d in enumerate(dsts) if d == "10.10.1.3"]
    assert sorted(x[IP].id for x in out0) == [p.id for p in permitted]
    for x in out0:
        assert x[Ether].dst == "02:00:00:00:00:33" and x[Ether].src == MAC0
        exp = next(p for p in permitted if p.id == x[IP].id).copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(x[IP]) == raw(IP(raw(exp)))
