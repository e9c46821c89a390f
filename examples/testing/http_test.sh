#!/usr/bin/env bash
# The HTTP examples against curl on 127.0.0.1: routes, status codes, keep-alive,
# a body over the limit (413), a header over the limit (431), bytes that are no
# HTTP (400, and the server serves on), and HTTPS with a test CA. Every wait
# and every curl call is bounded.
#   http_test.sh <http_rest> <http_time_server> <http_client>
set -euo pipefail
rest=$1 time_server=$2 client=$3
command -v curl >/dev/null || { echo "curl is missing (make test installs it)"; exit 1; }
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Starts "$@" --port=0 with its output in $dir/$name.log; sets $port.
start() {
  local name=$1; shift
  "$@" --port=0 --troupe.shutdown.grace-period=200ms > "$dir/$name.log" 2>&1 &
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/^\*\*\* listening on port \([0-9]*\)$/\1/p' "$dir/$name.log")
    [[ -n "$port" ]] && return 0
    sleep 0.1
  done
  cat "$dir/$name.log"; fail "$name did not start"
}

c() { curl -sS --max-time 10 "$@"; }
code() { c -o /dev/null -w '%{http_code}' "$@"; }

start rest "$rest" --max-body=1024
base=http://127.0.0.1:$port

[[ $(code "$base/api/greeting") == 404 ]] || fail "GET of a missing key is not 404"
[[ $(code -X POST --data-binary 'hello' "$base/api/greeting") == 204 ]] || fail "POST is not 204"
[[ $(c "$base/api/greeting") == hello ]] || fail "GET does not return the value"
[[ $(code -X PUT --data-binary 'x' "$base/api/greeting") == 405 ]] || fail "PUT is not 405"
c -D - -o /dev/null -X PUT --data-binary 'x' "$base/api/greeting" | grep -qi '^Allow: GET, POST, DELETE' \
  || fail "405 without Allow"
[[ $(code "$base/nowhere") == 404 ]] || fail "an unknown path is not 404"
[[ $(code "$base/status") == 204 ]] || fail "/status is not 204"
# HEAD: a GET's headers, no body, and the connection stays in step.
head_out=$(c -sS -I "$base/nowhere" "$base/status" -w '%{http_code}\n')
grep -q "^404" <<< "$head_out" && grep -q "^204" <<< "$head_out" || fail "HEAD: $head_out"
[[ $(code -X DELETE "$base/api/greeting") == 204 ]] || fail "DELETE is not 204"
[[ $(code -X DELETE "$base/api/greeting") == 404 ]] || fail "a second DELETE is not 404"

# Troupe's own client against the server.
timeout 20 "$client" --host=127.0.0.1 --port="$port" --method=post --path=/api/k --payload=v1 \
  > "$dir/client.log" 2>&1 || { cat "$dir/client.log"; fail "the client's POST failed"; }
timeout 20 "$client" --host=127.0.0.1 --port="$port" --path=/api/k > "$dir/client.log" 2>&1 \
  || { cat "$dir/client.log"; fail "the client's GET failed"; }
grep -qx "Payload: v1" "$dir/client.log" || { cat "$dir/client.log"; fail "the client got no value"; }
if timeout 20 "$client" --host=127.0.0.1 --port="$port" --path=/nowhere > "$dir/client.log" 2>&1; then
  fail "the client's 404 exited with 0"
fi
grep -q "HTTP 404" "$dir/client.log" || { cat "$dir/client.log"; fail "the client saw no 404"; }

# Keep-alive: three requests, one connection.
connects=$(c -o /dev/null -o /dev/null -o /dev/null -w '%{num_connects}\n' \
             "$base/status" "$base/status" "$base/status" | paste -sd' ')
[[ "$connects" == "1 0 0" ]] || fail "keep-alive: connections per request were $connects"

# Limits.
head -c 2048 /dev/zero > "$dir/big"
[[ $(code -X POST --data-binary @"$dir/big" "$base/api/big") == 413 ]] || fail "a large body is not 413"
big_header=$(head -c 10000 /dev/zero | tr '\0' a)
[[ $(code -H "X-Big: $big_header" "$base/status") == 431 ]] || fail "a large header is not 431"

# Bytes that are no HTTP: 400, that connection closes, the server serves on.
reply=$(printf 'NONSENSE\r\n\r\n' | timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; cat >&3; cat <&3")
[[ "$reply" == "HTTP/1.1 400"* ]] || fail "garbage did not get 400 (got: ${reply:0:40})"
[[ $(code "$base/status") == 204 ]] || fail "the server stopped after garbage"

# The time server over HTTPS, with a CA of the test's own.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/ca.key" \
  -out "$dir/ca.pem" -days 2 -subj /CN=test-ca > /dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$dir/server.key" \
  -out "$dir/server.csr" -subj /CN=localhost > /dev/null 2>&1
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
  -out "$dir/server.pem" -days 2 > /dev/null 2>&1
start time "$time_server" --tls.certificate="$dir/server.pem" --tls.private-key="$dir/server.key"
# The certificate names localhost; curl reaches it at 127.0.0.1.
pin=(--resolve "localhost:$port:127.0.0.1")
now=$(c "${pin[@]}" --cacert "$dir/ca.pem" "https://localhost:$port/")
[[ "$now" == 20* ]] || fail "HTTPS did not give the time (got: $now)"
[[ $(code "${pin[@]}" --cacert "$dir/ca.pem" "https://localhost:$port/nowhere") == 404 ]] \
  || fail "HTTPS 404"
timeout 20 "$client" --host=localhost --port="$port" --tls.ca="$dir/ca.pem" > "$dir/client.log" 2>&1 \
  || { cat "$dir/client.log"; fail "the client over HTTPS failed"; }
# Without the CA, curl refuses the server's certificate.
if c "${pin[@]}" -o /dev/null "https://localhost:$port/" 2> /dev/null; then
  fail "curl trusted an unknown CA"
fi
echo "ok: routes, status codes, keep-alive, limits, garbage and HTTPS"
