# SPDX-License-Identifier: BSD-3-Clause
"""make demo: sluice-gen sends 64-byte UDP to 48.0.0.0/8 into sluiced over memif; sluiced
routes it via 10.10.2.1 back to sluice-gen; prints the results and the CLI's view, then a
short NDR and PDR search at 64 bytes and IMIX (bench/sluice_bench, the seed topology) on the
same path, printed as a table with its plots written next to it."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
from sluice_run import ROOT, Daemon, hugepages_free, run_gen  # noqa: E402
import yaml  # noqa: E402
from sluice_bench.__main__ import run_topology  # noqa: E402

SECONDS = 5


def main():
    run = Path(tempfile.mkdtemp(prefix="sluice-demo-"))
    conf = (ROOT / "conf/demo-startup.conf").read_text().replace("@DIR@/../../conf", str(ROOT / "conf"))
    conf = conf.replace("@DIR@", str(run))
    huge = hugepages_free() >= 256
    if not huge:
        conf = conf.replace("socket-mem 256", "no-huge socket-mem 512")
        print("demo: no free hugepages, running with --no-huge")
    with Daemon(conf, run) as d:
        print(d.cli("show ip fib 48.0.0.0/8"))
        d.cli("clear runtime")
        g = run_gen(f"{run}/memif.sock", SECONDS, huge=huge)
        ifs = {r["name"]: r for r in d.js("show interface")["interfaces"]}
        print(f"{'offered':>12} {'forwarded':>12} {'dropped':>10} {'offered Mpps':>13} {'fwd Mpps':>9}")
        print(f"{g['sent']:>12} {g['signed']:>12} {g['lost']:>10} {g['tx_mpps']:>13.3f} {g['rx_mpps']:>9.3f}")
        print(f"(sluiced: rx {ifs['port0']['rx-packets']}, tx {ifs['port1']['tx-packets']}, "
              f"tx-error {ifs['port1']['tx-error']}; run folder {run})\n")
        print(d.cli("show interface"))
        print(d.cli("show runtime"))
        errs = d.js("show errors")["errors"]
        print(d.cli("show errors") if errs else "show errors: none\n")
    # short trials (0.5 s, then 2 s at the boundary), 5% precision: a demo, not a report; a
    # fresh sluiced and one generator per frame size, driven over its control socket
    topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
    topo["gen"]["huge"] = huge
    topo["search"] = {"sizes": [64, "imix"], "max_mpps": round(max(g["tx_mpps"] * 1.2, 1.0), 2),
                      "min_mpps": 0.1, "precision": 0.05, "short_s": 0.5, "final_s": 2.0,
                      "latency_at": [0.5, 0.9]}
    out = run / "search"
    lines = run_topology(topo, out, log=lambda m: print(m, flush=True))
    print("\n" + "\n".join(lines[2:]))
    print(f"\nplots: {out}/throughput.png, latency.png, loss.png; all figures: {out}/results.json")


if __name__ == "__main__":
    main()
