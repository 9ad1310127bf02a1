#!/usr/bin/env python3
"""LUT / FF / BRAM figures per block from Yosys synth_xilinx (7-series).

usage: synth_report.py [--yosys PATH] [--top BLOCK]... [--require BLOCK:KIND<=N | BLOCK:KIND>=N]...
                       rnic_pkg.sv module.sv...

Synthesizes each --top block alone (flattened) and prints one row per block.
KIND is one of the column names (lut, lutram, ff, bram18, bram36, carry,
dsp); a --require that does not hold makes the script fail, which is how a
test pins down, say, that the protection table still lands in block RAM.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

# Yosys cell names for each column of the report.
KINDS = {
    "lut": re.compile(r"LUT[1-6]$"),
    "lutram": re.compile(r"RAM(32|64|128|256)[A-Z0-9]*$"),
    "ff": re.compile(r"FD[A-Z]*$"),
    "bram18": re.compile(r"RAMB18E1$"),
    "bram36": re.compile(r"RAMB36E1$"),
    "carry": re.compile(r"CARRY4$"),
    "dsp": re.compile(r"DSP48E1$"),
}
CELL_LINE = re.compile(r"^\s+(\S+)\s+(\d+)\s*$")


def last_stat(log_text):
    """Cell counts of the last `stat` block in a Yosys log."""
    start = log_text.rfind("Number of cells:")
    if start < 0:
        raise ValueError("no stat output in the Yosys log")
    counts = {}
    for line in log_text[start:].splitlines()[1:]:
        m = CELL_LINE.match(line)
        if not m:
            break
        counts[m.group(1)] = int(m.group(2))
    return counts


def summarize(counts):
    return {kind: sum(n for cell, n in counts.items() if rx.match(cell)) for kind, rx in KINDS.items()}


def synth(yosys, top, files):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "yosys.log")
        script = f"read_verilog -sv -D SYNTHESIS {' '.join(files)}; synth_xilinx -top {top} -flatten; stat"
        t0 = time.monotonic()
        proc = subprocess.run([yosys, "-q", "-l", log, "-p", script],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seconds = time.monotonic() - t0
        text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
        if proc.returncode != 0:
            sys.stderr.write(text[-3000:] + proc.stderr[-3000:])
            raise RuntimeError(f"Yosys failed on {top}")
        return summarize(last_stat(text)), seconds


def parse_require(text):
    m = re.fullmatch(r"(\w+):(\w+)(<=|>=)(\d+)", text)
    if not m or m.group(2) not in KINDS:
        raise argparse.ArgumentTypeError(f"bad --require {text!r}: want BLOCK:KIND<=N or BLOCK:KIND>=N")
    return m.group(1), m.group(2), m.group(3), int(m.group(4))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--top", action="append", required=True)
    ap.add_argument("--require", action="append", type=parse_require, default=[])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    cols = ["lut", "lutram", "ff", "bram36", "bram18", "carry", "dsp"]
    print(f"{'block':<16}" + "".join(f"{c:>8}" for c in cols) + f"{'yosys s':>9}")
    results = {}
    for top in args.top:
        figures, seconds = synth(args.yosys, top, args.files)
        results[top] = figures
        print(f"{top:<16}" + "".join(f"{figures[c]:>8}" for c in cols) + f"{seconds:>9.1f}", flush=True)

    failed = 0
    for block, kind, op, bound in args.require:
        if block not in results:
            print(f"requirement on {block}, which was not synthesized")
            failed += 1
            continue
        value = results[block][kind]
        if not (value <= bound if op == "<=" else value >= bound):
            print(f"FAIL: {block} {kind} = {value}, required {op} {bound}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
