# SPDX-License-Identifier: BSD-3-Clause
"""VXLAN with the Linux kernel as the remote VTEP (RFC 7348): a namespace `vt` holds the
kernel's vxlan device on a veth "wire" to sluiced (af_packet), with host h2 behind it on a
veth; host h1 sits behind sluiced on another. ping and 10 MiB of TCP both ways between h1 and
h2 across the overlay, bridged (sluiced's tunnel and h1's port in one bridge domain, the
kernel's vxlan and h2 in a Linux bridge) and routed (the tunnel an IPv4 interface, ARP over
it both ways), each over an IPv4 and an IPv6 underlay (the kernel checks the UDP checksums
sluiced writes over IPv6, and writes its own)."""
import os
import subprocess

import pytest

from netns_tcp import tcp_10mib

TAG = f"vx{os.getpid() % 100000}"
VNI = 4242


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True, **kw)


def ns(name, cmd, **kw):
    return sh(f"ip netns exec {TAG}{name} {cmd}", **kw)


def veth(a, a_ns, b, b_ns):
    """A veth pair a (in namespace a_ns, or the host's for None) - b, up, no offloads."""
    sh(f"ip link add {a} type veth peer name {b}")
    for dev, where in ((a, a_ns), (b, b_ns)):
        if where:
            sh(f"ip link set {dev} netns {TAG}{where}")
        pre = f"ip netns exec {TAG}{where} " if where else ""
        # no offloads: af_packet would otherwise hand over partial checksums and GSO frames
        sh(f"{pre}ethtool -K {dev} tx off rx off tso off gso off gro off", check=False)
        sh(f"{pre}ip link set {dev} up")


# the underlay by family: sluiced's address, the kernel VTEP's, the prefix length, and the
# inner MTU that fills the 1500-byte wire (50 or 70 bytes of outer headers)
UNDER = {4: ("10.10.0.1", "10.10.0.2", 24, 1450), 6: ("2001:db8:10::1", "2001:db8:10::2", 64, 1430)}


@pytest.fixture
def overlay(request):
    """Namespaces vt (kernel VTEP 10.10.0.2 or 2001:db8:10::2 on the wire u1), h1 (on h1a,
    to sluiced's port1), h2 (on h2a, to vt's h2b); sluiced's port0 is the wire's other end
    u0. The parameter: the VXLAN UDP port, or (port, underlay family)."""
    made = []
    try:
        for n in ("vt", "h1", "h2"):
            sh(f"ip netns add {TAG}{n}")
            made.append(n)
            ns(n, "ip link set lo up")
        veth(f"{TAG}u0", None, f"{TAG}u1", "vt")
        veth(f"{TAG}p1", None, f"{TAG}h1a", "h1")
        veth(f"{TAG}h2b", "vt", f"{TAG}h2a", "h2")
        param = getattr(request, "param", 4789)
        port, fam = param if isinstance(param, tuple) else (param, 4)
        mine, kernel, plen, _ = UNDER[fam]
        ns("vt", f"ip addr add {kernel}/{plen} dev {TAG}u1" + (" nodad" if fam == 6 else ""))
        # port: the kernel's, and sluiced's tunnel's dst_port
        ns("vt", f"ip link add {TAG}vx type vxlan id {VNI} local {kernel} remote {mine} "
                 f"dstport {port} dev {TAG}u1")
        ns("vt", f"ethtool -K {TAG}vx tx off rx off tso off gso off gro off", check=False)
        ns("vt", f"ip link set {TAG}vx up")
        yield port, fam
    finally:
        sh(f"ip link del {TAG}u0", check=False)
        sh(f"ip link del {TAG}p1", check=False)
        for n in made:
            sh(f"ip netns del {TAG}{n}", check=False)



def ping(src, dst, count=3):
    r = ns(src, f"ping -c {count} -i 0.2 -W 2 {dst}", check=False)
    assert r.returncode == 0, r.stdout + r.stderr


DEVS = [f"net_af_packet0,iface={TAG}u0 {{ name port0 }}",
        f"net_af_packet1,iface={TAG}p1 {{ name port1 }}"]


def underlay(fam, port=4789):
    mine, kernel, plen, _ = UNDER[fam]
    return [f"set interface ip address port0 {mine}/{plen}", "set interface state port0 up",
            "set interface state port1 up",
            f"create vxlan tunnel src {mine} dst {kernel} vni {VNI}" +
            ("" if port == 4789 else f" dst_port {port}")]


def no_vxlan_errors(s):
    e = s.errors()
    assert not [k for k in e if k[0].startswith("vxlan") or k[0].endswith("udp-local")], e


@pytest.mark.parametrize("overlay", [4789, (4789, 6)], indirect=True, ids=["ip4", "ip6"])
def test_vxlan_l2_kernel_vtep(overlay, sluiced_factory):
    port, fam = overlay
    mine, kernel, _, mtu = UNDER[fam]
    # the kernel's side: its vxlan device and h2's veth in one Linux bridge
    ns("vt", f"ip link add {TAG}br type bridge")
    ns("vt", f"ip link set {TAG}vx master {TAG}br")
    ns("vt", f"ip link set {TAG}h2b master {TAG}br")
    ns("vt", f"ip link set {TAG}br up")
    # inner frames of 1450-byte (1430) packets fill the 1500-byte wire with the 50 (70)
    # bytes of VXLAN over IPv4 (IPv6)
    for n, addr in (("h1", "192.168.50.1/24"), ("h2", "192.168.50.2/24")):
        ns(n, f"ip link set {TAG}{n}a mtu {mtu}")
        ns(n, f"ip addr add {addr} dev {TAG}{n}a")
    s = sluiced_factory(DEVS, underlay(fam) + ["create bridge-domain 10", "set interface l2 bridge port1 10",
                                          "set interface l2 bridge vxlan_tunnel0 10",
                                          "set interface state vxlan_tunnel0 up"])
    ping("h1", "192.168.50.2")
    ping("h2", "192.168.50.1")
    tcp_10mib(f"{TAG}h2", f"{TAG}h1", "192.168.50.2")
    tcp_10mib(f"{TAG}h1", f"{TAG}h2", "192.168.50.1")
    # h2's MAC was learnt behind the tunnel, h1's behind port1
    h2mac = ns("h2", f"cat /sys/class/net/{TAG}h2a/address").stdout.strip()
    macs = {m["mac"]: m for m in s.js("show bridge-domain 10 detail")["macs"]}
    assert macs[h2mac]["interface"] == "vxlan_tunnel0", macs
    t = s.js("show vxlan tunnel")["tunnels"]
    assert [(x["name"], x["src"], x["dst"], x["vni"], x["encap-vrf-id"], x["mtu"], x["state"])
            for x in t] == [("vxlan_tunnel0", mine, kernel, VNI, 0, mtu, "up")]
    ifs = {i["name"]: i for i in s.js("show interface")["interfaces"]}
    assert ifs["vxlan_tunnel0"]["rx-packets"] > 7000 and ifs["vxlan_tunnel0"]["tx-packets"] > 7000
    no_vxlan_errors(s)


@pytest.mark.parametrize("overlay", [4789, 8472, (4789, 6)], indirect=True,
                         ids=["port4789", "port8472", "ip6"])
def test_vxlan_l3_kernel_vtep(overlay, sluiced_factory):
    """8472: the kernel's and sluiced's VXLAN both on Linux's historical port (dst_port)."""
    port, fam = overlay
    mtu = UNDER[fam][3]
    # the kernel's side routes: 172.16.0.2 on its vxlan device, h2's subnet behind it
    ns("vt", f"ip addr add 172.16.0.2/30 dev {TAG}vx")
    ns("vt", f"ip addr add 192.168.2.1/24 dev {TAG}h2b")
    ns("vt", "sysctl -qw net.ipv4.ip_forward=1")
    ns("vt", "ip route add 192.168.1.0/24 via 172.16.0.1")
    ns("h1", f"ip addr add 192.168.1.2/24 dev {TAG}h1a")
    ns("h1", "ip route add default via 192.168.1.1")
    ns("h2", f"ip addr add 192.168.2.2/24 dev {TAG}h2a")
    ns("h2", "ip route add default via 192.168.2.1")
    ns("h2", f"ip link set {TAG}h2a mtu {mtu}")
    s = sluiced_factory(DEVS, underlay(fam, port) + ["set interface ip address port1 192.168.1.1/24",
                                          "set interface ip address vxlan_tunnel0 172.16.0.1/30",
                                          "set interface state vxlan_tunnel0 up",
                                          "ip route add 192.168.2.0/24 via 172.16.0.2 vxlan_tunnel0"])
    ping("h1", "192.168.2.2")
    ping("h2", "192.168.1.2")
    ping("vt", "172.16.0.1")  # the tunnel's own address, from the kernel VTEP
    tcp_10mib(f"{TAG}h2", f"{TAG}h1", "192.168.2.2")
    tcp_10mib(f"{TAG}h1", f"{TAG}h2", "192.168.1.2")
    # ARP over the tunnel both ways: sluiced resolved the kernel's vxlan address, and the kernel
    # sluiced's tunnel MAC
    nb = {(n["interface"], n["address"]) for n in s.js("show ip neighbors")["neighbors"]}
    assert ("vxlan_tunnel0", "172.16.0.2") in nb, nb
    assert s.js("show vxlan tunnel")["tunnels"][0]["dst-port"] == port
    kn = ns("vt", f"ip neigh show dev {TAG}vx").stdout
    assert "172.16.0.1 lladdr 02:fe:76:78:00:00" in kn, kn
    no_vxlan_errors(s)
