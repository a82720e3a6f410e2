# SPDX-License-Identifier: BSD-3-Clause
"""1,000 tunnels (VXLAN over IPv4 and over IPv6, GRE, IP-in-IP) created and deleted twice while two streams flow
through another VXLAN tunnel, one encapsulated and one decapsulated: no packet lost on it, no
error, no buffer or heap allocation left behind (pg interfaces, one worker); the same with
VPP's VXLAN bypass on the underlay, whose sets of local addresses change with the tunnels."""
import time

import pytest

from scapy.all import IP, UDP, Ether, Raw, wrpcap
from scapy.layers.vxlan import VXLAN

WORKER = "cpu { main-core 0 corelist-workers 1 }\n"
TUN_MAC = "02:fe:76:78:00:00"


@pytest.mark.parametrize("bypass", [False, True], ids=["", "bypass"])
def test_tunnel_churn_under_traffic(sluiced_factory, tmp_path, bypass):
    lines = ["create packet-generator interface pg0", "create packet-generator interface pg1",
             "set interface state pg0 up", "set interface state pg1 up",
             "set interface ip address pg0 10.10.1.10/24", "set interface ip address pg1 10.10.2.10/24",
             "ip neighbor pg0 10.10.1.2 02:00:00:00:00:01", "ip neighbor pg1 10.10.2.1 42:01:0a:0a:02:01",
             "create vxlan tunnel src 10.10.2.10 dst 10.10.2.1 vni 1", "set interface state vxlan_tunnel0 up",
             "set interface ip address vxlan_tunnel0 172.16.0.1/30",
             "ip neighbor vxlan_tunnel0 172.16.0.2 02:00:00:00:77:02",
             "ip route add 48.0.0.0/8 via 172.16.0.2 vxlan_tunnel0"]
    if bypass:
        lines += ["set interface ip vxlan-bypass pg1", "set interface ip6 vxlan-bypass pg1"]
    s = sluiced_factory([], lines, extra=WORKER)
    wrpcap(str(tmp_path / "out.pcap"), [Ether(dst="02:fe:00:00:00:00", src="02:00:00:00:00:01") /
                                        IP(src="10.10.1.2", dst="48.0.0.1") / UDP(sport=1, dport=2) /
                                        Raw(b"o" * 18)])
    wrpcap(str(tmp_path / "in.pcap"), [Ether(dst="02:fe:00:00:00:01", src="42:01:0a:0a:02:01") /
                                       IP(src="10.10.2.1", dst="10.10.2.10") /
                                       UDP(sport=49152, dport=4789, chksum=0) / VXLAN(vni=1) /
                                       Ether(dst=TUN_MAC, src="02:00:00:00:77:02") /
                                       IP(src="48.0.0.1", dst="10.10.1.2") / UDP(sport=2, dport=1) /
                                       Raw(b"i" * 18)])
    s.cli("show interface")
    mem0 = s.js("show memory")["memory"][0]["allocations"]
    bufs0 = s.js("show buffers")["buffers"][0]["in-use"]
    for name, port, pcap in (("enc", "pg0", "out"), ("dec", "pg1", "in")):
        s.cli(f"packet-generator new {{ name {name} rate 100000 interface {port} worker 0 "
              f"pcap {tmp_path}/{pcap}.pcap }}")
        s.cli(f"packet-generator enable-stream {name}")
    kinds = [(f"create vxlan tunnel src 10.10.2.10 dst 10.20.{i // 250}.{i % 250 + 1} vni {i}",)
             for i in range(250)]
    kinds += [(f"create vxlan tunnel src 2001:db8:2::10 dst 2001:db8:20::{i + 1:x} vni {i}",)
              for i in range(250)]
    kinds += [(f"create gre tunnel src 10.10.2.10 dst 10.21.{i // 250}.{i % 250 + 1} key {i}",)
              for i in range(250)]
    kinds += [(f"create ipip tunnel src 10.10.2.10 dst 10.22.{i // 250}.{i % 250 + 1}",)
              for i in range(250)]
    for rnd in range(2):
        (tmp_path / "create.cli").write_text("\n".join(k[0] for k in kinds) + "\n")
        s.cli(f"exec {tmp_path}/create.cli")
        n = sum(len(s.js(f"show {k} tunnel")["tunnels"]) for k in ("vxlan", "gre", "ipip"))
        assert n == 1001
        (tmp_path / "delete.cli").write_text("\n".join(k[0] + " del" for k in kinds) + "\n")
        s.cli(f"exec {tmp_path}/delete.cli")
        assert [t["name"] for t in s.js("show vxlan tunnel")["tunnels"]] == ["vxlan_tunnel0"]
        assert s.js("show gre tunnel")["tunnels"] == [] and s.js("show ipip tunnel")["tunnels"] == []
    for name in ("enc", "dec"):
        s.cli(f"packet-generator disable-stream {name}")
    time.sleep(0.5)  # the last vectors drain
    sent = {st["name"]: st["sent"] for st in s.js("show packet-generator")["streams"]}
    assert sent["enc"] > 10000 and sent["dec"] > 10000  # they ran throughout
    assert s.iface("pg1")["tx-packets"] == sent["enc"]   # encapsulated, out to the underlay
    assert s.iface("pg0")["tx-packets"] == sent["dec"]   # decapsulated, routed to the host
    t0 = s.iface("vxlan_tunnel0")
    assert t0["tx-packets"] == sent["enc"] and t0["rx-packets"] == sent["dec"]
    assert s.errors() == {}
    # ("vectors" counts packets): ip4-lookup saw the encapsulated stream once (its outer
    # headers go by the tunnel's cached adjacency) and the decapsulated one twice (outer and
    # inner) without the bypass, only its inner packets with it
    rt = {r["node"]: r for r in s.js("show runtime")["runtime"]}
    assert rt["ip4-lookup"]["vectors"] == sent["enc"] + (1 if bypass else 2) * sent["dec"]
    assert rt.get("ip4-vxlan-bypass", {}).get("vectors", 0) == (sent["dec"] if bypass else 0)
    for name in ("enc", "dec"):
        s.cli(f"packet-generator delete {name}")
    assert s.js("show buffers")["buffers"][0]["in-use"] == bufs0
    # as many heap allocations as before (what waits for a grace period, a stream, is freed by
    # the main loop soon). Not the bytes: rte_graph reallocates a node's stream twice as large
    # when more than a vector reaches it in one walk, which two streams can do when the worker
    # was kept from running for a while by the churn on the main lcore (2 vCPUs)
    deadline = time.time() + 5
    while s.js("show memory")["memory"][0]["allocations"] != mem0 and time.time() < deadline:
        time.sleep(0.1)
    assert s.js("show memory")["memory"][0]["allocations"] == mem0, s.cli("show memory")
    assert s.stop() == 0
