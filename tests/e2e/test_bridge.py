# SPDX-License-Identifier: BSD-3-Clause
"""Bridge domains on pg interfaces: flooding of unknown and broadcast, learning, forwarding
to the learnt port, static MACs, aging, and the CLI's answers."""
import time

from scapy.all import UDP, Ether, IP, Raw, raw, rdpcap, wrpcap

from test_pg import wait_stream

A, B, C = "02:00:00:00:00:0a", "02:00:00:00:00:0b", "02:00:00:00:00:0c"


def frame(src, dst, n):
    return Ether(src=src, dst=dst) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=n, dport=9) / Raw(b"x" * 20)


class Bridge:
    """sluiced with pg0..pg2 (each writing a pcap) in bridge domain 10."""

    def __init__(self, factory, tmp, bd="create bridge-domain 10"):
        self.tmp, self.n = tmp, 0
        lines = [bd]
        for i in range(3):
            lines += [f"create packet-generator interface pg{i} pcap {tmp}/pg{i}.pcap",
                      f"set interface state pg{i} up", f"set interface l2 bridge pg{i} 10"]
        self.s = factory([], lines)

    def send(self, port, pkts):
        """Sends pkts as received on pgN, through a pcap stream."""
        self.n += 1
        name = f"s{self.n}"
        wrpcap(str(self.tmp / f"{name}.pcap"), pkts)
        self.s.cli(f"packet-generator new {{ name {name} limit {len(pkts)} interface pg{port} "
                   f"pcap {self.tmp}/{name}.pcap }}")
        self.s.cli(f"packet-generator enable-stream {name}")
        wait_stream(self.s, name, len(pkts))
        time.sleep(0.3)  # the main lcore takes in what was learnt

    def macs(self):
        return {m["mac"]: (m["interface"], m["type"])
                for m in self.s.js("show bridge-domain 10 detail")["macs"]}

    def outputs(self):
        assert self.s.stop() == 0
        return [[p[UDP].sport for p in rdpcap(str(self.tmp / f"pg{i}.pcap"))] for i in range(3)]


def test_flood_learn_forward(sluiced_factory, tmp_path):
    b = Bridge(sluiced_factory, tmp_path)
    bd = b.s.js("show bridge-domain")["bridge-domains"]
    assert bd == [{"id": 10, "learn": "on", "flood": "on", "uu-flood": "on", "age-minutes": 0,
                   "members": "pg0 pg1 pg2", "macs": 0}]
    assert b.s.iface("pg0")["mode"] == "bridge 10"
    b.send(0, [frame(A, B, 1)])                       # B unknown: flooded to pg1 and pg2
    assert b.macs() == {A: ("pg0", "dynamic")}
    b.send(1, [frame(B, A, 2)])                       # A known: to pg0 only; B learnt on pg1
    assert b.macs() == {A: ("pg0", "dynamic"), B: ("pg1", "dynamic")}
    b.send(0, [frame(A, B, 3), frame(A, "ff:ff:ff:ff:ff:ff", 4)])  # to pg1; broadcast floods
    b.send(2, [frame(C, A, 5)])                       # C learnt on pg2, to pg0
    b.send(1, [frame(A, C, 6)])                       # A moves to pg1; to pg2
    assert b.macs()[A] == ("pg1", "dynamic")
    b.send(2, [frame(A, C, 7)])                       # C is on pg2, where this came in: dropped
    errs = b.s.errors()
    assert errs[("l2-bridge", "destination is on the input interface")] == 1
    assert errs[("l2-bridge", "flooded (not a drop: packets sent to every member)")] == 2
    assert b.s.js("show buffers")["buffers"][0]["in-use"] == 0
    out = b.outputs()
    assert out == [[2, 5], [1, 3, 4], [1, 4, 6]]


def test_static_macs_no_flood_and_aging(sluiced_factory, tmp_path):
    # aging after 0.05 minutes (3 s) so the test can watch it
    b = Bridge(sluiced_factory, tmp_path, "create bridge-domain 10 learn uu-flood 0 age 0.05")
    b.s.cli(f"l2fib add {C} 10 pg2 static")
    b.send(0, [frame(A, B, 1), frame(A, C, 2)])       # B unknown and uu-flood off: dropped
    b.send(1, [frame(C, A, 3)])                       # a static MAC is not learnt over
    assert b.macs() == {A: ("pg0", "dynamic"), C: ("pg2", "static")}
    assert b.s.errors()[("l2-bridge", "flooding disabled in the bridge domain")] == 1
    deadline = time.time() + 15
    while A in b.macs() and time.time() < deadline:
        time.sleep(0.5)
    assert b.macs() == {C: ("pg2", "static")}       # A aged out, C stays
    b.s.cli(f"l2fib del {C} 10")
    assert b.macs() == {}
    out = b.outputs()
    assert out == [[3], [], [2]]


def test_bridge_cli_errors(sluiced_factory, tmp_path):
    b = Bridge(sluiced_factory, tmp_path)
    b.s.check_refused({
        "create bridge-domain 0": "bridge-domain must be a number from 1 to 4095",
        "create bridge-domain 5 age soon": "age wants minutes",
        "create bridge-domain 5 hairpin": "unknown option 'hairpin'",
        "set interface l2 bridge pg0 7": "bridge-domain 7 does not exist",
        "l2fib add 01:00:5e:00:00:01 10 pg0": "multicast address",
        "l2fib add 02:00:00:00:00:01 11 pg0": "bridge-domain 11 does not exist",
        "l2fib del 02:00:00:00:00:01 10": "is not in bridge-domain 10",
        "create bridge-domain 10 del": "still has pg0",
        "show bridge-domain 99": "bridge-domain 99 does not exist",
        "set interface l2 bridge pg0 10 bvi": "pg0 is not a BVI",
        "bvi create instance 3 colour red": "unknown option 'colour'",
    })
    b.s.cli("set interface l3 pg0")
    assert b.s.js("show bridge-domain 10")["bridge-domains"][0]["members"] == "pg1 pg2"
    b.s.cli("set interface l3 pg1")
    b.s.cli("set interface l3 pg2")
    b.s.cli("create bridge-domain 10 del")
    assert b.s.js("show bridge-domain")["bridge-domains"] == []
    b.outputs()
