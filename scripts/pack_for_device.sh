#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs sluiced, sluicectl, the DPDK libraries they load and the pcap/null PMD plugins into
# devpkg/ (git-ignored) so scripts/scale_workers.sh can run on a many-core machine that has
# no DPDK installed. The vdev bus stays in lib/ only: a second copy of it in the plugin
# folder registers a second bus and no driver is found.
set -euo pipefail
cd "$(dirname "$0")/.."
P=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
rm -rf devpkg && mkdir -p devpkg/lib devpkg/pmds
for f in build/sluiced $P/librte_net_pcap.so $P/librte_net_null.so $P/librte_mempool_ring.so; do
	ldd "$f" | awk '{print $3}' | grep '^/' || true
done | sort -u | grep -v 'libc.so\|ld-linux\|libm.so' | xargs -I{} cp -L {} devpkg/lib/
for d in net_pcap net_null mempool_ring; do cp -L $P/librte_$d.so devpkg/pmds/; done
cp build/sluiced build/sluicectl scripts/scale_workers.sh devpkg/
.venv/bin/python - <<'PY'
import random
from scapy.all import IP, UDP, Ether, Raw, wrpcap
r = random.Random(1)
wrpcap("devpkg/in.pcap", [Ether(dst="02:00:00:00:00:10", src="02:00:00:00:00:99") /
       IP(src="10.10.1.2", dst=f"48.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(1, 255)}") /
       UDP(sport=2123, dport=10000) / Raw(b"\0" * 18) for _ in range(4096)], linktype=1)
PY
du -sh devpkg
