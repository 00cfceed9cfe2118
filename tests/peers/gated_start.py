"""Starts a stdio MCP server only once a gate file exists: a server as slow to start as
the test wants, without guessing at timings.

    python3 gated_start.py GATE_FILE COMMAND [ARGS...]

Waits (polling every 50 ms, at most 60 s) until GATE_FILE exists, then execs COMMAND with
ARGS, so the server's stdin and stdout are this process's. Standard library only.
"""

import os
import sys
import time


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: gated_start.py GATE_FILE COMMAND [ARGS...]")
    gate, command = sys.argv[1], sys.argv[2:]
    deadline = time.monotonic() + 60
    while not os.path.exists(gate):
        if time.monotonic() > deadline:
            sys.exit(f"gated_start.py: {gate} never appeared")
        time.sleep(0.05)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
