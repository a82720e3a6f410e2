# SPDX-License-Identifier: BSD-3-Clause
"""Control plane end to end: bad config lines, bad CLI commands, and route churn under
traffic with no crash, no buffer leak and no packet to a wrong next hop."""
import os
import subprocess
import time
from pathlib import Path

from scapy.all import IP, UDP, Ether, Raw, wrpcap

from conftest import MAC0, MAC1, PEER0, SLUICED, Sluiced


def test_bad_config_names_file_and_line(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("unix { cli-listen /tmp/x.sock }\ncpu {\n  workers two\n}\n")
    r = subprocess.run([str(SLUICED), str(conf)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert f"{conf}:3: 'workers' wants a number from 0 to 31, not 'two'" in r.stderr


def test_bad_exec_line_stops_startup(tmp_path):
    s = Sluiced(tmp_path, ["net_null0,no-rx=1 { name port0 }"], ["set interface state port0 up",
                                                         "ip route add 48.0.0.0/8 via"])
    r = subprocess.run([str(SLUICED), str(s.conf)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert f"{s.setup}:2: command failed" in r.stderr
    assert "usage: ip route add" in r.stderr


def test_bad_cli_changes_nothing(sluiced_factory):
    s = sluiced_factory(["net_null0,no-rx=1 { name port0 }", "net_null1,no-rx=1 { name port1 }"],
                        ["set interface ip address port0 10.10.1.10/24"])
    before = s.js("show ip fib")
    bad = {
        "ip route add 48.0.0.0/33 via 10.10.1.1": "'48.0.0.0/33' is not a prefix",
        "ip route add 48.0.0.0/8 via 10.10.9.1": "not on a connected subnet",
        "ip route add 48.0.0.0/8 via 10.10.1.1 port9": "unknown interface 'port9'",
        "ip route del 47.0.0.0/8": "47.0.0.0/8: not found",
        "set interface ip address port7 1.2.3.4/24": "unknown interface 'port7'",
        "set interface ip address port0 10.10.1.10/24": "already exists",
        "set interface state port0 sideways": "usage: set interface state IFACE up|down",
        "set interface mtu 20 port0": "MTU must be a number from 68 to 9000",
        "ip neighbor port0 10.10.1.1 zz:01:0a:0a:02:01": "is not a MAC address",
        "show ip": "incomplete command",
        "frobnicate": "unknown command 'frobnicate'",
    }
    s.check_refused(bad)
    assert s.js("show ip fib") == before
    r = s.cli_raw("help ip route")
    assert r.returncode == 0 and "ip route add" in r.stdout and "ip route del" in r.stdout


def test_route_churn_under_traffic(tmp_path, sluiced_factory):
    """100,000 route adds and deletes of /25s (each allocates and frees a tbl8 group) while
    traffic to the other half of the same /24s flows: every packet must leave by port1, the
    /8's next hop, never by port2, the churned routes' next hop; buffers all come back."""
    n24 = 25000
    pkts = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst=f"49.{(i * 97 % n24) >> 8}.{(i * 97 % n24) & 255}.1") /
            UDP(sport=1, dport=2) / Raw(b"\0" * 18) for i in range(512)]
    wrpcap(str(tmp_path / "loop.pcap"), pkts, linktype=1)
    add = tmp_path / "add.cli"
    dele = tmp_path / "del.cli"
    add.write_text("".join(f"ip route add 49.{i >> 8}.{i & 255}.128/25 via 10.10.3.2\n" for i in range(n24)))
    dele.write_text("".join(f"ip route del 49.{i >> 8}.{i & 255}.128/25\n" for i in range(n24)))
    devs = [f"net_pcap0,rx_pcap={tmp_path}/loop.pcap,infinite_rx=1 {{ name port0 mac-address {MAC0} }}",
            "net_null0,no-rx=1 { name port1 }", "net_null1,no-rx=1 { name port2 }"]
    s = sluiced_factory(devs, [
        "set interface ip address port0 10.10.1.10/24",
        "set interface ip address port1 10.10.2.10/24",
        "set interface ip address port2 10.10.3.10/24",
        "ip neighbor port1 10.10.2.1 42:01:0a:0a:02:01",
        "ip neighbor port2 10.10.3.2 42:01:0a:0a:03:02",
        "ip route add 49.0.0.0/8 via 10.10.2.1",
        "set interface state port1 up", "set interface state port2 up",
    ], extra="ip4 { max-routes 262144 tbl8s 32768 }\ncpu { workers 1 }\n")
    base = s.js("show buffers")["buffers"][0]["in-use"]
    s.cli("set interface state port0 up")
    rx0 = s.iface("port0")["rx-packets"]
    t0 = time.time()
    for _ in range(2):
        s.cli(f"exec {add}")
        s.cli(f"exec {dele}")
    churn_s = time.time() - t0
    rx1 = s.iface("port0")["rx-packets"]
    s.cli("set interface state port0 down")
    time.sleep(0.5)
    p0, p1, p2 = (s.iface(n) for n in ("port0", "port1", "port2"))
    assert rx1 - rx0 > 10000, "traffic did not flow during the churn"
    assert p2["tx-packets"] == 0, "a packet went to the churned routes' next hop"
    errs = s.errors()
    assert p1["tx-packets"] + p1["tx-error"] == p0["rx-packets"], (p0, p1, errs)
    assert not any(node == "ip4-lookup" for node, _ in errs), errs
    assert s.js("show ip fib summary")["summary"][0]["routes"] == 9
    assert s.js("show buffers")["buffers"][0]["in-use"] == base
    print(f"churn: {4 * n24} route updates in {churn_s:.1f} s, {rx1 - rx0} packets forwarded meanwhile")


def test_route_count_is_all_or_nothing(sluiced_factory):
    s = sluiced_factory(["net_null0,no-rx=1 { name port0 }"],
                        ["set interface ip address port0 10.10.1.10/24"],
                        extra="ip4 { max-routes 1024 tbl8s 256 }\n")
    before = s.js("show ip fib summary")["summary"][0]["routes"]
    r = s.cli_raw("ip route add count 2000 48.0.0.0/24 via 10.10.1.1")
    assert r.returncode == 1 and "table full" in r.stdout
    assert s.js("show ip fib summary")["summary"][0]["routes"] == before
    s.cli("ip route add count 10 48.0.0.0/24 via 10.10.1.1")
    r = s.cli_raw("ip route del count 11 48.0.0.0/24")
    assert r.returncode == 1 and "48.0.10.0/24: not found" in r.stdout
    assert s.js("show ip fib summary")["summary"][0]["routes"] == before + 10


def test_show_graph(sluiced_factory):
    """show graph: the registered nodes with their edges, and what each dispatcher sends where."""
    s = sluiced_factory(["net_null0,no-rx=1 { name port0 }"], [])
    nodes = {n["node"]: n for n in s.js("show graph")["nodes"]}
    for name in ["port-rx", "pg-input", "ethernet-input", "ip4-input", "ip4-lookup", "ip4-glean",
                 "ip4-local", "ip4-udp-local", "ip4-icmp-input", "ip4-rewrite", "port-tx-0"]:
        assert name in nodes, name
    assert "port-tx" not in nodes  # the clones' base is not in a graph
    eth = nodes["ethernet-input"]["next-nodes"].split()
    assert eth[0] == "error-drop" and {"ip4-input", "arp-input"} <= set(eth)
    assert nodes["ethernet-input"]["edges"] == len(eth)
    lk = nodes["ip4-lookup"]["next-nodes"].split()
    assert lk[0] == "icmp4-error" and {"ip4-rewrite", "ip4-local", "ip4-glean"} <= set(lk)
    disp = {(d["node"], d["key"]): d["next-node"] for d in s.js("show graph")["dispatch"]}
    assert disp[("ethernet-input", "0x0800")] == "ip4-input"
    assert disp[("ethernet-input", "0x0806")] == "arp-input"
    assert disp[("ip4-local", "1")] == "ip4-icmp-input"
    assert disp[("ip4-local", "17")] == "ip4-udp-local"
    assert disp[("ip4-lookup", "forward")] == "ip4-rewrite"
    assert disp[("ip4-lookup", "glean")] == "ip4-glean"
    arcs = {(a["arc"], a["feature"]): a for a in s.js("show graph")["arcs"]}
    rx = arcs[("ip4-unicast", "ip4-source-check-via-rx")]
    assert rx["start"] == "ip4-input" and rx["end"] == "ip4-lookup"
    assert "ip4-source-check-via-rx" in nodes["ip4-input"]["next-nodes"].split()
    assert "ip4-rewrite" in s.cli("show graph")


def routes_200(tmp_path, sluiced_factory, extra):
    """sluiced with one worker and the startup sections extra, that routed 200 frames from
    port0 to port1 (pcap ports, tests/common/router.cli)"""
    frames = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst=f"48.0.0.{i + 1}") / UDP() / Raw(b"p" * 18)
              for i in range(200)]
    wrpcap(str(tmp_path / "in0.pcap"), frames, linktype=1)
    wrpcap(str(tmp_path / "in1.pcap"), [], linktype=1)
    router = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
    s = sluiced_factory([f"net_pcap{i},rx_pcap={tmp_path}/in{i}.pcap,tx_pcap={tmp_path}/out{i}.pcap "
                         f"{{ name port{i} mac-address {m} }}" for i, m in enumerate((MAC0, MAC1))],
                        router, extra=extra + "cpu { workers 1 }\n")
    s.wait_rx("port0", len(frames))
    deadline = time.time() + 10
    while s.iface("port1")["tx-packets"] < len(frames) and time.time() < deadline:
        time.sleep(0.05)
    assert s.iface("port1")["tx-packets"] == len(frames)
    return s


def test_poll_yield(tmp_path, sluiced_factory):
    """unix { poll-yield }: the worker routes every packet and gives its core up after each
    walk, so that another task on that core that also yields takes turns with it walk by walk:
    hundreds of thousands of switches a second, where a worker that polls on is switched out
    only at the scheduler's ticks (without the option: 405 in 1.5 s, once)."""
    s = routes_200(tmp_path, sluiced_factory, "unix { poll-yield }\n")
    task = Path(f"/proc/{s.proc.pid}/task")
    worker = [t for t in task.iterdir() if (t / "comm").read_text().startswith("rte-worker")]
    assert len(worker) == 1, [(t / "comm").read_text() for t in task.iterdir()]
    status = lambda: dict(line.split(":\t") for line in (worker[0] / "status").read_text().splitlines()
                          if ":\t" in line)
    core = status()["Cpus_allowed_list"].strip()
    before = int(status()["nonvoluntary_ctxt_switches"])
    subprocess.run(["taskset", "-c", core, "python3", "-c",
                    "import os, time\nt = time.time()\nwhile time.time() - t < 1.5: os.sched_yield()"],
                   check=True, timeout=30)
    switched = int(status()["nonvoluntary_ctxt_switches"]) - before
    assert switched > 10000, f"the worker on core {core} was switched {switched} times in 1.5 s"
    assert s.errors() == {}


def test_poll_sleep_usec(tmp_path, sluiced_factory):
    """unix { poll-sleep-usec N }: the worker still routes every packet, and sleeps while there
    is nothing to do (a polling worker burns a whole core: about 1 s of CPU per second)."""
    s = routes_200(tmp_path, sluiced_factory, "unix { poll-sleep-usec 1000 }\n")

    def cpu_s():
        f = open(f"/proc/{s.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    c0, t0 = cpu_s(), time.time()
    time.sleep(2)
    share = (cpu_s() - c0) / (time.time() - t0)
    assert share < 0.5, f"an idle worker with poll-sleep-usec used {share:.2f} of a core"
    assert s.errors() == {}
