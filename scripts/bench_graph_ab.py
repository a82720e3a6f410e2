# SPDX-License-Identifier: BSD-3-Clause
"""make bench-graph-ab: clocks/packet of bench-graph's routing path (1 route, 64-byte UDP,
pg0 -> pg1), two builds alternated run by run: A is a commit built in a temporary worktree
(AB_BASE, default HEAD~1), B is the working tree's build (SLUICE_BUILD, default build).
AB_ROUNDS rounds (default 5) of A then B, each run a fresh sluiced with BENCH_TRIALS trials
(default 3) of PACKETS packets; per run the medians of the trials; reported: each build's
per-run medians of the whole path and of the routing nodes, the median of each, and B/A."""
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


def build_base(tmp):
    wt = tmp / "base"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-f", "--detach", str(wt), BASE],
                   check=True, capture_output=True)
    subprocess.run(["meson", "setup", str(wt / "build")], cwd=wt, check=True, capture_output=True)
    subprocess.run(["ninja", "-C", str(wt / "build")], check=True, capture_output=True)
    return wt


def run(build):
    env = dict(os.environ, SLUICE_BUILD=str(build), CG_PACKETS="0", BRIDGE_MACS="0",
               ROUTES="1", BENCH_TRIALS=os.environ.get("BENCH_TRIALS", "3"),
               PACKETS=os.environ.get("PACKETS", "20000000"))
    out = subprocess.run([sys.executable, str(ROOT / "scripts/bench_graph.py")], env=env,
                         check=True, capture_output=True, text=True).stdout
    got = {}
    for key in ("whole path", "routing nodes"):
        m = re.search(rf"{key}\s+per trial: .*median ([0-9.]+)", out)
        got[key] = float(m.group(1))
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
                    print(f"round {r + 1} {name}: {res[name][-1]}", flush=True)
            print(f"A = {BASE} ({subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', BASE], capture_output=True, text=True).stdout.strip()}), "
                  f"B = working tree ({B_BUILD.name}); clocks/packet, per-run medians of {os.environ.get('BENCH_TRIALS', '3')} trials")
            for key in ("whole path", "routing nodes"):
                a = [x[key] for x in res["A"]]
                b = [x[key] for x in res["B"]]
                ma, mb = statistics.median(a), statistics.median(b)
                print(f"   {key:14s} A {', '.join(f'{x:.1f}' for x in a)} (median {ma:.1f}); "
                      f"B {', '.join(f'{x:.1f}' for x in b)} (median {mb:.1f}); B/A {mb / ma:.3f}")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)],
                           capture_output=True)


if __name__ == "__main__":
    main()
