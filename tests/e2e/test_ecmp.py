# SPDX-License-Identifier: BSD-3-Clause
"""ECMP and UCMP over pcap ports, for IPv4 and IPv6: port0 receives 1,000 UDP flows (4
packets each, numbered) to 48.0.0.0/8 (2001:db8:48::/48), routed over 4 paths on port1-port4
(static next hops). Each flow stays on one path and in order, the paths share the flows
evenly (or by weight), show ip fib lists every path, and deleting a path moves only its
flows, also while they flow (no packet lost)."""
import struct
import time

import pytest
from scapy.all import (ARP, ICMP, IP, UDP, Ether, ICMPv6ND_NS, ICMPv6PacketTooBig, IPv6, Raw,
                       wrpcap)

from conftest import MAC0, PEER0, read_out

FLOWS, PER_FLOW = 1000, 4
NHS = [(f"port{p}", f"10.10.{p + 1}.1", f"42:00:00:00:00:0{p}") for p in range(1, 5)]
NHS6 = [(f"port{p}", f"2001:db8:{p + 1}::1", f"42:00:00:00:00:0{p}") for p in range(1, 5)]
PFX = {4: "48.0.0.0/8", 6: "2001:db8:48::/48"}


def setup(paths, extra=(), fam=4):
    lines = []
    for p in range(5):
        lines.append(f"set interface ip address port{p} " +
                     (f"10.10.{p + 1}.10/24" if fam == 4 else f"2001:db8:{p + 1}::10/64"))
    lines += [f"set interface state port{p} up" for p in range(5)]
    lines += [f"ip neighbor {ifn} {nh} {mac}" for ifn, nh, mac in (NHS if fam == 4 else NHS6)]
    lines += [f"ip route add {PFX[fam]} via {nh} {ifn}" + (f" weight {w}" if w else "")
              for (ifn, nh, _), w in paths]
    return lines + list(extra)


def flow_pkt(f, k, fam):
    l3 = (IP(src=f"16.0.{f >> 8}.{f & 255}", dst="48.1.2.3") if fam == 4 else
          IPv6(src=f"2001:db8:16::{f:x}", dst="2001:db8:48::1:2:3"))
    return (Ether(dst=MAC0, src=PEER0) / l3 / UDP(sport=1024 + f, dport=5000)
            / Raw(struct.pack("!HH", f, k) + b"x" * 14))


def sub(tmp_path, name):
    (tmp_path / name).mkdir()
    return tmp_path / name


_DEFAULT_PCAP = {}  # fam -> the default flows' pcap (built once: scapy takes a second)


def default_pcap(path, fam):
    """The FLOWS flows' PER_FLOW packets each (flow_pkt), flow after flow, k after k, written
    to path; returns how many."""
    if fam not in _DEFAULT_PCAP:
        wrpcap(str(path), [flow_pkt(f, k, fam) for k in range(PER_FLOW) for f in range(FLOWS)],
               linktype=1)
        _DEFAULT_PCAP[fam] = path.read_bytes()
    path.write_bytes(_DEFAULT_PCAP[fam])
    return FLOWS * PER_FLOW


def replay(factory, tmp_path, lines, fam, pkts=None):
    """sluiced with lines, once it has received every flow's packets (pkts, by default
    FLOWS flows of PER_FLOW packets) on port0; returns it and how many were sent."""
    if pkts is None:
        n = default_pcap(tmp_path / "in0.pcap", fam)
    else:
        wrpcap(str(tmp_path / "in0.pcap"), pkts, linktype=1)
        n = len(pkts)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}"]
    devs += [f"net_pcap{p},rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out{p}.pcap "
             f"{{ name port{p} mac-address 02:00:00:00:00:1{p} }}" for p in range(1, 5)]
    s = factory(devs, lines)
    s.wait_rx("port0", n)
    return s, n


def run(factory, tmp_path, lines, fib_cmd="show ip fib 48.0.0.0/8", fam=4, pkts=None, flows=FLOWS,
        also=None):
    """Each flow's port (by the flow number in the payload, whose packets must all leave by
    one path, numbered in order), the packets out of each port, show ip fib; also(s) is
    called before sluiced stops."""
    s, sent = replay(factory, tmp_path, lines, fam, pkts)
    fib = s.js(fib_cmd)["routes"]
    if also:
        also(s)
    assert s.stop() == 0
    where = {}  # flow -> port, checking order within the port
    counts = {}
    for p in range(1, 5):
        seen = {}
        out = pcap_frames(tmp_path / f"out{p}.pcap")
        counts[p] = len(out)
        mac = bytes.fromhex(NHS[p - 1][2].replace(":", ""))
        for fr in out:  # (read with struct: scapy takes a second for 4,000 frames)
            assert fr[:6] == mac and fr[12:14] == (b"\x08\x00" if fam == 4 else b"\x86\xdd")
            assert fr[23 if fam == 4 else 20] == 17  # UDP
            assert fr[22 if fam == 4 else 21] == 63  # TTL, hop limit
            f, k = struct.unpack_from("!HH", fr, 42 if fam == 4 else 62)
            assert where.setdefault(f, p) == p, f"flow {f} on two paths"
            assert seen.get(f, -1) == k - 1, f"flow {f} out of order on port{p}"
            seen[f] = k
    assert sum(counts.values()) == sent and len(where) == flows
    return where, counts, fib


def fib_of(fam):
    return f"show ip{'' if fam == 4 else '6'} fib {PFX[fam]}"


@pytest.mark.parametrize("fam", [4, 6])
def test_ecmp_four_equal_paths(sluiced_factory, tmp_path, fam):
    nhs = NHS if fam == 4 else NHS6
    where, counts, fib = run(sluiced_factory, tmp_path, setup([(n, None) for n in nhs], fam=fam),
                             fib_cmd=fib_of(fam), fam=fam)
    flows = [sum(1 for p in where.values() if p == q) for q in range(1, 5)]
    assert all(abs(f - FLOWS / 4) <= 0.15 * FLOWS / 4 for f in flows), flows
    assert [(r["next-hop"], r["interface"], r["weight"]) for r in fib] == [
        (nh, ifn, 1) for ifn, nh, _ in nhs]
    assert all(r["prefix"] == PFX[fam] and r["type"] == "forward" for r in fib)


@pytest.mark.parametrize("fam", [4, 6])
def test_ucmp_weights_one_to_three(sluiced_factory, tmp_path, fam):
    nhs = NHS if fam == 4 else NHS6
    where, counts, fib = run(sluiced_factory, tmp_path, setup([(nhs[0], 1), (nhs[1], 3)], fam=fam),
                             fib_cmd=fib_of(fam), fam=fam)
    a = sum(1 for p in where.values() if p == 1)
    b = sum(1 for p in where.values() if p == 2)
    assert a + b == FLOWS and abs(b / a - 3) <= 0.15 * 3, (a, b)
    assert [(r["next-hop"], r["weight"]) for r in fib] == [(nhs[0][1], 1), (nhs[1][1], 3)]


@pytest.mark.parametrize("fam", [4, 6])
def test_one_path_unresolved(sluiced_factory, tmp_path, fam):
    """Four paths, the fourth's next hop without a neighbour entry: its flows resolve it (an ARP
    request or a neighbour solicitation on port4, none of their packets out), the other three
    paths' flows go out whole and in order, each on one path."""
    nhs = NHS if fam == 4 else NHS6
    lines = setup([(n, None) for n in nhs], fam=fam)
    lines.remove(f"ip neighbor {nhs[3][0]} {nhs[3][1]} {nhs[3][2]}")
    s, _ = replay(sluiced_factory, tmp_path, lines, fam)
    assert s.stop() == 0
    where = {}
    for p in range(1, 4):
        seen = {}
        for pkt in read_out(tmp_path / f"out{p}.pcap"):
            f, k = struct.unpack("!HH", bytes(pkt[UDP].payload)[:4])
            assert pkt[Ether].dst == nhs[p - 1][2]
            assert where.setdefault(f, p) == p, f"flow {f} on two paths"
            assert seen.get(f, -1) == k - 1, f"flow {f} out of order on port{p}"
            seen[f] = k
        assert sorted(seen.values()) == [PER_FLOW - 1] * len(seen)  # whole flows
    out4 = read_out(tmp_path / "out4.pcap")
    assert out4 and not any(UDP in q and q[UDP].dport == 5000 for q in out4)
    if fam == 4:
        assert all(q[ARP].op == 1 and q[ARP].pdst == nhs[3][1] for q in out4)
    else:
        assert all(q[ICMPv6ND_NS].tgt == nhs[3][1] for q in out4)
    unresolved = FLOWS - len(where)  # the fourth path's share
    assert abs(unresolved - FLOWS / 4) <= 0.15 * FLOWS / 4, unresolved


@pytest.mark.parametrize("fam", [4, 6])
def test_each_path_its_own_mtu(sluiced_factory, tmp_path, fam):
    """Four paths, port2's MTU 1280 and the others' 1500; 400 flows of two 1,400-byte packets
    (IPv4 with DF): ipN-rewrite checks each packet against its own path's MTU (the copy of
    its interface's that each adjacency carries, set after the neighbours here), so port2's
    flows are refused with too-big errors naming 1280 (ICMP fragmentation needed, ICMPv6
    packet too big, rate-limited) and counted, the other paths' go out whole, in order."""
    nhs = NHS if fam == 4 else NHS6
    back = ([f"ip neighbor port0 10.10.1.1 {PEER0}", "ip route add 16.0.0.0/8 via 10.10.1.1"]
            if fam == 4 else
            [f"ip neighbor port0 2001:db8:1::1 {PEER0}", "ip route add 2001:db8:16::/48 via 2001:db8:1::1"])
    lines = setup([(n, None) for n in nhs], ["set interface mtu 1280 port2"] + back, fam=fam)
    flows = 400
    pkts = []
    for k in range(2):
        for f in range(flows):
            p = flow_pkt(f, k, fam)
            if fam == 4:
                p[IP].flags = "DF"
            pkts.append(p / Raw(b"y" * (1400 - len(p[IP if fam == 4 else IPv6]))))
    s, sent = replay(sluiced_factory, tmp_path, lines, fam, pkts)
    errs = s.errors()
    assert s.stop() == 0
    where, out = {}, 0
    for p in (1, 3, 4):
        seen = {}
        for pkt in read_out(tmp_path / f"out{p}.pcap"):
            f, k = struct.unpack("!HH", bytes(pkt[UDP].payload)[:4])
            assert pkt[Ether].dst == nhs[p - 1][2] and len(pkt[IP if fam == 4 else IPv6]) == 1400
            assert where.setdefault(f, p) == p and seen.get(f, -1) == k - 1, (f, p)
            seen[f] = k
            out += 1
    assert read_out(tmp_path / "out2.pcap") == []
    refused = sent - out
    assert abs(refused - sent / 4) <= 0.2 * sent / 4, refused  # port2's share
    key = (("ip4-rewrite", "too big with DF set (ICMP frag needed follows)") if fam == 4 else
           ("ip6-rewrite", "larger than the egress MTU (ICMPv6 packet too big follows)"))
    assert errs[key] == refused, errs
    icmp = read_out(tmp_path / "out0.pcap")  # by the route back to the flows' sources
    assert icmp, "no too-big error sent back"
    for q in icmp:
        if fam == 4:
            assert q[ICMP].type == 3 and q[ICMP].code == 4 and q[ICMP].nexthopmtu == 1280
            f = struct.unpack("!H", bytes(q[ICMP].payload)[14:16])[0]  # the quoted source
        else:
            assert q[ICMPv6PacketTooBig].mtu == 1280
            f = struct.unpack("!H", bytes(q[ICMPv6PacketTooBig].payload)[48:50])[0]
        assert f not in where  # a flow of port2's


def test_deleting_a_path_moves_only_its_flows(sluiced_factory, tmp_path):
    four, _, _ = run(sluiced_factory, sub(tmp_path, "a"),
                     setup([(n, None) for n in NHS]))
    three, _, fib = run(sluiced_factory, sub(tmp_path, "b"),
                        setup([(n, None) for n in NHS], ["ip route del 48.0.0.0/8 via 10.10.3.1 port2"]))
    assert [r["next-hop"] for r in fib] == ["10.10.2.1", "10.10.4.1", "10.10.5.1"]
    for f, p in four.items():
        if p != 2:
            assert three[f] == p, f"flow {f} moved from port{p} to port{three[f]}"
        else:
            assert three[f] != 2
    # back to one path: a plain route again; the last path's delete removes the route
    _, _, fib = run(sluiced_factory, sub(tmp_path, "c"),
                    setup([(NHS[0], None), (NHS[1], None)], ["ip route del 48.0.0.0/8 via 10.10.2.1"]),
                    fib_cmd="show ip fib")
    assert [(r["prefix"], r["next-hop"]) for r in fib if r["prefix"] == "48.0.0.0/8"] == [("48.0.0.0/8", "10.10.3.1")]


def test_path_commands_refused_clearly(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap{p},rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/o{p}.pcap "
            f"{{ name port{p} mac-address 02:00:00:00:00:1{p} }}" for p in range(5)]
    s = sluiced_factory(devs, setup([(NHS[0], None), (NHS[1], None)]))
    s.check_refused({
        "ip route del 48.0.0.0/8 via 10.10.4.1": "48.0.0.0/8: not found",
        "ip route add 48.0.0.0/8 via 10.10.2.1 weight 0": "weight",
        "ip route add 48.0.0.0/8 via 10.10.2.1 weight x": "weight",
    })
    assert len(s.js("show ip fib 48.0.0.0/8")["routes"]) == 2  # nothing changed
    for i in range(62):  # 64 paths at most (next hops on port1's /24, resolved or not)
        s.cli(f"ip route add 48.0.0.0/8 via 10.10.2.{100 + i}")
    assert len(s.js("show ip fib 48.0.0.0/8")["routes"]) == 64
    s.check_refused({"ip route add 48.0.0.0/8 via 10.10.2.200": "64 paths already"})
    s.cli("ip route add 48.0.0.0/8 via 10.10.2.1 weight 5")  # the same path: its weight
    assert [r["weight"] for r in s.js("show ip fib 48.0.0.0/8")["routes"]][0] == 5
    s.cli("ip route del 48.0.0.0/8")  # every path
    assert s.js("show ip fib 48.0.0.0/8")["routes"] == []
    assert s.stop() == 0


def pcap_frames(path):
    """The frames of a pcap written by the pcap PMD, but MLD reports (to a group: 33:33)."""
    data = path.read_bytes()
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        fr = data[off + 16:off + 16 + incl]
        if fr[:2] != b"\x33\x33":
            out.append(fr)
        off += 16 + incl
    return out


def pcap_records(path, fam=4):
    """(flow, k) of each frame of a pcap written by the pcap PMD (our UDP payload starts at
    byte 42, 62 over IPv6): read with struct, scapy is too slow for 100,000 frames. (Its
    timestamps are the input file's, replayed: no order across ports can be read from them.)"""
    return [struct.unpack_from("!HH", fr, 42 if fam == 4 else 62) for fr in pcap_frames(path)]


@pytest.mark.parametrize("fam", [4, 6])
def test_deleting_a_path_under_traffic(sluiced_factory, tmp_path, fam):
    """The 1,000 flows replayed without end (pcap infinite_rx) over 4 paths; one path deleted
    while they flow: no packet lost, the other paths' flows never move, the deleted path's
    flows go to one other path each, every flow in order on each path."""
    nhs = NHS if fam == 4 else NHS6
    default_pcap(tmp_path / "in0.pcap", fam)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,infinite_rx=1,tx_pcap={tmp_path}/out0.pcap "
            f"{{ name port0 mac-address {MAC0} }}"]
    devs += [f"net_pcap{p},rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out{p}.pcap "
             f"{{ name port{p} mac-address 02:00:00:00:00:1{p} }}" for p in range(1, 5)]
    s = sluiced_factory(devs, setup([(n, None) for n in nhs], fam=fam))
    s.wait_rx("port0", 40_000)
    s.cli(f"ip route del {PFX[fam]} via {nhs[1][1]} port2")
    after = s.iface("port0")["rx-packets"]
    s.wait_rx("port0", after + 40_000)
    s.cli("set interface state port0 down")  # port-rx stops taking frames from it
    time.sleep(0.5)
    if fam == 6:  # a report sent while the counters are read would be counted apart
        s.mld_settled(*(f"port{p}" for p in range(1, 5)))
    rx = s.iface("port0")["rx-packets"]
    tx = {p: s.iface(f"port{p}")["tx-packets"] - s.mld_sent(f"port{p}") for p in range(1, 5)}
    errs = s.errors()
    if fam == 6:
        # an MLD report of port0's, queued by the main lcore's timer just before port0 went
        # down, is dropped at port-tx as sent to a down interface (seen once in CI); port0
        # is the only interface down and no data packet goes to it
        down = errs.pop(("port-tx", "interface down"), 0)
        assert down <= s.mld_sent("port0"), (down, s.mld_sent("port0"))
    assert errs == {}
    assert rx == sum(tx.values()), (rx, tx)  # nothing lost, in flight or not
    assert s.stop() == 0
    seen = {}  # flow -> the ports it left by
    for p in range(1, 5):
        recs = pcap_records(tmp_path / f"out{p}.pcap", fam)
        assert len(recs) == tx[p]
        last = {}
        for f, k in recs:  # the replay numbers each flow's packets 0..3 again and again
            assert last.get(f, k - 1) % PER_FLOW == (k - 1) % PER_FLOW, f"flow {f} out of order on port{p}"
            last[f] = k
            seen.setdefault(f, set()).add(p)
    assert len(seen) == FLOWS
    moved = [f for f, ports in seen.items() if 2 in ports]
    for f, ports in seen.items():
        assert len(ports) == (2 if f in moved else 1), f"flow {f} left by ports {sorted(ports)}"
    assert abs(len(moved) - FLOWS / 4) <= 0.15 * FLOWS / 4


def test_path_commands_with_count_all_or_nothing(sluiced_factory, tmp_path):
    """ip route add/del ... count N with paths: a failure at one prefix leaves every prefix as
    it was (a path added before it deleted, a weight set back); del via is checked first."""
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap{p},rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/o{p}.pcap "
            f"{{ name port{p} mac-address 02:00:00:00:00:1{p} }}" for p in range(5)]
    s = sluiced_factory(devs, setup([], ["ip route add 48.0.0.0/16 via 10.10.2.1"] +
                                    [f"ip route add 48.1.0.0/16 via 10.10.2.{100 + i}" for i in range(64)]))

    def paths():
        return {p: sorted((r["next-hop"], r["weight"]) for r in s.js(f"show ip fib {p}")["routes"])
                for p in ("48.0.0.0/16", "48.1.0.0/16")}
    before = paths()
    assert before["48.0.0.0/16"] == [("10.10.2.1", 1)] and len(before["48.1.0.0/16"]) == 64
    # a new path on 48.0/16, then 48.1/16 refuses a 65th: 48.0/16 loses the path again
    s.check_refused({"ip route add count 2 48.0.0.0/16 via 10.10.3.1 port2": "64 paths already"})
    assert paths() == before
    # a weight on 48.0/16's path, then the same refusal: the weight goes back to 1
    s.check_refused({"ip route add count 2 48.0.0.0/16 via 10.10.2.1 weight 7": "64 paths already"})
    assert paths() == before
    # 48.1/16 has no path via 10.10.2.1: nothing deleted from 48.0/16
    s.check_refused({"ip route del count 2 48.0.0.0/16 via 10.10.2.1": "48.1.0.0/16: not found"})
    assert paths() == before
    assert s.stop() == 0


RSS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                        "6a42b73bbeac01fa")


def toeplitz(data, key=RSS_KEY):
    k, bits, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (bits - 32 - (8 * i + b))) & 0xFFFFFFFF
    return h


@pytest.mark.parametrize("fam", [4, 6])
def test_ecmp_follows_the_ports_rss_hash(sluiced_factory, tmp_path, fam):
    """pg0 gives each frame the RSS hash (Toeplitz, as a NIC does): the path is the bucket of
    that hash, not of one computed here. Flows whose Toeplitz hashes share their low byte (the
    bucket) all take one path, each flow's packets on one path and in order, the 4 paths
    evenly loaded."""
    nhs = [(f"10.10.2.{i}" if fam == 4 else f"2001:db8:2::{i}", f"42:00:00:00:00:0{i}")
           for i in range(1, 5)]
    npkts = default_pcap(tmp_path / "in.pcap", fam)
    lines = [f"create packet-generator interface pg0 mac-address {MAC0} rss",
             f"create packet-generator interface pg1 pcap {tmp_path}/pg1.pcap",
             "set interface ip address pg0 " + ("10.10.1.10/24" if fam == 4 else "2001:db8:1::10/64"),
             "set interface ip address pg1 " + ("10.10.2.10/24" if fam == 4 else "2001:db8:2::10/64"),
             "set interface state pg0 up", "set interface state pg1 up"]
    lines += [f"ip neighbor pg1 {nh} {mac}" for nh, mac in nhs]
    lines += [f"ip route add {PFX[fam]} via {nh}" for nh, _ in nhs]
    lines.append(f"packet-generator new {{ name p limit {npkts} interface pg0 pcap {tmp_path}/in.pcap }}")
    s = sluiced_factory([], lines)
    s.cli("packet-generator enable-stream p")
    deadline = time.time() + 20
    while s.js("show interface pg1")["interfaces"][0]["tx-packets"] < npkts:
        assert time.time() < deadline, s.cli("show errors")
        time.sleep(0.05)
    assert s.stop() == 0
    path = {bytes.fromhex(mac.replace(":", "")): i for i, (_, mac) in enumerate(nhs)}
    where, seen, bucket_path = {}, {}, {}
    # the frames read with struct: source and destination addresses, then the ports, are
    # what Toeplitz hashes (IPv4 bytes 26-37, IPv6 22-57), the flow and k after the UDP header
    addr, l4 = (26, 34) if fam == 4 else (22, 54)
    for fr in pcap_frames(tmp_path / "pg1.pcap"):  # (not MLD)
        assert fr[23 if fam == 4 else 20] == 17
        f, k = struct.unpack_from("!HH", fr, l4 + 8)
        p = path[fr[:6]]
        assert where.setdefault(f, p) == p, f"flow {f} on two paths"
        assert seen.get(f, -1) == k - 1, f"flow {f} out of order"
        seen[f] = k
        h = toeplitz(fr[addr:l4 + 4])
        assert bucket_path.setdefault(h & 255, p) == p, f"bucket {h & 255} on two paths"
    assert len(where) == FLOWS and sorted(seen.values()) == [PER_FLOW - 1] * FLOWS
    assert len(bucket_path) > 200  # most of the 256 buckets seen, several flows each
    flows = [sum(1 for p in where.values() if p == q) for q in range(4)]
    assert all(abs(f - FLOWS / 4) <= 0.15 * FLOWS / 4 for f in flows), flows


# set ip flow-hash: what the ECMP hash of a table takes (VPP's fields), over the 4 equal paths


def fh_pkt(src, dst, sport, dport, f, k, fam, label=0):
    l3 = (IP(src=src, dst=dst) if fam == 4 else IPv6(src=src, dst=dst, fl=label))
    return (Ether(dst=MAC0, src=PEER0) / l3 / UDP(sport=sport, dport=dport)
            / Raw(struct.pack("!HH", f, k) + b"x" * 14))


def four_paths(fam, extra=()):
    return setup([(n, None) for n in (NHS if fam == 4 else NHS6)], extra, fam=fam)


def spread(where):
    return [sum(1 for p in where.values() if p == q) for q in range(1, 5)]


@pytest.mark.parametrize("fam", [4, 6])
def test_flow_hash_source_only(sluiced_factory, tmp_path, fam):
    """`src` alone: every packet from one source takes one path, whatever its destination,
    ports (and IPv6 flow label); 16 sources use every path; show ip table says so."""
    ip = "ip" if fam == 4 else "ip6"
    pkts, k = [], {}
    for i in range(FLOWS):
        src = f"16.0.0.{i % 16}" if fam == 4 else f"2001:db8:16::{i % 16:x}"
        dst = f"48.1.{i >> 8}.{i & 255}" if fam == 4 else f"2001:db8:48::{i:x}"
        k[i % 16] = k.get(i % 16, -1) + 1
        pkts.append(fh_pkt(src, dst, 1024 + i, 5000 + i, i % 16, k[i % 16], fam, label=i))
    tables = {}
    where, _, _ = run(sluiced_factory, tmp_path, four_paths(fam, [f"set {ip} flow-hash table 0 src"]),
                      fam=fam, pkts=pkts, flows=16,
                      also=lambda s: tables.update(s.js("show ip table")["tables"][0]))
    assert all(n > 0 for n in spread(where)), spread(where)  # every path has some sources
    assert tables["flow-hash" if fam == 4 else "flow-hash6"] == "src"
    assert tables["flow-hash6" if fam == 4 else "flow-hash"] == "src dst sport dport proto"


def test_flow_hash6_label(sluiced_factory, tmp_path):
    """IPv6's flow label: not in the default hash (VPP's 5-tuple), so one 5-tuple whose
    label changes from packet to packet stays one flow on one path, in order; with
    `flowlabel` set, labels alone (one 5-tuple) spread over the 4 paths, each label one
    flow on one path, and show ip table says so."""
    a, b = "2001:db8:16::1", "2001:db8:48::1"
    pkts = [fh_pkt(a, b, 1024, 5000, 0, k, 6, label=k + 1) for k in range(200)]
    where, counts, _ = run(sluiced_factory, sub(tmp_path, "plain"), four_paths(6), fam=6,
                           pkts=pkts, flows=1)
    assert sorted(counts.values()) == [0, 0, 0, 200], counts
    pkts = [fh_pkt(a, b, 1024, 5000, i, 0, 6, label=i + 1) for i in range(FLOWS)]
    tables = {}
    where, _, _ = run(sluiced_factory, sub(tmp_path, "label"),
                      four_paths(6, ["set ip6 flow-hash table 0 src dst sport dport proto flowlabel"]),
                      fam=6, pkts=pkts, also=lambda s: tables.update(s.js("show ip table")["tables"][0]))
    assert all(abs(n - FLOWS / 4) <= 0.15 * FLOWS / 4 for n in spread(where)), spread(where)
    assert tables["flow-hash6"] == "src dst sport dport proto flowlabel"


@pytest.mark.parametrize("fam", [4, 6])
def test_flow_hash_symmetric(sluiced_factory, tmp_path, fam):
    """500 conversations, both directions routed over the paths: with `symmetric` each
    conversation's two directions take one path (run() checks it: they share a flow number),
    spread over the 4 paths; with the default most take two."""
    ip = "ip" if fam == 4 else "ip6"
    pairs = FLOWS // 2

    def addr(side, i):
        return f"48.{side}.{i >> 8}.{i & 255}" if fam == 4 else f"2001:db8:48::{side}:{i:x}"

    def conv(back):
        """Each conversation's packets (k 0-1) one way, then the other way's numbered back + i
        (k 0-1), or, back None, with the same number (k 2-3): order is checked per number."""
        fwd = [fh_pkt(addr(1, i), addr(2, i), 1024 + i, 5000 + i, i, k, fam)
               for k in (0, 1) for i in range(pairs)]
        return fwd + [fh_pkt(addr(2, i), addr(1, i), 5000 + i, 1024 + i,
                             i if back is None else back + i, k if back is None else k - 2, fam)
                      for k in (2, 3) for i in range(pairs)]
    pkts = conv(None)
    where, _, _ = run(sluiced_factory, sub(tmp_path, "sym"),
                      four_paths(fam, [f"set {ip} flow-hash table 0 src dst sport dport proto symmetric"]),
                      fam=fam, pkts=pkts, flows=pairs)
    assert all(n >= pairs // 8 for n in spread(where)), spread(where)
    where, _, _ = run(sluiced_factory, sub(tmp_path, "plain"), four_paths(fam), fam=fam,
                      pkts=conv(pairs), flows=2 * pairs)
    apart = sum(1 for i in range(pairs) if where[i] != where[pairs + i])
    assert apart > pairs // 2, apart


def test_flow_hash_router_id(sluiced_factory, tmp_path):
    """A router id re-deals the flows: most move, each still on one path in order, the split
    still even; show ip table has it (0 giving the plain hash back: tests/unit/test_lb.c)."""
    plain, _, _ = run(sluiced_factory, sub(tmp_path, "a"), four_paths(4))
    tables = {}
    seeded, _, _ = run(sluiced_factory, sub(tmp_path, "b"), four_paths(4, ["set ip flow-hash router-id 77"]),
                       also=lambda s: tables.update(s.js("show ip table")["tables"][0]))
    assert tables["router-id"] == 77
    assert all(abs(n - FLOWS / 4) <= 0.15 * FLOWS / 4 for n in spread(seeded)), spread(seeded)
    moved = sum(1 for f in plain if plain[f] != seeded[f])
    assert moved > FLOWS // 2, moved


def test_flow_hash_refused_clearly(sluiced_factory, tmp_path):
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    devs = [f"net_pcap0,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/o0.pcap {{ name port0 }}"]
    s = sluiced_factory(devs, ["ip table add 5", "set ip flow-hash table 5 src dst"])
    s.check_refused({
        "set ip flow-hash table 0 src color": "unknown field 'color'",
        "set ip flow-hash table 0 src flowlabel": "flowlabel: IPv6 only",
        "set ip flow-hash table 0 symmetric": "at least one field",
        "set ip flow-hash": "at least one field",
        "set ip6 flow-hash table 0 reverse": "at least one field",
        "set ip flow-hash table 9 src": "table 9 does not exist",
        "set ip flow-hash router-id x": "router-id",
        "set ip flow-hash router-id": "usage: set ip flow-hash router-id",
    })
    t = {r["table"]: r for r in s.js("show ip table")["tables"]}  # nothing changed
    assert (t[0]["flow-hash"], t[5]["flow-hash"], t[0]["router-id"]) == (
        "src dst sport dport proto", "src dst", 0)
    # a table deleted and made again starts from the defaults
    s.cli("ip table del 5")
    s.cli("ip table add 5")
    t = {r["table"]: r for r in s.js("show ip table")["tables"]}
    assert t[5]["flow-hash"] == "src dst sport dport proto"
    assert s.stop() == 0
