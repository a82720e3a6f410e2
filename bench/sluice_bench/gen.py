# SPDX-License-Identifier: BSD-3-Clause
"""Trials with sluice-gen, for search(): one generator per DUT, driven over its JSON control
socket (docs/sluice-gen.md), so its ports (memif, virtio-user...) stay connected for a whole
search and each trial is a new run of the same process."""
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from .search import Trial

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from sluice_run import BUILD, EAL_EXTRA, GEN_CORE, wait_or_kill  # noqa: E402

MEMIF_PAIR = ["net_memif0,role=client,id=0,socket={sock}", "net_memif1,role=client,id=1,socket={sock}"]


class LinkDown(RuntimeError):
    """The generator's ports did not come up, or went down: the DUT is not there."""


class GenExited(RuntimeError):
    """The generator's process ended while a search used it (its status and log's tail say
    how): RestartingTrial starts DUT and generator again, as after LinkDown."""


class GenSession:
    """sluice-gen with a control socket, as a context manager. vdevs: the generator's two
    ports, '{sock}' replaced by sock and '{dir}' by its folder (None: a memif client pair on
    the DUT's socket); eal: more EAL arguments (e.g. '-a', PCI address for NIC ports, with
    vdevs []). virtio-user shares the generator's memory with a vhost-user DUT by
    file descriptor: then the hugepages are one file per segment list, removed at the end."""
    seq = itertools.count()

    def __init__(self, sock, stream, run_dir, huge=True, vdevs=None, eal=(), core=None,
                 dst_mac="02:00:00:00:00:10", gen_args=()):
        self.run_dir = Path(run_dir)
        self.ctl = self.run_dir / f"gen-{os.getpid()}-{time.monotonic_ns()}.ctl"
        core = GEN_CORE if core is None else core
        self.prefix = f"sluice-gen-{os.getpid()}-{next(GenSession.seq)}"  # several at once
        args = [str(BUILD / "sluice-gen"), "-l", str(core), "--file-prefix", self.prefix, "--log-level", "4"]
        vdevs = MEMIF_PAIR if vdevs is None else vdevs
        for v in vdevs:
            args += ["--vdev", v.format(sock=sock, dir=Path(sock).parent)]
        args += [a.format(sock=sock, dir=Path(sock).parent) for a in eal]
        self.shared = any("virtio_user" in v for v in vdevs)
        if not huge:
            args += ["--no-huge", "-m", "512"]
        else:
            args += ["--single-file-segments" if self.shared else "--huge-unlink", "--socket-mem", "256"]
        args += EAL_EXTRA + ["--", "--tx-port", "0", "--rx-port", "1", "--control", str(self.ctl)]
        streams = [stream] if isinstance(stream, str) else list(stream or [])
        for st in streams:  # one, or a list
            args += ["--stream", st]
        if not streams:
            args += ["--dst-mac", dst_mac]
        args += list(gen_args)  # e.g. --bidir
        self.args = args

    def __enter__(self):
        self.log = open(self.run_dir / "gen.log", "a")
        self.p = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            # the socket's file appears at bind(), before listen(): a connect between the two
            # is refused, so retry until the generator listens (or exits, or 30 s pass)
            self.s = socket.socket(socket.AF_UNIX)
            for attempt in range(600):
                if self.p.poll() is not None:
                    raise RuntimeError("sluice-gen exited: " +
                                       (self.run_dir / "gen.log").read_text()[-2000:])
                try:
                    self.s.connect(str(self.ctl))
                    break
                except (FileNotFoundError, ConnectionRefusedError):
                    if attempt == 599:
                        raise
                    time.sleep(0.05)
            self.f = self.s.makefile("rw")
            for _ in range(100):  # memif connects asynchronously
                if all(p["link"] for p in self.request(cmd="stats")["ports"]):
                    return self
                time.sleep(0.1)
            raise LinkDown("sluice-gen's ports did not come up (is the DUT serving its socket?)")
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *exc):
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGCONT)  # were it paused between trials
        try:
            if self.p.poll() is None and hasattr(self, "f"):
                self.request(cmd="quit")
        except (OSError, GenExited):
            pass
        if self.p.poll() is None:
            self.p.terminate()
        wait_or_kill(self.p)
        if hasattr(self, "s"):
            self.s.close()
        self.log.close()
        if self.shared:
            for f in Path("/dev/hugepages").glob(f"{self.prefix}map_*"):
                f.unlink()
        # DPDK 22.11 leaves its runtime folder (its config and fbarray files) behind at exit
        shutil.rmtree(f"/run/dpdk/{self.prefix}", ignore_errors=True)

    def exited(self):
        """GenExited for a generator whose control socket closed: its exit status (a negative
        one is the signal that ended it) and its log's tail."""
        try:
            rc = self.p.wait(5)
        except subprocess.TimeoutExpired:
            rc = "still running"
        tail = (self.run_dir / "gen.log").read_text(errors="replace")[-1500:]
        return GenExited(f"sluice-gen (pid {self.p.pid}) closed its control socket, exit status "
                         f"{rc}; its log ends:\n{tail}")

    def request(self, **req):
        try:
            self.f.write(json.dumps(req) + "\n")
            self.f.flush()
            line = self.f.readline()
        except OSError:  # the other end went away: BrokenPipeError, ConnectionResetError
            line = ""
        if not line:
            raise self.exited()
        a = json.loads(line)
        if a.get("ok") is False:
            raise RuntimeError(f"sluice-gen: {a['error']}")
        return a

    def run(self, rate, secs):
        """One run at rate packets/s for secs seconds: the generator's report."""
        self.request(cmd="start", rate=rate, duration=secs)
        return self.request(cmd="wait")

    def trial(self, rate, secs):
        """A trial for search(). Loss counts what the generator offered (sent, or refused by a
        full TX ring) and did not get back; a rate it could not offer (more than 2% short: it
        paces whole bursts of 32) does not pass."""
        g = self.run(rate, secs)
        if not all(p["link"] for p in g["ports"]):
            raise LinkDown("a generator port went down during the trial")
        offered = g["sent"] + g["tx_full"]
        short = int(rate * g["seconds"] * 0.98)
        return Trial(offered_pps=rate, sent=max(offered, short), received=g["sent"] - g["lost"],
                     seconds=g["seconds"], latency_us=g.get("latency_us"),
                     gen_busy_pct=max(g["lanes_busy_pct"]), refused=g["tx_full"],
                     gen_late_us=g.get("tx_late_max_us"))


class RestartingTrial:
    """Trials against a DUT this object starts (make_dut() gives a context manager) through
    one GenSession, both started again (and counted in restarts) if the generator's links do
    not come up or go down, or the generator exits during a trial (said on stderr, with its
    status and log). Use it as a context manager; call it as a trial function."""

    def __init__(self, make_dut, sock, stream=None, huge=True, vdevs=None, eal=(), gen_args=()):
        self.make_dut, self.restarts = make_dut, 0
        self.sock = Path(sock)
        self.gen_args = dict(stream=stream, huge=huge, vdevs=vdevs, eal=eal, gen_args=gen_args)

    def _up(self):
        self.dut = self.make_dut().__enter__()
        try:
            self.gen = GenSession(self.sock, run_dir=self.sock.parent, **self.gen_args).__enter__()
        except BaseException:
            self.dut.__exit__(None, None, None)
            raise

    def _down(self):
        self.gen.__exit__(None, None, None)
        self.dut.__exit__(None, None, None)

    def __enter__(self):
        for attempt in range(3):
            try:
                self._up()
                return self
            except LinkDown:
                if attempt == 2:
                    raise
                self.restarts += 1

    def __exit__(self, *exc):
        self._down()

    def __call__(self, rate, secs):
        for attempt in range(3):
            try:
                return self.gen.trial(rate, secs)
            except (LinkDown, GenExited) as e:
                if attempt == 2:
                    raise
                print(f"sluice-bench: {e}\nsluice-bench: starting the DUT and its generator again",
                      file=sys.stderr)
                self._down()
                self.__enter__()
                self.restarts += 1


class Pausing:
    """A RestartingTrial whose DUT and generator are stopped (SIGSTOP) between its trials, so
    that several DUTs compared trial by trial on the same cores do not poll beside each
    other: only the one on trial runs. Their links stay up (memif and vhost-user have no
    keepalive); resume() continues both and lets them settle for settle_s."""

    def __init__(self, trial, settle_s=0.2):
        self.trial, self.settle_s, self.paused = trial, settle_s, False

    def _signal(self, sig):
        self.trial.dut.signal(sig)
        if self.trial.gen.p.poll() is None:
            os.kill(self.trial.gen.p.pid, sig)

    def pause(self):
        self._signal(signal.SIGSTOP)
        self.paused = True

    def resume(self):
        if self.paused:
            self._signal(signal.SIGCONT)
            self.paused = False
            time.sleep(self.settle_s)

    def __call__(self, rate, secs):
        return self.trial(rate, secs)
