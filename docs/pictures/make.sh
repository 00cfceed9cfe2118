#!/usr/bin/env bash
# Makes the README's pictures from the real binary: mcpick with no config (the bundled
# library) in a tmux server of its own, driven as a user would, each screen captured with its
# colours and drawn as SVG by docs/pictures/ansi_svg.py. Needs tmux and python3.
#   docs/pictures/make.sh                      builds the release binary, then draws
#   MCPICK_BIN=path/to/mcpick docs/pictures/make.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

bin="${MCPICK_BIN:-}"
if [ -z "$bin" ]; then
    cargo build --release --locked --bin mcpick >&2
    bin="${CARGO_TARGET_DIR:-target}/release/mcpick"
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
home="$(mktemp -d)"
sock="mcpick-pictures-$$"
cols=120
rows=32
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$home"' EXIT

# A home of its own: no config, catalog, history or draft of yours shows up in a picture.
tmux -f /dev/null -L "$sock" new-session -d -s pic -x "$cols" -y "$rows" \
    env -i HOME="$home" PATH="$PATH" LANG=C.UTF-8 TERM=xterm-256color COLORTERM=truecolor \
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" XDG_DATA_HOME="$home/data" \
    XDG_STATE_HOME="$home/state" "$bin"

keys() { tmux -L "$sock" send-keys -t pic "$@"; }
# Waits until the screen shows TEXT (10 s at most).
wait_for() {
    for _ in $(seq 100); do
        tmux -L "$sock" capture-pane -p -t pic | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    echo "make.sh: the screen never showed '$1'; it shows:" >&2
    tmux -L "$sock" capture-pane -p -t pic >&2
    exit 1
}
# Draws the screen as docs/pictures/NAME.svg, titled TITLE.
shot() {
    sleep 0.4
    tmux -L "$sock" capture-pane -e -p -t pic |
        python3 docs/pictures/ansi_svg.py "$cols" "$rows" "$2" >"docs/pictures/$1.svg"
    echo "docs/pictures/$1.svg" >&2
}

wait_for "9/9 prompts"
keys 're'
wait_for '/review-diff'
shot menu "The menu: every server's prompts, filtered as you type, with the details of the one selected"

keys C-u 'explain'
wait_for '/explain-error'
keys Enter
wait_for 'Error *'
keys "error[E0502]: cannot borrow \`v\` as mutable because it is also borrowed as immutable"
keys Tab 'let first = &v[0]; v.push(4); println!("{first}")' Tab 'Rust'
# (no argument may end in ";": tmux reads that as a command separator)
wait_for 'Preview'
wait_for 'push(4)'
shot form "The form: the prompt's arguments, with the live preview of what the server returns"

keys C-s
wait_for '#1 user'
keys p
wait_for 'Preview:'
keys f f f
wait_for 'openai'
shot review "The review: the messages as the server returned them, to edit, beside the export preview (here as OpenAI Chat Completions JSON)"
