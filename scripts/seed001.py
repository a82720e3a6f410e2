# SPDX-License-Identifier: BSD-3-Clause
"""make seed-001: seed 001's experiment as one command. NDR (and PDR, p99 latency at half
the NDR) at 64, 512 and 1500 bytes for the same network (L2: sluiced as a cross-connect and
as a bridge domain) and for different networks (L3: sluiced routing, DPDK's l3fwd), each
against dpdk-testpmd io, trial by trial (bench/topologies/seed-001-l2.yaml and -l3.yaml),
then one table and one plot with L2 and L3 side by side in results/seed-001/.

Environment: TESTPMD and L3FWD_DIR name prebuilt programs (built here from Debian's DPDK
source package and examples otherwise; a DUT that cannot be built is left out and said so),
REPEAT (default 1) repeats each search, SIZES (default 64,512,1500) the frame sizes. It
reserves more hugepages when fewer than 3.2 GB are free (all DUTs of a group live at once)."""
import os
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
from bench import build_l3fwd, build_testpmd  # noqa: E402
from sluice_bench.__main__ import run_topology  # noqa: E402

GROUPS = (("L2 (same network)", "seed-001-l2"), ("L3 (different networks)", "seed-001-l3"))


def available(topo, have):
    """The topology without the DUTs whose program is missing."""
    keep = []
    for d in topo["duts"]:
        need = [v for v in ("TESTPMD", "L3FWD_DIR") if f"${v}" in d.get("cmd", "")]
        if all(have.get(v) for v in need):
            keep.append(d)
        else:
            print(f"seed-001: {d['name']} left out: {', '.join(need)} could not be built", flush=True)
    topo["duts"] = keep
    if topo.get("baseline") not in [d["name"] for d in keep]:
        topo["baseline"] = keep[-1]["name"]
    return topo


def report(results, out):
    """One table (NDR per frame size for every DUT, with its ratio to testpmd io) and a plot
    with the L2 and L3 groups side by side, as seed 001's report draws them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    lines = ["# Seed 001: NDR per frame size, L2 and L3, trial by trial against testpmd io", "",
             "| group | DUT | " + " | ".join(f"{e['size']} B NDR Mpps (ratio)" for e in results[0][1]["sizes"])
             + " |", "|---|---|" + "---|" * len(results[0][1]["sizes"])]
    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4), sharey=True)
    axes = axes if len(results) > 1 else [axes]
    for (label, res), ax in zip(results, axes):
        sizes = [str(e["size"]) for e in res["sizes"]]
        w = 0.8 / len(res["duts"])
        for i, n in enumerate(res["duts"]):
            cells = []
            for e in res["sizes"]:
                med = e["duts"][n]["ndr_mpps"]["median"]
                r = e["ratios"].get(n, {}).get("ndr", {}).get("median")
                cells.append(f"{med:.3f}" + (f" ({r:.2f})" if r is not None else ""))
            lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
            ax.bar([x + i * w for x in range(len(sizes))],
                   [e["duts"][n]["ndr_mpps"]["median"] for e in res["sizes"]], w, label=n)
        ax.set_xticks([x + w * (len(res["duts"]) - 1) / 2 for x in range(len(sizes))], sizes)
        ax.set_title(label)
        ax.set_xlabel("frame bytes")
        ax.set_ylabel("NDR Mpps (median)")
        ax.legend(fontsize=8)
    lines += ["", f"Ratios: DUT / testpmd io in the same group, the median of the repeats' ratios. "
              f"Each group's own table (PDR, latency, spread, the generator's share): "
              f"{', '.join(f'{name}/results.md' for _, name in GROUPS)}."]
    fig.suptitle("Seed 001: NDR, same network (L2) and different networks (L3)")
    fig.tight_layout()
    fig.savefig(out / "seed-001.png")
    (out / "seed-001.md").write_text("\n".join(lines) + "\n")
    return lines


def ensure_hugepages(mb):
    """All of a group's DUTs and generators are alive at once (the one not on trial stopped):
    two sluiced (about 650 MB each with their FIB), testpmd (512 MB) and three generators
    need about 3 GB of hugepages; reserve more 2 MB pages when fewer are free."""
    free = int(next(l for l in open("/proc/meminfo") if l.startswith("HugePages_Free")).split()[1]) * 2
    if free >= mb:
        return
    nr = Path("/proc/sys/vm/nr_hugepages")
    want = int(nr.read_text()) + (mb - free) // 2 + 1
    nr.write_text(str(want))
    print(f"seed-001: {free} MB of hugepages free, {mb} MB needed: nr_hugepages now {nr.read_text().strip()}")


def main():
    ensure_hugepages(3200)
    out = ROOT / "results" / "seed-001"
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="seed-001-"))
    tp, l3 = build_testpmd(tmp), build_l3fwd(tmp)
    have = {"TESTPMD": str(tp) if tp else "", "L3FWD_DIR": str(l3) if l3 else ""}
    os.environ.update({k: v for k, v in have.items() if v})
    repeat = int(os.environ.get("REPEAT", "1"))
    sizes = [int(s) for s in os.environ.get("SIZES", "64,512,1500").split(",")]
    results = []
    import json
    for label, name in GROUPS:
        topo = available(yaml.safe_load(open(ROOT / f"bench/topologies/{name}.yaml")), have)
        topo["search"]["sizes"] = sizes
        run_topology(topo, out / name, log=lambda m: print(m, flush=True), repeat=max(repeat, 1))
        results.append((label, json.loads((out / name / "results.json").read_text())))
    print("\n".join(report(results, out)))
    print(f"\n{out}/seed-001.md, seed-001.png")


if __name__ == "__main__":
    main()
