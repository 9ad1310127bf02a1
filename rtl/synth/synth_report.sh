#!/usr/bin/env bash
# LUT / FF / BRAM figures per block from Yosys synth_xilinx (7-series),
# recorded in docs/synthesis.md. usage: synth_report.sh rnic_pkg.sv module.sv...
set -euo pipefail
for top in rnic_ptable rnic_tx_framer rnic_rx_buffer rnic_regs rnic_engine rnic_top; do
  log=$(mktemp)
  yosys -q -l "$log" -p "read_verilog -sv -D SYNTHESIS $*; synth_xilinx -top $top -flatten; stat" >/dev/null
  luts=$(grep -E '^\s+LUT[1-6]\s' "$log" | awk '{s+=$2} END {print s+0}')
  ffs=$(grep -E '^\s+FD[A-Z]*\s' "$log" | awk '{s+=$2} END {print s+0}')
  brams=$(grep -E '^\s+RAMB(18|36)E1\s' "$log" | awk '{s+=$2} END {print s+0}')
  lutram=$(grep -E '^\s+RAM(32|64|128|256)[A-Z0-9]*\s' "$log" | awk '{s+=$2} END {print s+0}')
  printf '%-16s LUT %7s  FF %7s  BRAM %4s  LUTRAM %5s\n' "$top" "$luts" "$ffs" "$brams" "$lutram"
  rm -f "$log"
done
