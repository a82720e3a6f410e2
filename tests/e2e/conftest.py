# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures that start sluiced on DPDK virtual ports and talk to it through sluicectl."""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / os.environ.get("SLUICE_BUILD", "build")
SLUICED = BUILD / "sluiced"
SLUICECTL = BUILD / "sluicectl"

# A test whose checks hang on this machine's time (rates, pacing, durations) is marked timing:
# `make test` runs those alone, after the rest of the sanitizer build's and the release build's
# suites, which run at once (scripts/e2e.sh).
timing = pytest.mark.timing


def release_only(f):
    """A timing-bound test that runs on the release build, not on the sanitizer build (several
    times slower), whose paths other tests take through ASan; timing too."""
    return timing(pytest.mark.skipif("asan" in BUILD.name, reason="timing-bound: runs on the release build")(f))


def hugepages_free_mb():
    """Megabytes of free hugepages (0 when there are none, or hugetlbfs is not mounted)."""
    try:
        if "hugetlbfs" not in Path("/proc/mounts").read_text():
            return 0
        info = {}
        for line in Path("/proc/meminfo").read_text().splitlines():
            k, _, v = line.partition(":")
            info[k] = v.split()
        return int(info["HugePages_Free"][0]) * int(info["Hugepagesize"][0]) // 1024
    except (OSError, KeyError, ValueError, IndexError):
        return 0


def pytest_configure(config):
    config.addinivalue_line("markers", "timing: checks that hang on the machine's time (rates, "
                            "pacing): run alone by make test (scripts/e2e.sh)")
    config.addinivalue_line("markers", "kea_pool(RANGE): the addresses test_ipoe.py's Kea gives")


# MACs given to the ports so test frames can be written before start-up.
MAC0 = "02:00:00:00:00:10"
MAC1 = "02:00:00:00:00:11"
MAC2 = "02:00:00:00:00:12"
PEER0 = "02:00:00:00:00:99"
NH1 = "42:01:0a:0a:02:01"


def pcap_ports(tmp_path, *ins):
    """pcap ports port0, port1, ... (MACs MAC0, MAC1, MAC2) reading the frames of ins[i]
    from in<i>.pcap and writing to out<i>.pcap (pcap_outs reads those)."""
    from scapy.all import wrpcap
    devs = []
    for i, frames in enumerate(ins):
        wrpcap(str(tmp_path / f"in{i}.pcap"), frames, linktype=1)
        devs.append(f"net_pcap{i},rx_pcap={tmp_path}/in{i}.pcap,tx_pcap={tmp_path}/out{i}.pcap "
                    f"{{ name port{i} mac-address {(MAC0, MAC1, MAC2)[i]} }}")
    return devs


def is_mld(frame):
    """An MLD report or done: sluiced reports its groups on every IPv6 interface (RFC 3810),
    whatever else a test sends through it."""
    from scapy.all import ICMPv6MLDone, ICMPv6MLReport, ICMPv6MLReport2
    return any(t in frame for t in (ICMPv6MLReport2, ICMPv6MLReport, ICMPv6MLDone))


def read_out(path):
    """The frames of an output pcap but sluiced's MLD reports (test_ip6_pcap::test_mld checks
    those)."""
    from scapy.all import rdpcap
    return [f for f in rdpcap(str(path)) if not is_mld(f)]


def pcap_outs(tmp_path, n):
    return [read_out(tmp_path / f"out{i}.pcap") for i in range(n)]


class Sluiced:
    """One sluiced process with its own file-prefix, socket and files."""

    def __init__(self, tmp: Path, devs, cli_lines, extra="", memory=512):
        self.tmp = tmp
        self.sock = str(tmp / "cli.sock")
        self.setup = tmp / "setup.cli"
        self.setup.write_text("\n".join(cli_lines) + "\n")
        dev_text = "\n".join(f"  vdev {d}" for d in devs)
        self.conf = tmp / "startup.conf"
        self.prefix = f"sl-test-{os.getpid()}-{id(self)}"
        # hugepages when the set-up reserved enough (sluiced unlinks their files at once):
        # start-up and exit take 0.35 and 0.16 s with 4 KB pages (the FIBs' 128 MB of tables
        # faulted in and unmapped), 0.23 and 0.03 s with 2 MB ones; else --no-huge.
        # SL_TEST_NO_HUGE=1: always --no-huge.
        huge = os.environ.get("SL_TEST_NO_HUGE") != "1" and hugepages_free_mb() >= memory + 512
        self.conf.write_text(
            f"unix {{ cli-listen {self.sock} exec {self.setup} log {tmp}/sluiced.log }}\n"
            f"dpdk {{\n{'' if huge else '  no-huge'}\n  socket-mem {memory}\n  file-prefix {self.prefix}\n{dev_text}\n}}\n"
            f"buffers {{ buffers-per-numa 8192 }}\nip4 {{ max-routes 262144 tbl8s 8192 }}\n{extra}"
        )
        self.proc = None

    def start(self):
        # DPDK 22.11's af_packet port joins a fanout group numbered (pid ^ ifindex) & 0xffff and
        # fails (EINVAL) when another process's socket, on another interface, holds that number
        # (the release and sanitizer runs start sluiced at once): then once more, another pid
        if not self._launch(retry_fanout=True):
            self._launch(retry_fanout=False)
        return self

    def _launch(self, retry_fanout):
        """Starts sluiced and waits for its CLI: True; False when it exited because af_packet
        could not join its fanout group and retry_fanout; else raises."""
        log = self.tmp / "sluiced.log"
        at = log.stat().st_size if log.exists() else 0  # sluiced appends to its log
        self.out = open(self.tmp / "stdout.txt", "w")
        self.proc = subprocess.Popen([str(SLUICED), str(self.conf)], stdout=self.out,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                if retry_fanout and log.exists() and \
                        b"could not set PACKET_FANOUT" in log.read_bytes()[at:]:
                    self.out.close()
                    return False
                raise RuntimeError("sluiced exited: " + (self.tmp / "stdout.txt").read_text())
            if os.path.exists(self.sock):
                try:
                    self.cli("show version")
                    return True
                except RuntimeError:
                    pass
            time.sleep(0.02)
        raise RuntimeError("sluiced did not start")

    def cli_raw(self, cmd, json_out=False):
        args = [str(SLUICECTL), "-s", self.sock] + (["--json"] if json_out else []) + [cmd]
        return subprocess.run(args, capture_output=True, text=True, timeout=120)

    def cli(self, cmd):
        r = self.cli_raw(cmd)
        if r.returncode != 0:
            raise RuntimeError(f"{cmd}: {r.stdout}{r.stderr}")
        return r.stdout

    def js(self, cmd):
        r = self.cli_raw(cmd, json_out=True)
        return json.loads(r.stdout)

    def iface(self, name):
        for row in self.js("show interface")["interfaces"]:
            if row["name"] == name:
                return row
        raise KeyError(name)

    def errors(self):
        return {(e["node"], e["reason"]): e["count"] for e in self.js("show errors")["errors"]}

    def mld_sent(self, name):
        """MLD reports the interface has sent (its tx-packets count them)."""
        rows = self.js(f"show ip6 mld {name}")["interfaces"]
        return rows[0]["reports-sent"] if rows else 0

    def mld_settled(self, *names, quiet=1.2, timeout=10):
        """Waits until the interfaces' MLD reports stop (a change is reported again within
        1 s, RFC 3810's robustness): counters read after it count every frame sluiced sends
        before it stops."""
        deadline = time.time() + timeout
        last, since = sum(self.mld_sent(n) for n in names), time.time()
        while time.time() < deadline:
            time.sleep(0.1)
            now = sum(self.mld_sent(n) for n in names)
            if now != last:
                last, since = now, time.time()
            elif time.time() - since >= quiet:
                return
        raise AssertionError(f"{names} kept sending MLD reports for {timeout} s")

    def wait_rx(self, name, n, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.iface(name)["rx-packets"] >= n:
                time.sleep(0.2)  # let the vector drain to tx
                return
            time.sleep(0.05)
        raise AssertionError(f"{name} received {self.iface(name)['rx-packets']} of {n}")

    def check_refused(self, bad):
        """Each command fails with its message, in text and in JSON."""
        for cmd, msg in bad.items():
            r = self.cli_raw(cmd)
            assert r.returncode == 1, cmd
            assert msg in r.stdout, (cmd, r.stdout)
            j = self.js(cmd)
            assert j["ok"] is False and msg in j["error"], (cmd, j)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise
            self.out.close()
            return rc
        return self.proc.returncode if self.proc else None


@pytest.fixture
def sluiced_factory(tmp_path):
    started = []

    def make(devs, cli_lines, sub=None, **kw):
        """sub: a folder of its own under tmp_path, for a second sluiced in one test."""
        tmp = tmp_path / sub if sub else tmp_path
        tmp.mkdir(exist_ok=True)
        s = Sluiced(tmp, devs, cli_lines, **kw)
        started.append(s)
        return s.start()

    yield make
    for s in started:
        rc = s.stop()
        assert rc in (0, None), f"sluiced exit code {rc}"
        if rc == 0:  # a clean exit leaves no DPDK runtime folder behind
            assert not os.path.exists(f"/run/dpdk/{s.prefix}"), s.prefix


def stop_process(proc, out=None):
    """Ends a real component a test started (FreeRADIUS, Kea) by its PID: SIGTERM, then
    SIGKILL after 10 s; closes its log."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if out:
        out.close()
