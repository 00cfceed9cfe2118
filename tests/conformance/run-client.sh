#!/usr/bin/env bash
# Runs the official MCP conformance suite's CLIENT scenarios that concern a prompts host
# against `mcpick conformance-client` (initialization, HTTP standard headers, request
# metadata, SSE retry, and the auth/ scenarios), each at its default protocol version and,
# where the scenario exists there, again at 2026-07-28. Besides the suite's own verdict
# (exit 1 on any FAILURE or WARNING), scenarios that a client doing nothing would pass must
# show the SUCCESS checks of the requests they are about. Exit 0 when everything passes.
#   MCPICK_BIN=path/to/mcpick tests/conformance/run-client.sh [SCENARIO...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
peers="${MCPICK_PEERS_DIR:-$root/target/peers}"
mcpick="${MCPICK_BIN:-$root/target/debug/mcpick}"

bash "$root/tests/peers/setup.sh"
node="$(ls "$peers"/node22/node_modules/node-linux-*/bin/node 2>/dev/null | head -n1)"
[ -x "$node" ] || { echo "run-client.sh: no Node 22 for this machine under $peers/node22" >&2; exit 1; }
suite="$peers/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# SCENARIO[@VERSION]: without a version the suite picks the scenario's default.
default_cases=(
    initialize
    http-standard-headers
    request-metadata
    sse-retry
)
cases=("$@")
[ "${#cases[@]}" -gt 0 ] || cases=("${default_cases[@]}")

# Check ids (or names) that must be SUCCESS in a scenario's checks.json (a silent client passes these
# scenarios otherwise).
required_checks() {
    case "$1" in
        initialize) echo "mcp-client-initialization" ;;
        http-standard-headers) echo "ClientMcpMethodHeader_prompts_list ClientMcpMethodHeader_prompts_get ClientMcpNameHeader_prompts_get" ;;
        *) ;;
    esac
}

passed=0
failed=0
for case in "${cases[@]}"; do
    scenario="${case%@*}"
    args=(--scenario "$scenario")
    if [ "$case" != "$scenario" ]; then
        args+=(--spec-version "${case#*@}")
    fi
    out_dir="$work/$(echo "$case" | tr '/@' '__')"
    mkdir -p "$out_dir" "$out_dir/data"
    ok=1
    if ! out="$(XDG_DATA_HOME="$out_dir/data" timeout 180 "$node" "$suite" client \
        --command "$mcpick conformance-client" "${args[@]}" -o "$out_dir" 2>&1)"; then
        ok=0
    fi
    checks="$(find "$out_dir" -name checks.json | head -n1)"
    for id in $(required_checks "$scenario"); do
        if [ -z "$checks" ] || ! python3 -c '
import json, sys
checks = json.load(open(sys.argv[1]))
sys.exit(0 if any(sys.argv[2] in (c.get("id"), c.get("name")) and c.get("status") == "SUCCESS" for c in checks) else 1)
' "$checks" "$id"; then
            ok=0
            out="$out
run-client.sh: no SUCCESS check $id"
        fi
    done
    summary="$(echo "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' | tail -n1 || true)"
    if [ "$ok" -eq 1 ]; then
        passed=$((passed + 1))
        echo "pass  $case  $summary"
    else
        failed=$((failed + 1))
        echo "FAIL  $case  $summary"
        echo "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -v '^\s*$' | sed 's/^/      /'
    fi
done
echo "conformance client scenarios: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
