# SPDX-License-Identifier: BSD-3-Clause
"""Two sluiced joined by tunnels, end to end: host h1 -- sluiced A -- wire -- sluiced B -- host
h2, the hosts and the wire veth pairs to network namespaces (af_packet). h1's and h2's
subnets are routed over a GRE tunnel, an IP-in-IP tunnel, an MPLS-over-UDP tunnel, an
MPLS-over-GRE tunnel, and the same four over IPv6 between A and B (the kernel here has none
of them, so sluiced is its own peer); ping and 10 MiB of TCP through each."""
import os
import subprocess

import pytest

from netns_tcp import tcp_10mib

TAG = f"tn{os.getpid() % 100000}"


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True, **kw)


def ns(name, cmd, **kw):
    return sh(f"ip netns exec {TAG}{name} {cmd}", **kw)


# DPDK 22.11's af_packet PMD joins each socket to the PACKET_FANOUT group (pid ^ ifindex) &
# 0xffff, and a group belongs to one interface: two sluiced started one after the other (pids
# p, p + 1) on interfaces with indexes i, i + 1 can draw the same group, and the second then
# fails to probe its port. A's interfaces get indexes below 0x4000 and B's the same with
# 0x4000 set, so their groups differ unless the pids differ in that bit too.
BASE = 1000 + (os.getpid() % 3000) * 4
IDX = {"h1s": BASE, "wa": BASE + 1, "h2s": (BASE + 2) | 0x4000, "wb": (BASE + 3) | 0x4000}


def veth_host(a, b):
    """Both ends in the host's namespace, up, no offloads (af_packet takes each)."""
    sh(f"ip link add {a} index {IDX[a[len(TAG):]]} type veth peer name {b} index {IDX[b[len(TAG):]]}")
    for dev in (a, b):
        sh(f"ethtool -K {dev} tx off rx off tso off gso off gro off", check=False)
        sh(f"sysctl -qw net.ipv6.conf.{dev}.disable_ipv6=1", check=False)
        sh(f"ip link set {dev} up")


@pytest.fixture
def hosts():
    made = []
    try:
        veth_host(f"{TAG}wa", f"{TAG}wb")       # the wire between A and B
        for n, addr, gw in (("h1", "192.168.1.2/24", "192.168.1.1"),
                            ("h2", "192.168.2.2/24", "192.168.2.1")):
            sh(f"ip netns add {TAG}{n}")
            made.append(n)
            sh(f"ip link add {TAG}{n}s index {IDX[n + 's']} type veth peer name {TAG}{n}i")
            sh(f"ip link set {TAG}{n}i netns {TAG}{n}")
            sh(f"ethtool -K {TAG}{n}s tx off rx off tso off gso off gro off", check=False)
            sh(f"sysctl -qw net.ipv6.conf.{TAG}{n}s.disable_ipv6=1", check=False)
            sh(f"ip link set {TAG}{n}s up")
            ns(n, f"ethtool -K {TAG}{n}i tx off rx off tso off gso off gro off", check=False)
            ns(n, f"ip addr add {addr} dev {TAG}{n}i")
            ns(n, f"ip link set {TAG}{n}i mtu 1400")
            ns(n, f"ip link set {TAG}{n}i up")
            ns(n, "ip link set lo up")
            ns(n, f"ip route add default via {gw}")
        yield
    finally:
        sh(f"ip link del {TAG}wa", check=False)
        for n in made:
            sh(f"ip link del {TAG}{n}s", check=False)
            sh(f"ip netns del {TAG}{n}", check=False)


def side(me, peer, host_net, far_net, host_if, wire_if):
    devs = [f"net_af_packet0,iface={host_if} {{ name port0 }}",
            f"net_af_packet1,iface={wire_if} {{ name port1 }}"]
    cli = [f"set interface ip address port0 {host_net}.1/24", f"set interface ip address port1 10.9.0.{me}/24",
           "set interface state port0 up", "set interface state port1 up",
           f"create gre tunnel src 10.9.0.{me} dst 10.9.0.{peer} key 11",
           f"create ipip tunnel src 10.9.0.{me} dst 10.9.0.{peer}",
           "set interface state gre0 up", "set interface state ipip0 up",
           f"set interface ip address gre0 172.16.0.{me}/30",
           f"set interface ip address ipip0 172.16.1.{me}/30",
           f"ip route add {far_net}.0/24 via 172.16.0.{peer} gre0",
           # MPLS over UDP: the peer pops label 100 into its table 0
           "mpls table add 0", "mpls local-label add 100 eos via ip4-lookup-in-table 0",
           f"create mpls-udp tunnel src 10.9.0.{me} dst 10.9.0.{peer} out-label 100",
           "set interface state mplsudp0 up", f"set interface ip address mplsudp0 172.16.2.{me}/30",
           f"create mpls-gre tunnel src 10.9.0.{me} dst 10.9.0.{peer} out-label 100",
           "set interface state mplsgre0 up", f"set interface ip address mplsgre0 172.16.3.{me}/30",
           # over IPv6 on the same wire (neighbour discovery between the two sluiced)
           f"set interface ip address port1 2001:db8:9::{me}/64",
           f"create gre tunnel src 2001:db8:9::{me} dst 2001:db8:9::{peer}",
           f"create ipip tunnel src 2001:db8:9::{me} dst 2001:db8:9::{peer}",
           "set interface state gre1 up", "set interface state ipip1 up",
           f"set interface ip address gre1 172.16.4.{me}/30",
           f"set interface ip address ipip1 172.16.5.{me}/30",
           f"create mpls-udp tunnel src 2001:db8:9::{me} dst 2001:db8:9::{peer} out-label 100",
           f"create mpls-gre tunnel src 2001:db8:9::{me} dst 2001:db8:9::{peer} out-label 100",
           "set interface state mplsudp1 up", f"set interface ip address mplsudp1 172.16.6.{me}/30",
           "set interface state mplsgre1 up", f"set interface ip address mplsgre1 172.16.7.{me}/30"]
    return devs, cli


def test_gre_ipip_mpls_two_sluiced(hosts, sluiced_factory):
    da, ca = side(1, 2, "192.168.1", "192.168.2", f"{TAG}h1s", f"{TAG}wa")
    db, cb = side(2, 1, "192.168.2", "192.168.1", f"{TAG}h2s", f"{TAG}wb")
    a = sluiced_factory(da, ca, sub="a")
    b = sluiced_factory(db, cb, sub="b")
    r = ns("h1", "ping -c 3 -i 0.2 -W 2 192.168.2.2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr + str(a.errors()) + str(b.errors())
    tcp_10mib(f"{TAG}h2", f"{TAG}h1", "192.168.2.2")
    tcp_10mib(f"{TAG}h1", f"{TAG}h2", "192.168.1.2")
    ga = {i["name"]: i for i in a.js("show interface")["interfaces"]}
    assert ga["gre0"]["tx-packets"] > 7000 and ga["gre0"]["rx-packets"] > 7000
    # the same subnets moved from one tunnel onto the next, under no traffic: ping one way,
    # 10 MiB of TCP the other, the sender's tunnel counting the data
    tunnels = [("gre0", 0), ("ipip0", 1), ("mplsudp0", 2), ("mplsgre0", 3), ("gre1", 4), ("ipip1", 5),
               ("mplsudp1", 6), ("mplsgre1", 7)]
    for (old, on), (new, nn) in zip(tunnels, tunnels[1:]):
        for s, peer in ((a, 2), (b, 1)):
            far = "192.168.2" if s is a else "192.168.1"
            s.cli(f"ip route add {far}.0/24 via 172.16.{nn}.{peer} {new}")
            s.cli(f"ip route del {far}.0/24 via 172.16.{on}.{peer} {old}")
        r = ns("h2", "ping -c 3 -i 0.2 -W 2 192.168.1.2", check=False)
        assert r.returncode == 0, new + r.stdout + r.stderr + str(a.errors()) + str(b.errors())
        tcp_10mib(f"{TAG}h2", f"{TAG}h1", "192.168.2.2")
        ia = {i["name"]: i for i in a.js("show interface")["interfaces"]}
        assert ia[new]["tx-packets"] > 7000, new
        for s in (a, b):
            e = s.errors()
            assert not [k for k in e if k[0].startswith(("gre", "ipip", "mpls"))], (new, e)
