#!/usr/bin/env bash
# CI's synthesis check: Debian's Yosys 0.23 reads the RTL as a synthesizer
# does (SYNTHESIS defined) and runs its generic `synth` script on one top,
# with the spec's parameters.
#
# One step of `synth` is left out: memory_map, which would rebuild every RAM
# (the protection table's copies, the receive buffer's frame slots, the
# engine's context arrays) out of flip-flops and multiplexers, since the
# generic flow has no RAM cells. That alone took the run from about a minute
# to three, even with the table shrunk to 64 entries. The RAMs stay $mem_v2
# cells here, as a real flow would hand them to RAM macros; synth_xilinx
# (rtl_synth_ptable_bram, rtl_synth_report) maps them to block and LUT RAM.
# RNIC_SYNTH_MAP_MEMORIES=1 runs the whole `synth`, memory_map included
# (with RNIC_SYNTH_PT_ENTRIES=64 or so to keep it to minutes).
#
# Fails when Yosys errors out, and also on what Yosys only warns about but a
# real flow would reject: a name it had to declare implicitly (a misspelt
# rnic_pkg:: constant becomes an undriven wire), a wire with no driver or
# with several, a latch, a combinational loop (`check -assert`).
#
# usage: synth.sh YOSYS TOP rnic_pkg.sv module.sv...
set -euo pipefail
yosys=${1:?usage: synth.sh YOSYS TOP files...}
top=${2:?usage: synth.sh YOSYS TOP files...}
shift 2

chparam=""
if [ -n "${RNIC_SYNTH_PT_ENTRIES:-}" ]; then
  chparam="chparam -set PT_ENTRIES ${RNIC_SYNTH_PT_ENTRIES} $top;"
fi
if [ "${RNIC_SYNTH_MAP_MEMORIES:-0}" = 1 ]; then
  flow="synth -top $top"
else
  # Yosys 0.23's `synth` script (yosys -h synth) from its `fine` label on,
  # without memory_map.
  flow="synth -top $top -run begin:fine; opt -fast -full; opt -full; techmap; opt -fast; abc -fast; opt -fast;
        hierarchy -check"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
if ! "$yosys" -q -l "$log" -p "read_verilog -sv -D SYNTHESIS $*; $chparam $flow; stat; check -assert" \
    >/dev/null 2>&1; then
  grep -E "ERROR|Error|problem|Warning" "$log" | tail -20
  echo "synth.sh: Yosys failed on $top"
  exit 1
fi

bad=$(grep -E "is implicitly declared|is used but has no driver|multiple conflicting drivers|Latch inferred|found logic loop" "$log" || true)
if [ -n "$bad" ]; then
  echo "$bad" | sort -u | head -20
  echo "synth.sh: $top synthesized, but with the warnings above"
  exit 1
fi
cells=$(grep -E "Number of cells:" "$log" | tail -1 | awk '{print $4}')
# A top without RAMs (rnic_regs alone) has no $mem_v2 line: grep's status
# must not end the script under pipefail.
mems=$(grep -E '^\s+\$mem_v2\s+[0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
echo "synth.sh: $top synthesized by Yosys synth: ${cells} cells (${mems:-0} of them RAMs), $((SECONDS - start)) s"
