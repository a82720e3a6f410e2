# SPDX-License-Identifier: BSD-3-Clause
"""IPv4 routing through sluiced on pcap ports: exact packets out, counters, errors."""
import struct
import subprocess
from pathlib import Path
import time

from scapy.all import ARP, ICMP, IP, UDP, Ether, Raw, rdpcap, wrpcap, raw, IPv6, fragment

from conftest import MAC0, MAC1, NH1, PEER0, SLUICECTL

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()


def run(factory, tmp_path, pkts, extra_cli=(), wait=True):
    wrpcap(str(tmp_path / "in0.pcap"), pkts, linktype=1)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ]
    s = factory(devs, ROUTER + list(extra_cli))
    if wait:
        s.wait_rx("port0", len(pkts))
    errs = s.errors()
    ifs = {n: s.iface(n) for n in ("port0", "port1")}
    assert s.stop() == 0
    out0 = list(rdpcap(str(tmp_path / "out0.pcap")))
    out1 = list(rdpcap(str(tmp_path / "out1.pcap")))
    return s, errs, ifs, out0, out1


def eth(dst=MAC0):
    return Ether(dst=dst, src=PEER0)


def eth4():
    return Ether(dst=MAC0, src=PEER0, type=0x0800)


def test_routes_exact_packets(sluiced_factory, tmp_path):
    # 300 packets: more than one vector of 256, and a tail
    pkts = [eth() / IP(src="10.10.1.2", dst=f"48.0.{i // 256}.{i % 256}", ttl=64, id=i) /
            UDP(sport=1024 + i, dport=4000) / Raw(bytes([i % 256]) * 22) for i in range(300)]
    s, errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, pkts)
    assert len(out1) == 300 and len(out0) == 0
    for i, (o, p) in enumerate(zip(out1, pkts)):
        assert o[Ether].dst == NH1 and o[Ether].src == MAC1
        assert o[IP].ttl == 63
        exp = p[IP].copy()
        exp.ttl = 63
        del exp.chksum
        assert raw(o[IP]) == raw(IP(raw(exp))), f"packet {i}"
    assert ifs["port1"]["tx-packets"] == 300
    assert ifs["port0"]["drops"] == 0
    assert errs == {}


def test_malformed_named_errors(sluiced_factory, tmp_path):
    good = IP(src="10.10.1.2", dst="48.1.1.1") / UDP() / Raw(b"x" * 20)
    bad_ck = IP(raw(good))
    bad_ck.chksum = (bad_ck.chksum + 1) & 0xFFFF
    pkts = [
        Raw(raw(eth())[:10]),                                             # truncated frame
        eth4() / Raw(b"\x45\x00"),                                           # short IP
        eth4() / Raw(b"\x65" + raw(good)[1:]),                               # version 6 in IPv4
        eth4() / Raw(b"\x44" + raw(good)[1:]),              # IHL 4
        eth() / bad_ck,                                                     # bad checksum
        eth() / IP(src="10.10.1.2", dst="48.1.1.1", len=200) / UDP(),       # length > frame
        eth() / IP(src="10.10.1.2", dst="48.1.1.1", ttl=0) / UDP(),         # TTL 0
        eth() / IPv6() / UDP(),                        # not IPv4: ip6-input's (from ::1)
        Ether(dst=MAC0, src=PEER0, type=0x88CC) / Raw(b"\0" * 46),          # LLDP
        Ether(dst="02:00:00:00:00:77", src=PEER0) / good,                   # not our MAC
        eth() / IP(src="224.0.0.1", dst="48.1.1.1") / UDP(),                # multicast source
        eth() / IP(src="239.255.0.1", dst="48.1.1.1") / UDP(),             # and the last /8's
        eth() / IP(src="255.255.255.255", dst="48.1.1.1") / UDP(),         # broadcast source
    ]
    s, errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, pkts)
    assert out1 == [] and out0 == []
    assert errs == {
        ("ethernet-input", "frame shorter than an Ethernet header"): 1,
        ("ip4-input", "packet shorter than an IPv4 header"): 1,
        ("ip4-input", "IP version is not 4"): 1,
        ("ip4-input", "bad header length (IHL)"): 1,
        ("ip4-input", "bad header checksum"): 1,
        ("ip4-input", "total length does not match the frame"): 1,
        ("ip4-input", "TTL is zero"): 1,
        ("ethernet-input", "unsupported ethertype"): 1,
        ("ip6-input", "loopback source or destination (RFC 4291 2.5.3)"): 1,
        ("ethernet-input", "destination MAC not ours"): 1,
        ("ip4-input", "bad source address (multicast or broadcast)"): 3,
    }
    assert ifs["port0"]["drops"] == len(pkts)


def test_ttl1_time_exceeded_and_no_route_unreachable(sluiced_factory, tmp_path):
    p_ttl = eth() / IP(src="10.10.1.2", dst="48.0.0.9", ttl=1, id=7) / UDP(sport=5, dport=6) / Raw(b"abcdefgh12345")
    p_nr = eth() / IP(src="10.10.1.2", dst="99.0.0.1", id=8) / UDP(sport=7, dport=8) / Raw(b"q" * 20)
    s, errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [p_ttl, p_nr])
    assert out1 == []
    assert len(out0) == 2
    te, un = sorted(out0, key=lambda o: -o[ICMP].type)
    for o in (te, un):
        assert o[Ether].dst == PEER0 and o[Ether].src == MAC0
        assert o[IP].src == "10.10.1.10" and o[IP].dst == "10.10.1.2"
        # checksums as sent are valid
        assert IP(raw(o[IP])).chksum == IP(raw(o[IP]))[IP].chksum
        c = o[ICMP]
        ck = c.chksum
        c2 = ICMP(raw(c))
        del c2.chksum
        assert ICMP(raw(c2)).chksum == ck
    assert te[ICMP].type == 11 and te[ICMP].code == 0
    # quoted: the original header (TTL as received) and 8 bytes
    assert raw(te[ICMP].payload)[:28] == raw(p_ttl[IP])[:28]
    assert un[ICMP].type == 3 and un[ICMP].code == 0
    assert raw(un[ICMP].payload)[:28] == raw(p_nr[IP])[:28]
    assert errs[("icmp4-error", "time exceeded sent")] == 1
    assert errs[("icmp4-error", "destination unreachable sent")] == 1
    assert errs[("ip4-lookup", "no route (ICMP unreachable follows)")] == 1


def test_ping_router_and_arp(sluiced_factory, tmp_path):
    echo = eth() / IP(src="10.10.1.2", dst="10.10.1.10", id=99) / ICMP(type=8, id=0x1234, seq=7) / Raw(b"ping-data")
    arp_req = Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:00:55") / ARP(
        op=1, hwsrc="02:00:00:00:00:55", psrc="10.10.1.5", pdst="10.10.1.10")
    udp_local = eth() / IP(src="10.10.1.2", dst="10.10.2.10") / UDP(sport=5, dport=9) / Raw(b"z")
    other_local = eth() / IP(src="10.10.1.2", dst="10.10.2.10", proto=253) / Raw(b"\0" * 8)  # experimental
    s, errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [echo, arp_req, udp_local, other_local])
    replies = [p for p in out0 if ICMP in p and p[ICMP].type == 0]
    arps = [p for p in out0 if ARP in p]
    assert len(replies) == 1 and len(arps) == 1
    # no node registered for UDP port 9: ICMP port unreachable quoting it (RFC 1122 3.2.2.1)
    unreach = [p for p in out0 if ICMP in p and p[ICMP].type == 3]
    assert len(unreach) == 1 and unreach[0][ICMP].code == 3
    assert unreach[0][IP].dst == "10.10.1.2"
    assert raw(unreach[0][ICMP].payload)[:28] == raw(udp_local[IP])[:28]
    r = replies[0]
    assert r[IP].src == "10.10.1.10" and r[IP].dst == "10.10.1.2"
    assert r[ICMP].type == 0 and r[ICMP].id == 0x1234 and r[ICMP].seq == 7
    assert raw(r[ICMP].payload) == b"ping-data"
    a = arps[0]
    assert a[Ether].dst == "02:00:00:00:00:55" and a[Ether].src == MAC0
    assert a[ARP].op == 2 and a[ARP].psrc == "10.10.1.10" and a[ARP].hwsrc == MAC0
    assert a[ARP].pdst == "10.10.1.5" and a[ARP].hwdst == "02:00:00:00:00:55"
    assert errs[("ip4-local", "protocol not handled locally")] == 1  # protocol 253
    assert errs[("ip4-udp-local", "port unreachable (ICMP follows)")] == 1
    assert errs[("ip4-icmp-input", "echo replies sent")] == 1


def test_arp_learn_and_resolution(sluiced_factory, tmp_path):
    # a packet to an unresolved host on port1 triggers an ARP request and is held; with no
    # reply it is dropped after a second, counted
    p = eth() / IP(src="10.10.1.2", dst="10.10.2.7") / UDP() / Raw(b"r" * 10)
    arp_req = Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:00:55") / ARP(
        op=1, hwsrc="02:00:00:00:00:55", psrc="10.10.1.5", pdst="10.10.1.10")
    wrpcap(str(tmp_path / "in0.pcap"), [arp_req, p])
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ]
    s = sluiced_factory(devs, ROUTER)
    s.wait_rx("port0", 2)
    neigh = {(n["interface"], n["address"]): n for n in s.js("show ip neighbors")["neighbors"]}
    assert neigh[("port0", "10.10.1.5")]["mac"] == "02:00:00:00:00:55"
    assert neigh[("port0", "10.10.1.5")]["state"] == "dynamic"
    assert neigh[("port1", "10.10.2.1")]["state"] == "static"
    assert neigh[("port1", "10.10.2.7")]["state"] == "incomplete"
    fib = s.js("show ip fib 10.10.1.5")["routes"]
    assert fib[0]["prefix"] == "10.10.1.5/32" and fib[0]["mac"] == "02:00:00:00:00:55"
    errs = s.errors()
    assert errs[("arp (main)", "packets held while resolving a next hop (not a drop)")] == 1
    # aging: the learnt entry and its host route go; static entries and routes stay
    s.cli("set ip neighbor-config age 1")
    time.sleep(3.5)
    neigh = {(n["interface"], n["address"]): n for n in s.js("show ip neighbors")["neighbors"]}
    assert ("port0", "10.10.1.5") not in neigh
    assert ("port1", "10.10.2.7") not in neigh      # incomplete, unused: gone after 3 s
    assert s.errors()[("arp (main)", "held packets dropped: no ARP reply within 1 s")] == 1
    assert neigh[("port1", "10.10.2.1")]["state"] == "static"
    assert s.js("show ip fib 10.10.1.5")["routes"][0]["prefix"] == "10.10.1.0/24"
    assert s.stop() == 0
    out1 = list(rdpcap(str(tmp_path / "out1.pcap")))
    assert len(out1) == 1
    a = out1[0]
    assert a[Ether].dst == "ff:ff:ff:ff:ff:ff" and a[ARP].op == 1
    assert a[ARP].psrc == "10.10.2.10" and a[ARP].pdst == "10.10.2.7" and a[ARP].hwsrc == MAC1


def test_mtu_df_and_fragmentation(sluiced_factory, tmp_path):
    big_df = eth() / IP(src="10.10.1.2", dst="48.0.0.1", flags="DF", id=1) / UDP() / Raw(b"d" * 972)
    big = eth() / IP(src="10.10.1.2", dst="48.0.0.2", id=2) / UDP(sport=1, dport=2) / Raw(bytes(range(256)) * 4)
    s, errs, ifs, out0, out1 = run(sluiced_factory, tmp_path, [big_df, big],
                                   extra_cli=["set interface mtu 576 port1"])
    assert len(out0) == 1
    ic = out0[0][ICMP]
    assert ic.type == 3 and ic.code == 4
    assert struct.unpack("!H", raw(ic)[6:8])[0] == 576
    assert len(out1) >= 2
    for f in out1:
        assert len(f[IP]) <= 576 and f[IP].ttl == 63 and f[Ether].dst == NH1
    data = b"".join(raw(f[IP].payload) for f in sorted(out1, key=lambda f: f[IP].frag))
    assert data == raw(big[UDP])
    assert errs[("icmp4-error", "fragmentation needed sent")] == 1


def test_runtime_stall_fields(sluiced_factory, tmp_path):
    """show runtime's turns (port-rx call to call: what an RX queue waits between polls),
    their histogram, and each queue's longest gap in show interface rx-placement. The
    worker updates them as it runs, so only their shape is checked, never a duration."""
    pkts = [eth() / IP(src="10.10.1.2", dst="48.0.0.1") / UDP() / Raw(b"x" * 22)] * 50
    wrpcap(str(tmp_path / "in0.pcap"), pkts, linktype=1)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    s = sluiced_factory([
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ], ROUTER)
    s.wait_rx("port0", len(pkts))
    rt = s.js("show runtime")
    turns = {r["worker"]: r for r in rt["turns"]}
    assert turns and all(t["turns"] > 0 for t in turns.values())
    hist = rt["turn-histogram"]
    for w, t in turns.items():
        rows = [r for r in hist if r["worker"] == w]
        assert rows and all(r["turns"] > 0 and r["from-us"] <= r["to-us"] for r in rows)
        # read after the count, while the worker runs on: at least the turns counted
        assert sum(r["turns"] for r in rows) >= t["turns"] - 1
        assert [r["from-us"] for r in rows] == sorted(r["from-us"] for r in rows)
    for t in turns.values():  # the longest node call of each worker, and which node
        assert t["longest-call-us"] > 0 and t["longest-call-node"] in {r["node"] for r in rt["runtime"]} | {
            n["node"] for n in s.js("show graph")["nodes"]}
    assert all(r["max-call-us"] >= 0 for r in rt["runtime"])
    assert any(r["max-call-us"] > 0 for r in rt["runtime"] if r["node"] == "port-rx")
    rxp = s.js("show interface rx-placement")["rx-placement"]
    assert {(r["interface"], r["queue"]) for r in rxp} == {("port0", 0), ("port1", 0)}
    assert all(r["longest-gap-us"] > 0 for r in rxp)
    s.cli("clear runtime")
    assert "turns" in s.js("show runtime")
    assert s.stop() == 0


def main_thread_wakes(pid):
    for line in open(f"/proc/{pid}/task/{pid}/status"):
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


def test_main_lcore_sleeps_and_wakes_for_punts(sluiced_factory, tmp_path):
    """With a worker, the main lcore sleeps between its 100 ms ticks (it polled its CLI every
    millisecond before: a thousand wake-ups a second on a core it may share with a
    generator) and a worker's punt wakes it: an ARP request and a ping to sluiced's own
    address, read by the worker, are answered."""
    pkts = [Ether(dst="ff:ff:ff:ff:ff:ff", src=PEER0) / ARP(op=1, hwsrc=PEER0, psrc="10.10.1.2",
                                                            pdst="10.10.1.10"),
            eth() / IP(src="10.10.1.2", dst="10.10.1.10") / ICMP(type=8, id=7, seq=1) / Raw(b"wake")]
    wrpcap(str(tmp_path / "in0.pcap"), pkts, linktype=1)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    s = sluiced_factory([
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ], ROUTER, extra="cpu { main-core 0 corelist-workers 1 }\n")
    s.wait_rx("port0", len(pkts))
    deadline = time.time() + 10
    while s.iface("port0")["tx-packets"] < 2 and time.time() < deadline:
        time.sleep(0.05)
    before = main_thread_wakes(s.proc.pid)
    time.sleep(1.0)  # no CLI request meanwhile: only the ticks wake it
    wakes = main_thread_wakes(s.proc.pid) - before
    assert wakes < 100, f"the main lcore woke {wakes} times in a second"
    assert s.stop() == 0
    out0 = list(rdpcap(str(tmp_path / "out0.pcap")))
    assert [p[ARP].op for p in out0 if ARP in p] == [2]
    echo = [p for p in out0 if ICMP in p]
    assert len(echo) == 1 and echo[0][ICMP].type == 0 and echo[0][IP].dst == "10.10.1.2"
    assert bytes(echo[0][Raw]) == b"wake"


def test_ping_from_the_router_exact_requests(sluiced_factory, tmp_path):
    """ping: echo requests out of the route's interface, every field as RFC 792 and Linux's
    ping have them (from the interface's address, TTL 64, DF, one identifier, sequence from
    1, the data counting up from it, both checksums right); no reply: all lost. Bad
    arguments, no route and our own address are refused with a clear error."""
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap{i},rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out{i}.pcap "
            f"{{ name port{i} mac-address {mac} }}" for i, mac in enumerate((MAC0, MAC1))]
    s = sluiced_factory(devs, ROUTER)
    r = s.js("ping 48.1.2.3 repeat 3 interval 0.05 size 100")
    st = r["statistics"][0]
    assert (st["destination"], st["sent"], st["received"], st["loss-percent"]) == ("48.1.2.3", 3, 0, 100)
    assert r["replies"] == []
    s.check_refused({
        "ping": "usage: ping A.B.C.D",
        "ping 48.1.2.3 repeat 0": "repeat",
        "ping 48.1.2.3 repeat 101": "repeat",
        "ping 48.1.2.3 interval 0": "interval",
        "ping 48.1.2.3 size 9000": "size",
        "ping 48.1.2.3 size 1473": "over port1's MTU (1500)",
        "ping 48.1.2.3 source port9": "unknown interface 'port9'",
        "ping 48.1.2.3 table-id 7": "table 7 does not exist",
        "ping 48.1.2.3 colour red": "unknown argument 'colour'",
        "ping 99.1.2.3": "no route to 99.1.2.3 in table 0",
        "ping 10.10.1.10": "10.10.1.10 is this router's own address",
    })
    # a long ping does not keep sluiced from stopping: SIGTERM ends it, and sluiced, at once
    long = subprocess.Popen([str(SLUICECTL), "-s", s.sock, "ping 48.1.2.3 repeat 100 interval 5"],
                            stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    t0 = time.time()
    assert s.stop() == 0 and time.time() - t0 < 5
    long.wait(timeout=10)
    reqs = [p for p in rdpcap(str(tmp_path / "out1.pcap")) if ICMP in p]
    assert len(reqs) == 4  # 3, then the long ping's first
    assert reqs[3][ICMP].seq == 1 and reqs[3][ICMP].id != reqs[0][ICMP].id
    for seq, p in enumerate(reqs[:3], 1):
        assert p[Ether].dst == NH1 and p[Ether].src == MAC1
        ip = p[IP]
        assert (ip.src, ip.dst, ip.ttl, ip.flags.DF, ip.id, ip.len) == ("10.10.2.10", "48.1.2.3", 64, True, seq, 128)
        icmp = ip[ICMP]
        assert (icmp.type, icmp.code, icmp.id, icmp.seq) == (8, 0, reqs[0][ICMP].id, seq)
        assert bytes(icmp.payload) == bytes((seq + i) & 255 for i in range(100))
        redo = IP(raw(ip))  # both checksums right: scapy's own, computed again, are the same
        del redo[IP].chksum, redo[ICMP].chksum
        assert raw(IP(raw(redo))) == raw(ip)
