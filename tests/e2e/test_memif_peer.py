# SPDX-License-Identifier: BSD-3-Clause
"""A memif peer that goes and comes back while sluiced forwards into it and from it: DPDK
22.11's memif PMD unmaps the shared regions in its interrupt thread as soon as the peer goes,
while the forwarding thread may be inside a burst reading them (a SIGSEGV in either role,
seen in this suite). sluiced makes that unmap wait for a grace period (src/runtime/runtime.c,
munmap): each side must survive its peer's restarts, forward again once the peer is back,
and exit 0."""
import os
import time
from pathlib import Path

WIRE = "net_memif0,role={role},id=0,socket={sock} {{ name port0 }}"
# each side: a stream at full speed (one vector per walk) into the wire, and the wire's
# frames dropped (port0 in L3 with no address); the main lcore forwards, between CLI requests
LINES = ["create packet-generator interface pg0", "set interface state pg0 up",
         "set interface state port0 up", "set interface l2 xconnect pg0 port0",
         "packet-generator new { name s interface pg0 size 64 data { "
         "IP4: 02:00:00:00:00:01 -> 02:00:00:00:00:02 UDP: 10.0.0.1 -> 10.0.0.2 UDP: 1 -> 2 } }"]


def wire_up(s):
    hw = s.js("show hardware")
    rows = next(v for v in hw.values() if isinstance(v, list))
    return any(r["name"] == "port0" and r["link"] == "up" for r in rows)


def start(factory, tmp_path, role, sub):
    """A sluiced of that role, its stream on. Its EAL interrupt thread (where the PMD hears
    that the peer went) is put on the main lcore's CPU: woken there, it preempts the forwarding
    loop wherever it is, a burst most of the time, as a busy host's scheduler can."""
    s = factory([WIRE.format(role=role, sock=tmp_path / "wire.sock")], LINES, sub=sub)
    main_cpu = os.sched_getaffinity(s.proc.pid)
    for task in Path(f"/proc/{s.proc.pid}/task").iterdir():
        if (task / "comm").read_text().strip() == "eal-intr-thread":
            os.sched_setaffinity(int(task.name), main_cpu)
    s.cli("packet-generator enable-stream s")
    return s


def carried(stay, peer, timeout=20.0):
    """Once the wire is up again: the peer's frames reach stay and stay's reach the peer."""
    deadline = time.time() + timeout
    while time.time() < deadline and not (wire_up(stay) and wire_up(peer)):
        time.sleep(0.05)
    rx0, prx0 = stay.iface("port0")["rx-packets"], peer.iface("port0")["rx-packets"]
    while time.time() < deadline and (stay.iface("port0")["rx-packets"] - rx0 < 1000 or
                                      peer.iface("port0")["rx-packets"] - prx0 < 1000):
        time.sleep(0.05)
    assert stay.iface("port0")["rx-packets"] - rx0 >= 1000, (stay.cli("show interface"), peer.cli("show interface"))
    assert peer.iface("port0")["rx-packets"] - prx0 >= 1000, peer.cli("show interface")


def test_memif_peer_restarts_under_traffic(sluiced_factory, tmp_path):
    """The server's client stopped and started again 3 times, frames flowing both ways at full
    speed: the server never stops and carries each new client's frames; then the client's
    server stopped and started again 3 times: the client never stops, connects to each new
    server by itself (DPDK 22.11's memif client does not: sluiced restarts the port once its
    link has been down a second) and carries its frames. The unmap race is a matter of where
    the scheduler stops the forwarding loop, so this passed before the munmap fix too;
    tests/unit/test_nodes.c (test_munmap_waits_in_intr_thread) checks the wait itself."""
    server = start(sluiced_factory, tmp_path, "server", "server")
    client = start(sluiced_factory, tmp_path, "client", "client0")
    carried(server, client)
    for i in range(1, 4):
        assert client.stop() == 0
        assert server.proc.poll() is None, "the server died when its client went"
        client = start(sluiced_factory, tmp_path, "client", f"client{i}")
        carried(server, client)
    for i in range(1, 4):
        assert server.stop() == 0
        time.sleep(0.2)
        assert client.proc.poll() is None, "the client died when its server went"
        server = start(sluiced_factory, tmp_path, "server", f"server{i}")
        carried(client, server)
        hw = {r["name"]: r for r in client.js("show hardware")["hardware"]}
        assert hw["port0"]["reconnects"] >= i, hw
    assert server.stop() == 0 and client.stop() == 0
