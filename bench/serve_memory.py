#!/usr/bin/env python3
"""`mcpick serve --builtin --http` under the memory and slow-client attacks of issue 52, each
alone and all at once, at the default limits. Prints one Markdown table: per attack its
clients, the server's resident memory before (VmRSS), at its peak (VmHWM) and after the
clients are gone, and how many probes (`GET /healthz` and a `prompts/list`, each on a new
connection, one every 50 ms while the attack holds) were answered 200.

    bench/serve_memory.py [--mcpick PATH] [--ulimit N] [--only NAME,...] [--hold SECONDS]
    bench/serve_memory.py --compare OLD_BINARY     the same attacks against two builds,
                                                    A B A B (two rounds)

The attacks (sizes as the issue measured them, or larger):
  cursors      1,000 clients each listing prompts with a cursor of its own spelling of page 0
  trickle      2,000 connections sending a 1,000-byte body a byte at a time
  headers      2,000 connections each sending 60 KB of headers and never ending them
  nonreaders   300 legacy sessions asking for two ~1 MB answers and never reading them
  idle         15,000 connections that asked once and stay open (keep-alive)
  slow-bodies  1,100 connections under `ulimit -n 1024` trickling bodies (the door test)
  mix          trickle + headers + nonreaders + cursors at once
"""

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time

PROTOCOL = "2026-07-28"


def status(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def modern(method, params, ident=1):
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})


def post(authority, body, extra=""):
    method = json.loads(body).get("method", "")
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {authority}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"MCP-Protocol-Version: {PROTOCOL}\r\nMcp-Method: {method}\r\n"
        f"{extra}Content-Length: {len(body.encode())}\r\n\r\n"
    )
    return (head + body).encode()


class Server:
    def __init__(self, mcpick, ulimit):
        self.home = tempfile.mkdtemp()
        env = dict(os.environ, HOME=self.home, XDG_STATE_HOME=self.home + "/state",
                   XDG_CONFIG_HOME=self.home + "/config")
        env.pop("MCPICK_SERVE_TOKEN", None)
        command = [mcpick, "serve", "--builtin", "--http", "127.0.0.1:0"]
        if ulimit:
            command = ["sh", "-c", f'ulimit -n {ulimit} && exec "$0" "$@"'] + command
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True)
        for line in self.process.stderr:
            if "http://" in line:
                self.authority = line.split("http://", 1)[1].split("/")[0]
                break
        else:
            raise SystemExit("mcpick serve did not start")
        host, port = self.authority.rsplit(":", 1)
        self.address = (host, int(port))
        self.pid = self.process.pid

    def stop(self):
        self.process.kill()
        self.process.wait()


async def probe(server, until, answered, asked):
    list_body = post(server.authority, modern("prompts/list", {}))
    health = f"GET /healthz HTTP/1.1\r\nHost: {server.authority}\r\nConnection: close\r\n\r\n".encode()
    turn = 0
    while time.monotonic() < until:
        request = health if turn % 2 == 0 else list_body
        turn += 1
        asked[0] += 1
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(*server.address), 2)
            writer.write(request)
            line = await asyncio.wait_for(reader.readline(), 3)
            if line.startswith(b"HTTP/1.1 200"):
                answered[0] += 1
            writer.close()
        except (OSError, asyncio.TimeoutError):
            pass
        await asyncio.sleep(0.05)


async def opened(server, count, keep):
    """`count` connections (fewer when refused), each kept in `keep`."""
    for _ in range(count):
        try:
            reader, writer = await asyncio.open_connection(*server.address)
        except OSError:
            await asyncio.sleep(0.01)
            continue
        keep.append((reader, writer))


async def trickle(server, count, hold, keep):
    await opened(server, count, keep)
    body = modern("prompts/list", {}).ljust(1000)
    head = post(server.authority, body)[: -len(body)]
    for _, writer in keep:
        writer.write(head)
    until = time.monotonic() + hold
    sent = 0
    while time.monotonic() < until and sent < len(body):
        for _, writer in keep:
            if not writer.is_closing():
                writer.write(body[sent].encode())
        sent += 1
        await asyncio.sleep(max(0.0, hold / len(body)))


async def headers(server, count, hold, keep):
    await opened(server, count, keep)
    pad = ("X-Pad: " + "a" * 990 + "\r\n").encode()
    for _, writer in keep:
        writer.write(f"POST /mcp HTTP/1.1\r\nHost: {server.authority}\r\n".encode())
    for _ in range(60):
        for _, writer in keep:
            if not writer.is_closing():
                writer.write(pad)
        await asyncio.sleep(0)
    await asyncio.sleep(hold)


async def cursors(server, count, hold, keep):
    for n in range(count):
        cursor = " " * (n % 50) + "0" * (1 + n // 50)
        try:
            reader, writer = await asyncio.open_connection(*server.address)
        except OSError:
            continue
        writer.write(post(server.authority, modern("prompts/list", {"cursor": cursor})))
        keep.append((reader, writer))
    await asyncio.sleep(hold)


async def nonreaders(server, count, hold, keep):
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}})
    big = "x" * 900_000
    ask = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                      "params": {"name": "translate", "arguments": {"text": big, "to": "German"}}})
    for _ in range(count):
        try:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, server.address)
            reader, writer = await asyncio.open_connection(sock=sock)
        except OSError:
            continue
        head = (f"POST /mcp HTTP/1.1\r\nHost: {server.authority}\r\n"
                "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                f"Content-Length: {len(init)}\r\n\r\n{init}")
        writer.write(head.encode())
        try:
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
            continue
        session = [line.split(b":", 1)[1].strip().decode() for line in answer.split(b"\r\n")
                   if line.lower().startswith(b"mcp-session-id:")]
        if not session:
            continue
        extra = f"Mcp-Session-Id: {session[0]}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        request = (f"POST /mcp HTTP/1.1\r\nHost: {server.authority}\r\n"
                   "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                   f"{extra}Content-Length: {len(ask)}\r\n\r\n{ask}").encode()
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        writer.write((f"POST /mcp HTTP/1.1\r\nHost: {server.authority}\r\n"
                      "Content-Type: application/json\r\n"
                      "Accept: application/json, text/event-stream\r\n"
                      f"{extra}Content-Length: {len(note)}\r\n\r\n{note}").encode())
        # Asks twice and reads nothing more.
        for _ in range(2):
            writer.write(request)
        keep.append((reader, writer))
    await asyncio.sleep(hold)


async def idle(server, count, hold, keep):
    body = post(server.authority, modern("prompts/list", {}))
    for _ in range(count):
        try:
            reader, writer = await asyncio.open_connection(*server.address)
            writer.write(body)
            await reader.readuntil(b"\r\n\r\n")
        except (OSError, asyncio.IncompleteReadError):
            continue
        keep.append((reader, writer))
    await asyncio.sleep(hold)


ATTACKS = {
    "cursors": [(cursors, 1000)],
    "trickle": [(trickle, 2000)],
    "headers": [(headers, 2000)],
    "nonreaders": [(nonreaders, 300)],
    "idle": [(idle, 15000)],
    "slow-bodies": [(trickle, 1100)],
    "mix": [(trickle, 2000), (headers, 2000), (nonreaders, 300), (cursors, 1000)],
}


async def run_attack(server, name, hold):
    keep = []
    answered, asked = [0], [0]
    started = time.monotonic()
    attackers = [attack(server, count, hold, keep) for attack, count in ATTACKS[name]]
    # Probes start once the attackers have had time to open their connections.
    async def probes():
        await asyncio.sleep(min(hold / 2, 5))
        await probe(server, started + hold, answered, asked)
    await asyncio.gather(*attackers, probes())
    clients = len(keep)
    for _, writer in keep:
        writer.close()
    return clients, answered[0], asked[0]


def measure(mcpick, name, hold):
    ulimit = 1024 if name == "slow-bodies" else None
    server = Server(mcpick, ulimit)
    try:
        time.sleep(0.3)
        before = status(server.pid, "VmRSS")
        clients, answered, asked = asyncio.run(run_attack(server, name, hold))
        peak = status(server.pid, "VmHWM")
        time.sleep(2)
        after = status(server.pid, "VmRSS")
        return dict(attack=name, clients=clients, before=before, peak=peak, after=after,
                    answered=answered, asked=asked)
    finally:
        server.stop()


def row(label, r):
    mib = lambda kib: f"{kib / 1024:.0f}"
    share = f"{r['answered']}/{r['asked']}" if r["asked"] else "-"
    return (f"| {label} | {r['attack']} | {r['clients']} | {mib(r['before'])} | {mib(r['peak'])} "
            f"| {mib(r['after'])} | {share} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--mcpick", default=os.path.join(root, "target/release/mcpick"))
    parser.add_argument("--compare", help="another mcpick build, run A B A B")
    parser.add_argument("--only", help="comma-separated attacks")
    parser.add_argument("--hold", type=float, default=15, help="seconds each attack holds")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    names = args.only.split(",") if args.only else list(ATTACKS)
    builds = [("after", args.mcpick)]
    if args.compare:
        builds = [("before", args.compare), ("after", args.mcpick)] * 2
    print("| build | attack | clients | RSS before MiB | peak MiB | after MiB | probes answered |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        for label, binary in builds:
            print(row(label, measure(binary, name, args.hold)), flush=True)


if __name__ == "__main__":
    main()
