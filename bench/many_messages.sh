#!/usr/bin/env bash
# What an answer of very many tiny messages costs in memory: the peak resident memory (VmHWM)
# of `mcpick get` for 480,000 messages of a few bytes each (an answer of 31 MiB, within the
# default max_response_bytes of 32 MiB; tests/peers/chaos_server.py `tiny`), next to a small
# answer from the same server, over stdio. Prints one line per binary, so a build from before
# a change and one from after it can be set side by side; exits 1 when the last binary peaks
# at more than 4 times the answer (issue 53: 1.2 GB before).
#   bench/many_messages.sh [MCPICK...]   the binaries (default target/release/mcpick, built)
#   COUNT=100000 bench/many_messages.sh  another number of messages
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
binaries=("$@")
if [ "${#binaries[@]}" -eq 0 ]; then
    cargo build --release --bin mcpick --manifest-path "$root/Cargo.toml" >&2
    binaries=("$root/target/release/mcpick")
fi
count="${COUNT:-480000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"

# Runs mcpick with the given arguments, its stdout into $work/out; prints its exit code and
# its peak VmHWM in KiB.
peak() {
    "$mcpick" "$@" >"$work/out" 2>"$work/stderr" &
    local pid=$! top=0 kib
    while kill -0 "$pid" 2>/dev/null; do
        kib=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        if [ -n "$kib" ] && [ "$kib" -gt "$top" ]; then top=$kib; fi
        sleep 0.005
    done
    local code=0
    wait "$pid" || code=$?
    echo "$code $top"
}

cat >"$work/tiny.toml" <<EOF
[servers.chaos]
command = "python3"
args = ["$root/tests/peers/chaos_server.py", "tiny:$count"]
timeout_ms = 120000
EOF
# The answer's size, as the server writes it.
answer_bytes=$(printf '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"tiny"}}\n' |
    python3 "$root/tests/peers/chaos_server.py" "tiny:$count" | wc -c)
answer_kib=$((answer_bytes / 1024))
echo "answer: $count messages, $answer_kib KiB"
ratio_x10=0
for mcpick in "${binaries[@]}"; do
    read -r small_code small_kib < <(peak --config "$work/tiny.toml" get chaos/hello)
    started=$EPOCHREALTIME
    read -r big_code big_kib < <(peak --config "$work/tiny.toml" get chaos/tiny --format text)
    took=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if [ "$small_code" != 0 ] || [ "$big_code" != 0 ]; then
        echo "$mcpick: unexpected exit codes $small_code / $big_code: $(cat "$work/stderr")" >&2
        exit 1
    fi
    if ! tail -n 1 "$work/out" | grep -qx "m$((count - 1))"; then
        echo "$mcpick: the last message is missing from the output" >&2
        exit 1
    fi
    ratio_x10=$((big_kib * 10 / answer_kib))
    printf '%s\n    small answer %7d KiB   %d messages %7d KiB (%d.%d x the answer, %d.%d x above the small one)   %s s\n' \
        "$mcpick" "$small_kib" "$count" "$big_kib" $((ratio_x10 / 10)) $((ratio_x10 % 10)) \
        $(((big_kib - small_kib) * 10 / answer_kib / 10)) $(((big_kib - small_kib) * 10 / answer_kib % 10)) "$took"
done
[ "$ratio_x10" -le 40 ]
