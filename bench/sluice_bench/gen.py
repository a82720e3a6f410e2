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
