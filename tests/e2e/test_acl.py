# SPDX-License-Identifier: BSD-3-Clause
"""ACLs (rte_acl) on pcap ports: first-match semantics over crafted 5-tuples across two ACLs
(prefixes, protocols, port ranges, ICMP type as sport, TCP flags, non-first fragments),
default deny, per-rule hits and named drops; IPv6 (extension headers, neighbour discovery
passing) and tagged IPv4 on an L2 cross-connect; rules of both families; output ACLs; an ACL
replaced many times under traffic with every packet classified by one version; rte_acl's
flow cache over replayed cases and an ACL replaced; the CLI's refusals. The crafted cases run twice: matched linearly (a family's rules are few: the
default) and by rte_acl (set acl-plugin linear-max 0)."""
import time
from pathlib import Path

import pytest

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Dot1Q, Ether, ICMPv6EchoRequest,
                       ICMPv6ND_NS, IPv6, IPv6ExtHdrHopByHop, Raw, wrpcap)

from conftest import MAC0, PEER0, pcap_ports, pcap_outs

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
MATCHERS = pytest.mark.parametrize("matcher", ["linear", "rte_acl"])


def matcher_cli(matcher):
    return ["set acl-plugin linear-max 0"] if matcher == "rte_acl" else []


def udp(src, dst, sport, dport, **ip):
    return Ether(dst=MAC0, src=PEER0) / IP(src=src, dst=dst, **ip) / UDP(sport=sport, dport=dport) / Raw(b"a" * 20)


def tcp(src, dst, flags):
    return Ether(dst=MAC0, src=PEER0) / IP(src=src, dst=dst) / TCP(sport=40000, dport=80, flags=flags)


def icmp(src, dst, t):
    return Ether(dst=MAC0, src=PEER0) / IP(src=src, dst=dst) / ICMP(type=t, id=7)


ACL0 = ("set acl-plugin acl "
        "deny src 10.10.1.2/32 dst 48.0.0.1/32 proto 17 dport 1000-1999, "
        "permit src 10.10.1.0/24 proto 17 dport 1500, "
        "permit proto 6 tcpflags 2 mask 18, "
        "deny proto 6, "
        "permit src 10.10.1.0/24 dst 48.0.0.0/8 proto 17 sport 5-9, "
        "permit proto 1 sport 8 tag first")
ACL1 = "set acl-plugin acl permit dst 48.0.0.2/32, deny src 10.10.1.3/32"

# (frame, verdict): "pass" (routed to port1), "deny" (a rule) or "none" (no rule: default deny)
CASES = [
    (udp("10.10.1.2", "48.0.0.1", 7, 1500), "deny"),      # ACL 0 rule 0 shadows rule 1
    (udp("10.10.1.3", "48.0.0.1", 100, 1500), "pass"),    # rule 1
    (udp("10.10.1.2", "48.0.0.1", 7, 2000), "pass"),      # rule 4: sport 7 in 5-9
    (udp("10.10.1.2", "48.0.0.1", 10, 2000), "none"),     # sport 10: no rule of either ACL
    (tcp("10.10.1.2", "48.0.0.2", "S"), "pass"),          # rule 2: SYN without ACK
    (tcp("10.10.1.2", "48.0.0.2", "SA"), "deny"),         # rule 3, before ACL 1's permit
    (icmp("10.10.1.2", "48.0.0.1", 8), "pass"),           # rule 5: ICMP type 8
    (icmp("10.10.1.2", "48.0.0.1", 13), "none"),          # type 13
    (udp("10.10.1.3", "48.0.0.2", 100, 5000), "pass"),    # ACL 1 rule 0
    (udp("10.10.1.3", "48.0.0.1", 100, 5000), "deny"),    # ACL 1 rule 1
    (udp("10.10.1.2", "48.0.0.1", 7, 2000, frag=10), "none"),  # non-first fragment: ports 0
    (udp("10.10.9.9", "48.0.0.1", 7, 2000), "none"),      # rule 4 wants 10.10.1.0/24
]


@MATCHERS
def test_acl_first_match(sluiced_factory, tmp_path, matcher):
    arp = Ether(dst="ff:ff:ff:ff:ff:ff", src=PEER0) / ARP(op=1, hwsrc=PEER0, psrc="10.10.1.2",
                                                          pdst="10.10.1.10")
    frames = [f for f, _ in CASES] + [arp]
    s = sluiced_factory(pcap_ports(tmp_path, frames, []), ROUTER + matcher_cli(matcher) + [
        ACL0, ACL1, "set acl-plugin interface port0 input acl 0",
        "set acl-plugin interface port0 input acl 1"])
    s.wait_rx("port0", len(frames))
    rules = s.js("show acl-plugin acl")["acl-rules"]
    ifs = s.js("show acl-plugin interface")["acl-interfaces"]
    errs = s.errors()
    assert s.stop() == 0
    out = pcap_outs(tmp_path, 2)
    sent = [f for f, v in CASES if v == "pass"]
    assert len(out[1]) == len(sent)
    for o, f in zip(out[1], sent):
        assert o[IP].src == f[IP].src and o[IP].dst == f[IP].dst and o[IP].proto == f[IP].proto
        assert bytes(o[IP].payload) == bytes(f[IP].payload)
        assert o[IP].ttl == f[IP].ttl - 1  # routed
    assert any(ARP in o and o[ARP].op == 2 for o in out[0])  # ARP is not IP: it passes
    assert {k: v for k, v in errs.items() if k[0].startswith("acl")} == {
        ("acl-input", "acl deny"): 3, ("acl-input", "acl no rule matched (default deny)"): 4}
    hits = {(r["acl"], r["rule"]): r["hits"] for r in rules}
    assert hits == {(0, 0): 1, (0, 1): 1, (0, 2): 1, (0, 3): 1, (0, 4): 1, (0, 5): 1,
                    (1, 0): 1, (1, 1): 1}
    r0 = rules[0]
    assert (r0["action"], r0["src"], r0["dst"], r0["proto"], r0["sport"], r0["dport"], r0["tag"]) == \
        ("deny", "10.10.1.2/32", "48.0.0.1/32", 17, "0-65535", "1000-1999", "first")
    assert (rules[2]["tcpflags"], rules[2]["tcpflags-mask"]) == (2, 18)
    assert ifs == [{"interface": "port0", "direction": "input", "acls": "0,1", "rules": 8,
                    "ipv4": matcher, "ipv6": matcher}]


@MATCHERS
def test_acl_ip6_and_tags_on_l2(sluiced_factory, tmp_path, matcher):
    """IPv6 and dot1q-tagged IPv4 through an L2 cross-connect with an input ACL."""
    e = Ether(dst="02:00:00:00:00:77", src=PEER0)
    frames = [
        (e / IPv6(src="2001:db8:1::5", dst="2001:db8:2::1") / UDP(sport=9, dport=53), "pass"),
        (e / IPv6(src="2001:db8:1::5", dst="2001:db8:2::1") / UDP(sport=9, dport=54), "deny"),
        (e / IPv6(src="2001:db8:1::6", dst="2001:db8:9::1") / ICMPv6EchoRequest(), "pass"),
        (Ether(dst="33:33:ff:00:00:01", src=PEER0) / IPv6(src="fe80::1", dst="ff02::1:ff00:1", hlim=255) /
         ICMPv6ND_NS(tgt="2001:db8:2::1"), "nd"),  # neighbour discovery passes unclassified
        (e / IPv6(src="2001:db8:1::7", dst="2001:db8:3::1") / IPv6ExtHdrHopByHop() / TCP(dport=22), "pass"),
        (e / IPv6(src="2001:db8:1::7", dst="2001:db8:4::1") / TCP(dport=22), "none"),
        (e / Dot1Q(vlan=7) / IP(src="10.1.1.1", dst="20.0.0.1") / UDP(dport=7), "pass"),
        (e / Dot1Q(vlan=7) / IP(src="11.1.1.1", dst="20.0.0.1") / UDP(dport=7), "none"),
        (e / ARP(op=1, psrc="10.1.1.1", pdst="10.1.1.2"), "arp"),
    ]
    s = sluiced_factory(pcap_ports(tmp_path, [f for f, _ in frames], []), matcher_cli(matcher) + [
        "set interface state port0 up", "set interface state port1 up",
        "set interface l2 xconnect port0 port1",
        "set acl-plugin acl permit src 2001:db8:1::/64 dst 2001:db8:2::/64 proto 17 dport 53, "
        "deny src 2001:db8:1::5/128, permit proto 58 sport 128, "
        "permit dst 2001:db8:3::/48 proto 6, permit src 10.0.0.0/8",
        "set acl-plugin interface port0 input acl 0"])
    s.wait_rx("port0", len(frames))
    hits = [r["hits"] for r in s.js("show acl-plugin acl index 0")["acl-rules"]]
    errs = s.errors()
    assert s.stop() == 0
    out = pcap_outs(tmp_path, 2)[1]
    assert [bytes(o) for o in out] == [bytes(f) for f, v in frames if v in ("pass", "nd", "arp")]
    assert hits == [1, 1, 1, 1, 1]
    assert errs == {("acl-input", "acl deny"): 1,
                    ("acl-input", "acl no rule matched (default deny)"): 2}


@MATCHERS
def test_acl_both_families_and_output(sluiced_factory, tmp_path, matcher):
    """A rule without addresses matches IPv4 and IPv6; an output ACL sees frames as sent."""
    e = Ether(dst="02:00:00:00:00:77", src=PEER0)
    frames = [e / IP(src="1.1.1.1", dst="2.2.2.2") / UDP(dport=9),
              e / IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(dport=9),
              e / IP(src="1.1.1.1", dst="2.2.2.2") / UDP(dport=10),
              e / IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(dport=10),
              e / IP(src="1.1.1.1", dst="2.2.2.3") / UDP(dport=10),
              e / IP(src="1.1.1.1", dst="2.2.2.2") / TCP(sport=7, dport=10),  # read in place
              e / IP(src="1.1.1.1", dst="2.2.2.2") / TCP(sport=8, dport=10)]
    s = sluiced_factory(pcap_ports(tmp_path, frames, []), matcher_cli(matcher) + [
        "set interface state port0 up", "set interface state port1 up",
        "set interface l2 xconnect port0 port1",
        "set acl-plugin acl deny proto 17 dport 9, deny proto 6 sport 7, permit",
        "set acl-plugin acl deny dst 2.2.2.3/32, permit",
        "set acl-plugin interface port0 input acl 0",
        "set acl-plugin interface port1 output acl 1"])
    s.wait_rx("port0", len(frames))
    rules = s.js("show acl-plugin acl")["acl-rules"]
    errs = s.errors()
    assert s.stop() == 0
    out = pcap_outs(tmp_path, 2)[1]
    assert [bytes(o) for o in out] == [bytes(f) for f in frames[2:4] + frames[6:]]
    assert [r["hits"] for r in rules] == [2, 1, 4, 1, 3]
    assert rules[2]["src"] == "any" and rules[2]["dst"] == "any"
    assert errs == {("acl-input", "acl deny"): 3, ("acl-output", "acl deny"): 1}


def test_acl_replaced_under_traffic(sluiced_factory, tmp_path):
    """ACL 0 swaps between two versions that disagree on both rules while a stream runs:
    version A passes dport 1000 only, version B dport 1001 only. A packet classified by a mix
    (A's rule 0 with B's rule 1) would pass both; so the passed packets, in order, form runs of
    one port, and the port changes at most once per replacement."""
    n = 40000
    va = "set acl-plugin acl index 0 permit proto 17 dport 1000, deny proto 17"
    vb = "set acl-plugin acl index 0 deny proto 17 dport 1000, permit proto 17"
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ROUTER + [
        va, "set acl-plugin interface port0 input acl 0",
        "packet-generator new { name churn limit %d rate 20000 interface port0 node ethernet-input "
        "data { IP4: %s -> %s UDP: 10.10.1.2 -> 48.0.0.1 UDP: 0-65535 -> 1000-1001 } }" % (n, PEER0, MAC0)])
    s.cli("packet-generator enable-stream churn")
    swaps = 0
    deadline = time.time() + 30
    while s.js("show packet-generator")["streams"][0]["sent"] < n and time.time() < deadline:
        s.cli(vb if swaps % 2 == 0 else va)
        swaps += 1
    time.sleep(0.3)
    errs = s.errors()
    hits = sum(r["hits"] for r in s.js("show acl-plugin acl")["acl-rules"])
    assert s.stop() == 0
    out = pcap_outs(tmp_path, 2)[1]
    ports = [o[UDP].dport for o in out]
    seq = [o[UDP].sport for o in out]
    assert seq == sorted(seq) and len(set(seq)) == len(seq)  # in order, none twice
    assert set(ports) <= {1000, 1001}
    changes = sum(a != b for a, b in zip(ports, ports[1:]))
    assert swaps >= 10, swaps  # the ACL was replaced many times under traffic
    assert {1000, 1001} <= set(ports), "both versions classified packets"
    assert changes <= swaps, (changes, swaps)
    assert len(out) + errs[("acl-input", "acl deny")] == n
    assert hits <= n  # the last version's counters (each replacement starts them again)


def test_acl_cli(sluiced_factory, tmp_path):
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ROUTER)
    s.check_refused({
        "set acl-plugin acl": "usage: set acl-plugin acl",
        "set acl-plugin acl allow src 1.0.0.0/8": "rule 1 starts with 'allow': permit or deny first",
        "set acl-plugin acl permit+reflect": "stateless",
        "set acl-plugin acl action 2": "stateless",
        "set acl-plugin acl permit src 1.2.3.4": "'1.2.3.4' is not a prefix",
        "set acl-plugin acl permit src 10.0.0.0/8 dst 2001:db8::/32": "rule 1: src and dst of different families",
        "set acl-plugin acl permit sport 10-5": "sport '10-5': a number 0-65535 or a range A-B with A <= B",
        "set acl-plugin acl permit dport 70000": "dport '70000'",
        "set acl-plugin acl permit proto 300": "proto",
        "set acl-plugin acl permit tcpflags 2": "rule 1: tcpflags V mask M",
        "set acl-plugin acl permit tcpflags 3 mask 1": "no packet could match",
        "set acl-plugin acl permit, , deny": "rule 2 is empty",
        "set acl-plugin acl permit src 1.0.0.0/8 src 2.0.0.0/8": "rule 1: src given twice",
        "set acl-plugin acl permit dst 1.0.0.0/8,deny": "a comma ends a rule",
        "set acl-plugin acl permit color red": "unknown word 'color'",
        "set acl-plugin acl index 1024 permit": "index",
        "set acl-plugin interface port0 input acl 7": "no ACL 7",
        "delete acl-plugin acl index 3": "no ACL 3",
        "show acl-plugin acl index 3": "no ACL 3",
        "set acl-plugin interface port0 sideways acl 0": "usage: set acl-plugin interface",
        "set interface feature port0 acl-input arc device-input": "turned on by set acl-plugin interface port0 input acl N",
    })
    assert "ACL index: 0" in s.cli("set acl-plugin acl permit, deny src 1.0.0.0/8,")
    assert s.cli("set acl-plugin acl deny tag two").strip() == "ACL index: 1"
    s.check_refused({
        "set acl-plugin interface nosuch input acl 0": "unknown interface 'nosuch'",
        "set acl-plugin interface port0 output acl 0 del": "ACL 0 is not applied to port0 output",
    })
    s.cli("set acl-plugin interface port0 input acl 0")
    s.cli("set acl-plugin interface port0 input acl 1")
    s.check_refused({
        "set acl-plugin interface port0 input acl 0": "ACL 0 is already applied to port0 input",
        "delete acl-plugin acl index 0": "ACL 0 is applied to 1 interface direction(s)",
    })
    # a failed command changed nothing
    assert [r["action"] for r in s.js("show acl-plugin acl")["acl-rules"]] == ["permit", "deny", "deny"]
    assert s.js("show acl-plugin interface port0")["acl-interfaces"][0]["acls"] == "0,1"
    # replacing keeps the index and where it is applied; del one, then the feature command
    s.cli("set acl-plugin acl index 0 permit proto 6")
    assert s.js("show acl-plugin interface")["acl-interfaces"][0]["rules"] == 2
    s.cli("set acl-plugin interface port0 input acl 0 del")
    assert s.js("show acl-plugin interface")["acl-interfaces"][0]["acls"] == "1"
    s.cli("set interface feature port0 acl-input arc device-input disable")
    assert s.js("show acl-plugin interface")["acl-interfaces"] == []
    s.cli("delete acl-plugin acl index 0")
    s.cli("delete acl-plugin acl index 1")
    assert s.js("show acl-plugin acl")["acl-rules"] == []


def test_acl_shared_by_sub_interfaces(sluiced_factory, tmp_path):
    """One ACL on the input of two VLAN sub-interfaces (they share one classifier, as 20,000
    subscribers with one Filter-Id do): frames of both, interleaved so that each vector
    alternates between them, are each classified by it (UDP to port 9 denied, the rest
    routed); taking it off one leaves the other filtering, and replacing the ACL reaches the
    one still using it."""
    from scapy.all import Dot1Q
    frames = []
    for i in range(40):
        vid, dport = (10, 20)[i % 2], (9, 10)[(i // 2) % 2]
        frames.append(Ether(dst=MAC0, src=PEER0) / Dot1Q(vlan=vid) /
                      IP(src=f"10.{vid + 20}.0.2", dst="48.0.0.1") / UDP(sport=5, dport=dport) / Raw(b"a" * 20))
    s = sluiced_factory(pcap_ports(tmp_path, frames, []), ROUTER + [
        "create sub-interfaces port0 10", "create sub-interfaces port0 20",
        "set interface state port0.10 up", "set interface state port0.20 up",
        "set interface ip address port0.10 10.30.0.1/16", "set interface ip address port0.20 10.40.0.1/16",
        "set acl-plugin acl deny proto 17 dport 9, permit",
        "set acl-plugin interface port0.10 input acl 0", "set acl-plugin interface port0.20 input acl 0"])
    s.wait_rx("port0", len(frames))
    time.sleep(0.3)
    rules = s.js("show acl-plugin acl")["acl-rules"]
    assert [r["hits"] for r in rules] == [20, 20]
    assert s.errors()[("acl-input", "acl deny")] == 20
    ifs = s.js("show acl-plugin interface")["acl-interfaces"]
    assert [(x["interface"], x["acls"], x["rules"]) for x in ifs] == [("port0.10", "0", 2), ("port0.20", "0", 2)]
    s.cli("set acl-plugin interface port0.10 input acl 0 del")
    s.cli("set acl-plugin acl index 0 deny proto 17 dport 9, deny proto 6, permit")
    ifs = s.js("show acl-plugin interface")["acl-interfaces"]
    assert [(x["interface"], x["acls"], x["rules"]) for x in ifs] == [("port0.20", "0", 3)]
    s.cli("set acl-plugin interface port0.10 input acl 0")  # the one classifier again
    ifs = s.js("show acl-plugin interface")["acl-interfaces"]
    assert [(x["interface"], x["rules"]) for x in ifs] == [("port0.10", 3), ("port0.20", 3)]
    assert s.stop() == 0
    out = pcap_outs(tmp_path, 2)[1]
    assert len(out) == 20 and all(o[UDP].dport == 10 for o in out)


def test_acl_flow_cache(sluiced_factory, tmp_path):
    """rte_acl through the flow cache: the crafted cases replayed 50 times by a pg stream
    (after the first vector, the cache answers) give 50 times the verdicts, drops and hits of
    one pass; ACL 1 replaced (its classifier built anew, the cache's entries of the old one
    no longer found), the same replay follows the new rules."""
    reps = 50
    frames = [f for f, _ in CASES]
    wrpcap(str(tmp_path / "cases.pcap"), frames)
    stream = ("packet-generator new { name cases limit %d interface port0 node ethernet-input "
              "pcap %s }" % (reps * len(frames), tmp_path / "cases.pcap"))
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ROUTER + matcher_cli("rte_acl") + [
        ACL0, ACL1, "set acl-plugin interface port0 input acl 0",
        "set acl-plugin interface port0 input acl 1", stream])

    def replay():
        before = s.js("show interface port1")["interfaces"][0]["tx-packets"]
        s.cli("packet-generator enable-stream cases")
        deadline = time.time() + 20
        while s.js("show packet-generator")["streams"][0]["sent"] < reps * len(frames) and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        return s.js("show interface port1")["interfaces"][0]["tx-packets"] - before

    assert replay() == reps * sum(v == "pass" for _, v in CASES)
    hits = {(r["acl"], r["rule"]): r["hits"] for r in s.js("show acl-plugin acl")["acl-rules"]}
    assert hits == {k: reps for k in [(0, i) for i in range(6)] + [(1, 0), (1, 1)]}
    errs = s.errors()
    assert errs[("acl-input", "acl deny")] == 3 * reps
    assert errs[("acl-input", "acl no rule matched (default deny)")] == 4 * reps
    fc = s.js("show acl-plugin flow-cache")["acl-flow-cache"]
    inp = [r for r in fc if r["direction"] == "input" and r["lookups"]]
    assert len(inp) == 1 and inp[0]["state"] == "on"
    assert inp[0]["lookups"] == reps * len(frames)
    # the first vector (up to 256 frames) missed: its misses went to rte_acl together
    assert reps * len(frames) - 256 <= inp[0]["hits"] < reps * len(frames)
    # ACL 1 now denies what it permitted: the cases that reached it (udp 10.10.1.3 ->
    # 48.0.0.2 dport 5000) are denied, the others keep ACL 0's verdicts
    s.cli("set acl-plugin acl index 1 deny dst 48.0.0.2/32, deny src 10.10.1.3/32")
    assert replay() == reps * (sum(v == "pass" for _, v in CASES) - 1)
    hits = {(r["acl"], r["rule"]): r["hits"] for r in s.js("show acl-plugin acl")["acl-rules"]}
    assert hits[(1, 0)] == reps and hits[(1, 1)] == reps  # counted again from the replacement
    errs = s.errors()
    assert errs[("acl-input", "acl deny")] == 3 * reps + 4 * reps
    assert s.stop() == 0
