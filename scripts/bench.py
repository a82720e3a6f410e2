# SPDX-License-Identifier: BSD-3-Clause
"""make bench: IPv4 routing cost and rate of sluiced, side by side with DPDK's l3fwd (LPM)
on the same memif path in the same run, plus in-process cycles/packet with 1 and 1,000,000
routes, the time to load 1,000,000 routes, the L2 modes against testpmd, and what a policer,
an ACL and QoS add to routing over memif. Medians of repeated trials; JSON and a
Markdown table in results/."""
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sluice_run import (EAL_EXTRA, FWD_CORE, MAIN_CORE, ROOT, Daemon,  # noqa: E402
                        remove_runtime_dirs, run_gen, wait_or_kill)

remove_runtime_dirs("testpmd", "l3fwd")

TRIALS = int(os.environ.get("BENCH_TRIALS", "3"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
# an offered load both forwarders carry without loss on the 2-core machine, to compare cost
# BENCH_PARTS picks parts (default all): modes (the L2 modes and noisy VNF against testpmd,
# issue 4), memif (routing: sluiced, testpmd io, l3fwd), sluiced-memif (sluiced alone),
# features (a policer, an ACL, QoS on the routed path, issue 16);
# TESTPMD and L3FWD_DIR name prebuilt programs; BENCH_MODES=io,5tswap,noisy,... picks modes by
# the start of their names, BENCH_MODES_FIXED_RATE the load (pps) of their busy-cycles trials
PARTS = set(os.environ.get("BENCH_PARTS", "all").split(","))
FIXED_RATE = int(float(os.environ.get("BENCH_FIXED_RATE", "4e6")))
OUT = ROOT / "results"

MEMIF_CONF = """unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core MAIN_CORE corelist-workers FWD_CORE }}
dpdk {{ EAL_ARGS
  vdev net_memif0,role=server,id=0,socket={d}/memif.sock {{ name port0 mac-address 02:00:00:00:00:10 }}
  vdev net_memif1,role=server,id=1,socket={d}/memif.sock {{ name port1 mac-address 02:00:00:00:00:11 }}
  socket-mem 256
}}
"""
MEMIF_CONF = (MEMIF_CONF.replace("MAIN_CORE", str(MAIN_CORE)).replace("FWD_CORE", str(FWD_CORE))
              .replace("EAL_ARGS", ('eal-args "%s"' % " ".join(EAL_EXTRA) if EAL_EXTRA else "") +
                       (" rx-vector %s" % os.environ["BENCH_RX_VECTOR"]
                        if os.environ.get("BENCH_RX_VECTOR") else "")))
ROUTER = """set interface ip address port0 10.10.1.10/24
set interface ip address port1 10.10.2.10/24
set interface state port0 up
set interface state port1 up
ip neighbor port1 10.10.2.1 42:01:0a:0a:02:01
ip route add 48.0.0.0/8 via 10.10.2.1
"""


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def runtime_cost(d, own=()):
    """Busy clocks per packet over the whole path (port-rx to port-tx), per node, and the
    clocks of the nodes named in own per packet received (a node that sees only some of the
    packets, qos-sched, weighs by its share)."""
    rt = d.js("show runtime")
    nodes = {r["node"]: r["clocks/packet"] for r in rt["runtime"] if r["vectors"]}
    total = rt["workers"][0]["busy-clocks/packet"]
    rx = rt["workers"][0]["rx-packets"]
    mine = sum(r["clocks"] for r in rt["runtime"] if r["node"] in own) / rx if rx else 0.0
    return total, nodes, mine


def bench_sluiced_memif(tmp):
    """Saturation trials (the generator as fast as it can) and trials at FIXED_RATE, where
    the busy cycles per packet compare with testpmd's at the same load."""
    d = tmp / "sluiced-memif"
    d.mkdir()
    (d / "setup.cli").write_text(ROUTER)
    trials = sluiced_mode_trial(d, MEMIF_CONF.format(d=d), [0] * TRIALS + [FIXED_RATE] * TRIALS)
    res = {}
    for key, part in (("max", trials[:TRIALS]), ("fixed", trials[TRIALS:])):
        rates, costs = [t[0]["rx_mpps"] for t in part], [t[1] for t in part]
        res[key] = {"rx_mpps": statistics.median(rates), "trials": rates,
                    "busy_clocks_per_packet": statistics.median(costs), "cost_trials": costs,
                    "nodes_last_trial": part[-1][2]}
    return res


def build_l3fwd(tmp):
    if os.environ.get("L3FWD_DIR"):  # prebuilt: DIR/build/l3fwd and DIR/lpm_default_v*.cfg
        return Path(os.environ["L3FWD_DIR"])
    src = Path("/usr/share/dpdk/examples")
    if not (src / "l3fwd").exists():
        return None
    work = tmp / "l3fwd-src"
    work.mkdir()
    shutil.copytree(src / "l3fwd", work / "l3fwd")
    shutil.copytree(src / "common", work / "common")
    main = work / "l3fwd/main.c"
    text = main.read_text()
    # memif offers no RX offloads: mask what l3fwd asks for by what the device has
    text = text.replace("\t\tlocal_port_conf.rx_adv_conf.rss_conf.rss_hf &=",
                        "\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n"
                        "\t\tport_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n"
                        "\t\tlocal_port_conf.rx_adv_conf.rss_conf.rss_hf &=", 1)
    main.write_text(text)
    r = subprocess.run(["make", "-j2"], cwd=work / "l3fwd", capture_output=True, text=True)
    if r.returncode:
        print("l3fwd build failed:\n" + r.stderr[-2000:])
        return None
    return work / "l3fwd"


def bench_l3fwd_memif(tmp, l3):
    d = tmp / "l3fwd-memif"
    d.mkdir()
    sock = f"{d}/memif.sock"
    args = [str(l3 / "build/l3fwd"), "-l", str(FWD_CORE), "--file-prefix", f"l3fwd-{os.getpid()}",
            "--no-pci", "--huge-unlink", "--socket-mem", "256", "--log-level", "4",
            "--vdev", f"net_memif0,role=server,id=0,socket={sock}",
            "--vdev", f"net_memif1,role=server,id=1,socket={sock}",
            *EAL_EXTRA,
            "--", "-p", "0x3", "-P", "--config", f"(0,0,{FWD_CORE}),(1,0,{FWD_CORE})", "--parse-ptype",
            "--rule_ipv4", str(l3 / "lpm_default_v4.cfg"), "--rule_ipv6", str(l3 / "lpm_default_v6.cfg")]
    log = open(d / "l3fwd.log", "w")
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    try:
        time.sleep(2)
        if p.poll() is not None:
            raise RuntimeError((d / "l3fwd.log").read_text()[-2000:])
        rates = [run_gen(sock, SECONDS, dst="198.18.1.0/24")["rx_mpps"] for _ in range(TRIALS)]
    finally:
        p.terminate()
        wait_or_kill(p)
        log.close()
    return {"rx_mpps": statistics.median(rates), "trials": rates}


TESTPMD_SRC = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


# scripts/lab/testpmd_probe.py: testpmd's forwarding loop timed as sluiced's worker times its
# turns (the longest and a power-of-two histogram, printed when forwarding stops)
PROBE_DECL = """\tuint64_t probe_last = rte_rdtsc(), probe_max = 0, probe_n = 0, probe_hist[40] = {0};
\tconst double probe_us = rte_get_tsc_hz() / 1e6;
"""
PROBE_TURN = """\tdo {
\t\tuint64_t probe_now = rte_rdtsc(), probe_d = probe_now - probe_last;
\t\tprobe_last = probe_now;
\t\tprobe_max = probe_d > probe_max ? probe_d : probe_max;
\t\tprobe_n++;
\t\tprobe_hist[probe_d ? RTE_MIN(63 - __builtin_clzll(probe_d), 39) : 0]++;
"""
PROBE_END = """\t} while (! fc->stopped);
\tfprintf(stderr, "probe: lcore %u turns %" PRIu64 " longest-us %.1f histogram", rte_lcore_id(),
\t\tprobe_n, probe_max / probe_us);
\tfor (int b = 0; b < 40; b++)
\t\tif (probe_hist[b])
\t\t\tfprintf(stderr, " %.2f:%" PRIu64, (double)(1ull << b) / probe_us, probe_hist[b]);
\tfprintf(stderr, "\\n");
"""


def probe_patch(app):
    """testpmd.c with PROBE_* in run_pkt_fwd_on_lcore."""
    src = (app / "testpmd.c").read_text()
    head = "run_pkt_fwd_on_lcore(struct fwd_lcore *fc, packet_fwd_t pkt_fwd)\n{\n"
    i = src.index(head) + len(head)
    j = src.index("\tdo {\n", i)
    k = src.index("\t} while (! fc->stopped);\n", j)
    src = (src[:i] + PROBE_DECL + src[i:j] + PROBE_TURN + src[j + len("\tdo {\n"):k] + PROBE_END
           + src[k + len("\t} while (! fc->stopped);\n"):])
    (app / "testpmd.c").write_text(src)


def build_testpmd(tmp, probe=False):
    """dpdk-testpmd is not packaged in Debian 12: build it from Debian's DPDK source package
    against the installed libraries, in a temporary folder (probe: with PROBE_* added)."""
    if os.environ.get("TESTPMD") and not probe:  # prebuilt
        return Path(os.environ["TESTPMD"])
    src_list = Path("/etc/apt/sources.list.d/sluice-bench-src.sources")
    if not src_list.exists():
        src_list.write_text(TESTPMD_SRC)
        subprocess.run(["apt-get", "update", "-q"], capture_output=True)
    work = tmp / "testpmd-src"
    work.mkdir()
    r = subprocess.run(["apt-get", "source", "--download-only", "dpdk"], cwd=work,
                       capture_output=True, text=True)
    orig = sorted(work.glob("dpdk_*.orig.tar.xz"))
    if r.returncode or not orig:
        print("testpmd: cannot fetch DPDK's source package:", r.stderr[-500:])
        return None
    subprocess.run(["tar", "xf", orig[0].name, "--wildcards", "*/app/test-pmd/*",
                    "*/lib/eal/linux/include/*"], cwd=work, check=True)
    top = next(work.glob("dpdk-*/"))
    app = top / "app/test-pmd"
    stub = work / "stub"
    stub.mkdir()
    # the mlx5 hook is internal to that driver; testpmd only calls it for mlx5 ports
    (stub / "mlx5_testpmd.h").write_text(
        "#include <stdint.h>\nstatic inline void mlx5_test_avail_thresh_event_handler("
        "uint16_t p, uint16_t q) { (void)p; (void)q; }\n")
    if probe:
        probe_patch(app)
    srcs = sorted(f.name for f in app.glob("*.c"))
    pmds = "/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0"
    cflags = subprocess.run(["pkg-config", "--cflags", "libdpdk"], capture_output=True, text=True).stdout.split()
    libs = subprocess.run(["pkg-config", "--libs", "libdpdk"], capture_output=True, text=True).stdout.split()
    cmd = (["cc", "-O3", "-march=native", "-DALLOW_EXPERIMENTAL_API", "-include", "rte_config.h"] + cflags +
           [f"-I{top}/lib/eal/linux/include", f"-I{stub}", "-Wno-deprecated-declarations"] + srcs +
           ["-o", str(work / "dpdk-testpmd")] + libs +
           ["-ljansson", f"-Wl,-rpath,{pmds}", f"-L{pmds}", "-lrte_net_ixgbe", "-lrte_net_i40e",
            "-lrte_net_bnxt", "-lrte_net_dpaa", "-lrte_bus_dpaa", "-lrte_mempool_dpaa", "-lrte_net_bond"])
    r = subprocess.run(cmd, cwd=app, capture_output=True, text=True)
    if r.returncode:
        print("testpmd build failed:", r.stderr[-1500:])
        return None
    return work / "dpdk-testpmd"


def testpmd_trial(args, d, sock, rate):
    """One testpmd run with the generator: the forward statistics (and the cycles) are read
    while traffic still flows, because memif's counters restart when the peer leaves.
    Returns the generator's result and testpmd's busy cycles per packet."""
    log = open(d / "testpmd.log", "w")
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE, text=True)
    gen = {}
    try:
        p.stdin.write("start\n")
        p.stdin.flush()
        time.sleep(2)
        if p.poll() is not None:
            raise RuntimeError((d / "testpmd.log").read_text()[-2000:])
        t = threading.Thread(target=lambda: gen.update(run_gen(sock, SECONDS + 2, rate=rate)))
        t.start()
        time.sleep(1.5)
        p.stdin.write("clear fwd stats all\n")
        p.stdin.flush()
        time.sleep(SECONDS)
        p.stdin.write("show fwd stats all\n")
        p.stdin.flush()
        t.join()
    finally:
        if p.poll() is None:
            p.stdin.write("stop\nquit\n")
            p.stdin.flush()
        wait_or_kill(p)
        log.close()
    cycles = [float(line.split("CPU cycles/packet=")[1].split()[0])
              for line in (d / "testpmd.log").read_text().splitlines() if "CPU cycles/packet=" in line]
    return gen, cycles[0] if cycles else None


def testpmd_args(testpmd, sock, fwd_args, socket_mem=512):
    return [str(testpmd), "-l", f"{MAIN_CORE},{FWD_CORE}", "--main-lcore", str(MAIN_CORE),
            "--file-prefix", f"testpmd-{os.getpid()}", "--no-pci", *EAL_EXTRA,
            "--huge-unlink", "--socket-mem", str(socket_mem), "--log-level", "4",
            "--vdev", f"net_memif0,role=server,id=0,socket={sock}",
            "--vdev", f"net_memif1,role=server,id=1,socket={sock}",
            "--", "-i", "--nb-cores=1", "--record-core-cycles", "--no-mlockall",
            "--total-num-mbufs=32768"] + fwd_args


def bench_testpmd_memif(tmp, testpmd):
    """testpmd io mode on the same memif path; its --record-core-cycles figure is the
    forwarding core's busy cycles per packet (cycles of the loops that received something)."""
    d = tmp / "testpmd-memif"
    d.mkdir()
    sock = f"{d}/memif.sock"
    args = testpmd_args(testpmd, sock, ["--forward-mode=io"])
    res = {}
    for key, rate in (("max", 0), ("fixed", FIXED_RATE)):
        rates, cycles = [], []
        for _ in range(TRIALS):
            g, c = testpmd_trial(args, d, sock, rate)
            rates.append(g["rx_mpps"])
            if c:
                cycles.append(c)
        res[key] = {"rx_mpps": statistics.median(rates), "trials": rates,
                    "busy_cycles_per_packet": statistics.median(cycles) if cycles else None,
                    "cost_trials": cycles}
    return res


# issue 4: testpmd's forwarding modes and its noisy VNF, the same settings on both
MODES = [
    ("io", "set interface l2 xconnect port0 port1", ["--forward-mode=io"]),
    ("macswap", "set interface fwd-mode port0 macswap peer port1", ["--forward-mode=macswap"]),
    ("5tswap", "set interface fwd-mode port0 5tswap peer port1", ["--forward-mode=5tswap"]),
] + [
    # each noisy setting twice: Sluice's default model (random cache lines of all the memory)
    # and model testpmd, which does what testpmd 22.11's code does (a random byte among the
    # first size/64 bytes per write, reads that load nothing; docs/cli.md)
    (f"noisy {name}{model_name}",
     f"set interface l2 xconnect port0 port1\nset interface noisy port0 {load}{model}{fifo}",
     ["--forward-mode=noisy"] + tp_args)
    for name, load, fifo, tp_args in [
        ("400 MB, 200 reads, 20 writes", "lookup-memory 400 reads 200 writes 20", "",
         ["--noisy-lkup-memory=400", "--noisy-lkup-num-reads=200", "--noisy-lkup-num-writes=20"]),
        ("200 MB, 32 reads, 8 writes, FIFO 128, flush 20 ms", "lookup-memory 200 reads 32 writes 8",
         " buffer 128 flush-time 20",
         ["--noisy-lkup-memory=200", "--noisy-lkup-num-reads=32", "--noisy-lkup-num-writes=8",
          "--noisy-tx-sw-buffer-size=128", "--noisy-tx-sw-buffer-flushtime=20"])]
    for model_name, model in (("", ""), (", model testpmd", " model testpmd"))
]


# the modes' fixed load, which both forwarders carry without loss, for busy cycles/packet
MODES_FIXED_RATE = int(float(os.environ.get("BENCH_MODES_FIXED_RATE", "1e6")))


def sluiced_mode_trial(d, conf, rates, stream=None, own=()):
    """One start of sluiced in a mode: a trial at each rate (0: as fast as the generator can),
    each with the worker's busy clocks per packet from show runtime, its nodes', and the
    clocks per packet of the nodes named in own (runtime_cost)."""
    out = []
    with Daemon(conf, d) as s:
        for rate in rates:
            s.cli("clear runtime")
            g = run_gen(f"{d}/memif.sock", SECONDS, rate=rate, stream=stream)
            out.append((g, *runtime_cost(s, own)))
    return out


def summary(trials, costs_full, costs_fixed, lat):
    return {"rx_mpps": statistics.median(t["rx_mpps"] for t in trials),
            "trials": [t["rx_mpps"] for t in trials],
            "busy_cycles_per_packet_full_rate": statistics.median(costs_full) if costs_full else None,
            "cost_trials_full_rate": costs_full,
            "busy_cycles_per_packet": statistics.median(costs_fixed) if costs_fixed else None,
            "cost_trials": costs_fixed,
            "latency_half_rate_us": lat["latency_us"], "half_rate_mpps": lat["rx_mpps"]}


def picked_modes():
    """BENCH_MODES=io,5tswap,noisy...: the modes whose names start with one of these."""
    want = [w for w in os.environ.get("BENCH_MODES", "").split(",") if w]
    return [m for m in MODES if not want or any(m[0].startswith(w) for w in want)]


def bench_modes(tmp, testpmd):
    """Each mode on sluiced and on testpmd, trial by trial in turn (the machine's quiet and
    busy periods fall on both): a trial at full rate, then one at MODES_FIXED_RATE for the
    forwarder's busy cycles per packet (sluiced's show runtime, testpmd's
    --record-core-cycles); finally one at half the median full rate for latency."""
    res = {}
    for i, (name, cli, tp_args) in enumerate(picked_modes()):
        d = tmp / f"mode-{i}"
        d.mkdir()
        (d / "setup.cli").write_text("set interface state port0 up\nset interface state port1 up\n"
                                     + cli + "\n")
        conf = MEMIF_CONF.format(d=d).replace("socket-mem 256", "socket-mem 1024")
        sock = f"{d}/tp.sock"
        tpa = testpmd_args(testpmd, sock, tp_args, 1536) if testpmd and tp_args else None
        # a full-rate trial, then one at the fixed load (the noisy modes are too slow for it:
        # their cycles come from the full-rate trial)
        noisy = "noisy" in name
        rates = [0] if noisy else [0, MODES_FIXED_RATE]
        turns = {"sluiced": lambda rs: sluiced_mode_trial(d, conf, rs)}
        if tpa:
            turns["testpmd"] = lambda rs: [testpmd_trial(tpa, d, sock, x) + (None,) for x in rs]
        got = {k: {"full": [], "cost_full": [], "cost": [], "nodes": {}} for k in turns}
        for _ in range(TRIALS):
            for k, turn in turns.items():
                t = turn(rates)
                got[k]["full"].append(t[0][0])
                got[k]["cost_full"] += [t[0][1]] if t[0][1] else []
                got[k]["cost"] += [t[-1][1]] if t[-1][1] else []
                got[k]["nodes"] = t[-1][2]
        r = {}
        for k, turn in turns.items():
            half = max(int(statistics.median(t["rx_mpps"] for t in got[k]["full"]) * 1e6 / 2), 1000)
            r[k] = summary(got[k]["full"], got[k]["cost_full"], got[k]["cost"], turn([half])[0][0])
        r["sluiced"]["nodes"] = got["sluiced"]["nodes"]
        r["fixed_rate_mpps"] = None if noisy else MODES_FIXED_RATE / 1e6
        res[name] = r
        print(f"{name}: {json.dumps(r)}", flush=True)
        if os.environ.get("OUT"):  # a device run: what is done comes back even if cut off
            (Path(os.environ["OUT"]) / "modes-partial.json").write_text(json.dumps(res, indent=2))
    return res


def modes_table(res):
    lines = ["| mode (memif, 64 B, one forwarding core) | sluiced Mpps (trials) | testpmd Mpps (trials) "
             "| rate sluiced / testpmd | busy cycles/packet at full rate, sluiced, testpmd "
             "| the same at a fixed load | testpmd / sluiced cycles (full rate, fixed load) "
             "| latency p50 / p99 us at half rate, sluiced | same, testpmd |",
             "|---|---|---|---|---|---|---|---|---|"]

    def ratio(a, b):
        return f"{b / a:.2f}" if a and b else "-"

    def cell(x):
        return "" if x is None else f"{x:.1f}"

    def trials(x):
        return f"{x['rx_mpps']:.3f} ({', '.join(f'{t:.2f}' for t in x['trials'])})"

    def lat(x):
        return f"{x['latency_half_rate_us']['p50']:.1f} / {x['latency_half_rate_us']['p99']:.1f}"
    for name, r in res.items():
        sl, tp = r["sluiced"], r.get("testpmd")
        load = f"{r['fixed_rate_mpps']:g} Mpps" if r.get("fixed_rate_mpps") else "full rate"
        full, fixed = "busy_cycles_per_packet_full_rate", "busy_cycles_per_packet"
        if tp:
            lines.append(f"| {name} | {trials(sl)} | {trials(tp)} | {sl['rx_mpps'] / tp['rx_mpps']:.2f} | "
                         f"{cell(sl[full])}, {cell(tp[full])} | "
                         f"{cell(sl[fixed])}, {cell(tp[fixed])} ({load}) | "
                         f"{ratio(sl[full], tp[full])}, {ratio(sl[fixed], tp[fixed])} | {lat(sl)} | {lat(tp)} |")
        else:
            lines.append(f"| {name} | {trials(sl)} | | | {cell(sl[full])} | {cell(sl[fixed])} ({load}) | | "
                         f"{lat(sl)} | |")
    return "\n".join(lines)


# issue 16's features over memif (BENCH_PARTS=features): bench/topologies/memif-features.yaml's
# DUTs (bench_graph's runs of those names on memif ports, scripts/memif_dut.py: routing, an
# input policer, an input ACL of 1,000 rules, 4,096 QoS pipes on the timing wheel) and its
# stream (4,096 flows), its baseline first
FEATURES_TOPOLOGY = ROOT / "bench/topologies/memif-features.yaml"


def features_topology():
    """(the runs, baseline first; the generator's stream) of FEATURES_TOPOLOGY."""
    import yaml
    from sluice_bench.__main__ import stream_for
    topo = yaml.safe_load(open(FEATURES_TOPOLOGY))
    runs = {d["name"]: d["cmd"].split()[-1] for d in topo["duts"]}
    order = [topo["baseline"]] + [n for n in runs if n != topo["baseline"]]
    return [runs[n] for n in order], stream_for(64, topo["gen"])


# the nodes each feature adds to the path (show runtime's clocks/packet, summed)
FEATURE_NODES = {"policer": ("policer-input",), "acl-1000": ("acl-input",),
                 "qos-4096-wheel": ("qos-output", "qos-sched")}


def bench_features(tmp):
    """Each feature's sluiced in turn, TRIALS rounds (a start each), a trial as fast as the
    generator can: the rate and the worker's busy clocks per packet (show runtime; full
    vectors, where a trial at a low load would measure the per-vector overhead), and the
    clocks/packet of the feature's own nodes (FEATURE_NODES). Each feature's medians, its
    ratio to routing's, and the median of its rounds' differences to routing's round (the
    two ran one after the other: a slow period of the host falls on both)."""
    from memif_dut import cli_for
    features, stream = features_topology()
    got = {f: [] for f in features}
    for k in range(TRIALS):
        for f in features:
            d = tmp / f"feature-{f}-{k}"
            d.mkdir()
            (d / "setup.cli").write_text(cli_for(f))
            (g, cost, _, own), = sluiced_mode_trial(d, MEMIF_CONF.format(d=d), [0], stream,
                                                     FEATURE_NODES.get(f, ()))
            got[f].append((g["rx_mpps"], cost, own))
            print(f"  {f} round {k + 1}: {g['rx_mpps']:.3f} Mpps, {cost:.1f} busy clocks/packet"
                  + (f", its nodes {own:.1f}" if f in FEATURE_NODES else ""), flush=True)
    base = got[features[0]]
    res = {}
    for f, t in got.items():
        res[f] = {"rx_mpps": statistics.median(m for m, _, _ in t), "trials": [m for m, _, _ in t],
                  "busy_clocks_per_packet": statistics.median(c for _, c, _ in t),
                  "cost_trials": [c for _, c, _ in t]}
        if f != features[0]:
            diffs = [c - b[1] for (_, c, _), b in zip(t, base)]
            res[f]["added_paired"] = statistics.median(diffs)
            res[f]["added_trials"] = diffs
        if f in FEATURE_NODES:
            res[f]["nodes"] = list(FEATURE_NODES[f])
            res[f]["node_clocks"] = statistics.median(o for _, _, o in t)
            res[f]["node_trials"] = [o for _, _, o in t]
    return res


def features_table(res):
    r = res[features_topology()[0][0]]  # the baseline
    lines = ["| memif, 64 B, 4,096 flows, one forwarding core, as fast as the generator can | Mpps "
             "(median; trials) | rate / routing's | busy clocks/packet (median; trials) | added to "
             "routing: medians' difference | added: median of the rounds' differences | the "
             "feature's nodes, clocks/packet (median; trials) |",
             "|---|---|---|---|---|---|---|"]
    for f, x in res.items():
        c = x["busy_clocks_per_packet"]
        paired = f"{x['added_paired']:+.1f}" if "added_paired" in x else "-"
        own = (f"{' + '.join(x['nodes'])}: {x['node_clocks']:.1f} ("
               + ", ".join(f"{t:.1f}" for t in x["node_trials"]) + ")") if "nodes" in x else "-"
        lines.append(f"| {f} | {x['rx_mpps']:.2f} (" + ", ".join(f"{t:.2f}" for t in x["trials"])
                     + f") | {x['rx_mpps'] / r['rx_mpps']:.2f} | {c:.1f} (" + ", ".join(f"{t:.1f}" for t in x["cost_trials"])
                     + f") | {c - r['busy_clocks_per_packet']:+.1f} | {paired} | {own} |")
    return "\n".join(lines)


def write_pcap(path, dsts):
    sys.path.insert(0, str(ROOT / ".venv"))
    from scapy.all import IP, UDP, Ether, Raw, wrpcap
    wrpcap(str(path), [Ether(dst="02:00:00:00:00:10", src="02:00:00:00:00:99") /
                       IP(src="10.10.1.2", dst=dst) / UDP(sport=2123, dport=10000) / Raw(b"\0" * 18)
                       for dst in dsts], linktype=1)


def bench_inprocess(tmp, routes):
    """pcap (infinite_rx) -> sluiced -> null on one worker: the routing nodes' cost without
    a second process in the way."""
    d = tmp / f"inproc-{routes}"
    d.mkdir()
    rnd = random.Random(1)
    if routes == 1:
        dsts = [f"48.{rnd.randrange(256)}.{rnd.randrange(256)}.{rnd.randrange(1, 255)}" for _ in range(4096)]
    else:
        dsts = [f"{16 + rnd.randrange(16)}.{rnd.randrange(256)}.{rnd.randrange(256)}.{rnd.randrange(1, 255)}"
                for _ in range(4096)]
    write_pcap(d / "in.pcap", dsts)
    conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{
  vdev net_pcap0,rx_pcap={d}/in.pcap,infinite_rx=1 {{ name port0 mac-address 02:00:00:00:00:10 }}
  vdev net_null0,no-rx=1 {{ name port1 }}
  socket-mem 1024
}}
ip4 {{ max-routes 2097152 tbl8s 1024 }}
"""
    (d / "setup.cli").write_text(ROUTER.replace("set interface state port0 up\n", ""))
    res = {}
    with Daemon(conf, d) as s:
        if routes > 1:
            lines = d / "routes.cli"
            with open(lines, "w") as f:
                for i in range(routes):
                    f.write(f"ip route add {16 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}.0/24 via 10.10.2.1\n")
            t0 = time.time()
            s.cli(f"exec {lines}")
            res["load_seconds"] = time.time() - t0
            res["routes"] = s.js("show ip fib summary")["summary"][0]["routes"]
        s.cli("set interface state port0 up")
        costs, rates = [], []
        for _ in range(TRIALS):
            s.cli("clear runtime")
            a = s.js("show interface port1")["interfaces"][0]["tx-packets"]
            time.sleep(SECONDS)
            b = s.js("show interface port1")["interfaces"][0]["tx-packets"]
            rates.append((b - a) / SECONDS / 1e6)
            c, nodes, _ = runtime_cost(s)
            costs.append(c)
        res.update({"fwd_mpps": statistics.median(rates), "trials": rates,
                    "busy_clocks_per_packet": statistics.median(costs), "nodes_last_trial": nodes})
    return res


def main():
    OUT.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="sluice-bench-"))
    res = {"machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "kernel": platform.release()},
           "trials": TRIALS, "seconds": SECONDS}
    print(f"machine: {res['machine']}")
    if "sluiced-memif" in PARTS:  # sluiced's memif routing alone (e.g. for BENCH_RX_VECTOR)
        r = bench_sluiced_memif(tmp)
        print(json.dumps({"rx_vector": os.environ.get("BENCH_RX_VECTOR", "256"), **r}), flush=True)
        return
    if "memif" in PARTS:  # the memif comparisons only: routing, then the modes
        tp, l3 = build_testpmd(tmp), build_l3fwd(tmp)
        res["sluiced_memif"] = bench_sluiced_memif(tmp)
        print("sluiced memif:", res["sluiced_memif"], flush=True)
        res["testpmd_io_memif"] = bench_testpmd_memif(tmp, tp) if tp else {}
        print("testpmd io memif:", res["testpmd_io_memif"], flush=True)
        res["l3fwd_memif"] = bench_l3fwd_memif(tmp, l3) if l3 else {}
        print("l3fwd memif:", res["l3fwd_memif"], flush=True)
    if "all" not in PARTS:
        if "modes" in PARTS:
            res["modes"] = bench_modes(tmp, build_testpmd(tmp))
            table = modes_table(res["modes"])
            (OUT / "bench-modes.md").write_text(table + "\n")
            print("\n" + table)
        if "features" in PARTS:
            res["features"] = bench_features(tmp)
            table = features_table(res["features"])
            (OUT / "bench-features.md").write_text(table + "\n")
            print("\n" + table)
        (OUT / "bench-parts.json").write_text(json.dumps(res, indent=2))
        if os.environ.get("OUT"):  # a device run: results back through $OUT
            shutil.copy(OUT / "bench-parts.json", os.environ["OUT"])
        shutil.rmtree(tmp, ignore_errors=True)
        return
    res["sluiced_memif"] = bench_sluiced_memif(tmp)
    print("sluiced memif:", res["sluiced_memif"])
    tp = build_testpmd(tmp)
    if tp:
        res["testpmd_io_memif"] = bench_testpmd_memif(tmp, tp)
        print("testpmd io memif:", res["testpmd_io_memif"])
    l3 = build_l3fwd(tmp)
    if l3:
        res["l3fwd_memif"] = bench_l3fwd_memif(tmp, l3)
        print("l3fwd memif:", res["l3fwd_memif"])
    res["inproc_1_route"] = bench_inprocess(tmp, 1)
    print("in-process, 1 route:", res["inproc_1_route"])
    res["inproc_1m_routes"] = bench_inprocess(tmp, 1 << 20)
    print("in-process, 1M routes:", res["inproc_1m_routes"])
    res["modes"] = bench_modes(tmp, tp)
    res["features"] = bench_features(tmp)
    (OUT / "bench.json").write_text(json.dumps(res, indent=2))
    r1, rm = res["inproc_1_route"], res["inproc_1m_routes"]
    sm = res["sluiced_memif"]
    nan = float("nan")
    l3r = res.get("l3fwd_memif", {}).get("rx_mpps") or nan
    tpm = res.get("testpmd_io_memif", {})

    def cell(x):
        return "n/a" if x is None or x != x else f"{x:.1f}"
    lines = ["| memif, 64 B, one forwarding core | offered | Mpps (median) | busy cycles/packet (median) |",
             "|---|---|---|---|"]
    for key, offered in (("max", "as fast as the generator can"), ("fixed", f"{FIXED_RATE / 1e6:g} Mpps")):
        tp = tpm.get(key, {})
        lines += [f"| sluiced, IPv4 routing | {offered} | {sm[key]['rx_mpps']:.2f} | "
                  f"{cell(sm[key]['busy_clocks_per_packet'])} |",
                  f"| dpdk-testpmd io | {offered} | {cell(tp.get('rx_mpps'))} | "
                  f"{cell(tp.get('busy_cycles_per_packet'))} |"]
    lines.append(f"| l3fwd LPM | as fast as the generator can | {l3r:.2f} | |")
    tpr = tpm.get("max", {}).get("rx_mpps") or nan
    tpc = tpm.get("fixed", {}).get("busy_cycles_per_packet") or nan
    lines += ["", f"sluiced / testpmd rate: {sm['max']['rx_mpps'] / tpr:.2f}; sluiced / l3fwd rate: "
              f"{sm['max']['rx_mpps'] / l3r:.2f}; sluiced / testpmd busy cycles at "
              f"{FIXED_RATE / 1e6:g} Mpps: {sm['fixed']['busy_clocks_per_packet'] / tpc:.2f}"]
    lines += ["", "| in-process pcap -> null, 64 B | Mpps | busy clocks/pkt | routing nodes clocks/pkt |",
              "|---|---|---|---|"]
    for name, r in (("1 route", r1), (f"{rm.get('routes')} routes, random dst", rm)):
        n = r["nodes_last_trial"]
        routing = sum(n.get(k, 0) for k in ("ethernet-input", "ip4-input", "ip4-lookup", "ip4-rewrite"))
        lines.append(f"| {name} | {r['fwd_mpps']:.2f} | {r['busy_clocks_per_packet']:.1f} | {routing:.1f} |")
    lines.append(f"\n1M-route rate / 1-route rate: {rm['fwd_mpps'] / r1['fwd_mpps']:.2f}; "
                 f"loading {rm.get('routes')} routes by exec: {rm.get('load_seconds', 0):.1f} s")
    lines += ["", modes_table(res["modes"]), "", features_table(res["features"])]
    table = "\n".join(lines)
    (OUT / "bench.md").write_text(table + "\n")
    print("\n" + table)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
