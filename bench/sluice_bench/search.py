# SPDX-License-Identifier: BSD-3-Clause
"""NDR and PDR search (RFC 2544 26.1, FD.io CSIT's MLRsearch idea): a binary search on the
offered rate with short trials, narrowed to a relative precision, then longer trials at the
boundary; a rate whose long trial loses too much lowers the upper bound and the search goes
on below it. The trial is any function (rate in packets/s, seconds) -> Trial, so the same
search drives sluice-gen against any DUT, or a model in tests."""
import math
from dataclasses import dataclass, field
from typing import Callable, List


@dataclass
class Trial:
    offered_pps: float       # the rate asked for
    sent: int
    received: int
    seconds: float
    latency_us: dict = None  # the generator's percentiles, when it measured them
    gen_busy_pct: float = None  # the busiest generator lane's share of busy time, when known
    refused: int = 0         # of sent: refused by the generator's full TX ring (the DUT did
                             # not drain its RX ring), as against lost inside the DUT
    gen_late_us: float = None  # the most a paced burst of the generator left late, when known

    @property
    def loss_ratio(self) -> float:
        return (self.sent - self.received) / self.sent if self.sent else 1.0

    @property
    def rx_pps(self) -> float:
        return self.received / self.seconds if self.seconds else 0.0


@dataclass
class Result:
    rate_pps: float          # the highest rate whose final trial met the loss ratio
    loss_ratio: float        # the criterion
    trials: List[Trial] = field(default_factory=list)


def expected_trials(max_pps, min_pps, precision):
    """The trials a search expects: two bounds, the halvings down to precision, the long one."""
    width = max(max_pps - min_pps, 1.0) / max(precision * max_pps, 1e-9)
    return 3 + max(0, math.ceil(math.log2(width)))


def search_steps(max_pps: float, loss_ratio: float = 0.0, min_pps: float = 1e3,
                 precision: float = 0.01, short_s: float = 1.0, final_s: float = 5.0):
    """The search as a generator: it yields (rate, seconds) for each trial, is sent the Trial
    back, and returns the Result (StopIteration.value). drive() runs it against one trial
    function; interleave() runs several, one trial of each in turn."""
    res = Result(rate_pps=0.0, loss_ratio=loss_ratio)

    def run(rate, secs):
        t = yield rate, secs
        res.trials.append(t)
        return t.loss_ratio <= loss_ratio

    lo, hi = min_pps, max_pps
    if (yield from run(hi, short_s)):       # the top rate itself passes: verify it
        lo = hi
    elif not (yield from run(lo, short_s)):
        return res                           # even the lowest rate loses too much
    while True:
        # invariant: lo passed its last trial, hi failed (or is the top rate)
        while hi - lo > precision * hi:
            mid = (lo + hi) / 2
            if (yield from run(mid, short_s)):
                lo = mid
            else:
                hi = mid
        if (yield from run(lo, final_s)):   # the boundary, measured longer
            res.rate_pps = lo
            return res
        # it did not hold: step down from it, further each time, until a rate passes again
        hi, step = lo, 4 * precision
        while True:
            lo = max(min_pps, hi * (1 - step))
            if (yield from run(lo, short_s)):
                break
            hi = lo
            if lo == min_pps:
                return res
            step *= 2


def late_text(t):
    """How late the trial's latest paced burst left, when the generator said: for its lines."""
    return f"a burst up to {t.gen_late_us / 1000:.1f} ms late" if t.gen_late_us is not None else ""


def progress_line(n_done, expected, rate, secs, t, loss_ratio):
    """A trial's progress line: a bar of the search's expected trials, the rate, the loss."""
    done = min(n_done / max(expected, n_done + 1), 0.99)
    bar = "#" * round(done * 20)
    busy = f"  (generator {t.gen_busy_pct:.0f}% busy)" if t.gen_busy_pct is not None else ""
    refused = f", {t.refused} refused by its TX ring" if t.refused else ""
    if t.refused and late_text(t):
        refused += f" ({late_text(t)})"
    ok = t.loss_ratio <= loss_ratio
    return (f"[{bar:<20}] {rate / 1e6:9.4f} Mpps {secs:4.1f} s: loss "
            f"{t.loss_ratio:.5f} {'pass' if ok else 'fail'}{busy}{refused}")


def drive(steps, trial, on_trial=None):
    """Runs a search generator to its end with trial(rate, secs); on_trial(rate, secs, t)
    after each trial. Returns the search's Result."""
    try:
        rate, secs = next(steps)
        while True:
            t = trial(rate, secs)
            if on_trial:
                on_trial(rate, secs, t)
            rate, secs = steps.send(t)
    except StopIteration as e:
        return e.value


def search(trial: Callable[[float, float], Trial], max_pps: float, loss_ratio: float = 0.0,
           min_pps: float = 1e3, precision: float = 0.01, short_s: float = 1.0,
           final_s: float = 5.0, progress: Callable[[str], None] = None) -> Result:
    """Highest rate in [min_pps, max_pps] at which trial(rate) loses at most loss_ratio (0:
    NDR; e.g. 0.005: PDR), to within precision (relative width of the final interval).
    progress, if given, is called after each trial with a line that starts with a bar of
    the search's expected trials done (two bounds, the halvings, the long trial)."""
    expected = expected_trials(max_pps, min_pps, precision)
    n = [0]

    def note(rate, secs, t):
        n[0] += 1
        if progress:
            progress(progress_line(n[0], expected, rate, secs, t, loss_ratio))
    return drive(search_steps(max_pps, loss_ratio, min_pps, precision, short_s, final_s),
                 trial, note)


def interleave(duts, make_steps, on_trial=None):
    """Searches of several DUTs, trial by trial: duts maps a name to a trial function (one
    with resume() and pause() methods has them called around each of its trials, so a DUT
    not on trial can be stopped); make_steps() gives a new search generator. Each round
    runs the next trial of every DUT whose search is not over, in the order given (A B A
    B ...), so their trials share the machine's moments. on_trial(name, rate, secs, t) after
    each. Returns {name: Result}."""
    gens = {n: make_steps() for n in duts}
    pending = {n: next(g) for n, g in gens.items()}
    results = {}
    while pending:
        for n in list(pending):
            rate, secs = pending[n]
            t = on_turn(duts[n], rate, secs)
            if on_trial:
                on_trial(n, rate, secs, t)
            try:
                pending[n] = gens[n].send(t)
            except StopIteration as e:
                results[n] = e.value
                del pending[n]
    return {n: results[n] for n in duts}


def on_turn(dut, rate, secs):
    """One trial of a DUT that may be paused between its turns."""
    if hasattr(dut, "resume"):
        dut.resume()
    try:
        return dut(rate, secs)
    finally:
        if hasattr(dut, "pause"):
            dut.pause()
