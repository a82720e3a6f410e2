# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/saturation.py [TOPOLOGY] [RATE] [REPS]: sluiced of a memif
topology (default bench/topologies/memif-sluiced.yaml) offered RATE (default 14e6) 64-byte
frames for 2 s per rep: what came back, and show runtime's clocks/packet and vectors/call
per node, to see where a saturated worker's cycles go."""
import sys
import tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from sluice_bench.__main__ import dut_of, stream_for  # noqa: E402
from sluice_bench.gen import RestartingTrial  # noqa: E402

topo = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else ROOT / "bench/topologies/memif-sluiced.yaml"))
rate = float(sys.argv[2]) if len(sys.argv) > 2 else 14e6
dut = topo["duts"][0] if "duts" in topo else topo["dut"]
run = Path(tempfile.mkdtemp(prefix="saturation-"))
with RestartingTrial(lambda: dut_of(dut, run), run / "memif.sock", stream=stream_for(64, topo["gen"])) as tr:
    d = tr.dut.d
    for rep in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
        d.cli("clear runtime")
        g = tr.gen.run(rate, 2.0)
        rt = d.js("show runtime")
        print(f"rep {rep}: offered {rate / 1e6:g} Mpps, back {g['rx_mpps']:.2f} Mpps, generator "
              f"{max(g['lanes_busy_pct'])}% busy, refused {g['tx_full']}, workers {rt['workers']}")
        for r in rt["runtime"]:
            print(f"   {r['node']:22s} clocks/packet {r['clocks/packet']:7.1f}  vectors/call {r['vectors/call']:6.2f}"
                  f"  calls {r['calls']}")
