#!/usr/bin/env bash
# What refusing an answer over max_response_bytes (32 MiB by default) costs in memory: the
# peak resident memory (VmHWM) of `mcpick get` for a 40 MB answer, next to a small answer
# from the same server, over stdio (tests/peers/chaos_server.py `huge`) and over Streamable
# HTTP (tests/peers/huge_http.py: a JSON body with its Content-Length, a chunked JSON body,
# one SSE event) and over the legacy HTTP+SSE transport. Prints one line per case, and
# exits 1 when a refusal costs more than the limit and 8 MiB (issue 35).
#   bench/refusal_memory.sh [MCPICK]    the binary (default target/release/mcpick, built)
#   LIMIT=4194304 bench/refusal_memory.sh   a max_response_bytes other than the default
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
mcpick="${1:-}"
if [ -z "$mcpick" ]; then
    cargo build --release --bin mcpick --manifest-path "$root/Cargo.toml" >&2
    mcpick="$root/target/release/mcpick"
fi
work="$(mktemp -d)"
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config"

# Runs mcpick with the given arguments; prints its exit code and peak VmHWM in KiB.
peak() {
    "$mcpick" "$@" >/dev/null 2>"$work/stderr" &
    local pid=$! top=0 kib
    while kill -0 "$pid" 2>/dev/null; do
        kib=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        if [ -n "$kib" ] && [ "$kib" -gt "$top" ]; then top=$kib; fi
        sleep 0.002
    done
    local code=0
    wait "$pid" || code=$?
    echo "$code $top"
}

# One case: CONFIG, the prompt of a small answer, the prompt of the 40 MB one.
measure() {
    local label="$1" config="$2" small="$3" big="$4"
    read -r small_code small_kib < <(peak --config "$config" get "$small")
    read -r big_code big_kib < <(peak --config "$config" get "$big")
    if [ "$small_code" != 0 ] || [ "$big_code" != 1 ]; then
        echo "$label: unexpected exit codes $small_code / $big_code: $(cat "$work/stderr")" >&2
        exit 1
    fi
    local cost=$((big_kib - small_kib)) verdict=ok
    # Refusing may hold the answer up to the limit (to parse it), never much beyond.
    [ "$cost" -le "$budget_kib" ] || { verdict=OVER; over=1; }
    printf '%-28s small answer %6d KiB   refusing 40 MB %6d KiB   cost %6d KiB (budget %d KiB: %s)\n' \
        "$label" "$small_kib" "$big_kib" "$cost" "$budget_kib" "$verdict"
}
# The budget of a refusal: the limit and 8 MiB.
budget_kib=$(( (${LIMIT:-33554432} + 8388608) / 1024 ))
over=0

cat >"$work/stdio.toml" <<EOF
[servers.chaos]
command = "python3"
args = ["$root/tests/peers/chaos_server.py", "huge:38.15"]
timeout_ms = 30000
${LIMIT:+max_response_bytes = $LIMIT}
EOF
measure "stdio" "$work/stdio.toml" chaos/hello chaos/huge

for framing in length chunked sse legacy-sse; do
    python3 "$root/tests/peers/huge_http.py" 38.15 "$framing" --port-file "$work/port.$framing" &
    servers+=("$!")
    for _ in $(seq 100); do [ -s "$work/port.$framing" ] && break; sleep 0.05; done
    cat >"$work/$framing.toml" <<EOF
[servers.h]
url = "http://127.0.0.1:$(cat "$work/port.$framing")/$([ "$framing" = legacy-sse ] && echo sse || echo mcp)"
$([ "$framing" = legacy-sse ] && echo 'transport = "sse"')
timeout_ms = 30000
${LIMIT:+max_response_bytes = $LIMIT}
EOF
    measure "http ($framing)" "$work/$framing.toml" h/hello h/huge
done
exit "$over"
