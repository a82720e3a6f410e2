# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 routing through sluiced on pcap ports: exact packets out, every ICMPv6 error's fields
and checksum (RFC 4443), malformed packets dropped under named errors, neighbour discovery
answered and used, IPv6 in a second FIB table, and the CLI's refusals."""
import time

from scapy.all import (Ether, ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest,
                       ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr,
                       ICMPv6PacketTooBig, ICMPv6ParamProblem, ICMPv6TimeExceeded, IPv6,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, HBHOptUnknown,
                       RouterAlert, Raw, UDP, TCP, raw, rdpcap, wrpcap)

from conftest import MAC0, MAC1, NH1, PEER0, read_out

ROUTER6 = ["set interface ip address port0 2001:db8:1::10/64",
           "set interface ip address port1 2001:db8:2::10/64",
           "set interface state port0 up", "set interface state port1 up",
           f"ip neighbor port1 2001:db8:2::1 {NH1}",
           f"ip neighbor port0 2001:db8:1::2 {PEER0}",
           "ip route add 2001:db8:48::/48 via 2001:db8:2::1"]
SRC, ME0 = "2001:db8:1::2", "2001:db8:1::10"


def run(factory, tmp_path, pkts, extra_cli=(), in1=()):
    wrpcap(str(tmp_path / "in0.pcap"), pkts, linktype=1)
    wrpcap(str(tmp_path / "in1.pcap"), list(in1), linktype=1)
    devs = [
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/in1.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ]
    s = factory(devs, ROUTER6 + list(extra_cli))
    s.wait_rx("port0", len(pkts))
    if in1:
        s.wait_rx("port1", len(in1))
    errs = s.errors()
    assert s.stop() == 0
    return errs, read_out(tmp_path / "out0.pcap"), read_out(tmp_path / "out1.pcap")


def eth(dst=MAC0):
    return Ether(dst=dst, src=PEER0)


def cksum_ok(o):
    """The ICMPv6 checksum as sent equals scapy's over the pseudo-header."""
    ic = o[IPv6].payload
    sent = ic.cksum
    again = IPv6(raw(o[IPv6]))
    del again.payload.cksum
    return IPv6(raw(again)).payload.cksum == sent


def test_forwards_exact_packets(sluiced_factory, tmp_path):
    pkts = [eth() / IPv6(src=SRC, dst=f"2001:db8:48::{i:x}", hlim=64, fl=i) /
            UDP(sport=1024 + i, dport=4000) / Raw(bytes([i % 256]) * 22) for i in range(300)]
    errs, out0, out1 = run(sluiced_factory, tmp_path, pkts)
    assert len(out1) == 300 and out0 == []
    for o, p in zip(out1, pkts):
        assert o[Ether].dst == NH1 and o[Ether].src == MAC1 and o[Ether].type == 0x86DD
        exp = p[IPv6].copy()
        exp.hlim = 63
        assert raw(o[IPv6]) == raw(exp)
    assert errs == {}


def test_icmp6_errors_exact(sluiced_factory, tmp_path):
    p_hl = eth() / IPv6(src=SRC, dst="2001:db8:48::9", hlim=1) / UDP(sport=5, dport=6) / Raw(b"a" * 13)
    p_big = eth() / IPv6(src=SRC, dst="2001:db8:48::5") / UDP(sport=7, dport=8) / Raw(b"b" * 1300)
    p_nr = eth() / IPv6(src=SRC, dst="2001:db8:99::1") / UDP(sport=9, dport=10) / Raw(b"c" * 20)
    p_port = eth() / IPv6(src=SRC, dst=ME0) / UDP(sport=11, dport=12) / Raw(b"d" * 20)
    p_opt = (eth() / IPv6(src=SRC, dst="2001:db8:48::6") /
             IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x87, optdata=b"\0\0\0\0")]) / UDP())
    p_nh = eth() / IPv6(src=SRC, dst=ME0, nh=200) / Raw(b"e" * 16)
    p_rh = (eth() / IPv6(src=SRC, dst=ME0) / IPv6ExtHdrRouting(type=4, segleft=1, addresses=["2001:db8::1"])
            / UDP())
    p_echo = eth() / IPv6(src=SRC, dst=ME0, hlim=7) / ICMPv6EchoRequest(id=0x1234, seq=9, data=b"ping6" * 4)
    pkts = [p_hl, p_big, p_nr, p_port, p_opt, p_nh, p_rh, p_echo]
    errs, out0, out1 = run(sluiced_factory, tmp_path, pkts, ["set interface mtu 1280 port1"])
    assert out1 == []
    assert len(out0) == len(pkts)
    by = {}
    for o in out0:
        assert o[Ether].dst == PEER0 and o[Ether].src == MAC0
        assert o[IPv6].src == ME0 and o[IPv6].dst == SRC and o[IPv6].nh == 58
        assert cksum_ok(o), o.summary()
        by.setdefault(o[IPv6].payload.type, []).append(o)
    te = by[3][0][ICMPv6TimeExceeded]
    assert te.code == 0 and raw(te.payload) == raw(p_hl[IPv6])      # quoted as received
    pb = by[2][0][ICMPv6PacketTooBig]
    assert pb.code == 0 and pb.mtu == 1280
    assert len(by[2][0][IPv6]) == 1280 and raw(pb.payload) == raw(p_big[IPv6])[:1280 - 48]
    un = sorted(by[1], key=lambda o: o[ICMPv6DestUnreach].code)
    assert [u[ICMPv6DestUnreach].code for u in un] == [0, 4]       # no route, port
    assert raw(un[0][ICMPv6DestUnreach].payload) == raw(p_nr[IPv6])
    assert raw(un[1][ICMPv6DestUnreach].payload) == raw(p_port[IPv6])
    pp = {o[ICMPv6ParamProblem].code: o[ICMPv6ParamProblem] for o in by[4]}
    assert pp[2].ptr == 42                       # the unknown option's type byte
    assert pp[1].ptr == 6                        # the IPv6 header's next header field
    assert pp[0].ptr == 42                       # the routing header's type (segments left)
    assert raw(pp[2].payload) == raw(p_opt[IPv6])
    rep = by[129][0]
    assert rep[ICMPv6EchoReply].id == 0x1234 and rep[ICMPv6EchoReply].seq == 9
    assert rep[ICMPv6EchoReply].data == b"ping6" * 4 and rep[IPv6].hlim == 63  # 64, less ip6-rewrite's
    assert errs[("ip6-rewrite", "hop limit expired in transit (ICMPv6 time exceeded follows)")] == 1
    assert errs[("ip6-rewrite", "larger than the egress MTU (ICMPv6 packet too big follows)")] == 1
    assert errs[("icmp6-error", "parameter problem sent")] == 3
    assert errs[("ip6-icmp-input", "echo replies sent")] == 1


def test_malformed_named_errors(sluiced_factory, tmp_path):
    good = IPv6(src=SRC, dst="2001:db8:48::1") / UDP() / Raw(b"x" * 20)
    pkts = [
        Ether(dst=MAC0, src=PEER0, type=0x86DD) / Raw(b"\x60\0\0\0\0\x08"),        # short
        Ether(dst=MAC0, src=PEER0, type=0x86DD) / Raw(b"\x40" + raw(good)[1:]),   # version 4
        eth() / IPv6(src=SRC, dst="2001:db8:48::1", plen=200) / UDP(),             # plen > frame
        eth() / IPv6(src="ff02::1", dst="2001:db8:48::1") / UDP(),                 # mcast source
        eth() / IPv6(src="::1", dst="2001:db8:48::1") / UDP(),                     # loopback
        eth() / IPv6(src=SRC, dst="2001:db8:48::1", nh=44, plen=4) / Raw(b"\x11\0\0\0"),  # trunc
        eth() / IPv6(src=SRC, dst="2001:db8:48::1") / IPv6ExtHdrHopByHop(options=[RouterAlert()]) / UDP(),
        eth() / IPv6(src=SRC, dst=ME0) / IPv6ExtHdrFragment(m=1, id=5) / UDP() / Raw(b"f" * 8),
        eth() / IPv6(src=SRC, dst="2001:db8:48::1", hlim=0) / ICMPv6DestUnreach() / Raw(b"g" * 8),
        eth() / IPv6(src="::", dst="2001:db8:48::1") / UDP(),                     # unspecified src
        eth() / IPv6(src=SRC, dst="ff05::1") / UDP(),                             # group not ours
        eth() / IPv6(src=SRC, dst=ME0) / TCP(dport=22),                           # port unreachable
    ]
    errs, out0, out1 = run(sluiced_factory, tmp_path, pkts)
    assert out1 == []
    assert len(out0) == 1 and out0[0][ICMPv6DestUnreach].code == 4
    assert errs == {
        ("ip6-input", "packet shorter than an IPv6 header"): 1,
        ("ip6-input", "IP version is not 6"): 1,
        ("ip6-input", "payload length longer than the frame"): 1,
        ("ip6-input", "multicast source address"): 1,
        ("ip6-input", "loopback source or destination (RFC 4291 2.5.3)"): 1,
        ("ip6-input", "extension header truncated"): 1,
        ("ip6-input", "hop-by-hop router alert not handled (RSVP, ..., or MLD's not to a group)"): 1,
        ("ip6-local", "fragment for a local address (no reassembly)"): 1,
        # hop limit 0 forwarded: time exceeded, but never about an ICMPv6 error
        ("ip6-rewrite", "hop limit expired in transit (ICMPv6 time exceeded follows)"): 1,
        ("icmp6-error", "no ICMPv6 error allowed for this packet (RFC 4443 2.4)"): 2,
        ("ip6-rewrite", "unspecified source not forwarded (RFC 4291 2.5.2)"): 1,
        ("ip6-lookup", "no route (ICMPv6 unreachable follows)"): 1,
        ("ip6-local", "TCP port unreachable (ICMPv6 follows)"): 1,
        ("icmp6-error", "destination unreachable sent"): 1,
    }


def test_neighbour_discovery(sluiced_factory, tmp_path):
    """An NS for our address is answered (solicited, override, router, our MAC); a packet to
    an unresolved host on port1 is held, port1 sends an NS to its solicited-node group, and
    the NA that comes back releases it."""
    ns = (eth(dst="33:33:ff:00:00:10") / IPv6(src=SRC, dst="ff02::1:ff00:10", hlim=255) /
          ICMPv6ND_NS(tgt=ME0) / ICMPv6NDOptSrcLLAddr(lladdr=PEER0))
    bad_hl = (eth(dst="33:33:ff:00:00:10") / IPv6(src=SRC, dst="ff02::1:ff00:10", hlim=64) /
              ICMPv6ND_NS(tgt=ME0) / ICMPv6NDOptSrcLLAddr(lladdr=PEER0))
    held = eth() / IPv6(src=SRC, dst="2001:db8:2::77", hlim=9) / UDP(sport=1, dport=2) / Raw(b"h" * 10)
    host = "02:00:00:00:07:77"
    na = (Ether(dst=MAC1, src=host) / IPv6(src="2001:db8:2::77", dst="2001:db8:2::10", hlim=255) /
          ICMPv6ND_NA(tgt="2001:db8:2::77", S=1, O=1, R=0) / ICMPv6NDOptDstLLAddr(lladdr=host))
    # the NA comes in on port1 while the packet waits (the held packet enters first: port0's
    # frames are read before port1's by the same worker turn, and the NA is read again
    # below until resolution happens)
    errs, out0, out1 = run(sluiced_factory, tmp_path, [ns, bad_hl, held], in1=[na] * 3)
    adv = [o for o in out0 if ICMPv6ND_NA in o]
    assert len(adv) == 1
    a = adv[0]
    assert a[Ether].dst == PEER0 and a[IPv6].dst == SRC and a[IPv6].src == ME0 and a[IPv6].hlim == 255
    assert a[ICMPv6ND_NA].tgt == ME0 and (a[ICMPv6ND_NA].R, a[ICMPv6ND_NA].S, a[ICMPv6ND_NA].O) == (1, 1, 1)
    assert a[ICMPv6NDOptDstLLAddr].lladdr == MAC0 and cksum_ok(a)
    sol = [o for o in out1 if ICMPv6ND_NS in o]
    assert sol and sol[0][Ether].dst == "33:33:ff:00:00:77" and sol[0][IPv6].dst == "ff02::1:ff00:77"
    assert sol[0][ICMPv6ND_NS].tgt == "2001:db8:2::77" and sol[0][ICMPv6NDOptSrcLLAddr].lladdr == MAC1
    assert cksum_ok(sol[0])
    fwd = [o for o in out1 if UDP in o]
    assert len(fwd) == 1 and fwd[0][Ether].dst == host and fwd[0][IPv6].hlim == 8
    assert errs[("ip6-icmp-input", "neighbour or router discovery with hop limit not 255, a code or headers")] == 1
    assert errs[("ip6-nd (main)", "packets held while resolving a next hop (not a drop)")] == 1


def test_ip6_in_a_second_table_and_cli(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "e.pcap"), [], linktype=1)
    devs = [f"net_pcap{p},rx_pcap={tmp_path}/e.pcap,tx_pcap={tmp_path}/o{p}.pcap "
            f"{{ name port{p} mac-address 02:00:00:00:00:1{p} }}" for p in range(2)]
    s = sluiced_factory(devs, ["ip table add 7", "set interface ip table port1 7",
                               "set interface ip address port1 2001:db8:7::10/64",
                               "ip route add table 7 2001:db8:70::/48 via 2001:db8:7::1",
                               "ip route add count 4 2001:db8:100::/64 via 2001:db8:7::1 port1",
                               "ip route add table 7 2001:db8:71::/48 via fe80::1 port0"],
                        memory=1024)  # two tables, each with an IPv4 and an IPv6 FIB
    t7 = s.js("show ip6 fib table 7")["routes"]
    prefixes = {r["prefix"]: r for r in t7}
    assert prefixes["2001:db8:70::/48"]["next-hop"] == "2001:db8:7::1"
    assert prefixes["2001:db8:70::/48"]["type"] == "incomplete"
    assert prefixes["2001:db8:7::10/128"]["source"] == "local"
    assert prefixes["2001:db8:7::/64"]["type"] == "glean"
    # count 4 went into table 0 (no table named), one /64 after another
    t0 = [r["prefix"] for r in s.js("show ip6 fib table 0")["routes"]]
    assert [p for p in t0 if p.startswith("2001:db8:100:")] == [
        "2001:db8:100::/64", "2001:db8:100:1::/64", "2001:db8:100:2::/64", "2001:db8:100:3::/64"]
    s.check_refused({
        "set interface ip address port0 fe80::1/64": "link-local",
        "set interface ip address port0 ff02::1/64": "invalid address",
        "ip route add 2001:db8:5::/48 via 2001:db8:9::1": "not on a connected subnet",
        "ip route add 2001:db8:5::/129 via 2001:db8:7::1": "not a prefix",
        "ip route del 2001:db8:5::/48": "not found",
        "ip neighbor port0 2001:db8::zz 02:00:00:00:00:01": "not an IPv6 address",
        "set ip6 link-local address port0 2001:db8::1": "not a link-local",
        "set interface ip table port1 0": "IPv6 addresses",
        "ip route add count 2 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128 via 2001:db8:7::1 port1": "overflows",
    })
    s.cli("set ip6 link-local address port0 fe80::abcd")
    ll = {(i["name"], i["scope"]): i["address"] for i in s.js("show ip6 interface")["interfaces"]}
    assert ll[("port0", "link-local")] == "fe80::abcd"
    assert ll[("port1", "link-local")] == "fe80::ff:fe00:11"      # EUI-64 of 02:00:00:00:00:11
    s.check_refused({"ip table del 7": "interface port1 is in table 7"})
    s.cli("set interface ip address del port1 2001:db8:7::10/64")
    s.check_refused({"set interface ip table port1 0": "routes through it"})
    s.cli("ip route del count 4 2001:db8:100::/64")
    s.cli("ip route del table 7 2001:db8:70::/48")
    s.cli("set interface ip table port1 0")   # its link-local goes with it
    assert s.js("show ip6 fib table 0 fe80::ff:fe00:11/128")["routes"][0]["source"] == "local"
    s.cli("ip table del 7")                   # with its IPv6 route via port0
    # its unresolved next hop is no route's any more: it ages out within 3 s
    assert [n["state"] for n in s.js("show ip6 neighbors")["neighbors"]] == ["incomplete"]
    assert all(r["table"] == 0 for r in s.js("show ip6 fib")["routes"])
    assert "7" not in [str(t["table"]) for t in s.js("show ip table")["tables"]]
    assert s.stop() == 0


def test_router_advertisements(sluiced_factory, tmp_path):
    """ip6 nd ra-interval: an advertisement at once, every field as RFC 4861 4.2 and 6.2 say
    (a /64 autonomous for SLAAC, a /48 on-link only); the solicitation that came with it is
    answered by it (the next one is due 16 s later); without ra-interval, solicitations are
    dropped by name and nothing is advertised. test_ip6_netns has the kernel as the host."""
    from scapy.all import ICMPv6ND_RA, ICMPv6ND_RS, ICMPv6NDOptMTU, ICMPv6NDOptPrefixInfo
    from scapy.utils6 import in6_mactoifaceid
    LL0 = str(IPv6(src="fe80::" + in6_mactoifaceid(MAC0).lower()).src)
    rs = eth("33:33:00:00:00:02") / IPv6(src="fe80::2", dst="ff02::2", hlim=255) / \
        ICMPv6ND_RS() / ICMPv6NDOptSrcLLAddr(lladdr=PEER0)
    rs_bad = eth("33:33:00:00:00:02") / IPv6(src="fe80::2", dst="ff02::2", hlim=64) / ICMPv6ND_RS()
    wrpcap(str(tmp_path / "in0.pcap"), [rs, rs_bad], linktype=1)
    wrpcap(str(tmp_path / "in1.pcap"), [rs], linktype=1)
    devs = [
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/in1.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ]
    s = sluiced_factory(devs, ROUTER6 + ["set interface ip address port0 2001:db8:aa::10/48",
                                         "ip6 nd port0 ra-interval 600 200", "ip6 nd port0 ra-lifetime 1200"])
    s.wait_rx("port0", 2)
    s.wait_rx("port1", 1)
    deadline = time.time() + 8
    while time.time() < deadline and s.js("show ip6 nd port0")["interfaces"][0]["ra-sent"] < 1:
        time.sleep(0.1)
    time.sleep(1)
    nd = {r["name"]: r for r in s.js("show ip6 nd")["interfaces"]}
    errs = s.errors()
    s.check_refused({"ip6 nd port0 ra-interval 3": "ra-interval must be a number from 4 to 1800, not '3'",
                     "ip6 nd port0 ra-interval 1801": "from 4 to 1800",
                     "ip6 nd port0 ra-interval 600 451": "ra-interval minimum must be a number from 3 to 450",
                     "ip6 nd port0 ra-lifetime 9001": "ra-lifetime must be a number from 0 to 9000",
                     "ip6 nd nosuch ra-interval 10": "unknown interface 'nosuch'",
                     "ip6 nd port0 ra-often": "usage: ip6 nd IFACE ra-interval MAX [MIN]"})
    after = s.js("show ip6 nd port0")["interfaces"][0]
    assert (after["min-s"], after["max-s"], after["lifetime-s"]) == (200, 600, 1200)  # unchanged
    # RFC 4861 6.2.6: the answered solicitation's source link-layer address is learnt, STALE;
    # the one on port1 (advertisements off) is dropped before that
    neigh = {(n["interface"], n["address"]): n for n in s.js("show ip6 neighbors")["neighbors"]}
    assert neigh[("port0", "fe80::2")]["mac"] == PEER0 and neigh[("port0", "fe80::2")]["state"] == "stale"
    assert ("port1", "fe80::2") not in neigh
    assert s.stop() == 0
    assert nd["port0"]["ra"] == "on" and nd["port0"]["min-s"] == 200 and nd["port0"]["max-s"] == 600
    assert nd["port0"]["lifetime-s"] == 1200 and nd["port0"]["ra-sent"] == 1
    assert nd["port0"]["rs-answered"] == 1
    assert nd["port1"]["ra"] == "off" and nd["port1"]["ra-sent"] == 0
    assert errs[("ip6-icmp-input", "router solicitation (router advertisements are off)")] == 1
    assert errs[("ip6-icmp-input", "neighbour or router discovery with hop limit not 255, a code or headers")] == 1
    ras = [o for o in rdpcap(str(tmp_path / "out0.pcap")) if ICMPv6ND_RA in o]
    assert len(ras) == 1
    assert [o for o in rdpcap(str(tmp_path / "out1.pcap")) if ICMPv6ND_RA in o] == []
    for o in ras:
        assert o[Ether].dst == "33:33:00:00:00:01" and o[Ether].src == MAC0
        ip = o[IPv6]
        assert ip.src == LL0 and ip.dst == "ff02::1" and ip.hlim == 255
        ra = o[ICMPv6ND_RA]
        assert (ra.code, ra.chlim, ra.M, ra.O, ra.routerlifetime, ra.reachabletime, ra.retranstimer) == \
            (0, 64, 0, 0, 1200, 0, 0)
        assert o[ICMPv6NDOptSrcLLAddr].lladdr == MAC0 and o[ICMPv6NDOptMTU].mtu == 1500
        pis = {(p.prefix, p.prefixlen): p for p in o[ICMPv6ND_RA].iterpayloads()
               if isinstance(p, ICMPv6NDOptPrefixInfo)}
        assert set(pis) == {("2001:db8:1::", 64), ("2001:db8:aa::", 48)}
        for (_, plen), p in pis.items():
            assert (p.L, p.A, p.validlifetime, p.preferredlifetime) == (1, int(plen == 64), 2592000, 604800)
        assert cksum_ok(o)
    assert errs[("ip6-ra (main)", "router advertisements sent")] == 1
    assert errs[("ip6-ra (main)", "router solicitations answered")] == 1


def test_mld(sluiced_factory, tmp_path):
    """Multicast listener discovery (RFC 3810, RFC 2710): each interface reports all-routers and
    the solicited-node groups of its addresses unsolicited (CHANGE_TO_EXCLUDE, twice), answers
    an MLDv2 general and a group-specific query with MODE_IS_EXCLUDE records, an MLDv1 query
    with one MLDv1 report per group to the group, and reports a group left (CHANGE_TO_INCLUDE,
    twice) when its address goes. Every report from the link-local address with hop limit 1
    and a router alert, checksum right; invalid queries and others' reports dropped by name."""
    from scapy.all import (ICMPv6MLDMultAddrRec, ICMPv6MLQuery, ICMPv6MLQuery2, ICMPv6MLReport,
                           ICMPv6MLReport2)

    def mld2_records(o):
        """(type, group, sources) of each record, read from the bytes (scapy decodes only the
        first record of a report); every record of 20 bytes: no aux data, no source."""
        import socket
        b = raw(o[ICMPv6MLReport2])
        n = int.from_bytes(b[6:8], "big")
        assert len(b) == 8 + 20 * n
        return [(b[i], socket.inet_ntop(socket.AF_INET6, b[i + 4:i + 20]),
                 int.from_bytes(b[i + 2:i + 4], "big") + b[i + 1]) for i in range(8, len(b), 20)]
    from scapy.utils6 import in6_mactoifaceid
    ll = {p: "fe80::" + in6_mactoifaceid(m).lower() for p, m in ((0, MAC0), (1, MAC1))}
    ll = {p: str(IPv6(src=a).src) for p, a in ll.items()}

    def sol(a):
        b = bytes(IPv6(src=a))[8 + 13:8 + 16]
        return str(IPv6(src="ff02::1:ff%02x:%02x%02x" % tuple(b)).src)

    # port0's link-local and 2001:db8:1::10 share ff02::1:ff00:10; 2001:db8:9::77 has its own
    groups = {p: {"ff02::2", sol(ll[p]), sol(f"2001:db8:{p + 1}::10")} for p in (0, 1)}
    groups[0].add(sol("2001:db8:9::77"))
    hbh = IPv6ExtHdrHopByHop(options=[RouterAlert(value=0)])

    def q(dst, body, src="fe80::99", hlim=1):
        return eth("33:33:" + ":".join("%02x" % b for b in bytes(IPv6(dst=dst))[36:40])) / \
            IPv6(src=src, dst=dst, hlim=hlim) / hbh / body

    in0 = [q("ff02::1", ICMPv6MLQuery2(mrd=1000)),
           q("ff02::1:ff00:10", ICMPv6MLQuery2(mrd=1000, mladdr="ff02::1:ff00:10")),
           q("ff02::1", ICMPv6MLQuery2(mrd=1000), hlim=64),                # invalid: hop limit
           q("ff02::1", ICMPv6MLQuery2(mrd=1000), src="2001:db8:1::2"),    # invalid: not link-local
           q("ff02::1:ff12:3456", ICMPv6MLQuery2(mladdr="ff02::1:ff12:3456")),  # not our group
           q("ff02::16", ICMPv6MLReport2(records=[ICMPv6MLDMultAddrRec(rtype=4, dst="ff05::7")])),
           # a group sluiced does not route: not forwarded by the default route
           eth("33:33:00:01:00:03") / IPv6(src=SRC, dst="ff05::1:3") / UDP(dport=5000)]
    in1 = [q("ff02::1", ICMPv6MLQuery(mrd=500))]
    wrpcap(str(tmp_path / "in0.pcap"), in0, linktype=1)
    wrpcap(str(tmp_path / "in1.pcap"), in1, linktype=1)
    devs = [
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/in1.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ]
    s = sluiced_factory(devs, ROUTER6 + ["set interface ip address port0 2001:db8:9::77/64",
                                         "ip route add ::/0 via 2001:db8:2::1"])
    s.wait_rx("port0", len(in0))
    s.wait_rx("port1", len(in1))

    def mld_of(port):
        return s.js(f"show ip6 mld port{port}")["interfaces"][0]

    # unsolicited twice, then the answers: at least 3 reports each within about 2 s
    deadline = time.time() + 10
    while time.time() < deadline and min(mld_of(0)["reports-sent"], mld_of(1)["reports-sent"]) < 3:
        time.sleep(0.1)
    m0, m1 = mld_of(0), mld_of(1)
    assert set(m0["groups"].split()) == groups[0] and set(m1["groups"].split()) == groups[1]
    assert (m0["version"], m1["version"]) == ("2", "1")
    assert (m0["queries"], m1["queries"]) == (2, 1)
    # a group left: its address deleted (2001:db8:1::10's stays: the link-local has it too)
    s.cli("set interface ip address del port0 2001:db8:1::10/64")
    s.cli("set interface ip address del port0 2001:db8:9::77/64")
    deadline = time.time() + 10
    while time.time() < deadline and sol("2001:db8:9::77") in mld_of(0)["groups"].split():
        time.sleep(0.1)
    time.sleep(1.5)  # the second report of the leave, within 1 s
    errs = s.errors()
    s.check_refused({"show ip6 mld nosuch": "unknown interface 'nosuch'",
                     "show ip6 mld port0 port1": "usage: show ip6 mld [IFACE]"})
    assert s.stop() == 0
    assert errs[("ip6-mld (main)", "invalid query (RFC 3810 5.1.14: a source not link-local, a hop "
                 "limit not 1, a length not 24 or 28 + 16 per source)")] == 2
    assert errs[("ip6-mld (main)", "query for a group we do not listen to")] == 1
    # the report to ff02::16 and the UDP to ff05::1:3: no route for a group, and no error sent
    assert errs[("ip6-lookup", "no route (ICMPv6 unreachable follows)")] == 2
    assert errs[("icmp6-error", "no ICMPv6 error allowed for this packet (RFC 4443 2.4)")] == 2
    assert errs[("ip6-icmp-input", "multicast listener queries to the main lcore")] == 6
    assert ("ip6-input", "hop-by-hop router alert not handled (RSVP, ..., or MLD's not to a group)") not in errs

    out0 = [o for o in rdpcap(str(tmp_path / "out0.pcap")) if ICMPv6MLReport2 in o]
    for o in out0:
        assert o[Ether].dst == "33:33:00:00:00:16" and o[Ether].src == MAC0
        assert (o[IPv6].src, o[IPv6].dst, o[IPv6].hlim, o[IPv6].nh) == (ll[0], "ff02::16", 1, 0)
        assert [(type(x).__name__, x.value) for x in o[IPv6ExtHdrHopByHop].options
                if isinstance(x, RouterAlert)] == [("RouterAlert", 0)]
        assert o[IPv6ExtHdrHopByHop].nh == 58
        assert cksum_ok(o)
    recs = [mld2_records(o) for o in out0]
    joins = [r for r in recs if {t for t, _, _ in r} == {4}]
    answers = [r for r in recs if {t for t, _, _ in r} == {2}]
    leaves = [r for r in recs if {t for t, _, _ in r} == {3}]
    assert len(joins) == 2 and all(sorted(r) == sorted((4, g, 0) for g in groups[0]) for r in joins)
    assert {g for r in answers for _, g, _ in r} == groups[0]
    assert leaves == [[(3, sol("2001:db8:9::77"), 0)]] * 2
    assert len(joins) + len(answers) + len(leaves) == len(out0)
    # port1 heard an MLDv1 querier: one MLDv1 report per group, to the group, answers it
    assert not [o for o in rdpcap(str(tmp_path / "out1.pcap")) if UDP in o]
    v1 = [o for o in rdpcap(str(tmp_path / "out1.pcap")) if ICMPv6MLReport in o]
    assert groups[1] <= {o[ICMPv6MLReport].mladdr for o in v1}
    for o in v1:
        assert o[IPv6].dst == o[ICMPv6MLReport].mladdr and o[IPv6].src == ll[1] and o[IPv6].hlim == 1
        assert o[Ether].dst == "33:33:" + ":".join("%02x" % b for b in bytes(IPv6(dst=o[IPv6].dst))[36:40])
        assert cksum_ok(o)


def test_mld_address_churn(sluiced_factory, tmp_path):
    """Addresses changed faster than their MLD state changes go out (8 at a time, replaced
    over and over within a tick): sluiced keeps at most 20 changes pending, forgets the
    oldest, stays up, and ends reporting exactly the groups of the addresses it has."""
    from conftest import pcap_ports
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ROUTER6)
    def addrs(r):
        return [f"2001:db8:1::{r + 10:x}{k + 1:02x}/64" for k in range(7)]
    for r in range(6):  # each tick (100 ms) 7 groups left and 7 joined: 14 changes
        (tmp_path / f"churn{r}.cli").write_text(
            "".join(f"set interface ip address del port0 {a}\n" for a in (addrs(r - 1) if r else []))
            + "".join(f"set interface ip address port0 {a}\n" for a in addrs(r)))
        s.cli(f"exec {tmp_path}/churn{r}.cli")  # at once, in one tick
        time.sleep(0.15)
    # an eighth address of the family is the most an interface takes
    s.check_refused({"set interface ip address port0 2001:db8:1::fff/64":
                     "the interface has 8 addresses of this family already, the most it takes"})
    for a in addrs(5):
        s.cli(f"set interface ip address del port0 {a}")
    s.cli("set interface ip address port0 2001:db8:99::abc/64")
    time.sleep(2.5)  # every change sent twice
    groups = set(s.js("show ip6 mld port0")["interfaces"][0]["groups"].split())
    assert groups == {"ff02::2", "ff02::1:ff00:10", "ff02::1:ff00:abc"}, groups
    assert s.stop() == 0
