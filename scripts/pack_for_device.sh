#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs sluiced, sluicectl, sluice-gen, dpdk-testpmd and l3fwd (built as make bench builds
# them), the DPDK libraries they load and the pcap/null/memif PMD plugins into devpkg/
# (git-ignored), so scripts/scale_workers.sh, sluice-bench (scripts/device_sluice_bench.sh) and the memif benchmarks (scripts/bench.py with
# BENCH_PARTS=memif,modes) can run on a many-core machine that has no DPDK installed. The vdev bus stays in lib/ only: a second copy of it in the plugin
# folder registers a second bus and no driver is found. scripts/device_checks.sh runs issue 13's
# and 16's checks from it in one call.
set -euo pipefail
cd "$(dirname "$0")/.."
P=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
rm -rf devpkg && mkdir -p devpkg/lib devpkg/pmds devpkg/l3fwd/build
.venv/bin/python - <<'PY'
import shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, "scripts")
import bench
t = Path(tempfile.mkdtemp())
tp, l3 = bench.build_testpmd(t), bench.build_l3fwd(t)
shutil.copy(tp, "devpkg/dpdk-testpmd")
shutil.copy(l3 / "build/l3fwd", "devpkg/l3fwd/build/l3fwd")
for f in ("lpm_default_v4.cfg", "lpm_default_v6.cfg"):
    shutil.copy(l3 / f, "devpkg/l3fwd/")
shutil.rmtree(t)
PY
for f in build/sluiced build/sluice-gen devpkg/dpdk-testpmd devpkg/l3fwd/build/l3fwd \
	$P/librte_net_pcap.so $P/librte_net_null.so $P/librte_net_memif.so $P/librte_mempool_ring.so; do
	ldd "$f" | awk '{print $3}' | grep '^/' || true
done | sort -u | grep -v 'libc.so\|ld-linux\|libm.so' | xargs -I{} cp -L {} devpkg/lib/
for d in net_pcap net_null net_memif mempool_ring; do cp -L $P/librte_$d.so devpkg/pmds/; done
cp build/sluiced build/sluicectl build/sluice-gen scripts/scale_workers.sh devpkg/
.venv/bin/python - <<'PY'
import random
from scapy.all import IP, UDP, Ether, Raw, wrpcap
r = random.Random(1)
wrpcap("devpkg/in.pcap", [Ether(dst="02:00:00:00:00:10", src="02:00:00:00:00:99") /
       IP(src="10.10.1.2", dst=f"48.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(1, 255)}") /
       UDP(sport=2123, dport=10000) / Raw(b"\0" * 18) for _ in range(4096)], linktype=1)
PY
du -sh devpkg
