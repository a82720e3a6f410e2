# SPDX-License-Identifier: BSD-3-Clause
"""Packet trace (VPP's trace add / show trace / clear trace): a routed, a dropped and a
cross-connected (L2) packet, each followed node by node with what every node saw and did."""
from scapy.all import IP, UDP, Ether, Raw

from test_arp_hold import pg_ifaces, send

PG = [f"02:fe:00:00:00:0{i}" for i in range(4)]
H0 = "02:00:00:00:00:0a"
NH = "42:01:0a:0a:02:01"


def by_packet(rows):
    out = {}
    for r in rows:
        out.setdefault(r["packet"], []).append(r)
    return out


def test_trace_routed_dropped_l2(sluiced_factory, tmp_path):
    lines = pg_ifaces(4)
    lines += ["set interface ip address pg0 10.10.1.10/24",
              "set interface ip address pg1 10.10.2.10/24",
              f"ip neighbor pg1 10.10.2.1 {NH}",
              "ip route add 48.0.0.0/8 via 10.10.2.1",
              "set interface l2 xconnect pg2 pg3"]
    s = sluiced_factory([], lines)
    s.check_refused({"trace add ip4-input 5": "not an input node",
                     "trace add pg-input 0": "count",
                     "show trace max x": "max"})
    s.cli("trace add pg-input 3")
    bad = Ether(src=H0, dst=PG[0]) / IP(src="10.10.1.2", dst="48.0.0.2", ttl=9, chksum=0x1234) / UDP()
    send(s, tmp_path, "a", "pg0", [
        Ether(src=H0, dst=PG[0]) / IP(src="10.10.1.2", dst="48.0.0.1", ttl=9, id=77) /
        UDP(sport=1, dport=2) / Raw(b"r" * 10),
        bad])
    send(s, tmp_path, "b", "pg2", [Ether(src=H0, dst="02:00:00:00:00:0b") / IP() / UDP() / Raw(b"l2")])
    # the budget is spent: these are not traced
    send(s, tmp_path, "c", "pg0", [Ether(src=H0, dst=PG[0]) / IP(src="10.10.1.2", dst="48.0.0.3") / UDP()])

    pk = by_packet(s.js("show trace")["trace"])
    assert sorted(pk) == [1, 2, 3]
    routed, dropped, l2 = pk[1], pk[2], pk[3]
    assert [(r["node"], r["next"]) for r in routed] == [
        ("pg-input", "ethernet-input"), ("ethernet-input", "ip4-input"),
        ("ip4-input", "ip4-lookup"), ("ip4-lookup", "ip4-rewrite"),
        ("ip4-rewrite", "pg-output"), ("pg-output", "-")]
    assert all(r["rx-if"] == "pg0" for r in routed)
    assert routed[0]["detail"].startswith(f"{H0} > {PG[0]} type 0x0800")
    assert "10.10.1.2 > 48.0.0.1 proto 17 ttl 9" in routed[2]["detail"]
    assert "id 77" in routed[2]["detail"]
    assert "table 0 adj" in routed[3]["detail"] and "forward via 10.10.2.1 pg1" in routed[3]["detail"]
    assert routed[4]["tx-if"] == "pg1"
    # what pg-output found: the rewritten frame
    assert routed[5]["detail"].startswith(f"{PG[1]} > {NH} type 0x0800")

    assert [(r["node"], r["next"]) for r in dropped] == [
        ("pg-input", "ethernet-input"), ("ethernet-input", "ip4-input"),
        ("ip4-input", "error-drop"), ("error-drop", "-")]
    assert dropped[3]["detail"] == "ip4-input: bad header checksum"

    assert [(r["node"], r["next"]) for r in l2] == [
        ("pg-input", "l2-io"), ("l2-io", "pg-output"), ("pg-output", "-")]
    assert l2[1]["rx-if"] == "pg2" and l2[1]["tx-if"] == "pg3"

    assert len(by_packet(s.js("show trace max 1")["trace"])) == 1
    text = s.cli("show trace")
    assert "ip4-rewrite" in text and "bad header checksum" in text
    s.cli("clear trace")
    assert s.js("show trace")["trace"] == []
    send(s, tmp_path, "d", "pg0", [Ether(src=H0, dst=PG[0]) / IP(src="10.10.1.2", dst="48.0.0.4") / UDP()])
    assert s.js("show trace")["trace"] == []
    assert s.iface("pg1")["tx-packets"] == 3
    assert s.stop() == 0
