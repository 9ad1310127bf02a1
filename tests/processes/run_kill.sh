#!/usr/bin/env bash
# A peer killed mid-transfer: starts the victim (a server), then the
# survivor (a client that streams), waits until the survivor says
# "streaming", kills the victim with SIGKILL and requires the survivor to
# end well (it checks BROKEN and its flushed completions itself).
#   run_kill.sh LINK_PORT_BASE TIMEOUT_S 'victim command' 'survivor command'
set -u
export RNIC_LINK_PORT_BASE=$1
limit=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/victim.out" "$dir/survivor.out"

# shellcheck disable=SC2086
$3 >"$dir/victim.out" 2>&1 &
vpid=$!
exec 3<"$dir/victim.out"
wait_for() {  # fd text
  while IFS= read -r -t "$limit" line <&"$1"; do
    echo "$line"
    case $line in *"$2"*) return 0 ;; esac
  done
  return 1
}
if ! wait_for 3 listening; then echo "run_kill: the victim never listened"; kill -9 "$vpid"; exit 1; fi
sed 's/^/victim: /' <&3 &

# shellcheck disable=SC2086
timeout -k 5 "$limit" $4 >"$dir/survivor.out" 2>&1 &
spid=$!
exec 4<"$dir/survivor.out"
if ! wait_for 4 streaming; then echo "run_kill: the survivor never streamed"; kill -9 "$vpid" "$spid"; exit 1; fi
kill -9 "$vpid"
sed 's/^/survivor: /' <&4 &
wait "$spid"
rc=$?
wait "$vpid" 2>/dev/null
echo "run_kill: survivor exit $rc"
[ "$rc" = 0 ]
