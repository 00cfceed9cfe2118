# Sourced by run-server.sh and run-client.sh: checks the peers are installed (./test.sh or
# tests/peers/setup.sh installs them) and sets `root`, `mcpick`
# (MCPICK_BIN or target/debug/mcpick), `node` (Node 22 from the peers) and `suite` (the
# conformance suite's entry point). Expects `here` (this folder) to be set.
root="$(cd "$here/../.." && pwd)"
peers="${MCPICK_PEERS_DIR:-$root/target/peers}"
mcpick="${MCPICK_BIN:-$root/target/debug/mcpick}"

bash "$root/tests/peers/setup.sh" --check
node="$(ls "$peers"/node22/node_modules/node-linux-*/bin/node 2>/dev/null | head -n1)"
[ -x "$node" ] || { echo "$(basename "$0"): no Node 22 for this machine under $peers/node22" >&2; exit 1; }
suite="$peers/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
