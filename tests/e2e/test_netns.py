# SPDX-License-Identifier: BSD-3-Clause
"""Real peers: Linux network namespaces on veth pairs, attached to sluiced by af_packet,
ping each other and move a TCP stream through it; a third gets ICMP unreachable."""
import os
import subprocess

import pytest

from netns_tcp import tcp_10mib

TAG = f"sl{os.getpid() % 100000}"
NETS = {"a": ("10.10.1.2/24", "10.10.1.10"), "b": ("10.10.2.2/24", "10.10.2.10"),
        "c": ("10.10.3.2/24", "10.10.3.10")}


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True, **kw)


def ns(name, cmd, **kw):
    return sh(f"ip netns exec {TAG}{name} {cmd}", **kw)


@pytest.fixture
def namespaces():
    made = []
    try:
        for n, (addr, gw) in NETS.items():
            sh(f"ip netns add {TAG}{n}")
            made.append(n)
            sh(f"ip link add {TAG}{n}0 type veth peer name {TAG}{n}1")
            sh(f"ip link set {TAG}{n}1 netns {TAG}{n}")
            # no offloads: af_packet would otherwise hand over GSO frames and partial checksums
            for dev, where in ((f"{TAG}{n}0", ""), (f"{TAG}{n}1", f"ip netns exec {TAG}{n} ")):
                sh(f"{where}ethtool -K {dev} tx off rx off tso off gso off gro off", check=False)
            sh(f"ip link set {TAG}{n}0 up")
            ns(n, f"ip addr add {addr} dev {TAG}{n}1")
            ns(n, f"ip link set {TAG}{n}1 up")
            ns(n, "ip link set lo up")
            ns(n, f"ip route add default via {gw}")
        yield
    finally:
        for n in made:
            sh(f"ip link del {TAG}{n}0", check=False)
            sh(f"ip netns del {TAG}{n}", check=False)




def test_namespaces_ping_tcp_unreachable(namespaces, sluiced_factory):
    devs = [f"net_af_packet{i},iface={TAG}{n}0 {{ name port{i} }}" for i, n in enumerate("abc")]
    cli = ["set interface ip address port0 10.10.1.10/24",
           "set interface ip address port1 10.10.2.10/24",
           "set interface ip address port2 10.10.3.10/24",
           "set interface state port0 up", "set interface state port1 up",
           "set interface state port2 up"]
    s = sluiced_factory(devs, cli)
    r = ns("a", "ping -c 3 -i 0.2 -W 2 10.10.2.2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    r = ns("b", "ping -c 2 -i 0.2 -W 2 10.10.1.10", check=False)      # the router itself
    assert r.returncode == 0, r.stdout + r.stderr
    neigh = {(n["interface"], n["address"]): n["state"] for n in s.js("show ip neighbors")["neighbors"]}
    assert neigh[("port0", "10.10.1.2")] == "dynamic" and neigh[("port1", "10.10.2.2")] == "dynamic"

    tcp_10mib(f"{TAG}b", f"{TAG}a", "10.10.2.2")

    r = ns("c", "ping -c 1 -W 2 99.1.2.3", check=False)
    assert r.returncode != 0
    assert "Destination Net Unreachable" in r.stdout, r.stdout
    assert s.errors()[("icmp4-error", "destination unreachable sent")] >= 1


def test_tap_ports_in_namespaces(sluiced_factory):
    """tap PMD ports: the kernel side of each tap is moved into its own namespace."""
    tag = f"t{os.getpid() % 100000}"
    devs = [f"net_tap{i},iface={tag}{n} {{ name tap{i} }}" for i, n in enumerate("ab")]
    s = sluiced_factory(devs, ["set interface ip address tap0 10.20.1.10/24",
                               "set interface ip address tap1 10.20.2.10/24",
                               "set interface state tap0 up", "set interface state tap1 up"])
    made = []
    try:
        for n, addr, gw in (("a", "10.20.1.2/24", "10.20.1.10"), ("b", "10.20.2.2/24", "10.20.2.10")):
            sh(f"ip netns add {tag}{n}")
            made.append(n)
            sh(f"ip link set {tag}{n} netns {tag}{n}")
            sh(f"ip netns exec {tag}{n} ip addr add {addr} dev {tag}{n}")
            sh(f"ip netns exec {tag}{n} ip link set {tag}{n} up")
            sh(f"ip netns exec {tag}{n} ip route add default via {gw}")
        r = sh(f"ip netns exec {tag}a ping -c 3 -i 0.2 -W 2 10.20.2.2", check=False)
        assert r.returncode == 0, r.stdout + r.stderr
        assert s.iface("tap1")["tx-packets"] >= 3 and s.iface("tap0")["tx-packets"] >= 3
    finally:
        for n in made:
            sh(f"ip netns del {tag}{n}", check=False)
