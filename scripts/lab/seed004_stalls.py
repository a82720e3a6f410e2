# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 15, session 43): where seed 004's losses come from. One pair of servers
(scripts/seed004_hosts.py, MPLS over UDP, rings of 4,096) offered RATE Mpps of the seed's
64-byte stream in TRIALS trials of SECS seconds (default 0.5). For each trial: the frames the
generator's TX ring refused and how late its latest paced burst left; servers A's and B's
longest turn between two port-rx polls and their turns of 0.5 ms or more (show runtime,
cleared before the trial); and the threads that ran during the trial, by CPU time
(/proc/*/task/*/schedstat), to see what shared the generator's core.

  [GEN_NICE=N] .venv/bin/python scripts/lab/seed004_stalls.py RATE TRIALS [SECS]

GEN_NICE=N runs every thread of the generator at nice N."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
from sluice_bench.gen import GenSession  # noqa: E402
from sluice_run import BUILD  # noqa: E402

STREAM = ("size 60 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:10 "
          "UDP: 10.10.1.2 -> 48.0.0.1 - 48.0.255.254 UDP: 2123 -> 10000-10099 }")


def threads():
    """{task path: (ns run, name, cpu)} of every thread now"""
    r = {}
    for p in glob.glob("/proc/[0-9]*/task/[0-9]*"):
        try:
            ns = int(open(p + "/schedstat").read().split()[0])
            st = open(p + "/stat").read()
            r[p] = (ns, st[st.index("(") + 1:st.rindex(")")], int(st[st.rindex(")") + 2:].split()[36]))
        except (OSError, ValueError, IndexError):
            pass
    return r


def main():
    rate, trials = float(sys.argv[1]) * 1e6, int(sys.argv[2])
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
    d = Path(f"/tmp/seed004-stalls-{os.getpid()}")
    d.mkdir()
    dut = subprocess.Popen([sys.executable, str(ROOT / "scripts/seed004_hosts.py"), str(d), "sluiced-mplsudp"],
                           stdout=open(d / "dut.log", "w"), stderr=subprocess.STDOUT)

    def show(side):
        r = subprocess.run([str(BUILD / "sluicectl"), "-s", str(d / side / "cli.sock"), "--json",
                            "show runtime"], capture_output=True, text=True, timeout=30)
        j = json.loads(r.stdout)
        t = j["turns"][0]
        long = [(h["from-us"], h["turns"]) for h in j["turn-histogram"] if h["from-us"] >= 500]
        return f"{side}: longest turn {t['longest-us']} us, turns from 0.5 ms {long}"
    try:
        while not all((d / s / "cli.sock").exists() for s in "ab"):
            time.sleep(0.1)
        time.sleep(4)
        vd = [f"net_virtio_user{i},path={d}/vhost{i}.sock,queues=1,queue_size=4096" for i in (0, 1)]
        with GenSession(d / "memif.sock", STREAM, d, vdevs=vd, gen_args=["--txd", "4096"]) as g:
            if os.environ.get("GEN_NICE"):  # every thread of the generator at that nice value
                for tid in os.listdir(f"/proc/{g.p.pid}/task"):
                    os.setpriority(os.PRIO_PROCESS, int(tid), int(os.environ["GEN_NICE"]))
            for k in range(trials):
                for s in "ab":
                    subprocess.run([str(BUILD / "sluicectl"), "-s", str(d / s / "cli.sock"), "clear runtime"],
                                   capture_output=True, timeout=30)
                t0 = threads()
                r = g.run(rate, secs)
                t1 = threads()
                print(f"trial {k}: refused {r['tx_full']}, lost {r['lost']}, a burst up to "
                      f"{r['tx_late_max_us']} us late ({r['tx_late_at_ms']} ms into the run) | {show('a')} | {show('b')}")
                ran = sorted(((ns - t0.get(p, (0,))[0], name, cpu) for p, (ns, name, cpu) in t1.items()),
                             reverse=True)
                print("   ran: " + ", ".join(f"{name} cpu{cpu} {ns / 1e6:.1f} ms"
                                             for ns, name, cpu in ran[:10] if ns > 0), flush=True)
    finally:
        dut.send_signal(signal.SIGTERM)
        dut.wait(30)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
