# SPDX-License-Identifier: BSD-3-Clause
"""The NDR/PDR search (bench/sluice_bench) against model DUTs with known answers."""
import random

import pytest
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from sluice_bench import Trial, interleave, search, search_steps  # noqa: E402


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


class Model:
    """A model DUT for interleave(): its trials, and whether it was running (resumed)."""

    def __init__(self, name, capacity, calls, running):
        self.name, self.trial, self.calls, self.running = name, dut(capacity), calls, running

    def resume(self):
        assert not self.running, "no two DUTs on trial at once"
        self.running.append(self.name)

    def pause(self):
        assert self.running == [self.name]
        self.running.clear()

    def __call__(self, rate, secs):
        assert self.running == [self.name], "a trial of a paused DUT"
        self.calls.append(self.name)
        return self.trial(rate, secs)


def test_interleave_runs_each_dut_in_turn_to_its_own_answer():
    calls, running = [], []
    duts = {"a": Model("a", 3.7e6, calls, running), "b": Model("b", 2.0e6, calls, running)}
    mk = lambda: search_steps(max_pps=10e6, precision=0.005)  # noqa: E731
    res = interleave(duts, mk)
    # the same answers as each DUT searched alone
    assert res["a"].rate_pps == search(dut(3.7e6), max_pps=10e6, precision=0.005).rate_pps
    assert res["b"].rate_pps == search(dut(2.0e6), max_pps=10e6, precision=0.005).rate_pps
    assert 3.7e6 * 0.995 <= res["a"].rate_pps <= 3.7e6 and 2e6 * 0.995 <= res["b"].rate_pps <= 2e6
    # A B A B ... while both search; the one with more trials finishes alone
    n = min(len(res["a"].trials), len(res["b"].trials))
    assert calls[:2 * n] == ["a", "b"] * n
    assert len(calls) == len(res["a"].trials) + len(res["b"].trials)
    assert not running  # paused after its last trial


def test_interleave_reports_every_trial_and_a_dut_that_passes_nothing():
    seen = []
    duts = {"fast": dut(20e6), "dead": dut(10)}  # plain trial functions: never paused
    res = interleave(duts, lambda: search_steps(max_pps=10e6, min_pps=1e3),
                     lambda name, rate, secs, t: seen.append((name, rate)))
    assert res["fast"].rate_pps == 10e6 and res["dead"].rate_pps == 0
    assert seen[:4] == [("fast", 10e6), ("dead", 10e6), ("fast", 10e6), ("dead", 1e3)]
    assert len(seen) == len(res["fast"].trials) + len(res["dead"].trials)


def test_top_rate_capped_by_line_rate():
    from sluice_bench.__main__ import max_rate
    assert max_rate({"max_mpps": 15}, 1500) == 15e6
    assert max_rate({"max_mpps": 15, "max_gbps": 100}, 1500) == pytest.approx(100e9 / (1520 * 8))
    assert max_rate({"max_mpps": 15, "max_gbps": 100}, 64) == 15e6  # 148.8 Mpps of line rate


def test_duts_placed_on_the_cores_and_eal_arguments_given(monkeypatch):
    """BENCH_CORES and BENCH_EAL (a many-core machine without DPDK) move a sluiced DUT's main
    lcore and worker and add its EAL arguments; a command DUT gets them as {main}, {fwd} and
    {eal}; with neither set the startup.conf is unchanged."""
    import yaml
    from sluice_bench import __main__ as sb
    root = Path(__file__).resolve().parents[2]
    conf = (root / "conf/demo-startup.conf").read_text()
    monkeypatch.delenv("BENCH_CORES", raising=False)
    monkeypatch.setattr(sb, "EAL_EXTRA", [])
    assert sb.placed(conf) == conf
    monkeypatch.setenv("BENCH_CORES", "2,3,4")
    monkeypatch.setattr(sb, "MAIN_CORE", 3)
    monkeypatch.setattr(sb, "FWD_CORE", 4)
    monkeypatch.setattr(sb, "EAL_EXTRA", ["-d", "/x/pmds"])
    out = sb.placed(conf)
    assert "cpu { main-core 3 corelist-workers 4 }" in out
    assert 'dpdk {\n  eal-args "-d /x/pmds"' in out
    # the section gets them, not a comment that names it
    out = sb.placed("# with dpdk { rx-vector 32 }\n" + conf)
    assert out.startswith("# with dpdk { rx-vector 32 }\n") and 'dpdk {\n  eal-args "-d /x/pmds"' in out
    topo = yaml.safe_load((root / "bench/topologies/memif-sluiced-vs-testpmd-io.yaml").read_text())
    cmd = topo["duts"][1]["cmd"].format(sock="/s", main=3, fwd=4, eal="-d /x/pmds")
    assert "-l 3,4 --main-lcore 3" in cmd and cmd.count("-d /x/pmds") == 1
