# SPDX-License-Identifier: BSD-3-Clause
"""IPv6 with real peers: Linux network namespaces on veth pairs, attached to sluiced by
af_packet. The kernel resolves sluiced's addresses by neighbour discovery and sluiced the
kernel's; ping -6 both ways, 10 MiB of TCP over IPv6, and the kernel's ping sees time
exceeded, packet too big and unreachable from sluiced."""
import ipaddress
import json
import os
import re
import subprocess
import time

import pytest

from netns_tcp import tcp_10mib, tcpdump

TAG = f"s6{os.getpid() % 100000}"
NETS = {"a": ("2001:db8:1::2/64", "2001:db8:1::10"), "b": ("2001:db8:2::2/64", "2001:db8:2::10"),
        "c": ("2001:db8:3::2/64", "2001:db8:3::10")}


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
            for dev, where in ((f"{TAG}{n}0", ""), (f"{TAG}{n}1", f"ip netns exec {TAG}{n} ")):
                sh(f"{where}ethtool -K {dev} tx off rx off tso off gso off gro off", check=False)
            # the host side carries only sluiced's frames: no IPv6 of its own on it
            sh(f"sysctl -qw net.ipv6.conf.{TAG}{n}0.disable_ipv6=1", check=False)
            sh(f"ip link set {TAG}{n}0 up")
            # no duplicate address detection: the link-local is usable at once
            ns(n, f"sysctl -qw net.ipv6.conf.{TAG}{n}1.accept_dad=0")
            ns(n, f"ip -6 addr add {addr} dev {TAG}{n}1 nodad")
            ns(n, f"ip link set {TAG}{n}1 up")
            ns(n, "ip link set lo up")
            ns(n, f"ip -6 route add default via {gw}")
        yield
    finally:
        for n in made:
            sh(f"ip link del {TAG}{n}0", check=False)
            sh(f"ip netns del {TAG}{n}", check=False)




def test_ip6_namespaces(namespaces, sluiced_factory):
    devs = [f"net_af_packet{i},iface={TAG}{n}0 {{ name port{i} }}" for i, n in enumerate("abc")]
    cli = ["set interface ip address port0 2001:db8:1::10/64",
           "set interface ip address port1 2001:db8:2::10/64",
           "set interface ip address port2 2001:db8:3::10/64",
           "set interface mtu 1280 port2",
           "set interface state port0 up", "set interface state port1 up",
           "set interface state port2 up"]
    s = sluiced_factory(devs, cli)
    r = ns("a", "ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    r = ns("b", "ping -6 -c 2 -i 0.2 -W 2 2001:db8:1::2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    r = ns("b", "ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::10", check=False)   # the router itself
    assert r.returncode == 0, r.stdout + r.stderr
    # its link-local too, named with the interface as a host must
    ll = {i["name"]: i["address"] for i in s.js("show ip6 interface")["interfaces"]
          if i["scope"] == "link-local"}
    r = ns("b", f"ping -6 -c 2 -i 0.2 -W 2 {ll['port1']}%{TAG}b1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr + str(s.errors()) + s.cli("show ip6 neighbors")

    # sluiced resolved the kernel's addresses, and the kernel sluiced's, by ND
    neigh = {(n["interface"], n["address"]): n for n in s.js("show ip6 neighbors")["neighbors"]}
    for port, addr in (("port0", "2001:db8:1::2"), ("port1", "2001:db8:2::2")):
        assert neigh[(port, addr)]["state"] in ("reachable", "stale", "delay", "probe"), neigh
    kn = ns("a", f"ip -6 neigh show dev {TAG}a1").stdout
    # as a router (our advertisements set the R flag)
    assert re.search(r"2001:db8:1::10 lladdr \S+ router (REACHABLE|STALE|DELAY|PROBE)", kn), kn
    e = s.errors()
    assert e[("ip6-nd (main)", "neighbour advertisements sent")] >= 1
    assert e[("ip6-nd (main)", "neighbour solicitations sent")] >= 1

    tcp_10mib(f"{TAG}b", f"{TAG}a", "2001:db8:2::2")

    # hop limit 1: time exceeded from the router's address on a's link
    r = ns("a", "ping -6 -c 1 -W 2 -t 1 2001:db8:2::2", check=False)
    assert r.returncode != 0
    assert "Time exceeded: Hop limit" in r.stdout and "2001:db8:1::10" in r.stdout, r.stdout
    # port2's MTU is 1280: a 1400-byte packet toward c gets packet too big, and the kernel
    # learns the path MTU from it
    r = ns("a", "ping -6 -c 2 -i 0.5 -W 2 -s 1400 -M do 2001:db8:3::2", check=False)
    assert r.returncode != 0
    assert "Packet too big: mtu=1280" in r.stdout or "mtu=1280" in r.stderr, r.stdout + r.stderr
    assert "mtu 1280" in ns("a", "ip -6 route get 2001:db8:3::2").stdout
    r = ns("a", "ping -6 -c 2 -i 0.2 -W 2 -s 1200 -M do 2001:db8:3::2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    # no route: destination unreachable
    r = ns("c", "ping -6 -c 1 -W 2 2001:db8:99::1", check=False)
    assert r.returncode != 0
    assert "Destination unreachable: No route" in r.stdout, r.stdout
    e = s.errors()
    assert e[("icmp6-error", "time exceeded sent")] >= 1
    assert e[("icmp6-error", "packet too big sent")] >= 1
    assert e[("icmp6-error", "destination unreachable sent")] >= 1
    assert e[("ip6-icmp-input", "echo replies sent")] >= 4


def eui64(mac):
    b = bytes.fromhex(mac.replace(":", ""))
    return bytes([b[0] ^ 2]) + b[1:3] + b"\xff\xfe" + b[3:]


def test_ping6_from_sluiced_to_kernel_hosts(namespaces, sluiced_factory, tmp_path):
    """sluiced's ping over IPv6 answered by the kernel (which checks the ICMPv6 checksum):
    the first request waits for neighbour discovery and leaves with hop limit 64 all the same
    (tcpdump in the host's namespace), from another interface's address too; a host that is
    not there loses all; a host's link-local on the link named; multicast, unrouted and own
    destinations are refused."""
    from scapy.all import ICMPv6EchoRequest, IPv6, rdpcap
    devs = [f"net_af_packet{i},iface={TAG}{n}0 {{ name port{i} }}" for i, n in enumerate("abc")]
    cli = [f"set interface ip address port{i} 2001:db8:{i + 1}::10/64" for i in range(3)]
    s = sluiced_factory(devs, cli + [f"set interface state port{i} up" for i in range(3)])
    cap = tmp_path / "a.pcap"
    with tcpdump(f"{TAG}a", f"{TAG}a1", cap):
        r = s.js("ping 2001:db8:1::2 repeat 3 interval 0.1")
        st = r["statistics"][0]
        assert (st["sent"], st["received"], st["loss-percent"], st["bad"]) == (3, 3, 0, 0), r
        assert [(x["seq"], x["from"], x["bytes"], x["ttl"]) for x in r["replies"]] == [
            (i, "2001:db8:1::2", 64, 64) for i in (1, 2, 3)]
        r = s.js("ping 2001:db8:1::2 source port1 repeat 2 interval 0.1 size 1200")
        assert r["statistics"][0]["received"] == 2 and r["replies"][0]["bytes"] == 1208
    reqs = [p[IPv6] for p in rdpcap(str(cap)) if ICMPv6EchoRequest in p]
    assert [(q.src, q.hlim, q[ICMPv6EchoRequest].seq) for q in reqs] == [
        ("2001:db8:1::10", 64, 1), ("2001:db8:1::10", 64, 2), ("2001:db8:1::10", 64, 3),
        ("2001:db8:2::10", 64, 1), ("2001:db8:2::10", 64, 2)]
    r = s.js("ping 2001:db8:3::99 repeat 2 interval 0.1")  # nobody answers its solicitation
    assert (r["statistics"][0]["sent"], r["statistics"][0]["received"]) == (2, 0)
    # the host's link-local, on port1's link, from port1's link-local
    hll = ns("b", f"ip -6 -o addr show dev {TAG}b1 scope link").stdout.split()[3].split("/")[0]
    ours = {i["name"]: i["address"] for i in s.js("show ip6 interface")["interfaces"]
            if i["scope"] == "link-local"}
    r = s.js(f"ping {hll} source port1 repeat 2 interval 0.1")
    assert r["statistics"][0]["received"] == 2 and r["replies"][0]["from"] == hll, r
    s.check_refused({"ping fe80::1": "is link-local: name the interface (source IFACE)",
                     "ping ff02::1 source port0": "multicast destinations are not supported",
                     f"ping {ours['port1']} source port1": "this router's own address",
                     "ping 2001:db8:9::1": "no route to 2001:db8:9::1 in table 0",
                     "ping 2001:db8:1::10": "this router's own address",
                     "ping 2001:db8:1::2 size 8953": "size"})
    assert s.stop() == 0


def test_slaac(namespaces, sluiced_factory):
    """A host with no address of its own: the kernel autoconfigures a global address from
    sluiced's router advertisement (RFC 4862, EUI-64 of its MAC), takes sluiced's link-local as
    its default router, and pings across it both ways; its router solicitation is answered
    (test_ip6_pcap checks that the solicitation's link-layer address is learnt)."""
    dev = f"{TAG}a1"
    ns("a", "ip -6 route del default")
    ns("a", f"ip -6 addr del 2001:db8:1::2/64 dev {dev}")
    ns("a", f"sysctl -qw net.ipv6.conf.{dev}.forwarding=0 net.ipv6.conf.{dev}.accept_ra=1 "
            f"net.ipv6.conf.{dev}.autoconf=1 net.ipv6.conf.{dev}.addr_gen_mode=0 "
            f"net.ipv6.conf.{dev}.router_solicitation_delay=0")
    mac = ns("a", f"cat /sys/class/net/{dev}/address").stdout.strip()
    want = str(ipaddress.IPv6Address(bytes.fromhex("20010db8000100000000000000000000")[:8] + eui64(mac)))
    devs = [f"net_af_packet{i},iface={TAG}{n}0 {{ name port{i} }}" for i, n in enumerate("ab")]
    s = sluiced_factory(devs, ["set interface ip address port0 2001:db8:1::10/64",
                               "set interface ip address port1 2001:db8:2::10/64",
                               "ip6 nd port0 ra-interval 30 10",
                               "set interface state port0 up", "set interface state port1 up"])
    ll = {i["name"]: i["address"] for i in s.js("show ip6 interface")["interfaces"]
          if i["scope"] == "link-local"}
    # the link comes up after sluiced: the kernel solicits, and sluiced answers
    ns("a", f"ip link set {dev} down")
    ns("a", f"ip link set {dev} up")
    deadline = time.time() + 15
    addrs = route = ""
    while time.time() < deadline:
        addrs = ns("a", f"ip -6 addr show dev {dev} scope global").stdout
        route = ns("a", "ip -6 route show default").stdout
        if want in addrs and "proto ra" in route:
            break
        time.sleep(0.2)
    assert want in addrs and "dynamic" in addrs, addrs
    assert f"default via {ll['port0']} dev {dev} proto ra" in route, route
    r = ns("a", "ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    r = ns("b", f"ping -6 -c 2 -i 0.2 -W 2 {want}", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    nd = s.js("show ip6 nd port0")["interfaces"][0]
    assert nd["rs-answered"] >= 1 and nd["ra-sent"] >= 2, nd
    kll = ns("a", f"ip -6 addr show dev {dev} scope link").stdout.split("inet6 ")[1].split("/")[0]
    neigh = {(n["interface"], n["address"]): n for n in s.js("show ip6 neighbors")["neighbors"]}
    assert neigh[("port0", kll)]["mac"] == mac, neigh


@pytest.mark.parametrize("version", [1, 2])
def test_mld_with_a_snooping_bridge(sluiced_factory, version):
    """MLD against the kernel: a Linux bridge with multicast snooping, itself the querier
    (MLDv1, the kernel's default, or MLDv2), learns from sluiced's reports that the port
    towards sluiced wants all-routers and the solicited-node groups of sluiced's addresses
    (`bridge mdb`), and sluiced answers the bridge's queries in the querier's version."""
    n, dev = f"{TAG}m", f"{TAG}m1"
    try:
        sh(f"ip netns add {n}")
        sh(f"ip link add {TAG}m0 type veth peer name {dev}")
        sh(f"ip link set {dev} netns {n}")
        sh(f"sysctl -qw net.ipv6.conf.{TAG}m0.disable_ipv6=1", check=False)
        sh(f"ethtool -K {TAG}m0 tx off rx off", check=False)
        sh(f"ip link set {TAG}m0 up")
        sh(f"ip netns exec {n} ip link add br0 type bridge mcast_snooping 1 mcast_querier 1 "
           "mcast_startup_query_count 10 mcast_startup_query_interval 100 "
           f"mcast_query_interval 200 mcast_query_response_interval 100 mcast_mld_version {version}")
        sh(f"ip netns exec {n} sysctl -qw net.ipv6.conf.br0.accept_dad=0")
        sh(f"ip netns exec {n} ip link set {dev} master br0")
        sh(f"ip netns exec {n} ip link set {dev} up")
        sh(f"ip netns exec {n} ip link set br0 up")
        s = sluiced_factory([f"net_af_packet0,iface={TAG}m0 {{ name port0 }}"],
                            ["set interface ip address port0 2001:db8:1::10/64",
                             "set interface ip address port0 2001:db8:1::abcd/64",
                             "set interface state port0 up"])
        ll = [i["address"] for i in s.js("show ip6 interface")["interfaces"]
              if i["scope"] == "link-local"][0]

        def sol(a):
            low = ipaddress.IPv6Address(a).packed[13:]
            return str(ipaddress.IPv6Address(bytes.fromhex("ff02" + "00" * 9 + "01ff") + low))

        want = {"ff02::2", sol(ll), sol("2001:db8:1::10"), sol("2001:db8:1::abcd")}
        deadline = time.time() + 20
        have, mld = set(), {}
        while time.time() < deadline:
            out = sh(f"ip netns exec {n} bridge -j mdb show dev br0").stdout
            have = {e["grp"] for m in json.loads(out or "[]") for e in m.get("mdb", [])
                    if e.get("port") == dev}
            mld = s.js("show ip6 mld port0")["interfaces"][0]
            if want <= have and mld["queries"] >= 1 and mld["reports-sent"] >= 2:
                break
            time.sleep(0.3)
        assert want <= have, (have, out)
        assert set(mld["groups"].split()) == want and mld["version"] == str(version)
        assert mld["queries"] >= 1 and mld["reports-sent"] >= 2, mld
        assert s.stop() == 0
    finally:
        sh(f"ip link del {TAG}m0", check=False)
        sh(f"ip netns del {n}", check=False)
