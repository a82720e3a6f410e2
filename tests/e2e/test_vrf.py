# SPDX-License-Identifier: BSD-3-Clause
"""FIB tables (VRFs): the same prefix, the same next hop and the same interface address in
table 0 and table 7, each table sending to its own interface; nothing leaks from one table to
the other; a packet with no route in its table gets ICMP unreachable; tables and interfaces
refused with the reason when they are in use or do not exist."""
from scapy.all import ICMP, IP, UDP, Ether, Raw, UDPerror, rdpcap

from test_arp_hold import pg_ifaces, send

PG = [f"02:fe:00:00:00:0{i}" for i in range(4)]
H0, H2 = "02:00:00:00:00:0a", "02:00:00:00:00:2a"
NH_A, NH_B = "02:00:00:00:00:a1", "02:00:00:00:00:b1"

SETUP = [
    "ip table add 7",
    "set interface ip table pg2 7",
    "set interface ip table pg3 7",
    # the same addresses in both tables
    "set interface ip address pg0 10.0.0.10/24",
    "set interface ip address pg1 10.10.1.10/24",
    "set interface ip address pg2 10.0.0.10/24",
    "set interface ip address pg3 10.10.1.10/24",
    "ip neighbor pg1 10.10.1.1 " + NH_A,
    "ip neighbor pg3 10.10.1.1 " + NH_B,
    "ip neighbor pg2 10.0.0.2 " + H2,
    "ip route add 48.0.0.0/8 via 10.10.1.1",
    "ip route add table 7 48.0.0.0/8 via 10.10.1.1",
    "ip route add 49.0.0.0/8 via 10.10.1.1",
]


def udp(src_mac, dst_mac, dst, sport):
    return (Ether(src=src_mac, dst=dst_mac) / IP(src="10.0.0.2", dst=dst, ttl=9) /
            UDP(sport=sport, dport=9) / Raw(b"v" * 10))


def test_vrf_isolation(sluiced_factory, tmp_path):
    lines = pg_ifaces(4, tmp_path)
    s = sluiced_factory([], lines + SETUP, memory=768)

    # table 0 from pg0: 48/8 and 49/8 out pg1 to NH_A
    send(s, tmp_path, "t0", "pg0", [udp(H0, PG[0], "48.0.0.1", 1), udp(H0, PG[0], "49.0.0.1", 2)])
    # table 7 from pg2: 48/8 out pg3 to NH_B; 49/8 has no route in table 7; our own address
    # in table 7 answers a ping
    send(s, tmp_path, "t7", "pg2", [
        udp(H2, PG[2], "48.0.0.1", 3), udp(H2, PG[2], "49.0.0.1", 4),
        Ether(src=H2, dst=PG[2]) / IP(src="10.0.0.2", dst="10.0.0.10") / ICMP(id=7, seq=1)])
    s.wait_rx("pg2", 3)

    fib7 = s.js("show ip fib table 7")["routes"]
    assert {r["table"] for r in fib7} == {7}
    r48 = [r for r in fib7 if r["prefix"] == "48.0.0.0/8"]
    assert len(r48) == 1 and r48[0]["interface"] == "pg3" and r48[0]["mac"] == NH_B
    assert not [r for r in fib7 if r["prefix"] == "49.0.0.0/8"]
    every = s.js("show ip fib")["routes"]
    assert {r["table"] for r in every} == {0, 7}
    assert [r["interface"] for r in every if r["prefix"] == "48.0.0.0/8"] == ["pg1", "pg3"]
    tables = {t["table"]: t for t in s.js("show ip table")["tables"]}
    assert tables[7]["interfaces"] == 2 and tables[0]["interfaces"] == 2

    s.check_refused({
        "ip route add table 9 48.0.0.0/8 via 10.10.1.1": "table 9 does not exist",
        "set interface ip table pg0 9": "table 9 does not exist",
        "set interface ip table pg1 7": "pg1 has IPv4 addresses",
        "ip table del 7": "interface pg2 is in table 7",
        "ip table del 0": "table 0 is the default table",
        "ip table del 12": "no table 12",
        "show ip fib table 12": "table 12 does not exist",
    })
    errs = s.errors()
    assert errs[("ip4-lookup", "no route (ICMP unreachable follows)")] == 1

    # table 7 goes: its interfaces back to table 0 first
    for cmd in ["set interface ip address del pg2 10.0.0.10/24",
                "set interface ip address del pg3 10.10.1.10/24",
                "ip neighbor del pg3 10.10.1.1", "ip neighbor del pg2 10.0.0.2"]:
        s.cli(cmd)
    s.check_refused({"set interface ip table pg3 0": "pg3 has static neighbours or routes"})
    s.cli("ip route del table 7 48.0.0.0/8")
    s.cli("ip route add table 7 50.0.0.0/8 via 10.10.1.1 pg1")  # a route into table 0's pg1
    for cmd in ["set interface ip table pg2 0", "set interface ip table pg3 0", "ip table del 7"]:
        s.cli(cmd)
    assert [t["table"] for t in s.js("show ip table")["tables"]] == [0]
    assert {r["table"] for r in s.js("show ip fib")["routes"]} == {0}
    assert not [r for r in s.js("show ip fib")["routes"] if r["prefix"] == "50.0.0.0/8"]
    assert s.stop() == 0

    out1 = [p for p in rdpcap(str(tmp_path / "pg1.pcap")) if UDP in p]
    out3 = [p for p in rdpcap(str(tmp_path / "pg3.pcap")) if UDP in p]
    assert [(p[UDP].sport, p[Ether].dst, p[IP].ttl) for p in out1] == [(1, NH_A, 8), (2, NH_A, 8)]
    assert [(p[UDP].sport, p[Ether].dst, p[Ether].src) for p in out3] == [(3, NH_B, PG[3])]
    back = [p for p in rdpcap(str(tmp_path / "pg2.pcap")) if ICMP in p]
    unreach = [p for p in back if p[ICMP].type == 3]
    assert len(unreach) == 1 and unreach[0][ICMP].code == 0
    assert unreach[0][IP].src == "10.0.0.10" and unreach[0][IP].dst == "10.0.0.2"
    assert unreach[0][Ether].dst == H2
    assert unreach[0][UDPerror].sport == 4  # the quoted packet
    echo = [p for p in back if p[ICMP].type == 0]
    assert len(echo) == 1 and echo[0][ICMP].id == 7
