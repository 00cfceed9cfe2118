#!/usr/bin/env bash
# The binary's size against its budget (docs/benchmarks.md#binary-size), per cargo profile:
#   release  what `cargo install --locked --path .` installs: at most 30 MB (30,000,000 bytes)
#   dist     packaged releases (fat LTO, one codegen unit): at most 20 MB
# Builds each profile named (default: release) with --locked, prints its size, and exits 1
# when one is over its budget. .ci/run runs it for release.
set -euo pipefail
cd "$(dirname "$0")/.."

over=0
for profile in "${@:-release}"; do
    case "$profile" in
        release) budget=30000000 ;;
        dist) budget=20000000 ;;
        *) echo "binary_size.sh: no budget for profile '$profile' (release or dist)" >&2; exit 2 ;;
    esac
    cargo build --profile "$profile" --locked --bin mcpick >&2
    size=$(wc -c < "${CARGO_TARGET_DIR:-target}/$profile/mcpick" | tr -d ' ')
    mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }')
    if [ "$size" -le "$budget" ]; then
        echo "binary size, $profile: $mb MB ($size bytes), budget $((budget / 1000000)) MB: ok"
    else
        echo "binary size, $profile: $mb MB ($size bytes), OVER its budget of $((budget / 1000000)) MB" >&2
        echo "  (see docs/benchmarks.md#binary-size for what costs what)" >&2
        over=1
    fi
done
exit "$over"
