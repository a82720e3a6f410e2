# SPDX-License-Identifier: BSD-3-Clause
"""sluice-bench end to end on the seed topology, with tiny trials: the searches run against
sluiced over memif and every output is written."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import BUILD, ROOT


# Dozens of generator runs against a sanitizer build that is several times slower, on two
# cores: memif's listener (in the EAL interrupt thread) then misses connections. The harness
# is Python; the release build exercises it, and sluiced's own paths are under ASan elsewhere.
@pytest.mark.skipif("asan" in BUILD.name, reason="timing-bound: runs on the release build")
def test_harness_writes_results(tmp_path):
    topo = yaml.safe_load(open(ROOT / "bench/topologies/memif-sluiced.yaml"))
    topo["search"] = {"sizes": [64, "imix"], "max_mpps": 0.5, "min_mpps": 0.05, "precision": 0.25,
                      "short_s": 0.2, "final_s": 0.4, "latency_at": [0.5]}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(topo))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bench"))
    r = subprocess.run([sys.executable, "-m", "sluice_bench", str(tmp_path / "t.yaml"), "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=400, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads((tmp_path / "out/results.json").read_text())
    assert [s["size"] for s in res["sizes"]] == [64, "imix"]
    for s in res["sizes"]:
        assert 0 <= s["ndr"]["mpps"] <= 0.5 and 0 < s["pdr"]["mpps"] <= 0.5
        assert s["ndr"]["trials"] >= 2 and s["dut_restarts"] >= 0
    for f in ("results.md", "throughput.png", "latency.png"):
        assert (tmp_path / "out" / f).stat().st_size > 100
    assert "| imix |" in (tmp_path / "out/results.md").read_text()
