# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/cpu_switches.py TOPOLOGY [CPU] [RATE]: the single DUT of a memif
topology (bench/topologies/memif-sluiced.yaml, memif-testpmd-io.yaml with $TESTPMD) offered
RATE (default 1e6) 64-byte frames for 2 s while `perf sched record -C CPU` (default 1, the
forwarder's) runs: which tasks the CPU switched to, by name, i.e. what took it from the
forwarder. Place the DUT with BENCH_CORES / BENCH_EAL."""
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from sluice_bench.__main__ import dut_of, stream_for  # noqa: E402
from sluice_bench.gen import RestartingTrial  # noqa: E402

topo = yaml.safe_load(open(sys.argv[1]))
cpu = sys.argv[2] if len(sys.argv) > 2 else "1"
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 1e6
run = Path(tempfile.mkdtemp(prefix="cpu-switches-"))
with RestartingTrial(lambda: dut_of(topo["dut"], run), run / "memif.sock", stream=stream_for(64, topo["gen"])) as tr:
    time.sleep(2)
    rec = subprocess.Popen(["perf", "sched", "record", "-C", cpu, "-o", str(run / "perf.data"), "--", "sleep", "2.5"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.2)
    t = tr(rate, 2.0)
    rec.wait()
out = subprocess.run(["perf", "sched", "script", "-i", str(run / "perf.data"), "-F", "comm,tid,cpu,time,event,trace"],
                     capture_output=True, text=True).stdout
to = Counter(l.split("next_comm=")[1].split()[0] for l in out.splitlines()
             if "sched_switch" in l and "next_comm=" in l)
print(f"{topo['name']}: loss {t.loss_ratio:.6f}; cpu{cpu} switched {sum(to.values())} times, to: "
      + ", ".join(f"{k} {v}" for k, v in to.most_common(12)), flush=True)
