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


def search(trial: Callable[[float, float], Trial], max_pps: float, loss_ratio: float = 0.0,
           min_pps: float = 1e3, precision: float = 0.01, short_s: float = 1.0,
           final_s: float = 5.0, progress: Callable[[str], None] = None) -> Result:
    """Highest rate in [min_pps, max_pps] at which trial(rate) loses at most loss_ratio (0:
    NDR; e.g. 0.005: PDR), to within precision (relative width of the final interval).
    progress, if given, is called after each trial with a line that starts with a bar of
    the search's expected trials done (two bounds, the halvings, the long trial)."""
    res = Result(rate_pps=0.0, loss_ratio=loss_ratio)
    width = max(max_pps - min_pps, 1.0) / max(precision * max_pps, 1e-9)
    expected = 3 + max(0, math.ceil(math.log2(width)))

    def run(rate, secs):
        t = trial(rate, secs)
        res.trials.append(t)
        ok = t.loss_ratio <= loss_ratio
        if progress:
            done = min(len(res.trials) / max(expected, len(res.trials) + 1), 0.99)
            bar = "#" * round(done * 20)
            busy = f"  (generator {t.gen_busy_pct:.0f}% busy)" if t.gen_busy_pct is not None else ""
            progress(f"[{bar:<20}] {rate / 1e6:9.4f} Mpps {secs:4.1f} s: loss "
                     f"{t.loss_ratio:.5f} {'pass' if ok else 'fail'}{busy}")
        return ok

    lo, hi = min_pps, max_pps
    if run(hi, short_s):       # the top rate itself passes: verify it
        lo = hi
    elif not run(lo, short_s):
        return res             # even the lowest rate loses too much
    while True:
        # invariant: lo passed its last trial, hi failed (or is the top rate)
        while hi - lo > precision * hi:
            mid = (lo + hi) / 2
            if run(mid, short_s):
                lo = mid
            else:
                hi = mid
        if run(lo, final_s):   # the boundary, measured longer
            res.rate_pps = lo
            return res
        # it did not hold: step down from it, further each time, until a rate passes again
        hi, step = lo, 4 * precision
        while True:
            lo = max(min_pps, hi * (1 - step))
            if run(lo, short_s):
                break
            hi = lo
            if lo == min_pps:
                return res
            step *= 2
