# SPDX-License-Identifier: BSD-3-Clause
"""make seed-000 [SOAK=SECONDS]: seed 000's experiments as one command, on the demo
topology (sluice-gen -> memif -> sluiced -> memif -> sluice-gen, one worker).

1. The first topology: 64-byte UDP to 48.0.0.0/8, routed via 10.10.2.1, at --first-rate for
   --first-seconds; the drops as the generator counts them and as sluiced does (interface
   counters and show errors), side by side.
2. The multi-flow soak, both directions at once: UDP source port 2123 to destination ports
   10000-50000, destinations over 49.0.0.0/8 (port 0 -> port 1) and 17.0.0.0/8 (port 1 ->
   port 0), frames of 64-256 bytes, at --rate packets/s in all, for --duration seconds in
   intervals of --interval seconds. Each interval is one run of the generator (its report:
   loss, latency percentiles) appended to OUT/intervals.jsonl as it ends, so an interrupted
   soak keeps what it measured; --resume goes on from there up to --duration. OUT/soak.png
   draws p50/p99/max latency and the loss of every interval over time; OUT/seed-000.md sums up.
   --ip6: the soak over IPv6 (conf/ip6-startup.conf): destinations random in
   2001:db8:49::/64 and 2001:db8:17::/64 (routes: their /48s), frames of 84-256 bytes (84: the
   smallest IPv6/UDP frame that holds the generator's signature).
"""
import argparse
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
from sluice_bench.__main__ import SluicedDut, run_folder  # noqa: E402
from sluice_bench.gen import GenSession  # noqa: E402
from sluice_run import Daemon  # noqa: E402

SOAK_CLI = ["ip neighbor port0 10.10.1.2 02:00:00:00:00:01",
            "ip route add 49.0.0.0/8 via 10.10.2.1",
            "ip route add 17.0.0.0/8 via 10.10.1.2"]
SOAK_STREAMS = [  # sizes without the FCS: 64-256 byte frames
    "port 0 size 60-252 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:10 "
    "UDP: 17.0.0.1 -> 49.0.0.0/8 random UDP: 2123 -> 10000-50000 random }",
    "port 1 size 60-252 data { IP4: 02:00:00:00:00:02 -> 02:00:00:00:00:11 "
    "UDP: 49.0.0.1 -> 17.0.0.0/8 random UDP: 2123 -> 10000-50000 random }"]
SOAK6_CLI = ["ip neighbor port0 2001:db8:1::2 02:00:00:00:00:01",
             "ip route add 2001:db8:49::/48 via 2001:db8:2::1",
             "ip route add 2001:db8:17::/48 via 2001:db8:1::2"]
SOAK6_STREAMS = [
    "port 0 size 80-252 data { IP6: 02:00:00:00:00:01 -> 02:00:00:00:00:10 "
    "UDP: 2001:db8:17::1 -> 2001:db8:49::/64 random UDP: 2123 -> 10000-50000 random }",
    "port 1 size 80-252 data { IP6: 02:00:00:00:00:02 -> 02:00:00:00:00:11 "
    "UDP: 2001:db8:49::1 -> 2001:db8:17::/64 random UDP: 2123 -> 10000-50000 random }"]
FIRST_STREAM = ("size 60 data { IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:10 "
                "UDP: 10.10.1.2 -> 48.0.0.0/8 random UDP: 2123 -> 10000 }")


def sluiced(run, ip6=False):
    conf = (ROOT / f"conf/{'ip6' if ip6 else 'demo'}-startup.conf").read_text()
    conf = conf.replace("@DIR@/../../conf", str(ROOT / "conf"))
    return SluicedDut(Daemon(conf.replace("@DIR@", str(run)), run), SOAK6_CLI if ip6 else SOAK_CLI)


def first_topology(run, rate, seconds, log):
    """The seed's first measurement: the generator's and sluiced's counts of the same run."""
    sub = run / "first"
    sub.mkdir()
    with sluiced(sub) as dut, GenSession(sub / "memif.sock", FIRST_STREAM, sub) as gen:
        dut.d.cli("clear interfaces")
        dut.d.cli("clear errors")
        g = gen.run(rate, seconds)
        ifs = {r["name"]: r for r in dut.d.js("show interface")["interfaces"]}
        errs = dut.d.js("show errors")["errors"]
    p0, p1 = ifs["port0"], ifs["port1"]
    lines = [f"## The first topology: 64 B to 48.0.0.0/8 via 10.10.2.1, {rate / 1e6:g} Mpps for {seconds:g} s", "",
             "| counted by | offered | into sluiced | out of sluiced | received back | lost |", "|---|---|---|---|---|---|",
             f"| sluice-gen | {g['sent'] + g['tx_full']} ({g['tx_full']} refused by its TX ring) | {g['sent']} | - | "
             f"{g['sent'] - g['lost']} | {g['lost']} (and {g['tx_full']} refused) |",
             f"| sluiced | - | {p0['rx-packets']} (rx-miss {p0.get('rx-miss', 0)}) | {p1['tx-packets']} "
             f"(tx-error {p1['tx-error']}) | - | {p0['rx-packets'] - p1['tx-packets']} |", "",
             "sluiced's drops by reason: " + (", ".join(f"{e['node']} {e['reason']}: {e['count']}" for e in errs)
                                              if errs else "none"), ""]
    for line in lines:
        log(line)
    return {"generator": g, "interfaces": ifs, "errors": errs}, lines


def soak(run, out, rate, duration, interval, resume, log, ip6=False):
    rec = out / "intervals.jsonl"
    done = []
    if resume and rec.exists():
        done = [json.loads(l) for l in rec.read_text().splitlines() if l.strip()]
        log(f"resuming: {len(done)} intervals, {sum(r['seconds'] for r in done):.0f} s already measured")
    elif rec.exists():
        rec.unlink()
    elapsed = sum(r["seconds"] for r in done)
    sub = run / "soak"
    sub.mkdir()
    interrupted = False
    streams = SOAK6_STREAMS if ip6 else SOAK_STREAMS
    with sluiced(sub, ip6) as dut, GenSession(sub / "memif.sock", streams, sub, gen_args=["--bidir"]) as gen, \
            open(rec, "a") as f:
        try:
            while elapsed < duration - 1e-9:
                secs = min(interval, duration - elapsed)
                t0 = time.time()
                g = gen.run(rate, secs)
                lat = g.get("latency_us") or {}
                r = {"index": len(done), "start": t0, "seconds": g["seconds"], "offered": g["sent"] + g["tx_full"],
                     "sent": g["sent"], "refused": g["tx_full"], "received": g["sent"] - g["lost"],
                     "lost": g["lost"], "loss_ratio": ((g["sent"] + g["tx_full"]) - (g["sent"] - g["lost"]))
                     / max(g["sent"] + g["tx_full"], 1),
                     "p50_us": lat.get("p50"), "p99_us": lat.get("p99"), "max_us": lat.get("max"),
                     "gen_busy_pct": max(g["lanes_busy_pct"])}
                f.write(json.dumps(r) + "\n")
                f.flush()
                os.fsync(f.fileno())  # kept whatever happens next
                done.append(r)
                elapsed += r["seconds"]
                log(f"  interval {r['index']}: {r['seconds']:.1f} s, loss {r['loss_ratio']:.6f}, latency p50 "
                    f"{r['p50_us']} p99 {r['p99_us']} max {r['max_us']} us")
        except KeyboardInterrupt:
            interrupted = True
            log(f"interrupted: {len(done)} intervals kept in {rec}; --resume goes on from there")
    return done, interrupted


def draw(done, out, rate, ip6=False):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t0 = done[0]["start"] if done else 0
    x = [(r["start"] - t0) / 60 for r in done]
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for k, st in (("p50_us", "o-"), ("p99_us", "x-"), ("max_us", ".:")):
        ax[0].plot(x, [r[k] for r in done], st, label=k[:-3])
    ax[0].set_yscale("log")
    ax[0].set_ylabel("latency (us)")
    ax[0].legend()
    ax[1].plot(x, [r["loss_ratio"] * 100 for r in done], "o-")
    ax[1].set_yscale("symlog", linthresh=1e-4)
    ax[1].set_ylabel("loss per interval (%)")
    ax[1].set_xlabel("minutes since the first interval")
    fig.suptitle(f"seed 000 soak{' over IPv6' if ip6 else ''}: both directions, {rate / 1e6:g} Mpps "
                 f"in all, {84 if ip6 else 64}-256 B")
    fig.tight_layout()
    fig.savefig(out / "soak.png")


def summary(done, interrupted, rate, duration, ip6=False):
    if not done:
        return ["## The soak", "", "no interval measured"]
    off, lost = sum(r["offered"] for r in done), sum(r["offered"] - r["received"] for r in done)
    p99 = [r["p99_us"] for r in done if r["p99_us"] is not None]
    where = ("84-256 B, IPv6, UDP 2123 -> 10000-50000, to 2001:db8:49::/64 and 2001:db8:17::/64"
             if ip6 else "64-256 B, UDP 2123 -> 10000-50000, to 49/8 and 17/8")
    return [f"## The soak: both directions, {where}", "",
            f"{len(done)} intervals, {sum(r['seconds'] for r in done):.0f} of {duration:g} s at {rate / 1e6:g} Mpps"
            + (" (interrupted)" if interrupted else ""), "",
            "| offered | lost | loss % | intervals with loss | p99 us (median of intervals) | worst p99 us | max us |",
            "|---|---|---|---|---|---|---|",
            f"| {off} | {lost} | {lost / max(off, 1) * 100:.5f} | {sum(r['loss_ratio'] > 0 for r in done)} | "
            f"{statistics.median(p99) if p99 else '-'} | {max(p99) if p99 else '-'} | "
            f"{max((r['max_us'] or 0) for r in done)} |"]


def main():
    ap = argparse.ArgumentParser(prog="seed000")
    ap.add_argument("--duration", type=float, default=float(os.environ.get("SOAK", 180)),
                    help="soak seconds (default 180; hours work: records are written as they come)")
    ap.add_argument("--interval", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=1e6, help="soak packets/s, both directions together")
    ap.add_argument("--first-rate", type=float, default=1e6)
    ap.add_argument("--first-seconds", type=float, default=10.0)
    ap.add_argument("--skip-first", action="store_true")
    ap.add_argument("--resume", action="store_true", help="go on from OUT/intervals.jsonl")
    ap.add_argument("--ip6", action="store_true", help="the soak over IPv6")
    ap.add_argument("--out", default=str(ROOT / "results" / "seed-000"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with run_folder("seed-000-") as run:
        say = lambda m: print(m, flush=True)  # noqa: E731
        # SIGINT and SIGTERM keep the records, also when started in the background (a shell
        # without job control starts it with SIGINT ignored, and Python then leaves it so)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        lines = []
        if not a.skip_first and not a.resume:
            first, lines = first_topology(run, a.first_rate, a.first_seconds, say)
            (out / "first.json").write_text(json.dumps(first, indent=2))
        elif (out / "seed-000.md").exists() and a.resume:
            lines = (out / "seed-000.md").read_text().split("## The soak")[0].splitlines()
        done, interrupted = soak(run, out, a.rate, a.duration, a.interval, a.resume, say, a.ip6)
        draw(done, out, a.rate, a.ip6)
        text = (["# Seed 000", ""] + [l for l in lines if l != "# Seed 000"]
                + summary(done, interrupted, a.rate, a.duration, a.ip6))
        (out / "seed-000.md").write_text("\n".join(text) + "\n")
        print("\n".join(text))
        print(f"\n{out}/seed-000.md, soak.png, intervals.jsonl")
        return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
