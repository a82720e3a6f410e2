# SPDX-License-Identifier: BSD-3-Clause
"""A bridged virtual interface (BVI) routes between a bridge domain and the IPv4 FIB:
ICMP echo to the BVI from a bridged host, routing from an L3 port to a host behind the
bridge and back, and ARP answered through the bridge."""
import time

from scapy.all import ARP, ICMP, IP, UDP, Ether, Raw, rdpcap

from conftest import NH1
from test_bridge import Bridge

H = "02:00:00:00:00:0a"        # a host on pg0, in bridge domain 10, address 10.10.5.2
BVI = "02:fe:b1:00:00:00"      # bvi0's default MAC
PG2 = "02:fe:00:00:00:02"


def test_bvi_routes_in_and_out_of_the_bridge(sluiced_factory, tmp_path):
    b = Bridge(sluiced_factory, tmp_path)
    s = b.s
    s.cli("set interface l3 pg2")               # pg2 becomes a routed port
    for line in ["bvi create", "set interface l2 bridge bvi0 10 bvi",
                 "set interface ip address bvi0 10.10.5.1/24", "set interface state bvi0 up",
                 "set interface ip address pg2 10.10.2.10/24",
                 f"ip neighbor pg2 10.10.2.1 {NH1}", "ip route add 48.0.0.0/8 via 10.10.2.1",
                 f"ip neighbor bvi0 10.10.5.2 {H}"]:
        s.cli(line)
    assert s.iface("bvi0")["mode"] == "l3 (bvi of bridge-domain 10)"
    assert s.js("show bridge-domain 10")["bridge-domains"][0]["members"] == "pg0 pg1 bvi0"
    assert {m["mac"]: m["type"] for m in s.js("show bridge-domain 10 detail")["macs"]} == {BVI: "static"}
    # H asks for the BVI's MAC (flooded, answered by the BVI) and is learnt on pg0
    b.send(0, [Ether(src=H, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.10.5.2", hwsrc=H, pdst="10.10.5.1")])
    b.send(0, [
        Ether(src=H, dst=BVI) / IP(src="10.10.5.2", dst="10.10.5.1") / ICMP(id=7, seq=1),  # echo
        Ether(src=H, dst=BVI) / IP(src="10.10.5.2", dst="48.1.2.3", ttl=9) / UDP(sport=11, dport=9),
    ])
    b.send(2, [Ether(src="02:00:00:00:00:99", dst=PG2) / IP(src="10.10.2.1", dst="10.10.5.2", ttl=5) /
               UDP(sport=12, dport=9) / Raw(b"r" * 10)])
    time.sleep(0.5)  # the ARP reply leaves through worker 0's inject ring
    assert s.stop() == 0
    pg0 = list(rdpcap(str(tmp_path / "pg0.pcap")))
    pg1 = list(rdpcap(str(tmp_path / "pg1.pcap")))
    pg2 = list(rdpcap(str(tmp_path / "pg2.pcap")))
    # to pg0 through the bridge: the ARP reply, the echo reply, the UDP routed in from pg2
    assert [ARP in p for p in pg0] == [True, False, False]
    rep = [p for p in pg0 if ICMP in p]
    assert len(rep) == 1 and rep[0][ICMP].type == 0 and rep[0][Ether].dst == H and rep[0][Ether].src == BVI
    udp = [p for p in pg0 if UDP in p]
    assert len(udp) == 1 and udp[0][IP].ttl == 4 and udp[0][Ether].src == BVI and udp[0][Ether].dst == H
    arp = [p for p in pg0 if ARP in p]
    assert len(arp) == 1 and arp[0][ARP].op == 2 and arp[0][ARP].hwsrc == BVI and arp[0][ARP].psrc == "10.10.5.1"
    # the broadcast ARP request was flooded to pg1 too; nothing else reached pg1
    assert [p[ARP].op for p in pg1] == [1]
    # routed out of pg2 from behind the bridge
    assert len(pg2) == 1 and pg2[0][IP].dst == "48.1.2.3" and pg2[0][IP].ttl == 8 and pg2[0][Ether].dst == NH1


def test_bvi_input_acl(sluiced_factory, tmp_path):
    """A BVI's input features (here an input ACL) see the frames the bridge hands it, as
    received on the BVI: the permitted one routed on, the other denied and counted, ARP (not
    IP) past the ACL unclassified and answered."""
    b = Bridge(sluiced_factory, tmp_path)
    s = b.s
    s.cli("set interface l3 pg2")
    for line in ["bvi create", "set interface l2 bridge bvi0 10 bvi",
                 "set interface ip address bvi0 10.10.5.1/24", "set interface state bvi0 up",
                 "set interface ip address pg2 10.10.2.10/24",
                 f"ip neighbor pg2 10.10.2.1 {NH1}", "ip route add 48.0.0.0/8 via 10.10.2.1",
                 "set acl-plugin acl permit src 10.10.5.0/24 dst 48.1.2.3/32 proto 17",
                 "set acl-plugin interface bvi0 input acl 0"]:
        s.cli(line)
    b.send(0, [Ether(src=H, dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.10.5.2", hwsrc=H, pdst="10.10.5.1"),
               Ether(src=H, dst=BVI) / IP(src="10.10.5.2", dst="48.1.2.3", ttl=9) / UDP(sport=11, dport=9),
               Ether(src=H, dst=BVI) / IP(src="10.10.5.2", dst="48.9.9.9", ttl=9) / UDP(sport=12, dport=9)])
    time.sleep(0.5)  # the ARP reply leaves through worker 0's inject ring
    errs = s.errors()
    assert s.stop() == 0
    assert {k: v for k, v in errs.items() if k[0] != "arp (main)" and k[0] != "l2-bridge"} == \
        {("acl-input", "acl no rule matched (default deny)"): 1}
    pg2 = list(rdpcap(str(tmp_path / "pg2.pcap")))
    assert len(pg2) == 1 and pg2[0][IP].dst == "48.1.2.3" and pg2[0][IP].ttl == 8
    arp = [p for p in rdpcap(str(tmp_path / "pg0.pcap")) if ARP in p]
    assert len(arp) == 1 and arp[0][ARP].op == 2 and arp[0][ARP].psrc == "10.10.5.1"
