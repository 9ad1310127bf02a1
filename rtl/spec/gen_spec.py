#!/usr/bin/env python3
"""Generate rnic_pkg.sv, rnic_reg_decode.sv, rnic_hw.h, rnic_names.h, rnic_spec.md
and the GTKWave translate filters from rnic.toml.

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
- rnic_names.h: C names for those numbers: a function per enum giving a
  value's name, and rnic_ev_arg_format, which prints a trace event's arg
  field by field from its layout (the structs with an `event`).
- rnic_reg_decode.sv: the BAR0 register block's decode, from the [[reg]]
  tables (address decode, read mux, the registers software writes, the
  strobes for commands and doorbells); rnic_regs instantiates it and talks
  to it through rnic_pkg::reg2hw_t (stored values), reg_access_t (this
  cycle's access) and hw2reg_t, which the package gets.
- rnic_spec.md: the tables the docs point to.
- gtkwave/NAME.txt: a GTKWave translate filter file per enum (not for flags,
  which combine and have no single name): `value name` per line, the value
  in hex as GTKWave shows a signal as wide as the enum. The views in
  waveforms/ show trace_event, verdicts, statuses and opcodes through them.

usage: gen_spec.py rnic.toml OUTDIR [NAME=NUMBER ...]   (overrides a parameter's value)
"""
import re
import sys
import ast
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


def load(path, overrides=None):
    with open(path, "rb") as f:
        spec = tomllib.load(f)
    # A build at another size (DATA_BYTES=32, NUM_QP=1024) overrides a
    # parameter's value here, before anything derives from it, so the
    # package, the headers and the docs of that build agree with each other.
    for k, v in (overrides or {}).items():
        if k not in spec["params"] or "value" not in spec["params"][k]:
            die(f"override {k}: not a parameter with a value in {path}")
        spec["params"][k]["value"] = v
    sv_parts = [Path(path).parent / p for p in spec.get("sv_package_parts", [])]
    params = {}
    for k, v in spec["params"].items():
        if ("value" in v) == ("expr" in v):
            die(f"parameter {k}: one of value and expr")
        params[k] = v["value"] if "value" in v else eval_expr(v["expr"], params, k)
    regs = spec.get("reg", [])
    seen = {}
    for r in regs:
        count = r.get("count", 1)
        r["count_param"] = count if isinstance(count, str) else None
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
              "rtl_only": s.get("rtl_only", False), "event": s.get("event"), "fields": []}
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

    for r in regs:
        check_reg(r, params, enums)
    check_event_args(enums, structs)

    wire = spec.get("wire", {})
    consts = [(k, v) for k, v in wire.items() if k != "doc"]
    for k, v in consts:
        if v["value"].bit_length() > v["width"]:
            die(f"wire {k}: {v['value']} does not fit in {v['width']} bits")
    return {"spec": spec, "sv_parts": sv_parts, "params": params, "regs": regs, "enums": enums, "structs": structs,
            "wire_doc": wire.get("doc", ""), "wire": consts}


# The enum of the trace port's event codes; its value 0 is "no event".
TRACE_EVENTS = "EV"


def check_event_args(enums, structs):
    """Every trace event has one arg layout (a struct with `event`), as wide
    as trace_arg, so no event can be logged without its fields' names."""
    events = dict(enums[TRACE_EVENTS]["items"])
    owner = {}
    for st in structs.values():
        ev = st["event"]
        if ev is None:
            continue
        if ev not in events:
            die(f"{st['name']}: event {ev} is no {TRACE_EVENTS} value")
        if ev in owner:
            die(f"{st['name']}: event {ev} already has the layout {owner[ev]}")
        if st["bits"] != 64 or st["rtl_only"]:
            die(f"{st['name']}: an event's arg is 64 bits that software sees")
        for fd in st["fields"]:
            if fd["count"] is not None or fd["view"] or fd["word"] is not None:
                die(f"{st['name']}.{fd['name']}: an arg field is a plain bit range")
        owner[ev] = st["name"]
    missing = [k for k, v in events.items() if v != 0 and k not in owner]
    if missing:
        die(f"no arg layout (a struct with event = ...) for {', '.join(missing)}")


REG_KEYS = {"name", "offset", "access", "doc", "fields", "count", "count_param", "stride", "bits", "type",
            "resval", "value", "hwext", "hwload", "hwre"}
FIELD_KEYS = {"name", "bits", "doc", "access", "resval", "value"}
ACCESS = {"ro", "rw", "wo", "w1c", "cmd"}


def value_params(v):
    """The parameters a register `value` names."""
    if isinstance(v, int):
        return []
    m = re.fullmatch(r"clog2\((\w+)\)", v)
    return [m.group(1) if m else v]


def eval_expr(text, params, where):
    """A derived parameter: integers, the parameters above it, + - * and
    // (floor division), and parentheses; nothing else is evaluated."""
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in params:
            return params[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        die(f"parameter {where}: {text!r} is not integers, earlier parameters, + - * // and parentheses")
    try:
        return ev(ast.parse(text, mode="eval"))
    except SyntaxError:
        die(f"parameter {where}: {text!r} does not parse")


def eval_value(v, params, where):
    if isinstance(v, int):
        return v
    for p in value_params(v):
        if p not in params:
            die(f"{where}: value {v!r} names no parameter")
    m = re.fullmatch(r"clog2\((\w+)\)", v)
    return (params[m.group(1)] - 1).bit_length() if m else params[v]


def check_reg(r, params, enums):
    """Validate the keys that tell how a register behaves (the register
    block's decode is generated from them), and fill in the defaults."""
    name = r["name"]
    for k in r:
        if k not in REG_KEYS:
            die(f"{name}: unknown key {k!r}")
    acc = r["access"]
    if acc not in ACCESS:
        die(f"{name}: unknown access {acc!r}")
    r["bits_given"] = "bits" in r
    msb, lsb = r.get("bits", [31, 0])
    if lsb != 0 or not 0 <= msb <= 31:
        die(f"{name}: bits must be [msb, 0], msb < 32")
    r["width"] = msb + 1
    r["hwext"] = r.get("hwext", False)
    r["hwload"] = r.get("hwload", False)
    r["hwre"] = r.get("hwre", False)
    if r["count"] > 1:
        if acc != "wo" and not (acc == "w1c" and not r["fields"]):
            die(f"{name}: only a wo register, or a w1c one without fields, may have a count")
        st = r["stride"]
        if st < 4 or st & (st - 1):
            die(f"{name}: stride {st} is not a power of two of at least 4")
    if (acc == "cmd") != ("type" in r):
        die(f"{name}: a cmd register, and only one, names the enum it carries (`type`)")
    if acc == "cmd":
        if r["type"] not in enums or enums[r["type"]]["flags"]:
            die(f"{name}: type {r['type']} is not an enum")
        r["wwidth"] = enums[r["type"]]["width"]
    if r["hwext"] and acc != "rw":
        die(f"{name}: hwext is for an rw register")
    if r["hwload"] and (acc != "rw" or r["hwext"]):
        die(f"{name}: hwload is for an rw register the block stores")
    if r["hwre"] and acc in ("wo", "cmd"):
        die(f"{name}: hwre on a register that reads 0")
    stored = acc == "w1c" or (acc == "rw" and not r["hwext"])
    fields = sorted(r["fields"], key=lambda f: f["bits"][1])
    for a, b in zip(fields, fields[1:]):
        if a["bits"][0] >= b["bits"][1]:
            die(f"{name}: fields {a['name']} and {b['name']} share bits")
    for f in fields:
        where = f"{name}.{f['name']}"
        for k in f:
            if k not in FIELD_KEYS:
                die(f"{where}: unknown key {k!r}")
        if f["bits"][0] > msb:
            die(f"{where}: past the register's bits [{msb}:0]")
        fa = f.get("access", acc)
        if fa != acc and not (fa == "wo" and acc == "rw" and stored):
            die(f"{where}: access {fa} in a {acc} register (only wo in a stored rw register)")
        if fa == "wo" and r["hwload"]:
            die(f"{where}: a wo field in a register the hardware loads")
    if acc == "ro":
        vals = [f for f in fields if "value" in f]
        if vals and (len(vals) != len(fields) or "value" in r):
            die(f"{name}: either the register or every one of its fields has a value")
    elif "value" in r or any("value" in f for f in fields):
        die(f"{name}: only an ro register has a value")
    if ("resval" in r or any("resval" in f for f in fields)) and not stored:
        die(f"{name}: resval on a register the block does not store")
    r["kind"] = ("stored" if stored else "ext" if acc in ("rw", "ro") else acc)
    if acc == "ro" and ("value" in r or any("value" in f for f in fields)):
        r["kind"] = "const"
    if acc == "cmd" and not r["bits_given"]:
        r["readable"] = False
    else:
        r["readable"] = acc != "wo"

    # Segments, msb first: the fields and the unnamed bits between them,
    # each with what it does.
    segs, pos = [], 0
    for f in fields + [None]:
        lo = f["bits"][1] if f else msb + 1
        if lo > pos:
            segs.append({"name": None, "lsb": pos, "msb": lo - 1, "access": acc,
                         "value": 0 if r["kind"] == "const" and "value" not in r else None})
        if f:
            segs.append({"name": f["name"], "lsb": f["bits"][1], "msb": f["bits"][0],
                         "access": f.get("access", acc), "value": f.get("value"), "resval": f.get("resval")})
            pos = f["bits"][0] + 1
    resval = r.get("resval", 0)
    for sg in segs:
        sg["width"] = sg["msb"] - sg["lsb"] + 1
        if sg.get("resval") is None:
            sg["resval"] = (resval >> sg["lsb"]) & ((1 << sg["width"]) - 1)
        elif sg["resval"] >> sg["width"]:
            die(f"{name}.{sg['name']}: resval does not fit in {sg['width']} bits")
        if sg["value"] is not None and eval_value(sg["value"], params, name) >> sg["width"]:
            die(f"{name}.{sg['name']}: value {sg['value']} does not fit in {sg['width']} bits")
    if resval >> r["width"]:
        die(f"{name}: resval does not fit in {r['width']} bits")
    if "value" in r and eval_value(r["value"], params, name) >> r["width"]:
        die(f"{name}: value {r['value']} does not fit in {r['width']} bits")
    r["segs"] = list(reversed(segs))
    # A stored register is one flop vector unless some of it is not stored.
    r["split"] = stored and any(sg["access"] == "wo" for sg in segs)


def reg_id(r):
    return member_name(r["name"])


def reg_type(r):
    """A register's value: its struct where it has fields, else a vector."""
    return type_name("reg_" + r["name"]) if r["fields"] else logic(r["width"])


def reg2hw_members(regs):
    """(member, SV type, width, doc) of rnic_pkg::reg2hw_t, first = most significant:
    what the registers software wrote hold, functions of flip-flops only."""
    out = []
    for r in regs:
        if r["kind"] == "stored" and r["count"] > 1:
            w = r["width"] * r["count"]
            out.append((reg_id(r), logic(w), w, f"stored values, element n at [{r['width']}*n +: {r['width']}]"))
        elif r["kind"] == "stored":
            doc = "stored value" + ("; its wo fields read 0 here (reg_access_t has them)" if r["split"] else "")
            out.append((reg_id(r), reg_type(r), r["width"], doc))
    return out


def reg_access_members(regs):
    """(member, SV type, width, doc) of rnic_pkg::reg_access_t: what this
    cycle's access does (the strobes, the bits a command or doorbell writes).
    Apart from reg2hw_t because these follow the BAR request's lines within
    the cycle: logic that reads only stored values then depends on no input
    of the NIC, which a simulator evaluates once a cycle, not at each input
    change (docs/performance.md, "Simulation speed")."""
    out = [("hit", "reg_hit_t", len(regs), "a valid access names this register (all zero with none)")]
    for r in regs:
        n, k = reg_id(r), r["kind"]
        if k == "stored" and r["split"]:
            out.append((n + "_wr", reg_type(r), r["width"], "the bits written (its wo fields), with _qe"))
            out.append((n + "_qe", "logic", 1, "written this cycle"))
        elif k == "cmd":
            out.append((n, logic(r["wwidth"]), r["wwidth"], f"{type_name(r['type'])}: the command written, with _qe"))
            out.append((n + "_qe", "logic", 1, "written this cycle"))
        elif k == "wo" or (k == "ext" and r["access"] == "rw"):
            out.append((n, reg_type(r), r["width"], "the bits written, with _qe"))
            out.append((n + "_qe", "logic", 1, "written this cycle"))
            if r["count"] > 1:
                out.append((n + "_idx", "logic [15:0]", 16, "the element written, with _qe"))
        if r["hwre"]:
            out.append((n + "_re", "logic", 1, "read this cycle"))
    return out


def hw2reg_members(regs):
    """(member, SV type, width, doc) of rnic_pkg::hw2reg_t."""
    out = []
    for r in regs:
        n, k = reg_id(r), r["kind"]
        if k == "ext" or (k == "cmd" and r["readable"]):
            out.append((n, reg_type(r) if k == "ext" else logic(r["width"]), r["width"], "what a read returns"))
        if r["access"] == "w1c" and r["count"] > 1:
            w = r["width"] * r["count"]
            out.append((n + "_set", logic(w), w, f"bits to set, element n at [{r['width']}*n +: {r['width']}] (a write of 1 in the same cycle clears)"))
        elif r["access"] == "w1c":
            out.append((n + "_set", reg_type(r), r["width"], "bits to set (a write of 1 in the same cycle clears)"))
        if r["hwload"]:
            out.append((n + "_d", reg_type(r), r["width"], "value to load, with _de"))
            out.append((n + "_de", "logic", 1, "load _d (a software write in the same cycle wins)"))
    return out


def sv_regblock_types(regs):
    """The package's part of the register block: a struct per register with
    fields, the hit vector, reg2hw_t and hw2reg_t with their widths (Yosys
    0.23 takes no $bits of a package type, so the widths are numbers)."""
    out = ["  // BAR0 register block (rnic_reg_decode.sv): one struct per register with fields"]
    for r in regs:
        if not r["fields"]:
            continue
        out.append("  typedef struct packed {")
        for sg in r["segs"]:
            mem = member_name(sg["name"]) if sg["name"] else f"rsvd_{sg['lsb']}"
            rng = f"[{sg['msb']}:{sg['lsb']}]" if sg["width"] > 1 else f"[{sg['lsb']}]"
            out.append(f"    {logic(sg['width'])} {mem};  // {rng}")
        out.append(f"  }} {type_name('reg_' + r['name'])};")
    out.append("  // One bit per register: the offset names it")
    out.append("  typedef struct packed {")
    for r in regs:
        out.append(f"    logic {reg_id(r)};")
    out.append("  } reg_hit_t;")
    for tname, members, what in (("reg2hw", reg2hw_members(regs), "register block to hardware: the stored values"),
                                 ("reg_access", reg_access_members(regs), "register block to hardware: this cycle's access"),
                                 ("hw2reg", hw2reg_members(regs), "hardware to register block")):
        if not members:
            die(f"{tname}_t would be empty")
        out.append(f"  // {what}")
        out.append(f"  localparam int unsigned {tname.upper()}_BITS = {sum(m[2] for m in members)};")
        out.append("  typedef struct packed {")
        for mem, t, _, doc in members:
            out.append(f"    {t} {mem};  // {doc}")
        out.append(f"  }} {tname}_t;")
    out.append("")
    return out


def sv_value(v, w):
    if isinstance(v, int):
        return f"{w}'d{v}"
    m = re.fullmatch(r"clog2\((\w+)\)", v)
    return f"{w}'($clog2({m.group(1)}))" if m else f"{w}'({v})"


def cat(parts):
    """parts: (width, expr), msb first; zero-extended to 32 bits."""
    width = sum(w for w, _ in parts)
    if width < 32:
        parts = [(32 - width, f"{32 - width}'d0")] + parts
    return parts[0][1] if len(parts) == 1 else "{" + ", ".join(e for _, e in parts) + "}"


def wslice(msb, lsb):
    return f"req_wdata[{msb}:{lsb}]" if msb > lsb else f"req_wdata[{lsb}]"


def stored_parts(r):
    """(width, expr), msb first: what a stored register holds, as the
    hardware and a read see it (its wo fields 0: they are strobes, not kept)."""
    if r["split"]:
        return [(sg["width"], f"{sg['width']}'d0" if sg["access"] == "wo" else seg_q(r, sg)) for sg in r["segs"]]
    return [(r["width"], f"{reg_id(r)}_q")]


def seg_q(r, sg):
    return f"{reg_id(r)}_{member_name(sg['name']) if sg['name'] else 'rsvd_' + str(sg['lsb'])}_q"


def gen_decode(m):
    regs, params = m["regs"], m["params"]
    used = set()
    for r in regs:
        if r["count_param"]:
            used.add(r["count_param"])
        for v in [r.get("value")] + [sg["value"] for sg in r["segs"]]:
            if v is not None:
                used.update(value_params(v))
    mparams = [p for p in params if p in used]
    out = [f"// {BANNER}",
           "// The BAR0 register block's decode, from the [[reg]] tables of rnic.toml:",
           "// which register an offset names, what a read returns, the registers",
           "// software writes and this block stores (back to their resval on reset",
           "// and on `clear`), and the strobes the hardware acts on. rnic_regs, which",
           "// instantiates it, does what a command, a doorbell or an event does.",
           "// Ports are flat vectors (Yosys 0.23 takes no struct port); r2h, acc and",
           "// h2r are their rnic_pkg::reg2hw_t / reg_access_t / hw2reg_t views.",
           "module rnic_reg_decode #("]
    out.append(",\n".join(f"  parameter int unsigned {p} = rnic_pkg::{p}" for p in mparams))
    out += [") (",
            "  input  logic        clk,",
            "  input  logic        rst_n,",
            "  input  logic        clear,       // synchronous, like !rst_n: soft reset",
            "  input  logic        req_valid,",
            "  input  logic        req_write,",
            "  input  logic [15:0] req_addr,",
            "  input  logic [31:0] req_wdata,",
            "  output logic [rnic_pkg::REG2HW_BITS-1:0] reg2hw,      // functions of flip-flops only",
            "  output logic [rnic_pkg::REG_ACCESS_BITS-1:0] access, // this cycle's access",
            "  input  logic [rnic_pkg::HW2REG_BITS-1:0] hw2reg,",
            "  output logic        known,       // a valid request names a register",
            "  output logic [31:0] rdata        // what a read of req_addr returns; 0 for no register or no read",
            ");",
            "  rnic_pkg::reg2hw_t  r2h;",
            "  rnic_pkg::reg_access_t acc;",
            "  rnic_pkg::hw2reg_t  h2r;",
            "  rnic_pkg::reg_hit_t hit;",
            "  logic we, re;",
            "  assign reg2hw = r2h;",
            "  assign access = acc;",
            "  assign h2r    = hw2reg;",
            "  assign we     = req_valid && req_write;",
            "  assign re     = req_valid && !req_write;",
            "  assign known  = hit != '0;",
            ""]

    # Address decode.
    arrays = [r for r in regs if r["count"] > 1]
    for r in arrays:
        out.append(f"  logic [15:0] {reg_id(r)}_off, {reg_id(r)}_idx;  // offset into {r['name']}, element number")
    # Only under a request: most cycles have none, and a simulator then
    # skips the compares (everything reading hit also asks for req_valid).
    out.append("  always_comb begin")
    out.append("    hit = '0;")
    for r in arrays:
        out.append(f"    {reg_id(r)}_off = '0;")
        out.append(f"    {reg_id(r)}_idx = '0;")
    out.append("    if (req_valid) begin")
    for r in regs:
        n, reg = reg_id(r), f"rnic_pkg::REG_{r['name']}"
        if r["count"] == 1:
            out.append(f"      hit.{n} = req_addr == {reg};")
            continue
        st = r["stride"]
        k = st.bit_length() - 1
        cnt = r["count_param"] or str(r["count"])
        out.append(f"      {n}_off = req_addr - {reg};")
        out.append(f"      {n}_idx = {n}_off >> {k};")
        out.append(f"      hit.{n} = req_addr >= {reg} && req_addr < {reg} + 16'({st} * {cnt}) &&")
        out.append(f"{' ' * (len(n) + 13)}{n}_off[{k - 1}:0] == {k}'d0;")
    out.append("    end")
    out.append("  end")
    out.append("")

    # Storage.
    flops = []   # (name, width, resval, next-state lines)
    arr_clear = []   # (register, element width, total width): w1c arrays
    for r in regs:
        if r["kind"] != "stored":
            continue
        n, w = reg_id(r), r["width"]
        wr = f"we && hit.{n}"
        if r["split"]:
            for sg in r["segs"]:
                if sg["access"] == "wo":
                    continue
                q = seg_q(r, sg)
                flops.append((q, sg["width"], sg["resval"],
                              [f"if ({wr}) {q} <= {wslice(sg['msb'], sg['lsb'])};"]))
            continue
        q = f"{n}_q"
        resval = sum(sg["resval"] << sg["lsb"] for sg in r["segs"])
        if r["count"] > 1:
            # An array of w1c words: a write clears in the element it names.
            tw = w * r["count"]
            arr_clear.append((n, w, tw))
            flops.append((q, tw, 0, [f"{q} <= ({q} | h2r.{n}_set) & ~{n}_clr;"]))
            continue
        if r["access"] == "w1c":
            lines = [f"{q} <= ({q} | h2r.{n}_set) & ~(({wr}) ? {wslice(w - 1, 0)} : {w}'d0);"]
        else:
            lines = [f"if ({wr}) {q} <= {wslice(w - 1, 0)};"]
            if r["hwload"]:
                lines.append(f"else if (h2r.{n}_de) {q} <= h2r.{n}_d;")
        flops.append((q, w, resval, lines))
    for q, w, _, _ in flops:
        out.append(f"  {logic(w)} {q};")
    for n, w, tw in arr_clear:
        out.append(f"  {logic(tw)} {n}_clr;   // the bits a write clears, in the element it names")
        out.append("  always_comb begin")
        out.append(f"    {n}_clr = '0;")
        out.append(f"    if (we && hit.{n}) {n}_clr[{w} * {n}_idx +: {w}] = {wslice(w - 1, 0)};")
        out.append("  end")
    out.append("  always_ff @(posedge clk) begin")
    out.append("    if (!rst_n || clear) begin")
    for q, w, rv, _ in flops:
        out.append(f"      {q} <= {w}'h{rv:X};")
    out.append("    end else begin")
    for _, _, _, lines in flops:
        out += [f"      {ln}" for ln in lines]
    out.append("    end")
    out.append("  end")
    out.append("")

    # To the hardware: the stored values and this cycle's access in blocks of
    # their own, so nothing ties the first to the BAR request's lines.
    out.append("  always_comb begin")
    for r in regs:
        n = reg_id(r)
        if r["kind"] != "stored":
            continue
        parts = stored_parts(r)
        value = parts[0][1] if len(parts) == 1 else "{" + ", ".join(e for _, e in parts) + "}"
        out.append(f"    r2h.{n} = {value};")
    out.append("  end")
    out.append("")
    out.append("  always_comb begin")
    out.append("    acc.hit = hit;")
    for r in regs:
        n, k = reg_id(r), r["kind"]
        wr = f"we && hit.{n}"
        if k == "stored" and r["split"]:
            out.append(f"    acc.{n}_wr = {wslice(r['width'] - 1, 0)};")
            out.append(f"    acc.{n}_qe = {wr};")
        elif k == "cmd" or k == "wo" or (k == "ext" and r["access"] == "rw"):
            w = r["wwidth"] if k == "cmd" else r["width"]
            out.append(f"    acc.{n} = {wslice(w - 1, 0)};")
            out.append(f"    acc.{n}_qe = {wr};")
            if r["count"] > 1:
                out.append(f"    acc.{n}_idx = {n}_idx;")
        if r["hwre"]:
            out.append(f"    acc.{n}_re = re && hit.{n};")
    out.append("  end")
    out.append("")

    # Read mux: a register that reads 0 is left to the default.
    out.append("  always_comb begin")
    out.append("    rdata = 32'd0;")
    out.append("    if (re) begin")
    out.append("      unique case (req_addr)")
    readable_arrays = [r for r in regs if r["readable"] and r["count"] > 1]
    for r in regs:
        if not r["readable"] or r["count"] > 1:
            continue
        n, k = reg_id(r), r["kind"]
        if k == "const":
            if "value" in r:
                parts = [(r["width"], sv_value(r["value"], r["width"]))]
            else:
                parts = [(sg["width"], sv_value(sg["value"], sg["width"])) for sg in r["segs"]]
        elif k in ("ext", "cmd"):
            parts = [(r["width"], f"h2r.{n}")]
        else:
            parts = stored_parts(r)
        out.append(f"        rnic_pkg::REG_{r['name']}: rdata = {cat(parts)};")
    out.append("        default: rdata = 32'd0;")
    out.append("      endcase")
    for r in readable_arrays:
        n, w = reg_id(r), r["width"]
        out.append(f"      if (hit.{n}) rdata = 32'({n}_q[{w} * {n}_idx +: {w}]);")
    out.append("    end")
    out.append("  end")
    out.append("endmodule")
    return "\n".join(out) + "\n"


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
    out += sv_regblock_types(regs)
    for part in m["sv_parts"]:
        out.append(f"  // ---- {part.name}, copied in whole (rnic.toml's sv_package_parts)")
        out += part.read_text().rstrip("\n").split("\n")
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


def names_fn(enum):
    return f"rnic_{enum.lower()}_name"


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The part of rnic_names.h that does not depend on the spec: the field
# descriptor and the printer every event's layout goes through.
NAMES_PRINTER = r"""
/* One field of an event's arg, for rnic_ev_arg_format. */
struct rnic_arg_field {
    const char *name;                      /* as printed: the spec's name in lower case */
    unsigned lsb, width;
    const char *(*value_name)(unsigned);   /* the field's enum; NULL: a number */
    unsigned hex_digits;                   /* a number printed in hex (a key); 0: decimal */
};

/* snprintf at offset `at` of buf[len], where the text so far may already
 * have run past the end: returns the length the text now needs. */
static inline int rnic_names_put(char *buf, size_t len, int at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int rnic_names_put(char *buf, size_t len, int at, const char *fmt, ...)
{
    const size_t off = (size_t)at;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf && off < len ? buf + off : NULL, buf && off < len ? len - off : 0, fmt, ap);
    va_end(ap);
    return n < 0 ? at : at + n;
}

/* "name=value ..." for each field; bits no field covers, if any are set,
 * as rest=0x..., so a layout that misses a bit the RTL sets shows. */
static inline int rnic_names_fields(const struct rnic_arg_field *f, size_t n, uint64_t v, char *buf, size_t len)
{
    int at = 0;
    uint64_t rest = v;
    for (size_t i = 0; i < n; i++) {
        const uint64_t mask = ~(uint64_t)0 >> (64u - f[i].width);
        const uint64_t x = (v >> f[i].lsb) & mask;
        rest &= ~(mask << f[i].lsb);
        const char *sep = i ? " " : "";
        const char *name = f[i].value_name ? f[i].value_name((unsigned)x) : NULL;
        if (name)
            at = rnic_names_put(buf, len, at, "%s%s=%s", sep, f[i].name, name);
        else if (f[i].value_name)   /* a value the enum does not have */
            at = rnic_names_put(buf, len, at, "%s%s=%llu?", sep, f[i].name, (unsigned long long)x);
        else if (f[i].hex_digits)
            at = rnic_names_put(buf, len, at, "%s%s=0x%0*llx", sep, f[i].name, (int)f[i].hex_digits,
                                (unsigned long long)x);
        else
            at = rnic_names_put(buf, len, at, "%s%s=%llu", sep, f[i].name, (unsigned long long)x);
    }
    if (rest)
        at = rnic_names_put(buf, len, at, "%srest=0x%016llx", n ? " " : "", (unsigned long long)rest);
    return at;
}
"""


def names_field(fd, enums):
    """The initializer of one struct rnic_arg_field."""
    t = fd["type"]
    value_name, digits = "NULL", 0
    if t in enums and not enums[t]["flags"]:
        if enums[t]["rtl_only"]:
            die(f"{fd['name']}: enum {t} is RTL only, software cannot name its values")
        value_name = names_fn(t)
    elif t is not None:
        # A key (or a set of flags) reads best as the number software writes.
        digits = (fd["width"] + 3) // 4
    return f"{{{c_string(fd['name'].lower())}, {fd['lsb']}u, {fd['width']}u, {value_name}, {digits}u}}"


def gen_names(m):
    enums, structs = m["enums"], m["structs"]
    out = [f"/* {BANNER} */",
           "/* Names for the numbers of rnic_hw.h, from the same spec: each enum's",
           " * values, and each trace event's arg field by field. For logs and test",
           " * reports; every function is static inline, so including this costs",
           " * nothing unused. */",
           "#ifndef RNIC_NAMES_H", "#define RNIC_NAMES_H", "",
           "#include <stdarg.h>", "#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>", ""]
    for e in enums.values():
        if e["rtl_only"]:
            continue
        what = "a flag's name (one bit)" if e["flags"] else "a value's name"
        out += [f"/* {e['doc']}: {what}, without RNIC_{e['name']}_; NULL for any other number. */",
                f"static inline const char *{names_fn(e['name'])}(unsigned v)", "{", "    switch (v) {"]
        out += [f"    case {v}u: return {c_string(k)};" for k, v in e["items"]]
        out += ["    default: return NULL;", "    }", "}", ""]
    out.append(NAMES_PRINTER)
    layouts = {st["event"]: st for st in structs.values() if st["event"]}
    out += [f"/* The fields of trace event `event`'s arg (the {TRACE_EVENTS}_ARG_* layouts) as",
            " * \"name=value ...\", snprintf style: writes what fits in buf[len] and",
            " * returns the length the whole text needs. An event with no layout",
            " * prints its arg whole. */",
            "static inline int rnic_ev_arg_format(unsigned event, uint64_t arg, char *buf, size_t len)", "{"]
    cases = []
    for k, v in enums[TRACE_EVENTS]["items"]:
        st = layouts.get(k)
        if st is None:
            continue
        var = k.lower()
        inits = ",\n        ".join(names_field(fd, enums) for fd in st["fields"])
        out.append(f"    static const struct rnic_arg_field {var}[] = {{\n        {inits}}};")
        cases.append(f"    case {v}u:   /* {k} */\n        return rnic_names_fields({var}, sizeof({var}) / sizeof({var}[0]), arg, buf, len);")
    out += ["    switch (event) {"] + cases
    out += ["    default: return rnic_names_put(buf, len, 0, \"arg=0x%016llx\", (unsigned long long)arg);",
            "    }", "}", "", "#endif"]
    return "\n".join(out) + "\n"


def cell(text):
    """Text for a Markdown table cell: a | would end the cell."""
    return text.replace("|", "\\|")


def value_note(x):
    """A register's or field's constant or reset value, for the tables."""
    if "value" in x:
        return f"= {x['value']}"
    if x.get("resval"):
        return f"reset {x['resval']:#x}"
    return ""


def reg_access_note(r):
    notes = [r["access"]]
    if r["bits_given"]:
        notes.append(f"bits {r['width'] - 1}:0" if r["width"] > 1 else "bit 0")
    if value_note(r):
        notes.append(value_note(r))
    return "; ".join(notes)


def gen_md(m):
    spec, regs, enums, structs = m["spec"], m["regs"], m["enums"], m["structs"]
    rtl_note = " (RTL only: software never sees it)"
    out = [f"<!-- {BANNER} -->", "# RNIC hardware interface", "",
           "## Parameters", "", "| name | value | meaning |", "| --- | --- | --- |"]
    for k, v in spec["params"].items():
        value = v["value"] if "value" in v else f"{m['params'][k]} (`{v['expr']}`)"
        out.append(f"| {k} | {value} | {cell(v['doc'])} |")
    out += ["", "## BAR0 registers", "", "| offset | name | access | meaning |", "| --- | --- | --- | --- |"]
    for r in regs:
        off = f"0x{r['offset']:04X}"
        if r["count"] > 1:
            off += f" + {r['stride']}n (n < {r['count']})"
        out.append(f"| {off} | {r['name']} | {reg_access_note(r)} | {cell(r['doc'])} |")
        for f in r["fields"]:
            msb, lsb = f["bits"]
            rng = f"{msb}" if msb == lsb else f"{msb}:{lsb}"
            note = "; ".join(n for n in (f.get("access"), value_note(f)) if n)
            out.append(f"| | .{f['name']} [{rng}] |{' ' + note if note else ''} | {cell(f['doc'])} |")
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


def gen_gtkwave_filters(m):
    """{file name: text} of the translate filter files. GTKWave matches a
    filter's keys against the value exactly as it would print it, so a key
    has as many hex digits as the enum's width gives (an 8-bit EV value 3
    is 03); the case does not matter."""
    out = {}
    for e in m["enums"].values():
        if e["flags"]:
            continue
        digits = (e["width"] + 3) // 4
        lines = [f"# {BANNER}",
                 f"# {e['name']}: {e['doc']} ({e['width']} bits, shown in hex)"]
        lines += [f"{v:0{digits}X} {k}" for k, v in e["items"]]
        out[f"{e['name'].lower()}.txt"] = "\n".join(lines) + "\n"
    return out


def write_if_changed(path, text):
    # Keeps timestamps stable so an unchanged spec does not re-verilate.
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    overrides = {}
    for arg in sys.argv[3:]:
        name, eq, value = arg.partition("=")
        if not eq or not value.isdigit():
            sys.exit(f"gen_spec.py: override {arg!r} is not NAME=NUMBER")
        overrides[name] = int(value)
    model = load(sys.argv[1], overrides)
    outdir = Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    write_if_changed(outdir / "rnic_pkg.sv", gen_sv(model))
    write_if_changed(outdir / "rnic_hw.h", gen_c(model))
    write_if_changed(outdir / "rnic_names.h", gen_names(model))
    write_if_changed(outdir / "rnic_spec.md", gen_md(model))
    write_if_changed(outdir / "rnic_reg_decode.sv", gen_decode(model))
    waves = outdir / "gtkwave"
    waves.mkdir(exist_ok=True)
    filters = gen_gtkwave_filters(model)
    for name, text in filters.items():
        write_if_changed(waves / name, text)
    for old in waves.glob("*.txt"):
        if old.name not in filters:
            old.unlink()   # an enum that left the spec: a view naming it must fail, not find it


if __name__ == "__main__":
    main()
