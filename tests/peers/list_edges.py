"""A legacy stdio MCP server (standard library only) whose lists and completions sit at
the edges of the spec. The mode is the first argument:

  repeat-cursor  `prompts/list` in pages: `first` and `second`, then (cursor "p2")
                 `third` with "p2" as its `nextCursor` again, a loop.
  null-cursor    one page of `first` and `second` with `"nextCursor": null`.
  bad-prompt     one page: `good`, a prompt with no name, `broken` (its arguments are
                 a number), and `fine`.
  bad-prompt-changing
                 `bad-prompt`'s page, then, after `notifications/prompts/list_changed`,
                 the same page and `worse` (its arguments a string).
  many-completions
                 one prompt `pick` (arguments `city`, `country`); `completion/complete`
                 answers 100 values, `total` 250 and `hasMore`.
  silent         reads stdin and never answers anything.
  no-prompts     one page with no prompts at all.

Every request it gets is appended, one JSON line each, to the file named by the
environment variable TRAFFIC, when set.
"""

import json
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "null-cursor"
traffic = os.environ.get("TRAFFIC")
lists = 0


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(rid, result):
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def prompts_page(cursor):
    if mode == "repeat-cursor":
        if cursor is None:
            return {"prompts": [{"name": "first"}, {"name": "second"}], "nextCursor": "p2"}
        return {"prompts": [{"name": "third"}], "nextCursor": "p2"}
    if mode in ("bad-prompt", "bad-prompt-changing"):
        worse = [{"name": "worse", "arguments": "x"}] if lists > 1 else []
        return {"prompts": [
            {"name": "good", "description": "a good one"},
            {"description": "a prompt without a name"},
            {"name": "broken", "arguments": 5},
            {"name": "fine"},
        ] + worse}
    if mode == "no-prompts":
        return {"prompts": []}
    if mode == "many-completions":
        return {"prompts": [{"name": "pick", "arguments": [
            {"name": "city", "required": True}, {"name": "country"}]}]}
    return {"prompts": [{"name": "first"}, {"name": "second"}], "nextCursor": None}


for line in sys.stdin:
    if not line.strip():
        continue
    if traffic:
        with open(traffic, "a") as log:
            log.write(line.strip() + "\n")
    if mode == "silent":
        continue
    request = json.loads(line)
    method = request.get("method")
    rid = request.get("id")
    params = request.get("params") or {}
    if rid is None:
        continue
    if method == "initialize":
        answer(rid, {
            "protocolVersion": "2025-06-18",
            "capabilities": {"prompts": {"listChanged": True}, "completions": {}},
            "serverInfo": {"name": "list-edges", "version": "0"}})
    elif method == "prompts/list":
        lists += 1
        answer(rid, prompts_page(params.get("cursor")))
        if mode == "bad-prompt-changing" and lists == 1:
            send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
    elif method == "completion/complete":
        typed = params.get("argument", {}).get("value", "")
        values = ["%s%03d" % (typed or "v", n) for n in range(100)]
        answer(rid, {"completion": {"values": values, "total": 250, "hasMore": True}})
    else:
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32601, "message": "Method not found: %s" % method}})
