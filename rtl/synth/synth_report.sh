#!/usr/bin/env bash
# LUT / FF / BRAM figures per block from Yosys synth_xilinx (7-series),
# recorded in docs/synthesis.md. usage: synth_report.sh rnic_pkg.sv module.sv...
# Blocks to report can be chosen with RNIC_SYNTH_BLOCKS="rnic_ptable rnic_regs".
set -uo pipefail
blocks=${RNIC_SYNTH_BLOCKS:-"rnic_ptable rnic_regs rnic_tx_framer rnic_rx_buffer rnic_engine rnic_top"}
printf '%-16s %8s %8s %6s %8s %8s\n' block LUT FF BRAM18 LUTRAM seconds
for top in $blocks; do
  log=$(mktemp)
  start=$(date +%s)
  if ! yosys -q -l "$log" -p "read_verilog -sv -D SYNTHESIS $*; synth_xilinx -top $top -flatten; stat" \
       >/dev/null 2>&1; then
    echo "$top: Yosys failed"
    rm -f "$log"
    exit 1
  fi
  # Only the last statistics block counts (the log repeats it).
  awk -v top="$top" -v secs=$(( $(date +%s) - start )) '
    /Number of cells/ { lut = ff = bram = lutram = 0 }
    $1 ~ /^LUT[1-6]$/ { lut += $2 }
    $1 ~ /^FD/ { ff += $2 }
    $1 == "RAMB18E1" { bram += $2 }
    $1 == "RAMB36E1" { bram += 2 * $2 }
    $1 ~ /^RAM(32|64|128|256)/ { lutram += $2 }
    END { printf "%-16s %8d %8d %6d %8d %8d\n", top, lut, ff, bram, lutram, secs }' "$log"
  rm -f "$log"
done
