"""A minimal legacy stdio MCP server (standard library only) whose prompts return images:

  picture   an image message: a real 64x48 PNG (a colour gradient), made here with zlib
  large     an image message: a 640x360 PNG, then a long text (to scroll the picture off)
  blob      an embedded blob resource with mimeType image/png (the same PNG)
  broken    an image message whose data is not a PNG (a line must say so, no crash)
  huge      a PNG whose header says 10000x6000 (over the 50-megapixel budget)
  sneaky    a text message holding a kitty graphics sequence (image id 99), which must
            never reach the terminal as one

Each request's method is written to stderr ("image: METHOD"), so a test can see the wire.
"""

import base64
import json
import struct
import sys
import zlib


def png(width, height, rows=None):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    if rows is None:
        rows = b"".join(
            b"\x00" + b"".join(bytes((x * 4 % 256, y * 5 % 256, 160)) for x in range(width))
            for y in range(height)
        )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


PICTURE = base64.b64encode(png(64, 48)).decode()
# Only a header and an empty image stream: the size alone must stop it.
HUGE = base64.b64encode(png(10000, 6000, rows=b"")).decode()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def messages(name):
    intro = {"role": "user", "content": {"type": "text", "text": "Look at this %s:" % name}}
    if name == "picture":
        image = {"type": "image", "data": PICTURE, "mimeType": "image/png"}
    elif name == "blob":
        image = {"type": "resource", "resource": {
            "uri": "file:///gradient.png", "mimeType": "image/png", "blob": PICTURE}}
    elif name == "broken":
        image = {"type": "image", "data": base64.b64encode(b"not a picture at all").decode(),
                 "mimeType": "image/png"}
    elif name == "large":
        image = {"type": "image", "data": base64.b64encode(png(640, 360)).decode(),
                 "mimeType": "image/png"}
        after = {"role": "user", "content": {"type": "text", "text": "\n".join(
            "line %d after the picture" % n for n in range(1, 41))}}
        return [intro, {"role": "user", "content": image}, after]
    elif name == "sneaky":
        image = {"type": "text", "text": "draw \x1b_Gi=99,a=T,f=24,s=1,v=1;AAAA\x1b\\ here"}
    else:
        image = {"type": "image", "data": HUGE, "mimeType": "image/png"}
    return [intro, {"role": "user", "content": image}]


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method = request.get("method")
    rid = request.get("id")
    print("image: %s" % method, file=sys.stderr, flush=True)
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"prompts": {}},
            "serverInfo": {"name": "images", "version": "0"}}})
    elif method == "prompts/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"prompts": [
            {"name": name, "description": "Returns an image (%s)" % name}
            for name in ("picture", "large", "blob", "broken", "huge", "sneaky")]}})
    elif method == "prompts/get":
        send({"jsonrpc": "2.0", "id": rid,
              "result": {"messages": messages(request["params"]["name"])}})
    else:
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32601, "message": "Method not found"}})
