# SPDX-License-Identifier: BSD-3-Clause
"""sluice-bench end to end on the seed topology, with tiny trials: the searches run against
sluiced over memif and every output is written."""
import glob
import json
import os
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import BUILD, ROOT, release_only


# the generator waits this long for frames after each trial (its default, 500 ms, as RFC 2544's
# wait, is for DUTs that queue for long): a memif path here holds a frame for milliseconds
DRAIN_MS = 100


def bench(topo, tmp_path, name, timeout=400):
    """sluice-bench on topo (a dict), results in tmp_path/name: the finished process."""
    (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(topo))
    # the command the project's setup installs (scripts/setup.sh)
    p = subprocess.Popen([str(ROOT / ".venv/bin/sluice-bench"), str(tmp_path / f"{name}.yaml"), "--out",
                          str(tmp_path / name)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    r.pid = p.pid  # its generators' DPDK prefixes are sluice-gen-PID-N
    return r


# Dozens of generator runs against a sanitizer build that is several times slower, on two
# cores: memif's listener (in the EAL interrupt thread) then misses connections. The harness
# is Python; the release build exercises it, and sluiced's own paths are under ASan elsewhere.
@release_only
def test_harness_writes_results(tmp_path):
    topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
    # the generator's ports given as plain EAL arguments (as PCI NICs would be: -a ADDR)
    topo["gen"]["vdevs"] = []
    topo["gen"]["eal"] = ["--vdev", "net_memif0,role=client,id=0,socket={sock}",
                          "--vdev", "net_memif1,role=client,id=1,socket={sock}"]
    topo["search"] = {"sizes": [64, "imix"], "max_mpps": 0.5, "min_mpps": 0.05, "precision": 0.25,
                      "short_s": 0.2, "final_s": 0.4, "latency_at": [0.5]}
    topo["gen"]["drain_ms"] = DRAIN_MS
    folders = set(glob.glob("/tmp/sluice-bench-*"))
    r = bench(topo, tmp_path, "out")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    # the run's folder (the DUT's and the generator's sockets and logs) is gone after a run that ends
    assert set(glob.glob("/tmp/sluice-bench-*")) <= folders
    # and so are its generators' DPDK runtime folders
    assert not glob.glob(f"/run/dpdk/sluice-gen-{r.pid}-*")
    res = json.loads((tmp_path / "out/results.json").read_text())
    assert [s["size"] for s in res["sizes"]] == [64, "imix"]
    for s in res["sizes"]:
        assert 0 <= s["ndr"]["mpps"] <= 0.5 and 0 < s["pdr"]["mpps"] <= 0.5
        assert s["ndr"]["trials"] >= 2 and s["dut_restarts"] >= 0
    for s in res["sizes"]:
        log = s["ndr"]["trial_log"]
        assert len(log) == s["ndr"]["trials"] and all(0 <= t["loss_ratio"] <= 1 for t in log)
        assert all(0 < t["gen_busy_pct"] <= 100 for t in log)
    for f in ("results.md", "throughput.png", "latency.png", "loss.png"):
        assert (tmp_path / "out" / f).stat().st_size > 100
    assert "| imix |" in (tmp_path / "out/results.md").read_text()


@release_only
def test_harness_ip6_topology(tmp_path):
    """The IPv6 routing topology: signed IPv6/UDP frames of the smallest size that carries
    the signature come back routed (a found NDR, latency measured), and sluiced routed them."""
    topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced-ip6.yaml"))
    topo["search"] = {"sizes": [84], "max_mpps": 0.2, "min_mpps": 0.02, "precision": 0.5,
                      "short_s": 0.2, "final_s": 0.4, "latency_at": [0.5]}
    topo["gen"]["drain_ms"] = DRAIN_MS
    r = bench(topo, tmp_path, "out")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    s = json.loads((tmp_path / "out/results.json").read_text())["sizes"][0]
    assert s["size"] == 84 and 0.02 <= s["ndr"]["mpps"] <= 0.2
    assert s["latency"] and s["latency"][0]["latency_us"]["p50"] > 0
    # a size too small for IPv6 and the signature is refused before anything starts
    topo["search"]["sizes"] = [64]
    r = bench(topo, tmp_path, "small")
    assert r.returncode == 1 and "size 64: IPv6 streams need frames of 84 bytes" in r.stderr


@release_only
def test_harness_over_vhost_user(tmp_path):
    """The vhost-user topology: sluice-gen's virtio-user ports join sluiced's vhost-user
    ports (they share the generator's hugepages by file descriptor), the topology's CLI lines
    run, a search completes, and no hugepage file is left behind."""
    free = int([x for x in open("/proc/meminfo") if x.startswith("HugePages_Free")][0].split()[1])
    if free < 300:
        pytest.skip("vhost-user needs hugepages (make setup reserves them)")
    before = set(os.listdir("/dev/hugepages"))
    topo = yaml.safe_load(open(ROOT / "bench/topologies/vhost-sluiced.yaml"))
    topo["dut"]["cli"] = ["show interface", "ip route add 49.0.0.0/8 via 10.10.2.1"]
    topo["search"] = {"sizes": [64], "max_mpps": 0.2, "min_mpps": 0.02, "precision": 0.5,
                      "short_s": 0.2, "final_s": 0.3, "latency_at": [0.5]}
    topo["gen"]["drain_ms"] = DRAIN_MS
    r = bench(topo, tmp_path, "out", timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    s = json.loads((tmp_path / "out/results.json").read_text())["sizes"][0]
    assert s["ndr"]["mpps"] > 0.02 and s["latency"][0]["latency_us"]["p50"] > 0
    assert "[####################] NDR" in r.stdout          # the progress bar, completed
    assert set(os.listdir("/dev/hugepages")) <= before
    assert not glob.glob(f"/run/dpdk/sluice-gen-{r.pid}-*")  # nor the generator's runtime folder
    # a CLI line the DUT refuses stops the run with the line named
    topo["dut"]["cli"] = ["ip route add nonsense"]
    r = bench(topo, tmp_path, "bad", timeout=120)
    assert r.returncode != 0 and "sluiced refused 'ip route add nonsense'" in r.stderr
    # and keeps its folder, named, with the DUT's log
    kept = re.search(r"logs are kept in (\S+)", r.stderr)
    assert kept and glob.glob(kept.group(1) + "/size-64/*/sluiced.log")
    shutil.rmtree(kept.group(1))


@release_only
def test_harness_over_tap(tmp_path):
    """The tap topology: sluiced's net_tap ports, the generator on af_packet over the same
    kernel interfaces; a search completes and the interfaces go away with sluiced."""
    topo = yaml.safe_load(open(ROOT / "bench/topologies/tap-sluiced.yaml"))
    topo["search"] = {"sizes": [64], "max_mpps": 0.05, "min_mpps": 0.005, "precision": 0.5,
                      "short_s": 0.2, "final_s": 0.3, "latency_at": [0.5]}
    topo["gen"]["drain_ms"] = DRAIN_MS
    r = bench(topo, tmp_path, "out", timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    s = json.loads((tmp_path / "out/results.json").read_text())["sizes"][0]
    assert s["ndr"]["mpps"] >= 0.005 and s["latency"][0]["latency_us"]["p50"] > 0
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert "sltp0" not in links and "sltp1" not in links


@release_only
def test_harness_compares_duts_trial_by_trial(tmp_path):
    """Two DUTs in one topology (two sluiced here: CI has no testpmd), --repeat 2: their
    searches alternate trial by trial (the one not on trial stopped), and the results give
    each DUT's runs, medians and spread, and its ratio to the baseline run by run."""
    base = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced-vs-testpmd-io.yaml"))
    sl = dict(base["duts"][0], warmup_s=0.5)  # the search's structure is tested, not its rates
    topo = {"name": "two", "duts": [dict(sl, name="first"), dict(sl, name="second")],
            "baseline": "second", "gen": dict(base["gen"], drain_ms=DRAIN_MS),
            "search": {"sizes": [64], "max_mpps": 0.3, "min_mpps": 0.05, "precision": 0.5,
                       "short_s": 0.2, "final_s": 0.3, "latency_at": [0.5]}}
    (tmp_path / "two.yaml").write_text(yaml.safe_dump(topo))
    r = subprocess.run([str(ROOT / ".venv/bin/sluice-bench"), str(tmp_path / "two.yaml"), "--out",
                        str(tmp_path / "out"), "--repeat", "2"], capture_output=True, text=True, timeout=400)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads((tmp_path / "out/results.json").read_text())
    assert res["duts"] == ["first", "second"] and res["repeat"] == 2 and res["baseline"] == "second"
    e = res["sizes"][0]
    for n in ("first", "second"):
        d = e["duts"][n]
        assert len(d["runs"]) == 2
        ndr = [run["ndr"]["mpps"] for run in d["runs"]]
        assert d["ndr_mpps"]["min"] == min(ndr) and d["ndr_mpps"]["max"] == max(ndr)
        assert min(ndr) <= d["ndr_mpps"]["median"] <= max(ndr)
        # each latency trial's longest is at least its p99: so are their medians
        assert d["max_us"]["0.5"]["median"] >= d["p99_us"]["0.5"]["median"] > 0
        assert d["refused"] == sum(t["refused"] for run in d["runs"] for k in ("ndr", "pdr")
                                   for t in run[k]["trial_log"])
    ratios = e["ratios"]["first"]["ndr"]["runs"]
    want = [a["ndr"]["mpps"] / b["ndr"]["mpps"] for a, b in zip(e["duts"]["first"]["runs"],
                                                                e["duts"]["second"]["runs"])]
    assert ratios == pytest.approx(want) and "second" not in e["ratios"]
    # the progress lines alternate the DUTs while both search
    lines = [l.strip().split(":")[0] for l in r.stdout.splitlines() if l.startswith("  first:") or l.startswith("  second:")]
    assert lines[:4] == ["first", "second", "first", "second"]
    md = (tmp_path / "out/results.md").read_text()
    assert "| 64 | first |" in md and "| 64 | second |" in md
    for f in ("throughput.png", "latency.png", "loss.png"):
        assert (tmp_path / "out" / f).stat().st_size > 100


@release_only
def test_harness_fixed_rate_trials_in_turn(tmp_path):
    """--at: trials at one rate, the DUTs in turn, each after an overload; fixed.json counts
    each DUT's trials that lost, its refusals, and agrees with its own trial records."""
    base = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced-vs-testpmd-io.yaml"))
    sl = dict(base["duts"][0], warmup_s=0.5)
    topo = {"name": "fixed", "duts": [dict(sl, name="first"), dict(sl, name="second")],
            "gen": dict(base["gen"], drain_ms=DRAIN_MS), "search": {"sizes": [64]}}
    (tmp_path / "fixed.yaml").write_text(yaml.safe_dump(topo))
    r = subprocess.run([str(ROOT / ".venv/bin/sluice-bench"), str(tmp_path / "fixed.yaml"), "--out",
                        str(tmp_path / "out"), "--at", "0.05", "--trials", "3", "--seconds", "0.2",
                        "--overload", "0.5"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads((tmp_path / "out/fixed.json").read_text())
    assert res["at_mpps"] == 0.05 and res["overload_mpps"] == 0.5 and res["size"] == 64
    for n in ("first", "second"):
        d = res["duts"][n]
        assert len(d["trials"]) == 3
        assert d["lossy"] == sum(t["loss_ratio"] > 0 for t in d["trials"])
        assert d["refused"] == sum(t["refused"] for t in d["trials"])
        assert d["below_half"] == sum(t["rx_mpps"] < 0.025 for t in d["trials"])
        assert all(t["rx_mpps"] > 0 for t in d["trials"])
        p99 = sorted(t["p99_us"] for t in d["trials"])  # every trial measured its latency
        assert all(x > 0 for x in p99)
        assert d["p99_us"] == {"median": p99[1], "worst": p99[2]}
    order = [l.split(":")[0].strip() for l in r.stdout.splitlines() if ": trial " in l]
    assert order == ["first", "second"] * 3
    assert "| first | " in (tmp_path / "out/fixed.md").read_text()


@release_only
def test_harness_bng_topology_sessions_carry_every_frame(tmp_path):
    """bench/topologies/memif-bng.yaml with 300 sessions (BNG_SESSIONS) and destinations to
    match: through each DUT (routed; PPPoE sessions; sessions with a wheel pipe and an output
    ACL each) the signed frames reach the generator's second port, the sessions' inside PPPoE
    (the receiver finds the signature after the PPPoE and PPP headers; were it not to, the
    loss would read 1.0). Under 5% lost: on a busy 2-vCPU host a DUT's worker can be
    preempted long enough to overflow a ring (1.2% once, while callgrind ran beside it)."""
    topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-bng.yaml"))
    topo["gen"]["dst_last"] = "100.64.1.44"  # 300 addresses from 100.64.0.1
    topo["gen"]["drain_ms"] = DRAIN_MS
    for d in topo["duts"]:
        d["warmup_s"] = 2  # 300 sessions are up well within it (20,000 take the 6 s)
    (tmp_path / "bng.yaml").write_text(yaml.safe_dump(topo))
    r = subprocess.run([str(ROOT / ".venv/bin/sluice-bench"), str(tmp_path / "bng.yaml"), "--out",
                        str(tmp_path / "out"), "--at", "0.05", "--trials", "2", "--seconds", "0.3"],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, BNG_SESSIONS="300"))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads((tmp_path / "out/fixed.json").read_text())
    assert set(res["duts"]) == {"routed", "sessions", "sessions-wheel-acl"}
    for n, d in res["duts"].items():
        assert len(d["trials"]) == 2, n
        for t in d["trials"]:
            assert t["loss_ratio"] < 0.05 and t["rx_mpps"] > 0.04, (n, t)  # 1.0 unparsed


@release_only
def test_features_topology_duts_apply_their_feature(tmp_path):
    """bench/topologies/memif-features.yaml's DUTs, each started as the topology starts it
    (scripts/memif_dut.py with bench_graph's run of that name on memif ports), carry the
    topology's 4,096 flows through their feature: every frame conforms to the policer, the
    1,000-rule ACL's flow cache finds most of them (its last rule permits them), the wheel's
    4,096 pipes send them all; the baseline routes them."""
    import signal
    import sys
    import time
    sys.path.insert(0, str(ROOT / "scripts"))
    from sluice_run import run_gen
    topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-features.yaml"))
    runs = {d["name"]: d["cmd"].split()[-1] for d in topo["duts"]}
    assert runs == {"policer": "policer", "acl-1000": "acl-1000", "qos-4096-wheel": "qos-4096-wheel",
                    "routed": "routed"} and topo["baseline"] == "routed"
    from sluice_bench.__main__ import stream_for
    stream = stream_for(64, topo["gen"])  # what sluice-bench sends
    for run in runs.values():
        sock, cs = tmp_path / f"{run}.sock", tmp_path / run / "cli.sock"
        p = subprocess.Popen([sys.executable, str(ROOT / "scripts/memif_dut.py"), str(tmp_path), str(sock),
                              "0", "1", run], cwd=ROOT, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

        def show(cmd):
            r = subprocess.run([str(BUILD / "sluicectl"), "-s", str(cs), "--json", cmd],
                               capture_output=True, text=True, timeout=30)
            return json.loads(r.stdout) if r.returncode == 0 else None
        # the setup's last line is the feature's (the route's for routed): in place, the
        # setup has run
        last = {"policer": lambda: show("show policer")["policers"][0]["applied"] == 1,
                "acl-1000": lambda: show("show acl-plugin interface port0")["acl-interfaces"],
                "qos-4096-wheel": lambda: show("show qos port1")["qos"],
                "routed": lambda: [r["next-hop"] for r in show("show ip fib 48.0.0.0/8")["routes"]]
                == ["10.10.2.1"]}[run]
        try:
            deadline = time.time() + 60
            while not (cs.exists() and show("show version") and last()) and time.time() < deadline:
                assert p.poll() is None, run
                time.sleep(0.1)
            assert last(), run
            gen = run_gen(str(sock), 0.5, rate=100000, huge=False, stream=stream)
            assert gen["sent"] > 40000 and gen["received"] >= 0.95 * gen["sent"], (run, gen)
            rx = gen["received"]
            if run == "policer":
                pol = show("show policer")["policers"][0]
                assert pol["conform-packets"] >= rx and pol["exceed-packets"] == pol["violate-packets"] == 0, pol
            elif run == "acl-1000":
                assert show("show acl-plugin interface port0")["acl-interfaces"][0]["rules"] == 1000
                fc = show("show acl-plugin flow-cache")["acl-flow-cache"][0]
                assert fc["lookups"] >= rx and fc["hits"] >= 0.8 * fc["lookups"], fc
            elif run == "qos-4096-wheel":
                q = show("show qos port1")["qos"][0]
                assert (q["pipes"], q["scheduler"], q["pipe-from"]) == (4096, "wheel", "ip-dst"), q
                assert q["sent-packets"] >= rx, q
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=60)


@release_only
def test_bench_graph_pairs_features_with_routing(tmp_path):
    """make bench-graph's PAIRED mode: each feature taken off and put back in one daemon
    between trials. Its own nodes (those that the off trial lacks) take clocks in every on
    trial, so the off command did take it off and the on command put it back; every pair's
    two trials carried the stream."""
    env = dict(os.environ, PAIRED="2", RUNS="routed,policer,acl-1,qos-4096-wheel", PACKETS="20000",
               CG_PACKETS="0", SLUICE_BUILD=str(BUILD))
    r = subprocess.run([str(ROOT / ".venv/bin/python"), str(ROOT / "scripts/bench_graph.py")],
                       env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    for tag in ("policer", "acl-1", "qos-4096-wheel"):
        m = re.search(rf"^   {tag}: 2 pairs, .*: (\S+) -> (\S+), (\S+) -> (\S+)$", r.stdout, re.M)
        assert m, r.stdout
        assert all(float(x) > 0 for x in m.groups())
        own = re.search(rf"^   {tag}: .*\n     the feature's own nodes per pair: (\S+), (\S+);",
                        r.stdout, re.M)
        assert own and all(float(x.rstrip(",;")) > 0 for x in own.groups()), r.stdout
        # the whole path counts pg-input as well: above the nodes alone in every trial
        whole = re.search(rf"^   {tag}: (?:.*\n){{3}}     the whole path \(pg-input counted\), "
                          r"off -> on: (\S+) -> (\S+), (\S+) -> (\S+);", r.stdout, re.M)
        assert whole, r.stdout
        assert all(float(w) > float(a) for w, a in zip(whole.groups(), m.groups())), r.stdout
    assert "errors" not in r.stdout, r.stdout


def test_harness_restarts_a_generator_that_exits(tmp_path, capfd):
    """A generator that dies during a search (here killed between two trials) is not the end of
    the run: the trial function says so on stderr with its exit status (-9: SIGKILL), starts the
    DUT and the generator again, counts a restart and gives the trial's result; and it leaves
    no process behind."""
    import signal
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    from sluice_bench.__main__ import dut_trial
    base = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced-vs-testpmd-io.yaml"))
    topo = {"name": "restart", "gen": dict(base["gen"], drain_ms=DRAIN_MS), "search": {"sizes": [64]}}
    with dut_trial(topo, dict(base["duts"][0], warmup_s=0.2), tmp_path / "dut", 64) as t:
        first = t(50000, 0.2)
        assert first.received > 0 and t.restarts == 0
        dead = t.gen.p
        os.kill(dead.pid, signal.SIGKILL)
        dead.wait(10)
        again = t(50000, 0.2)
        assert t.restarts == 1 and t.gen.p.pid != dead.pid and again.received > 0
    err = capfd.readouterr().err
    assert f"sluice-gen (pid {dead.pid}) closed its control socket, exit status -9" in err
    assert "starting the DUT and its generator again" in err
    assert t.gen.p.poll() is not None and t.dut.d.proc.poll() is not None
