# SPDX-License-Identifier: BSD-3-Clause
"""Drop routes (VPP's `ip route add P via drop`), IPv4 and IPv6, on pcap ports: packets to a
drop route are dropped and counted by name, with no ICMP back, even under a default route
that would forward them; a longer route inside it still forwards; show ip fib lists them;
the CLI refuses mixing a drop route and next hops on one prefix, and count adds several."""
from scapy.all import ICMP, IP, UDP, Ether, ICMPv6DestUnreach, IPv6, Raw

from conftest import MAC0, MAC1, NH1, PEER0, pcap_ports, pcap_outs

CLI = ["set interface ip address port0 10.10.1.10/24", "set interface ip address port1 10.10.2.10/24",
       "set interface ip address port0 2001:db8:1::10/64", "set interface ip address port1 2001:db8:2::10/64",
       "set interface state port0 up", "set interface state port1 up",
       f"ip neighbor port1 10.10.2.1 {NH1}", f"ip neighbor port0 10.10.1.2 {PEER0}",
       f"ip neighbor port1 2001:db8:2::1 {NH1}", f"ip neighbor port0 2001:db8:1::2 {PEER0}",
       # a default route each, a drop route under it, a longer route inside the drop route
       "ip route add 0.0.0.0/0 via 10.10.2.1", "ip route add 50.0.0.0/8 via drop",
       "ip route add 50.1.0.0/16 via 10.10.2.1",
       "ip route add ::/0 via 2001:db8:2::1", "ip route add 2001:db8:100::/48 via drop",
       "ip route add 2001:db8:100:1::/64 via 2001:db8:2::1"]


def test_drop_routes(sluiced_factory, tmp_path):
    e = Ether(dst=MAC0, src=PEER0)
    v4 = lambda d: e / IP(src="10.10.1.2", dst=d) / UDP(sport=1, dport=2) / Raw(b"a" * 20)  # noqa: E731
    v6 = lambda d: e / IPv6(src="2001:db8:1::2", dst=d) / UDP(sport=1, dport=2) / Raw(b"b" * 20)  # noqa: E731
    in0 = [v4("50.2.3.4"), v4("50.1.2.3"), v4("51.0.0.1"), v4("50.9.9.9"),
           v6("2001:db8:100::5"), v6("2001:db8:100:1::5"), v6("2001:db8:200::5")]
    s = sluiced_factory(pcap_ports(tmp_path, in0, []), CLI)
    s.wait_rx("port0", len(in0))
    errs = s.errors()
    fib4 = {r["prefix"]: r for r in s.js("show ip fib")["routes"]}
    fib6 = {r["prefix"]: r for r in s.js("show ip6 fib")["routes"]}
    s.check_refused({
        "ip route add 50.0.0.0/8 via 10.10.2.1": "50.0.0.0/8: a drop route exists (delete it first)",
        "ip route add 50.1.0.0/16 via drop": "50.1.0.0/16: a route with next hops exists (delete it first)",
        "ip route add 2001:db8:100::/48 via 2001:db8:2::1": "a drop route exists",
        "ip route add 52.0.0.0/8 via drop weight 2": "a drop route has no weight",
        "ip route del 50.1.0.0/16 via drop": "50.1.0.0/16: not found",
        "ip route del 50.0.0.0/8 via 10.10.2.1": "50.0.0.0/8: not found",
        "ip route del 53.0.0.0/8 via drop": "53.0.0.0/8: not found",
    })
    s.cli("ip route add 50.0.0.0/8 via drop")  # again: nothing changes
    s.cli("ip route add count 4 60.0.0.0/24 via drop")
    s.cli("ip route add table 0 2001:db8:300::/48 via drop")
    after = {r["prefix"]: r for r in s.js("show ip fib")["routes"]}
    s.cli("ip route del 50.0.0.0/8 via drop")
    s.cli("ip route del count 4 60.0.0.0/24")
    s.cli("ip route del 2001:db8:300::/48")
    gone4 = {r["prefix"] for r in s.js("show ip fib")["routes"]}
    gone6 = {r["prefix"] for r in s.js("show ip6 fib")["routes"]}
    assert s.stop() == 0
    out0, out1 = pcap_outs(tmp_path, 2)
    # forwarded: the longer routes inside the drop routes, and what only the default covers
    assert sorted(x[IP].dst for x in out1 if IP in x) == ["50.1.2.3", "51.0.0.1"]
    assert sorted(x[IPv6].dst for x in out1 if IPv6 in x) == ["2001:db8:100:1::5", "2001:db8:200::5"]
    # dropped without an ICMP or ICMPv6 error back
    assert not [x for x in out0 if ICMP in x or ICMPv6DestUnreach in x]
    assert errs == {("ip-blackhole", "to a drop route (ip route ... via drop)"): 3}
    for fib, p in ((fib4, "50.0.0.0/8"), (fib6, "2001:db8:100::/48")):
        r = fib[p]
        assert (r["source"], r["type"], r["next-hop"], r["interface"]) == ("static", "blackhole", "", "")
    assert [p for p in after if p.startswith("60.0.")] == [f"60.0.{i}.0/24" for i in range(4)]
    assert after["60.0.3.0/24"]["type"] == "blackhole"
    assert "50.0.0.0/8" not in gone4 and not [p for p in gone4 if p.startswith("60.0.")]
    assert "2001:db8:300::/48" not in gone6 and "2001:db8:100::/48" in gone6
