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


@pytest.mark.parametrize("mode", ["mplsudp", "vxlan"])
def test_seed004_servers_carry_vm1_to_vm2(sluiced_factory, tmp_path, mode):
    """make seed-004's two servers (scripts/seed004_hosts.py's CLI) on pcap "VM" ports and a
    memif wire: VM1's frame to 48.0.0.0/8 reaches VM2 through the overlay, routed by the
    label's table (mplsudp: MAC of VM2, one hop less on each server) or bridged unchanged."""
    import sys
    sys.path.insert(0, str(ROOT / "scripts"))
    import seed004_hosts as h
    frame = (Ether(src="02:00:00:00:00:01", dst=h.VM1_PORT_MAC) / IP(src="10.10.1.2", dst="48.0.0.9", ttl=64)
             / UDP(sport=2123, dport=10000) / Raw(b"v" * 18))
    wrpcap(str(tmp_path / "vm1.pcap"), [frame] * 5, linktype=1)
    wrpcap(str(tmp_path / "empty.pcap"), [], linktype=1)
    wire = tmp_path / "wire.sock"
    cli = {"a": h.MPLSUDP_A if mode == "mplsudp" else h.vxlan(1, 2, "port0", "port1", h.B_MAC),
           "b": h.MPLSUDP_B if mode == "mplsudp" else h.vxlan(2, 1, "port1", "port0", h.A_MAC)}
    a = sluiced_factory([
        f"net_pcap0,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/a0.pcap {{ name port0 mac-address {h.VM1_PORT_MAC} }}",
        f"net_memif0,role=server,id=0,socket={wire} {{ name port1 mac-address {h.A_MAC} }}",
    ], cli["a"].splitlines(), sub="a")
    b = sluiced_factory([
        f"net_memif0,role=client,id=0,socket={wire} {{ name port0 mac-address {h.B_MAC} }}",
        f"net_pcap1,rx_pcap={tmp_path}/empty.pcap,tx_pcap={tmp_path}/vm2.pcap {{ name port1 mac-address 02:00:00:00:00:11 }}",
    ], cli["b"].splitlines(), sub="b")
    # VM1's frames enter A's port0 (a pg stream of the pcap) once the memif wire is up
    import time
    deadline = time.time() + 20

    def wire_up():
        hw = a.js("show hardware")
        rows = next(v for v in hw.values() if isinstance(v, list))
        return [r for r in rows if r["name"] == "port1" and r["link"] == "up"]
    while time.time() < deadline and not wire_up():
        time.sleep(0.1)
    a.cli(f"packet-generator new {{ name vm1 limit 5 interface port0 pcap {tmp_path}/vm1.pcap }}")
    a.cli("packet-generator enable-stream vm1")
    while b.iface("port1")["tx-packets"] < 5 and time.time() < deadline:
        time.sleep(0.1)
    sent = b.iface("port1")["tx-packets"]
    errs_a, errs_b = a.errors(), b.errors()
    # either may stop first: DPDK 22.11's memif unmaps the shared regions in its interrupt
    # thread when the peer goes, and sluiced's munmap waits for its forwarding threads first
    # (A crashed so once when B stopped first, and B under ASan when A did, before it did)
    assert a.stop() == 0 and b.stop() == 0
    out = list(rdpcap(str(tmp_path / "vm2.pcap")))
    assert sent == 5 and len(out) == 5, (errs_a, errs_b)
    for x in out:
        if mode == "mplsudp":
            assert x[Ether].dst == h.VM2_MAC and x[IP].ttl == 62 and x[IP].dst == "48.0.0.9"
        else:
            assert bytes(x) == bytes(frame)
    assert not [k for k in errs_b if k[0].startswith(("mpls", "vxlan"))], errs_b


def test_seed004_receive_queues_one_depth():
    """seed-004.yaml gives every DUT's receive queue from VM1 one depth (the sluiced servers' ring:
    the virtio-user queue_size and the generator's txd; the kernel's: the af_packet ring and
    netdev_max_backlog), and SEED004_RING=N (seed004.with_ring) moves all four together; the
    kernel's backlog is set while its servers are up and put back after."""
    import re
    import subprocess
    import sys
    sys.path.insert(0, str(ROOT / "scripts"))
    sys.path.insert(0, str(ROOT / "bench"))
    import seed004
    import seed004_hosts as h

    def depths(topo):
        got = set()
        for d in topo["duts"]:
            g = d["gen"]
            got |= {int(x) for v in g["vdevs"] for x in re.findall(r"(?:queue_size|framecnt)=(\d+)", v)}
            got |= {int(g["txd"])} if d["name"].startswith("sluiced") else set()
            got |= {int(x) for x in re.findall(r"--backlog (\d+)", d["cmd"])}
        return got
    topo = yaml.safe_load(open(ROOT / "bench/topologies/seed-004.yaml"))
    assert [d["name"] for d in topo["duts"]] == ["sluiced-mplsudp", "sluiced-vxlan", "linux-bridge-vxlan"]
    assert depths(topo) == {4096}
    assert all("--backlog" in d["cmd"] or "txd" in d["gen"] for d in topo["duts"])
    assert depths(seed004.with_ring(topo, 1024)) == {1024}
    path = Path("/proc/sys/net/core/netdev_max_backlog")
    before = path.read_text().strip()
    down = h.kernel_up(backlog=int(before) + 77)
    try:
        assert path.read_text().strip() == str(int(before) + 77)
    finally:
        for c in down:
            subprocess.run(c, shell=True, capture_output=True)
    assert path.read_text().strip() == before
    assert "s4a" not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
