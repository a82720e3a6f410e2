# SPDX-License-Identifier: BSD-3-Clause
"""sluice-gen: streams in the packet-generator grammar are exactly what they say (fields,
ranges, IMIX sizes, valid checksums, signatures); latency through a memif loop is sane."""
import json
import os
import signal
import struct
import subprocess
from collections import Counter

from scapy.all import IP, UDP, Ether, raw, rdpcap

from conftest import BUILD, release_only, timing

GEN = str(BUILD / "sluice-gen")


def gen(eal, args, timeout=60):
    r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "256", "--file-prefix", f"gen-test-{os.getpid()}",
                        "--log-level", "4"] + eal + ["--"] + args + ["--json"],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return json.loads([line for line in r.stdout.splitlines() if line.startswith("{")][0])


def test_stream_fields_imix_checksums_signatures(tmp_path):
    pcap = tmp_path / "out.pcap"
    g = gen(["--vdev", f"net_pcap0,tx_pcap={pcap}", "--vdev", "net_null0,no-rx=1"],
            ["--tx-port", "0", "--rx-port", "1", "--count", "12000", "--duration", "20", "--stream",
             "size imix data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
             "UDP: 16.0.0.1 - 16.0.0.100 -> 48.0.0.1 - 48.0.3.232 UDP: 2123 -> 10000-10999 }"])
    assert g["sent"] == 12000
    pkts = rdpcap(str(pcap))
    assert len(pkts) == 12000
    # IMIX 7:4:1 of 64, 570 and 1518-byte frames (60, 566, 1514 without the FCS), exactly
    assert Counter(len(p) for p in pkts) == {60: 7000, 566: 4000, 1514: 1000}
    for i, p in enumerate(pkts):
        assert p[Ether].src == "02:00:00:00:00:01" and p[Ether].dst == "02:00:00:00:00:02"
        assert p[IP].src == f"16.0.0.{1 + i % 100}"
        d = 0x30000001 + i % 1000
        assert p[IP].dst == f"48.{d >> 16 & 255}.{d >> 8 & 255}.{d & 255}"
        assert p[UDP].sport == 2123 and p[UDP].dport == 10000 + i % 1000
        sig, seq = struct.unpack_from("<I6s", raw(p[UDP].payload))
        assert sig == 0x5ee01000 and int.from_bytes(seq, "little") == i  # run 1, lane 0, stream 0
        if i % 97 == 0:  # checksums as scapy computes them
            for layer in (IP, UDP):
                q = Ether(raw(p))
                c = q[layer].chksum
                del q[layer].chksum
                assert Ether(raw(q))[layer].chksum == c


def test_bad_streams_are_refused():
    r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "128", "--file-prefix", f"gen-bad-{os.getpid()}",
                        "--log-level", "4", "--vdev", "net_null0,no-rx=1", "--", "--stream",
                        "size 20 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
                        "UDP: 1.1.1.1 -> 2.2.2.2 }"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "size 20 is below the headers (34 bytes)" in r.stderr
    # neither --stream nor --dst-mac: the refusal says what is missing
    r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "128", "--file-prefix", f"gen-bad-{os.getpid()}",
                        "--log-level", "4", "--vdev", "net_null0,no-rx=1", "--"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "nothing to send: give --stream" in r.stderr and "--dst-mac" in r.stderr
    for bad in ("x", "-1", "60001"):
        r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "128", "--file-prefix", f"gen-bad-{os.getpid()}",
                            "--log-level", "4", "--vdev", "net_null0,no-rx=1", "--", "--drain-ms", bad],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and f"--drain-ms takes milliseconds from 0 to 60000, not '{bad}'" in r.stderr


def test_memif_loop_no_loss_and_sane_latency(tmp_path):
    sock = tmp_path / "loop.sock"
    g = gen(["--vdev", f"net_memif0,role=server,id=0,socket={sock}",
             "--vdev", f"net_memif1,role=client,id=0,socket={sock}"],
            ["--tx-port", "0", "--rx-port", "1", "--rate", "100000", "--duration", "1",
             "--dst-mac", "02:00:00:00:00:02"])
    assert g["lost"] == 0 and g["out_of_order"] == 0 and g["signed"] == g["sent"] > 90000
    lat = g["latency_us"]
    assert 0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99.9"] <= lat["max"] * 1.1
    assert lat["p50"] < 1000  # a memif loop in one process: microseconds, not milliseconds
    assert 0 <= g["jitter_us"] < lat["max"]
    assert 0 < g["lanes_busy_pct"][0] < 50 and g["busy_cycles_per_packet"] > 0  # paced: mostly idle


def test_receiver_counts_loss_reordering_duplicates_exactly(tmp_path):
    """A 'DUT' made of pcap files: 1000 signed packets, every 10th dropped, 50 pairs
    swapped, 20 duplicated, 5 unsigned frames added; the receiver must say exactly that."""
    spec = ("size 64 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
            "UDP: 10.0.0.1 -> 10.0.0.2 UDP: 1 -> 2 }")
    sent = tmp_path / "sent.pcap"
    gen(["--vdev", f"net_pcap0,tx_pcap={sent}", "--vdev", "net_null0,no-rx=1"],
        ["--tx-port", "0", "--rx-port", "1", "--count", "1000", "--duration", "5", "--stream", spec])
    pkts = list(rdpcap(str(sent)))
    assert len(pkts) == 1000
    out = []
    i = 0
    while i < 1000:
        if i % 20 == 0:                       # i+1 before i: one packet late
            out += [pkts[i + 1], pkts[i]]
            i += 2
            continue
        if i % 10 != 9:                       # every 10th lost
            out.append(pkts[i])
            if i % 50 == 25:                  # some twice
                out.append(pkts[i])
        i += 1
    out += [Ether(src="02:00:00:00:00:09", dst="ff:ff:ff:ff:ff:ff") / IP() / UDP()] * 5
    from scapy.all import wrpcap
    wrpcap(str(tmp_path / "dut.pcap"), out)
    g = gen(["--vdev", "net_null0,no-rx=1", "--vdev", f"net_pcap0,rx_pcap={tmp_path}/dut.pcap"],
            ["--tx-port", "0", "--rx-port", "1", "--count", "1000", "--duration", "1", "--stream", spec])
    assert (g["sent"], g["received"], g["signed"], g["unsigned"]) == (1000, 925, 920, 5)
    assert (g["lost"], g["out_of_order"], g["duplicates"]) == (100, 50, 20)


def test_several_streams_take_turns_and_count_apart(tmp_path):
    """Two streams to different prefixes: bursts of 32 in turn, each signed with its id;
    through a memif loop each stream's counts are its own."""
    s0 = "size 64 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 10.0.0.1 -> 48.0.0.1 UDP: 1 -> 2 }"
    s1 = "size 128 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 10.0.0.1 -> 49.0.0.1 - 49.0.0.4 UDP: 3 -> 4 }"
    pcap = tmp_path / "two.pcap"
    gen(["--vdev", f"net_pcap0,tx_pcap={pcap}", "--vdev", "net_null0,no-rx=1"],
        ["--tx-port", "0", "--rx-port", "1", "--count", "256", "--duration", "5",
         "--stream", s0, "--stream", s1])
    pkts = rdpcap(str(pcap))
    assert len(pkts) == 256
    for i, p in enumerate(pkts):
        k, n = (i // 32) % 2, (i // 64) * 32 + i % 32   # stream, and its own sequence number
        sig, seq = struct.unpack_from("<I6s", raw(p[UDP].payload))
        assert sig == 0x5ee01000 + k and int.from_bytes(seq, "little") == n
        assert len(p) == (64 if k == 0 else 128)
        assert p[IP].dst == ("48.0.0.1" if k == 0 else f"49.0.0.{1 + n % 4}")
    sock = tmp_path / "loop.sock"
    g = gen(["--vdev", f"net_memif0,role=server,id=0,socket={sock}",
             "--vdev", f"net_memif1,role=client,id=0,socket={sock}"],
            ["--tx-port", "0", "--rx-port", "1", "--rate", "50000", "--duration", "1",
             "--stream", s0, "--stream", s1])
    assert [st["stream"] for st in g["streams"]] == [0, 1]
    assert sum(st["sent"] for st in g["streams"]) == g["sent"]
    for st in g["streams"]:
        assert st["sent"] > 20000 and st["lost"] == 0 and st["duplicates"] == 0
        assert 0 < st["latency_us"]["p50"] < 1000


@release_only  # the sanitizer build fell 1.8% short of 1 Mpps, its lane under 90% busy
def test_offered_rate_within_one_percent_and_impossible_rates_refused():
    eal = ["--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1"]
    for rate in (200000, 1000000):
        g = gen(eal, ["--rate", str(rate), "--duration", "1", "--dst-mac", "02:00:00:00:00:01"])
        # never above the rate; below it only when the lane had no time left (a shared
        # machine, a sanitizer build): then the generator's busy share says so
        assert g["sent"] / g["seconds"] <= 1.01 * rate, g
        if max(g["lanes_busy_pct"]) < 90:
            assert g["sent"] / g["seconds"] >= 0.99 * rate, g
    # net_null's link is 10 Gb/s: 1 Mpps of 1518-byte frames is 12.3 Gb/s
    r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "128", "--file-prefix",
                        f"gen-fast-{os.getpid()}", "--log-level", "4"] + eal +
                       ["--", "--rate", "1000000", "--size", "1518", "--duration", "1",
                        "--dst-mac", "02:00:00:00:00:01"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "above the port's 10000 Mb/s" in r.stderr


def test_random_fields_and_prefixes(tmp_path):
    """'49.0.0.0/8 random' and a random port range: every value inside, many different ones,
    and the same packets again for the same sequence numbers."""
    spec = ("size 64 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
            "UDP: 16.0.0.0/30 -> 49.0.0.0/8 random UDP: 2123 -> 10000-50000 random }")
    outs = []
    for run in range(2):
        pcap = tmp_path / f"r{run}.pcap"
        g = gen(["--vdev", f"net_pcap0,tx_pcap={pcap}", "--vdev", "net_null0,no-rx=1"],
                ["--count", "4000", "--stream", spec])
        assert g["sent"] == 4000
        outs.append(rdpcap(str(pcap)))
    pkts = outs[0]
    dsts = [p[IP].dst for p in pkts]
    assert all(d.startswith("49.") for d in dsts) and len(set(dsts)) > 3990
    assert {int(d.split(".")[1]) for d in dsts} == set(range(256))    # spread over the /8
    ports = [p[UDP].dport for p in pkts]
    assert all(10000 <= x <= 50000 for x in ports) and len(set(ports)) > 3500
    assert [p[IP].src for p in pkts[:8]] == ["16.0.0.0", "16.0.0.1", "16.0.0.2", "16.0.0.3"] * 2
    assert [raw(p[IP])[:20] for p in pkts] == [raw(p[IP])[:20] for p in outs[1]]  # deterministic
    for p in pkts[::500]:
        q = Ether(raw(p))
        c = q[UDP].chksum
        del q[UDP].chksum
        assert Ether(raw(q))[UDP].chksum == c


def test_bidirectional_two_lanes_exact_counts(tmp_path):
    """--bidir over a memif pair with two lanes (two worker lcores, a queue each): each way's
    stream is counted apart, the count is exact, nothing lost or reordered."""
    sock = tmp_path / "bi.sock"
    g = gen(["--lcores", "0@0,1@1,2@0", "-m", "512",
             "--vdev", f"net_memif0,role=server,id=0,socket={sock}",
             "--vdev", f"net_memif1,role=client,id=0,socket={sock}"],
            ["--bidir", "--count", "100001", "--rate", "200000", "--duration", "10",
             "--stream", "size 100 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
                         "UDP: 16.0.0.1 -> 48.0.0.0/24 UDP: 1 -> 2 }"])
    assert g["lanes"] == 2 and len(g["lanes_busy_pct"]) == 2 and g["sent"] == 100001 and g["lost"] == 0 and g["out_of_order"] == 0
    assert [(s["stream"], s["port"]) for s in g["streams"]] == [(0, 0), (1, 1)]
    for s in g["streams"]:
        assert s["lost"] == 0 and s["duplicates"] == 0 and abs(s["sent"] - 50000) <= 32
        assert s["received"] == s["sent"] and s["sent_bytes"] == s["signed_bytes"] == 100 * s["sent"]
    p0, p1 = g["ports"]
    # what port 0 sent arrives on port 1 and the other way round
    assert (p0["sent"], p1["sent"]) == (p1["signed"], p0["signed"])
    assert p0["sent"] + p1["sent"] == g["signed"] == 100001


def test_rate_in_percent_of_line_rate():
    """net_null says 10 Gb/s: 1% of it in 64-byte frames is 14,880.95 packets/s per point."""
    g = gen(["--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1"],
            ["--rate", "1%", "--duration", "1", "--dst-mac", "02:00:00:00:00:01"])
    want = 10e9 / (84 * 8) / 100
    assert abs(g["rate_pps"] - want) < 1 and abs(g["sent"] / g["seconds"] - want) <= 0.01 * want, g
    assert "p99.99" in g["latency_us"]
    # as fast as it can: every turn of the lane's loop sends, so it is busy all the time
    g = gen(["--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1"],
            ["--duration", "0.5", "--dst-mac", "02:00:00:00:00:01"])
    assert g["lanes_busy_pct"][0] > 95 and g["rate_pps"] == 0
    r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "128", "--file-prefix", f"gen-pct-{os.getpid()}",
                        "--log-level", "4", "--vdev", "net_null0,no-rx=1", "--", "--rx-port", "0",
                        "--rate", "120%", "--dst-mac", "02:00:00:00:00:01"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "at most 100" in r.stderr


@timing
def test_control_socket(tmp_path):
    """The JSON control socket: start, stats while running, update the rate, wait, stop, clear
    errors for bad requests, and a later run that does not count the earlier one's packets;
    each run's drain time (--drain-ms, or the start request's drain_ms) in its report."""
    import socket
    import time
    sock, ctl = tmp_path / "c.sock", tmp_path / "gen.ctl"
    p = subprocess.Popen([GEN, "--no-huge", "--no-pci", "-m", "256", "--file-prefix", f"gen-ctl-{os.getpid()}",
                          "--log-level", "4", "--vdev", f"net_memif0,role=server,id=0,socket={sock}",
                          "--vdev", f"net_memif1,role=client,id=0,socket={sock}", "--",
                          "--dst-mac", "02:00:00:00:00:02", "--control", str(ctl), "--drain-ms", "200"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        s = socket.socket(socket.AF_UNIX)
        for attempt in range(200):  # the file appears at bind(), before listen()
            try:
                s.connect(str(ctl))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                assert attempt < 199 and p.poll() is None, "sluice-gen's control socket never listened"
                time.sleep(0.1)
        f = s.makefile("rw")

        def req(o):
            f.write((o if isinstance(o, str) else json.dumps(o)) + "\n")
            f.flush()
            return json.loads(f.readline())

        assert req({"cmd": "stats"})["state"] == "idle"
        assert req({"cmd": "start", "rate": 100000, "duration": 1.5}) == {"ok": True, "run": 1, "rate_pps": 100000}
        assert req({"cmd": "start", "rate": 1}) == {"ok": False, "error": "a run is under way: stop it first"}
        time.sleep(0.5)
        live = req({"cmd": "stats"})
        assert live["state"] == "running" and 20000 < live["sent"] < 100000
        assert req({"cmd": "update", "rate": 200000}) == {"ok": True, "rate_pps": 200000}
        w = req({"cmd": "wait"})
        assert w["state"] == "idle" and w["lost"] == 0 and abs(w["seconds"] - 1.5) < 0.01
        assert w["drain_ms"] == 200
        assert 200000 < w["sent"] < 300000          # about 0.5 s at 100k, then 1 s at 200k
        r = req({"cmd": "start", "count": 7000, "drain_ms": 20})
        assert r["ok"] and r["run"] == 2
        w = req({"cmd": "wait"})
        assert (w["sent"], w["signed"], w["lost"], w["run"], w["drain_ms"]) == (7000, 7000, 0, 2, 20)
        assert req({"cmd": "start", "rate": 50000, "duration": 100})["ok"]
        time.sleep(0.3)
        assert req({"cmd": "stop"}) == {"ok": True}
        w = req({"cmd": "stats"})
        assert w["state"] == "idle" and w["seconds"] < 1 and w["lost"] == 0 and w["sent"] > 5000
        # a lane held up (here the whole process, stopped for 0.3 s) sends its bursts late,
        # then back to back: the report says how late the latest one left, and when into the
        # run it was due
        assert req({"cmd": "start", "rate": 50000, "duration": 1})["ok"]
        time.sleep(0.2)
        os.kill(p.pid, signal.SIGSTOP)
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGCONT)
        w = req({"cmd": "wait"})
        assert w["run"] == 4 and w["lost"] == 0 and 250000 <= w["tx_late_max_us"] < 1000000, w
        assert 150 <= w["tx_late_at_ms"] <= 450, w  # that burst was due when the stop came
        for bad, why in [('{"cmd": "bogus"}', 'unknown cmd "bogus"'), ('{"cmd": start}', "must be a string"),
                         ("nonsense", "one JSON object"), ('{"cmd": "update", "rate": 5}', "no run"),
                         ('{"cmd": "start", "rate": 1, "percent": 1}', "not both"),
                         ('{"cmd": "start", "rate": 1e12}', "above the port's"),
                         ('{"cmd": "start", "duration": -1}', "0 or more")] + [
                            (json.dumps({"cmd": "start", "drain_ms": d}), "must be a whole number from 0 to 60000")
                            for d in (-1, 1.5, 60001, "x")]:
            a = req(bad)
            assert a["ok"] is False and why in a["error"], (bad, a)
        assert req({"cmd": "stats"})["run"] == 4      # refused requests changed nothing
        assert req({"cmd": "quit"}) == {"ok": True}
        assert p.wait(timeout=10) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_txd_sets_the_vhost_receivers_ring(tmp_path):
    """--txd N: over virtio-user the generator's TX queue is the vhost-user receiver's ring, and
    the queue uses no more than N descriptors whatever its queue_size. Into a sluiced vhost-user
    port whose process is stopped, a run takes what the ring holds and the rest is refused:
    1,024 frames with the default, 4,096 with --txd 4096 (queue_size=4096 both times).
    Bad values are refused."""
    import sys
    import pytest
    from conftest import ROOT, Sluiced, hugepages_free_mb
    for bad in ("32", "40000", "x"):
        r = subprocess.run([GEN, "--no-huge", "--no-pci", "-m", "128", "--file-prefix", f"gen-bad-{os.getpid()}",
                            "--log-level", "4", "--vdev", "net_null0,no-rx=1", "--", "--txd", bad],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and f"bad --txd '{bad}' (64-32768)" in r.stderr
    if hugepages_free_mb() < 1400:
        pytest.skip("virtio-user shares the generator's memory by hugepage files")
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT / "scripts"))
    from sluice_bench.gen import GenSession
    taken = {}
    for txd in (None, 4096):
        sub = tmp_path / f"txd-{txd}"
        sub.mkdir()
        vs = sub / "vhost.sock"
        d = Sluiced(sub, [f"net_vhost0,iface={vs},queues=1"], ["set interface state port0 up"]).start()
        try:
            with GenSession(vs, None, sub, vdevs=[f"net_virtio_user0,path={vs},queues=1,queue_size=4096",
                                                 "net_null0,no-rx=1"],
                            gen_args=["--txd", str(txd)] if txd else []) as g:
                os.kill(d.proc.pid, signal.SIGSTOP)  # the ring is no longer drained
                try:
                    r = g.run(200000, 0.5)
                finally:
                    os.kill(d.proc.pid, signal.SIGCONT)
            assert r["sent"] + r["tx_full"] >= 90000  # offered about 0.5 s at 200,000/s
            taken[txd] = r["sent"]
        finally:
            d.stop()
    assert taken == {None: 1024, 4096: 4096}
