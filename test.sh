#!/usr/bin/env bash
# The whole test suite, as README.md gives it: installs what the tests need, then runs them.
#   1. tests/peers/system.sh: the programs the tests meet (tmux, Xvfb, xclip, zsh, fish,
#      openssl, espeak-ng) from Debian's packages, when root (or passwordless sudo);
#      otherwise it names the missing ones and this script stops, unless MCPICK_ALLOW_SKIP=1 (then the tests
#      needing them are built as ignored and counted so in cargo's summary).
#   2. tests/peers/setup.sh: the pinned third-party MCP servers under target/peers (npm, PyPI).
#   3. cargo fetch --locked: every target's crates, which tests/it/msrv.rs reads offline.
#   4. cargo test --locked, with this script's arguments (e.g. ./test.sh --test it serve::).
# The test binaries themselves install nothing.
set -euo pipefail
cd "$(dirname "$0")"

if ! bash tests/peers/system.sh; then
    if [ "${MCPICK_ALLOW_SKIP-}" = 1 ]; then
        echo "test.sh: MCPICK_ALLOW_SKIP=1: the tests needing what is missing are ignored" >&2
    else
        echo "test.sh: install the programs above, or run with MCPICK_ALLOW_SKIP=1 to ignore the tests that need them" >&2
        exit 1
    fi
fi
bash tests/peers/setup.sh
cargo fetch --locked
exec cargo test --locked "$@"
