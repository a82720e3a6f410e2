# SPDX-License-Identifier: BSD-3-Clause
"""Policers (rte_meter) on pcap ports: each colour's count against RFC 2697, 2698 and 4115's
arithmetic on a burst far shorter than a token's refill (the buckets start full: the first
CB bytes conform, the next EB exceed, the rest violate), the actions (transmit, drop by name,
DSCP marked with the IPv4 checksum right), input and output, colour-aware metering (each
frame's colour against the RFCs' colour-aware arithmetic, computed here), and the CLI's
refusals."""
import random
from pathlib import Path

import pytest

from scapy.all import IP, UDP, Ether, Raw, raw

from conftest import MAC0, PEER0, pcap_ports, pcap_outs

ROUTER = (Path(__file__).parents[1] / "common/router.cli").read_text().splitlines()
N = 30


def frames(dscps=None):
    # 100-byte frames (without FCS): 14 Ethernet + 20 IPv4 + 8 UDP + 58
    dscps = dscps or [0] * N
    return [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="48.0.0.1", tos=dscps[i] << 2) /
            UDP(sport=i, dport=9) / Raw(b"p" * 58) for i in range(N)]


# cir 8 kbps is 1,000 bytes/s: 30 frames arrive in well under a millisecond, less than one
# byte of refill, so the counts are exact
CASES = {
    "1r3c": "type 1r3c cir 8 cb 1000 eb 500",
    "2r3c-2698": "type 2r3c-2698 cir 8 cb 1000 eir 16 eb 1500",  # peak bucket 1500: 10 + 5
    "2r3c-4115": "type 2r3c-4115 cir 8 cb 1000 eir 8 eb 500",
}


def run(factory, tmp_path, cli, dscps=None):
    """N frames routed from port0 to port1 with the policer lines: the policer, the errors,
    what port1 sent."""
    s = factory(pcap_ports(tmp_path, frames(dscps), []), ROUTER + cli)
    s.wait_rx("port0", N)
    pol = s.js("show policer")["policers"][0]
    errs = s.errors()
    assert s.stop() == 0
    return pol, errs, pcap_outs(tmp_path, 2)[1]


@pytest.mark.parametrize("kind", list(CASES))
def test_policer_colours_input(sluiced_factory, tmp_path, kind):
    pol, errs, out = run(sluiced_factory, tmp_path, [
        f"policer add name p1 {CASES[kind]} conform-action transmit "
        "exceed-action mark-and-transmit AF11 violate-action drop",
        "policer input name p1 port0"])
    assert (pol["conform-packets"], pol["exceed-packets"], pol["violate-packets"]) == (10, 5, 15), pol
    assert (pol["conform-bytes"], pol["exceed-bytes"], pol["violate-bytes"]) == (1000, 500, 1500)
    assert pol["type"] == kind and pol["applied"] == 1
    assert errs == {("policer-input", "policer violate-action drop"): 15}
    assert [o[UDP].sport for o in out] == list(range(15))  # in order, the first 15
    for o in out:
        ip = o[IP]
        assert ip.tos == (0 if o[UDP].sport < 10 else 10 << 2)  # AF11 is DSCP 10
        fixed = IP(raw(ip))
        del fixed.chksum
        assert IP(raw(fixed)).chksum == ip.chksum  # the checksum follows the mark


# 600 frames: more than two vectors of 256, with each bucket's last frame in another vector
# than its first (conform 0-299, exceed 300-399, violate 400-599)
CASES_LONG = {
    "1r3c": "type 1r3c cir 8 cb 30000 eb 10000",
    "2r3c-2698": "type 2r3c-2698 cir 8 cb 30000 eir 16 eb 40000",
    "2r3c-4115": "type 2r3c-4115 cir 8 cb 30000 eir 8 eb 10000",
}


@pytest.mark.parametrize("kind", list(CASES_LONG))
def test_policer_buckets_across_vectors(sluiced_factory, tmp_path, kind):
    """The buckets a vector leaves are the next one's: policer-input keeps them in registers
    while a vector's run lasts and writes them back at its end."""
    n = 600
    fr = [Ether(dst=MAC0, src=PEER0) / IP(src="10.10.1.2", dst="48.0.0.1") /
          UDP(sport=i, dport=9) / Raw(b"p" * 58) for i in range(n)]
    s = sluiced_factory(pcap_ports(tmp_path, fr, []), ROUTER + [
        f"policer add name p1 {CASES_LONG[kind]} exceed-action transmit violate-action drop",
        "policer input name p1 port0"])
    s.wait_rx("port0", n)
    pol = s.js("show policer")["policers"][0]
    vectors = {r["node"]: r["vectors"] for r in s.js("show runtime")["runtime"]}
    assert s.stop() == 0
    assert vectors["policer-input"] >= 3, vectors  # it crossed vectors
    assert (pol["conform-packets"], pol["exceed-packets"], pol["violate-packets"]) == (300, 100, 200), pol
    assert (pol["conform-bytes"], pol["exceed-bytes"], pol["violate-bytes"]) == (30000, 10000, 20000)
    assert [o[UDP].sport for o in pcap_outs(tmp_path, 2)[1]] == list(range(400))


G, Y, R = "green", "yellow", "red"


def colour_aware(kind, pres, size=100, cb=1000, e=0):
    """Each frame's colour by RFC 2697 3 (1r3c), RFC 2698 3 (2r3c-2698: e is the peak bucket)
    or RFC 4115 2 (2r3c-4115) in colour-aware mode, buckets full at the start and no refill."""
    c, out = cb, []
    for pre in pres:
        if kind == "2r3c-2698":
            if pre == R or e < size:
                out.append(R)
            elif pre == Y or c < size:
                e -= size
                out.append(Y)
            else:
                c, e = c - size, e - size
                out.append(G)
        elif pre == G and c >= size:
            c -= size
            out.append(G)
        elif pre != R and e >= size:
            e -= size
            out.append(Y)
        else:
            out.append(R)
    return out


EB = {"1r3c": 500, "2r3c-2698": 1500, "2r3c-4115": 500}


@pytest.mark.parametrize("kind", list(CASES))
@pytest.mark.parametrize("mapping", ["rfc2597", "own"])
def test_policer_colour_aware(sluiced_factory, tmp_path, kind, mapping):
    """Frames arrive green, yellow or red by their DSCP (RFC 2597's AF12/AF13, or the map the
    policer names); every frame leaves with the colour the RFC's colour-aware arithmetic gives:
    conform sent as it came, exceed marked CS1, violate dropped."""
    rng = random.Random(kind + mapping)
    pres = [rng.choice([G, G, Y, R]) for _ in range(N)]
    dscp = {"rfc2597": {G: 0, Y: 12, R: 14}, "own": {G: 12, Y: 8, R: 46}}[mapping]
    opts = "color-aware" + (" yellow-dscp 8,16 red-dscp EF" if mapping == "own" else "")
    pol, errs, out = run(sluiced_factory, tmp_path, [
        f"policer add name ca {CASES[kind]} conform-action transmit "
        f"exceed-action mark-and-transmit CS1 violate-action drop {opts}",
        "policer input name ca port0"], [dscp[p] for p in pres])
    want = colour_aware(kind, pres, e=EB[kind])
    n = {c: want.count(c) for c in (G, Y, R)}
    assert n[Y] and n[R] and n[G]  # the draw crosses every colour
    assert (pol["conform-packets"], pol["exceed-packets"], pol["violate-packets"]) == (n[G], n[Y], n[R]), (pol, want)
    assert pol["color"] == "aware"
    assert (pol["yellow-dscp"], pol["red-dscp"]) == (("12,20,28,36", "14,22,30,38") if mapping == "rfc2597" else ("8,16", "46"))
    assert errs == {("policer-input", "policer violate-action drop"): n[R]}
    sent = [i for i in range(N) if want[i] != R]
    assert [o[UDP].sport for o in out] == sent
    for o in out:
        i = o[UDP].sport
        assert o[IP].tos >> 2 == (dscp[pres[i]] if want[i] == G else 8), (i, pres[i], want[i])


def test_policer_colour_aware_vlan_ipv6(sluiced_factory, tmp_path):
    """The colour on arrival is read after VLAN tags and from IPv6's traffic class: a 1r2c
    colour-aware policer (no excess bucket) drops every frame that comes yellow or red and
    passes the green ones while its bucket lasts."""
    from scapy.all import Dot1Q, IPv6
    fr = []
    for i in range(12):
        d = [0, 12, 14][i % 3]
        if i < 6:
            fr.append(Ether(dst=MAC0, src=PEER0) / Dot1Q(vlan=5) / IP(src="10.10.5.2", dst="48.0.0.1", tos=d << 2) /
                      UDP(sport=i, dport=9) / Raw(b"v" * 40))
        else:
            fr.append(Ether(dst=MAC0, src=PEER0) / IPv6(src="2001:db8::2", dst="2400::1", tc=d << 2) /
                      UDP(sport=i, dport=9) / Raw(b"v" * 40))
    s = sluiced_factory(pcap_ports(tmp_path, fr, []), ROUTER + [
        "policer add name ca type 1r2c cir 8 cb 100000 color-aware violate-action drop",
        "policer input name ca port0"])
    s.wait_rx("port0", 12)
    pol = s.js("show policer")["policers"][0]
    errs = s.errors()
    assert s.stop() == 0
    assert (pol["conform-packets"], pol["exceed-packets"], pol["violate-packets"]) == (4, 0, 8), pol
    assert errs[("policer-input", "policer violate-action drop")] == 8


def test_policer_1r2c_pps_output(sluiced_factory, tmp_path):
    """1r2c in packets: 7 packets conform, the rest violate, on what port1 sends."""
    pol, errs, out = run(sluiced_factory, tmp_path, ["policer add name out1 type 1r2c cir 1 cb 7 rate pps",
                                                     "policer output name out1 port1"])
    assert (pol["conform-packets"], pol["exceed-packets"], pol["violate-packets"]) == (7, 0, 23)
    assert pol["rate"] == "pps" and pol["exceed-action"] == "drop"
    assert errs == {("policer-output", "policer violate-action drop"): 23}
    assert len(out) == 7


def test_policer_cli(sluiced_factory, tmp_path):
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ROUTER)
    s.check_refused({
        "policer add name a cir 100": "name, cir and cb are required",
        "policer add name a cir 100 cb 1000 type 3r": "type '3r': 1r2c, 1r3c",
        "policer add name a cir 100 cb 1000 type 2r3c-2698": "type 2r3c-2698 needs eir and eb",
        "policer add name a cir 100 cb 1000 type 2r3c-2698 eir 50 eb 100": "eir (the peak rate) must be at least cir",
        "policer add name a cir 100 cb 1000 eir 200": "type 1r2c has one rate",
        "policer add name a cir 100 cb 1000 eb 200": "type 1r2c has one bucket",
        "policer add name a cir 100 cb 1000 rate bps": "rate 'bps': kbps or pps",
        "policer add name a cir 100 cb 1000 violate-action mark-and-transmit XX": "wants a DSCP",
        "policer add name a cir 100 cb 1000 exceed-action shout": "exceed-action 'shout'",
        "policer add name a cir -5 cb 1000": "cir must be a number",
        "policer add name a cir 100 cb 0": "rte_meter refused",
        "policer add name a cir 100 cb 1000 red-dscp 14": "are for a color-aware policer",
        "policer add name a cir 100 cb 1000 color-aware red-dscp 14,AF99": "red-dscp 'AF99': DSCPs",
        "policer add name a cir 100 cb 1000 color-aware red-dscp 14 yellow-dscp 12,14": "DSCP 14 is given a colour twice",
        "policer add name a cir 100 cb 1000 color-aware yellow-dscp": "'yellow-dscp' needs a value",
        "policer input name nosuch port0": "no policer nosuch",
        "policer del name nosuch": "no policer nosuch",
        "set interface feature port0 policer-input arc device-input": "turned on by policer input name N port0",
    })
    s.cli("policer add name a cir 100 cb 1000")
    s.cli("policer add name b cir 100 cb 1000 type 1r3c eb 10 exceed-action mark-and-transmit EF")
    s.cli("policer input name a port0")
    s.check_refused({
        "policer add name a cir 5 cb 100": "policer a exists",
        "policer input name b port0": "port0 has policer a on input",
        "policer input name a nosuch": "unknown interface 'nosuch'",
        "policer output name a port0 unapply": "policer a is not applied to port0 output",
        "policer del name a": "policer a is applied to 1 interface direction(s)",
    })
    p = {x["name"]: x for x in s.js("show policer")["policers"]}
    assert p["b"]["exceed-action"] == "mark-and-transmit 46" and p["a"]["applied"] == 1
    # off by the feature command as well as by unapply: either lets the policer go
    s.cli("set interface feature port0 policer-input arc device-input disable")
    assert s.js("show policer name a")["policers"][0]["applied"] == 0
    s.cli("policer input name a port0")
    s.cli("policer input name a port0 unapply")
    s.cli("policer del name a")
    s.cli("policer del name b")
    assert s.js("show policer")["policers"] == []
