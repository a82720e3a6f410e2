# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/turns_ctx.py [REPS]: sluiced on the demo topology, 2 s at
1 Mpps per rep; per rep sluiced's stall fields and, for every thread that ran or switched,
its CPU ticks and voluntary / involuntary context switches (from /proc)."""
import glob
import sys
import tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from sluice_bench.__main__ import dut_of, stream_for  # noqa: E402
from sluice_bench.gen import RestartingTrial  # noqa: E402


def threads():
    out = {}
    for t in glob.glob("/proc/[0-9]*/task/[0-9]*"):
        try:
            st = open(t + "/stat").read()
            f = st[st.rindex(")") + 2:].split()
            status = dict(l.split(":\t", 1) for l in open(t + "/status").read().splitlines() if ":\t" in l)
            out[t] = (st[st.index("(") + 1:st.rindex(")")], int(f[11]) + int(f[12]), int(f[36]),
                      int(status["nonvoluntary_ctxt_switches"]), int(status["voluntary_ctxt_switches"]))
        except (OSError, ValueError, KeyError):
            pass
    return out


topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
run = Path(tempfile.mkdtemp(prefix="turns-ctx-"))
with RestartingTrial(lambda: dut_of(topo["dut"], run), run / "memif.sock", stream=stream_for(64, topo["gen"])) as tr:
    d = tr.dut.d
    for rep in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        d.cli("clear runtime")
        a = threads()
        g = tr.gen.run(1e6, 2.0)
        b = threads()
        rt = d.js("show runtime")
        t0 = rt["turns"][0]
        calls = sorted(((r["max-call-us"], r["node"]) for r in rt["runtime"]), reverse=True)[:4]
        print(f"rep {rep}: tx_full {g['tx_full']} lost {g['lost']} longest {t0['longest-us']} us "
              f"(longest call {t0['longest-call-us']} us in {t0['longest-call-node']}; {calls}), "
              f"turns of 50 us and more {[(h['from-us'], h['turns']) for h in rt['turn-histogram'] if h['from-us'] >= 50]}")
        for t in b:
            if t in a and (b[t][1] > a[t][1] or b[t][3] > a[t][3] or b[t][4] - a[t][4] > 50):
                print(f"   {t:28s} {b[t][0]:18s} cpu{b[t][2]} ticks {b[t][1] - a[t][1]:4d} "
                      f"involuntary {b[t][3] - a[t][3]:5d} voluntary {b[t][4] - a[t][4]:6d}")
