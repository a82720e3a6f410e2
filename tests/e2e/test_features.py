# SPDX-License-Identifier: BSD-3-Clause
"""Feature arcs: unicast RPF (ip4-source-check-via-rx / -via-any) on the ip4-unicast arc,
turned on and off per interface with VPP's commands, seen in show interface features and in
a packet's trace; an interface with a feature can be deleted (its features go with it)."""
from scapy.all import IP, UDP, Ether, rdpcap

from test_arp_hold import pg_ifaces, send

PG0, PG1 = "02:fe:00:00:00:00", "02:fe:00:00:00:01"
H0, NH = "02:00:00:00:00:0a", "42:01:0a:0a:02:01"


def pkt(src, sport):
    return Ether(src=H0, dst=PG0) / IP(src=src, dst="48.0.0.1") / UDP(sport=sport, dport=9)


def test_source_check_feature(sluiced_factory, tmp_path):
    lines = pg_ifaces(2, tmp_path)
    lines += ["set interface ip address pg0 10.10.1.10/24",
              "set interface ip address pg1 10.10.2.10/24",
              f"ip neighbor pg1 10.10.2.1 {NH}",
              f"ip neighbor pg0 10.10.1.2 {H0}",
              "ip route add 48.0.0.0/8 via 10.10.2.1"]
    s = sluiced_factory([], lines)
    feats = {f["feature"]: f for f in s.js("show interface features pg0")["features"]}
    assert feats["ip4-source-check-via-rx"]["enabled"] == "no"
    assert feats["ip4-source-check-via-rx"]["arc"] == "ip4-unicast"

    s.cli("set interface ip source-check pg0")
    feats = {f["feature"]: f for f in s.js("show interface features pg0")["features"]}
    assert feats["ip4-source-check-via-rx"]["enabled"] == "yes"
    assert feats["ip4-source-check-via-any"]["enabled"] == "no"
    s.cli("trace add pg-input 1")
    # 10.10.1.2 is routed back via pg0: passes; 10.10.2.99 is pg1's: dropped; 99.0.0.1 has
    # no route at all: dropped
    send(s, tmp_path, "a", "pg0", [pkt("10.10.1.2", 1), pkt("10.10.2.99", 2), pkt("99.0.0.1", 3)])
    errs = s.errors()
    assert errs[("ip4-source-check", "source not reachable via the receiving interface (uRPF strict)")] == 2
    nodes = [(r["node"], r["next"]) for r in s.js("show trace")["trace"]]
    assert ("ip4-input", "ip4-source-check-via-rx") in nodes
    assert ("ip4-source-check-via-rx", "ip4-lookup") in nodes
    s.cli("clear trace")

    # loose only: the source need only be routed somewhere
    s.cli("set interface ip source-check pg0 del")
    s.cli("set interface feature pg0 ip4-source-check-via-any arc ip4-unicast")
    send(s, tmp_path, "b", "pg0", [pkt("10.10.1.2", 4), pkt("10.10.2.99", 5), pkt("99.0.0.1", 6)])
    errs = s.errors()
    assert errs[("ip4-source-check", "no route to the source (uRPF loose)")] == 1
    s.cli("set interface feature pg0 ip4-source-check-via-any arc ip4-unicast disable")
    send(s, tmp_path, "c", "pg0", [pkt("99.0.0.1", 7)])

    s.check_refused({
        "set interface feature pg0 nosuch arc ip4-unicast": "no feature 'nosuch' on arc ip4-unicast",
        "set interface feature pg0 ip4-source-check-via-rx arc nosuch": "unknown arc 'nosuch'",
        "set interface feature pg9 ip4-source-check-via-rx arc ip4-unicast": "unknown interface",
        "show interface features pg9": "unknown interface",
    })
    # a sub-interface with a feature on goes, and its feature with it
    s.cli("create sub-interfaces pg0 7")
    s.cli("set interface ip source-check pg0.7")
    s.cli("delete sub-interface pg0.7")
    s.cli("create sub-interfaces pg0 8")  # takes the freed index: no feature on
    assert all(f["enabled"] == "no" for f in s.js("show interface features pg0.8")["features"])
    assert s.stop() == 0
    out = [p[UDP].sport for p in rdpcap(str(tmp_path / "pg1.pcap")) if UDP in p]
    assert out == [1, 4, 5, 7]
