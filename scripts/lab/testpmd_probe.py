# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/testpmd_probe.py [RATE] [REPS]: does the machine take the CPU
from sluiced's worker more often than from testpmd's forwarder? Alternates the two DUTs of
bench/topologies/memif-sluiced-vs-testpmd-io.yaml, a fresh one per rep: 3 s idle, one 2 s
trial at RATE (default 1e6) 64-byte frames, then the forwarder's turns over its whole life
(sluiced: show runtime's turn histogram; testpmd: a copy built with bench.probe_patch, which
times its loop the same way and prints the histogram when it stops; TESTPMD_PROBE names a
prebuilt one). Prints per rep the loss, the p99, the turns per second longer than 31, 62,
125 and 250 us, and the longest (SLUICED_FROM_TRIAL=1: sluiced's from just before the trial,
after a clear runtime). Place it with BENCH_CORES / BENCH_EAL."""
import os
import re
import sys
import tempfile
import time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from bench import build_testpmd  # noqa: E402
from sluice_bench.__main__ import dut_of, stream_for  # noqa: E402
from sluice_bench.gen import RestartingTrial  # noqa: E402

BOUNDS = (31, 62, 125, 250)


def long_turns(hist, secs):
    """hist: (from-us, count) pairs; the turns per second at or over each bound."""
    return {b: sum(c for f, c in hist if f >= b * 0.99) / secs for b in BOUNDS}


topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced-vs-testpmd-io.yaml"))
rate = float(sys.argv[1]) if len(sys.argv) > 1 else 1e6
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
tmp = Path(tempfile.mkdtemp(prefix="tp-probe-"))
probe = os.environ.get("TESTPMD_PROBE") or str(build_testpmd(tmp, probe=True))
print(f"testpmd with the probe: {probe}", flush=True)
sl, tp = topo["duts"]
tp = dict(tp, cmd=tp["cmd"].replace("$TESTPMD", probe))
for rep in range(reps):
    for d in (sl, tp):
        run = tmp / f"{d['name']}-{rep}"
        run.mkdir()
        t0 = time.time()
        with RestartingTrial(lambda d=d, run=run: dut_of(d, run), run / "memif.sock",
                             stream=stream_for(64, topo["gen"])) as tr:
            time.sleep(3)
            if d["kind"] == "sluiced" and os.environ.get("SLUICED_FROM_TRIAL"):
                tr.dut.d.cli("clear runtime")  # its turns from here on, not since its start
                t0 = time.time()
            t = tr(rate, 2.0)
            if d["kind"] == "sluiced":
                rt = tr.dut.d.js("show runtime")
                hist = [(h["from-us"], h["turns"]) for h in rt["turn-histogram"]]
                longest = rt["turns"][0]["longest-us"]
                life = time.time() - t0
        if d["kind"] != "sluiced":
            life = time.time() - t0
        if d["kind"] != "sluiced":
            m = re.search(r"probe: lcore \d+ turns (\d+) longest-us ([\d.]+) histogram(.*)",
                          (run / "dut.log").read_text())
            if not m:
                raise SystemExit("no probe line in " + str(run / "dut.log"))
            longest = float(m.group(2))
            hist = [(float(a), int(b)) for a, b in (x.split(":") for x in m.group(3).split())]
        per_s = long_turns(hist, life)
        lat = t.latency_us or {}
        print(f"rep {rep} {d['name']:10s} loss {t.loss_ratio:.6f} refused {t.refused:6d} p99 {lat.get('p99')} us; "
              f"turns/s over " + ", ".join(f"{b} us {v:.1f}" for b, v in per_s.items()) +
              f"; longest {longest:.1f} us ({life:.1f} s)", flush=True)
