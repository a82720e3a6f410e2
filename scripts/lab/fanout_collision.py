#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Lab (session 35): tests/e2e/conftest.py's Sluiced.start() against DPDK 22.11's af_packet
fanout groups. The PMD joins group (pid ^ ifindex) & 0xffff with its own flags, and another
process's socket holding that number on another interface makes it fail (EINVAL): sluiced
then exits with "has no port". This holds the groups of the next N-1 pids on lo, starts
sluiced on a veth with af_packet through Sluiced, and prints whether it came up and how many
of its attempts the collision stopped (1: the first, then the retry under another pid).
  N=3 SLUICE_BUILD=build .venv/bin/python scripts/lab/fanout_collision.py"""
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests/e2e"))
os.environ.setdefault("SLUICE_BUILD", "build")
import conftest  # noqa: E402

subprocess.run("ip link add slfo0 type veth peer name slfo1 && ip link set slfo0 up", shell=True,
               check=True)
try:
    idx = int(open("/sys/class/net/slfo0/ifindex").read())
    last = int(open("/proc/sys/kernel/ns_last_pid").read())
    held = []
    for pid in range(last + 1, last + int(os.environ.get("N", "3"))):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
        s.bind(("lo", 0))
        s.setsockopt(263, 18, (pid ^ idx) & 0xffff)  # SOL_PACKET, PACKET_FANOUT: hash, no flags
        held.append(s)
    with tempfile.TemporaryDirectory() as tmp:
        sl = conftest.Sluiced(Path(tmp), ["net_af_packet0,iface=slfo0 { name port0 }"], ["show version"])
        sl.start()
        print(f"up as pid {sl.proc.pid}; groups held for pids {last + 1}-{last + len(held)}; "
              f"attempts stopped by the collision: "
              f"{(Path(tmp) / 'sluiced.log').read_text().count('could not set PACKET_FANOUT')}")
        print(f"exit code {sl.stop()}")
finally:
    subprocess.run("ip link del slfo0", shell=True, check=False)
