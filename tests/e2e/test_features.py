# SPDX-License-Identifier: BSD-3-Clause
"""Feature arcs: unicast RPF (ip4-source-check-via-rx / -via-any) on the ip4-unicast arc,
turned on and off per interface with VPP's commands, seen in show interface features and in
a packet's trace; an interface with a feature can be deleted (its features go with it)."""
import time

from scapy.all import IP, UDP, Ether, rdpcap

from test_arp_hold import pg_ifaces, send

PG0, PG1 = "02:fe:00:00:00:00", "02:fe:00:00:00:01"
H0, NH = "02:00:00:00:00:0a", "42:01:0a:0a:02:01"


def pkt(src, sport):
    return Ether(src=H0, dst=PG0) / IP(src=src, dst="48.0.0.1") / UDP(sport=sport, dport=9)


def test_source_check_feature(sluiced_factory, tmp_path):
    lines = pg_ifaces(2, tmp_path)
    lines += ["set interface ip address pg0 10.10.1.10/24",
              "set interface ip address pg1 10.10.2.10/24",
              f"ip neighbor pg1 10.10.2.1 {NH}",
              f"ip neighbor pg0 10.10.1.2 {H0}",
              "ip route add 48.0.0.0/8 via 10.10.2.1"]
    s = sluiced_factory([], lines)
    feats = {f["feature"]: f for f in s.js("show interface features pg0")["features"]}
    assert feats["ip4-source-check-via-rx"]["enabled"] == "no"
    assert feats["ip4-source-check-via-rx"]["arc"] == "ip4-unicast"

    s.cli("set interface ip source-check pg0")
    feats = {f["feature"]: f for f in s.js("show interface features pg0")["features"]}
    assert feats["ip4-source-check-via-rx"]["enabled"] == "yes"
    assert feats["ip4-source-check-via-any"]["enabled"] == "no"
    s.cli("trace add pg-input 1")
    # 10.10.1.2 is routed back via pg0: passes; 10.10.2.99 is pg1's: dropped; 99.0.0.1 has
    # no route at all: dropped
    send(s, tmp_path, "a", "pg0", [pkt("10.10.1.2", 1), pkt("10.10.2.99", 2), pkt("99.0.0.1", 3)])
    errs = s.errors()
    assert errs[("ip4-source-check", "source not reachable via the receiving interface (uRPF strict)")] == 2
    nodes = [(r["node"], r["next"]) for r in s.js("show trace")["trace"]]
    assert ("ip4-input", "ip4-source-check-via-rx") in nodes
    assert ("ip4-source-check-via-rx", "ip4-lookup") in nodes
    s.cli("clear trace")

    # loose only: the source need only be routed somewhere
    s.cli("set interface ip source-check pg0 del")
    s.cli("set interface feature pg0 ip4-source-check-via-any arc ip4-unicast")
    send(s, tmp_path, "b", "pg0", [pkt("10.10.1.2", 4), pkt("10.10.2.99", 5), pkt("99.0.0.1", 6)])
    errs = s.errors()
    assert errs[("ip4-source-check", "no route to the source (uRPF loose)")] == 1
    # a drop route is no route (VPP's loose check fails on a drop path too)
    s.cli("ip route add 98.0.0.0/8 via drop")
    send(s, tmp_path, "b2", "pg0", [pkt("98.0.0.1", 8)])
    assert s.errors()[("ip4-source-check", "no route to the source (uRPF loose)")] == 2
    s.cli("ip route del 98.0.0.0/8 via drop")
    s.cli("set interface feature pg0 ip4-source-check-via-any arc ip4-unicast disable")
    send(s, tmp_path, "c", "pg0", [pkt("99.0.0.1", 7)])

    s.check_refused({
        "set interface feature pg0 nosuch arc ip4-unicast": "no feature 'nosuch' on arc ip4-unicast",
        "set interface feature pg0 ip4-source-check-via-rx arc nosuch": "unknown arc 'nosuch'",
        "set interface feature pg9 ip4-source-check-via-rx arc ip4-unicast": "unknown interface",
        "show interface features pg9": "unknown interface",
    })
    # a sub-interface with a feature on goes, and its feature with it
    s.cli("create sub-interfaces pg0 7")
    s.cli("set interface ip source-check pg0.7")
    s.cli("delete sub-interface pg0.7")
    s.cli("create sub-interfaces pg0 8")  # takes the freed index: no feature on
    assert all(f["enabled"] == "no" for f in s.js("show interface features pg0.8")["features"])
    assert s.stop() == 0
    out = [p[UDP].sport for p in rdpcap(str(tmp_path / "pg1.pcap")) if UDP in p]
    assert out == [1, 4, 5, 7]


def wait_tx(s, name, n, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if s.iface(name)["tx-packets"] >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{name}: fewer than {n} packets sent")


def test_device_input_and_output_arcs(sluiced_factory, tmp_path):
    """pcap trace captures frames as received (pcap-rx, first on the device-input arc) and as
    sent (pcap-tx, on the interface-output arc); noisy is a device-input feature after it."""
    lines = pg_ifaces(3, tmp_path)
    lines += ["set interface ip address pg0 10.10.1.10/24",
              "set interface ip address pg1 10.10.2.10/24",
              f"ip neighbor pg1 10.10.2.1 {NH}",
              "ip route add 48.0.0.0/8 via 10.10.2.1"]
    s = sluiced_factory([], lines)
    arcs = {(a["arc"], a["feature"]): a for a in s.js("show graph")["arcs"]}
    assert set(arcs[("device-input", "noisy")]["start"].split(",")) == {"port-rx", "pg-input", "ethernet-input", "pppoe-input",
                                                                        "device-input-features"}
    assert arcs[("device-input", "noisy")]["end"].startswith("ethernet-input,l2-io")
    assert arcs[("interface-output", "pcap-tx")]["start"] == "interface-output-features"
    assert arcs[("interface-output", "pcap-tx")]["end"] == "interface-tx"

    # receive side: the frames exactly as they came in, up to max
    sent = [pkt("10.10.1.2", i) for i in range(3)]
    s.cli(f"pcap trace rx intfc pg0 file {tmp_path}/rx.pcap max 2")
    st = s.js("pcap trace status")["pcap"]
    assert st == [{"interface": "pg0", "rx": "yes", "tx": "no", "file": f"{tmp_path}/rx.pcap",
                   "packets": 0, "max": 2}]
    feats = {f["feature"]: f for f in s.js("show interface features pg0")["features"]}
    assert feats["pcap-rx"]["enabled"] == "yes" and feats["pcap-rx"]["arc"] == "device-input"
    send(s, tmp_path, "a", "pg0", sent)
    wait_tx(s, "pg1", 3)
    assert s.js("pcap trace status")["pcap"][0]["packets"] == 2
    assert "wrote 2 packets" in s.cli("pcap trace off")
    assert [bytes(p) for p in rdpcap(str(tmp_path / "rx.pcap"))] == [bytes(p) for p in sent[:2]]
    assert s.js("pcap trace status")["pcap"] == []
    assert all(f["enabled"] == "no" for f in s.js("show interface features pg0")["features"])

    # send side: the routed frames as pg1 sends them
    s.cli(f"pcap trace tx intfc pg1 file {tmp_path}/tx.pcap")
    s.cli("trace add pg-input 2")
    send(s, tmp_path, "b", "pg0", [pkt("10.10.1.2", 10), pkt("10.10.1.2", 11)])
    wait_tx(s, "pg1", 5)
    nodes = [(r["node"], r["next"]) for r in s.js("show trace")["trace"]]
    # straight to the interface's first output feature, and from it to the interface's
    # output: neither interface-output-features nor interface-tx is a hop on the way
    assert ("ip4-rewrite", "pcap-tx") in nodes
    assert ("pcap-tx", "pg-output") in nodes
    assert not {"interface-output-features", "interface-tx"} & {n for n, _ in nodes}
    s.cli("clear trace")
    assert "wrote 2 packets" in s.cli("pcap trace off")
    cap = rdpcap(str(tmp_path / "tx.pcap"))
    assert [(p[Ether].dst, p[IP].ttl, p[UDP].sport) for p in cap] == [(NH, 63, 10), (NH, 63, 11)]

    # both features on pg0's device-input arc: pcap-rx, then noisy, then its mode
    s.cli(f"pcap trace rx tx intfc pg0 file {tmp_path}/both.pcap")
    s.cli("set interface noisy pg0 lookup-memory 1 reads 2")
    feats = {f["feature"]: f for f in s.js("show interface features pg0")["features"]}
    assert int(feats["pcap-rx"]["order"]) < int(feats["noisy"]["order"])
    assert feats["noisy"]["enabled"] == "yes" and feats["pcap-tx"]["enabled"] == "yes"
    s.cli("trace add pg-input 1")
    send(s, tmp_path, "c", "pg0", [pkt("10.10.1.2", 20)])
    wait_tx(s, "pg1", 6)
    nodes = [(r["node"], r["next"]) for r in s.js("show trace")["trace"]]
    assert nodes[:3] == [("pg-input", "pcap-rx"), ("pcap-rx", "noisy"), ("noisy", "ethernet-input")]
    s.cli("clear trace")
    s.check_refused({
        f"pcap trace rx intfc pg1 file {tmp_path}/x.pcap": "a capture is on",
        "set interface feature pg1 pcap-rx arc device-input": "turned on by pcap trace",
        "set interface feature pg1 noisy arc device-input": "noisy needs its settings first",
        "set interface feature pg1 pcap-tx arc ip4-unicast": "no feature 'pcap-tx' on arc ip4-unicast",
    })
    # turning noisy off through the arc drops its settings too
    s.cli("set interface feature pg0 noisy arc device-input disable")
    assert s.js("show noisy")["noisy"] == []
    # the capture ends with its last feature
    s.cli("set interface feature pg0 pcap-rx arc device-input disable")
    assert s.js("pcap trace status")["pcap"] != []
    s.cli("set interface feature pg0 pcap-tx arc interface-output disable")
    assert s.js("pcap trace status")["pcap"] == []
    assert len(rdpcap(str(tmp_path / "both.pcap"))) == 1

    s.check_refused({
        "pcap trace off": "no capture is on",
        f"pcap trace intfc pg0 file {tmp_path}/x.pcap": "usage: pcap trace",
        f"pcap trace rx intfc pg9 file {tmp_path}/x.pcap": "unknown interface 'pg9'",
        f"pcap trace rx intfc pg0 file {tmp_path}/no/such/dir.pcap": "cannot create",
        f"pcap trace rx intfc pg0 file {tmp_path}/x.pcap max 0": "max",
    })
    # an interface being captured can be deleted: the capture ends, its file complete
    s.cli(f"pcap trace rx tx intfc pg2 file {tmp_path}/pg2cap.pcap")
    s.cli("delete packet-generator interface pg2")
    assert s.js("pcap trace status")["pcap"] == []
    assert len(rdpcap(str(tmp_path / "pg2cap.pcap"))) == 0
    assert s.stop() == 0


def test_loopback_input_acl(sluiced_factory, tmp_path):
    """What a loopback sends it receives, through its own input features: a packet routed
    into loop0 (its next hop answers with loop0's own MAC) comes back in on loop0 and goes
    round until its TTL runs out (ICMP time exceeded to the sender); with an input ACL on
    loop0 that permits it not, it is denied as it comes back in the first time."""
    from scapy.all import ICMP
    lo = "02:fe:10:00:00:01"
    lines = pg_ifaces(1, tmp_path) + [
        "set interface ip address pg0 10.10.1.10/24", f"ip neighbor pg0 10.10.1.2 {H0}",
        f"create loopback interface mac {lo}", "set interface state loop0 up",
        "set interface ip address loop0 10.10.9.1/24", f"ip neighbor loop0 10.10.9.2 {lo}",
        "ip route add 49.0.0.0/8 via 10.10.9.2",
        "set acl-plugin acl permit src 0.0.0.0/0 dst 1.1.1.1/32"]
    s = sluiced_factory([], lines)
    looped = Ether(src=H0, dst=PG0) / IP(src="10.10.1.2", dst="49.0.0.1", ttl=4) / UDP(sport=5, dport=9)
    send(s, tmp_path, "a", "pg0", [looped])
    time.sleep(0.3)
    rx0 = s.iface("loop0")["rx-packets"]
    s.cli("set acl-plugin interface loop0 input acl 0")
    send(s, tmp_path, "b", "pg0", [looped])
    time.sleep(0.3)
    errs = s.errors()
    rx1 = s.iface("loop0")["rx-packets"]
    assert s.stop() == 0
    assert rx0 == 3 and rx1 == rx0 + 1  # TTL 4: three times round; with the ACL, once
    assert errs[("acl-input", "acl no rule matched (default deny)")] == 1
    icmp = [p for p in rdpcap(str(tmp_path / "pg0.pcap")) if ICMP in p]
    assert [(p[ICMP].type, p[IP].dst) for p in icmp] == [(11, "10.10.1.2")]
