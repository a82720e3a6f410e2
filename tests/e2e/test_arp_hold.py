# SPDX-License-Identifier: BSD-3-Clause
"""Packets to a next hop that is not resolved yet wait for its ARP reply (4 per next hop, the
rest dropped under a named reason) and leave in the order they came once it answers."""
from scapy.all import ARP, IP, UDP, Ether, Raw, rdpcap, wrpcap

from test_pg import wait_stream

PG0, PG1 = "02:fe:00:00:00:00", "02:fe:00:00:00:01"
H1 = "02:00:00:00:00:0a"
NH = "02:00:00:00:00:77"


def send(s, tmp, name, port, pkts):
    wrpcap(str(tmp / f"{name}.pcap"), pkts)
    s.cli(f"packet-generator new {{ name {name} limit {len(pkts)} interface {port} "
          f"pcap {tmp}/{name}.pcap }}")
    s.cli(f"packet-generator enable-stream {name}")
    wait_stream(s, name, len(pkts))


def pg_ifaces(n, tmp_path=None):
    """CLI lines for pg0..pgN-1, up, each writing what it sends to tmp_path/pgI.pcap if given."""
    lines = []
    for i in range(n):
        pcap = f" pcap {tmp_path}/pg{i}.pcap" if tmp_path else ""
        lines += [f"create packet-generator interface pg{i}{pcap}", f"set interface state pg{i} up"]
    return lines


def test_held_until_arp_reply(sluiced_factory, tmp_path):
    lines = pg_ifaces(2, tmp_path)
    lines += ["set interface ip address pg0 10.10.1.10/24",
              "set interface ip address pg1 10.10.2.10/24",
              "ip route add 48.0.0.0/8 via 10.10.2.1"]
    s = sluiced_factory([], lines)
    # six packets: four to a connected host (glean), then two via the route's next hop;
    # the glean host's queue takes four, the next hop's two
    to_host = [Ether(src=H1, dst=PG0) / IP(src="10.10.1.2", dst="10.10.2.7", ttl=9) /
               UDP(sport=i, dport=9) / Raw(b"h" * 8) for i in range(6)]
    via_nh = [Ether(src=H1, dst=PG0) / IP(src="10.10.1.2", dst="48.0.0.1", ttl=1 + i) /
              UDP(sport=100 + i, dport=9) for i in range(2)]
    send(s, tmp_path, "a", "pg0", to_host + via_nh)
    errs = s.errors()
    assert errs[("arp (main)", "packets held while resolving a next hop (not a drop)")] == 6
    assert errs[("arp (main)", "packets dropped while resolving a next hop (4 held already)")] == 2
    # the answers: the host, then the next hop
    send(s, tmp_path, "b", "pg1", [
        Ether(src=NH, dst=PG1) / ARP(op=2, hwsrc=NH, psrc="10.10.2.7", hwdst=PG1, pdst="10.10.2.10"),
        Ether(src=NH, dst=PG1) / ARP(op=2, hwsrc=NH, psrc="10.10.2.1", hwdst=PG1, pdst="10.10.2.10")])
    s.wait_rx("pg1", 2)
    errs = s.errors()
    # the packet with TTL 1 was held, and is not forwarded (RFC 1812 5.3.1)
    assert errs[("arp (main)", "held packets dropped: TTL expired")] == 1
    assert s.stop() == 0
    out = [p for p in rdpcap(str(tmp_path / "pg1.pcap")) if UDP in p]
    assert [p[UDP].sport for p in out] == [0, 1, 2, 3, 101]
    for p in out:
        assert p[Ether].dst == NH and p[Ether].src == PG1
        assert p[IP].ttl == (8 if p[UDP].sport < 100 else 1)
        q = IP(bytes(p[IP]))
        del q.chksum
        assert IP(bytes(q)).chksum == p[IP].chksum
    arps = [p for p in rdpcap(str(tmp_path / "pg1.pcap")) if ARP in p]
    assert {a[ARP].pdst for a in arps} == {"10.10.2.7", "10.10.2.1"}
