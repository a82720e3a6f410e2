#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ACL flow cache's hit rate under a stream that replays its flows in one order (as pg,
TRex and sluice-gen do), for a number of sets and ways (docs/lab-notes.md, session 33): each
flow hashes to a random set; a miss goes in front of its set (first in, first out), a hit
changes nothing, as in src/acl/acl.c. Prints the share found after two warm passes."""
import random
import sys


def hit_rate(flows, sets, ways, passes=6):
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
            else:
                s.insert(0, f)
                del s[ways:]
            n += p >= 2
    return hit / n


if __name__ == "__main__":
    # SETS WAYS on the command line, else the three of session 33
    configs = (((int(sys.argv[1]), int(sys.argv[2])),) if len(sys.argv) >= 3
               else ((8192, 2), (32768, 2), (16384, 4)))
    for flows in (4096, 8192, 16384, 32768, 65536):
        print(flows, " ".join(f"{s}x{w}: {hit_rate(flows, s, w):.3f}" for s, w in configs))
