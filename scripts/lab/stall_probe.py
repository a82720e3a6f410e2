# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/stall_probe.py [RATE] [REPS]: sluiced of
bench/topologies/memif-sluiced.yaml offered RATE (default 1.2e6) 64-byte frames for 2 s per
rep: loss, latency percentiles, and the worker's turns (longest, the node of its longest
call, histogram) with each node's longest call, to tell stalls inside a node from time taken
from the worker between nodes (the machine), and the drops by reason. Place it with
BENCH_CORES / BENCH_EAL; RX_VECTOR=N sets dpdk { rx-vector N }, MAIN_ONLY=1 forwards on
the main lcore (BENCH_CORES' second core) with no worker."""
import os
import sys
import tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from sluice_bench.__main__ import dut_of, stream_for  # noqa: E402
from sluice_bench.gen import RestartingTrial  # noqa: E402

topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
if os.environ.get("RX_VECTOR") or os.environ.get("MAIN_ONLY"):
    text = (ROOT / topo["dut"]["startup"]).read_text()
    if os.environ.get("RX_VECTOR"):
        text = text.replace("dpdk {", f"dpdk {{\n  rx-vector {os.environ['RX_VECTOR']}", 1)
    if os.environ.get("MAIN_ONLY"):  # the main lcore forwards: no worker thread beside it
        text = text.replace(" corelist-workers 1", "")
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write(text)
    conf.close()
    topo["dut"]["startup"] = conf.name
rate = float(sys.argv[1]) if len(sys.argv) > 1 else 1.2e6
run = Path(tempfile.mkdtemp(prefix="stall-"))
with RestartingTrial(lambda: dut_of(topo["dut"], run), run / "memif.sock", stream=stream_for(64, topo["gen"])) as tr:
    d = tr.dut.d
    for rep in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        d.cli("clear runtime")
        d.cli("clear errors")
        t = tr(rate, 2.0)
        rt = d.js("show runtime")
        lat = t.latency_us or {}
        print(f"rep {rep}: offered {rate / 1e6:g} Mpps, loss {t.loss_ratio:.6f}, refused {t.refused}, "
              f"latency us p50 {lat.get('p50')} p90 {lat.get('p90')} p99 {lat.get('p99')} "
              f"p99.9 {lat.get('p99.9')} max {lat.get('max')}")
        print("   turns:", rt.get("turns"))
        print("   histogram:", [(h["from-us"], h["turns"]) for h in rt.get("turn-histogram", [])])
        print("   errors:", d.js("show errors").get("errors"))
        print("   nodes (max-call-us):", {r["node"]: r["max-call-us"] for r in rt["runtime"] if r["calls"]})
