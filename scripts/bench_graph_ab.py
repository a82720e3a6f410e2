# SPDX-License-Identifier: BSD-3-Clause
"""make bench-graph-ab: clocks/packet of bench-graph's routing path (1 route, 64-byte UDP,
pg0 -> pg1), two builds alternated run by run: A is a commit built in a temporary worktree
(AB_BASE, default HEAD~1), B is the working tree's build (SLUICE_BUILD, default build).
AB_ROUNDS rounds (default 5) of A then B, each run a fresh sluiced with BENCH_TRIALS trials
(default 3) of PACKETS packets; per run the medians of the trials; reported: each build's
per-run medians of the whole path and of the routing nodes, the median of each, and B/A;
then each node's median in both builds (the nodes both builds have). bench-graph's tunnel runs are
left out (TUNNELS=0)."""
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = os.environ.get("AB_BASE", "HEAD~1")
ROUNDS = int(os.environ.get("AB_ROUNDS", "5"))
B_BUILD = ROOT / os.environ.get("SLUICE_BUILD", "build")
KEYS = ("whole path", "routing nodes")


def build_base(tmp):
    wt = tmp / "base"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-f", "--detach", str(wt), BASE],
                   check=True, capture_output=True)
    subprocess.run(["meson", "setup", str(wt / "build")], cwd=wt, check=True, capture_output=True)
    subprocess.run(["ninja", "-C", str(wt / "build")], check=True, capture_output=True)
    return wt


def run(build):
    env = dict(os.environ, SLUICE_BUILD=str(build), CG_PACKETS="0", BRIDGE_MACS="0",
               ROUTES="1", TUNNELS="0", BENCH_TRIALS=os.environ.get("BENCH_TRIALS", "3"),
               PACKETS=os.environ.get("PACKETS", "20000000"))
    out = subprocess.run([sys.executable, str(ROOT / "scripts/bench_graph.py")], env=env,
                         check=True, capture_output=True, text=True).stdout
    got = {}
    for key in ("whole path", "routing nodes"):
        m = re.search(rf"{key}\s+per trial: .*median ([0-9.]+)", out)
        got[key] = float(m.group(1))
    # each node's median over the run's trials, from the clocks table
    table = out[out.index("clocks/packet, median"):]
    for m in re.finditer(r"^   ([a-z0-9-]+)\s+([0-9.]+)$", table, re.M):
        got[m.group(1)] = float(m.group(2))
    return got


def main():
    with tempfile.TemporaryDirectory(prefix="sluice-ab-") as t:
        tmp = Path(t)
        wt = build_base(tmp)
        try:
            res = {"A": [], "B": []}
            for r in range(ROUNDS):
                for name, build in (("A", wt / "build"), ("B", B_BUILD)):
                    res[name].append(run(build))
                    sums = {k: res[name][-1][k] for k in KEYS}
                    print(f"round {r + 1} {name}: {sums}", flush=True)
            print(f"A = {BASE} ({subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', BASE], capture_output=True, text=True).stdout.strip()}), "
                  f"B = working tree ({B_BUILD.name}); clocks/packet, per-run medians of {os.environ.get('BENCH_TRIALS', '3')} trials")
            for key in KEYS:
                a = [x[key] for x in res["A"]]
                b = [x[key] for x in res["B"]]
                ma, mb = statistics.median(a), statistics.median(b)
                print(f"   {key:14s} A {', '.join(f'{x:.1f}' for x in a)} (median {ma:.1f}); "
                      f"B {', '.join(f'{x:.1f}' for x in b)} (median {mb:.1f}); B/A {mb / ma:.3f}")
            # node by node, the medians of each build's per-run medians (nodes both have)
            nodes = [k for k in res["B"][0] if k not in KEYS and all(k in x for x in res["A"] + res["B"])]
            print("   per node (median of the runs' medians, A / B): " + ", ".join(
                f"{k} {statistics.median(x[k] for x in res['A']):.1f} / "
                f"{statistics.median(x[k] for x in res['B']):.1f}" for k in nodes))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)],
                           capture_output=True)


if __name__ == "__main__":
    main()
