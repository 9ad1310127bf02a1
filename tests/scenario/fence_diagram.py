#!/usr/bin/env python3
"""Draws the bind fence of one scenario record as an SVG timing diagram.

usage: fence_diagram.py RECORD.csv OUT.svg

RECORD.csv is what `scenarios bind_send` writes under RNIC_SCENARIO_DIR
(cycle,nic,qpn,event,arg). The owner is rnic1, the peer rnic0. The diagram
has one lane per story: the owner's READ in flight, its BIND held and then
committed, its SEND, and the peer's use of the new context as rnic1's
protection table checked it. Exits 1 if the record lacks any of those.
"""
import csv
import sys
from html import escape

OWNER, PEER = 1, 0


def load(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.append((int(r["cycle"]), int(r["nic"]), int(r["qpn"]), r["event"], int(r["arg"], 16)))
    return rows


def first(rows, nic, event, pred=lambda r: True, after=-1):
    for r in rows:
        if r[1] == nic and r[3] == event and r[0] > after and pred(r):
            return r
    return None


def story(rows):
    hold = first(rows, OWNER, "FENCE_HOLD", lambda r: (r[4] >> 16) & 3 == 1)
    if not hold:
        raise ValueError("no FENCE_HOLD of a bind on rnic1")
    qp, bind_idx = hold[2], hold[4] & 0xFFFF
    owner = [r for r in rows if r[1] == OWNER and r[2] == qp]
    commit = first(owner, OWNER, "BIND_COMMIT", lambda r: r[4] & 0xFFFF == bind_idx)
    read_pkt = first(owner, OWNER, "PKT_FIRST", lambda r: r[4] & 0xFFFF == (bind_idx - 1) & 0xFFFF)
    read_done = first(owner, OWNER, "CQE_WRITTEN", lambda r: r[4] & 0xFFFF == (bind_idx - 1) & 0xFFFF)
    send_fetch = first(owner, OWNER, "WQE_FETCHED", lambda r: r[4] & 0xFFFF == (bind_idx + 1) & 0xFFFF)
    send_pkt = first(owner, OWNER, "PKT_FIRST", lambda r: r[4] & 0xFFFF == (bind_idx + 1) & 0xFFFF)
    bind_db = first(owner, OWNER, "DOORBELL", lambda r: (r[4] >> 16) & 3 == 0 and r[4] & 0xFFFF == bind_idx + 1)
    missing = [n for n, v in [("BIND_COMMIT", commit), ("the READ's first packet", read_pkt),
                              ("the READ's CQE", read_done), ("the SEND's fetch", send_fetch),
                              ("the SEND's first packet", send_pkt), ("the bind's doorbell", bind_db)] if v is None]
    if missing:
        raise ValueError("record lacks " + ", ".join(missing))
    key = commit[4] >> 32
    use = first(rows, OWNER, "RKEY_CHECK", lambda r: r[4] >> 32 == key, after=commit[0])
    if use is None:
        raise ValueError("no check of the new key on rnic1 after the commit")
    return dict(qp=qp, key=key, bind_db=bind_db[0], hold=hold[0], commit=commit[0], read_pkt=read_pkt[0],
                read_done=read_done[0], send_fetch=send_fetch[0], send_pkt=send_pkt[0], use=use[0],
                use_ok=(use[4] & 7) == 0)


def svg(s):
    t0 = min(s["read_pkt"], s["bind_db"]) - 200
    t1 = s["use"] + (s["use"] - t0) // 5
    width, left, right = 1100, 230, 30
    scale = (width - left - right) / (t1 - t0)

    def x(c):
        return left + (c - t0) * scale

    lanes = ["rnic1: RDMA READ", "rnic1: BIND", "rnic1: SEND", "rnic0 -> rnic1: WRITE with new context"]
    lane_y = {name: 70 + 60 * i for i, name in enumerate(lanes)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{70 + 60 * len(lanes) + 60}" '
           'font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="24" font-size="15" font-weight="bold">Bind fence on rnic1, QP {s["qp"]} '
           f'(generated from the scenario record of tests/scenario: bind_send)</text>',
           f'<text x="10" y="44">new rmr_context 0x{s["key"]:08x}; cycles of the lockstep fabric '
           f'(250 MHz: 4 ns each)</text>']
    for name, y in lane_y.items():
        out.append(f'<text x="10" y="{y + 5}">{escape(name)}</text>')
        out.append(f'<line x1="{left}" y1="{y}" x2="{width - right}" y2="{y}" stroke="#ddd"/>')

    def bar(lane, c0, c1, color, label):
        y = lane_y[lane]
        out.append(f'<rect x="{x(c0):.1f}" y="{y - 10}" width="{max(2.0, x(c1) - x(c0)):.1f}" height="20" '
                   f'fill="{color}" opacity="0.8"/>')
        out.append(f'<text x="{x(c0) + 4:.1f}" y="{y + 4}" fill="black">{escape(label)}</text>')

    def mark(lane, c, label, color="black"):
        y = lane_y[lane]
        out.append(f'<line x1="{x(c):.1f}" y1="{y - 16}" x2="{x(c):.1f}" y2="{y + 16}" stroke="{color}" '
                   'stroke-width="2"/>')
        # Labels near the right edge end at their mark instead of starting there.
        anchor = "end" if x(c) > width - 260 else "start"
        out.append(f'<text x="{x(c) + (-3 if anchor == "end" else 3):.1f}" y="{y - 19}" fill="{color}" '
                   f'text-anchor="{anchor}">{escape(label)} @{c}</text>')

    bar("rnic1: RDMA READ", s["read_pkt"], s["read_done"], "#9ecae1", "READ in flight")
    bar("rnic1: BIND", s["hold"], s["commit"], "#fdae6b", "held by the fence: waits to be the oldest")
    mark("rnic1: BIND", s["commit"], "commit", "#d94801")
    bar("rnic1: SEND", s["bind_db"], s["send_fetch"], "#fee0d2", "behind the bind: not fetched")
    mark("rnic1: SEND", s["send_pkt"], "first packet")
    mark("rnic0 -> rnic1: WRITE with new context", s["use"],
         "rkey check: " + ("granted" if s["use_ok"] else "REFUSED"), "#238b45" if s["use_ok"] else "red")
    # The commit as a vertical line through every lane: nothing of the QP starts left of it.
    ytop, ybot = lane_y[lanes[0]] - 30, lane_y[lanes[-1]] + 25
    out.append(f'<line x1="{x(s["commit"]):.1f}" y1="{ytop}" x2="{x(s["commit"]):.1f}" y2="{ybot}" '
               'stroke="#d94801" stroke-dasharray="4,3"/>')
    yaxis = ybot + 20
    out.append(f'<line x1="{left}" y1="{yaxis}" x2="{width - right}" y2="{yaxis}" stroke="black"/>')
    step = max(500, int((t1 - t0) / 8 / 500) * 500)
    c = (t0 // step + 1) * step
    while c < t1:
        out.append(f'<line x1="{x(c):.1f}" y1="{yaxis}" x2="{x(c):.1f}" y2="{yaxis + 5}" stroke="black"/>')
        out.append(f'<text x="{x(c) - 12:.1f}" y="{yaxis + 18}">{c}</text>')
        c += step
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        s = story(load(sys.argv[1]))
    except (ValueError, OSError, KeyError) as e:
        print(f"fence_diagram: {e}", file=sys.stderr)
        return 1
    if not (s["read_done"] < s["commit"] < s["send_fetch"] < s["send_pkt"] and s["commit"] < s["use"]):
        print("fence_diagram: the record does not show the fence's order", file=sys.stderr)
        return 1
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(svg(s))
    print(f"fence_diagram: {sys.argv[2]}: bind held {s['commit'] - s['hold']} cycles, "
          f"SEND's first packet {s['send_pkt'] - s['commit']} cycles after the commit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
