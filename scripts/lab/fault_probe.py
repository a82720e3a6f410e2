# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/fault_probe.py [REPS]: sluiced of
bench/topologies/memif-sluiced.yaml, REPS times an overload (14 Mpps, 0.5 s) then a trial at
1 Mpps (2 s): loss, refusals, the longest latency, each thread's page faults (minor, major)
and context switches (voluntary, not) over the trial, the worker's longest turn and the
three nodes of the longest calls. Tells a worker that waits (a system call, a fault) from
one the machine takes the CPU from. WORKER_FIFO=P puts the worker under SCHED_FIFO at
priority P once sluiced is up."""
import os, re, sys, tempfile, time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench")); sys.path.insert(0, str(ROOT / "scripts"))
import yaml
from sluice_bench.__main__ import dut_of, stream_for
from sluice_bench.gen import RestartingTrial
topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
run = Path(tempfile.mkdtemp(prefix="fault-"))
def faults(pid):
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        s = open(f"/proc/{pid}/task/{t}/stat").read()
        comm = s[s.index("(")+1:s.rindex(")")]
        f = s[s.rindex(")")+2:].split()
        st = open(f"/proc/{pid}/task/{t}/status").read()
        v = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", st, re.M).group(1))
        nv = int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", st, re.M).group(1))
        out[comm + "/" + t] = (int(f[7]), int(f[9]), v, nv)  # minflt, majflt, ctxt
    return out
with RestartingTrial(lambda: dut_of(topo["dut"], run), run / "memif.sock", stream=stream_for(64, topo["gen"])) as tr:
    pid = tr.dut.d.proc.pid
    d = tr.dut.d
    if os.environ.get("WORKER_FIFO"):  # the worker under SCHED_FIFO at this priority
        for t in os.listdir(f"/proc/{pid}/task"):
            if "worker" in open(f"/proc/{pid}/task/{t}/comm").read():
                os.sched_setscheduler(int(t), os.SCHED_FIFO, os.sched_param(int(os.environ["WORKER_FIFO"])))
    for rep in range(int(sys.argv[1])):
        for rate, secs in ((14e6, 0.5), (1e6, 2.0)):
            a = faults(pid); d.cli("clear runtime")
            t = tr(rate, secs)
            b = faults(pid)
            rt = d.js("show runtime")
            diff = {k.split('/')[0]: tuple(x-y for x,y in zip(b[k],a[k])) for k in b if k in a and b[k] != a[k]}
            lat = t.latency_us or {}
            top = sorted(((r["max-call-us"], r["node"]) for r in rt["runtime"] if r["calls"]), reverse=True)[:3]
            print(f"rep {rep} {rate/1e6:g} Mpps: loss {t.loss_ratio:.5f} refused {t.refused} max {lat.get('max')} us; faults {diff}; longest turn {rt.get('turns',{}).get('max-us') if isinstance(rt.get('turns'),dict) else rt.get('turns')}; {top}", flush=True)
