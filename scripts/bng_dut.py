# SPDX-License-Identifier: BSD-3-Clause
"""Issue 17's forwarding into subscriber sessions over memif, as one DUT of sluice-bench
(kind: command), until SIGTERM:

  python3 scripts/bng_dut.py DIR SOCK MAIN_CORE WORKER_CORE routed|sessions|wheel-acl

sluiced serves the generator's memif pair on SOCK (port0 10.10.1.10/24, MAC
02:00:00:00:00:10; port1 10.10.2.10/24) and forwards to 100.64.0.1 and up, one address per
session (BNG_SESSIONS, default 20,000), out of port1:
  routed     100.64.0.0/16 via one next hop (10.10.2.1): the same traffic without sessions;
  sessions   a PPPoE session per address (create pppoe session: the data path alone);
  wheel-acl  each session also a pipe of the timing wheel on port1 (at 10 Gbit/s each under
             100 Gbit/s: nothing shaped) and an output ACL of two rules.
The sets of CLI lines are scripts/bench_graph.py's BNG runs (bng_setups), on memif ports
instead of pg ones. The generator counts a session's frames by the IP packet inside (its
receiver skips the PPPoE header).
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_graph import BNG_SESSIONS, bng_setups  # noqa: E402
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
RUNS = {"routed": "bng-routed", "sessions": f"bng-{BNG_SESSIONS}",
        "wheel-acl": f"bng-{BNG_SESSIONS}-wheel-acl"}


def main():
    d, sock, main_core, worker, mode = Path(sys.argv[1]), *sys.argv[2:6]
    if mode not in RUNS:
        raise SystemExit(f"mode {mode}: one of {', '.join(RUNS)}")
    base = (ROOT / "conf/demo-setup.cli").read_text()
    base = "".join(line + "\n" for line in base.splitlines() if not line.startswith("show "))
    cli = dict(bng_setups(BNG_SESSIONS, base, "port0", "port1"))[RUNS[mode]]
    sub = d / mode
    sub.mkdir(parents=True, exist_ok=True)
    (sub / "setup.cli").write_text(cli)
    with Daemon(STARTUP.format(d=sub, sock=sock, main=main_core, worker=worker,
                                prefix=f"bng-dut-{os.getpid()}"), sub) as s:
        serve((s,))


if __name__ == "__main__":
    main()
