# SPDX-License-Identifier: BSD-3-Clause
"""python -m sluice_bench TOPOLOGY.yaml: NDR and PDR per frame size, latency at fractions of
NDR, written as JSON, a Markdown table and PNG plots. See bench/README.md."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from .search import search
from .gen import RestartingTrial

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from sluice_run import Daemon, wait_or_kill  # noqa: E402

IMIX_BYTES = (7 * 64 + 4 * 570 + 1518) / 12  # average frame, FCS included


class Command:
    """Any DUT started by a command line with {sock} (the memif socket it serves)."""

    def __init__(self, cmd, run, warmup):
        self.cmd, self.run, self.warmup = cmd, run, warmup

    def __enter__(self):
        self.log = open(self.run / "dut.log", "w")
        self.p = subprocess.Popen(self.cmd.format(sock=self.run / "memif.sock"), shell=True,
                                  stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
                                  start_new_session=True)
        time.sleep(self.warmup)
        if self.p.poll() is not None:
            raise RuntimeError((self.run / "dut.log").read_text()[-2000:])
        return self

    def __exit__(self, *exc):
        if self.p.poll() is None:
            os.killpg(self.p.pid, 15)  # the command's own process group, by its pid
            wait_or_kill(self.p)
        self.log.close()


class SluicedDut:
    """sluiced, then the topology's CLI lines (each must succeed)."""

    def __init__(self, daemon, lines):
        self.d, self.lines = daemon, lines

    def __enter__(self):
        self.d.__enter__()
        try:
            for line in self.lines:
                r = self.d.cli_raw(line)
                if r.returncode:
                    raise RuntimeError(f"sluiced refused '{line}': {r.stdout}{r.stderr}")
        except BaseException:
            self.d.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        self.d.__exit__(*exc)


def dut_of(topo, run):
    d = topo["dut"]
    if d["kind"] == "sluiced":
        conf = (ROOT / d["startup"]).read_text().replace("@DIR@/../../conf", str(ROOT / "conf"))
        return SluicedDut(Daemon(conf.replace("@DIR@", str(run)), run), d.get("cli", []))
    if d["kind"] == "command":
        return Command(d["cmd"], run, d.get("warmup_s", 3))
    raise SystemExit(f"dut kind {d['kind']}: sluiced or command")


def stream_for(size, g):
    sz = "imix" if size == "imix" else str(int(size) - 4)  # the stream's sizes leave out the FCS
    return (f"size {sz} data {{ IP4: 02:00:00:00:00:01 -> {g['dst_mac']} "
            f"UDP: {g.get('src', '10.10.1.2')} -> {g['dst_first']} - {g['dst_last']} "
            f"UDP: 2123 -> 10000-10099 }}")


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


def run_topology(topo, out, log=print):
    """Every frame size of the topology's search: NDR, PDR, latency at fractions of NDR, with
    a fresh DUT and generator per size. Writes results.json, results.md and the plots into
    out; returns the Markdown table's lines."""
    g, sr = topo["gen"], topo.get("search", {})
    out.mkdir(parents=True, exist_ok=True)
    run = Path(tempfile.mkdtemp(prefix="sluice-bench-"))
    res = {"name": topo["name"], "topology": topo, "sizes": []}
    huge = g.get("huge", True)

    def progress(msg):
        log(f"  {msg}")

    for size in sr.get("sizes", [64]):
        sub = run / f"size-{size}"
        sub.mkdir()
        spec = stream_for(size, g)
        with RestartingTrial(lambda: dut_of(topo, sub), sub / "memif.sock", huge=huge,
                             stream=spec, vdevs=g.get("vdevs"), eal=g.get("eal", [])) as trial:
            fb = IMIX_BYTES if size == "imix" else int(size)
            r = {"size": size}
            for kind, loss in (("ndr", 0.0), ("pdr", sr.get("pdr_loss", 0.005))):
                log(f"{res['name']}: {kind.upper()} at {size}")
                s = search(trial, max_pps=sr.get("max_mpps", 15) * 1e6, loss_ratio=loss,
                           min_pps=sr.get("min_mpps", 0.1) * 1e6, precision=sr.get("precision", 0.02),
                           short_s=sr.get("short_s", 1), final_s=sr.get("final_s", 5),
                           progress=progress)
                log(f"  [{'#' * 20}] {kind.upper()} {s.rate_pps / 1e6:.4f} Mpps after {len(s.trials)} trials")
                r[kind] = {"mpps": s.rate_pps / 1e6, "gbps": s.rate_pps * (fb + 20) * 8 / 1e9,
                           "trials": len(s.trials),
                           "trial_log": [{"offered_mpps": t.offered_pps / 1e6, "seconds": t.seconds,
                                          "loss_ratio": t.loss_ratio, "gen_busy_pct": t.gen_busy_pct}
                                         for t in s.trials]}
            r["latency"] = []
            for f in sr.get("latency_at", [0.1, 0.5, 0.9]):
                rate = int(r["ndr"]["mpps"] * 1e6 * f)
                if rate < 1000:
                    continue
                t = trial(rate, sr.get("final_s", 5))
                r["latency"].append({"fraction": f, "mpps": t.rx_pps / 1e6,
                                     "latency_us": t.latency_us})
            r["dut_restarts"] = trial.restarts
            res["sizes"].append(r)
    (out / "results.json").write_text(json.dumps(res, indent=2))
    lines = [f"# {res['name']}", "",
             "| frame bytes | NDR Mpps | NDR Gbps | PDR Mpps | PDR Gbps | latency p50 / p99 us at "
             + ", ".join(f"{int(f * 100)}%" for f in sr.get("latency_at", [0.1, 0.5, 0.9]))
             + " of NDR | DUT restarts |",
             "|---|---|---|---|---|---|---|"]
    for r in res["sizes"]:
        lat = ", ".join(f"{l['latency_us']['p50']:.1f} / {l['latency_us']['p99']:.1f}" for l in r["latency"])
        lines.append(f"| {r['size']} | {r['ndr']['mpps']:.3f} | {r['ndr']['gbps']:.2f} | "
                     f"{r['pdr']['mpps']:.3f} | {r['pdr']['gbps']:.2f} | {lat} | {r['dut_restarts']} |")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    plots(res, out)
    return lines


def main():
    ap = argparse.ArgumentParser(prog="sluice-bench")
    ap.add_argument("topology")
    ap.add_argument("--out", help="folder for results (default results/NAME)")
    a = ap.parse_args()
    topo = yaml.safe_load(open(a.topology))
    out = Path(a.out or ROOT / "results" / topo["name"])
    lines = run_topology(topo, out, log=lambda m: print(m, flush=True))
    print("\n".join(lines))
    print(f"\n{out}/results.json, results.md, throughput.png, latency.png, loss.png")


if __name__ == "__main__":
    main()
