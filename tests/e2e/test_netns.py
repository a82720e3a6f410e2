# SPDX-License-Identifier: BSD-3-Clause
"""Real peers: Linux network namespaces on veth pairs, attached to sluiced by af_packet,
ping each other and move a TCP stream through it; a third gets ICMP unreachable."""
import os
import subprocess
import sys

import pytest

from netns_tcp import tcp_10mib, tcpdump

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


def test_ping_from_sluiced_to_kernel_hosts(namespaces, sluiced_factory, tmp_path):
    """sluiced's ping answered by the kernel: the first request waits for ARP and leaves with
    TTL 64 all the same (tcpdump in the host's namespace), from another interface's address
    too (the host's route back goes through sluiced); a host that is not there loses all."""
    from scapy.all import ICMP, IP, rdpcap
    devs = [f"net_af_packet{i},iface={TAG}{n}0 {{ name port{i} }}" for i, n in enumerate("abc")]
    cli = [f"set interface ip address port{i} 10.10.{i + 1}.10/24" for i in range(3)]
    s = sluiced_factory(devs, cli + [f"set interface state port{i} up" for i in range(3)])
    cap = tmp_path / "a.pcap"
    with tcpdump(f"{TAG}a", f"{TAG}a1", cap):
        r = s.js("ping 10.10.1.2 repeat 3 interval 0.1")
        st = r["statistics"][0]
        assert (st["sent"], st["received"], st["loss-percent"], st["bad"]) == (3, 3, 0, 0), r
        assert [(x["seq"], x["from"], x["bytes"], x["ttl"]) for x in r["replies"]] == [
            (i, "10.10.1.2", 64, 64) for i in (1, 2, 3)]
        assert 0 < st["min-us"] <= st["avg-us"] <= st["max-us"] < 1_000_000
        r = s.js("ping 10.10.1.2 source port1 repeat 2 interval 0.1 size 1400")
        assert r["statistics"][0]["received"] == 2 and r["replies"][0]["bytes"] == 1408
    reqs = [p[IP] for p in rdpcap(str(cap)) if ICMP in p and p[ICMP].type == 8]
    assert [(q.src, q.ttl, q[ICMP].seq) for q in reqs] == [
        ("10.10.1.10", 64, 1), ("10.10.1.10", 64, 2), ("10.10.1.10", 64, 3),
        ("10.10.2.10", 64, 1), ("10.10.2.10", 64, 2)]
    assert s.errors()[("arp (main)", "packets held while resolving a next hop (not a drop)")] == 1
    r = s.js("ping 10.10.3.99 repeat 2 interval 0.1")  # nobody answers its ARP
    assert (r["statistics"][0]["sent"], r["statistics"][0]["received"]) == (2, 0)
    assert "received" in s.cli("ping 10.10.2.2 repeat 1")  # the text form
    assert s.stop() == 0


# A host that answers ping its own way (the kernel's echo replies off): request 1 twice,
# request 2 with other data, request 3 once, as it should be.
ODD_RESPONDER = r"""
import sys
from scapy.all import AsyncSniffer, ICMP, IP, Ether, Raw, get_if_hwaddr, sendp
dev = sys.argv[1]
me = get_if_hwaddr(dev)

def answer(p):
    if ICMP not in p or p[ICMP].type != 8 or p[Ether].src == me:
        return
    q, data = p[ICMP], bytes(p[ICMP].payload)
    if q.seq == 2:
        data = bytes(b ^ 0xff for b in data)
    r = (Ether(dst=p[Ether].src, src=me) / IP(src=p[IP].dst, dst=p[IP].src) /
         ICMP(type=0, id=q.id, seq=q.seq) / Raw(data))
    sendp(r, iface=dev, count=2 if q.seq == 1 else 1, verbose=False)

sn = AsyncSniffer(iface=dev, prn=answer, store=False, filter="icmp",
                  started_callback=lambda: print("ready", flush=True))
sn.start()
sys.stdin.read()
sn.stop()
"""


def test_ping_counts_duplicate_and_bad_replies(namespaces, sluiced_factory):
    """A reply that comes twice is counted once and as a duplicate; a reply whose data is not
    the request's is not a reply (bad); the loss is of the requests sent."""
    devs = [f"net_af_packet{i},iface={TAG}{n}0 {{ name port{i} }}" for i, n in enumerate("abc")]
    cli = [f"set interface ip address port{i} 10.10.{i + 1}.10/24" for i in range(3)]
    s = sluiced_factory(devs, cli + [f"set interface state port{i} up" for i in range(3)])
    ns("a", "sysctl -qw net.ipv4.icmp_echo_ignore_all=1")
    resp = subprocess.Popen(["ip", "netns", "exec", f"{TAG}a", sys.executable, "-c", ODD_RESPONDER,
                             f"{TAG}a1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert resp.stdout.readline().strip() == "ready"
        r = s.js("ping 10.10.1.2 repeat 3 interval 0.2")
    finally:
        resp.stdin.close()
        resp.wait(timeout=10)
    st = r["statistics"][0]
    assert (st["sent"], st["received"], st["duplicates"], st["bad"], st["loss-percent"]) == (3, 2, 1, 1, 33), r
    assert [x["seq"] for x in r["replies"]] == [1, 3]
    assert s.stop() == 0


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
