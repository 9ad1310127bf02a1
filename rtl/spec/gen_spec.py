#!/usr/bin/env python3
"""Generate rnic_pkg.sv, rnic_hw.h and rnic_spec.md from rnic.toml.

The TOML file is the single description of everything software and
hardware must agree on; this script is the only way its contents reach
SystemVerilog, C and the docs, so the three can never drift apart.

What each output gets:
- rnic_pkg.sv: parameters, register offsets and field positions, an enum
  type per enum table (`typedef enum`, the constants named ENUM_ITEM), a
  packed struct per flags table (one bit per flag), a packed struct per
  ring layout (one per view), the wire constants. Names the RTL writes as
  `rnic_pkg::NAME` (Yosys 0.23 reads neither `import` nor casts to a
  package type, so the RTL never needs either).
- rnic_hw.h: the same numbers as C macros (RNIC_*), and RNIC_GET/RNIC_SET
  for the ring words; nothing marked rtl_only.
- rnic_spec.md: the tables the docs point to.

usage: gen_spec.py rnic.toml OUTDIR
"""
import sys
import tomllib
from pathlib import Path

BANNER = "GENERATED from rtl/spec/rnic.toml by rtl/spec/gen_spec.py - do not edit"

# SystemVerilog keywords a lower-cased field name could collide with: such a
# member gets a trailing underscore (PT_ENTRY.TYPE is `type_`).
SV_KEYWORDS = {
    "alias", "always", "and", "assert", "assign", "assume", "automatic", "before", "begin", "bind",
    "bins", "bit", "break", "buf", "byte", "case", "cell", "chandle", "class", "clocking", "config",
    "const", "context", "continue", "cover", "default", "defparam", "design", "disable", "dist", "do",
    "edge", "else", "end", "enum", "event", "expect", "export", "extends", "extern", "final", "first_match",
    "for", "force", "foreach", "forever", "fork", "function", "generate", "genvar", "if", "iff", "import",
    "initial", "inout", "input", "inside", "int", "integer", "interface", "join", "let", "library", "local",
    "localparam", "logic", "longint", "macromodule", "matches", "modport", "module", "nand", "negedge",
    "new", "nor", "not", "null", "or", "output", "package", "packed", "parameter", "posedge", "priority",
    "program", "property", "protected", "pure", "rand", "randc", "real", "reg", "ref", "release",
    "repeat", "restrict", "return", "sequence", "shortint", "signed", "solve", "static", "string",
    "struct", "super", "supply0", "supply1", "table", "task", "this", "time", "tri", "type", "typedef",
    "union", "unique", "unsigned", "until", "use", "var", "virtual", "void", "wait", "weak", "while",
    "wire", "with", "xor",
}

ENUM_META = {"doc", "width", "flags", "rtl_only"}


def die(msg):
    sys.exit(f"gen_spec.py: {msg}")


def bits_for(values):
    width = max(v for _, v in values).bit_length()
    return max(width, 1)


def member_name(name):
    m = name.lower()
    return m + "_" if m in SV_KEYWORDS else m


def type_name(name):
    return name.lower() + "_t"


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
                die(f"{r['name']}: offset {off:#x} not 32-bit aligned")
            if off in seen:
                die(f"{r['name']}: offset {off:#x} also used by {seen[off]}")
            seen[off] = r["name"]
        for f in r["fields"]:
            msb, lsb = f["bits"]
            if not 0 <= lsb <= msb <= 31:
                die(f"{r['name']}.{f['name']}: bad bit range")

    enums = {}
    for ename, e in spec.get("enum", {}).items():
        items = [(k, v) for k, v in e.items() if k not in ENUM_META]
        if not items:
            die(f"enum {ename}: no values")
        values = [v for _, v in items]
        if len(set(values)) != len(values):
            die(f"enum {ename}: two names for one value")
        flags = e.get("flags", False)
        if flags and any(v <= 0 or v & (v - 1) for v in values):
            die(f"enum {ename}: a flags value is not a single bit")
        enums[ename] = {"name": ename, "doc": e.get("doc", ""), "items": items, "flags": flags,
                        "rtl_only": e.get("rtl_only", False), "width": e.get("width")}

    structs = {}
    for sname, s in spec.get("struct", {}).items():
        size = s.get("size", 8)
        if isinstance(size, str):
            size = params[size]
        st = {"name": sname, "doc": s.get("doc", sname), "bits": 8 * size,
              "rtl_only": s.get("rtl_only", False), "fields": []}
        for f in s["fields"]:
            fd = {"name": f["name"], "doc": f.get("doc", ""), "type": f.get("type"),
                  "view": f.get("view"), "word": f.get("word"), "count": f.get("count")}
            if isinstance(fd["count"], str):
                fd["count"] = params[fd["count"]]
            if fd["count"] is not None:
                # An array of another struct, from bit 0 of word `word`.
                if fd["word"] is None or "bits" in f:
                    die(f"{sname}.{f['name']}: an array starts at a word and has no bits")
                fd["msb"], fd["lsb"] = None, 0
            else:
                fd["msb"], fd["lsb"] = f["bits"]
                top = 63 if fd["word"] is not None else st["bits"] - 1
                if not 0 <= fd["lsb"] <= fd["msb"] <= top:
                    die(f"{sname}.{f['name']}: bad bit range")
                fd["width"] = fd["msb"] - fd["lsb"] + 1
            fd["abs_lsb"] = 64 * (fd["word"] or 0) + fd["lsb"]
            st["fields"].append(fd)
        structs[sname] = st

    # Field types: array widths, nested struct widths, and the widths of the
    # enums the fields carry.
    for st in structs.values():
        for fd in st["fields"]:
            t = fd["type"]
            if t is None:
                continue
            if t in structs:
                sub = structs[t]["bits"]
                if fd["count"] is not None:
                    fd["width"] = fd["count"] * sub
                elif fd["width"] != sub:
                    die(f"{st['name']}.{fd['name']}: {fd['width']} bits, but {t} has {sub}")
            elif t in enums:
                if fd["count"] is not None:
                    die(f"{st['name']}.{fd['name']}: an array of an enum")
                e = enums[t]
                if e["width"] is None:
                    e["width"] = fd["width"]
                elif e["width"] != fd["width"]:
                    die(f"{st['name']}.{fd['name']}: {fd['width']} bits, but enum {t} has {e['width']}")
            else:
                die(f"{st['name']}.{fd['name']}: unknown type {t}")
            if fd["count"] is None and fd["width"] is None:
                die(f"{st['name']}.{fd['name']}: no width")
    for e in enums.values():
        if e["width"] is None:
            e["width"] = bits_for(e["items"])
        if max(v for _, v in e["items"]).bit_length() > e["width"]:
            die(f"enum {e['name']}: a value does not fit in {e['width']} bits")

    # Views: the fields outside every view, plus those of one view; within
    # each, no two fields may share a bit.
    for st in structs.values():
        for fd in st["fields"]:
            if fd["abs_lsb"] + fd["width"] > st["bits"]:
                die(f"{st['name']}.{fd['name']}: past the end of the {st['bits'] // 8}-byte layout")
        names = [None] + sorted({fd["view"] for fd in st["fields"] if fd["view"]})
        st["views"] = {}
        for v in names:
            own = [fd for fd in st["fields"] if fd["view"] == v]
            rest = [fd for fd in st["fields"] if fd["view"] is None and
                    not any(overlap(fd, o) for o in own)] if v else []
            fields = sorted(own + rest, key=lambda fd: fd["abs_lsb"])
            for a, b in zip(fields, fields[1:]):
                if overlap(a, b):
                    die(f"{st['name']}: {a['name']} and {b['name']} share bits in view {v or 'main'}")
            st["views"][v] = fields

    wire = spec.get("wire", {})
    consts = [(k, v) for k, v in wire.items() if k != "doc"]
    for k, v in consts:
        if v["value"].bit_length() > v["width"]:
            die(f"wire {k}: {v['value']} does not fit in {v['width']} bits")
    return {"spec": spec, "params": params, "regs": regs, "enums": enums, "structs": structs,
            "wire_doc": wire.get("doc", ""), "wire": consts}


def overlap(a, b):
    return a["abs_lsb"] < b["abs_lsb"] + b["width"] and b["abs_lsb"] < a["abs_lsb"] + a["width"]


def struct_order(structs):
    """Structs in an order where each comes after the structs it contains."""
    done, out = set(), []

    def visit(name, path):
        if name in done:
            return
        if name in path:
            die(f"struct {name} contains itself")
        for fd in structs[name]["fields"]:
            if fd["type"] in structs:
                visit(fd["type"], path + [name])
        done.add(name)
        out.append(structs[name])
    for name in structs:
        visit(name, [])
    return out


def view_type(st, view):
    return type_name(st["name"] + ("_" + view if view else ""))


def word_based(st):
    """A layout of 64-bit words (a ring entry), rather than one flat vector."""
    return any(fd["word"] is not None for fd in st["fields"])


def logic(width):
    return "logic" if width == 1 else f"logic [{width - 1}:0]"


def where(st, lsb, width):
    """Position of a bit range, in words where the layout has them."""
    if word_based(st):
        lo_w, lo_b = divmod(lsb, 64)
        hi_w, hi_b = divmod(lsb + width - 1, 64)
        if lo_w == hi_w:
            return f"word {lo_w} [{hi_b}:{lo_b}]" if width > 1 else f"word {lo_w} [{lo_b}]"
        if lo_b == 0 and hi_b == 63:
            return f"words {lo_w}..{hi_w}"
        return f"word {lo_w} bit {lo_b} .. word {hi_w} bit {hi_b}"
    return f"[{lsb + width - 1}:{lsb}]" if width > 1 else f"[{lsb}]"


def sv_struct(st, view, enums, structs):
    out = ([f"  // {st['name']} as a {view} reads it"] if view else []) + ["  typedef struct packed {"]
    pos = st["bits"]
    for fd in reversed(st["views"][view]):
        top = fd["abs_lsb"] + fd["width"]
        if top < pos:
            out.append(f"    {logic(pos - top)} rsvd_{top};  // {where(st, top, pos - top)}")
        t, note = fd["type"], fd["doc"]
        if t in structs and fd["count"] is None:
            decl = type_name(t)
        elif t in structs:
            decl = logic(fd["width"])
            note = f"{type_name(t)} x {fd['count']} (the first lowest): {note}"
        elif t in enums and enums[t]["flags"]:
            decl = type_name(t)
        else:
            # An enum field stays logic: Verilator 5.006 refuses to assign a
            # logic value to an enum without a cast, and Yosys 0.23 cannot
            # parse a cast to a package's type.
            decl = logic(fd["width"])
            if t in enums:
                note = f"{type_name(t)}: {note}"
        out.append(f"    {decl} {member_name(fd['name'])};  // {where(st, fd['abs_lsb'], fd['width'])} {note}")
        pos = fd["abs_lsb"]
    if pos > 0:
        out.append(f"    {logic(pos)} rsvd_0;  // {where(st, 0, pos)}")
    out.append(f"  }} {view_type(st, view)};")
    return out


def gen_sv(m):
    params, regs, enums, structs = m["params"], m["regs"], m["enums"], m["structs"]
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
    for e in enums.values():
        w = e["width"]
        out.append(f"  // {e['doc']}")
        if e["flags"]:
            # Flags combine, so they are masks rather than enum values, and a
            # packed struct names each bit.
            for k, v in e["items"]:
                out.append(f"  localparam logic [{w - 1}:0] {e['name']}_{k} = {w}'d{v};")
            out.append("  typedef struct packed {")
            bit = {v.bit_length() - 1: k for k, v in e["items"]}
            pos = w
            for b in sorted(bit, reverse=True):
                if b + 1 < pos:
                    out.append(f"    {logic(pos - b - 1)} rsvd_{b + 1};")
                out.append(f"    logic {member_name(bit[b])};  // {e['name']}_{bit[b]}")
                pos = b
            if pos > 0:
                out.append(f"    {logic(pos)} rsvd_0;")
            out.append(f"  }} {type_name(e['name'])};")
        else:
            out.append(f"  typedef enum logic [{w - 1}:0] {{")
            items = [f"    {e['name']}_{k} = {w}'h{v:0{(w + 3) // 4}X}" for k, v in e["items"]]
            out.append(",\n".join(items))
            out.append(f"  }} {type_name(e['name'])};")
        out.append("")
    if m["wire"]:
        out.append(f"  // {m['wire_doc']}")
        for k, v in m["wire"]:
            w, val = v["width"], v["value"]
            lit = f"{w}'h{val:0{(w + 3) // 4}X}" if val >= 0x40 else f"{w}'d{val}"
            out.append(f"  localparam logic [{w - 1}:0] {k} = {lit};  // {v['doc']}")
        out.append("")
    for st in struct_order(structs):
        s = st["name"]
        out.append(f"  // {st['name']}: {st['doc']}")
        out.append(f"  localparam int unsigned {s}_BITS = {st['bits']};")
        if word_based(st):
            out.append(f"  localparam int unsigned {s}_WORDS = {st['bits'] // 64};")
        for fd in st["fields"]:
            f = fd["name"]
            if fd["word"] is not None:
                out.append(f"  localparam int unsigned {s}_{f}_WORD = {fd['word']};")
            out.append(f"  localparam int unsigned {s}_{f}_LSB = {fd['lsb']};")
            out.append(f"  localparam int unsigned {s}_{f}_W = {fd['width']};")
            if fd["count"] is not None:
                out.append(f"  localparam int unsigned {s}_{f}_COUNT = {fd['count']};")
        for view in st["views"]:
            out += sv_struct(st, view, enums, structs)
        out.append("")
    out.append("endpackage")
    out.append("/* verilator lint_on UNUSEDPARAM */")
    text = "\n".join(out) + "\n"
    check_unique(text)
    return text


def check_unique(text):
    """Every name the package declares is declared once."""
    import re
    names = re.findall(r"^\s+(?:localparam \S+(?: unsigned)?(?: \[[^]]*\])? (\w+) =|(\w+) = \d+'h)", text, re.M)
    names += [(t, "") for t in re.findall(r"^\s+} (\w+);", text, re.M)]
    flat = [a or b for a, b in names]
    dup = {n for n in flat if flat.count(n) > 1}
    if dup:
        die(f"names declared twice in rnic_pkg: {', '.join(sorted(dup))}")


def gen_c(m):
    params, regs, enums, structs = m["params"], m["regs"], m["enums"], m["structs"]
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
    for e in enums.values():
        if e["rtl_only"]:
            continue
        out.append(f"/* {e['doc']} */")
        for k, v in e["items"]:
            out.append(f"#define RNIC_{e['name']}_{k} {v}u")
        out.append("")
    if m["wire"]:
        out.append(f"/* {m['wire_doc']} */")
        for k, v in m["wire"]:
            out.append(f"#define RNIC_{k} {v['value']}u")
        out.append("")
    for st in structs.values():
        if st["rtl_only"]:
            continue
        s = st["name"]
        out.append(f"/* {st['doc']} */")
        if word_based(st):
            out.append(f"#define RNIC_{s}_WORDS {st['bits'] // 64}u")
        for fd in st["fields"]:
            f = fd["name"]
            out.append(f"#define RNIC_{s}_{f}_WORD {fd['word'] or 0}u")
            if fd["count"] is not None:
                out.append(f"#define RNIC_{s}_{f}_COUNT {fd['count']}u")
                continue
            out.append(f"#define RNIC_{s}_{f}_SHIFT {fd['lsb']}u")
            out.append(f"#define RNIC_{s}_{f}_MASK 0x{(1 << fd['width']) - 1:X}ull")
        out.append("")
    out.append("/* Field accessors for ring entries: words are little-endian uint64_t. */")
    out.append("#define RNIC_GET(w, S, F) (((w)[RNIC_##S##_##F##_WORD] >> RNIC_##S##_##F##_SHIFT) & RNIC_##S##_##F##_MASK)")
    out.append("#define RNIC_SET(w, S, F, v) ((w)[RNIC_##S##_##F##_WORD] = ((w)[RNIC_##S##_##F##_WORD] & "
               "~(RNIC_##S##_##F##_MASK << RNIC_##S##_##F##_SHIFT)) | "
               "(((uint64_t)(v) & RNIC_##S##_##F##_MASK) << RNIC_##S##_##F##_SHIFT))")
    out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def cell(text):
    """Text for a Markdown table cell: a | would end the cell."""
    return text.replace("|", "\\|")


def gen_md(m):
    spec, regs, enums, structs = m["spec"], m["regs"], m["enums"], m["structs"]
    rtl_note = " (RTL only: software never sees it)"
    out = [f"<!-- {BANNER} -->", "# RNIC hardware interface", "",
           "## Parameters", "", "| name | value | meaning |", "| --- | --- | --- |"]
    for k, v in spec["params"].items():
        out.append(f"| {k} | {v['value']} | {cell(v['doc'])} |")
    out += ["", "## BAR0 registers", "", "| offset | name | access | meaning |", "| --- | --- | --- | --- |"]
    for r in regs:
        off = f"0x{r['offset']:04X}"
        if r["count"] > 1:
            off += f" + {r['stride']}n (n < {r['count']})"
        out.append(f"| {off} | {r['name']} | {r['access']} | {cell(r['doc'])} |")
        for f in r["fields"]:
            msb, lsb = f["bits"]
            rng = f"{msb}" if msb == lsb else f"{msb}:{lsb}"
            out.append(f"| | .{f['name']} [{rng}] | | {cell(f['doc'])} |")
    for e in enums.values():
        kind = "flags" if e["flags"] else "enum"
        out += ["", f"## {e['name']}: {e['doc']}" + (rtl_note if e["rtl_only"] else ""), "",
                f"{kind} `rnic_pkg::{type_name(e['name'])}`, {e['width']} bits", "",
                "| name | value |", "| --- | --- |"]
        for k, v in e["items"]:
            out.append(f"| {e['name']}_{k} | {v} (0x{v:02X}) |")
    if m["wire"]:
        out += ["", f"## Wire constants: {m['wire_doc']}", "", "| name | value | meaning |",
                "| --- | --- | --- |"]
        for k, v in m["wire"]:
            out.append(f"| {k} | {v['value']} (0x{v['value']:0{(v['width'] + 3) // 4}X}) | {cell(v['doc'])} |")
    for st in structs.values():
        types = ", ".join(f"`rnic_pkg::{view_type(st, v)}`" for v in st["views"])
        out += ["", f"## {st['name']}" + (rtl_note if st["rtl_only"] else ""), "",
                f"{cell(st['doc']).rstrip('.')}. {st['bits'] // 8} bytes; {types}.", "",
                "| word | bits | field | type | meaning |", "| --- | --- | --- | --- | --- |"]
        for fd in st["fields"]:
            word = "" if fd["word"] is None else str(fd["word"])
            if fd["count"] is not None:
                words = fd["width"] // 64
                word = f"{fd['word']}..{fd['word'] + words - 1}"
                rng = ""
            else:
                rng = f"{fd['msb']}" if fd["msb"] == fd["lsb"] else f"{fd['msb']}:{fd['lsb']}"
            t = fd["type"] or ""
            if fd["count"] is not None:
                t = f"{t}[{fd['count']}]"
            doc = fd["doc"] + (f" ({fd['view']} view)" if fd["view"] else "")
            out.append(f"| {word} | {rng} | {fd['name']} | {t} | {cell(doc)} |")
    return "\n".join(out) + "\n"


def write_if_changed(path, text):
    # Keeps timestamps stable so an unchanged spec does not re-verilate.
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = load(sys.argv[1])
    outdir = Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    write_if_changed(outdir / "rnic_pkg.sv", gen_sv(model))
    write_if_changed(outdir / "rnic_hw.h", gen_c(model))
    write_if_changed(outdir / "rnic_spec.md", gen_md(model))


if __name__ == "__main__":
    main()
