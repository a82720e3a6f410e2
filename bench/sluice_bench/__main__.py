# SPDX-License-Identifier: BSD-3-Clause
"""python -m sluice_bench TOPOLOGY.yaml: NDR and PDR per frame size, latency at fractions of
NDR, written as JSON, a Markdown table and PNG plots. See bench/README.md."""
import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from .search import expected_trials, interleave, late_text, on_turn, progress_line, search_steps
from .gen import Pausing, RestartingTrial

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from sluice_run import EAL_EXTRA, FWD_CORE, MAIN_CORE, Daemon, wait_or_kill  # noqa: E402

IMIX_BYTES = (7 * 64 + 4 * 570 + 1518) / 12  # average frame, FCS included


class Command:
    """Any DUT started by a command line with {sock} (the memif socket it serves) and {dir}
    (its run folder, where the generator's vdevs find other sockets)."""

    def __init__(self, cmd, run, warmup):
        self.cmd, self.run, self.warmup = cmd, run, warmup

    def __enter__(self):
        self.log = open(self.run / "dut.log", "w")
        cmd = self.cmd.format(sock=self.run / "memif.sock", dir=self.run, main=MAIN_CORE, fwd=FWD_CORE,
                              eal=" ".join(EAL_EXTRA))
        self.p = subprocess.Popen(cmd, shell=True,
                                  stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
                                  start_new_session=True)
        time.sleep(self.warmup)
        if self.p.poll() is not None:
            raise RuntimeError((self.run / "dut.log").read_text()[-2000:])
        return self

    def __exit__(self, *exc):
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGCONT)  # were it paused between trials
            os.killpg(self.p.pid, signal.SIGTERM)  # the command's own process group, by its pid
            wait_or_kill(self.p)
        self.log.close()

    def signal(self, sig):
        if self.p.poll() is None:
            os.killpg(self.p.pid, sig)


class SluicedDut:
    """sluiced, then the topology's CLI lines (each must succeed), then warmup seconds before
    the generator starts (as a command DUT's warmup_s: a comparison gives every DUT the same)."""

    def __init__(self, daemon, lines, warmup=0.0):
        self.d, self.lines, self.warmup = daemon, lines, warmup

    def __enter__(self):
        self.d.__enter__()
        try:
            for line in self.lines:
                r = self.d.cli_raw(line)
                if r.returncode:
                    raise RuntimeError(f"sluiced refused '{line}': {r.stdout}{r.stderr}")
            time.sleep(self.warmup)
        except BaseException:
            self.d.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        self.signal(signal.SIGCONT)  # were it paused between trials
        self.d.__exit__(*exc)

    def signal(self, sig):
        if self.d.proc and self.d.proc.poll() is None:
            os.kill(self.d.proc.pid, sig)


def placed(conf):
    """A sluiced DUT's startup.conf moved to the cores of BENCH_CORES (main lcore, worker) and
    given BENCH_EAL's arguments, as a many-core machine without DPDK needs
    (scripts/device_sluice_bench.sh); unchanged when neither is set."""
    if "BENCH_CORES" in os.environ:
        conf = re.sub(r"main-core \d+", f"main-core {MAIN_CORE}", conf)
        conf = re.sub(r"corelist-workers \S+", f"corelist-workers {FWD_CORE}", conf)
    if EAL_EXTRA:
        conf = re.sub(r"^dpdk \{", 'dpdk {\n  eal-args "%s"' % " ".join(EAL_EXTRA).replace("\\", r"\\"), conf,
                      count=1, flags=re.M)  # the section, not a comment naming it
    return conf


def dut_of(d, run):
    """A DUT (a topology's `dut`, or one of its `duts`) as a context manager, in run."""
    if d["kind"] == "sluiced":
        conf = (ROOT / d["startup"]).read_text().replace("@DIR@/../../conf", str(ROOT / "conf"))
        return SluicedDut(Daemon(placed(conf.replace("@DIR@", str(run))), run), d.get("cli", []),
                          d.get("warmup_s", 0))
    if d["kind"] == "command":
        return Command(d["cmd"], run, d.get("warmup_s", 3))
    raise SystemExit(f"dut kind {d['kind']}: sluiced or command")


def check_sizes(topo):
    """Frames too small for the generator's signature would all count as lost: refused here.
    IPv6/UDP needs 84 bytes (Ethernet 14, IPv6 40, UDP 8, signature 18, FCS 4), so IMIX's
    64-byte frames cannot be IPv6."""
    g = topo.get("gen", {})
    if ":" not in str(g.get("dst_first", "")):
        return
    for size in topo.get("search", {}).get("sizes", [64]):
        if size == "imix" or int(size) < 84:
            raise SystemExit(f"{topo['name']}: size {size}: IPv6 streams need frames of 84 bytes "
                             "or more to carry the generator's signature (imix has 64-byte ones)")


def stream_for(size, g):
    """The generator's stream: UDP from src to the destinations dst_first to dst_last (each
    in turn, or in a random order with dst_random) and the ports dports, IPv6 when they are."""
    sz = "imix" if size == "imix" else str(int(size) - 4)  # the stream's sizes leave out the FCS
    fam = "IP6" if ":" in g["dst_first"] else "IP4"
    rnd = " random" if g.get("dst_random") else ""
    return (f"size {sz} data {{ {fam}: 02:00:00:00:00:01 -> {g['dst_mac']} "
            f"UDP: {g.get('src', '10.10.1.2')} -> {g['dst_first']} - {g['dst_last']}{rnd} "
            f"UDP: 2123 -> {g.get('dports', '10000-10099')} }}")


def plots(res, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = [r["size"] for r in res["sizes"]]
    x = range(len(sizes))
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for kind in ("ndr", "pdr"):
        ax[0].plot(x, [r[kind]["mpps"] for r in res["sizes"]], "o-", label=kind.upper())
        ax[1].plot(x, [r[kind]["gbps"] for r in res["sizes"]], "o-", label=kind.upper())
    for a, t in zip(ax, ("Mpps", "Gbps (L1)")):
        a.set_xticks(list(x), [str(s) for s in sizes])
        a.set_xlabel("frame bytes")
        a.set_ylabel(t)
        a.legend()
    fig.suptitle(res["name"])
    fig.tight_layout()
    fig.savefig(out / "throughput.png")
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in res["sizes"]:
        lat = r["latency"]
        if lat:
            ax.plot([l["fraction"] for l in lat], [l["latency_us"]["p50"] for l in lat], "o-",
                    label=f"{r['size']} p50")
            ax.plot([l["fraction"] for l in lat], [l["latency_us"]["p99"] for l in lat], "x--",
                    label=f"{r['size']} p99")
    ax.set_xlabel("fraction of NDR")
    ax.set_ylabel("latency (us)")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "latency.png")
    # every trial of both searches: the loss each offered load met
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in res["sizes"]:
        pts = sorted((t["offered_mpps"], t["loss_ratio"]) for k in ("ndr", "pdr") for t in r[k]["trial_log"])
        ax.plot([p[0] for p in pts], [p[1] * 100 for p in pts], "o", label=str(r["size"]))
    ax.set_xlabel("offered load (Mpps)")
    ax.set_ylabel("loss (%)")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.legend(title="frame bytes")
    fig.tight_layout()
    fig.savefig(out / "loss.png")


def max_rate(sr, frame_bytes):
    """The search's top rate in packets/s: max_mpps, and no more than max_gbps of line rate
    (frames, preamble and gap) when given: the generator refuses a rate above its port's."""
    top = sr.get("max_mpps", 15) * 1e6
    if sr.get("max_gbps"):
        top = min(top, sr["max_gbps"] * 1e9 / ((frame_bytes + 20) * 8))
    return top


def duts_of(topo):
    """The topology's DUTs as (name, dut): its `duts` list (each with a name) or its `dut`."""
    if "duts" in topo:
        return [(d["name"], d) for d in topo["duts"]]
    return [(topo["name"], topo["dut"])]


def stats(v):
    return {"median": statistics.median(v), "min": min(v), "max": max(v)} if v else None


@contextlib.contextmanager
def run_folder(prefix="sluice-bench-"):
    """The folder of a run's DUTs and generators (their sockets and logs): removed after a run
    that ends, kept and named on stderr after one that fails."""
    run = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield run
    except BaseException:
        print(f"sluice-bench: the DUTs' and generators' logs are kept in {run}", file=sys.stderr)
        raise
    shutil.rmtree(run, ignore_errors=True)


def dut_trial(topo, d, sub, size):
    """The RestartingTrial of DUT d (run folder sub) at a frame size: its generator as the
    topology's gen with the DUT's own gen settings over it; gen.drain_ms, gen.rxd and gen.txd
    are sluice-gen's --drain-ms, --rxd and --txd (its defaults, 500, 1024 and 1024, without)."""
    sub.mkdir(parents=True)
    g = {**topo["gen"], **d.get("gen", {})}
    args = [a for k in ("drain_ms", "rxd", "txd") if k in g
            for a in ("--" + k.replace("_", "-"), str(int(g[k])))]
    return RestartingTrial(lambda: dut_of(d, sub), sub / "memif.sock", huge=g.get("huge", True),
                           stream=stream_for(size, g), vdevs=g.get("vdevs"), eal=g.get("eal", []),
                           gen_args=args)


def trial_log(ts):
    return [{"offered_mpps": t.offered_pps / 1e6, "rx_mpps": t.rx_pps / 1e6, "seconds": t.seconds,
             "loss_ratio": t.loss_ratio, "refused": t.refused, "gen_busy_pct": t.gen_busy_pct,
             "gen_late_us": t.gen_late_us}
            for t in ts]


def run_topology(topo, out, log=print, repeat=1):
    """Every frame size of the topology's search: NDR, PDR, latency at fractions of NDR, with
    fresh DUTs and generators per size. With several DUTs (`duts`) their searches run trial
    by trial (A B A B ..., the DUT not on trial stopped), `repeat` times. Writes results.json,
    results.md and the plots into out; returns the Markdown table's lines."""
    sr = topo.get("search", {})
    out.mkdir(parents=True, exist_ok=True)
    with run_folder() as run:
        duts = duts_of(topo)
        multi = len(duts) > 1
        fractions = sr.get("latency_at", [0.1, 0.5, 0.9])
        per_size = []
        for size in sr.get("sizes", [64]):
            fb = IMIX_BYTES if size == "imix" else int(size)
            top = max_rate(sr, fb)
            with contextlib.ExitStack() as stack:
                trials = {}
                for name, d in duts:
                    t = stack.enter_context(dut_trial(topo, d, run / f"size-{size}" / name, size))
                    trials[name] = Pausing(t) if multi else t
                    if multi:
                        trials[name].pause()  # only the DUT on trial runs
                runs = {name: [] for name, _ in duts}
                for rep in range(repeat):
                    r = {name: {"size": size} for name, _ in duts}
                    for kind, loss in (("ndr", 0.0), ("pdr", sr.get("pdr_loss", 0.005))):
                        log(f"{topo['name']}: {kind.upper()} at {size}"
                            + (f", {' / '.join(trials)} trial by trial" if multi else "")
                            + (f", repeat {rep + 1} of {repeat}" if repeat > 1 else ""))
                        mk = lambda: search_steps(  # noqa: E731
                            max_pps=top, loss_ratio=loss,
                            min_pps=sr.get("min_mpps", 0.1) * 1e6, precision=sr.get("precision", 0.02),
                            short_s=sr.get("short_s", 1), final_s=sr.get("final_s", 5))
                        expected = expected_trials(top, sr.get("min_mpps", 0.1) * 1e6,
                                                   sr.get("precision", 0.02))
                        count = {}

                        def note(name, rate, secs, t, loss=loss, count=count, expected=expected):
                            count[name] = count.get(name, 0) + 1
                            line = progress_line(count[name], expected, rate, secs, t, loss)
                            log(f"  {name + ': ' if multi else ''}{line}")
                        res = interleave(trials, mk, note)
                        for name, s in res.items():
                            log(f"  {name + ': ' if multi else ''}[{'#' * 20}] {kind.upper()} "
                                f"{s.rate_pps / 1e6:.4f} Mpps after {len(s.trials)} trials")
                            r[name][kind] = {"mpps": s.rate_pps / 1e6,
                                             "gbps": s.rate_pps * (fb + 20) * 8 / 1e9,
                                             "trials": len(s.trials), "trial_log": trial_log(s.trials)}
                    for name in trials:
                        r[name]["latency"] = []
                    for f in fractions:
                        for name, tr in trials.items():  # interleaved too
                            rate = int(r[name]["ndr"]["mpps"] * 1e6 * f)
                            if rate < 1000:
                                continue
                            t = on_turn(tr, rate, sr.get("final_s", 5))
                            r[name]["latency"].append({"fraction": f, "mpps": t.rx_pps / 1e6,
                                                       "latency_us": t.latency_us, "loss_ratio": t.loss_ratio,
                                                       "refused": t.refused, "gen_busy_pct": t.gen_busy_pct})
                    for name, tr in trials.items():
                        r[name]["dut_restarts"] = (tr.trial if multi else tr).restarts
                        runs[name].append(r[name])
                per_size.append((size, runs))
        if "duts" not in topo and repeat == 1:
            res = {"name": topo["name"], "topology": topo,
                   "sizes": [runs[duts[0][0]][0] for _, runs in per_size]}
            (out / "results.json").write_text(json.dumps(res, indent=2))
            lines = single_table(res, fractions)
            (out / "results.md").write_text("\n".join(lines) + "\n")
            plots(res, out)
            return lines
        res = compare_results(topo, duts, per_size, repeat, fractions)
        (out / "results.json").write_text(json.dumps(res, indent=2))
        lines = compare_table(res, fractions)
        (out / "results.md").write_text("\n".join(lines) + "\n")
        compare_plots(res, out)
        return lines


def single_table(res, fractions):
    lines = [f"# {res['name']}", "",
             "| frame bytes | NDR Mpps | NDR Gbps | PDR Mpps | PDR Gbps | latency p50 / p99 us at "
             + ", ".join(f"{int(f * 100)}%" for f in fractions)
             + " of NDR | DUT restarts |",
             "|---|---|---|---|---|---|---|"]
    for r in res["sizes"]:
        lat = ", ".join(f"{l['latency_us']['p50']:.1f} / {l['latency_us']['p99']:.1f}" for l in r["latency"])
        lines.append(f"| {r['size']} | {r['ndr']['mpps']:.3f} | {r['ndr']['gbps']:.2f} | "
                     f"{r['pdr']['mpps']:.3f} | {r['pdr']['gbps']:.2f} | {lat} | {r['dut_restarts']} |")
    return lines


def compare_results(topo, duts, per_size, repeat, fractions):
    """Per size and DUT: every run, medians and spread of NDR, PDR, p99 and longest latency; per DUT
    its ratio to the baseline (topology's `baseline`, default the last DUT) run by run."""
    names = [n for n, _ in duts]
    base = topo.get("baseline", names[-1])
    if base not in names:
        raise SystemExit(f"baseline {base}: not one of the DUTs {names}")
    res = {"name": topo["name"], "topology": topo, "duts": names, "baseline": base, "repeat": repeat,
           "sizes": []}
    for size, runs in per_size:
        e = {"size": size, "duts": {}}
        for n in names:
            rs = runs[n]
            logs = [t for r in rs for k in ("ndr", "pdr") for t in r[k]["trial_log"]]
            e["duts"][n] = {
                "runs": rs,
                "ndr_mpps": stats([r["ndr"]["mpps"] for r in rs]),
                "pdr_mpps": stats([r["pdr"]["mpps"] for r in rs]),
                "p99_us": {str(f): stats([l["latency_us"]["p99"] for r in rs for l in r["latency"]
                                          if l["fraction"] == f and l["latency_us"]])
                           for f in fractions},
                "max_us": {str(f): stats([l["latency_us"]["max"] for r in rs for l in r["latency"]
                                          if l["fraction"] == f and l["latency_us"]])
                           for f in fractions},
                "gen_busy_pct_max": max((t["gen_busy_pct"] or 0) for t in logs) if logs else None,
                "refused": sum(t["refused"] for t in logs),
                "dut_restarts": sum(r["dut_restarts"] for r in rs),
            }
        e["ratios"] = {}
        for n in names:
            if n == base:
                continue
            rr = {}
            for k in ("ndr", "pdr"):
                v = [a[k]["mpps"] / b[k]["mpps"] for a, b in zip(runs[n], runs[base]) if b[k]["mpps"] > 0]
                rr[k] = {"runs": v, **(stats(v) or {})}
            for f in fractions:  # p99 latency, DUT over baseline, run by run
                v = []
                for a, b in zip(runs[n], runs[base]):
                    la = [l for l in a["latency"] if l["fraction"] == f and l["latency_us"]]
                    lb = [l for l in b["latency"] if l["fraction"] == f and l["latency_us"]]
                    if la and lb and lb[0]["latency_us"]["p99"] > 0:
                        v.append(la[0]["latency_us"]["p99"] / lb[0]["latency_us"]["p99"])
                rr[f"p99_at_{f}"] = {"runs": v, **(stats(v) or {})}
            e["ratios"][n] = rr
        res["sizes"].append(e)
    return res


def fmt_stats(s, p=3):
    if not s:
        return "-"
    return f"{s['median']:.{p}f} ({s['min']:.{p}f}-{s['max']:.{p}f})"


def compare_table(res, fractions):
    half = 0.5 if 0.5 in fractions else fractions[0]
    lines = [f"# {res['name']}", "",
             f"DUTs trial by trial: {' / '.join(res['duts'])}; {res['repeat']} repeat(s); medians "
             f"(min-max); ratios are DUT / {res['baseline']}, the median of the repeats' ratios.", "",
             f"| frame bytes | DUT | NDR Mpps | PDR Mpps | NDR ratio | PDR ratio | p99 us at "
             f"{int(half * 100)}% NDR | p99 ratio | longest us at {int(half * 100)}% NDR | generator busiest % "
             f"| refused by the generator's TX ring | DUT restarts |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in res["sizes"]:
        for n in res["duts"]:
            d, rt = e["duts"][n], e["ratios"].get(n)

            def ratio(k):
                return f"{rt[k]['median']:.2f}" if rt and rt[k].get("median") is not None else "-"
            busy = f"{d['gen_busy_pct_max']:.0f}" if d["gen_busy_pct_max"] is not None else "-"
            lines.append(f"| {e['size']} | {n} | {fmt_stats(d['ndr_mpps'])} | {fmt_stats(d['pdr_mpps'])} | "
                         f"{ratio('ndr')} | {ratio('pdr')} | {fmt_stats(d['p99_us'][str(half)], 1)} | "
                         f"{ratio(f'p99_at_{half}')} | {fmt_stats(d['max_us'][str(half)], 1)} | {busy} | "
                         f"{d['refused']} | {d['dut_restarts']} |")
    return lines


def compare_plots(res, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = [str(e["size"]) for e in res["sizes"]]
    names = res["duts"]
    w = 0.8 / len(names)
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for k, a in zip(("ndr", "pdr"), ax):
        for i, n in enumerate(names):
            med = [e["duts"][n][f"{k}_mpps"]["median"] for e in res["sizes"]]
            lo = [m - e["duts"][n][f"{k}_mpps"]["min"] for m, e in zip(med, res["sizes"])]
            hi = [e["duts"][n][f"{k}_mpps"]["max"] - m for m, e in zip(med, res["sizes"])]
            a.bar([x + i * w for x in range(len(sizes))], med, w, yerr=[lo, hi], label=n, capsize=3)
        a.set_xticks([x + w * (len(names) - 1) / 2 for x in range(len(sizes))], sizes)
        a.set_xlabel("frame bytes")
        a.set_ylabel(f"{k.upper()} Mpps (median, min-max)")
        a.legend()
    fig.suptitle(f"{res['name']}: trial by trial, {res['repeat']} repeat(s)")
    fig.tight_layout()
    fig.savefig(out / "throughput.png")
    fig, ax = plt.subplots(figsize=(6, 4))
    for e in res["sizes"]:
        for n in names:
            pts = sorted((float(f), s["median"]) for f, s in e["duts"][n]["p99_us"].items() if s)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{n} {e['size']} p99")
    ax.set_xlabel("fraction of NDR")
    ax.set_ylabel("p99 latency (us)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "latency.png")
    fig, ax = plt.subplots(figsize=(6, 4))
    for e in res["sizes"]:
        for n in names:
            pts = [(t["offered_mpps"], t["loss_ratio"]) for r in e["duts"][n]["runs"]
                   for k in ("ndr", "pdr") for t in r[k]["trial_log"]]
            ax.plot([p[0] for p in pts], [p[1] * 100 for p in pts], "o", label=f"{n} {e['size']}", alpha=0.6)
    ax.set_xlabel("offered load (Mpps)")
    ax.set_ylabel("loss (%)")
    ax.set_yscale("symlog", linthresh=0.01)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "loss.png")


def run_fixed(topo, out, at_mpps, trials, seconds=0.5, overload_mpps=0.0, log=print):
    """Trials at one offered rate, the DUTs in turn (A B A B ..., the one not on trial
    stopped), each trial after overload_mpps for 0.5 s when given (what a search's first step
    leaves behind): per DUT the trials that lost, the mean and worst loss, the generator's
    TX-ring refusals, the trials that got back less than half the offered load, and the
    median and worst of the trials' p99 latencies. The first frame size of the topology.
    Writes fixed.json and fixed.md; returns the lines."""
    sr = topo.get("search", {})
    size = sr.get("sizes", [64])[0]
    out.mkdir(parents=True, exist_ok=True)
    with run_folder() as run:
        duts = duts_of(topo)
        logs = {n: [] for n, _ in duts}
        with contextlib.ExitStack() as stack:
            tr = {}
            for name, d in duts:
                t = stack.enter_context(dut_trial(topo, d, run / name, size))
                tr[name] = Pausing(t)
                tr[name].pause()
            for k in range(trials):
                for name, p in tr.items():
                    p.resume()
                    try:
                        if overload_mpps:
                            p.trial.gen.run(overload_mpps * 1e6, 0.5)
                        t = p(at_mpps * 1e6, seconds)
                    finally:
                        p.pause()
                    logs[name].append({"loss_ratio": t.loss_ratio, "refused": t.refused,
                                       "rx_mpps": t.rx_pps / 1e6, "gen_busy_pct": t.gen_busy_pct,
                                       "gen_late_us": t.gen_late_us,
                                       "p99_us": (t.latency_us or {}).get("p99")})
                    log(f"  {name}: trial {k + 1}/{trials} at {at_mpps} Mpps"
                        f"{f' after {overload_mpps} Mpps' if overload_mpps else ''}: "
                        f"loss {t.loss_ratio:.5f}, "
                        f"{t.refused} refused, generator {t.gen_busy_pct:.0f}% busy"
                        + (f", {late_text(t)}" if late_text(t) else ""))
        res = {"name": topo["name"], "size": size, "at_mpps": at_mpps, "seconds": seconds,
               "overload_mpps": overload_mpps, "duts": {}}
        for name, lg in logs.items():
            losses = [x["loss_ratio"] for x in lg]
            res["duts"][name] = {"trials": lg, "lossy": sum(x > 0 for x in losses),
                                 "mean_loss": statistics.mean(losses), "worst_loss": max(losses),
                                 "refused": sum(x["refused"] for x in lg),
                                 "below_half": sum(x["rx_mpps"] < at_mpps / 2 for x in lg)}
            p99 = [x["p99_us"] for x in lg if x["p99_us"] is not None]
            res["duts"][name]["p99_us"] = {"median": statistics.median(p99) if p99 else None,
                                           "worst": max(p99) if p99 else None}
        (out / "fixed.json").write_text(json.dumps(res, indent=2))
        lines = [f"# {topo['name']}: {trials} trials of {seconds} s at {at_mpps} Mpps, {size} B, DUTs in turn"
                 + (f", each after 0.5 s at {overload_mpps} Mpps" if overload_mpps else ""), "",
                 "| DUT | trials with loss | mean loss % | worst loss % | refused by the generator's TX ring "
                 "| trials under half the load | p99 us, median of trials | p99 us, worst trial |",
                 "|---|---|---|---|---|---|---|---|"]
        for name, d in res["duts"].items():
            lines.append(f"| {name} | {d['lossy']} of {trials} | {d['mean_loss'] * 100:.4f} | "
                         f"{d['worst_loss'] * 100:.3f} | {d['refused']} | {d['below_half']} | "
                         f"{d['p99_us']['median']} | {d['p99_us']['worst']} |")
        (out / "fixed.md").write_text("\n".join(lines) + "\n")
        return lines


def main():
    ap = argparse.ArgumentParser(prog="sluice-bench")
    ap.add_argument("topology")
    ap.add_argument("--out", help="folder for results (default results/NAME)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the whole search this many times; medians and spread")
    ap.add_argument("--at", type=float, metavar="MPPS",
                    help="no search: --trials trials at this rate, the DUTs in turn")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=0.5, help="of each --at trial")
    ap.add_argument("--overload", type=float, default=0.0, metavar="MPPS",
                    help="with --at: 0.5 s at this rate before each trial")
    a = ap.parse_args()
    # SIGTERM, and SIGINT even where a shell started this in the background with it
    # ignored, end the run through the same clean-up as Ctrl-C: the DUTs and generators go
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)
    if a.repeat < 1 or a.trials < 1:
        raise SystemExit("--repeat and --trials: 1 or more")
    topo = yaml.safe_load(open(a.topology))
    check_sizes(topo)
    out = Path(a.out or ROOT / "results" / topo["name"])
    say = lambda m: print(m, flush=True)  # noqa: E731
    if a.at:
        lines = run_fixed(topo, out, a.at, a.trials, a.seconds, a.overload, log=say)
        print("\n".join(lines))
        print(f"\n{out}/fixed.json, fixed.md")
        return
    lines = run_topology(topo, out, log=say, repeat=a.repeat)
    print("\n".join(lines))
    print(f"\n{out}/results.json, results.md, throughput.png, latency.png, loss.png")


if __name__ == "__main__":
    main()
