#!/usr/bin/env bash
# Runs a server and a client as two processes, the way every uDAPL test
# tool is run, and fails unless both exit 0.
#   run_pair.sh LINK_PORT_BASE TIMEOUT_S 'server command' 'client command' [READY_TEXT]
# The client starts once the server has printed READY_TEXT (default
# "listening"): an event with a deadline, never a sleep. Both processes run
# under `timeout`, so a hang ends as a failure. Their output is prefixed
# with their role.
set -u
export RNIC_LINK_PORT_BASE=$1
limit=$2
server=$3
client=$4
ready=${5:-listening}

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/server.out"

# shellcheck disable=SC2086  # the commands are words
timeout -k 5 "$limit" $server >"$dir/server.out" 2>&1 &
spid=$!
exec 3<"$dir/server.out"
up=0
while IFS= read -r -t "$limit" line <&3; do
  echo "server: $line"
  case $line in *"$ready"*) up=1; break ;; esac
done
if [ "$up" != 1 ]; then
  echo "run_pair: the server never said \"$ready\""
  kill -9 "$spid" 2>/dev/null
  exit 1
fi
sed 's/^/server: /' <&3 &
drain=$!

# shellcheck disable=SC2086
timeout -k 5 "$limit" $client 2>&1 | sed 's/^/client: /'
crc=${PIPESTATUS[0]}
wait "$spid"
src=$?
wait "$drain"
echo "run_pair: server exit $src, client exit $crc"
[ "$src" = 0 ] && [ "$crc" = 0 ]
