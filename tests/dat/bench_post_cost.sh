#!/usr/bin/env bash
# Instructions per dat_ep_post_rdma_write and per dat_evd_dequeue, in libdat
# and the driver, the simulated platform left out (docs/performance.md).
#   tests/dat/bench_post_cost.sh <build dir> [rounds]
# Callgrind collects only inside the measured function; the inclusive cost
# of the platform's C ABI calls made from inside it (rnic_sim_*: the BAR
# accesses) is then subtracted.
set -euo pipefail
bin=$1/tests/dat/dat_bench_post_cost
rounds=${2:-1000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {   # function name -> instructions per call
  local f=$out/cg.$1
  valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no --toggle-collect="$1" \
    "$bin" "$rounds" >/dev/null 2>"$out/log"
  local total sim
  total=$(grep '^summary:' "$f" | awk '{print $2}')
  sim=$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null |
        awk '$0 !~ /=>/ && $0 ~ /:rnic_sim_[a-z0-9_]+ \[/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
  echo $(( (total - sim) / rounds ))
}
echo "dat_ep_post_rdma_write: $(measure dat_ep_post_rdma_write) instructions per call (libdat + driver)"
echo "dat_evd_dequeue:        $(measure dat_evd_dequeue) instructions per call (libdat + driver)"
