#!/bin/sh
# dat.conf(5) against the code that reads dat.conf.
#   usage: dat_conf_manpage.sh PAGE GROFF SOURCE...
# 1. The page formats as a manual page with every groff warning on, and
#    without one (groff reports them on stderr and still succeeds).
# 2. Its ia_params keys (the tags `.BI key= ...` / `.BR key= ...` of the
#    IA PARAMETERS section) are exactly the keys the SOURCEs compare a word
#    of ia_params with: each "key=" string literal in them, but the
#    platform's name for it in the second column of registry.c's
#    {"sim_mode=", "mode="} table. A key added to the code without its
#    entry on the page fails, and so does a page entry the code dropped
#    (or a change in the code's shape that hides keys from this script).
set -eu
page=$1 groff=$2
shift 2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$groff" -man -Tutf8 -ww -z "$page" 2>"$tmp/warnings"; then
  echo "FAIL: groff cannot format $page"
  fail=1
fi
if [ -s "$tmp/warnings" ]; then
  echo "FAIL: groff warns on $page:"
  cat "$tmp/warnings"
  fail=1
fi

cat "$@" | sed 's/, *"[a-z_]*=" *}/}/g' | grep -o '"[a-z_]*="' | tr -d '"=' | sort -u >"$tmp/code"
sed -n '/^\.SH "*IA PARAMETERS/,/^\.SH/p' "$page" | sed -n 's/^\.B[IR]\{0,1\} \([a-z_]*\)=.*/\1/p' | sort -u >"$tmp/page"
if [ ! -s "$tmp/code" ]; then
  echo "FAIL: no ia_params key found in $*"
  fail=1
fi
for k in $(comm -23 "$tmp/code" "$tmp/page"); do
  echo "FAIL: ia_params key $k= is accepted by the code but not documented in $page"
  fail=1
done
for k in $(comm -13 "$tmp/code" "$tmp/page"); do
  echo "FAIL: $page documents ia_params key $k=, which the code does not accept"
  fail=1
done

# What a reader sees names every key too.
"$groff" -man -Tutf8 -P-cbou "$page" 2>/dev/null >"$tmp/text"
for k in $(cat "$tmp/code"); do
  grep -q "$k=" "$tmp/text" || { echo "FAIL: $k= does not show in the formatted page"; fail=1; }
done

[ "$fail" = 0 ] && echo "dat.conf(5): formats without warnings; documents the keys $(tr '\n' ' ' <"$tmp/code")"
exit "$fail"
