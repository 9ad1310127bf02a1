#!/usr/bin/env bash
# CI's synthesis check: Yosys (Debian's 0.23) must read and synthesize the
# RNIC top. usage: synth.sh rnic_pkg.sv module.sv...
# RNIC_SYNTH_PT_ENTRIES shrinks the protection table for a quick run (the
# generic `synth` flow maps RAMs to flip-flops, so the full table is slow).
set -euo pipefail
entries=${RNIC_SYNTH_PT_ENTRIES:-64}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! yosys -q -l "$log" -p "read_verilog -sv -D SYNTHESIS $*; chparam -set PT_ENTRIES $entries rnic_top; synth -top rnic_top; stat" >/dev/null; then
  tail -30 "$log"
  echo "synth.sh: Yosys failed"
  exit 1
fi
grep -E "Number of cells" "$log" | tail -1
echo "synth.sh: rnic_top synthesized (PT_ENTRIES=$entries)"
