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

TAG = f"ip{os.getpid() % 100000}"


def sh(cmd, check=True, timeout=60):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True, timeout=timeout)


def ns(n, cmd, **kw):
    return sh(f"ip netns exec {TAG}{n} {cmd}", **kw)


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
    })
    s.cli("set ipoe access port0")
    s.cli("set ipoe access port0 disable")
    assert s.js("show ipoe leases")["ipoe-leases"] == []
    assert s.stop() == 0


KEA = """{"Dhcp4": {
  "interfaces-config": {"interfaces": ["%s"], "dhcp-socket-type": "udp"},
  "lease-database": {"type": "memfile", "persist": false},
  "valid-lifetime": 120,
  "subnet4": [{"id": 1, "subnet": "100.65.0.0/24", "pools": [{"pool": "100.65.0.50 - 100.65.0.60"}],
               "option-data": [{"name": "routers", "data": "100.65.0.1"},
                               {"name": "domain-name-servers", "data": "9.9.9.9"}]}],
  "loggers": [{"name": "kea-dhcp4", "output_options": [{"output": "stdout"}],
               "severity": "DEBUG", "debuglevel": 55}]
}}
"""


def test_ipoe_dhcp_relay_to_kea(hosts, sluiced_factory, tmp_path):
    """Relay mode: sluiced relays dhclient's DHCP to a real Kea (kea-dhcp4, in the namespace
    past sluiced) with giaddr and option 82 (circuit id port0, remote id the client's MAC);
    Kea's ACK, option 82 taken out, makes the session; the client pings Kea's host."""
    import shutil
    if not shutil.which("kea-dhcp4") or not os.path.exists("/sbin/dhclient"):
        pytest.skip("kea-dhcp4-server or isc-dhcp-client is not installed (scripts/setup.sh installs them)")
    resolv = hosts
    cfg = tmp_path / "kea.json"
    cfg.write_text(KEA % f"{TAG}b1")
    log = tmp_path / "kea.log"
    out = open(log, "w")
    env = dict(os.environ, KEA_PIDFILE_DIR=str(tmp_path), KEA_LOCKFILE_DIR=str(tmp_path))
    kea = subprocess.Popen(["ip", "netns", "exec", f"{TAG}b", "kea-dhcp4", "-c", str(cfg)],
                           stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        end = time.time() + 20
        while "DHCP4_STARTED" not in log.read_text():
            assert kea.poll() is None and time.time() < end, log.read_text()[-3000:]
            time.sleep(0.1)
        devs = [f"net_af_packet0,iface={TAG}c0 {{ name port0 }}", f"net_af_packet1,iface={TAG}b0 {{ name port1 }}"]
        s = sluiced_factory(devs, [
            "set interface state port0 up", "set interface state port1 up",
            "set interface ip address port0 100.65.0.1/24", "set interface ip address port1 10.10.2.10/24",
            "set ipoe dhcp-relay server 10.10.2.2", "set ipoe access port0"])
        lf, pf = tmp_path / "dhclient.leases", tmp_path / "dhclient.pid"
        r = ns("c", f"timeout 40 dhclient -v -1 -lf {lf} -pf {pf} {TAG}c1", check=False)
        assert r.returncode == 0, r.stdout + r.stderr + log.read_text()[-3000:]
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
    finally:
        stop_process(kea, out)
