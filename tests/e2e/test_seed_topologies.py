# SPDX-License-Identifier: BSD-3-Clause
"""The sluiced DUTs of the seed-001 topologies on pcap ports named as in their startup
files: every CLI line of each is accepted, and a frame in port0 comes out of port1 as each
one's mode says (cross-connected or bridged unchanged, routed with a new MAC and TTL)."""
from pathlib import Path

import pytest
import yaml
from scapy.all import IP, UDP, Ether, Raw, rdpcap, wrpcap

from conftest import MAC0, MAC1, ROOT

ROUTER = (ROOT / "conf/demo-setup.cli").read_text().splitlines()


def sluiced_duts():
    for f in ("seed-001-l2.yaml", "seed-001-l3.yaml", "memif-sluiced-vs-testpmd-io.yaml"):
        topo = yaml.safe_load(open(ROOT / "bench/topologies" / f))
        for d in topo["duts"]:
            if d["kind"] == "sluiced":
                yield pytest.param(topo, d, id=f"{topo['name']}:{d['name']}")


@pytest.mark.parametrize("topo,dut", list(sluiced_duts()))
def test_seed_topology_duts_forward(sluiced_factory, tmp_path, topo, dut):
    g = topo["gen"]
    frame = (Ether(src="02:00:00:00:00:01", dst=g["dst_mac"]) / IP(src="10.10.1.2", dst=g["dst_first"], ttl=64)
             / UDP(sport=2123, dport=10000) / Raw(b"s" * 18))
    wrpcap(str(tmp_path / "in0.pcap"), [frame], linktype=1)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    assert MAC0 == "02:00:00:00:00:10" and MAC1 == "02:00:00:00:00:11"  # as in the startup files
    routed = "demo-startup" in dut["startup"]  # its exec file sets up the routing
    s = sluiced_factory([
        f"net_pcap0,rx_pcap={tmp_path}/in0.pcap,tx_pcap={tmp_path}/out0.pcap {{ name port0 mac-address {MAC0} }}",
        f"net_pcap1,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/out1.pcap {{ name port1 mac-address {MAC1} }}",
    ], (ROUTER if routed else []) + dut.get("cli", []))
    s.wait_rx("port0", 1)
    assert s.stop() == 0
    out = list(rdpcap(str(tmp_path / "out1.pcap")))
    assert len(out) == 1, dut["name"]
    if routed:
        assert out[0][Ether].src == MAC1 and out[0][Ether].dst == "42:01:0a:0a:02:01" and out[0][IP].ttl == 63
    else:
        assert bytes(out[0]) == bytes(frame)
