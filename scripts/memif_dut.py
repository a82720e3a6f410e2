# SPDX-License-Identifier: BSD-3-Clause
"""One of scripts/bench_graph.py's in-memory runs on memif ports instead of pg ones, as one
DUT of sluice-bench (kind: command), until SIGTERM:

  python3 scripts/memif_dut.py DIR SOCK MAIN_CORE WORKER_CORE RUN

sluiced serves the generator's memif pair on SOCK (port0 10.10.1.10/24, MAC
02:00:00:00:00:10; port1 10.10.2.10/24, neighbour 10.10.2.1) with the CLI of bench_graph's
run RUN, pg0 becoming port0 and pg1 port1:
  routed, policer, acl-1, acl-1000, qos-4096, qos-4096-wheel, ...  (bench_graph's VX_RUNS:
             48.0.0.0/8 routed, with an input policer, an input ACL, QoS on port1's output;
             bench/topologies/memif-features.yaml, issue 16)
  bng-routed, sessions, wheel-acl  (bench_graph's BNG runs, bng_setups: 100.64.0.1 and up,
             one address per session (BNG_SESSIONS, default 20,000), routed via one next hop,
             into a PPPoE session each, and each session also a pipe of the timing wheel on
             port1 and an output ACL; bench/topologies/memif-bng.yaml, issue 17. The generator
             counts a session's frames by the IP packet inside: its receiver skips the PPPoE
             header.)
Rings of 4,096 descriptors (memif's rsize=12, as a NIC's RX ring): this 2-vCPU machine stalls a
worker for up to 2 ms at times, which the default 1,024 turn into loss.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_graph import BNG_SESSIONS, VX_RUNS, bng_setups  # noqa: E402
from sluice_run import ROOT, Daemon, serve  # noqa: E402

STARTUP = """unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core {main} corelist-workers {worker} }}
dpdk {{
  vdev net_memif0,role=server,id=0,socket={sock},rsize=12 {{ name port0 mac-address 02:00:00:00:00:10 }}
  vdev net_memif1,role=server,id=1,socket={sock},rsize=12 {{ name port1 mac-address 02:00:00:00:00:11 }}
  socket-mem 256
  file-prefix {prefix}
}}
ip4 {{ max-routes 65536 tbl8s 1024 }}
ip6 {{ max-routes 1024 tbl8s 256 }}
"""
BNG_RUNS = {"bng-routed": "bng-routed", "sessions": f"bng-{BNG_SESSIONS}",
            "wheel-acl": f"bng-{BNG_SESSIONS}-wheel-acl"}


def cli_for(run):
    """The CLI of bench_graph's run on memif ports port0 and port1 (SystemExit: no such run)."""
    if run in BNG_RUNS:
        base = (ROOT / "conf/demo-setup.cli").read_text()
        base = "".join(line + "\n" for line in base.splitlines() if not line.startswith("show "))
        return dict(bng_setups(BNG_SESSIONS, base, "port0", "port1"))[BNG_RUNS[run]]
    setups = {name: setup for name, setup, wrap in VX_RUNS if wrap is None}  # IPv4 frames
    if run not in setups:
        raise SystemExit(f"run {run}: one of {', '.join(list(BNG_RUNS) + list(setups))}")
    cli = re.sub(r"(?m)^create packet-generator interface pg\d\n", "", setups[run])
    return re.sub(r"\bpg([01])\b", r"port\1", cli)


def main():
    d, sock, main_core, worker, run = Path(sys.argv[1]), *sys.argv[2:6]
    cli = cli_for(run)
    sub = d / run
    sub.mkdir(parents=True, exist_ok=True)
    (sub / "setup.cli").write_text(cli)
    with Daemon(STARTUP.format(d=sub, sock=sock, main=main_core, worker=worker,
                                prefix=f"memif-dut-{os.getpid()}"), sub) as s:
        serve((s,))


if __name__ == "__main__":
    main()
