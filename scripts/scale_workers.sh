#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Worker scaling: W pcap (infinite_rx) ports, one per worker, routed to one null port;
# forwarded packets/s over 3 trials of 3 s, then busy clocks/packet per worker. Run from
# the folder scripts/pack_for_device.sh makes (devpkg/scale_workers.sh).
set -u
D=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$D/lib
echo 4096 > /proc/sys/vm/nr_hugepages 2>/dev/null
mkdir -p /dev/hugepages; mount | grep -q hugetlbfs || mount -t hugetlbfs nodev /dev/hugepages
grep -m1 "model name" /proc/cpuinfo; nproc
for W in ${WORKERS:-1 2 4 8 12}; do
  R=$(mktemp -d)
  {
    echo "unix { cli-listen $R/cli.sock exec $R/setup.cli }"
    echo "cpu { main-core 0 corelist-workers 1-$W }"
    echo "dpdk {"
    for i in $(seq 0 $((W-1))); do echo "  vdev net_pcap$i,rx_pcap=$D/in.pcap,infinite_rx=1 { name in$i mac-address 02:00:00:00:00:10 }"; done
    echo "  vdev net_null0,no-rx=1 { name out }"
    echo "  socket-mem 4096 eal-args \"-d $D/pmds\""
    echo "}"
    echo "buffers { buffers-per-numa 131072 }"
  } > $R/startup.conf
  {
    echo "set interface ip address out 10.10.2.10/24"
    echo "ip neighbor out 10.10.2.1 42:01:0a:0a:02:01"
    echo "ip route add 48.0.0.0/8 via 10.10.2.1"
    echo "set interface state out up"
    for i in $(seq 0 $((W-1))); do echo "set interface ip address in$i 10.$((20+i)).1.10/24"; echo "set interface state in$i up"; done
  } > $R/setup.cli
  $D/sluiced $R/startup.conf > $R/log 2>&1 &
  P=$!
  for _ in $(seq 50); do [ -S $R/cli.sock ] && break; sleep 0.2; done
  sleep 1
  [ -S $R/cli.sock ] || { tail -5 $R/log; continue; }
  C="$D/sluicectl -s $R/cli.sock"
  for t in 1 2 3; do
    $C clear runtime >/dev/null
    a=$($C --json show interface out | grep -o '"tx-packets": [0-9]*' | grep -o '[0-9]*$')
    sleep 3
    b=$($C --json show interface out | grep -o '"tx-packets": [0-9]*' | grep -o '[0-9]*$')
    echo "workers=$W trial=$t fwd_pps=$(( (b - a) / 3 ))"
  done
  $C show runtime | tail -n $((W+1))
  kill $P; wait $P
  rm -rf $R
done
