# SPDX-License-Identifier: BSD-3-Clause
"""10 MiB of TCP between two network namespaces (IPv4 or IPv6 by the address), the bytes
counted by the server and echoed back to the client: the end-to-end tests' real traffic; and
tcpdump in a namespace."""
import contextlib
import subprocess
import time

SERVER = r"""
import socket, sys
a = sys.argv[1]
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((a, 5001)); s.listen(1); s.settimeout(60)
c, _ = s.accept(); n = 0
while True:
    d = c.recv(65536)
    if not d: break
    n += len(d)
c.sendall(str(n).encode()); c.close(); print(n)
"""

CLIENT = r"""
import socket, sys
c = socket.create_connection((sys.argv[1], 5001), timeout=60)
buf = bytes(range(256)) * 4096
for _ in range(10): c.sendall(buf)          # 10 MiB
c.shutdown(socket.SHUT_WR); print(c.recv(100).decode())
"""


def tcp_10mib(server_ns, client_ns, addr):
    """The server listens on addr in namespace server_ns; the client connects from
    client_ns and sends 10 MiB, and both see every byte."""
    srv = subprocess.Popen(["ip", "netns", "exec", server_ns, "python3", "-c", SERVER, addr],
                           stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        r = subprocess.run(["ip", "netns", "exec", client_ns, "python3", "-c", CLIENT, addr],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == str(10 * 1024 * 1024)
        assert srv.wait(timeout=60) == 0
        assert srv.stdout.read().strip() == str(10 * 1024 * 1024)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()


@contextlib.contextmanager
def tcpdump(netns, dev, path):
    """Every frame on dev in network namespace netns written to path while the block runs
    (from its first line; the frames in flight at its end too)."""
    p = subprocess.Popen(["ip", "netns", "exec", netns, "tcpdump", "-Z", "root", "-n", "-U",
                          "--immediate-mode", "-i", dev, "-w", str(path)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        p.stderr.readline()  # "listening on ...": it captures from now on
        yield
        time.sleep(0.3)
    finally:
        p.terminate()
        p.wait(timeout=10)
