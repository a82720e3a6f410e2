# SPDX-License-Identifier: BSD-3-Clause
"""Packet-generator interfaces and streams: exact packets, counters, limits, rates, errors."""
import time

from scapy.all import IP, TCP, UDP, Ether, IPv6, Raw, raw, rdpcap, wrpcap

from conftest import NH1

PG0_MAC = "02:fe:00:00:00:00"
PG1_MAC = "02:fe:00:00:00:01"


def pg_router(tmp_path, capture=True):
    return [
        "create packet-generator interface pg0",
        "create packet-generator interface pg1" + (f" pcap {tmp_path}/pg1.pcap" if capture else ""),
        "set interface ip address pg0 10.10.1.10/24",
        "set interface ip address pg1 10.10.2.10/24",
        "set interface state pg0 up",
        "set interface state pg1 up",
        f"ip neighbor pg1 10.10.2.1 {NH1}",
        "ip route add 48.0.0.0/8 via 10.10.2.1",
    ]


# the same definition VPP users write, over several lines (the exec file joins them)
STREAM = """packet-generator new {
  name s0
  limit 300
  size 64-80
  interface pg0
  data {
    IP4: 02:00:00:00:00:01 -> 02:fe:00:00:00:00
    UDP: 10.10.1.2 -> 48.0.0.1 - 48.0.0.100 ttl 9
    UDP: 2123 -> 10000-10006
  }
}"""


def wait_stream(s, name, n, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for st in s.js("show packet-generator")["streams"]:
            if st["name"] == name and st["state"] == "disabled" and st["sent"] >= n:
                time.sleep(0.2)  # the last vector drains to tx
                return st
        time.sleep(0.05)
    raise AssertionError(f"stream {name} did not send {n}: {s.cli('show packet-generator')}")


def expected(i):
    size = 64 + i % 17
    p = (Ether(src="02:00:00:00:00:01", dst=PG0_MAC) /
         IP(src="10.10.1.2", dst=f"48.0.0.{1 + i % 100}", ttl=9, id=0) /
         UDP(sport=2123, dport=10000 + i % 7))
    return p / Raw(b"\0" * (size - len(p)))


def test_stream_routed_exact_bytes_and_counters(sluiced_factory, tmp_path):
    s = sluiced_factory([], pg_router(tmp_path) + STREAM.splitlines())
    s.cli("packet-generator enable-stream s0")
    st = wait_stream(s, "s0", 300)
    assert st["sent"] == 300 and st["bytes"] == sum(64 + i % 17 for i in range(300))
    assert s.iface("pg0")["rx-packets"] == 300
    assert s.iface("pg1")["tx-packets"] == 300
    rt = {(r["node"]): r for r in s.js("show runtime")["runtime"]}
    assert rt["pg-input"]["vectors"] == 300
    assert rt["ip4-rewrite"]["vectors"] == 300
    assert s.errors() == {}
    assert s.stop() == 0
    out = list(rdpcap(str(tmp_path / "pg1.pcap")))
    assert len(out) == 300
    for i, o in enumerate(out):
        e = expected(i)
        assert len(o) == len(e), f"packet {i}"
        assert o[Ether].dst == NH1 and o[Ether].src == PG1_MAC
        # routed: TTL down by one, header checksum updated, UDP untouched
        ip = e[IP].copy()
        ip.ttl = 8
        del ip.chksum
        assert raw(o[IP]) == raw(IP(raw(ip))), f"packet {i}"
        # the generator's own checksums were valid
        u = UDP(raw(e[UDP]))
        assert o[UDP].chksum == IP(raw(e[IP]))[UDP].chksum == u.chksum


def test_limit_restarts_and_rate(sluiced_factory, tmp_path):
    s = sluiced_factory([], pg_router(tmp_path, capture=False) + STREAM.splitlines() + [
        "packet-generator new { name slow limit 400 rate 1000 interface pg0 data { "
        "IP4: 02:00:00:00:00:01 -> 02:fe:00:00:00:00 UDP: 10.10.1.2 -> 48.1.1.1 UDP: 1 -> 2 } }"])
    s.cli("packet-generator enable-stream s0")
    wait_stream(s, "s0", 300)
    s.cli("packet-generator enable-stream s0")  # the count starts again: 300 more
    wait_stream(s, "s0", 300)
    assert s.iface("pg1")["tx-packets"] == 600
    t0 = time.time()
    s.cli("packet-generator enable-stream slow")
    st = wait_stream(s, "slow", 400)
    took = time.time() - t0
    assert st["sent"] == 400
    # 400 packets at 1000/s: the pacing allows one vector (256) ahead at most
    assert took >= (400 - 256) / 1000, took
    assert s.iface("pg1")["tx-packets"] == 1000
    # disable stops an unlimited stream; delete removes it
    s.cli("packet-generator new { name inf interface pg0 data { "
          "IP4: 02:00:00:00:00:01 -> 02:fe:00:00:00:00 UDP: 10.10.1.2 -> 48.1.1.1 } }")
    s.cli("packet-generator enable-stream inf")
    time.sleep(0.2)
    s.cli("packet-generator disable-stream inf")
    a = s.iface("pg1")["tx-packets"]
    time.sleep(0.3)
    assert s.iface("pg1")["tx-packets"] == a > 1000
    s.cli("packet-generator delete inf")
    assert [x["name"] for x in s.js("show packet-generator")["streams"]] == ["s0", "slow"]
    assert s.js("show buffers")["buffers"][0]["in-use"] == 0


def test_pcap_stream_and_ip4_input_node(sluiced_factory, tmp_path):
    pkts = [Ether(dst=PG0_MAC, src="02:00:00:00:00:01") / IP(src="10.10.1.2", dst=f"48.9.9.{i}") /
            UDP(sport=7, dport=9) / Raw(bytes([i]) * (20 + i)) for i in range(5)]
    wrpcap(str(tmp_path / "in.pcap"), pkts)
    s = sluiced_factory([], pg_router(tmp_path) + [
        f"packet-generator new {{ name p limit 10 interface pg0 pcap {tmp_path}/in.pcap }}",
        "packet-generator new { name l3 limit 3 size 100 interface pg0 node ip4-input data { "
        "TCP: 10.10.1.3 -> 48.7.7.7 TCP: 80 -> 1000-1002 flags 2 } }"])
    s.cli("packet-generator enable-stream p")
    wait_stream(s, "p", 10)
    s.cli("packet-generator enable-stream l3")
    wait_stream(s, "l3", 3)
    assert s.stop() == 0
    out = list(rdpcap(str(tmp_path / "pg1.pcap")))
    assert len(out) == 13
    for i, o in enumerate(out[:10]):  # the file's packets, in turn
        assert raw(o[IP].payload) == raw(pkts[i % 5][IP].payload)
        assert o[IP].dst == f"48.9.9.{i % 5}" and o[IP].ttl == 63
    for i, o in enumerate(out[10:]):
        assert len(o) == 100 + 14 and o[TCP].dport == 1000 + i and o[TCP].flags == "S"
        chk = o[IP].copy()
        del chk[TCP].chksum
        assert IP(raw(chk))[TCP].chksum == o[TCP].chksum


def test_bad_stream_definitions(sluiced_factory, tmp_path):
    s = sluiced_factory([], pg_router(tmp_path, capture=False))
    d = "data { IP4: 02:00:00:00:00:01 -> 02:fe:00:00:00:00 UDP: 10.10.1.2 -> 48.1.1.1 UDP: 1 -> 2 }"
    bad = {
        f"packet-generator new {{ limit 5 interface pg0 {d} }}": "needs a name",
        f"packet-generator new {{ name x {d} }}": "needs an interface",
        f"packet-generator new {{ name x interface pg7 {d} }}": "unknown interface 'pg7'",
        f"packet-generator new {{ name x interface pg0 size 30 {d} }}": "below the headers (42 bytes)",
        f"packet-generator new {{ name x interface pg0 size 80-70 {d} }}": "size must be",
        f"packet-generator new {{ name x interface pg0 size 4000 {d} }}": "size must be",
        f"packet-generator new {{ name x interface pg0 worker 3 {d} }}": "worker 3 does not exist",
        f"packet-generator new {{ name x interface pg0 node ip4-lookup {d} }}": "starts at",
        f"packet-generator new {{ name x interface pg0 node ip4-input {d} }}": "without an Ethernet",
        f"packet-generator new {{ name x interface pg0 rate fast {d} }}": "rate must be",
        "packet-generator new { name x interface pg0 data { UDP: 10.1.1.1 -> ::1 } }": "both IPv4",
        "packet-generator new { name x interface pg0 data { UDP: 10.1.1.9 - 10.1.1.1 -> 1.1.1.1 } }": "usage: UDP:",
        "packet-generator new { name x interface pg0 data { IP4: 02:00:00:00:00:01 -> zz UDP: 1.1.1.1 -> 2.2.2.2 } }": "usage: IP4:",
        "packet-generator new { name x interface pg0 data { IP6: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 1.1.1.1 -> 2.2.2.2 } }": "does not match",
        "packet-generator new { name x interface pg0 data { UDP: 1.1.1.1 -> 2.2.2.2 UDP: 1 -> 70000 } }": "0 to 65535",
        "packet-generator new { name x interface pg0 data { FOO: 1 } }": "unknown data 'FOO:'",
        "packet-generator new { name x interface pg0 pcap /nonexistent.pcap }": "No such file",
        "packet-generator new { name x interface pg0 }": "needs data",
        "packet-generator new name x": "usage: packet-generator new",
        "packet-generator enable-stream nosuch": "unknown stream 'nosuch'",
        "create packet-generator interface eth0": "named pgN",
        "create packet-generator interface pg0": "exists",
    }
    s.check_refused(bad)
    assert s.js("show packet-generator")["streams"] == []
    assert [i["name"] for i in s.js("show interface")["interfaces"]] == ["pg0", "pg1"]


def test_pg_with_a_worker_and_ipv6_routed(sluiced_factory, tmp_path):
    """pg interfaces created while a worker forwards (its graph is rebuilt); an IPv6 stream
    is generated and routed out of pg1."""
    s = sluiced_factory([], [], extra="cpu { main-core 0 corelist-workers 1 }\n")
    for line in pg_router(tmp_path) + [
            "set interface ip address pg1 2001:db8:1::10/64",
            "ip neighbor pg1 2001:db8:1::1 02:00:00:00:01:01",
            "ip route add 2001:db8::10/124 via 2001:db8:1::1"]:
        s.cli(line)
    s.cli("packet-generator new { name v6 limit 50 worker 0 interface pg0 data { "
          "IP6: 02:00:00:00:00:01 -> 02:fe:00:00:00:00 UDP: 2001:db8::1 -> 2001:db8::10 - 2001:db8::1f "
          "UDP: 5 -> 6 } }")
    s.cli("packet-generator enable-stream v6")
    wait_stream(s, "v6", 50)
    assert s.errors() == {}
    assert s.iface("pg0")["rx-packets"] == 50
    s.mld_settled("pg1")
    assert s.iface("pg1")["tx-packets"] == 50 + s.mld_sent("pg1")  # and its MLD reports


def test_pg_interface_delete(sluiced_factory, tmp_path):
    """pg interfaces are logical interfaces: created and deleted while a stream runs on
    another, refused while in use, their pcap complete as soon as they are deleted."""
    s = sluiced_factory([], pg_router(tmp_path) + STREAM.splitlines() + [
        f"create packet-generator interface pg2 pcap {tmp_path}/pg2.pcap",
        "create packet-generator interface pg3",
        "set interface state pg2 up", "set interface state pg3 up",
        "set interface l2 xconnect pg3 pg2"])
    assert s.iface("pg2")["type"] == "pg" and s.iface("pg2")["idx"] >= 32
    s.cli("packet-generator new { name x limit 5 interface pg3 data { "
          "IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 1.1.1.1 -> 2.2.2.2 UDP: 1 -> 2 } }")
    s.cli("packet-generator enable-stream x")
    s.cli("packet-generator enable-stream s0")
    wait_stream(s, "x", 5)
    s.check_refused({
        "delete packet-generator interface pg2": "pg3 forwards to it",
        "delete packet-generator interface pg3": "stream x sends from pg3",
        "delete packet-generator interface pg9": "unknown interface",
        "delete packet-generator interface pg0.5": "unknown interface",
        "delete packet-generator interface bad": "unknown interface",
    })
    s.cli("set interface l3 pg3")
    s.cli("delete packet-generator interface pg2")
    # complete while sluiced runs: the five frames cross-connected to it
    got = rdpcap(str(tmp_path / "pg2.pcap"))
    assert len(got) == 5
    for p in got:
        assert p[Ether].dst == "02:00:00:00:00:02" and p[IP].src == "1.1.1.1"
        assert (p[UDP].sport, p[UDP].dport) == (1, 2)
    s.cli("packet-generator delete x")
    s.cli("delete packet-generator interface pg3")
    for _ in range(50):  # churn while s0 runs pg0 -> pg1
        s.cli("create packet-generator interface pg7")
        s.cli("delete packet-generator interface pg7")
    wait_stream(s, "s0", 300)
    assert s.iface("pg1")["tx-packets"] == 300
    assert [f["name"] for f in s.js("show interface")["interfaces"]] == ["pg0", "pg1"]
    assert s.stop() == 0
    assert len(rdpcap(str(tmp_path / "pg1.pcap"))) == 300
