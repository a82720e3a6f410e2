# SPDX-License-Identifier: BSD-3-Clause
"""make bench-instr: instructions per packet of sluiced and dpdk-testpmd in the same forwarding
mode on the same in-process path, counted by callgrind: a deterministic answer where the
2-vCPU machine's clocks are not (issue 4's comparison with testpmd's io, macswap, 5tswap).

Path, the same for both programs: port0 is a pcap PMD replaying 64-byte UDP frames
(infinite_rx: a copy per packet), port1 a null PMD that frees what it is given and receives
nothing. sluiced: `set interface fwd-mode port0 MODE peer port1` on one worker; testpmd:
`--forward-mode=MODE` on one forwarding core (its streams port0 -> port1 and port1 -> port0,
the second always empty, as sluiced's port-rx also polls port1). callgrind counts the
forwarding loop only (sluiced's worker_main, testpmd's run_pkt_fwd_on_lcore), from start to
stop; each program's own counters at stop give the packets sent. The PMDs' rx and tx
functions are the same code in both and are shown apart; the rest is each program's own."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench import build_testpmd, write_pcap  # noqa: E402
from sluice_run import BUILD, callgrind_inclusive, remove_runtime_dirs, wait_or_kill  # noqa: E402

remove_runtime_dirs("instr")

SECONDS = float(os.environ.get("INSTR_SECONDS", "20"))  # under callgrind: about 100k packets/s
MODES = [m for m in os.environ.get("INSTR_MODES", "io,macswap,5tswap").split(",") if m]
# the PMDs' libraries: Debian strips their symbols, so their functions are found by object;
# the outermost one (largest inclusive count) is the burst function the program called
PMD_LIBS = {"rx": "librte_net_pcap.so", "tx": "librte_net_null.so"}


def annotate(out):
    """Inclusive instructions of each function callgrind saw, by bare name, and the largest
    inclusive count within each PMD library (its rx or tx burst function)."""
    per = {}
    for count, name, obj in callgrind_inclusive(out):
        per[name] = per.get(name, 0) + count
        for k, lib in PMD_LIBS.items():
            if lib in obj:
                per["pmd_" + k] = max(per.get("pmd_" + k, 0), count)
    return per


def valgrind(d, loop_func):
    """callgrind counting only loop_func's calls. --fair-sched: valgrind runs one thread at a
    time, and without it a forwarding lcore that never makes a system call can starve the
    main thread, which then never acts on SIGTERM (seen with sluiced from 75debdf on); the
    counts of loop_func do not depend on the scheduling."""
    out = d / "cg.out"
    return out, ["valgrind", "--tool=callgrind", "--fair-sched=yes", f"--callgrind-out-file={out}",
                 "--collect-atstart=no", f"--toggle-collect={loop_func}"]


def sluiced_run(d, mode):
    conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
dpdk {{
  no-huge
  vdev net_pcap0,rx_pcap={d}/in.pcap,infinite_rx=1 {{ name port0 mac-address 02:00:00:00:00:10 }}
  vdev net_null0,no-rx=1 {{ name port1 }}
}}
"""
    (d / "startup.conf").write_text(conf)
    (d / "setup.cli").write_text("set interface state port1 up\n"
                                 f"set interface fwd-mode port0 {mode} peer port1\n"
                                 "set interface state port0 up\n")
    out, vg = valgrind(d, "worker_main")
    log = open(d / "stdout.txt", "w")
    p = subprocess.Popen(vg + [str(BUILD / "sluiced"), str(d / "startup.conf")], stdout=log,
                         stderr=subprocess.STDOUT)
    try:
        time.sleep(SECONDS)
        p.terminate()
        wait_or_kill(p, 120)
    finally:
        log.close()
    text = (d / "stdout.txt").read_text()
    m = re.search(r"sluiced: port1: rx \d+ packets, tx (\d+) packets", text)
    if not m:
        raise RuntimeError(text[-2000:])
    return int(m.group(1)), annotate(out), "worker_main"


def testpmd_run(d, mode, testpmd):
    out, vg = valgrind(d, "run_pkt_fwd_on_lcore")
    args = [str(testpmd), "-l", "0,1", "--main-lcore", "0", "--no-huge", "-m", "512",
            "--file-prefix", f"instr-{os.getpid()}", "--no-pci", "--log-level", "4",
            "--vdev", f"net_pcap0,rx_pcap={d}/in.pcap,infinite_rx=1",
            "--vdev", "net_null0,no-rx=1",
            "--", "-i", "--nb-cores=1", f"--forward-mode={mode}", "--no-mlockall",
            "--total-num-mbufs=16384"]
    log = open(d / "testpmd.txt", "w")
    p = subprocess.Popen(vg + args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
                         text=True)
    try:
        # testpmd's prompt comes after its set-up; "start" is read when it is ready
        p.stdin.write("start\n")
        p.stdin.flush()
        time.sleep(SECONDS)
        p.stdin.write("stop\nquit\n")
        p.stdin.flush()
        # under valgrind testpmd's stop and exit take minutes; its figures come at exit
        wait_or_kill(p, 900)
    finally:
        log.close()
    text = (d / "testpmd.txt").read_text()
    acc = text.split("Accumulated forward statistics for all ports")
    m = re.search(r"TX-packets:\s*(\d+)", acc[-1]) if len(acc) > 1 else None
    if not m:
        raise RuntimeError(text[-2000:])
    return int(m.group(1)), annotate(out), "run_pkt_fwd_on_lcore"


def row(name, pkts, per, loop):
    total = per.get(loop, 0) / pkts
    rx, tx = (per.get("pmd_" + k, 0) / pkts for k in ("rx", "tx"))
    print(f"   {name:8s} {pkts:9d} packets: {total:7.1f} instructions/packet = pcap rx {rx:6.1f} "
          f"+ null tx {tx:5.1f} + the program's own {total - rx - tx:6.1f}", flush=True)
    return {"packets": pkts, "total": total, "pmd_rx": rx, "pmd_tx": tx, "own": total - rx - tx}


def main():
    if not shutil.which("valgrind"):
        sys.exit("bench-instr needs valgrind")
    tmp = Path(tempfile.mkdtemp(prefix="sluice-bench-instr-"))
    try:
        testpmd = build_testpmd(tmp)
        res = {}
        for mode in MODES:
            print(f"== {mode}: callgrind, {SECONDS:g} s each, 64-byte UDP frames", flush=True)
            res[mode] = {}
            for name in ("sluiced", "testpmd"):
                if name == "testpmd" and not testpmd:
                    continue
                d = tmp / f"{mode}-{name}"
                d.mkdir()
                write_pcap(d / "in.pcap", [f"48.0.{i // 250}.{1 + i % 250}" for i in range(1000)])
                got = sluiced_run(d, mode) if name == "sluiced" else testpmd_run(d, mode, testpmd)
                res[mode][name] = row(name, *got)
            if "testpmd" in res[mode]:
                s, t = res[mode]["sluiced"], res[mode]["testpmd"]
                print(f"   sluiced / testpmd: {s['total'] / t['total']:.2f} in all, "
                      f"{s['own'] / t['own']:.2f} of the programs' own", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
