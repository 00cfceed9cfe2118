#!/usr/bin/env bash
# `prompts/get` of the first and of the last of 20,000 prompt files served by
# `mcpick serve --http`, side by side (first, last, first, last… for ROUNDS rounds), through
# wrk at 64 connections: the lookup by name must cost the same wherever the prompt is.
# Prints the median requests/s of each and their ratio.
#   bench/lookup.sh                   the release binary (built if missing), 5 rounds of 3 s
#   MCPICK=path/to/mcpick FILES=5000 ROUNDS=3 DURATION=2 bench/lookup.sh
# Needs wrk (apt-get install wrk).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mcpick="${MCPICK:-$root/target/release/mcpick}"
files="${FILES:-20000}"
rounds="${ROUNDS:-5}"
duration="${DURATION:-3}"
[ -x "$mcpick" ] || (cd "$root" && cargo build --release --locked >&2)
command -v wrk >/dev/null || { echo "bench/lookup.sh: needs wrk (apt-get install wrk)" >&2; exit 1; }
work="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

mkdir "$work/lib"
for ((i = 0; i < files; i++)); do
    printf -- '---\nname: p%05d\narguments:\n  - name: text\n    required: true\n---\nSay {{text}} (%d).\n' \
        "$i" "$i" >"$work/lib/p$(printf %05d "$i").mcpick.md"
done
"$mcpick" serve "$work/lib" --http 127.0.0.1:0 --ttl 1h </dev/null 2>"$work/stderr" >/dev/null &
pid=$!
url=""
for _ in $(seq 200); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/stderr" | head -1 || true)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/stderr" >&2; exit 1; }

cat >"$work/get.lua" <<'LUA'
wrk.method = "POST"
wrk.body = os.getenv("BODY")
done = function(summary, latency, requests)
    io.write(string.format("RESULT %d %d\n", summary.requests, summary.duration))
end
LUA
body() {
    printf '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"%s","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' "$1"
}
rate() {
    local name="$1" out
    out="$(BODY="$(body "$name")" wrk -t 2 -c 64 -d "${duration}s" -s "$work/get.lua" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: prompts/get' -H "Mcp-Name: $name" "$url")"
    grep -q 'Non-2xx' <<<"$out" && { echo "$out" >&2; exit 1; }
    awk '/^RESULT/ { printf "%.0f\n", $2 / ($3 / 1e6) }' <<<"$out"
}
first="p00000"
last="p$(printf %05d $((files - 1)))"
firsts=()
lasts=()
for ((round = 1; round <= rounds; round++)); do
    firsts+=("$(rate "$first")")
    lasts+=("$(rate "$last")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
f="$(median "${firsts[@]}")"
l="$(median "${lasts[@]}")"
printf '\nprompts/get of %d prompt files, wrk 64 connections, %s rounds of %ss, A B A B\n\n' "$files" "$rounds" "$duration"
printf '| prompt | req/s (median) | every round |\n|---|---|---|\n'
printf '| first (%s) | %s | %s |\n' "$first" "$f" "${firsts[*]}"
printf '| last (%s) | %s | %s |\n' "$last" "$l" "${lasts[*]}"
printf '\nlast / first: %s\n' "$(awk -v a="$l" -v b="$f" 'BEGIN { printf "%.2f", a / b }')"
