#!/usr/bin/env python3
"""How much log a flood of bad requests writes: `mcpick serve --builtin --http` gets N
`prompts/get` requests for an unknown prompt whose name is SIZE bytes long (each answered
with an error that quotes the name), and the log folder is measured after.

    python3 bench/log_flood.py BINARY [BINARY ...]    # N=5000 SIZE=300000 by default

Each binary gets a fresh HOME and XDG_STATE_HOME; prints requests, seconds and log bytes
per binary, and exits 1 when one wrote more than LIMIT bytes (10 MiB unless set).
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

N = int(os.environ.get("N", "5000"))
SIZE = int(os.environ.get("SIZE", "300000"))
LIMIT = int(os.environ.get("LIMIT", str(10 * 1024 * 1024)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_bytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files if ".log" in f)
    return total


def read_answer(sock_file):
    status = sock_file.readline()
    if not status:
        raise RuntimeError("connection closed")
    length = 0
    while True:
        line = sock_file.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    sock_file.read(length)
    return int(status.split()[1])


def flood(binary):
    home = tempfile.mkdtemp(prefix="log-flood-")
    port = free_port()
    env = dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, "state"),
               XDG_CONFIG_HOME=os.path.join(home, "config"))
    env.pop("MCPICK_SERVE_TOKEN", None)
    server = subprocess.Popen(
        [binary, "serve", "--builtin", "--http", f"127.0.0.1:{port}"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"{binary} did not listen on {port}")
        name = "x" * SIZE
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {
            "name": name, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: prompts/get\r\n"
                f"Mcp-Name: {name}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        sock_file = sock.makefile("rb")
        start = time.monotonic()
        statuses = {}
        for _ in range(N):
            try:
                sock.sendall(head + body)
                status = read_answer(sock_file)
            except (OSError, RuntimeError):
                sock = socket.create_connection(("127.0.0.1", port))
                sock_file = sock.makefile("rb")
                status = "reconnect"
            statuses[status] = statuses.get(status, 0) + 1
        seconds = time.monotonic() - start
        time.sleep(1)  # the log writer is not blocking: let it catch up
        return seconds, statuses, log_bytes(os.path.join(home, "state"))
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", home])


def main():
    over = False
    print(f"{N} prompts/get requests, names of {SIZE} bytes")
    print(f"{'binary':40} {'seconds':>8} {'log bytes':>14}  answers")
    for binary in sys.argv[1:]:
        seconds, statuses, written = flood(binary)
        print(f"{binary:40} {seconds:8.1f} {written:14,}  {statuses}")
        over |= written > LIMIT
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
