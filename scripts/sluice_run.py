# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by the demo and the benchmark: start sluiced, talk to it, run sluice-gen."""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / os.environ.get("SLUICE_BUILD", "build")
# for a machine without DPDK installed (scripts/pack_for_device.sh): extra EAL arguments for
# every DPDK program (e.g. "-d devpkg/pmds"), and the cores: generator, main, forwarder
EAL_EXTRA = os.environ.get("BENCH_EAL", "").split()
CORES = [int(c) for c in os.environ.get("BENCH_CORES", "0,0,1").split(",")]
GEN_CORE, MAIN_CORE, FWD_CORE = CORES


def hugepages_free():
    for line in open("/proc/meminfo"):
        if line.startswith("HugePages_Free"):
            return int(line.split()[1])
    return 0


class HugepagesAtLeast:
    """Raises the 2 MB hugepage reservation so that `mb` megabytes are free, and puts it back
    on exit (root only; without, the caller's DPDK program fails to allocate and says so)."""
    def __init__(self, mb):
        self.need, self.before = (mb + 1) // 2, None

    def __enter__(self):
        short = self.need - hugepages_free()
        if short > 0:
            path = "/proc/sys/vm/nr_hugepages"
            self.before = int(open(path).read())
            try:
                open(path, "w").write(str(self.before + short))
            except OSError:
                self.before = None
        return self

    def __exit__(self, *exc):
        if self.before is not None:
            open("/proc/sys/vm/nr_hugepages", "w").write(str(self.before))


def remove_runtime_dirs(*names):
    """At exit: DPDK 22.11 leaves /run/dpdk/PREFIX (several MB of RAM with --no-huge) behind
    each program that does not remove it itself (testpmd, l3fwd); ours are NAME-<our pid>."""
    def remove():
        for n in names:
            shutil.rmtree(f"/run/dpdk/{n}-{os.getpid()}", ignore_errors=True)
    atexit.register(remove)


def callgrind_inclusive(out):
    """callgrind_annotate's inclusive counts of a callgrind output file: (instructions,
    function name without its file, object such as "[/usr/lib/.../librte_net_null.so]" or
    "") per line, in its order; the first is ("PROGRAM", the total)."""
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)], capture_output=True,
                         text=True).stdout
    rows = []
    for line in ann.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\([^)]*\)\s+(\S+)\s*(\[\S+\])?", line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(2).rsplit(":", 1)[-1],
                         m.group(3) or ""))
    return rows


def wait_or_kill(p, timeout=20):
    """Waits for a process we asked to stop; kills it if it does not."""
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


class Daemon:
    def __init__(self, conf_text, run_dir):
        self.dir = Path(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.conf = self.dir / "startup.conf"
        self.conf.write_text(conf_text)
        self.sock = str(self.dir / "cli.sock")
        self.proc = None

    def __enter__(self):
        self.log = open(self.dir / "stdout.txt", "w")
        self.proc = subprocess.Popen([str(BUILD / "sluiced"), str(self.conf)],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            if self.proc.poll() is not None:
                raise RuntimeError((self.dir / "stdout.txt").read_text())
            if os.path.exists(self.sock) and self.cli_raw("show version").returncode == 0:
                return self
            time.sleep(0.1)
        raise RuntimeError("sluiced did not start")

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            wait_or_kill(self.proc, 30)
        self.log.close()
        rc = self.proc.returncode  # 0 after SIGTERM; else said, as nothing else would show it
        if rc:
            why = f"signal {-rc}" if rc < 0 else f"exit code {rc}"
            print(f"sluiced ({self.dir}) ended with {why}: "
                  + (self.dir / "stdout.txt").read_text()[-500:], file=sys.stderr, flush=True)

    def cli_raw(self, cmd, js=False):
        return subprocess.run([str(BUILD / "sluicectl"), "-s", self.sock] + (["--json"] if js else []) + [cmd],
                              capture_output=True, text=True, timeout=600)

    def cli(self, cmd):
        r = self.cli_raw(cmd)
        if r.returncode:
            raise RuntimeError(f"{cmd}: {r.stdout}")
        return r.stdout

    def js(self, cmd):
        return json.loads(self.cli_raw(cmd, js=True).stdout)


def serve(daemons):
    """Keeps the started daemons until SIGTERM or SIGINT, as a command DUT of sluice-bench
    is kept; a daemon that exits first ends it with its output's tail."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    while not stop:
        time.sleep(0.2)
        for x in daemons:
            if not stop and x.proc.poll() is not None:
                raise SystemExit(f"sluiced {x.dir.name} exited: "
                                 + (x.dir / "stdout.txt").read_text()[-2000:])


def run_gen(sock, seconds, size=64, dst="48.0.0.0/8", core=None, rate=0, huge=True, stream=None):
    core = GEN_CORE if core is None else core
    args = [str(BUILD / "sluice-gen"), "-l", str(core), "--file-prefix", f"sluice-gen-{os.getpid()}",
            "--log-level", "4", "--no-pci",
            "--vdev", f"net_memif0,role=client,id=0,socket={sock}",
            "--vdev", f"net_memif1,role=client,id=1,socket={sock}"]
    args += ["--huge-unlink", "--socket-mem", "256"] if huge else ["--no-huge", "-m", "512"]
    args += EAL_EXTRA
    args += ["--", "--tx-port", "0", "--rx-port", "1", "--duration", str(seconds), "--size", str(size),
             "--rate", str(rate),
             "--dst", dst, "--dst-mac", "02:00:00:00:00:10", "--json"]
    if stream:  # the packet-generator grammar: sizes, fields, ranges
        args += ["--stream", stream]
    for attempt in range(10):
        r = subprocess.run(args, capture_output=True, text=True, timeout=seconds + 60)
        for line in r.stdout.splitlines():
            if line.startswith("{"):
                return json.loads(line)
        if "Failed to connect" not in r.stdout + r.stderr:
            break
        time.sleep(1)  # a memif server accepts its next client a moment after the last left
        # (its listener runs in the EAL interrupt thread, which busy lcores can starve)
    raise RuntimeError("sluice-gen failed: " + r.stdout + r.stderr)
