# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/overload.py sluiced|testpmd-io [CYCLES] [OVERLOAD_PPS]: one DUT
of bench/topologies/memif-DUT.yaml and one generator session; cycles of 0.5 s at the
overload rate (default 14e6), then three 0.5 s trials at 1 Mpps: per trial the loss, the
generator's tx_full and busy share, and for sluiced its stall fields (show runtime's turns
of 50 us and more) and errors. testpmd needs TESTPMD=path (make bench builds one)."""
import sys
import tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml
from sluice_bench.__main__ import dut_of, stream_for
from sluice_bench.gen import RestartingTrial

which = sys.argv[1]
cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 3
over = float(sys.argv[3]) if len(sys.argv) > 3 else 14e6
topo = yaml.safe_load(open(ROOT / f"bench/topologies/memif-{which}.yaml"))
run = Path(tempfile.mkdtemp(prefix="ovl-"))
spec = stream_for(64, topo["gen"])
with RestartingTrial(lambda: dut_of(topo["dut"], run), run / "memif.sock", stream=spec) as tr:
    d = tr.dut.d if hasattr(tr.dut, "d") else None
    for c in range(cycles):
        if over:
            g = tr.gen.run(over, 0.5)
            print(f"overload: sent {g['sent']} tx_full {g['tx_full']} lost {g['lost']}")
        if d: d.cli("clear runtime"); d.cli("clear errors")
        for k in range(3):
            g = tr.gen.run(1e6, 0.5)
            off = g["sent"] + g["tx_full"]
            loss = (off - (g["sent"] - g["lost"])) / off
            line = f"  trial {k}: loss {loss*100:.3f}% tx_full {g['tx_full']} lost {g['lost']} busy {max(g['lanes_busy_pct'])}"
            if d:
                rt = d.js("show runtime")
                t = rt["turns"][0]
                hist = [(h["from-us"], h["turns"]) for h in rt["turn-histogram"] if h["from-us"] >= 50]
                errs = d.js("show errors")
                line += f" | longest {t['longest-us']}us turns>=50us {hist} | errs {errs.get('errors', errs)}"
                d.cli("clear runtime")
            print(line, flush=True)
