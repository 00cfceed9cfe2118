"""RSS of `mcpick serve --builtin --http` before and after N `prompts/list` requests, each
with its own spelling of cursor 0 (`0`, `00`, `000`…), for each binary given, one after the
other: a page cache keyed by the cursor's text grows with N, one keyed by the page does not.

    python3 bench/cursor_memory.py OLD_MCPICK NEW_MCPICK [N]
"""

import http.client
import json
import re
import subprocess
import sys

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "prompts/list",
}


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(binary, count):
    server = subprocess.Popen(
        [binary, "serve", "--builtin", "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = None
        for line in server.stderr:
            found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if found:
                port = int(found.group(1))
                break
        before = rss_mib(server.pid)
        connection = http.client.HTTPConnection("127.0.0.1", port)
        refused = 0
        for i in range(count):
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "prompts/list",
                    "params": {"cursor": "0" * (i + 1), "_meta": META},
                }
            )
            connection.request("POST", "/mcp", body, HEADERS)
            refused += "error" in json.loads(connection.getresponse().read())
        print(f"{binary}: RSS {before:.1f} -> {rss_mib(server.pid):.1f} MiB after {count} cursors ({refused} refused)")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    for binary in sys.argv[1:3]:
        run(binary, count)
