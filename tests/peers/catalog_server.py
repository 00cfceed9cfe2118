"""A small MCP server (standard library only) for the catalog cache's tests: it gives the
cache hints it is told to and logs every method it is sent, so a test can see what went
over the wire.

  catalog_server.py [options]

  --era modern|legacy   2026-07-28 (`server/discover`, no `initialize`: -32601) or legacy
                        (`initialize` first; `server/discover` before it: -32601).
  --era-file FILE       the era, read from FILE at start (over --era), so a test can
                        change a server's era without changing its config.
  --ttl MS              the `ttlMs` of `server/discover` and `prompts/list` (modern only).
  --scope S             their `cacheScope`, public or private (modern only).
  --log FILE            append one line per message received: its method, and with
                        --http the request's Authorization and MCP-Protocol-Version
                        headers ("-" when absent), each after a space.
  --prompts FILE        the prompt names, one a line, read again at every `prompts/list`
                        and `prompts/get` (default: `hello`); a name `NAME:ARG` takes
                        a required argument ARG.
  --notify-after-get    (legacy) after answering `prompts/get`, send
                        notifications/prompts/list_changed.
  API_KEY (env)         when set, repeated in the discover result (instructions, server
                        version) and in every prompt's description, as a leaky server
                        would.
  --get-delay MS        answer `prompts/get` only after MS milliseconds (-1: never), as a
                        slow or hung server would.
  --http PORT           serve Streamable HTTP (stateless 2026-07-28, or legacy with a
                        session) on 127.0.0.1:PORT instead of stdio; PORT 0 picks one and
                        prints "listening on http://127.0.0.1:PORT/mcp" on stderr.
"""

import argparse
import http.server
import json
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--era", default="modern")
parser.add_argument("--era-file")
parser.add_argument("--ttl", type=int, default=0)
parser.add_argument("--scope", default="public")
parser.add_argument("--log")
parser.add_argument("--prompts")
parser.add_argument("--notify-after-get", action="store_true")
parser.add_argument("--http", type=int)
parser.add_argument("--get-delay", type=int, default=0)
options = parser.parse_args()
era = options.era
if options.era_file:
    with open(options.era_file) as chosen:
        era = chosen.read().strip()
modern = era == "modern"
key = os.environ.get("API_KEY")


def log(method, *headers):
    if not options.log:
        return
    with open(options.log, "a") as out:
        out.write(" ".join((method,) + headers) + "\n")


def prompts():
    names = ["hello"]
    if options.prompts:
        with open(options.prompts) as listed:
            names = [line.strip() for line in listed if line.strip()]
    found = []
    for name in names:
        name, _, arg = name.partition(":")
        prompt = {"name": name, "description": "The prompt " + name + (" key " + key if key else "")}
        if arg:
            prompt["arguments"] = [{"name": arg, "required": True}]
        found.append(prompt)
    return found


def hints(result):
    if modern:
        result.update({"ttlMs": options.ttl, "cacheScope": options.scope})
        result.setdefault("resultType", "complete")
    return result


def answer(request, state):
    """The answer to one message (None for a notification), and notices to send after."""
    method = request.get("method")
    rid = request.get("id")
    params = request.get("params") or {}
    if method is None:
        return None, []
    if rid is None:
        if method == "notifications/initialized":
            state["initialized"] = True
        return None, []

    def ok(result):
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def error(code, message):
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}

    if modern:
        meta = params.get("_meta") or {}
        if method == "initialize":
            return error(-32601, "Method not found: initialize"), []
        if meta.get("io.modelcontextprotocol/protocolVersion") != "2026-07-28":
            return error(-32602, "missing or wrong protocolVersion in _meta"), []
        if method == "server/discover":
            result = {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"prompts": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {
                    "name": "catalog-test", "version": key or "1"}}}
            if key:
                result["instructions"] = "Use the key " + key
            return ok(hints(result)), []
    else:
        if method == "initialize":
            return ok({
                "protocolVersion": "2025-06-18",
                "capabilities": {"prompts": {"listChanged": True}},
                "serverInfo": {"name": "catalog-test-legacy", "version": "1"}}), []
        if method == "server/discover" or not state.get("initialized"):
            return error(-32601, "Method not found: %s" % method), []
    if method == "prompts/list":
        if any(p["name"] == "!fail" for p in prompts()):
            return error(-32603, "the list is broken today"), []
        return ok(hints({"prompts": prompts()})), []
    if method == "prompts/get":
        if options.get_delay < 0:
            while True:
                time.sleep(3600)
        time.sleep(options.get_delay / 1000.0)
        known = {p["name"]: p for p in prompts()}
        name = params.get("name")
        if name not in known:
            return error(-32602, "Unknown prompt: %s" % name), []
        arguments = params.get("arguments") or {}
        for arg in known[name].get("arguments", []):
            if arg["name"] not in arguments:
                return error(-32602, "Missing required argument: %s" % arg["name"]), []
        text = "%s %s" % (name, json.dumps(arguments, sort_keys=True))
        notices = []
        if options.notify_after_get and not modern:
            notices.append({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        result = {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
        if modern:
            result["resultType"] = "complete"
        return ok(result), notices
    return error(-32601, "Method not found: %s" % method), []


def serve_stdio():
    state = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        log(request.get("method") or "(response)")
        reply, notices = answer(request, state)
        for message in ([reply] if reply else []) + notices:
            sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


class Handler(http.server.BaseHTTPRequestHandler):
    state = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = json.loads(body or b"null") or {}
        log(request.get("method") or "(response)",
            self.headers.get("Authorization") or "-",
            self.headers.get("MCP-Protocol-Version") or "-")
        reply, _ = answer(request, Handler.state)
        if reply is None:
            self.send_response(202)
            self.end_headers()
            return
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if not modern:
            self.send_header("Mcp-Session-Id", "catalog-session")
        self.end_headers()
        self.wfile.write(data)


if options.http is not None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", options.http), Handler)
    print("listening on http://127.0.0.1:%d/mcp" % server.server_address[1],
          file=sys.stderr, flush=True)
    server.serve_forever()
else:
    serve_stdio()
