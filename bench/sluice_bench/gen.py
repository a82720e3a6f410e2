# SPDX-License-Identifier: BSD-3-Clause
"""Trials with sluice-gen over a memif socket, for search()."""
import sys
from pathlib import Path

from .search import Trial

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from sluice_run import run_gen  # noqa: E402


def memif_trial(sock, size=64, dst="48.0.0.0/8", huge=True, stream=None):
    """A trial function: sluice-gen offers rate packets/s for secs seconds. Loss counts from
    what was asked, so a rate the generator could not offer does not pass."""
    def trial(rate, secs):
        g = run_gen(sock, secs, size=size, dst=dst, rate=int(rate), huge=huge, stream=stream)
        asked = int(rate * g["seconds"])
        return Trial(offered_pps=rate, sent=max(asked, g["sent"]), received=g["signed"],
                     seconds=g["seconds"])
    return trial
