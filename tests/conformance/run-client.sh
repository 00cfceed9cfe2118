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
# shellcheck source=suite.sh
source "$here/suite.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# SCENARIO[@VERSION]: without a version the suite picks the scenario's default.
# Client scenarios of the suite not run here, and why:
#   tools_call, elicitation-sep1034-client-defaults, sep-2322-client-request-state,
#   http-custom-headers, http-invalid-tool-headers, json-schema-*: about tools or
#   elicitation, not a prompts host.
default_cases=(
    initialize
    http-standard-headers
    request-metadata
    sse-retry
    # Auth scenarios at their default version (2025-11-25, or 2026-07-28 for those new there).
    auth/metadata-default
    auth/metadata-var1
    auth/metadata-var2
    auth/metadata-var3
    auth/basic-cimd
    auth/scope-from-www-authenticate
    auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined
    auth/scope-step-up
    auth/scope-retry-limit
    auth/token-endpoint-auth-basic
    auth/token-endpoint-auth-post
    auth/token-endpoint-auth-none
    auth/pre-registration
    auth/2025-03-26-oauth-metadata-backcompat
    auth/2025-03-26-oauth-endpoint-fallback
    auth/resource-mismatch
    auth/offline-access-scope
    auth/offline-access-not-supported
    auth/authorization-server-migration
    auth/iss-supported
    auth/iss-not-advertised
    auth/iss-supported-missing
    auth/iss-wrong-issuer
    auth/iss-unexpected
    auth/iss-normalized
    auth/metadata-issuer-mismatch
    # Machine grants (extension scenarios, run at their default version only: the suite
    # skips extensions at a given one): `oauth.grant` other than a person in a browser.
    auth/client-credentials-basic
    auth/client-credentials-jwt
    auth/wif-jwt-bearer
    auth/enterprise-managed-authorization
    # DPoP (extension too): tokens bound to mcpick's key when the server offers it.
    auth/dpop
    auth/dpop-nonce
    # The same on the 2026-07-28 wire (stateless, server/discover), where they exist there.
    auth/metadata-default@2026-07-28
    auth/metadata-var1@2026-07-28
    auth/metadata-var2@2026-07-28
    auth/metadata-var3@2026-07-28
    auth/basic-cimd@2026-07-28
    auth/scope-from-www-authenticate@2026-07-28
    auth/scope-from-scopes-supported@2026-07-28
    auth/scope-omitted-when-undefined@2026-07-28
    auth/scope-step-up@2026-07-28
    auth/scope-retry-limit@2026-07-28
    auth/token-endpoint-auth-basic@2026-07-28
    auth/token-endpoint-auth-post@2026-07-28
    auth/token-endpoint-auth-none@2026-07-28
    auth/pre-registration@2026-07-28
    # Skills (SEP-2640): the host lists skills without reading their files, and refuses a
    # picked skill whose SKILL.md fails its digest, size or front matter check.
    sep-2640-client-no-prefetch
    sep-2640-client-verify-digest
    sep-2640-client-verify-size
    sep-2640-client-verify-frontmatter
    # The 2025-03-26 back-compat scenarios on their own wire too.
    auth/2025-03-26-oauth-metadata-backcompat@2025-03-26
    auth/2025-03-26-oauth-endpoint-fallback@2025-03-26
)
cases=("$@")
[ "${#cases[@]}" -gt 0 ] || cases=("${default_cases[@]}")

# Check ids (or names) that must be SUCCESS in a scenario's checks.json (a silent client passes these
# scenarios otherwise).
required_checks() {
    case "$1" in
        initialize) echo "mcp-client-initialization" ;;
        http-standard-headers) echo "ClientMcpMethodHeader_prompts_list ClientMcpMethodHeader_prompts_get ClientMcpNameHeader_prompts_get" ;;
        # A client that never lists or never reads would have these SKIPPED or untestable.
        sep-2640-client-no-prefetch) echo "sep-2640-host-no-prefetch" ;;
        auth/client-credentials-basic) echo "client-credentials-basic-auth" ;;
        auth/client-credentials-jwt) echo "client-credentials-jwt-verified" ;;
        auth/wif-jwt-bearer) echo "wif-assertion-verified" ;;
        auth/enterprise-managed-authorization) echo "complete-flow-token-exchange complete-flow-jwt-bearer" ;;
        auth/dpop) echo "sep-1932-client-token-request-proof sep-1932-client-dpop-auth-scheme sep-1932-client-fresh-proof" ;;
        auth/dpop-nonce) echo "sep-1932-client-token-request-proof sep-1932-client-dpop-auth-scheme sep-1932-client-fresh-proof sep-1932-client-as-nonce sep-1932-client-rs-nonce" ;;
        sep-2640-client-verify-digest) echo "sep-2640-host-verify-digest" ;;
        sep-2640-client-verify-size) echo "sep-2640-host-size-mismatch-failure" ;;
        sep-2640-client-verify-frontmatter) echo "sep-2640-host-frontmatter-comparison" ;;
        *) ;;
    esac
}

# What must never reach mcpick's own output: the suite's client secrets, PEM keys, the
# tokens its servers issue, and (below) anything shaped like a JWT (ID tokens, assertions,
# issued tokens).
leaks=(conformance-test-secret conformance-test-xaa-secret 'PRIVATE KEY' cc-token- test-token-)
# A JWT: `eyJ` (a JSON header, base64url) at a token's start, then a dot and more. A bare
# `eyJ` is no test: a random OAuth `state` or PKCE challenge holds one now and then
# (`state=4f0eyJq33…` failed a run).
jwt_shape='(^|[^A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+'

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
    if ! out="$(XDG_DATA_HOME="$out_dir/data" XDG_STATE_HOME="$out_dir/state" timeout 180 "$node" "$suite" client \
        --command "$mcpick conformance-client" "${args[@]}" -o "$out_dir" 2>&1)"; then
        ok=0
    fi
    if echo "$out" | grep -q '^SKIPPED: scenario'; then
        ok=0
        out="$out
run-client.sh: the suite did not run it (not applicable at that version)"
    fi
    checks="$(find "$out_dir" -name checks.json | head -n1)"
    for id in $(required_checks "$scenario"); do
        if [ -z "$checks" ] || ! "$node" -e '
const [file, id] = process.argv.slice(1);
const checks = JSON.parse(require("fs").readFileSync(file, "utf8"));
process.exit(checks.some(c => (c.id === id || c.name === id) && c.status === "SUCCESS") ? 0 : 1);
' "$checks" "$id"; then
            ok=0
            out="$out
run-client.sh: no SUCCESS check $id"
        fi
    done
    # Secrets stay secret: nothing mcpick printed or logged holds the scenario's client
    # secrets, keys, assertions, ID tokens or the tokens the servers issued (the suite's own
    # output and checks.json do: they are not mcpick's).
    said=()
    while IFS= read -r file; do said+=("$file"); done < <(find "$out_dir" \( -name stdout.txt -o -name stderr.txt -o -name '*.log*' \) -type f)
    if [ "${#said[@]}" -eq 0 ]; then
        ok=0
        out="$out
run-client.sh: found none of mcpick's output to search for secrets"
    fi
    for secret in "${leaks[@]}"; do
        if [ "${#said[@]}" -gt 0 ] && leaked="$(grep -l -F -- "$secret" "${said[@]}")"; then
            ok=0
            out="$out
run-client.sh: mcpick's output holds a secret (${secret:0:12}…) in: $leaked"
        fi
    done
    if [ "${#said[@]}" -gt 0 ] && leaked="$(grep -l -E -- "$jwt_shape" "${said[@]}")"; then
        ok=0
        out="$out
run-client.sh: mcpick's output holds a JWT in: $leaked"
    fi
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
