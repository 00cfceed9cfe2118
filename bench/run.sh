#!/usr/bin/env bash
# Whole-process benchmarks (DESIGN.md §6): mcpick's command line against a minimal raw
# client (bench/floor.rs) and the official MCP Inspector CLI, parallel server start, and
# the full-screen menu's start and memory (benches/startup.rs). Prints one table.
#   bench/run.sh [RUNS]     timed runs per measurement (default 7, at least 5 advised)
# Installs the test peers (tests/peers/setup.sh) and the Inspector under target/, builds the
# release binary. Exits 0 whatever the budgets (a miss is marked OVER); exits 1 when a run
# gives a wrong answer or something cannot be set up.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${1:-7}"
case "$runs" in
    '' | *[!0-9]*)
        echo "usage: bench/run.sh [RUNS]" >&2
        exit 2
        ;;
esac
if [ "$runs" -lt 1 ]; then
    echo "bench/run.sh: RUNS must be at least 1" >&2
    exit 2
fi

# The official Inspector, pinned (its CLI: `mcp-inspector --cli COMMAND ARGS --method ...`).
inspector_version="2.12.0"
peers="${MCPICK_PEERS_DIR:-$root/target/peers}"
bench_peers="$root/target/bench-peers"
started=$SECONDS
step() { printf '\n== %s (%ds)\n' "$*" $((SECONDS - started)) >&2; }

step "test peers (tests/peers/setup.sh)"
bash "$root/tests/peers/setup.sh"
command -v node >/dev/null || {
    echo "bench/run.sh: node is needed (server-everything runs on it)" >&2
    exit 1
}
node="$(command -v node)"
node22=""
for candidate in "$peers"/node22/node_modules/node-linux-*/bin/node; do
    [ -x "$candidate" ] && node22="$candidate"
done
if [ -z "$node22" ]; then
    echo "bench/run.sh: no Node 22 under $peers/node22 (the Inspector needs Node >= 22.19)" >&2
    exit 1
fi

step "MCP Inspector $inspector_version (npm, into target/bench-peers)"
mkdir -p "$bench_peers"
if [ ! -f "$bench_peers/.stamp-inspector-$inspector_version" ]; then
    rm -rf "$bench_peers/node_modules" "$bench_peers/package.json" "$bench_peers/package-lock.json"
    PATH="$(dirname "$node22"):$PATH" npm install --prefix "$bench_peers" --no-audit --no-fund \
        --loglevel=error "@modelcontextprotocol/inspector@$inspector_version" >&2
    touch "$bench_peers/.stamp-inspector-$inspector_version"
fi
inspector="$bench_peers/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[ -f "$inspector" ] || {
    echo "bench/run.sh: the Inspector's launcher is not at $inspector" >&2
    exit 1
}

step "the floor (rustc -O bench/floor.rs)"
floor="$bench_peers/floor"
if [ ! -x "$floor" ] || [ "$here/floor.rs" -nt "$floor" ]; then
    rustc -O --edition 2024 -o "$floor" "$here/floor.rs"
fi

step "release build (cargo build --release, cargo bench --no-run)"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
cargo bench --quiet --no-run --bench startup --manifest-path "$root/Cargo.toml"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

step "command line: one request; parallel start"
python3 "$here/whole.py" measure --runs "$runs" --out "$work/cli.json" \
    --mcpick "$root/target/release/mcpick" --floor "$floor" --node "$node" \
    --node22 "$node22" --inspector "$inspector" --peers "$peers" --repo "$root" --work "$work"

step "full-screen menu (cargo bench --bench startup)"
MCPICK_BENCH_JSON="$work/startup.json" \
    cargo bench --quiet --bench startup --manifest-path "$root/Cargo.toml" -- "$runs" >&2

step "done"
echo
python3 "$here/whole.py" table "$work/cli.json" "$work/startup.json"
echo
echo "bench/run.sh took $((SECONDS - started)) s (Inspector $inspector_version, $runs runs each)"
