# SPDX-License-Identifier: BSD-3-Clause
"""L2 modes (xconnect/io, mac, macswap, 5tswap) and the noisy-VNF feature, driven by pg
streams from pcap files: exact bytes out, counters, FIFO order and timing."""
import time

import pytest
from scapy.all import ARP, IP, TCP, UDP, Dot1Q, Ether, IPv6, Raw, raw, rdpcap, wrpcap

from test_pg import PG0_MAC, wait_stream

A, B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"


def frames():
    """A mix: UDP and TCP over IPv4 and IPv6, VLAN-tagged, a later fragment, ARP, and a
    frame too short for an Ethernet header."""
    return [
        Ether(src=A, dst=B) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1000, dport=2000) / Raw(b"a" * 20),
        Ether(src=A, dst=B) / IP(src="10.0.0.3", dst="10.0.0.4") / TCP(sport=80, dport=8080, flags="S"),
        Ether(src=A, dst=B) / IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(sport=53, dport=5353) / Raw(b"b" * 10),
        Ether(src=A, dst=B) / Dot1Q(vlan=7) / IP(src="10.0.0.5", dst="10.0.0.6") / UDP(sport=7, dport=9) / Raw(b"c" * 16),
        Ether(src=A, dst=B) / IP(src="10.0.0.7", dst="10.0.0.8", frag=10, proto=17) / Raw(b"d" * 24),
        Ether(src=A, dst=B) / ARP(psrc="10.0.0.1", pdst="10.0.0.2"),
        Raw(b"\x01" * 12),
    ]


def swapped(p):
    """What testpmd's 5tswap makes of a frame."""
    if len(p) < 14:
        return p
    q = p.copy()
    q[Ether].src, q[Ether].dst = p[Ether].dst, p[Ether].src
    for l3 in (IP, IPv6):
        if l3 in q:
            q[l3].src, q[l3].dst = p[l3].dst, p[l3].src
            if l3 is IP and p[IP].frag:
                return q
    for l4 in (UDP, TCP):
        if l4 in q:
            q[l4].sport, q[l4].dport = p[l4].dport, p[l4].sport
    return q


def run_mode(factory, tmp_path, mode_cli, pkts, out="pg1"):
    wrpcap(str(tmp_path / "in.pcap"), pkts)
    lines = [f"create packet-generator interface pg0 pcap {tmp_path}/pg0.pcap",
             f"create packet-generator interface pg1 pcap {tmp_path}/pg1.pcap",
             "set interface state pg0 up", "set interface state pg1 up"] + mode_cli + [
             f"packet-generator new {{ name s limit {len(pkts)} interface pg0 pcap {tmp_path}/in.pcap }}"]
    s = factory([], lines)
    s.cli("packet-generator enable-stream s")
    wait_stream(s, "s", len(pkts))
    info = {"ifs": {n: s.iface(n) for n in ("pg0", "pg1")}, "errors": s.errors(),
            "runtime": {r["node"]: r for r in s.js("show runtime")["runtime"]}}
    assert s.stop() == 0
    return [raw(p) for p in rdpcap(str(tmp_path / f"{out}.pcap"))], info


def test_xconnect_sends_every_frame_unchanged(sluiced_factory, tmp_path):
    pkts = frames()
    out, info = run_mode(sluiced_factory, tmp_path, ["set interface l2 xconnect pg0 pg1"], pkts)
    assert out == [raw(p) for p in pkts]
    assert info["ifs"]["pg0"]["mode"] == "io -> pg1"
    assert info["ifs"]["pg1"]["tx-packets"] == len(pkts)
    assert info["runtime"]["l2-io"]["vectors"] == len(pkts)
    assert "ethernet-input" not in info["runtime"]


@pytest.mark.parametrize("mode", ["io", "macswap"])
def test_both_ways_at_once(sluiced_factory, tmp_path, mode):
    """pg0 <-> pg1 cross-connected (or macswap with each other as peer), both streams in the
    same calls of pg-input: the mode's node gets vectors from both ports (sorted packet by
    packet; a vector from one port, moved whole, is the tests above and below); every frame
    leaves by its own peer, in order, rewritten as the mode says."""
    n = 3000
    modes = (["set interface l2 xconnect pg0 pg1", "set interface l2 xconnect pg1 pg0"]
             if mode == "io" else
             ["set interface fwd-mode pg0 macswap peer pg1", "set interface fwd-mode pg1 macswap peer pg0"])
    streams = [f"packet-generator new {{ name s{i} limit {n} interface pg{i} data {{ "
               f"IP4: {A} -> {B} UDP: 10.0.{i}.1 -> 10.0.{i}.2 UDP: 1 - {n} -> 9 }} }}" for i in (0, 1)]
    s = sluiced_factory([], [
        f"create packet-generator interface pg0 pcap {tmp_path}/pg0.pcap",
        f"create packet-generator interface pg1 pcap {tmp_path}/pg1.pcap",
        "set interface state pg0 up", "set interface state pg1 up",
        ] + modes + streams)
    s.cli("packet-generator enable-stream")  # both, run in the same calls of pg-input
    wait_stream(s, "s0", n)
    wait_stream(s, "s1", n)
    rt = {r["node"]: r for r in s.js("show runtime")["runtime"]}
    assert rt[f"l2-{mode}"]["vectors"] == 2 * n
    assert s.iface("pg0")["tx-packets"] == n and s.iface("pg1")["tx-packets"] == n
    assert s.stop() == 0
    for port, src in (("pg1", "10.0.0.1"), ("pg0", "10.0.1.1")):
        out = rdpcap(str(tmp_path / f"{port}.pcap"))
        assert [p[IP].src for p in out] == [src] * n
        assert [p[UDP].sport for p in out] == list(range(1, n + 1))
        macs = (A, B) if mode == "io" else (B, A)
        assert {(p[Ether].src, p[Ether].dst) for p in out} == {macs}


def test_mac_and_macswap(sluiced_factory, tmp_path):
    # and two frames of 14 and 15 bytes: an Ethernet header, too short for the 16-byte swap
    pkts = frames()[:6] + [Ether(src=A, dst=B, type=0x88b5), Ether(src=A, dst=B, type=0x88b5) / Raw(b"x")]
    out, _ = run_mode(sluiced_factory, tmp_path,
                      ["set interface fwd-mode pg0 mac peer pg1 dst 02:00:00:00:00:99"], pkts)
    mac = lambda m: bytes.fromhex(m.replace(":", ""))  # noqa: E731
    # the destination given, pg1's own MAC as the source, the rest of each frame unchanged
    assert out == [mac("02:00:00:00:00:99") + mac("02:fe:00:00:00:01") + raw(p)[12:] for p in pkts]
    (tmp_path / "pg1.pcap").unlink()
    out, _ = run_mode(sluiced_factory, tmp_path, ["set interface fwd-mode pg0 macswap peer pg1"], pkts)
    assert out == [raw(p)[6:12] + raw(p)[:6] + raw(p)[12:] for p in pkts]
    assert [len(o) for o in out[-2:]] == [14, 15]


def test_5tswap_back_out_of_the_same_port(sluiced_factory, tmp_path):
    pkts = frames()
    out, info = run_mode(sluiced_factory, tmp_path, ["set interface fwd-mode pg0 5tswap"], pkts,
                         out="pg0")
    assert out == [raw(swapped(p)) for p in pkts[:-1]]  # the 12-byte frame is dropped
    assert info["errors"] == {("l2-5tswap", "frame shorter than an Ethernet header"): 1}
    assert info["ifs"]["pg0"]["mode"] == "5tswap -> pg0"
    for o in out[:4]:  # swapping pairs keeps every checksum valid
        for layer in (IP, UDP, TCP):
            p = Ether(o)
            if layer in p:
                c = p[layer].chksum
                del p[layer].chksum
                assert Ether(raw(p))[layer].chksum == c, (layer, o)


def test_modes_switch_back_to_routing_and_bad_commands(sluiced_factory, tmp_path):
    s = sluiced_factory([], ["create packet-generator interface pg0", "create packet-generator interface pg1"])
    s.cli("set interface fwd-mode pg0 macswap")
    assert s.iface("pg0")["mode"] == "macswap -> pg0"
    s.cli("set interface l3 pg0")
    assert s.iface("pg0")["mode"] == "l3"
    s.check_refused({
        "set interface fwd-mode pg0 turbo": "unknown mode 'turbo'",
        "set interface fwd-mode pg0 io peer pg9": "unknown interface 'pg9'",
        "set interface fwd-mode pg0 macswap dst 02:00:00:00:00:01": "unknown option 'dst'",
        "set interface l2 xconnect pg0": "usage: set interface l2 xconnect",
        "set interface noisy pg0 reads 5": "need lookup-memory",
        "set interface noisy pg0 flush-time 5": "needs a buffer",
        "set interface noisy pg0 lookup-memory 999999": "lookup-memory must be",
        "set interface noisy pg0 lookup-memory 0": "lookup-memory must be",
        "set interface noisy pg0 jitter 3": "unknown option 'jitter'",
        "set interface noisy pg0 lookup-memory 8 reads 2 model fast": "model must be lines or testpmd",
    })
    assert s.iface("pg0")["mode"] == "l3"
    assert s.js("show noisy")["noisy"] == []


def seq_stream(n, name="s"):
    return (f"packet-generator new {{ name {name} limit {n} interface pg0 data {{ "
            f"IP4: {A} -> {PG0_MAC} UDP: 10.0.0.1 -> 10.0.0.2 UDP: 1 - 60000 -> 9 }} }}")


@pytest.mark.parametrize("model", ["", "model testpmd"])
def test_noisy_memory_load_keeps_every_packet_in_order(sluiced_factory, tmp_path, model):
    s = sluiced_factory([], [
        "create packet-generator interface pg0",
        f"create packet-generator interface pg1 pcap {tmp_path}/pg1.pcap",
        "set interface state pg0 up", "set interface state pg1 up",
        "set interface l2 xconnect pg0 pg1",
        f"set interface noisy pg0 lookup-memory 8 reads 16 writes 4 reads-writes 2 {model}",
        seq_stream(500)])
    assert s.iface("pg0")["mode"] == "io -> pg1 +noisy"
    n = s.js("show noisy")["noisy"][0]
    assert (n["lookup-memory-mb"], n["reads"], n["writes"], n["reads-writes"], n["model"]) == \
        (8, 16, 4, 2, "testpmd" if model else "lines")
    s.cli("packet-generator enable-stream s")
    wait_stream(s, "s", 500)
    rt = {r["node"]: r for r in s.js("show runtime")["runtime"]}
    assert rt["noisy"]["vectors"] == 500 and rt["l2-io"]["vectors"] == 500
    assert s.stop() == 0
    out = rdpcap(str(tmp_path / "pg1.pcap"))
    assert [p[UDP].sport for p in out] == list(range(1, 501))
    # at exit sluiced prints each interface's counters since start
    log = (tmp_path / "stdout.txt").read_text()
    assert "sluiced: pg0: rx 500 packets, tx 0 packets, drops 0, tx-error 0" in log
    assert "sluiced: pg1: rx 0 packets, tx 500 packets, drops 0, tx-error 0" in log


def test_noisy_fifo_holds_until_full_or_flush_time(sluiced_factory, tmp_path):
    s = sluiced_factory([], [
        "create packet-generator interface pg0",
        "create packet-generator interface pg1",
        f"create packet-generator interface pg2 pcap {tmp_path}/pg2.pcap",
        "set interface state pg0 up", "set interface state pg1 up", "set interface state pg2 up",
        "set interface l2 xconnect pg0 pg2",
        "set interface noisy pg0 buffer 64",
        seq_stream(50, "a"), seq_stream(30, "b")])
    tx = lambda: s.iface("pg2")["tx-packets"]  # noqa: E731
    s.cli("packet-generator enable-stream a")
    wait_stream(s, "a", 50)
    time.sleep(0.3)
    assert tx() == 0 and s.js("show noisy")["noisy"][0]["held"] == 50  # held: not full yet
    s.cli("packet-generator enable-stream b")
    wait_stream(s, "b", 30)
    assert tx() == 16 and s.js("show noisy")["noisy"][0]["held"] == 64  # the oldest 16 left
    # a flush time empties the FIFO: no packet lost, none reordered
    s.cli("set interface noisy pg0 buffer 64 flush-time 1000")
    assert s.errors() == {("noisy", "held in a FIFO when noisy was turned off"): 64}
    s.cli("clear errors")
    t0 = time.time()
    s.cli("packet-generator enable-stream a")
    wait_stream(s, "a", 50)
    if time.time() - t0 < 0.8:
        assert tx() == 16  # still held
    deadline = time.time() + 10
    while tx() < 66 and time.time() < deadline:
        time.sleep(0.05)
    assert tx() == 66 and time.time() - t0 >= 0.9
    assert s.errors() == {}
    assert s.stop() == 0
    ports = [p[UDP].sport for p in rdpcap(str(tmp_path / "pg2.pcap"))]
    assert ports == list(range(1, 17)) + list(range(1, 51))
