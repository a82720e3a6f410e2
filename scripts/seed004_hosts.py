# SPDX-License-Identifier: BSD-3-Clause
"""Seed 004's two servers, as one DUT of sluice-bench (kind: command): until SIGTERM.

  python3 scripts/seed004_hosts.py DIR sluiced-mplsudp|sluiced-vxlan|kernel-vxlan [--backlog N]

sluiced-*: two sluiced, server A and server B, one worker each (SEED004_CORES="A,B", default
the forwarding core of BENCH_CORES for both), joined by a memif "wire" (A serves it). Each has
a vhost-user port (DIR/vhost0.sock on A, DIR/vhost1.sock on B) to which the "VMs" connect
(sluice-gen over virtio-user: VM1 sends into A, VM2 receives from B). On one core the two
workers run with `unix { poll-yield }` (SEED004_POLL_YIELD=0: without; SEED004_POLL_SLEEP_US=N:
a sleep of N us after a walk with no packet as well).
  mplsudp: the vRouter's model. VM1's interface is in table 1 on A; 48.0.0.0/8 in table 1 is
  routed into an MPLS-over-UDP tunnel to B with label 100; B pops label 100 into its table 1,
  where 48.0.0.0/8 is VM2.
  vxlan: an L2 overlay. On each server the VM's port and a VXLAN tunnel (VNI 42) share a
  bridge domain.
kernel-vxlan: the seed's "Linux bridge" row: two network namespaces (the servers) joined by a
veth wire, each with a Linux bridge holding a kernel VXLAN device (VNI 42) and a veth to the
host's namespace, where the generator takes the ends s4vm1 and s4vm2 with af_packet. Each
veth's receive side steers its packets (RPS) to the servers' core (the first of
SEED004_CORES), so that the kernel forwards there as sluiced does, not in the generator's
sending context on the generator's core.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sluice_run import FWD_CORE, MAIN_CORE, Daemon, serve  # noqa: E402

A_MAC, B_MAC = "02:00:00:00:0a:01", "02:00:00:00:0b:01"  # the wire's two ends
VM1_PORT_MAC, VM2_MAC = "02:00:00:00:00:10", "02:00:00:00:00:02"

STARTUP = """unix {{ cli-listen {d}/cli.sock exec {d}/setup.cli log {d}/sluiced.log poll-sleep-usec {sleep}{yld} }}
cpu {{ main-core {main} corelist-workers {worker} }}
dpdk {{
  vdev {p0} {{ name port0 mac-address {m0} }}
  vdev {p1} {{ name port1 mac-address {m1} }}
  socket-mem 256
}}
"""

MPLSUDP_A = f"""set interface state port0 up
set interface state port1 up
ip table add 1
set interface ip table port0 1
set interface ip address port0 192.168.1.1/24
set interface ip address port1 10.9.0.1/24
ip neighbor port1 10.9.0.2 {B_MAC}
create mpls-udp tunnel src 10.9.0.1 dst 10.9.0.2 out-label 100
set interface ip table mplsudp0 1
set interface state mplsudp0 up
set interface ip address mplsudp0 172.16.0.1/30
ip route add table 1 48.0.0.0/8 via 172.16.0.2 mplsudp0
"""
MPLSUDP_B = f"""set interface state port0 up
set interface state port1 up
ip table add 1
set interface ip address port0 10.9.0.2/24
ip neighbor port0 10.9.0.1 {A_MAC}
set interface ip table port1 1
set interface ip address port1 192.168.2.1/24
ip neighbor port1 192.168.2.2 {VM2_MAC}
ip route add table 1 48.0.0.0/8 via 192.168.2.2
mpls table add 0
mpls local-label add 100 eos via ip4-lookup-in-table 1
"""


def vxlan(me, peer, vm_port, wire_port, peer_mac):
    return f"""set interface state port0 up
set interface state port1 up
set interface ip address {wire_port} 10.9.0.{me}/24
ip neighbor {wire_port} 10.9.0.{peer} {peer_mac}
create vxlan tunnel src 10.9.0.{me} dst 10.9.0.{peer} vni 42
set interface state vxlan_tunnel0 up
create bridge-domain 1
set interface l2 bridge {vm_port} 1
set interface l2 bridge vxlan_tunnel0 1
"""


def sluiced_pair(d, mode):
    cores = os.environ.get("SEED004_CORES", f"{FWD_CORE},{FWD_CORE}").split(",")
    # two busy-polling workers on one core are switched only at the kernel's ticks (4 ms
    # here), and each one's ring fills meanwhile: on one core they give it up after every
    # walk (poll-yield) and take turns walk by walk. (Sleeping 10 us after an empty walk
    # instead, as until session 42, forwarded less and lost more: BENCHMARKS.md, seed 004.)
    shared = cores[0] == cores[1]
    sleep = int(os.environ.get("SEED004_POLL_SLEEP_US", "0"))
    yld = " poll-yield" if os.environ.get("SEED004_POLL_YIELD", "1" if shared else "0") == "1" else ""
    wire = d / "wire.sock"
    sides = {
        "a": (f"net_vhost0,iface={d}/vhost0.sock,queues=1", VM1_PORT_MAC,
              f"net_memif0,role=server,id=0,socket={wire},rsize=12", A_MAC,
              MPLSUDP_A if mode == "mplsudp" else vxlan(1, 2, "port0", "port1", B_MAC)),
        "b": (f"net_memif0,role=client,id=0,socket={wire},rsize=12", B_MAC,
              f"net_vhost1,iface={d}/vhost1.sock,queues=1", "02:00:00:00:00:11",
              MPLSUDP_B if mode == "mplsudp" else vxlan(2, 1, "port1", "port0", A_MAC)),
    }
    daemons = []
    for (name, (p0, m0, p1, m1, cli)), core in zip(sides.items(), cores):
        sub = d / name
        sub.mkdir(parents=True, exist_ok=True)
        (sub / "setup.cli").write_text(cli)
        daemons.append(Daemon(STARTUP.format(d=sub, main=MAIN_CORE, worker=core, sleep=sleep, yld=yld, p0=p0, m0=m0,
                                             p1=p1, m1=m1), sub))
    return daemons


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True)


def kernel_up(backlog=None):
    """The two namespaces (s4a, s4b), the wire and the VMs' veths; their teardown. backlog: the
    kernel's per-CPU receive queue (net.core.netdev_max_backlog, restored at teardown), as deep
    as the sluiced servers' receive rings."""
    down = []
    try:
        if backlog:
            old = Path("/proc/sys/net/core/netdev_max_backlog").read_text().strip()
            sh(f"sysctl -qw net.core.netdev_max_backlog={int(backlog)}")
            down.append(f"sysctl -qw net.core.netdev_max_backlog={old}")
        for n in ("s4a", "s4b"):
            sh(f"ip netns add {n}")
            down.append(f"ip netns del {n}")
        sh("ip link add s4wa netns s4a type veth peer name s4wb netns s4b")
        for n, vm, me, peer in (("s4a", "s4vm1", 1, 2), ("s4b", "s4vm2", 2, 1)):
            x = f"ip netns exec {n}"
            sh(f"ip link add {vm} type veth peer name {vm}p netns {n}")
            down.insert(0, f"ip link del {vm}")
            sh(f"sysctl -qw net.ipv6.conf.{vm}.disable_ipv6=1")
            sh(f"ethtool -K {vm} tx off rx off tso off gso off gro off", check=False)
            sh(f"ip link set {vm} up")
            sh(f"{x} sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
            w = "s4wa" if n == "s4a" else "s4wb"
            sh(f"{x} ip addr add 10.9.0.{me}/24 dev {w}")
            sh(f"{x} ip link set {w} up")
            sh(f"{x} ip link add vx0 type vxlan id 42 local 10.9.0.{me} remote 10.9.0.{peer} "
               f"dstport 4789 dev {w}")
            sh(f"{x} ip link add br0 type bridge")
            sh(f"{x} ip link set vx0 master br0")
            sh(f"{x} ip link set {vm}p master br0")
            for dev in ("vx0", f"{vm}p", "br0", "lo"):
                sh(f"{x} ip link set {dev} up")
        core = int(os.environ.get("SEED004_CORES", str(FWD_CORE)).split(",")[0])
        for n, dev in (("s4a", "s4vm1p"), ("s4a", "s4wa"), ("s4b", "s4wb"), ("s4b", "s4vm2p"),
                       (None, "s4vm1"), (None, "s4vm2")):
            rps = f"echo {1 << core:x} > /sys/class/net/{dev}/queues/rx-0/rps_cpus"
            sh(f"ip netns exec {n} sh -c '{rps}'" if n else f"sh -c '{rps}'")
        return down
    except BaseException:
        for c in down:
            sh(c, check=False)
        raise


def main():
    d, mode = Path(sys.argv[1]), sys.argv[2]
    backlog = sys.argv[4] if sys.argv[3:4] == ["--backlog"] else None
    if mode == "kernel-vxlan":
        stop = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
        signal.signal(signal.SIGINT, lambda *_: stop.append(1))
        down = kernel_up(backlog)
        try:
            while not stop:
                time.sleep(0.2)
        finally:
            for c in down:
                sh(c, check=False)
        return
    if mode not in ("sluiced-mplsudp", "sluiced-vxlan"):
        raise SystemExit(f"mode {mode}: sluiced-mplsudp, sluiced-vxlan or kernel-vxlan")
    a, b = sluiced_pair(d, mode.split("-")[1])
    with a, b:
        serve((a, b))


if __name__ == "__main__":
    main()
