# SPDX-License-Identifier: BSD-3-Clause
"""Trials with sluice-gen over a memif socket, for search()."""
import sys
from pathlib import Path

from .search import Trial

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from sluice_run import run_gen  # noqa: E402


def memif_trial(sock, size=64, dst="48.0.0.0/8", huge=True, stream=None):
    """A trial function: sluice-gen offers rate packets/s for secs seconds. Loss counts what
    the generator offered (sent, or refused by a full TX ring) and did not get back; a rate
    it could not offer (more than 2% short: it paces whole bursts of 32) does not pass."""
    def trial(rate, secs):
        g = run_gen(sock, secs, size=size, dst=dst, rate=int(rate), huge=huge, stream=stream)
        offered = g["sent"] + g["tx_full"]
        short = int(rate * g["seconds"] * 0.98)
        return Trial(offered_pps=rate, sent=max(offered, short), received=g["sent"] - g["lost"],
                     seconds=g["seconds"], latency_us=g.get("latency_us"))
    return trial


class RestartingTrial:
    """A memif trial against a DUT this object starts (make_dut() gives a context manager)
    and restarts when the generator can no longer join its memif socket: with sluiced, DPDK
    22.11's memif server has been seen to stop accepting clients after some dozens of short
    sessions. Restarts are counted; use it as a context manager."""

    def __init__(self, make_dut, sock, **gen_args):
        self.make_dut, self.restarts = make_dut, 0
        self.raw = memif_trial(str(sock), **gen_args)

    def __enter__(self):
        self.dut = self.make_dut().__enter__()
        return self

    def __exit__(self, *exc):
        self.dut.__exit__(None, None, None)

    def __call__(self, rate, secs):
        for attempt in range(3):
            try:
                return self.raw(rate, secs)
            except RuntimeError as e:
                if "Failed to connect" not in str(e) or attempt == 2:
                    raise
                self.dut.__exit__(None, None, None)
                self.dut = self.make_dut().__enter__()
                self.restarts += 1
