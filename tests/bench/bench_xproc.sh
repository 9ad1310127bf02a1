#!/usr/bin/env bash
# Two processes against one (docs/performance.md, "Two processes"): runs
# bench_xproc RUNS times as a server and a client process joined by the UDP
# link, and RUNS times as two threads of one process, and prints the medians
# of the client's payload bytes per NIC cycle and NIC cycles per wall second.
#   tests/bench/bench_xproc.sh <build dir> [runs] [writes]
set -euo pipefail
bin=$1/tests/bench/bench_xproc
runs=${2:-5}
writes=${3:-32}
here=$(cd "$(dirname "$0")" && pwd)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() {  # line -> "bytes/cycle cycles/s"
  sed -E 's/.* ([0-9.]+) payload bytes\/cycle; rnic0 ran ([0-9.]+) NIC cycles\/s.*/\1 \2/'
}
two=$(mktemp) one=$(mktemp)
trap 'rm -f "$two" "$one"' EXIT
for r in $(seq 1 "$runs"); do
  "$here/../processes/run_pair.sh" $((29000 + 10 * r)) 600 "$bin server $((19800 + r))" \
    "$bin client 127.0.0.2 $((19800 + r)) $writes" | grep 'payload bytes/cycle' | field >>"$two"
  RNIC_LINK_PORT_BASE=$((29500 + 10 * r)) "$bin" threads $((19900 + r)) "$writes" |
    grep 'payload bytes/cycle' | field >>"$one"
done
printf 'bench_xproc: %d x 1 MiB RDMA WRITE, 4 outstanding, %d runs, medians\n' "$writes" "$runs"
printf 'two processes (UDP link): %s payload bytes/cycle, %s NIC cycles/s in the client process\n' \
  "$(cut -d' ' -f1 "$two" | median)" "$(cut -d' ' -f2 "$two" | median)"
printf 'one process, two threads: %s payload bytes/cycle, %s NIC cycles/s\n' \
  "$(cut -d' ' -f1 "$one" | median)" "$(cut -d' ' -f2 "$one" | median)"
