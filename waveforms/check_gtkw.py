#!/usr/bin/env python3
"""Checks that every signal a committed GTKWave view names exists in a trace.

usage: check_gtkw.py VIEW.gtkw TRACE.fst [fst2vcd]

A view whose signals were renamed in the RTL would open with empty rows;
this keeps the committed views honest. Exit 1 lists the missing names.
"""
import re
import subprocess
import sys


def trace_signals(fst, fst2vcd):
    vcd = subprocess.run([fst2vcd, fst], check=True, capture_output=True, text=True).stdout
    names, scope = set(), []
    for line in vcd.splitlines():
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scope.append(tok[2])
        elif tok[0] == "$upscope":
            scope.pop()
        elif tok[0] == "$var":
            names.add(".".join(scope + [tok[4]]))
        elif tok[0] == "$enddefinitions":
            break
    return names


def view_signals(view):
    wanted = []
    for line in open(view, encoding="utf-8"):
        line = line.strip()
        if not line or line[0] in "[@-*":
            continue
        # GTKWave writes a vector as name[msb:lsb]; an array element as name[i].
        wanted.append(line)
    return wanted


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    view, fst = sys.argv[1], sys.argv[2]
    fst2vcd = sys.argv[3] if len(sys.argv) > 3 else "fst2vcd"
    have = trace_signals(fst, fst2vcd)
    missing = []
    for name in view_signals(view):
        base = re.sub(r"\[\d+:\d+\]$", "", name)
        if name not in have and base not in have:
            missing.append(name)
    wanted = view_signals(view)
    if not wanted:
        print(f"{view}: names no signals")
        return 1
    for m in missing:
        print(f"{view}: {m} is not in {fst}")
    print(f"{view}: {len(wanted) - len(missing)} of {len(wanted)} signals found")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
