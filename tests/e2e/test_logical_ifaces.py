# SPDX-License-Identifier: BSD-3-Clause
"""Logical interfaces: 10,000 VLAN sub-interfaces and 1,000 BVIs and loopbacks created and
deleted at run time while a stream flows between two other interfaces (no loss, no mbuf or
heap memory left behind, sampled sub-interfaces forwarding their own VLANs in between), and
deletion of interfaces in use refused with the reason."""
import time

from scapy.all import IP, UDP, Dot1AD, Dot1Q, Ether, Raw, rdpcap, wrpcap

from test_pg import wait_stream

H = "02:00:00:00:00:0a"
WORKER = "cpu { main-core 0 corelist-workers 1 }\n"


def sub_tags(i):
    """Sub-interface pg2.i: dot1q i, then dot1ad, then QinQ under dot1ad 1."""
    if i <= 4094:
        return f"dot1q {i}", Dot1Q(vlan=i)
    if i <= 8188:
        return f"dot1ad {i - 4094}", Dot1AD(vlan=i - 4094)
    return f"dot1ad 1 inner-dot1q {i - 8188}", Dot1AD(vlan=1) / Dot1Q(vlan=i - 8188)


def run_file(s, path, lines):
    path.write_text("\n".join(lines) + "\n")
    s.cli(f"exec {path}")


def test_churn_under_traffic(sluiced_factory, tmp_path):
    n_subs, n_virt = 10000, 500
    lines = []
    for i in range(4):
        pcap = f" pcap {tmp_path}/pg{i}.pcap" if i == 3 else ""
        lines += [f"create packet-generator interface pg{i}{pcap}", f"set interface state pg{i} up"]
    lines += ["set interface l2 xconnect pg0 pg1"]
    s = sluiced_factory([], lines, extra=WORKER)
    wrpcap(str(tmp_path / "flow.pcap"), [Ether(src=H, dst="02:00:00:00:00:77") /
                                         IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=2)])
    s.cli("show interface")
    mem0 = s.js("show memory")["memory"][0]["allocated"]
    bufs0 = s.js("show buffers")["buffers"][0]["in-use"]
    # no limit: the stream runs until the churn is over (nothing here is timed)
    s.cli(f"packet-generator new {{ name flow rate 200000 interface pg0 worker 0 "
          f"pcap {tmp_path}/flow.pcap }}")
    s.cli("packet-generator enable-stream flow")

    run_file(s, tmp_path / "create.cli",
             [f"create sub-interfaces pg2 {i} {sub_tags(i)[0]}" for i in range(1, n_subs + 1)] +
             [f"bvi create instance {i}" for i in range(n_virt)] +
             [f"create loopback interface instance {i}" for i in range(n_virt)])
    rows = s.js("show interface")["interfaces"]
    assert len(rows) == 4 + n_subs + 2 * n_virt
    idx = {r["name"]: r["idx"] for r in rows}
    assert len(set(idx.values())) == len(idx)
    assert {r["type"] for r in rows} == {"pg", "sub", "bvi", "loopback"}

    # a few of them forward their own VLAN to pg3, in between
    sample = [1, 4094, 4095, 8188, 8189, n_subs]
    for i in sample:
        s.cli(f"set interface state pg2.{i} up")
        s.cli(f"set interface l2 xconnect pg2.{i} pg3")
    frames = [Ether(src=H, dst="02:00:00:00:00:77") / sub_tags(i)[1] /
              IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=i, dport=9) / Raw(b"v" * 8)
              for i in sample]
    frames.append(Ether(src=H, dst="02:00:00:00:00:77") / Dot1Q(vlan=4094) / Dot1Q(vlan=7) /
                  IP() / UDP(sport=7))  # QinQ with 802.1Q outside: pg2.4094 takes it, one tag off
    wrpcap(str(tmp_path / "tagged.pcap"), frames)
    s.cli(f"packet-generator new {{ name tagged limit {len(frames)} interface pg2 "
          f"pcap {tmp_path}/tagged.pcap }}")
    s.cli("packet-generator enable-stream tagged")
    wait_stream(s, "tagged", len(frames))
    for i in sample:
        assert s.iface(f"pg2.{i}")["rx-packets"] == 1 + (i == 4094), i
    s.cli("packet-generator delete tagged")
    for i in sample:
        s.cli(f"set interface l3 pg2.{i}")

    run_file(s, tmp_path / "delete.cli",
             [f"delete sub-interface pg2.{i}" for i in range(1, n_subs + 1) if i != 4094] +
             [f"bvi delete bvi{i}" for i in range(n_virt)] +
             [f"delete loopback interface intfc loop{i}" for i in range(n_virt)] +
             ["delete sub-interface pg2.4094"])
    assert [r["name"] for r in s.js("show interface")["interfaces"]] == ["pg0", "pg1", "pg2", "pg3"]
    s.cli("packet-generator disable-stream flow")
    time.sleep(0.5)  # the last vectors drain
    flow = [st for st in s.js("show packet-generator")["streams"] if st["name"] == "flow"][0]
    n_pkts = flow["sent"]
    assert n_pkts > 100000  # it ran throughout
    assert s.iface("pg1")["tx-packets"] == n_pkts and s.iface("pg0")["rx-packets"] == n_pkts
    assert s.errors() == {}
    s.cli("packet-generator delete flow")
    assert s.js("show buffers")["buffers"][0]["in-use"] == bufs0
    assert s.js("show memory")["memory"][0]["allocated"] == mem0
    # a freed index is taken again (the last freed first), its counters from zero
    s.cli("create sub-interfaces pg2 7 dot1q 7")
    assert s.iface("pg2.7")["idx"] == idx["pg2.4094"]
    assert s.iface("pg2.7")["rx-packets"] == 0
    assert s.stop() == 0
    out = rdpcap(str(tmp_path / "pg3.pcap"))
    got = sorted(p[UDP].sport for p in out)
    assert got == sorted(sample + [7])
    for p in out:  # tags popped: each frame leaves pg3 untagged, the QinQ one keeps its inner tag
        assert Dot1AD not in p and (Dot1Q in p) == (p[UDP].sport == 7)


def test_delete_in_use_refused(sluiced_factory, tmp_path):
    lines = ["create packet-generator interface pg0", "create packet-generator interface pg1",
             "create bridge-domain 3", "create sub-interfaces pg0 10", "create sub-interfaces pg0 11",
             "create sub-interfaces pg0 12", "create sub-interfaces pg0 13", "bvi create",
             "create loopback interface", "set interface ip address pg0.10 10.0.10.1/24",
             "set interface l2 bridge pg0.11 3", "set interface l2 xconnect pg1 pg0.12",
             "set interface l2 bridge bvi0 3 bvi", "set interface ip address pg1 10.0.1.1/24",
             "ip route add 48.0.0.0/8 via 10.0.13.2 pg0.13",
             "set interface ip address loop0 10.9.9.9/32",
             "set interface noisy pg0 lookup-memory 1"]
    s = sluiced_factory([], lines)
    s.check_refused({
        "delete sub-interface pg0.10": "has address 10.0.10.1/24",
        "delete sub-interface pg0.11": "is in bridge-domain 3",
        "delete sub-interface pg0.12": "pg1 forwards to it",
        "delete sub-interface pg0.13": "a route via 10.0.13.2",
        "delete sub-interface pg0": "not a sub interface",
        "delete sub-interface pg9.1": "unknown interface",
        "bvi delete bvi0": "is in bridge-domain 3",
        "bvi delete pg0.10": "not a bvi interface",
        "delete loopback interface intfc loop0": "has address 10.9.9.9/32",
        "delete loopback interface loop0": "usage",
        "create sub-interfaces pg0.10 5": "cannot have sub-interfaces",
        "create sub-interfaces pg0 5000": "unless dot1q or dot1ad gives the VLAN",
    })
    # cleared references: each delete then works
    for cmd in ["set interface ip address del pg0.10 10.0.10.1/24", "delete sub-interface pg0.10",
                "set interface l3 pg0.11", "delete sub-interface pg0.11",
                "set interface l3 pg1", "delete sub-interface pg0.12",
                "ip route del 48.0.0.0/8 via 10.0.13.2", "delete sub-interface pg0.13",
                "set interface l3 bvi0", "bvi delete bvi0",
                "set interface ip address del loop0 10.9.9.9/32",
                "delete loopback interface intfc loop0"]:
        s.cli(cmd)
    assert [r["name"] for r in s.js("show interface")["interfaces"]] == ["pg0", "pg1"]
    assert s.js("show ip fib")["routes"] and not any(
        r["prefix"].startswith("10.0.10.") for r in s.js("show ip fib")["routes"])
