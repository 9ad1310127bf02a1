#!/usr/bin/env bash
# The client/server pair over a lossy UDP link: run_pair.sh's arguments,
# with RNIC_LINK_FAULTS set by the caller. Passes only if both programs
# succeed (every byte checked) and the reliable connection had work to do:
# at least one resend (a RETRY event in RNIC_SIM_LOG's output), so a fault
# setting that stopped reaching the wire would fail here, not pass quietly.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
RNIC_SIM_LOG=1 "$here/run_pair.sh" "$@" >"$out" 2>&1
rc=$?
grep -v ' RKEY_CHECK \| DOORBELL \| WQE_FETCHED \| PKT_FIRST ' "$out"
retries=$(grep -c ' RETRY ' "$out")
naks=$(grep -c ' NAK_SENT ' "$out")
echo "run_lossy: exit $rc, $retries resends (RETRY events), $naks NAKs sent"
[ "$rc" = 0 ] && [ "$retries" -gt 0 ]
