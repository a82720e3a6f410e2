# SPDX-License-Identifier: BSD-3-Clause
"""make seed-000's script with tiny durations: the first topology's two counts, the soak's
interval records written as they come, an interrupted soak keeping them, and --resume
going on from them to the duration asked for."""
import glob
import json
import signal
import subprocess
import sys
import time

from conftest import ROOT, release_only

SCRIPT = [sys.executable, str(ROOT / "scripts/seed000.py")]


def records(out):
    f = out / "intervals.jsonl"
    return [json.loads(l) for l in f.read_text().splitlines() if l.strip()] if f.exists() else []


@release_only
def test_seed000_first_topology_and_soak_resume(tmp_path):
    out = tmp_path / "out"
    folders = set(glob.glob("/tmp/seed-000-*"))
    # an interrupted soak keeps what it measured
    p = subprocess.Popen(SCRIPT + ["--first-rate", "20000", "--first-seconds", "0.5", "--rate", "20000",
                                   "--duration", "30", "--interval", "0.5", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 120
    while len(records(out)) < 2 and time.time() < deadline and p.poll() is None:
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    text = p.communicate(timeout=60)[0]
    assert p.returncode == 130, text[-2000:]
    kept = records(out)
    assert len(kept) >= 2 and "interrupted" in text
    first = json.loads((out / "first.json").read_text())
    g = first["generator"]
    assert g["sent"] > 0 and first["interfaces"]["port0"]["rx-packets"] == g["sent"]
    assert "| sluice-gen |" in (out / "seed-000.md").read_text() and "(interrupted)" in (out / "seed-000.md").read_text()
    for r in kept:
        assert r["offered"] > 0 and 0 <= r["loss_ratio"] <= 1 and r["p99_us"] >= r["p50_us"] > 0
        assert r["max_us"] >= r["p99_us"]
    # --resume goes on to the duration: the kept records stay as they were, new ones follow
    total = sum(r["seconds"] for r in kept) + 1.0
    r = subprocess.run(SCRIPT + ["--rate", "20000", "--duration", str(total), "--interval", "0.5",
                                 "--out", str(out), "--resume"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    after = records(out)
    assert after[:len(kept)] == kept and len(after) >= len(kept) + 2
    assert [x["index"] for x in after] == list(range(len(after)))
    assert all(b["start"] > a["start"] for a, b in zip(after, after[1:]))
    assert sum(x["seconds"] for x in after) >= total - 0.05
    md = (out / "seed-000.md").read_text()
    assert "| sluice-gen |" in md and "(interrupted)" not in md and f"{len(after)} intervals" in md
    assert (out / "soak.png").stat().st_size > 1000
    # the runs' folders (sockets and logs) are gone, the interrupted run's too
    assert set(glob.glob("/tmp/seed-000-*")) <= folders


@release_only
def test_seed000_soak_over_ip6(tmp_path):
    """--ip6: the multi-flow soak in both directions over IPv6 routes; every packet the
    generator signs comes back (a light load: 20 kpps)."""
    out = tmp_path / "out"
    r = subprocess.run(SCRIPT + ["--skip-first", "--ip6", "--rate", "20000", "--duration", "1",
                                 "--interval", "0.5", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    kept = records(out)
    assert len(kept) == 2
    for x in kept:
        assert x["offered"] >= 8000 and x["received"] == x["offered"] and x["lost"] == 0
        assert x["p99_us"] >= x["p50_us"] > 0
    md = (out / "seed-000.md").read_text()
    assert "IPv6" in md and "2001:db8:49::/64" in md and "2 intervals" in md
