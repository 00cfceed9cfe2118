"""Makes a dual-era stdio server look legacy-only: runs the command given as arguments and
relays JSON-RPC lines both ways, but answers `server/discover` itself with -32601, as a
server from before 2026-07-28 would. Everything else reaches the real server untouched.

    python legacy_gate.py python server.py stdio
"""

import json
import subprocess
import sys
import threading

child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out_lock = threading.Lock()


def write_out(data: bytes) -> None:
    with out_lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def relay_server_to_client() -> None:
    for line in child.stdout:
        write_out(line)


threading.Thread(target=relay_server_to_client, daemon=True).start()

for line in sys.stdin.buffer:
    try:
        message = json.loads(line)
    except ValueError:
        message = None
    if isinstance(message, dict) and message.get("method") == "server/discover":
        error = {"code": -32601, "message": "Method not found"}
        write_out((json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": error}) + "\n").encode())
        continue
    child.stdin.write(line)
    child.stdin.flush()

child.stdin.close()
sys.exit(child.wait())
