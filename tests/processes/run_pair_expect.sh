#!/usr/bin/env bash
# run_pair.sh, and also fails unless the pair's output has TEXT in it: for
# a test whose fault must hit one exact moment, so that a change which
# moves the moment fails the test instead of passing it without the case.
#   run_pair_expect.sh TEXT run_pair.sh's arguments...
set -u
here=$(cd "$(dirname "$0")" && pwd)
text=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$here/run_pair.sh" "$@" >"$out" 2>&1
rc=$?
cat "$out"
if ! grep -qF -- "$text" "$out"; then
  echo "run_pair_expect: the output never says \"$text\""
  exit 1
fi
exit "$rc"
