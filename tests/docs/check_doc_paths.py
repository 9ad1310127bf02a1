#!/usr/bin/env python3
"""Every file of the repository that a document names must exist.

Docs go stale by naming files that moved or went (the bring-up guide cited a
test file for months after it was gone). This reads each document given and
checks every repository path in it (a word starting with one of the
top-level folders, e.g. tests/driver/test_fence.c), and, for the documents
given with --tests, every bare test program name (test_xxx) against the
test sources. Paths under build/ are build output and are skipped.
"""
import argparse
import pathlib
import re
import sys

TOP = ("tests", "rtl", "sim", "driver", "libdat", "scripts", "docs", "waveforms")
PATH = re.compile(r"(?<![\w/.-])((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_])" % "|".join(TOP))
OUTPUTS = (".fst", ".vcd", ".pcap", ".svg")  # what runs write, never committed
TEST = re.compile(r"(?<![\w/.])(test_[a-z0-9_]+)\b")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--tests", nargs="*", default=[], help="documents whose test_xxx names must exist")
    ap.add_argument("docs", nargs="+")
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    sources = {p.stem for p in root.glob("tests/**/test_*.*")}
    missing = []
    for doc in a.docs + a.tests:
        text = (root / doc).read_text()
        for m in PATH.finditer(text):
            p = m.group(1)
            # A folder named with a trailing wildcard or placeholder, or a
            # path inside the build tree, is no file of the repository.
            before = text[max(0, m.start() - 6):m.start()]
            if before.endswith("build/") or "<" in p or p.endswith(OUTPUTS):
                continue
            # A name may leave out the extension (a program built from
            # tests/x/test_y.c, a module pair sim/src/runtime.{h,cpp}) or
            # stand for several files (rtl/rnic_hdr_*.sv).
            if not any(root.glob(p + "*")):
                missing.append(f"{doc}: {p}")
        if doc in a.tests:
            for m in TEST.finditer(text):
                if m.group(1) not in sources:
                    missing.append(f"{doc}: {m.group(1)} (no tests/**/{m.group(1)}.*)")
    for line in missing:
        print("missing:", line)
    print(f"{len(a.docs) + len(a.tests)} documents checked, {len(missing)} names missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
