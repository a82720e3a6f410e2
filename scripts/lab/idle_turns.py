# SPDX-License-Identifier: BSD-3-Clause
"""Lab (issue 13): scripts/lab/idle_turns.py: sluiced on the demo topology with no generator
(its worker polls two unconnected memif ports); 3 s without and 3 s with a busy loop
pinned to core 0, twice: the worker's turns, the longest, those of 400 us and more."""
import subprocess
import sys
import tempfile
import time
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
import yaml  # noqa: E402
from sluice_bench.__main__ import dut_of
topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
run = Path(tempfile.mkdtemp(prefix="idle-"))
with dut_of(topo["dut"], run) as dut:
    d = dut.d
    for spin in (False, True, False, True):
        sp = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"]) if spin else None
        d.cli("clear runtime"); time.sleep(3)
        rt = d.js("show runtime")
        if sp: sp.kill(); sp.wait()
        print(f"cpu0 spinner {spin}: turns {rt['turns'][0]['turns']} longest {rt['turns'][0]['longest-us']}us >=400us {[(h['from-us'], h['turns']) for h in rt['turn-histogram'] if h['from-us'] >= 400]}", flush=True)
