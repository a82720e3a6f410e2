#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what Sluice needs on Debian 12 (idempotent): DPDK 22.11, meson, ninja, clang for
# the fuzzers and sanitizers, a Python venv with scapy and pytest; reserves hugepages.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs="libdpdk-dev dpdk dpdk-doc meson ninja-build pkg-config gcc libpcap-dev libnuma-dev
      clang libclang-rt-14-dev libssl-dev isc-dhcp-client iproute2 ethtool iputils-ping python3-venv python3-pip valgrind tcpdump"
missing=""
updated=0
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	updated=1
	apt-get install -y -q $missing >/dev/null
fi

# FreeRADIUS and Kea for the BNG tests (each test starts its own in the foreground): installed
# with their services kept from starting (a policy-rc.d of ours while apt runs, and not enabled)
services=""
for p in freeradius kea-dhcp4-server; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || services="$services $p"
done
if [ -n "$services" ]; then
	echo "setup: installing$services (their services not started)"
	made=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		made=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	[ "$updated" = 1 ] || apt-get update -q >/dev/null  # once a run
	apt-get install -y -q $services >/dev/null
	[ "$made" = 1 ] && rm -f /usr/sbin/policy-rc.d
	if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
		for p in $services; do
			systemctl disable --now "$p" >/dev/null 2>&1 || true
		done
	fi
fi

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import scapy, pytest, yaml, matplotlib' 2>/dev/null; then
	echo "setup: python venv in .venv"
	/usr/bin/python3 -m venv .venv
	.venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements.txt
fi
# sluice-bench, installed in place (edits to bench/ take effect): the venv finds the package
# through a .pth file, and .venv/bin/sluice-bench runs it
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/bench" > "$site/sluice-bench.pth"
printf '#!/bin/sh\nexec "%s/.venv/bin/python" -m sluice_bench "$@"\n' "$PWD" > .venv/bin/sluice-bench
chmod +x .venv/bin/sluice-bench

if [ "${SLUICE_NO_HUGEPAGES:-0}" != 1 ]; then
	want=${SLUICE_HUGEPAGES:-1024}
	have=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
	if [ "$have" -lt "$want" ]; then
		echo "$want" > /proc/sys/vm/nr_hugepages 2>/dev/null || echo "setup: cannot reserve hugepages (tests run with --no-huge)"
	fi
	if ! mount | grep -q 'type hugetlbfs'; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null || echo "setup: cannot mount hugetlbfs"
	fi
fi
