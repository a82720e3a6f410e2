# SPDX-License-Identifier: BSD-3-Clause
"""IPoE subscribers: a real DHCP client (ISC dhclient, in a network namespace on a veth pair
attached to sluiced by af_packet) gets a lease from sluiced's DHCP server, its address,
router and DNS server configured by dhclient-script, and pings a host past sluiced (another
namespace) both ways through the session; a source address that is not its lease is dropped
by name; DHCPRELEASE ends the session."""
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import stop_process
from test_pppoe import NO_FAILURE, acct_records, free_udp_pair, freeradius, run_emulator  # noqa: F401 (a fixture)

TAG = f"ip{os.getpid() % 100000}"


def sh(cmd, check=True, timeout=60):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True, timeout=timeout)


def ns(n, cmd, **kw):
    return sh(f"ip netns exec {TAG}{n} {cmd}", **kw)


REFUSED = ("ipoe (main)", "DHCP client refused by RADIUS (reject, no answer, or an attribute it cannot have)")


def discover_refused(s, lf, pf):
    """dhclient's DISCOVER from c1, refused by RADIUS: waits until sluiced counts the refusal
    (FreeRADIUS answers at once: the fixture's reject_delay is 0), then 0.3 s more for an
    offer that must not come, and stops dhclient. Returns what dhclient printed."""
    n0 = s.errors().get(REFUSED, 0)
    p = subprocess.Popen(["ip", "netns", "exec", f"{TAG}c", "dhclient", "-v", "-1", "-d", "-lf", str(lf),
                          "-pf", str(pf), f"{TAG}c1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    try:
        end = time.time() + 15
        while s.errors().get(REFUSED, 0) == n0 and time.time() < end:
            time.sleep(0.05)
        assert s.errors().get(REFUSED, 0) > n0, s.cli("show errors")
        time.sleep(0.3)
    finally:
        stop_process(p)
    return p.stdout.read()


@pytest.fixture
def hosts(tmp_path):
    """Namespace c (the subscriber: c1, no address) on port0; namespace b (10.10.2.2/24 via
    10.10.2.10) on port1. c's /etc/resolv.conf is its own (ip netns exec binds
    /etc/netns/NAME/resolv.conf), so dhclient-script writes there, not the host's."""
    etc = Path(f"/etc/netns/{TAG}c")
    try:
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "resolv.conf").write_text("")
        for n in "cb":
            sh(f"ip netns add {TAG}{n}")
            sh(f"ip link add {TAG}{n}0 type veth peer name {TAG}{n}1")
            sh(f"ip link set {TAG}{n}1 netns {TAG}{n}")
            sh(f"ethtool -K {TAG}{n}0 tx off rx off tso off gso off gro off", check=False)
            ns(n, f"ethtool -K {TAG}{n}1 tx off rx off tso off gso off gro off", check=False)
            sh(f"ip link set {TAG}{n}0 up")
            ns(n, f"ip link set {TAG}{n}1 up")
            ns(n, "ip link set lo up")
        ns("b", f"ip addr add 10.10.2.2/24 dev {TAG}b1")
        ns("b", "ip route add default via 10.10.2.10")
        yield etc / "resolv.conf"
    finally:
        pid = tmp_path / "dhclient.pid"
        if pid.exists() and pid.read_text().strip():
            sh(f"kill {pid.read_text().strip()}", check=False)
        for n in "cb":
            sh(f"ip link del {TAG}{n}0", check=False)
            sh(f"ip netns del {TAG}{n}", check=False)
        sh(f"rm -rf {etc}", check=False)


def test_ipoe_dhcp_client(hosts, sluiced_factory, tmp_path):
    if not os.path.exists("/sbin/dhclient"):
        pytest.skip("isc-dhcp-client is not installed (scripts/setup.sh installs it)")
    resolv = hosts
    devs = [f"net_af_packet0,iface={TAG}c0 {{ name port0 }}", f"net_af_packet1,iface={TAG}b0 {{ name port1 }}"]
    s = sluiced_factory(devs, [
        "set interface state port0 up", "set interface state port1 up",
        "set interface ip address port0 100.65.0.1/24", "set interface ip address port1 10.10.2.10/24",
        "set ipoe pool 100.65.0.10 100.65.0.20", "set ipoe lease 120", "set ipoe dns 9.9.9.9",
        "set ipoe access port0"])
    lf, pf = tmp_path / "dhclient.leases", tmp_path / "dhclient.pid"
    r = ns("c", f"timeout 30 dhclient -v -1 -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    addr = ns("c", f"ip -4 -o addr show dev {TAG}c1").stdout
    assert "inet 100.65.0.10/24" in addr, addr
    assert "default via 100.65.0.1" in ns("c", "ip route").stdout
    assert "nameserver 9.9.9.9" in resolv.read_text()
    lease = s.js("show ipoe leases")["ipoe-leases"]
    assert [(x["address"], x["state"], x["access"]) for x in lease] == [("100.65.0.10", "bound", "port0")]
    ifname = lease[0]["interface"]
    # through the session both ways, with the kernel on both sides
    r = ns("c", "ping -c 3 -i 0.2 -W 2 10.10.2.2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    r = ns("b", "ping -c 2 -i 0.2 -W 2 100.65.0.10", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    ifc = {i["name"]: i for i in s.js("show interface")["interfaces"]}
    assert ifc[ifname]["rx-packets"] >= 5 and ifc[ifname]["tx-packets"] >= 5, ifc[ifname]
    sub = [x for x in s.js("show subscribers")["subscribers"] if x["type"] == "ipoe"]
    assert [(x["interface"], x["address"], x["state"]) for x in sub] == [(ifname, "100.65.0.10", "up")]
    # another source address from the same MAC: not its lease, dropped by name
    ns("c", f"ip addr add 100.65.0.99/24 dev {TAG}c1")
    r = ns("c", "ping -c 1 -W 1 -I 100.65.0.99 10.10.2.2", check=False)
    assert r.returncode != 0
    assert s.errors()[("ipoe-input", "IPv4 source not the session's lease")] >= 1
    # DHCPRELEASE: the lease, its route and its interface go
    r = ns("c", f"timeout 20 dhclient -v -r -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    time.sleep(0.5)
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert ifname not in {i["name"] for i in s.js("show interface")["interfaces"]}
    assert s.stop() == 0


def test_ipoe_radius(hosts, sluiced_factory, tmp_path, freeradius):
    """IPoE clients authorized by a real FreeRADIUS (set ipoe auth radius): dhclient from MAC
    02:aa:00:00:00:01 is accepted with Framed-IP-Address 100.65.0.77 (not the pool's), Filter-Id
    acl9 (ICMP to 10.10.2.2 only) on its session's input, and ERX-Qos-Profile-Name gold (a pipe
    of port0's scheduler for what it is sent), and pings past sluiced; UDP is denied by the
    ACL; FreeRADIUS logs the Access-Request (User-Name the MAC, NAS-Port-Type Ethernet,
    NAS-Port-Id port0) and accounting Start and, after DHCPRELEASE, Stop with the session's
    counters. 02:aa:00:00:00:04 gets its address from Framed-Pool biz, and its lease ends after
    its Idle-Timeout (2 s) with no packet. From 02:aa:00:00:00:02 (accepted, but its Filter-Id
    names no ACL) and from a MAC the server does not know (rejected) no lease is given, counted
    by name."""
    if not os.path.exists("/sbin/dhclient"):
        pytest.skip("isc-dhcp-client is not installed (scripts/setup.sh installs it)")
    port, radlog, _ = freeradius
    das = free_udp_pair()
    devs = [f"net_af_packet0,iface={TAG}c0 {{ name port0 }}", f"net_af_packet1,iface={TAG}b0 {{ name port1 }}"]
    s = sluiced_factory(devs, [
        "set interface state port0 up", "set interface state port1 up",
        "set interface ip address port0 100.65.0.1/24", "set interface ip address port1 10.10.2.10/24",
        "set ipoe pool 100.65.0.10 100.65.0.20", "set ipoe lease 120",
        "set ipoe pool 100.65.0.100 100.65.0.110 name biz",
        f"set radius server 127.0.0.1 secret testing123 auth-port {port} acct-port {port + 1} "
        f"das-port {das}", "set pppoe acct-interim 1",
        "set acl-plugin acl permit src 100.65.0.77/32 dst 10.10.2.2/32 proto 1, "
        "permit proto 17 sport 68 dport 67, deny tag acl9", "set acl-plugin acl permit tag open",
        "qos profile basic rate 100m", "qos profile gold rate 2m", "qos profile silver rate 1m",
        "set interface qos port0 rate 100m profile basic pipes 16 pipe-from none",
        "set ipoe auth radius password ipoe-pw", "set ipoe access port0"])
    lf, pf = tmp_path / "dhclient.leases", tmp_path / "dhclient.pid"
    ns("c", f"ip link set {TAG}c1 address 02:aa:00:00:00:01")
    r = ns("c", f"timeout 30 dhclient -v -1 -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "inet 100.65.0.77/24" in ns("c", f"ip -4 -o addr show dev {TAG}c1").stdout
    sub = s.js("show subscribers detail")["subscribers"]
    assert [(x["type"], x["address"], x["acl"], x["qos-profile"], x["session-timeout"], x["client-mac"])
            for x in sub] == [("ipoe", "100.65.0.77", "acl9", "gold", 3600, "02:aa:00:00:00:01")], sub
    assert sub[0]["acct-session-id"].startswith("ipoe-")
    r = ns("c", "ping -c 3 -i 0.2 -W 2 10.10.2.2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    ns("c", "bash -c 'echo x > /dev/udp/10.10.2.2/9'", check=False)
    time.sleep(0.3)
    assert s.errors().get(("acl-input", "acl deny")) == 1, (s.cli("show errors"), s.cli("show interface"), s.cli("show acl-plugin interface"))
    # what port0 sent the client went through its pipe, with its profile
    pipe = s.js("show qos port0 subport 0 pipe 1")["qos-queues"]
    assert {q["profile"] for q in pipe} == {"gold"} and sum(q["packets"] for q in pipe) >= 3, pipe

    def radclient(kind, attrs):
        r = subprocess.run(["radclient", "-x", "-r", "1", "-t", "3", f"127.0.0.1:{das}", kind, "testing123"],
                           input=attrs, capture_output=True, text=True)
        return r.stdout + r.stderr
    # RFC 5176: a CoA by MAC (another ACL, another profile on the same pipe), then a
    # Disconnect by address; the client is not told (IPoE has no way), its lease is gone
    out = radclient("coa", 'User-Name = "02:aa:00:00:00:01", Filter-Id = "open", ERX-Qos-Profile-Name = "silver"\n')
    assert "Received CoA-ACK" in out, out
    sub = s.js("show subscribers detail")["subscribers"][0]
    assert (sub["acl"], sub["qos-profile"]) == ("open", "silver"), sub
    assert {q["profile"] for q in s.js("show qos port0 subport 0 pipe 1")["qos-queues"]} == {"silver"}
    ns("c", "bash -c 'echo x > /dev/udp/10.10.2.2/9'", check=False)
    time.sleep(1.5)  # and an Interim-Update goes out
    assert s.errors()[("acl-input", "acl deny")] == 1
    out = radclient("disconnect", 'Framed-IP-Address = 100.65.0.77\n')
    assert "Received Disconnect-ACK" in out, out
    out = radclient("disconnect", 'User-Name = "02:aa:00:00:00:09"\n')
    assert "Received Disconnect-NAK" in out, out
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert {q["profile"] for q in s.js("show qos port0 subport 0 pipe 1")["qos-queues"]} == {"basic"}
    r = ns("c", f"timeout 20 dhclient -v -r -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    time.sleep(0.5)
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert {q["profile"] for q in s.js("show qos port0 subport 0 pipe 1")["qos-queues"]} == {"basic"}
    # Framed-Pool: 02:aa:00:00:00:04's address from pool biz
    ns("c", f"ip link set {TAG}c1 address 02:aa:00:00:00:04")
    r = ns("c", f"timeout 30 dhclient -v -1 -lf {tmp_path / 'd4.leases'} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "inet 100.65.0.100/24" in ns("c", f"ip -4 -o addr show dev {TAG}c1").stdout
    # its Idle-Timeout of 2 s: with no packet either way the lease ends (the Stop below)
    end = time.time() + 10
    while s.js("show ipoe leases")["ipoe-leases"] and time.time() < end:
        time.sleep(0.2)
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    r = ns("c", f"timeout 20 dhclient -v -r -lf {tmp_path / 'd4.leases'} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    # refused: a Filter-Id naming no ACL, and a MAC the server rejects; one DISCOVER cycle each
    n0 = s.errors().get(REFUSED, 0)
    for mac in ("02:aa:00:00:00:02", "02:aa:00:00:00:03"):
        ns("c", f"ip link set {TAG}c1 address {mac}")
        out = discover_refused(s, lf, pf)
        assert "DHCPDISCOVER" in out and "DHCPOFFER" not in out, out
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert s.errors()[REFUSED] >= n0 + 2
    rad = s.js("show radius")["radius"][0]
    assert rad["rejects"] >= 1 and rad["accepts"] >= 3, rad
    text = radlog()
    assert 'User-Name = "02:aa:00:00:00:01"' in text and "NAS-Port-Type = Ethernet" in text
    assert 'NAS-Port-Id = "port0"' in text and "Framed-Protocol" not in text
    recs = acct_records(text)
    start = next(r for r in recs if r.get("Acct-Status-Type") == "Start")
    stop = next(r for r in recs if r.get("Acct-Status-Type") == "Stop")
    assert (start["User-Name"], start["Framed-IP-Address"]) == ("02:aa:00:00:00:01", "100.65.0.77")
    assert stop["Acct-Session-Id"] == start["Acct-Session-Id"] and stop["Acct-Terminate-Cause"] == "Admin-Reset"
    assert any(r.get("Acct-Status-Type") == "Interim-Update" and r.get("Acct-Session-Id") == start["Acct-Session-Id"]
               for r in recs)
    # in: the pings and the UDP the ACL denied (counted as received on the session); out: the
    # echo replies
    assert int(stop["Acct-Input-Packets"]) >= 4 and int(stop["Acct-Output-Packets"]) >= 3, stop
    idle = [r for r in recs if r.get("Acct-Status-Type") == "Stop" and r.get("User-Name") == "02:aa:00:00:00:04"]
    assert [r["Acct-Terminate-Cause"] for r in idle] == ["Idle-Timeout"], idle
    assert s.stop() == 0


def test_ipoe_cli(sluiced_factory, tmp_path):
    from conftest import pcap_ports
    s = sluiced_factory(pcap_ports(tmp_path, [], []), ["create loopback interface"])
    s.check_refused({
        "set ipoe access nosuch": "unknown interface 'nosuch'",
        "set ipoe access loop0": "loop0 is a loopback",
        "set ipoe pool 10.0.0.9 10.0.0.1": "the pool is FIRST to LAST",
        "set ipoe lease 5": "lease must be a number from 10",
        "set ipoe dns": "usage: set ipoe dns",
        "clear ipoe lease 10.0.0.1": "no IPoE lease of 10.0.0.1",
        "set interface feature port0 ipoe-input arc device-input": "turned on by set ipoe access port0",
        "set ipoe auth radius password x": "no RADIUS server",
        "set ipoe auth radius": "usage: set ipoe auth radius password P",
        "set ipoe auth radius password " + "x" * 64: "at most 63 characters",
    })
    s.cli("set ipoe auth none")
    s.cli("set ipoe access port0")
    s.cli("set ipoe access port0 disable")
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert s.stop() == 0


KEA = """{"Dhcp4": {
  "interfaces-config": {"interfaces": ["%s"], "dhcp-socket-type": "udp"},
  "lease-database": {"type": "memfile", "persist": false},
  "valid-lifetime": 120,
  "subnet4": [{"id": 1, "subnet": "100.65.0.0/24", "pools": [{"pool": "%s"}],
               "option-data": [{"name": "routers", "data": "100.65.0.1"},
                               {"name": "domain-name-servers", "data": "9.9.9.9"}]}],
  "loggers": [{"name": "kea-dhcp4", "output_options": [{"output": "stdout"}],
               "severity": "DEBUG", "debuglevel": 55}]
}}
"""


@pytest.fixture
def kea(hosts, tmp_path, request):
    """A real Kea (kea-dhcp4) in namespace b, serving 100.65.0.50-60 to relayed clients (or
    the pool of the test's kea_pool mark); yields its log file."""
    import shutil
    if not shutil.which("kea-dhcp4") or not os.path.exists("/sbin/dhclient"):
        pytest.skip("kea-dhcp4-server or isc-dhcp-client is not installed (scripts/setup.sh installs them)")
    mark = request.node.get_closest_marker("kea_pool")
    cfg = tmp_path / "kea.json"
    cfg.write_text(KEA % (f"{TAG}b1", mark.args[0] if mark else "100.65.0.50 - 100.65.0.60"))
    log = tmp_path / "kea.log"
    out = open(log, "w")
    env = dict(os.environ, KEA_PIDFILE_DIR=str(tmp_path), KEA_LOCKFILE_DIR=str(tmp_path))
    proc = subprocess.Popen(["ip", "netns", "exec", f"{TAG}b", "kea-dhcp4", "-c", str(cfg)],
                            stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        end = time.time() + 20
        while "DHCP4_STARTED" not in log.read_text():
            assert proc.poll() is None and time.time() < end, log.read_text()[-3000:]
            time.sleep(0.1)
        yield log
    finally:
        stop_process(proc, out)


RELAY = ["set interface state port0 up", "set interface state port1 up",
         "set interface ip address port0 100.65.0.1/24", "set interface ip address port1 10.10.2.10/24",
         "set ipoe dhcp-relay server 10.10.2.2", "set ipoe access port0"]
DEVS = [f"net_af_packet0,iface={TAG}c0 {{ name port0 }}", f"net_af_packet1,iface={TAG}b0 {{ name port1 }}"]


def test_ipoe_dhcp_relay_to_kea(hosts, kea, sluiced_factory, tmp_path):
    """Relay mode: sluiced relays dhclient's DHCP to a real Kea (kea-dhcp4, in the namespace
    past sluiced) with giaddr and option 82 (circuit id port0, remote id the client's MAC);
    Kea's ACK, option 82 taken out, makes the session; the client pings Kea's host."""
    resolv, log = hosts, kea
    s = sluiced_factory(DEVS, RELAY)
    lf, pf = tmp_path / "dhclient.leases", tmp_path / "dhclient.pid"
    r = ns("c", f"timeout 40 dhclient -v -1 -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr + log.read_text()[-3000:]
    # Kea's host was not resolved yet: the first DISCOVER waited for its ARP reply, held as a
    # routed packet is, and was not sent again
    assert (r.stdout + r.stderr).count("DHCPDISCOVER") == 1, r.stdout + r.stderr
    assert s.errors()[("arp (main)", "packets held while resolving a next hop (not a drop)")] == 1
    assert s.js("show ipoe dhcp-relay")["dhcp-relay"][0]["dropped"] == 0
    assert "inet 100.65.0.50/24" in ns("c", f"ip -4 -o addr show dev {TAG}c1").stdout
    assert "nameserver 9.9.9.9" in resolv.read_text()
    lease = s.js("show ipoe leases")["ipoe-leases"]
    assert [(x["address"], x["state"]) for x in lease] == [("100.65.0.50", "bound")]
    r = ns("c", "ping -c 2 -i 0.2 -W 2 10.10.2.2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    rel = s.js("show ipoe dhcp-relay")["dhcp-relay"][0]
    assert rel["server"] == "10.10.2.2" and rel["to-server"] >= 2 and rel["to-clients"] >= 2, rel
    # Kea saw the relay's giaddr and option 82: circuit id "port0" (70:6f:72:74:30)
    text = log.read_text().lower()
    assert "100.65.0.1" in text and "70:6f:72:74:30" in text, text[-4000:]
    r = ns("c", f"timeout 20 dhclient -v -r -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    time.sleep(0.5)
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert s.stop() == 0


@pytest.mark.kea_pool("100.65.0.50 - 100.65.0.250")
def test_ipoe_emulator_through_relay_to_kea(hosts, kea, sluiced_factory, tmp_path):
    """sluice-gen's subscriber emulator as 60 IPoE clients at 300 a second, relayed by sluiced
    (port0 on memif) to Kea (in namespace b past port1): every client gets a lease of Kea's
    pool, each once, and becomes a session; Kea saw option 82 for each; the clients'
    DHCPRELEASEs end every session. (The emulator's traffic needs its own peer port, port2, as
    the target of its packets: none is sent here.)"""
    log = kea
    s0, s1 = tmp_path / "m0.sock", tmp_path / "m1.sock"
    s = sluiced_factory([f"net_memif0,role=server,id=0,socket={s0} {{ name port0 }}", DEVS[1],
                         f"net_memif1,role=server,id=0,socket={s1} {{ name port2 }}"], RELAY)
    for rep in run_emulator(s, tmp_path, ["--ipoe-sessions", "60", "--pppoe-rate", "300",
                                          "--pppoe-traffic", "0", "--pppoe-timeout", "20"],
                            peer="port2"):
        assert rep["up"] == 60 and rep["ipoe"]["up"] == 60 and rep["failed"] == NO_FAILURE, rep
        assert rep["torn_down"] == 60, rep
        rel = s.js("show ipoe dhcp-relay")["dhcp-relay"][0]
        assert rel["to-server"] >= 120 and rel["to-clients"] >= 120, rel  # DISCOVER, REQUEST each
        assert s.js("show ipoe leases")["ipoe-leases"] == []  # each DHCPRELEASE ended its session
    text = log.read_text()
    import re
    given = set(re.findall(r"lease (100\.65\.0\.\d+) has been allocated", text))
    assert len(given) == 60, sorted(given)  # each client its own address of Kea's pool
    assert all(50 <= int(a.rsplit(".", 1)[1]) <= 250 for a in given), given
    assert "70:6f:72:74:30" in text.lower()  # option 82's circuit id: port0


def test_ipoe_dhcp_relay_radius(hosts, kea, sluiced_factory, tmp_path, freeradius):
    """Relay mode with RADIUS (set ipoe auth radius): a client's DHCP is relayed to Kea only
    once FreeRADIUS accepts its MAC. 02:aa:00:00:00:05 is accepted with Filter-Id relay5 and
    Session-Timeout 3600 (its Framed-IP-Address is not for relay mode: Kea gives the
    address); its session has the ACL (ICMP to 10.10.2.2 passes, UDP is denied), and
    accounting Start carries Kea's address; a Disconnect-Request (RFC 5176) by its MAC ends
    the session (Stop, Admin-Reset), and it gets a new one by asking again. A MAC FreeRADIUS
    rejects gets no lease, and Kea never hears of it."""
    log = kea
    port, radlog, _ = freeradius
    das = free_udp_pair()
    s = sluiced_factory(DEVS, RELAY + [
        f"set radius server 127.0.0.1 secret testing123 auth-port {port} acct-port {port + 1} "
        f"das-port {das}",
        "set acl-plugin acl permit proto 1, permit proto 17 sport 68 dport 67, deny tag relay5",
        "set ipoe auth radius password ipoe-pw"])
    lf, pf = tmp_path / "dhclient.leases", tmp_path / "dhclient.pid"
    ns("c", f"ip link set {TAG}c1 address 02:aa:00:00:00:05")
    r = ns("c", f"timeout 40 dhclient -v -1 -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr + log.read_text()[-3000:]
    assert "inet 100.65.0.50/24" in ns("c", f"ip -4 -o addr show dev {TAG}c1").stdout
    sub = s.js("show subscribers detail")["subscribers"]
    assert [(x["type"], x["address"], x["acl"], x["session-timeout"], x["client-mac"]) for x in sub] == \
        [("ipoe", "100.65.0.50", "relay5", 3600, "02:aa:00:00:00:05")], sub
    r = ns("c", "ping -c 2 -i 0.2 -W 2 10.10.2.2", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    ns("c", "bash -c 'echo x > /dev/udp/10.10.2.2/9'", check=False)
    time.sleep(0.3)
    assert s.errors().get(("acl-input", "acl deny")) == 1
    r = subprocess.run(["radclient", "-x", "-r", "1", "-t", "3", f"127.0.0.1:{das}", "disconnect",
                        "testing123"], input='User-Name = "02:aa:00:00:00:05"\n', capture_output=True,
                       text=True)
    assert "Received Disconnect-ACK" in r.stdout + r.stderr, r.stdout + r.stderr
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    # asking again (a REQUEST for the address it holds): RADIUS first, then Kea's ACK
    r = ns("c", f"timeout 40 dhclient -v -1 -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [x["address"] for x in s.js("show ipoe leases")["ipoe-leases"]] == ["100.65.0.50"]
    r = ns("c", f"timeout 20 dhclient -v -r -lf {lf} -pf {pf} {TAG}c1", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    time.sleep(0.5)
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    # rejected: no lease, and nothing relayed for it
    ns("c", f"ip link set {TAG}c1 address 02:aa:00:00:00:03")
    out = discover_refused(s, tmp_path / "d3.leases", pf)
    assert "DHCPDISCOVER" in out and "DHCPOFFER" not in out, out
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert "02:aa:00:00:00:03" not in log.read_text().lower()
    recs = acct_records(radlog())
    starts = [r for r in recs if r.get("Acct-Status-Type") == "Start"]
    stops = [r for r in recs if r.get("Acct-Status-Type") == "Stop"]
    assert [(r["User-Name"], r["Framed-IP-Address"]) for r in starts] == [("02:aa:00:00:00:05", "100.65.0.50")] * 2
    assert [r["Acct-Session-Id"] for r in stops] == [r["Acct-Session-Id"] for r in starts]
    assert [r["Acct-Terminate-Cause"] for r in stops] == ["Admin-Reset", "User-Request"]
    assert s.stop() == 0
