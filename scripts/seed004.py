# SPDX-License-Identifier: BSD-3-Clause
"""make seed-004: seed 004's experiment as one command. Two servers joined by an overlay, VM1
on server A sending 64-byte packets to VM2 on server B (bench/topologies/seed-004.yaml):
sluiced with MPLS over UDP (the vRouter's model), sluiced with VXLAN, and the seed's baseline,
Linux bridges with the kernel's VXLAN in two network namespaces; NDR, PDR and the rate
forwarded at the highest load offered, trial by trial, then one table and one plot shaped
like the seed's comparison in results/seed-004/.

Environment: REPEAT (default 1) repeats each search; SEED004_RING=N makes every DUT's receive
queue from VM1 N frames deep (default the topology's 4,096: the virtio ring's queue_size and
the generator's --txd for sluiced, the af_packet ring and netdev_max_backlog for the kernel);
SEED004_CORES="A,B" puts server A's and server B's workers on those cores (default: both on
the forwarding core of BENCH_CORES, as a 2-core machine must; the generator keeps its own
core)."""
import json
import os
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
from seed001 import ensure_hugepages  # noqa: E402
from sluice_bench.__main__ import run_topology  # noqa: E402

LABELS = {"sluiced-mplsudp": "Sluice, MPLS over UDP", "sluiced-vxlan": "Sluice, VXLAN",
          "linux-bridge-vxlan": "Linux bridge + kernel VXLAN"}


def saturation(runs):
    """The most a DUT forwarded in any trial of its searches (Mpps), the median over repeats."""
    best = sorted(max(t["rx_mpps"] for k in ("ndr", "pdr") for t in r[k]["trial_log"]) for r in runs)
    return best[len(best) // 2]


def report(res, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    e = res["sizes"][0]
    base = res["baseline"]
    sat = {n: saturation(e["duts"][n]["runs"]) for n in res["duts"]}
    lines = ["# Seed 004: two servers joined by an overlay, VM1 -> A -> wire -> B -> VM2, 64 B", "",
             "| forwarder | NDR Mpps (ratio to the Linux bridge) | PDR 0.5% Mpps (ratio) | "
             "most forwarded Mpps (ratio) | generator busy max % |", "|---|---|---|---|---|"]
    for n in res["duts"]:
        d = e["duts"][n]
        r = e["ratios"].get(n, {})

        def cell(v, k):
            x = r.get(k, {}).get("median")
            return f"{v:.3f}" + (f" ({x:.2f})" if x is not None else "")
        s_ratio = f" ({sat[n] / sat[base]:.2f})" if n != base and sat[base] > 0 else ""
        lines.append(f"| {LABELS.get(n, n)} | {cell(d['ndr_mpps']['median'], 'ndr')} | "
                     f"{cell(d['pdr_mpps']['median'], 'pdr')} | {sat[n]:.3f}{s_ratio} | "
                     f"{d['gen_busy_pct_max']} |")
    lines += ["", "Seed 004's own figures (vRouter on DPDK, 64 B): 4.15 Mpps, the Linux bridge "
              "about 0.5 Mpps (8.3x). Ratios here: medians of the repeats' ratios, each DUT's "
              "trial next to the baseline's. Details: results.md (latency, spread)."]
    fig, ax = plt.subplots(figsize=(7, 4))
    names = res["duts"]
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], [e["duts"][n]["ndr_mpps"]["median"] for n in names], 0.4, label="NDR")
    ax.bar([i + 0.2 for i in x], [sat[n] for n in names], 0.4, label="most forwarded")
    ax.set_xticks(list(x), [LABELS.get(n, n) for n in names], fontsize=8)
    ax.set_ylabel("Mpps, 64-byte frames")
    ax.set_title("Seed 004: VM to VM across two servers")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "seed-004.png")
    (out / "seed-004.md").write_text("\n".join(lines) + "\n")
    return lines


def with_ring(topo, n):
    """topo with every DUT's receive queue from VM1 n frames deep (see bench/topologies/seed-004.yaml)."""
    for d in topo["duts"]:
        g = d["gen"]
        g["vdevs"] = [re.sub(r"(queue_size|framecnt)=\d+", rf"\g<1>={n}", v) for v in g["vdevs"]]
        if "txd" in g:
            g["txd"] = n
        d["cmd"] = re.sub(r"--backlog \d+", f"--backlog {n}", d["cmd"])
    return topo


def main():
    os.chdir(ROOT)  # the topology's commands name scripts/ from here
    # two pairs of sluiced (about 1.4 GB each) and the generators: 3.6 GB at the most in
    # session 43's runs, and a generator that found 242 MB free at 3,800 did not start
    ensure_hugepages(4400)
    out = ROOT / "results" / "seed-004"
    topo = yaml.safe_load(open(ROOT / "bench/topologies/seed-004.yaml"))
    if os.environ.get("SEED004_RING"):
        topo = with_ring(topo, int(os.environ["SEED004_RING"]))
    run_topology(topo, out, log=lambda m: print(m, flush=True),
                 repeat=max(int(os.environ.get("REPEAT", "1")), 1))
    print("\n".join(report(json.loads((out / "results.json").read_text()), out)))
    print(f"\n{out}/seed-004.md, seed-004.png")


if __name__ == "__main__":
    main()
