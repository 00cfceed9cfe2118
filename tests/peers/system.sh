#!/usr/bin/env bash
# Installs the programs the tests that meet other programs need (Debian packages), when they
# are missing: tmux (clipboard route, --tmux popups), Xvfb and xclip (the X11 clipboard),
# zsh and fish (shell widgets; bash is always there), openssl (the TLS test certificates),
# espeak-ng (the screen reader mode's transcript, spoken).
# Needs root (or sudo) and apt-get for an install; without them it lists what is missing
# and exits 1. Idempotent, locked.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mkdir -p "$root/target"
exec 9>"$root/target/.system-tools.lock"
flock 9

# program:package
wanted="tmux:tmux Xvfb:xvfb xclip:xclip zsh:zsh fish:fish openssl:openssl espeak-ng:espeak-ng"
missing=()
for pair in $wanted; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    echo "system.sh: missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]})" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "system.sh: missing ${missing[*]} and no apt-get to install them with" >&2
    exit 1
fi
echo "system.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
    { "${sudo[@]}" apt-get update -q >&2 && "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
