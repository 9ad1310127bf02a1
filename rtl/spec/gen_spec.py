#!/usr/bin/env python3
"""Generate rnic_pkg.sv, rnic_hw.h and rnic_spec.md from rnic.toml.

The TOML file is the single description of everything software and
hardware must agree on; this script is the only way its contents reach
SystemVerilog, C and the docs, so the three can never drift apart.

usage: gen_spec.py rnic.toml OUTDIR
"""
import sys
import tomllib
from pathlib import Path

BANNER = "GENERATED from rtl/spec/rnic.toml by rtl/spec/gen_spec.py - do not edit"


def load(path):
    with open(path, "rb") as f:
        spec = tomllib.load(f)
    params = {k: v["value"] for k, v in spec["params"].items()}
    regs = spec.get("reg", [])
    seen = {}
    for r in regs:
        count = r.get("count", 1)
        if isinstance(count, str):
            count = params[count]
        r["count"] = count
        r.setdefault("stride", 4)
        r.setdefault("fields", [])
        for i in range(count):
            off = r["offset"] + i * r["stride"]
            if off % 4:
                sys.exit(f"{r['name']}: offset {off:#x} not 32-bit aligned")
            if off in seen:
                sys.exit(f"{r['name']}: offset {off:#x} also used by {seen[off]}")
            seen[off] = r["name"]
        for f in r["fields"]:
            msb, lsb = f["bits"]
            if not 0 <= lsb <= msb <= 31:
                sys.exit(f"{r['name']}.{f['name']}: bad bit range")
    for sname, s in spec.get("struct", {}).items():
        for f in s["fields"]:
            msb, lsb = f["bits"]
            if not 0 <= lsb <= msb <= 63:
                sys.exit(f"{sname}.{f['name']}: bad bit range")
    return spec, params, regs


def enums(spec):
    for ename, e in spec.get("enum", {}).items():
        items = [(k, v) for k, v in e.items() if k != "doc"]
        yield ename, e.get("doc", ""), items


def bits_for(values):
    width = max(v for _, v in values).bit_length()
    return max(width, 1)


def gen_sv(spec, params, regs):
    out = [f"// {BANNER}",
           "// A package lists every name; each module uses a few of them.",
           "/* verilator lint_off UNUSEDPARAM */", "package rnic_pkg;", ""]
    out.append("  // Parameters")
    for k, v in params.items():
        out.append(f"  localparam int unsigned {k} = {v};")
    out.append("")
    out.append("  // BAR0 register offsets (bytes)")
    for r in regs:
        out.append(f"  localparam logic [15:0] REG_{r['name']} = 16'h{r['offset']:04X};")
        if r["count"] > 1:
            out.append(f"  localparam int unsigned REG_{r['name']}_COUNT = {r['count']};")
            out.append(f"  localparam int unsigned REG_{r['name']}_STRIDE = {r['stride']};")
        for f in r["fields"]:
            msb, lsb = f["bits"]
            out.append(f"  localparam int unsigned {r['name']}_{f['name']}_LSB = {lsb};")
            out.append(f"  localparam int unsigned {r['name']}_{f['name']}_W = {msb - lsb + 1};")
    out.append("")
    for ename, doc, items in enums(spec):
        w = bits_for(items)
        out.append(f"  // {doc}")
        for k, v in items:
            out.append(f"  localparam logic [{w - 1}:0] {ename}_{k} = {w}'d{v};")
        out.append("")
    for sname, s in spec.get("struct", {}).items():
        out.append(f"  // {s.get('doc', sname)}")
        for f in s["fields"]:
            msb, lsb = f["bits"]
            out.append(f"  localparam int unsigned {sname}_{f['name']}_WORD = {f['word']};")
            out.append(f"  localparam int unsigned {sname}_{f['name']}_LSB = {lsb};")
            out.append(f"  localparam int unsigned {sname}_{f['name']}_W = {msb - lsb + 1};")
        out.append("")
    out.append("endpackage")
    out.append("/* verilator lint_on UNUSEDPARAM */")
    return "\n".join(out) + "\n"


def gen_c(spec, params, regs):
    out = [f"/* {BANNER} */", "#ifndef RNIC_HW_H", "#define RNIC_HW_H", "",
           "#include <stdint.h>", ""]
    out.append("/* Parameters */")
    for k, v in params.items():
        out.append(f"#define RNIC_{k} {v}u")
    out.append("")
    out.append("/* BAR0 register offsets (bytes) */")
    for r in regs:
        out.append(f"#define RNIC_REG_{r['name']} 0x{r['offset']:04X}u")
        if r["count"] > 1:
            out.append(f"#define RNIC_REG_{r['name']}_N(n) (RNIC_REG_{r['name']} + (uint32_t)(n) * {r['stride']}u)")
        for f in r["fields"]:
            msb, lsb = f["bits"]
            mask = ((1 << (msb - lsb + 1)) - 1) << lsb
            out.append(f"#define RNIC_{r['name']}_{f['name']}_SHIFT {lsb}u")
            out.append(f"#define RNIC_{r['name']}_{f['name']}_MASK 0x{mask:08X}u")
    out.append("")
    for ename, doc, items in enums(spec):
        out.append(f"/* {doc} */")
        for k, v in items:
            out.append(f"#define RNIC_{ename}_{k} {v}u")
        out.append("")
    for sname, s in spec.get("struct", {}).items():
        out.append(f"/* {s.get('doc', sname)} */")
        for f in s["fields"]:
            msb, lsb = f["bits"]
            width = msb - lsb + 1
            mask = (1 << width) - 1
            out.append(f"#define RNIC_{sname}_{f['name']}_WORD {f['word']}u")
            out.append(f"#define RNIC_{sname}_{f['name']}_SHIFT {lsb}u")
            out.append(f"#define RNIC_{sname}_{f['name']}_MASK 0x{mask:X}ull")
        out.append("")
    out.append("/* Field accessors for ring entries: words are little-endian uint64_t. */")
    out.append("#define RNIC_GET(w, S, F) (((w)[RNIC_##S##_##F##_WORD] >> RNIC_##S##_##F##_SHIFT) & RNIC_##S##_##F##_MASK)")
    out.append("#define RNIC_SET(w, S, F, v) ((w)[RNIC_##S##_##F##_WORD] = ((w)[RNIC_##S##_##F##_WORD] & "
               "~(RNIC_##S##_##F##_MASK << RNIC_##S##_##F##_SHIFT)) | "
               "(((uint64_t)(v) & RNIC_##S##_##F##_MASK) << RNIC_##S##_##F##_SHIFT))")
    out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def gen_md(spec, params, regs):
    out = [f"<!-- {BANNER} -->", "# RNIC hardware interface", "",
           "## Parameters", "", "| name | value | meaning |", "| --- | --- | --- |"]
    for k, v in spec["params"].items():
        out.append(f"| {k} | {v['value']} | {v['doc']} |")
    out += ["", "## BAR0 registers", "", "| offset | name | access | meaning |", "| --- | --- | --- | --- |"]
    for r in regs:
        off = f"0x{r['offset']:04X}"
        if r["count"] > 1:
            off += f" + {r['stride']}n (n < {r['count']})"
        out.append(f"| {off} | {r['name']} | {r['access']} | {r['doc']} |")
        for f in r["fields"]:
            msb, lsb = f["bits"]
            rng = f"{msb}" if msb == lsb else f"{msb}:{lsb}"
            out.append(f"| | .{f['name']} [{rng}] | | {f['doc']} |")
    for ename, doc, items in enums(spec):
        out += ["", f"## {ename}: {doc}", "", "| name | value |", "| --- | --- |"]
        for k, v in items:
            out.append(f"| {ename}_{k} | {v} |")
    for sname, s in spec.get("struct", {}).items():
        out += ["", f"## {sname}", "", s.get("doc", ""), "", "| word | bits | field | meaning |",
                "| --- | --- | --- | --- |"]
        for f in s["fields"]:
            msb, lsb = f["bits"]
            out.append(f"| {f['word']} | {msb}:{lsb} | {f['name']} | {f['doc']} |")
    return "\n".join(out) + "\n"


def write_if_changed(path, text):
    # Keeps timestamps stable so an unchanged spec does not re-verilate.
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    spec, params, regs = load(sys.argv[1])
    outdir = Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    write_if_changed(outdir / "rnic_pkg.sv", gen_sv(spec, params, regs))
    write_if_changed(outdir / "rnic_hw.h", gen_c(spec, params, regs))
    write_if_changed(outdir / "rnic_spec.md", gen_md(spec, params, regs))


if __name__ == "__main__":
    main()
