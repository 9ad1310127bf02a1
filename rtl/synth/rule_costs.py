#!/usr/bin/env python3
"""What each rule's logic costs: the table silicon users weigh.

usage: rule_costs.py [--yosys PATH] [--jobs N] [--only NAME,...] rnic_pkg.sv module.sv...

Every rule a mutant can break (rnic.toml's MUTANT enum: the protection
checks, the fences, the memory-window rules, the transport's) has one switch,
`mutant != rnic_pkg::MUTANT_X`, at the place the rule acts. rnic_regs built
with RNIC_MUTANT_CONST=N makes that switch a constant, so synthesis removes
the logic only rule N needs. This script synthesizes rnic_top once with no
rule broken and once per rule, and prints a Markdown table of what removing
each rule saves.

It counts cells before LUT mapping (synth_xilinx -run :map_luts): two-input
gates and 2:1 multiplexers, flip-flops, carry chains, RAM. ABC's LUT mapping
after that point is global and heuristic: removing a 53-gate key compare
moved the whole design's LUT count by +1,208 in one trial, noise that would
bury every rule here. The gates before it are what the rule's logic is.
The datapath a feature shares with others stays (the bind unit serves both
the window rules and the bind fence): a feature's row adds up its rules.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth_report  # noqa: E402  (beside this script)

# The features the table groups the rules into, in the table's order.
FEATURES = [
    ("protection checks", ["NO_KEY_CHECK", "NO_PZ_CHECK", "NO_RIGHTS_CHECK", "NO_BOUNDS_CHECK", "NO_STATE_CHECK"]),
    ("barrier fence", ["NO_FENCE"]),
    ("bind fence", ["NO_BIND_FENCE"]),
    ("memory windows", ["NO_BIND_KEY_CHANGE", "NO_LINK_CHECK", "NO_TYPE_CHECK", "NO_BIND_LMR_CHECK"]),
    ("retransmission", ["NO_RETRANSMIT", "NO_DUP_DETECT", "NO_CUM_ACK", "NO_RNR_RETRY", "NO_PERIODIC_ACK",
                        "NO_READ_SUPERSEDE", "NO_PMTU_CHECK"]),
]
COLS = ["gates", "ff", "carry", "lutram", "bram18"]


# Cell kinds before LUT mapping, as Yosys names them.
KINDS = {
    "gates": re.compile(r"\$_(AND|OR|NOT|XOR|XNOR|NAND|NOR|ANDNOT|ORNOT|MUX|NMUX|AOI3|OAI3|AOI4|OAI4)_$"),
    "ff": re.compile(r"(\$_[SA]?DFF[A-Z]*_[PN01]+_|FD[A-Z]*)$"),
    "carry": re.compile(r"CARRY4$"),
    "lutram": re.compile(r"RAM(32|64|128|256)[A-Z0-9]*$"),
    "bram18": re.compile(r"RAMB18E1$"),
}


def synth(yosys, files, mutant):
    """Cells of rnic_top with rule `mutant` broken (0: none) before LUT
    mapping, and Yosys's seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "yosys.log")
        script = (f"read_verilog -sv -D SYNTHESIS -D RNIC_MUTANT_CONST={mutant} {' '.join(files)}; "
                  "synth_xilinx -top rnic_top -flatten -run :map_luts; stat")
        t0 = time.monotonic()
        proc = subprocess.run([yosys, "-q", "-l", log, "-p", script],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
        if proc.returncode != 0:
            sys.stderr.write(text[-3000:] + proc.stderr[-3000:])
            raise RuntimeError(f"Yosys failed with RNIC_MUTANT_CONST={mutant}")
        counts = synth_report.last_stat(text)
        return ({k: sum(n for c, n in counts.items() if rx.match(c)) for k, rx in KINDS.items()},
                time.monotonic() - t0)


def mutants(pkg):
    """{name: value} of the MUTANT enum in the generated package."""
    text = open(pkg, encoding="utf-8").read()
    return {m.group(1): int(m.group(2), 16) for m in re.finditer(r"MUTANT_(NO_\w+)\s*=\s*5'h([0-9a-fA-F]+)", text)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated rule names (default: all)")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    known = mutants(args.files[0])
    grouped = [n for _, names in FEATURES for n in names]
    missing = sorted(set(known) - set(grouped))
    if missing:
        print("rule_costs: rules in no feature row: " + ", ".join(missing), file=sys.stderr)
        return 2
    wanted = [n for n in grouped if not args.only or n in args.only.split(",")]

    def run(value):
        return synth(args.yosys, args.files, value)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        base_job = pool.submit(run, 0)
        jobs = {name: pool.submit(run, known[name]) for name in wanted}
        base, base_s = base_job.result()
        print("baseline (no rule broken): " + ", ".join(f"{c} {base[c]}" for c in COLS) + f"; {base_s:.0f} s",
              flush=True)
        rows = {}
        for name in wanted:
            rows[name], secs = jobs[name].result()
            print(f"{name}: gates {rows[name]['gates']}, ff {rows[name]['ff']}; {secs:.0f} s", flush=True)

    print()
    print("| feature | rule removed | gates | FF | CARRY4 | gates saved | FF saved | CARRY4 saved |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| (none) | (every rule kept) | {base['gates']:,} | {base['ff']:,} | {base['carry']:,} | | | |")
    for feature, names in FEATURES:
        sums = [0, 0, 0]
        shown = [n for n in names if n in rows]
        for n in shown:
            r = rows[n]
            d = [base[k] - r[k] for k in ("gates", "ff", "carry")]
            sums = [a + b for a, b in zip(sums, d)]
            print(f"| {feature} | {n} | {r['gates']:,} | {r['ff']:,} | {r['carry']:,} | {d[0]:,} | {d[1]:,} | {d[2]:,} |")
        if len(shown) > 1:
            print(f"| **{feature}** | its rules together | | | | **{sums[0]:,}** | **{sums[1]:,}** | **{sums[2]:,}** |")
    ram = [n for n in rows if (rows[n]["lutram"], rows[n]["bram18"]) != (base["lutram"], base["bram18"])]
    print(f"\nLUT RAM and block RAM ({base['lutram']} / {base['bram18']} cells) "
          + ("change with: " + ", ".join(ram) if ram else "are the same with every rule removed") + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
