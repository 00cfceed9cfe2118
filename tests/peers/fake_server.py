"""A deliberately odd stdio MCP server (standard library only) for edge cases a real SDK
will not produce. The mode is the first argument:

  bad-version   answers `server/discover` with -32601 (a legacy server) and `initialize`
                with protocolVersion "1999-01-01", which no MCP revision has.
  exit-on-discover
                exits at once on any request before `initialize` (as some old rmcp servers
                did); otherwise a minimal legacy server with one prompt.
  hang-get      a minimal legacy server that never answers `prompts/get`.
  crash-on-get  a minimal legacy server that writes a traceback to stderr and exits with
                status 7 on `prompts/get`.
  silent-discover
                a minimal legacy server that ignores every request before `initialize`.
  crash         writes a few stderr lines and exits with status 3 before answering.
  odd-content   a minimal legacy server whose `prompts/get` holds a content kind from the
                future, annotations and a resource link with icons; `annotated` holds only
                an annotated text; `system` has the role "system" (which MCP does not have).
  stubborn      a minimal legacy server that ignores stdin EOF and SIGTERM and starts a
                grandchild; it writes "PID GRANDCHILD_PID" to the file named by the second
                argument, so a test can check both are gone.

Every minimal server sends one `notifications/message` after `notifications/initialized`.
"""

import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "bad-version"
initialized = False

if mode == "crash":
    for n in range(1, 4):
        print("fake: fatal problem %d" % n, file=sys.stderr, flush=True)
    sys.exit(3)

if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    grandchild = subprocess.Popen(["sleep", "300"])
    with open(sys.argv[2], "w") as pids:
        pids.write("%d %d" % (os.getpid(), grandchild.pid))


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method = request.get("method")
    rid = request.get("id")
    if rid is None:
        if method == "notifications/initialized":
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "logger": "fake", "data": "fake server ready"}})
        continue
    if method == "initialize":
        initialized = True
        version = "1999-01-01" if mode == "bad-version" else "2025-06-18"
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": version,
            "capabilities": {"prompts": {}},
            "serverInfo": {"name": "fake", "version": "0"}}})
    elif not initialized and mode == "silent-discover":
        continue
    elif not initialized and mode == "exit-on-discover":
        print("fake: request before initialize, exiting", file=sys.stderr, flush=True)
        sys.exit(3)
    elif method == "prompts/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"prompts": [
            {"name": "hello", "description": "Says hello"},
            {"name": "system", "description": "Uses a role MCP does not have"},
            {"name": "annotated", "description": "Has annotations"}]}})
    elif method == "prompts/get" and mode == "hang-get":
        continue
    elif method == "prompts/get" and mode == "crash-on-get":
        print("Traceback: KeyError 'city'", file=sys.stderr, flush=True)
        sys.exit(7)
    elif method == "prompts/get" and mode == "odd-content":
        if request["params"]["name"] == "system":
            messages = [{"role": "system", "content": {"type": "text", "text": "x"}}]
        elif request["params"]["name"] == "annotated":
            messages = [{"role": "user", "content": {"type": "text", "text": "hi",
                         "annotations": {"audience": ["user"], "priority": 0.3}}}]
        else:
            messages = [
                {"role": "user", "content": {"type": "text", "text": "hi",
                 "annotations": {"audience": ["user"], "priority": 0.3}}},
                {"role": "user", "content": {"type": "hologram", "frames": [1, 2]}},
                {"role": "assistant", "content": {"type": "resource_link", "uri": "file:///a",
                 "name": "a", "icons": [{"src": "data:image/png;base64,AA==", "mimeType": "image/png"}]}},
            ]
        send({"jsonrpc": "2.0", "id": rid, "result": {"messages": messages}})
    elif method == "prompts/get":
        send({"jsonrpc": "2.0", "id": rid, "result": {"messages": [
            {"role": "user", "content": {"type": "text", "text": "hello"}}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32601, "message": "Method not found: %s" % method}})

if mode == "stubborn":
    time.sleep(300)  # stdin is closed; a polite server would exit now
