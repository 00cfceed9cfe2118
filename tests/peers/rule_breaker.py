"""A stdio MCP server (standard library only) that speaks both protocol eras and breaks
the spec's rules on purpose, for `mcpick test`. The mode is the first argument:

  breaks  (default) in both eras: `prompts/list` holds a prompt with no name, and its
          second page names the cursor that led to it (a loop); `greet` (argument `who`,
          required) is filled even without `who`; `clip` has a blank text message and
          audio said by the assistant (what the chat exports cannot carry). At
          2026-07-28 `prompts/get` results have no `resultType`. In the initialize era
          it sends `notifications/prompts/list_changed` without declaring `listChanged`.
  clean   the same prompts with none of the faults: a page cursor that ends, names on
          every prompt, `resultType` everywhere, `greet` refused without `who`.

`completion/complete` of `greet`'s `who` answers "world", "wide".
"""

import json
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "breaks"
breaks = mode == "breaks"
MODERN = "2026-07-28"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(rid, code, message):
    send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def page(cursor, modern):
    greet = {"name": "greet", "description": "Greets someone",
             "arguments": [{"name": "who", "required": True}]}
    if cursor is None:
        prompts = [greet, {"name": "clip", "description": "Blank text and assistant audio"}]
        if breaks:
            prompts.insert(0, {"description": "a prompt without a name"})
        result = {"prompts": prompts, "nextCursor": "page-2"}
    else:
        result = {"prompts": [{"name": "late", "description": "On the second page"}]}
        if breaks:
            result["nextCursor"] = "page-2"
    if modern:
        result.update({"resultType": "complete", "ttlMs": 60000, "cacheScope": "public"})
    return result


def messages(name, arguments):
    if name == "greet":
        return [{"role": "user", "content": {
            "type": "text", "text": "Hello, %s!" % arguments.get("who", "nobody")}}]
    if name == "clip":
        return [
            {"role": "user", "content": {"type": "text", "text": "Listen:"}},
            {"role": "user", "content": {"type": "text", "text": "  "}},
            {"role": "assistant", "content": {
                "type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"}},
        ]
    return [{"role": "user", "content": {"type": "text", "text": "late"}}]


def answer_get(rid, params, modern):
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name not in ("greet", "clip", "late"):
        return error(rid, -32602, "unknown prompt")
    if name == "greet" and "who" not in arguments and not breaks:
        return error(rid, -32602, "missing required argument: who")
    result = {"description": "filled", "messages": messages(name, arguments)}
    if modern and not breaks:
        result["resultType"] = "complete"
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def answer(request, modern):
    method = request.get("method")
    rid = request.get("id")
    params = request.get("params") or {}
    if method == "prompts/list":
        return send({"jsonrpc": "2.0", "id": rid, "result": page(params.get("cursor"), modern)})
    if method == "prompts/get":
        return answer_get(rid, params, modern)
    if method == "completion/complete":
        result = {"completion": {"values": ["world", "wide"], "total": 2, "hasMore": False}}
        if modern:
            result["resultType"] = "complete"
        return send({"jsonrpc": "2.0", "id": rid, "result": result})
    return error(rid, -32601, "Method not found: %s" % method)


capabilities = {"prompts": {}, "completions": {}}
for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method = request.get("method")
    rid = request.get("id")
    params = request.get("params") or {}
    meta = params.get("_meta") or {}
    if rid is None:
        if method == "notifications/initialized" and breaks:
            send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        continue
    if method == "server/discover":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "complete", "supportedVersions": [MODERN],
            "capabilities": capabilities, "ttlMs": 0, "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": {
                "name": "rule-breaker", "version": "0"}}}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "serverInfo": {"name": "rule-breaker", "version": "0"}}})
    else:
        answer(request, meta.get("io.modelcontextprotocol/protocolVersion") == MODERN)
