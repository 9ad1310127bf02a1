#!/usr/bin/env python3
"""Checks a GTKWave view against a trace it is meant to open.

usage: check_gtkw.py VIEW.gtkw TRACE.fst [FST2VCD]

- every signal the view names exists in the trace;
- every translate filter file it names (`^n path`) exists and has a line
  for every value each signal shown through it takes in the trace, written
  as GTKWave prints it in the signal's radix (a value missing from a filter
  would show as a bare number among names); no such signal has an enum
  table of its own in the trace (GTKWave would ignore the filter);
- every signal shown through the trace's own enum table (the view's flags
  carry GTKWave's enum bit, or no radix at all, which lets GTKWave use the
  table) has such a table, covering every value it takes;
- the view opens where it says: at a [timestart] GTKWave honours (a whole
  page after it lies in the trace), every marker in the trace and in what
  the window surely shows; each marker a `[*] marker` line promises is set
  and named, on a cycle where that NIC's trace port shows that event.

A view made from another trace, or a filter that misses a value the RTL
now produces, fails here instead of opening with empty rows, bare numbers or
markers on nothing. make_gtkw.py writes the views this checks; it reads
traces and views with the functions below. Exit 1 lists every problem.
"""
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

# GTKWave's trace flags (the hex number of a view's @ lines).
TR_HEX = 1 << 1
TR_DEC = 1 << 2
TR_BIN = 1 << 3
TR_OCT = 1 << 4
TR_BLANK = 1 << 9
TR_SIGNED = 1 << 10
TR_ASCII = 1 << 11
TR_FTRANSLATED = 1 << 13
TR_REAL = 1 << 18
TR_TIME = 1 << 31
TR_ENUM = 1 << 32
# The flags that choose how a value is printed. With none of them, GTKWave
# prints a signal through the trace's enum table when it has one.
TR_RADIX = TR_HEX | TR_DEC | TR_BIN | TR_OCT | TR_SIGNED | TR_ASCII | TR_REAL | TR_TIME | TR_ENUM

# GTKWave has 26 named markers, A to Z, in the `*` line after zoom and primary marker.
NAMED_MARKERS = 26
# What GTKWave gives the hierarchy tree when a view does not say ([sst_width]).
DEFAULT_SST_WIDTH = 200
# The wave area is the window less the tree, the signal pane and some chrome:
# scroll bar, pane handles, borders; 48 to 52 pixels in GTKWave 3.3.118
# (Debian 12). GTKWave may also widen the signal pane for a long name, which
# only narrows the wave area. So a view counts on the narrowest wave area
# for what must show, and on the widest for what must not run past the end.
CHROME_MIN, CHROME_MAX = 40, 64
PIXELS_PER_FRAME = 200

SPEC_DIR = Path(__file__).resolve().parent.parent / "rtl" / "spec"


def load_spec():
    """The spec as gen_spec.py reads it: event codes and their arg layouts
    come from rnic.toml, as they do for the RTL and the C headers."""
    sys.path.insert(0, str(SPEC_DIR))
    import gen_spec
    return gen_spec.load(SPEC_DIR / "rnic.toml")


def event_fields(spec, code):
    """{field: (lsb, width, enum items or None)} of an event's arg, and qpn."""
    name = {v: k for k, v in spec["enums"]["EV"]["items"]}[code]
    out = {"qpn": (None, 16, None)}
    for st in spec["structs"].values():
        if st["event"] == name:
            for fd in st["fields"]:
                e = spec["enums"].get(fd["type"])
                out[fd["name"].lower()] = (fd["lsb"], fd["width"], dict(e["items"]) if e else None)
    return out


def field_value(ev, field, fields):
    lsb, width, _ = fields[field]
    return ev.qpn if lsb is None else (ev.arg >> lsb) & ((1 << width) - 1)


class Event:
    """One cycle's event on one NIC's trace port."""

    def __init__(self, time, nic, code, qpn, arg):
        self.time, self.nic, self.code, self.qpn, self.arg = time, nic, code, qpn, arg


class Trace:
    def __init__(self):
        self.vars = {}        # name as a view writes it -> (id, width, bit or None)
        self.enums = {}       # id -> {value: name}, from the trace's enum tables
        self.start = self.end = None
        self.period = None    # the shortest time between two rising clock edges
        self.values = {}      # name -> set of values it takes
        self.events = []      # Event, in time order


def nic_prefixes(names):
    """rnicN.rnic_top. for every NIC whose trace port the trace holds."""
    out = []
    for n in names:
        m = re.fullmatch(r"((rnic\d+)\.rnic_top\.)trace_valid", n)
        if m:
            out.append((m.group(2), m.group(1)))
    return sorted(out)


def read_trace(fst, fst2vcd, want=()):
    """Reads the trace once: its signals (and their enum tables), its time
    span, the values each name in `want` takes, and every trace-port event.

    An event belongs to the cycle whose rising clock edge shows trace_valid
    high; its time is that edge, where trace_valid is seen to rise."""
    if not Path(fst).is_file():
        sys.exit(f"{fst}: no such trace")
    tr = Trace()
    proc = subprocess.Popen([fst2vcd, "-e", fst], stdout=subprocess.PIPE, text=True, bufsize=1 << 20)
    scope, tables, pending_enum = [], {}, None
    lines = iter(proc.stdout)
    for line in lines:
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scope.append(tok[2])
        elif tok[0] == "$upscope":
            scope.pop()
        elif tok[0] == "$attrbegin" and len(tok) > 4 and tok[1:3] == ["misc", "07"]:
            # fst2vcd -e writes an FST enum table as 07 NAME COUNT names...
            # values... HANDLE, and ties the next $var to one as 07 "" HANDLE.
            if tok[3] == '""':
                pending_enum = tok[4]
            else:
                n = int(tok[4])
                names, vals = tok[5:5 + n], tok[5 + n:5 + 2 * n]
                tables[tok[5 + 2 * n]] = {int(v, 2): k for k, v in zip(names, vals)}
        elif tok[0] == "$var":
            width, ident, name = int(tok[2]), tok[3], tok[4]
            full = ".".join(scope + [name])
            tr.vars[full] = (ident, width, None)
            if len(tok) > 6 and tok[5].startswith("["):
                tr.vars[full + tok[5]] = (ident, width, None)
                m = re.fullmatch(r"\[(\d+):(\d+)\]", tok[5])
                if m:
                    msb, lsb = int(m.group(1)), int(m.group(2))
                    for b in range(min(msb, lsb), max(msb, lsb) + 1):
                        tr.vars.setdefault(f"{full}[{b}]", (ident, width, b - min(msb, lsb)))
            if pending_enum is not None and pending_enum in tables:
                tr.enums[ident] = tables[pending_enum]
            pending_enum = None
        elif tok[0] == "$enddefinitions":
            break

    nics = nic_prefixes(tr.vars)
    port = ["clk", "trace_valid", "trace_event[7:0]", "trace_qpn[15:0]", "trace_arg[63:0]"]
    watch = {}             # id -> [(slot, bit or None)]
    slots = []             # current value per watched name
    for nic, prefix in nics:
        for p in port:
            if prefix + p not in tr.vars:
                sys.exit(f"{fst}: no {prefix + p}")
    names = [prefix + p for _, prefix in nics for p in port] + [w for w in want if w in tr.vars]
    for n in dict.fromkeys(names):
        ident, _, bit = tr.vars[n]
        watch.setdefault(ident, []).append((len(slots), bit))
        slots.append(0)
    index = {n: i for i, n in enumerate(dict.fromkeys(names))}
    wanted = [(w, index[w]) for w in want if w in tr.vars]
    seen = {w: set() for w, _ in wanted}
    ports = [(nic, [index[prefix + p] for p in port]) for nic, prefix in nics]
    clk_before = [0] * len(ports)

    last_edge = [None] * len(ports)

    def close(time):
        # Everything at `time` is in: sample the ports on a rising edge,
        # and note the values of the wanted names.
        for k, (nic, (clk, valid, code, qpn, arg)) in enumerate(ports):
            if slots[clk] and not clk_before[k]:
                if slots[valid]:
                    tr.events.append(Event(time, nic, slots[code], slots[qpn], slots[arg]))
                if last_edge[k] is not None and (tr.period is None or time - last_edge[k] < tr.period):
                    tr.period = time - last_edge[k]
                last_edge[k] = time
            clk_before[k] = slots[clk]
        for w, i in wanted:
            seen[w].add(slots[i])

    time = None
    for line in lines:
        c = line[0]
        if c == "#":
            if time is not None:
                close(time)
            time = int(line[1:])
            if tr.start is None:
                tr.start = time
            tr.end = time
            continue
        if c == "b":
            val, ident = line[1:].split()
            targets = watch.get(ident)
            if targets:
                v = int(val.replace("x", "0").replace("z", "0"), 2)
                for i, bit in targets:
                    slots[i] = v if bit is None else (v >> bit) & 1
        elif c in "01xz":
            targets = watch.get(line[1:].strip())
            if targets:
                for i, _ in targets:
                    slots[i] = 1 if c == "1" else 0
    if time is not None:
        close(time)
    if proc.wait() != 0:
        sys.exit(f"{fst2vcd} {fst} failed")
    if tr.period is None:
        sys.exit(f"{fst}: no two rising clock edges")
    tr.values = seen
    return tr


class View:
    def __init__(self):
        self.lines = []
        self.signals = []      # (name, flags, filter path or None)
        self.filters = []      # every path a ^n line names
        self.settings = {}     # [name] -> rest of the line
        self.zoom = None
        self.primary = None
        self.markers = {}      # letter -> time
        self.marker_names = {}
        self.promised = []     # (letter, name, nic, event name, conditions) from [*] marker lines


def marker_letter(i):
    return chr(ord("A") + i)


def parse_view(path):
    v = View()
    flags, current_filter = 0, None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        v.lines.append(line)
        s = line.strip()
        if not s:
            continue
        if s.startswith("[*]"):
            tok = shlex.split(s[3:]) if "marker" in s[3:].split()[:1] else []
            if tok and tok[0] == "marker":
                if len(tok) < 5:
                    sys.exit(f"{path}: {s}: want [*] marker LETTER \"name\" NIC EVENT [field=value ...]")
                conds = [t.split("=", 1) for t in tok[5:]]
                if any(len(c) != 2 for c in conds):
                    sys.exit(f"{path}: {s}: a condition is field=value")
                if not re.fullmatch(r"[A-Z]", tok[1]) or tok[1] in [p[0] for p in v.promised]:
                    sys.exit(f"{path}: {s}: a marker is one letter A to Z, each once")
                v.promised.append((tok[1], tok[2], tok[3], tok[4], conds))
            continue
        if s.startswith("["):
            m = re.fullmatch(r"\[(\w+)\]\s*(.*)", s)
            if not m:
                continue
            key, rest = m.group(1), m.group(2)
            if key == "markername" and rest:
                v.marker_names[rest[0]] = rest[1:]
            else:
                v.settings[key] = rest
            continue
        if s[0] == "*":
            nums = s[1:].split()
            v.zoom = float(nums[0])
            v.primary = int(nums[1]) if len(nums) > 1 else -1
            for i, t in enumerate(nums[2:2 + NAMED_MARKERS]):
                if int(t) >= 0:
                    v.markers[marker_letter(i)] = int(t)
            continue
        if s[0] == "@":
            flags = int(s[1:], 16)
            continue
        if s[0] == "^":
            if s[1] in "<>":
                sys.exit(f"{path}: {s}: only translate filter files are checked")
            parts = s[1:].split(None, 1)
            current_filter = parts[1].strip() if len(parts) > 1 and parts[0] != "0" else None
            if current_filter:
                v.filters.append(current_filter)
            continue
        if s[0] in "->":
            continue
        if s[0] in "+#:":
            sys.exit(f"{path}: {s}: aliases and synthesized vectors are not checked; name the signal")
        if flags & TR_BLANK:
            continue
        v.signals.append((s, flags, current_filter if flags & TR_FTRANSLATED else None))
    return v


def wave_widths(v):
    """(narrowest, widest) wave area in pixels the view's window leaves."""
    w = int(v.settings.get("size", "1600 900").split()[0])
    sst = int(v.settings.get("sst_width", DEFAULT_SST_WIDTH))
    sig = int(v.settings.get("signals_width", 300))
    base = w - sst - sig
    if base - CHROME_MAX < 100:
        sys.exit("the view leaves the waves under 100 pixels: widen [size] or narrow the panes")
    return base - CHROME_MAX, base - CHROME_MIN


def time_per_pixel(zoom):
    """GTKWave's scale: 2**-zoom time units to a frame of 200 pixels."""
    return 2.0 ** -zoom / PIXELS_PER_FRAME


def zoom_for(time_per_px):
    return -math.log2(time_per_px * PIXELS_PER_FRAME)


def window(v):
    """(start, end of what surely shows, end of the widest page)."""
    start = int(v.settings.get("timestart", "0"))
    lo, hi = wave_widths(v)
    tpp = time_per_pixel(v.zoom)
    return start, start + lo * tpp, start + hi * tpp


def display(value, width, flags):
    """A value as GTKWave prints it in the radix the flags choose (hex when
    none), which is what a filter file's keys must match."""
    if flags & TR_DEC:
        return str(value)
    if flags & TR_BIN:
        return format(value, f"0{width}b")
    if flags & TR_OCT:
        return format(value, f"0{(width + 2) // 3}o")
    return format(value, f"0{(width + 3) // 4}X")


def read_filter(path):
    keys = {}
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if s and not s.startswith("#"):
            k, _, name = s.partition(" ")
            keys[k.upper()] = name.strip()
    return keys


def by_enum(flags):
    return bool(flags & TR_ENUM) or not flags & TR_RADIX


def check(view_path, fst, fst2vcd):
    v = parse_view(view_path)
    problems = []
    if not v.signals:
        return [f"{view_path}: names no signals"]
    have = read_trace(fst, fst2vcd, [n for n, f, _ in v.signals if f & TR_FTRANSLATED or by_enum(f)])
    missing = [n for n, _, _ in v.signals if n not in have.vars]
    problems += [f"{view_path}: {n} is not in {fst}" for n in missing]

    # A relative filter path is taken from where this runs, as GTKWave
    # takes it from where it was started.
    filters = {}
    for p in dict.fromkeys(v.filters):
        if Path(p).is_file():
            filters[p] = read_filter(p)
        else:
            problems.append(f"{view_path}: filter file {p} does not exist")
    for name, flags, filt in v.signals:
        if name in missing:
            continue
        ident, width, bit = have.vars[name]
        width = 1 if bit is not None else width
        if flags & TR_FTRANSLATED:
            if ident in have.enums:
                # GTKWave prefers a signal's enum table to any filter file,
                # and with a radix set it shows neither: bare numbers.
                problems.append(f"{view_path}: {name} has an enum table in the trace, which GTKWave uses "
                                f"instead of a filter file: show it with no radix (@20)")
            elif filt is None:
                problems.append(f"{view_path}: {name} is shown through a filter, but no ^n line names one")
            elif filt in filters:
                keys = filters[filt]
                for val in sorted(have.values[name]):
                    if display(val, width, flags).upper() not in keys:
                        problems.append(f"{view_path}: {name} takes {display(val, width, flags)}, "
                                        f"which {Path(filt).name} does not name")
        if by_enum(flags):
            table = have.enums.get(ident)
            if table is None:
                problems.append(f"{view_path}: {name} is shown by its enum names, but {fst} has no enum table for it")
            else:
                for val in sorted(have.values[name] - set(table)):
                    problems.append(f"{view_path}: {name} takes {val}, which its enum table does not name")

    problems += check_time(view_path, v, have)
    if not problems:
        named = sum(1 for _, f, _ in v.signals if f & TR_FTRANSLATED or by_enum(f))
        print(f"{view_path}: {len(v.signals)} signals found, {named} shown by name; "
              f"{len(v.markers)} markers in the window it opens on")
    return problems


def check_time(view_path, v, have):
    problems = []
    if have.start is None:
        return [f"{view_path}: the trace holds no time"]
    if v.zoom is None:
        if v.promised or v.markers:
            problems.append(f"{view_path}: promises markers but has no zoom line (*); make it with make_gtkw.py")
        return problems
    t0, t1, page_end = window(v)
    if t0 < have.start:
        problems.append(f"{view_path}: opens at {t0}, before the trace ({have.start}..{have.end})")
    elif t0 > have.start and page_end > have.end:
        # GTKWave takes [timestart] only if a whole page after it is in the
        # trace; else it opens at the trace's start.
        problems.append(f"{view_path}: a page from {t0} runs to {page_end:.0f}, past the trace's end "
                        f"({have.end}): GTKWave would ignore [timestart]")
    points = dict(v.markers)
    if v.primary is not None and v.primary >= 0:
        points["primary"] = v.primary
    for k, t in points.items():
        if not have.start <= t <= have.end:
            problems.append(f"{view_path}: marker {k} at {t} is outside the trace ({have.start}..{have.end})")
        elif not t0 <= t <= t1:
            problems.append(f"{view_path}: marker {k} at {t} is outside what it surely shows ({t0}..{t1:.0f})")
    if v.promised:
        spec = load_spec()
        codes = dict(spec["enums"]["EV"]["items"])
        at = {(e.time, e.nic): e for e in have.events}
        for letter, name, nic, event, _ in v.promised:
            if letter not in v.markers:
                problems.append(f"{view_path}: marker {letter} ({name}) is not set")
                continue
            e = at.get((v.markers[letter], nic))
            if event not in codes:
                problems.append(f"{view_path}: marker {letter}: {event} is no trace event")
            elif e is None or e.code != codes[event]:
                problems.append(f"{view_path}: marker {letter} ({name}) at {v.markers[letter]} is not on "
                                f"a cycle where {nic} shows {event}")
            if v.marker_names.get(letter) != name:
                problems.append(f"{view_path}: marker {letter} is not named {name!r}")
    return problems


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    view, fst = sys.argv[1], sys.argv[2]
    fst2vcd = sys.argv[3] if len(sys.argv) > 3 else "fst2vcd"
    problems = check(view, fst, fst2vcd)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
