#!/usr/bin/env python3
"""Where a binary's code goes, by crate, roughly (as cargo-bloat's --crates does): each
function symbol's size (`nm -C -S`, text sections) counted to the first path segment of its
demangled name (`rmcp::service::…` to rmcp; `<T as serde::Serialize>::…` to serde). Needs a
binary with its symbols: build it with strip = false, e.g.

    CARGO_PROFILE_DIST_STRIP=false CARGO_TARGET_DIR=target/unstripped \\
        cargo build --profile dist --locked
    bench/binary_crates.py target/unstripped/dist/mcpick [TOP]
"""

import collections
import re
import subprocess
import sys


def crate_of(name: str) -> str:
    # `<impl Trait for Type>` and `<Type as Trait>`: the trait's crate when it is a path,
    # else the type's; generic arguments are not looked into.
    name = name.lstrip("_<&*( ")
    name = re.sub(r"^(mut |const |dyn |impl )", "", name)
    if " as " in name.split("::")[0]:
        name = name.split(" as ", 1)[1]
    first = re.split(r"::|<| |\(|\[", name, maxsplit=1)[0]
    return first or "?"


def main() -> None:
    binary = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    out = subprocess.run(
        ["nm", "-C", "-S", "--size-sort", binary], capture_output=True, text=True, check=True
    ).stdout
    sizes: collections.Counter[str] = collections.Counter()
    total = 0
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) < 4 or parts[2] not in "tTwW":
            continue
        size = int(parts[1], 16)
        total += size
        sizes[crate_of(parts[3])] += size
    print(f"{'crate':<28}{'bytes':>12}{'share':>8}")
    for crate, size in sizes.most_common(top):
        print(f"{crate:<28}{size:>12,}{size / total:>8.1%}")
    rest = total - sum(size for _, size in sizes.most_common(top))
    print(f"{'(the rest)':<28}{rest:>12,}{rest / total:>8.1%}")
    print(f"{'functions in all':<28}{total:>12,}")


if __name__ == "__main__":
    main()
