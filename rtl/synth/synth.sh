#!/usr/bin/env bash
# CI's synthesis check: Debian's Yosys 0.23 reads the RTL as a synthesizer
# does (SYNTHESIS defined) and runs its generic `synth` on one top.
# Fails when Yosys errors out, and also on what Yosys only warns about but a
# real flow would reject: a name it had to declare implicitly (a misspelt
# rnic_pkg:: constant becomes an undriven wire), a wire used with no driver
# or with several, a latch, a combinational loop (`check -assert`).
#
# usage: synth.sh YOSYS TOP rnic_pkg.sv module.sv...
# RNIC_SYNTH_PT_ENTRIES: the protection table's size for this run (default:
# the spec's). The generic flow maps RAMs to flip-flops, so a smaller table
# makes the run quicker without changing any logic but the RAM's depth.
set -euo pipefail
yosys=${1:?usage: synth.sh YOSYS TOP files...}
top=${2:?usage: synth.sh YOSYS TOP files...}
shift 2

chparam=""
if [ -n "${RNIC_SYNTH_PT_ENTRIES:-}" ]; then
  chparam="chparam -set PT_ENTRIES ${RNIC_SYNTH_PT_ENTRIES} $top;"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
if ! "$yosys" -q -l "$log" -p "read_verilog -sv -D SYNTHESIS $*; $chparam synth -top $top; check -assert; stat" \
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
echo "synth.sh: $top synthesized by generic synth: $cells cells, $((SECONDS - start)) s"
