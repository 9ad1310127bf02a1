#!/usr/bin/env python3
"""Makes the GTKWave view to open from a committed view and a fresh trace.

usage: make_gtkw.py TEMPLATE.gtkw TRACE.fst FILTER_DIR OUT.gtkw [FST2VCD]

The committed views in waveforms/ are templates: they name the signals,
their formats, and the moments of their story, one line each (lines that
begin `[*] template:` speak of the template and stay out of the view):

    [*] marker B "READ's CQE" rnic0 CQE_WRITTEN
    [*] marker C "WRITE's 1st packet" rnic0 PKT_FIRST wqe_idx=A

Marker B is the first CQE_WRITTEN on rnic0's trace port after marker A's
event; C the first PKT_FIRST after B whose arg field wqe_idx (as rnic.toml
lays out that event's arg; qpn is the trace_qpn) equals A's. A field's value
may be a number, a name of the field's enum, or an earlier marker's letter.

The made view names the trace and the filter files by absolute path (GTKWave
reads a filter path relative to where it was started, not to the view),
opens on the span of its markers, and puts the primary marker on the first.
The times are the trace's own, so a view never points at moments a changed
RTL no longer has: the build makes it again from the trace it comes with.
"""
import math
import re
import sys
from pathlib import Path

import check_gtkw as cg

# Room either side of the markers: a share of their span, and at least a few
# clock periods so a story of one moment still shows its surroundings.
MARGIN_SHARE = 0.08
MARGIN_PERIODS = 16


def resolve(promised, events, spec, where):
    """The event each promised marker falls on, in order."""
    codes = dict(spec["enums"]["EV"]["items"])
    found, prev = {}, None
    for letter, name, nic, event, conds in promised:
        if event not in codes:
            sys.exit(f"{where}: marker {letter}: {event} is no trace event (rnic.toml, enum EV)")
        fields = cg.event_fields(spec, codes[event])
        want = []
        for field, value in conds:
            if field not in fields:
                sys.exit(f"{where}: marker {letter}: {event} has no field {field} ({', '.join(fields)})")
            items = fields[field][2] or {}
            if re.fullmatch(r"[A-Z]", value):
                if value not in found:
                    sys.exit(f"{where}: marker {letter}: {value} is no earlier marker")
                ref = found[value]
                ref_fields = cg.event_fields(spec, ref.code)
                if field not in ref_fields:
                    sys.exit(f"{where}: marker {letter}: marker {value}'s event has no field {field}")
                want.append((field, cg.field_value(ref, field, ref_fields)))
            elif value in items:
                want.append((field, items[value]))
            else:
                try:
                    want.append((field, int(value, 0)))
                except ValueError:
                    sys.exit(f"{where}: marker {letter}: {field}={value} is no number, marker or "
                             f"name ({', '.join(items)})")
        hit = None
        for e in events:
            if prev is not None and (e.time < prev.time or e is prev):
                continue
            if e.nic == nic and e.code == codes[event] and \
                    all(cg.field_value(e, f, fields) == val for f, val in want):
                hit = e
                break
        if hit is None:
            after = f" after marker {promised[len(found) - 1][0]}" if found else ""
            sys.exit(f"{where}: marker {letter} ({name}): no {event} on {nic}{after} in the trace")
        found[letter] = prev = hit
    return found


def place(times, trace, view, where):
    """[timestart] and zoom that show every marker with some room around,
    however wide GTKWave makes the wave area; and that GTKWave honours: it
    ignores a [timestart] unless a whole page after it lies in the trace, so
    when the trace ends soon after the last marker, the room on the right
    shrinks first, then the room on the left."""
    lo, hi = cg.wave_widths(view)
    period = trace.period
    a, b, end = times[0], times[-1], trace.end - period
    margin = max((b - a) * MARGIN_SHARE, MARGIN_PERIODS * period)
    t0 = max(trace.start, int(a - margin))
    tpp = (b + margin - t0) / lo
    if t0 > trace.start and t0 + hi * tpp > end:
        # The page ends at the trace's end; t0 moves right until b shows.
        t0 = max(t0, int(math.ceil((b * hi - end * lo) / (hi - lo))))
        if t0 > a:
            sys.exit(f"{where}: the trace ends {trace.end - b} after the last marker, too soon "
                     f"for GTKWave to open on all the markers")
        tpp = (end - t0) / hi
    # A zoom a hair larger than asked shows a hair less: never past the end.
    return t0, math.ceil(cg.zoom_for(tpp) * 1e6) / 1e6


def make(template, fst, filter_dir, out, fst2vcd):
    view = cg.parse_view(template)
    if not view.promised:
        sys.exit(f"{template}: no [*] marker lines: what should the view open on?")
    trace = cg.read_trace(fst, fst2vcd)
    spec = cg.load_spec()
    found = resolve(view.promised, trace.events, spec, template)

    t0, zoom = place(sorted(e.time for e in found.values()), trace, view, template)
    named = [found[cg.marker_letter(i)].time if cg.marker_letter(i) in found else -1
             for i in range(cg.NAMED_MARKERS)]
    body = [f"[*] Made by waveforms/make_gtkw.py from {Path(template).name} and this trace: do not edit; "
            "edit the template in waveforms/."]
    placed = False
    for line in view.lines:
        s = line.strip()
        if s.startswith("[dumpfile]"):
            body.append(f'[dumpfile] "{Path(fst).resolve()}"')
            continue
        if s.startswith(("[timestart]", "[markername]", "[markername_long]", "*", "[*] template:")):
            continue
        if s.startswith("^") and s[1:2] not in "<>" and not s.startswith("^0"):
            n, path = s[1:].split(None, 1)
            target = (Path(filter_dir) / Path(path.strip()).name).resolve()
            if not target.is_file():
                sys.exit(f"{template}: {s}: no {target.name} in {filter_dir}")
            body.append(f"^{n} {target}")
            continue
        body.append(line)
        if s.startswith("[size]") and not placed:
            body += time_lines(t0, zoom, named, found, view)
            placed = True
    if not placed:
        # No [size]: the time lines go before the first signal line.
        first = next(i for i, l in enumerate(body) if l.strip().startswith(("@", "-")))
        body[first:first] = time_lines(t0, zoom, named, found, view)
    Path(out).write_text("\n".join(body) + "\n", encoding="utf-8")
    for letter, e in found.items():
        print(f"{Path(out).name}: marker {letter} at {e.time} ({e.nic} {event_name(spec, e.code)})")


def event_name(spec, code):
    return {v: k for k, v in spec["enums"]["EV"]["items"]}[code]


def time_lines(t0, zoom, named, found, view):
    names = {letter: name for letter, name, _, _, _ in view.promised}
    first = found[view.promised[0][0]].time
    out = [f"[timestart] {t0}", f"*{zoom:.6f} {first} " + " ".join(map(str, named))]
    out += [f"[markername] {letter}{names[letter]}" for letter in sorted(found)]
    return out


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    make(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else "fst2vcd")
    return 0


if __name__ == "__main__":
    sys.exit(main())
