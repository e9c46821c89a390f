#!/usr/bin/env bash
# The chat example as three processes on 127.0.0.1: a server, bob (who waits
# for one line) and alice (who sends one). Every wait is bounded.
#   chat_test.sh <chat_server> <chat_client>
set -euo pipefail
server=$1 client=$2
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT

"$server" --port=0 --troupe.shutdown.grace-period=500ms > "$dir/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/^\*\*\* listening on port \([0-9]*\)$/\1/p' "$dir/server.log")
  [[ -n "$port" ]] && break
  sleep 0.1
done
[[ -n "$port" ]] || { echo "the server did not start:"; cat "$dir/server.log"; exit 1; }

# bob prints the first line he gets and ends.
timeout 20 "$client" --host=127.0.0.1 --port="$port" --name=bob --expect=1 \
  > "$dir/bob.log" 2>&1 < /dev/null &
bob_pid=$!
# alice speaks once bob is in the room.
for _ in $(seq 100); do
  [[ $(grep -c "accepted a connection" "$dir/server.log") -ge 1 ]] && break
  sleep 0.1
done
echo "hello bob" | timeout 20 "$client" --host=127.0.0.1 --port="$port" --name=alice \
  > "$dir/alice.log" 2>&1
wait "$bob_pid" || { echo "bob failed:"; cat "$dir/bob.log"; exit 1; }
grep -qx "alice: hello bob" "$dir/bob.log" || { echo "bob got:"; cat "$dir/bob.log"; exit 1; }
kill -TERM "$server_pid"
wait "$server_pid" || true
grep -q "lost a connection" "$dir/server.log" || { cat "$dir/server.log"; exit 1; }
echo "ok: bob got alice's line through the server"
