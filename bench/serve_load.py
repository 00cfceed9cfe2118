#!/usr/bin/env python3
"""`mcpick serve --http` holding many clients at once (issue 21): its peak memory with
IDLE idle keep-alive connections, then LISTEN open `subscriptions/listen` streams and
LEGACY legacy sessions each with its GET stream, and the time from editing a served prompt
file until the last of those streams has the list change. Standard library only.

    bench/serve_load.py [--mcpick PATH] [--idle 1000] [--listen 1000] [--legacy 200]

Prints one line per step: the server's VmRSS / VmHWM (peak) in MiB from /proc.
"""

import argparse
import asyncio
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def memory(pid):
    """(VmRSS, VmHWM) of `pid` in MiB."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, rest = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                values[name] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def request(host, body, extra=""):
    data = json.dumps(body).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(data)}\r\n{extra}\r\n"
    )
    return head.encode() + data


def modern(id_, method, params):
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": {**params, "_meta": MODERN_META}}


async def read_head(reader):
    status = int((await reader.readline()).split()[1])
    headers = {}
    while True:
        line = (await reader.readline()).decode().strip()
        if not line:
            return status, headers
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()


async def read_answer(reader, headers):
    """The rest of a non-streamed answer (Content-Length, or chunked up to its end)."""
    if "content-length" in headers:
        await reader.readexactly(int(headers["content-length"]))
        return
    while True:
        size = int((await reader.readline()).strip(), 16)
        await reader.readexactly(size + 2)
        if size == 0:
            return


async def until_event(reader, wanted):
    while True:
        line = await reader.readline()
        if not line:
            raise RuntimeError(f"stream ended before {wanted}")
        if wanted in line:
            return


async def idle_connection(host, port, held):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request(f"{host}:{port}", modern(1, "prompts/list", {}),
                         "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: prompts/list\r\n"))
    status, headers = await read_head(reader)
    assert status == 200, status
    await read_answer(reader, headers)
    held.append(writer)


async def listen_stream(host, port, id_):
    reader, writer = await asyncio.open_connection(host, port)
    body = modern(id_, "subscriptions/listen", {"notifications": {"promptsListChanged": True}})
    writer.write(request(f"{host}:{port}", body,
                         "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"))
    status, _ = await read_head(reader)
    assert status == 200, status
    await until_event(reader, b"notifications/subscriptions/acknowledged")
    return reader, writer


async def legacy_stream(host, port):
    authority = f"{host}:{port}"
    reader, writer = await asyncio.open_connection(host, port)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "load", "version": "1"}}}
    writer.write(request(authority, init))
    status, headers = await read_head(reader)
    assert status == 200, status
    session = headers["mcp-session-id"]
    await read_answer(reader, headers)
    session_headers = f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    writer.write(request(authority, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session_headers))
    status, headers = await read_head(reader)
    assert status == 202, status
    if "content-length" in headers or "transfer-encoding" in headers:
        await read_answer(reader, headers)
    writer.write(
        f"GET /mcp HTTP/1.1\r\nHost: {authority}\r\nAccept: text/event-stream\r\n{session_headers}\r\n".encode())
    status, _ = await read_head(reader)
    assert status == 200, status
    return reader, writer


async def main(args):
    folder = tempfile.mkdtemp()
    prompt = os.path.join(folder, "hello.prompt.md")
    with open(prompt, "w") as f:
        f.write("---\ndescription: greets\n---\nSay hello.\n")
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(folder, ".state"),
               XDG_CONFIG_HOME=os.path.join(folder, ".config"))
    server = subprocess.Popen(
        [args.mcpick, "serve", folder, "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    banner = server.stderr.readline().decode()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", banner).group(1))
    host = "127.0.0.1"
    try:
        rss, peak = memory(server.pid)
        print(f"started:                                  RSS {rss:6.1f} MiB  peak {peak:6.1f} MiB")
        held = []
        # In batches under --max-requests (256): 1,000 at once would be answered 503 past it.
        for start in range(0, args.idle, 100):
            await asyncio.gather(
                *(idle_connection(host, port, held) for _ in range(start, min(start + 100, args.idle))))
        rss, peak = memory(server.pid)
        print(f"{args.idle:5} idle keep-alive connections:        RSS {rss:6.1f} MiB  peak {peak:6.1f} MiB")
        listens = []
        for start in range(0, args.listen, 100):
            listens += await asyncio.gather(
                *(listen_stream(host, port, i + 1) for i in range(start, min(start + 100, args.listen))))
        rss, peak = memory(server.pid)
        print(f"{args.listen:5} listen streams more:                 RSS {rss:6.1f} MiB  peak {peak:6.1f} MiB")
        legacy = []
        for start in range(0, args.legacy, 50):
            legacy += await asyncio.gather(
                *(legacy_stream(host, port) for _ in range(start, min(start + 50, args.legacy))))
        rss, peak = memory(server.pid)
        print(f"{args.legacy:5} legacy sessions with a GET stream more: RSS {rss:6.1f} MiB  peak {peak:6.1f} MiB")

        async def told(reader):
            await until_event(reader, b"notifications/prompts/list_changed")
            return time.monotonic()

        waits = [asyncio.ensure_future(told(r)) for r, _ in listens + legacy]
        edited = time.monotonic()
        with open(os.path.join(folder, "second.prompt.md"), "w") as f:
            f.write("---\ndescription: new\n---\nSay more.\n")
        times = await asyncio.wait_for(asyncio.gather(*waits), 60)
        times = sorted(t - edited for t in times)
        if times:
            print(f"edit to list change, {len(times)} streams: first {times[0] * 1000:.0f} ms, "
                  f"median {times[len(times) // 2] * 1000:.0f} ms, last {times[-1] * 1000:.0f} ms")
        rss, peak = memory(server.pid)
        print(f"after the change:                         RSS {rss:6.1f} MiB  peak {peak:6.1f} MiB")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--mcpick", default=os.path.join(here, "..", "target", "release", "mcpick"))
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--listen", type=int, default=1000)
    parser.add_argument("--legacy", type=int, default=200)
    args = parser.parse_args()
    # Every connection is a file descriptor here, as in the server (which inherits this).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * (args.idle + args.listen + args.legacy) + 256
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    if not os.path.exists(args.mcpick):
        sys.exit(f"{args.mcpick}: no such binary (cargo build --release --bin mcpick)")
    asyncio.run(main(args))
