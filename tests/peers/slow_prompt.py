"""A stdio MCP server (standard library only) with one prompt whose `prompts/get` is slow:
for the live preview's benchmark and tests. `echo` takes `text` (required) and answers
with one user message holding it, after SLOW_GET_MS milliseconds (default 1500). Every
message received is appended to the file SLOW_LOG (if set) as one JSON line, so a test can
count the `prompts/get` requests and the `notifications/cancelled` that went over the wire.

    SLOW_GET_MS=1500 SLOW_LOG=/tmp/wire.jsonl python slow_prompt.py
"""

import json
import os
import sys
import threading
import time

DELAY = int(os.environ.get("SLOW_GET_MS", "1500")) / 1000.0
LOG = os.environ.get("SLOW_LOG")
out_lock = threading.Lock()
log_lock = threading.Lock()


def send(message: dict) -> None:
    with out_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def log(message: dict) -> None:
    if not LOG:
        return
    with log_lock, open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(message) + "\n")


PROMPT = {
    "name": "echo",
    "title": "Slow echo",
    "description": "Says the text back, slowly",
    "arguments": [{"name": "text", "description": "What to say", "required": True}],
}


def answer_get(request: dict) -> None:
    time.sleep(DELAY)
    text = request.get("params", {}).get("arguments", {}).get("text", "")
    send({
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {
            "description": "slow echo",
            "messages": [{"role": "user", "content": {"type": "text", "text": f"You said: {text}"}}],
        },
    })


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    log(message)
    method = message.get("method")
    if "id" not in message:
        continue  # notifications (initialized, cancelled) need no answer
    if method == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        send({
            "jsonrpc": "2.0",
            "id": message["id"],
            "result": {
                "protocolVersion": version,
                "capabilities": {"prompts": {}},
                "serverInfo": {"name": "slow-prompt", "version": "1.0"},
            },
        })
    elif method == "prompts/list":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"prompts": [PROMPT]}})
    elif method == "prompts/get":
        threading.Thread(target=answer_get, args=(message,), daemon=True).start()
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
    else:
        send({
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": f"Method not found: {method}"},
        })
