#!/usr/bin/env bash
# Runs the official MCP conformance suite's prompt and completion SERVER scenarios against
# `mcpick serve --http` on tests/conformance/prompts, in both protocol eras
# (2025-11-25 with `initialize`, and stateless 2026-07-28). Exit 0 when every check passes.
#   MCPICK_BIN=path/to/mcpick tests/conformance/run-server.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=suite.sh
source "$here/suite.sh"

log="$(mktemp)"
"$mcpick" serve --http 127.0.0.1:0 "$here/prompts" 2>"$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT
url=""
for _ in $(seq 100); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -n1 || true)"
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "run-server.sh: mcpick serve did not start" >&2; cat "$log" >&2; exit 1; }

scenarios=(prompts-list prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image completion-complete)
passed=0
failed=0
for version in 2025-11-25 2026-07-28; do
    for scenario in "${scenarios[@]}"; do
        if out="$(timeout 120 "$node" "$suite" server --url "$url" --scenario "$scenario" --spec-version "$version" 2>&1)"; then
            passed=$((passed + 1))
            echo "pass  $version  $scenario  $(echo "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -o 'Passed: [0-9]*/[0-9]*' | tail -n1)"
        else
            failed=$((failed + 1))
            echo "FAIL  $version  $scenario"
            echo "$out" | sed 's/\x1b\[[0-9;]*m//g' | sed 's/^/      /'
        fi
    done
done
echo "conformance server scenarios: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
