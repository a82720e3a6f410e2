#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Subscriber set-up rate: sluiced (one worker, the main lcore beside it) serving PPPoE on a
memif port and IPoE (its DHCP server) on VLAN 100 of it, sluice-gen's subscriber emulator
bringing SESSIONS PPPoE sessions (PAP against local users; AUTH=chap for CHAP-MD5) and IPOE
IPoE clients up at RATES a second in all (IPV6=1: the PPPoE sessions dual-stack, IPv6CP and
SLAAC, their traffic over IPv6 too), then TRAFFIC signed packets each way per session;
per offered rate: sessions up, the set-up rate achieved, failures by phase, loss. REPEAT runs
of each rate. 2-vCPU: the emulator, sluiced's main lcore and its worker share two
cores, so the figures are this machine's, not a BNG's."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sluice_run import BUILD, Daemon, HugepagesAtLeast, remove_runtime_dirs, wait_or_kill  # noqa: E402

SESSIONS = int(os.environ.get("SESSIONS", "2000"))
IPOE = int(os.environ.get("IPOE", "0"))
RATES = [float(r) for r in os.environ.get("RATES", "500,1000,2000,5000").split(",")]
TRAFFIC = int(os.environ.get("TRAFFIC", "10"))
REPEAT = int(os.environ.get("REPEAT", "3"))
AUTH = os.environ.get("AUTH", "pap")
IPV6 = os.environ.get("IPV6", "") not in ("", "0")


def one(tmp, rate, k):
    d = Path(tmp) / f"r{rate:g}-{k}"
    d.mkdir()
    s0, s1 = d / "m0.sock", d / "m1.sock"
    setup = f"""set interface state port0 up
set interface state port1 up
set interface ip address port1 10.10.2.10/24
set pppoe address 100.64.0.1
set pppoe pool 100.64.0.2 100.64.255.254
set pppoe auth {AUTH}
set pppoe user alice password secret
set pppoe control-rate 100000
set pppoe access port0
create sub-interfaces port0 100
set interface state port0.100 up
set interface ip address port0.100 100.65.0.1/16
set ipoe pool 100.65.0.10 100.65.255.250
set ipoe access port0.100
"""
    if IPV6:
        # the pool's /48 as a drop route (docs/bng.md): 2 trie groups a session, not 5
        setup += ("set pppoe ipv6 prefix 2001:db8::/48\nip route add 2001:db8::/48 via drop\n"
                  "set interface ip address port1 2001:db8:ffff::10/64\n")
    (d / "setup.cli").write_text(setup)
    conf = f"""unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log }}
cpu {{ main-core 0 corelist-workers 1 }}
ip6 {{ tbl8s {max(16384, 3 * SESSIONS)} }}
dpdk {{
  socket-mem 512
  file-prefix bench-bng-{os.getpid()}
  dev net_memif0,role=server,id=0,socket={s0} {{ name port0 }}
  dev net_memif1,role=server,id=0,socket={s1} {{ name port1 }}
}}
"""
    # the emulator stays connected after its report until sluiced has stopped (DPDK 22.11's
    # memif can read a region its peer just unmapped while it polls)
    g = None
    try:
        with Daemon(conf, d) as s:
            rmac = next(i["mac"] for i in s.js("show hardware")["hardware"] if i["name"] == "port1").lower()
            g = subprocess.Popen([str(BUILD / "sluice-gen"), "--no-huge", "--no-pci", "-m", "512", "-l", "0",
                            "--file-prefix", f"bench-bng-gen-{os.getpid()}", "--log-level", "3",
                            "--vdev", f"net_memif0,role=client,id=0,socket={s0}",
                            "--vdev", f"net_memif1,role=client,id=0,socket={s1}", "--",
                            "--tx-port", "0", "--rx-port", "1", "--pppoe-sessions", str(SESSIONS),
                            "--ipoe-sessions", str(IPOE), "--ipoe-vlan", "100",
                            "--pppoe-rate", str(rate), "--pppoe-user", "alice",
                            "--pppoe-password", "secret", "--pppoe-traffic", str(TRAFFIC),
                            "--pppoe-target", "10.10.2.2", "--pppoe-router-mac", rmac, "--json",
                            "--pppoe-hold", "600"] + (["--pppoe-ipv6", "2001:db8:ffff::2"] if IPV6 else []),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            line, seen = "", []
            while not line.startswith("{") and g.poll() is None:
                line = g.stdout.readline()
                seen.append(line)
            if not line.startswith("{"):
                raise RuntimeError("".join(seen) + g.stdout.read())
            return json.loads(line)
    finally:
        if g:
            g.terminate()
            wait_or_kill(g, 30)


def main():
    remove_runtime_dirs("bench-bng", "bench-bng-gen")
    print(f"== Subscriber set-up: {SESSIONS} PPPoE sessions ({AUTH}) and {IPOE} IPoE clients (VLAN 100), "
          f"{TRAFFIC} packets each way per session, "
          f"{REPEAT} runs per offered rate", flush=True)
    with HugepagesAtLeast(600), tempfile.TemporaryDirectory(prefix="sluice-bench-bng-") as tmp:
        for rate in RATES:
            rows = [one(tmp, rate, k) for k in range(REPEAT)]
            got = sorted(x["setup_rate"] for x in rows)
            for x in rows:
                t = x["traffic"]
                f = x["failed"]
                print(f"   offered {rate:7g}/s: up {x['up']:5d}/{x['sessions']} (PPPoE {x['pppoe']['up']}, "
                      f"IPoE {x['ipoe']['up']}) at {x['setup_rate']:8.1f}/s "
                      f"(failed: discovery {f['discovery']}, lcp {f['lcp']}, auth {f['auth']}, "
                      f"ipcp {f['ipcp']}, ipv6 {f['ipv6']}, dhcp offer {f['dhcp_offer']}, dhcp ack {f['dhcp_ack']}; "
                      f"with IPv6 {x['ipv6_up']}); traffic up {t['up']['received']}/{t['up']['sent']}, "
                      f"down {t['down']['received']}/{t['down']['sent']}, sessions with loss "
                      f"{t['sessions_with_loss']} (data path ready in {x['data_path']['ready_s']:.3f} s, "
                      f"{x['data_path']['late']} late, {x['data_path']['not_ready']} never); latency us p50/p99/p99.9 up "
                      + "/".join(f"{t['up']['latency_us'][k]:.1f}" for k in ("p50", "p99", "p99.9"))
                      + " down " + "/".join(f"{t['down']['latency_us'][k]:.1f}" for k in ("p50", "p99", "p99.9")),
                      flush=True)
            print(f"   offered {rate:g}/s: median set-up rate {got[len(got) // 2]:.1f}/s", flush=True)


if __name__ == "__main__":
    main()
