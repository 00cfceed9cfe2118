#!/usr/bin/env bash
# Fuzzing: builds the cargo-fuzz targets in fuzz/ and runs each one for a bounded time,
# starting from its committed corpus (fuzz/corpus/TARGET). Exits non-zero when a target
# crashes (a property failed, a panic, a hang); the input is kept in fuzz/artifacts/TARGET/.
#
#   bash .ci/fuzz.sh                      # every target, FUZZ_SECONDS (default 30) each
#   FUZZ_SECONDS=600 bash .ci/fuzz.sh config export
#
# cargo-fuzz is installed under target/tools (nothing outside the repo). The targets are
# built without a sanitizer (mcpick forbids unsafe code; libFuzzer finds panics, hangs and
# overflows), with debug assertions and overflow checks, on the default toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
tools="$PWD/target/tools"
export PATH="$tools/bin:$PATH"
if ! command -v cargo-fuzz >/dev/null; then
    cargo install cargo-fuzz --locked --version 0.13.2 --root "$tools"
fi

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    targets=(sanitize prompt_files config import export cache)
fi
# The same flags for build and run, so `run` finds the build done. (More codegen units
# made the build slower on 2 cores: 16 min wall, 845 s CPU, against 10 min and 649 s.)
flags=(--sanitizer none --debug-assertions --target-dir target/fuzz)
cargo fuzz build "${flags[@]}"

failed=()
for target in "${targets[@]}"; do
    # New inputs go to a scratch folder; the committed corpus is only read.
    scratch="target/fuzz-corpus/$target"
    mkdir -p "$scratch"
    echo "fuzz: $target for ${seconds}s"
    if ! cargo fuzz run "${flags[@]}" "$target" "$scratch" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -print_final_stats=1; then
        failed+=("$target")
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: crashes in: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a crash"
