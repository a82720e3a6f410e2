#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ACL flow cache's hit rate under a stream that replays its flows in one order (as pg,
TRex and sluice-gen do), for a number of sets and ways (docs/lab-notes.md, session 33): each
flow hashes to a random set; a miss goes in front of its set (first in, first out), a hit
changes nothing, as in src/acl/acl.c. Prints the share found after two warm passes.
`SETS WAYS last` simulates instead a miss that takes a full set's last way (an empty way
first) and a hit in a later way that moves the flow to the first (docs/lab-notes.md,
session 35; not built)."""
import random
import sys


def hit_rate(flows, sets, ways, passes=6, last=False):
    rnd = random.Random(2)
    where = [rnd.randrange(sets) for _ in range(flows)]
    order = list(range(flows))
    rnd.shuffle(order)
    cache = [[] for _ in range(sets)]
    hit = n = 0
    for p in range(passes):
        for f in order:
            s = cache[where[f]]
            if f in s:
                hit += p >= 2
                if last and s[0] != f:
                    s.remove(f)
                    s.insert(0, f)
            elif last and len(s) == ways:
                s[-1] = f
            else:
                s.insert(len(s) if last else 0, f)
                del s[ways:]
            n += p >= 2
    return hit / n


if __name__ == "__main__":
    # SETS WAYS on the command line, else the three of session 33
    configs = (((int(sys.argv[1]), int(sys.argv[2])),) if len(sys.argv) >= 3
               else ((8192, 2), (32768, 2), (16384, 4)))
    last = sys.argv[3:4] == ["last"]
    for flows in (4096, 8192, 16384, 32768, 65536, 131072):
        print(flows, " ".join(f"{s}x{w}: {hit_rate(flows, s, w, last=last):.3f}"
                              for s, w in configs))
