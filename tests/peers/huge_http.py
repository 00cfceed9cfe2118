"""A Streamable HTTP MCP server (python3 standard library only) whose prompt `huge` answers
with one text message of MB MiB: for the memory a refusal over `max_response_bytes` costs.

    python3 huge_http.py MB FRAMING [--port-file PATH]

FRAMING says how the `prompts/get` answer is sent: `length` (a JSON body with its
Content-Length), `chunked` (a JSON body in chunks, no length told) or `sse` (one SSE event
in a text/event-stream body), all at `/mcp`; or `legacy-sse`: the HTTP+SSE transport of
2024-11-05 at `/sse` (the GET stream names `/message` as its endpoint; every answer is a
`message` event on the stream). It speaks 2025-06-18: `server/discover` is
method-not-found, so the client falls back to `initialize`. It listens on 127.0.0.1 at a free port and writes
the port to --port-file (or stdout).
"""

import json
import itertools
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

size = int(float(sys.argv[1]) * 1024 * 1024)
framing = sys.argv[2]
port_file = sys.argv[sys.argv.index("--port-file") + 1] if "--port-file" in sys.argv else None
UNIT = b"x" * 99 + b"\\n"  # 100 characters once decoded


def huge_parts(rid):
    """The answer in pieces of about 1 MiB, never built whole."""
    head = ('{"jsonrpc": "2.0", "id": %s, "result": {"messages": [{"role": "user", '
            '"content": {"type": "text", "text": "' % json.dumps(rid)).encode()
    yield head
    block = UNIT * 10000
    units = size // 100
    for _ in range(units // 10000):
        yield block
    yield UNIT * (units % 10000) + b'"}}]}}'


# legacy-sse: what each open GET stream (by session) is to send, as lists of byte pieces.
streams = {}
sessions = itertools.count(1)
streams_lock = threading.Lock()


def answer(message):
    """The answer to `message` as byte pieces, or None for a notification."""
    method, rid = message.get("method"), message.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"prompts": {}},
                  "serverInfo": {"name": "huge-http", "version": "1.0"}}
    elif method == "prompts/list":
        result = {"prompts": [{"name": "hello"}, {"name": "huge"}]}
    elif method == "prompts/get" and message["params"]["name"] == "hello":
        result = {"messages": [
            {"role": "user", "content": {"type": "text", "text": "hello over http"}}]}
    elif method == "prompts/get":
        return list(huge_parts(rid))
    elif method == "ping":
        result = {}
    else:
        return [json.dumps({"jsonrpc": "2.0", "id": rid, "error": {
            "code": -32601, "message": "Method not found: %s" % method}}).encode()]
    return [json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, value):
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if framing != "legacy-sse" or not self.path.startswith("/sse"):
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(piece):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()

        session = str(next(sessions))
        outbox = queue.Queue()
        with streams_lock:
            streams[session] = outbox
        try:
            chunk(b"event: endpoint\ndata: /message?session=%s\n\n" % session.encode())
            while True:
                pieces = outbox.get()
                chunk(b"event: message\ndata: ")
                for piece in pieces:
                    chunk(piece)
                chunk(b"\n\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            with streams_lock:
                streams.pop(session, None)

    def do_DELETE(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length) or b"{}")
        if framing == "legacy-sse":
            pieces = answer(message)
            session = self.path.partition("session=")[2]
            with streams_lock:
                outbox = streams.get(session)
            if pieces is not None and outbox is not None:
                outbox.put(pieces)
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if method == "initialize":
            return self.send_json({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"prompts": {}},
                "serverInfo": {"name": "huge-http", "version": "1.0"}}})
        if method == "prompts/list":
            return self.send_json({"jsonrpc": "2.0", "id": rid, "result": {"prompts": [
                {"name": "hello"}, {"name": "huge"}]}})
        if method == "prompts/get" and message["params"]["name"] == "hello":
            return self.send_json({"jsonrpc": "2.0", "id": rid, "result": {"messages": [
                {"role": "user", "content": {"type": "text", "text": "hello over http"}}]}})
        if method == "prompts/get":
            return self.send_huge(rid)
        if method == "ping":
            return self.send_json({"jsonrpc": "2.0", "id": rid, "result": {}})
        self.send_json({"jsonrpc": "2.0", "id": rid,
                        "error": {"code": -32601, "message": "Method not found: %s" % method}})

    def send_huge(self, rid):
        parts = list(huge_parts(rid)) if framing == "length" else None
        self.send_response(200)
        try:
            if framing == "length":
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(sum(len(p) for p in parts)))
                self.end_headers()
                for part in parts:
                    self.wfile.write(part)
                return
            sse = framing == "sse"
            self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pieces = huge_parts(rid)
            if sse:
                pieces = [b"event: message\ndata: "] + list(pieces) + [b"\n\n"]
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            # The client stopped reading: what a refusal does.
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that refuses the answer closes the connection under the writer.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


server = Server(("127.0.0.1", 0), Handler)
port = server.server_address[1]
if port_file:
    with open(port_file + ".tmp", "w") as f:
        f.write(str(port))
    import os
    os.replace(port_file + ".tmp", port_file)
else:
    print(port, flush=True)
server.serve_forever()
