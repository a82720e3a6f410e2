# SPDX-License-Identifier: BSD-3-Clause
"""The NDR/PDR search (bench/sluice_bench) against model DUTs with known answers."""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from sluice_bench import Trial, search  # noqa: E402


def dut(capacity_pps, partial=0.0, noise=None):
    """A DUT that forwards everything up to capacity and drops the excess; partial adds a
    loss ratio below capacity; noise(rate, secs) may return a lower capacity for a trial."""
    def trial(rate, secs):
        cap = noise(rate, secs) if noise else capacity_pps
        sent = int(rate * secs)
        fwd = min(rate, cap) * secs * (1 - partial)
        return Trial(offered_pps=rate, sent=sent, received=int(fwd), seconds=secs)
    return trial


def test_ndr_converges_to_the_capacity():
    r = search(dut(3.7e6), max_pps=10e6, precision=0.005)
    assert 3.7e6 * 0.995 <= r.rate_pps <= 3.7e6
    assert r.trials[-1].seconds == 5.0 and r.trials[-1].loss_ratio == 0
    assert len(r.trials) < 20


def test_pdr_accepts_its_loss_and_ndr_does_not():
    # 0.2% loss at every rate, capacity 2 Mpps: PDR (0.5%) finds a rate just above capacity,
    # NDR finds none
    d = dut(2e6, partial=0.002)
    pdr = search(d, max_pps=10e6, loss_ratio=0.005, precision=0.001)
    assert 2e6 <= pdr.rate_pps <= 2e6 / (1 - 0.003) * 1.001
    assert search(d, max_pps=10e6, loss_ratio=0.0).rate_pps == 0


def test_top_rate_and_nothing_passes():
    assert search(dut(20e6), max_pps=10e6).rate_pps == 10e6
    assert search(dut(100), max_pps=10e6, min_pps=1e3).rate_pps == 0


def test_a_failed_final_trial_lowers_the_result():
    # long trials see a lower capacity (e.g. a buffer that only holds for a second)
    r = search(dut(0, noise=lambda rate, secs: 5e6 if secs <= 1 else 4e6), max_pps=10e6,
               precision=0.01)
    assert 4e6 * 0.97 <= r.rate_pps <= 4e6
    assert r.trials[-1].seconds == 5.0 and r.trials[-1].loss_ratio == 0


def test_noisy_dut_still_lands_inside_its_range():
    rnd = random.Random(3)
    r = search(dut(0, noise=lambda rate, secs: rnd.uniform(2.9e6, 3.1e6)), max_pps=10e6,
               precision=0.005)
    assert 2.7e6 <= r.rate_pps <= 3.1e6
