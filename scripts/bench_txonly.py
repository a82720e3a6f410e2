# SPDX-License-Identifier: BSD-3-Clause
"""make bench-txonly: one sluice-gen TX core (sequence numbers and TX timestamps in every
packet) against dpdk-testpmd's txonly mode on one core, on the same path, in the same run.

Paths: net_null (the packets are freed: the cost of making and sending them, nothing else)
and memif into a receiver (testpmd rxonly on the other core). Streams: one fixed 64-byte UDP
flow (testpmd txonly's default) and 255 flows (source address stepping: testpmd
--txonly-multi-flow). Trials alternate between the two programs; medians are reported with
each program's cycles per packet (testpmd --record-core-cycles; sluice-gen's TX core is
always busy, so TSC Hz / packets per second).

Environment: TESTPMD (a prebuilt dpdk-testpmd; else bench.py builds one), TXONLY_TRIALS
(default 5), TXONLY_SECONDS (default 2), BENCH_CORES (generator, main, receiver cores)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sluice_run import BUILD, CORES, EAL_EXTRA, ROOT, remove_runtime_dirs, wait_or_kill  # noqa: E402

remove_runtime_dirs("txo-rx", "txo-tx")

TRIALS = int(os.environ.get("TXONLY_TRIALS", "5"))
SECONDS = float(os.environ.get("TXONLY_SECONDS", "2"))
TX_CORE, MAIN_CORE, RX_CORE = CORES if len(set(CORES)) == 3 else (1, 0, 0)
STREAMS = {
    "1 flow": "size 60 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
              "UDP: 198.18.0.1 -> 198.18.0.2 UDP: 9 -> 9 }",
    "255 flows": "size 60 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 "
                 "UDP: 198.18.0.1 - 198.18.0.255 -> 198.18.0.2 UDP: 9 -> 9 }",
}
OUT = ROOT / "results"


def interactive(args, log, script):
    """Runs testpmd -i, feeding it script: a list of (seconds to wait, command)."""
    with open(log, "w") as f:
        p = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.PIPE, text=True)
        try:
            for wait, cmd in script:
                time.sleep(wait)
                if p.poll() is not None:
                    raise RuntimeError(Path(log).read_text()[-2000:])
                p.stdin.write(cmd + "\n")
                p.stdin.flush()
        finally:
            if p.poll() is None:
                p.stdin.write("stop\nquit\n")
                p.stdin.flush()
            wait_or_kill(p)
    return Path(log).read_text()


def receiver(testpmd, sock, d):
    """testpmd rxonly serving a memif socket on the receive core, for the memif path."""
    args = [str(testpmd), "--lcores", f"0@{RX_CORE},1@{RX_CORE}", "--main-lcore", "0",
            "--file-prefix", f"txo-rx-{os.getpid()}", "--huge-unlink", "--socket-mem", "256",
            "--log-level", "4", "--no-pci", *EAL_EXTRA, "--vdev", f"net_memif0,role=server,id=0,socket={sock}",
            "--", "--forward-mode=rxonly", "--port-topology=loop", "--nb-cores=1", "--auto-start",
            "--no-mlockall", "--no-lsc-interrupt"]
    log = open(d / "rx.log", "w")
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE)
    time.sleep(2)
    if p.poll() is not None:
        raise RuntimeError((d / "rx.log").read_text()[-2000:])
    return p, log


def port_args(path, sock):
    return (["--vdev", "net_null0,no-rx=1"] if path == "null"
            else ["--vdev", f"net_memif0,role=client,id=0,socket={sock}"])


def testpmd_tx(testpmd, path, sock, multi, d):
    args = [str(testpmd), "--lcores", f"0@{MAIN_CORE},1@{TX_CORE}", "--main-lcore", "0",
            "--file-prefix", f"txo-tx-{os.getpid()}", "--huge-unlink", "--socket-mem", "256",
            "--log-level", "4", "--no-pci", *EAL_EXTRA, *port_args(path, sock),
            "--", "-i", "--forward-mode=txonly", "--port-topology=loop", "--nb-cores=1",
            "--txpkts=60", "--record-core-cycles", "--no-mlockall"] + (["--txonly-multi-flow"] if multi else [])
    out = interactive(args, d / "tx.log", [(1, "start"), (1, "clear fwd stats all"),
                                           (SECONDS, "show fwd stats all"), (0.5, "stop")])
    # the first "show fwd stats all" after the clear: SECONDS of sending
    block = out.split("clear fwd stats all")[-1] if "clear fwd stats all" in out else out
    tx = [int(line.split("TX-packets:")[1].split()[0]) for line in block.splitlines() if "TX-packets:" in line]
    cyc = [line.split("CPU cycles/packet=")[1] for line in block.splitlines() if "CPU cycles/packet=" in line]
    if not tx:
        raise RuntimeError(f"testpmd txonly printed no counts:\n{out[-2000:]}")
    if cyc:  # "55.91 (total cycles=... / total txonly packets=...) at 2450 MHz Clock"
        return tx[0] / SECONDS / 1e6, float(cyc[0].split()[0]), float(cyc[0].split(" at ")[1].split()[0])
    return tx[0] / SECONDS / 1e6, None, None


def gen_tx(path, sock, stream):
    args = [str(BUILD / "sluice-gen"), "-l", str(TX_CORE), "--file-prefix", f"txo-gen-{os.getpid()}",
            "--huge-unlink", "--socket-mem", "256", "--log-level", "4", "--no-pci", *EAL_EXTRA,
            *port_args(path, sock), "--", "--tx-port", "0", "--rx-port", "0",
            "--duration", str(SECONDS), "--json", "--stream", stream]
    r = subprocess.run(args, capture_output=True, text=True, timeout=SECONDS + 60)
    js = [line for line in r.stdout.splitlines() if line.startswith("{")]
    if not js:
        raise RuntimeError(f"sluice-gen: {r.stdout[-1000:]}{r.stderr[-1000:]}")
    g = json.loads(js[0])
    return g["tx_mpps"]


def main():
    testpmd = os.environ.get("TESTPMD")
    tmp = Path(tempfile.mkdtemp(prefix="sluice-txonly-"))
    if not testpmd:
        from bench import build_testpmd
        testpmd = build_testpmd(tmp)
        if not testpmd:
            raise SystemExit("bench-txonly: no dpdk-testpmd (set TESTPMD)")
    mhz = None  # the TSC rate, as testpmd reports it
    res = {"machine": {"cpu": open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip(),
                       "cores": os.cpu_count()},
           "seconds": SECONDS, "trials": TRIALS, "results": {}}
    for path in ("null", "memif"):
        for name, stream in STREAMS.items():
            d = tmp / f"{path}-{name.replace(' ', '')}"
            d.mkdir()
            sock = d / "memif.sock"
            gen, tp, tpc = [], [], []
            for _ in range(TRIALS):
                for who in ("gen", "testpmd"):  # alternate: drift hits both alike
                    rx = receiver(testpmd, sock, d) if path == "memif" else None
                    try:
                        if who == "gen":
                            gen.append(gen_tx(path, sock, stream))
                        else:
                            r, c, mhz = testpmd_tx(testpmd, path, sock, name != "1 flow", d)
                            tp.append(r)
                            if c:
                                tpc.append(c)
                                res["machine"]["tsc_mhz"] = mhz
                    finally:
                        if rx:
                            rx[0].terminate()
                            wait_or_kill(rx[0])
                            rx[1].close()
            g, t = statistics.median(gen), statistics.median(tp)
            row = {"sluice_gen_mpps": g, "testpmd_mpps": t, "ratio": g / t, "gen_trials": gen,
                   "testpmd_trials": tp, "testpmd_cycles_per_packet": statistics.median(tpc) if tpc else None,
                   "gen_cycles_per_packet": mhz / g if mhz else None}
            res["results"][f"{path}, {name}"] = row
            print(f"{path:6} {name:10} sluice-gen {g:7.2f} Mpps  testpmd txonly {t:7.2f} Mpps  ratio {g / t:.2f}"
                  f"  cycles/packet {row['gen_cycles_per_packet'] or 0:.1f} vs {row['testpmd_cycles_per_packet'] or 0:.1f}",
                  flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "bench-txonly.json").write_text(json.dumps(res, indent=2))
    lines = ["| path, stream | sluice-gen Mpps | testpmd txonly Mpps | ratio | cycles/packet gen / testpmd |",
             "|---|---|---|---|---|"]
    for k, r in res["results"].items():
        lines.append(f"| {k} | {r['sluice_gen_mpps']:.2f} | {r['testpmd_mpps']:.2f} | {r['ratio']:.2f} | "
                     f"{r['gen_cycles_per_packet'] or 0:.1f} / {r['testpmd_cycles_per_packet'] or 0:.1f} |")
    (OUT / "bench-txonly.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
