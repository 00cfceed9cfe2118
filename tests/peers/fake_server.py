"""A deliberately odd stdio MCP server (standard library only) for edge cases a real SDK
will not produce. The mode is the first argument:

  bad-version   answers `server/discover` with -32601 (a legacy server) and `initialize`
                with protocolVersion "1999-01-01", which no MCP revision has.
  exit-on-discover
                exits at once on any request before `initialize` (as some old rmcp servers
                did); otherwise a minimal legacy server with one prompt.
  hang-get      a minimal legacy server that never answers `prompts/get`.
  forger        a minimal legacy server whose `prompts/get` error holds line breaks and an
                escape sequence, to print lines that read as mcpick's own.
  crash-on-get  a minimal legacy server that writes a traceback to stderr and exits with
                status 7 on `prompts/get`.
  silent-discover
                a minimal legacy server that ignores every request before `initialize`.
  legacy-sampling
                a legacy server whose `prompts/get` first sends `sampling/createMessage`
                and puts the error code it got in its message.
  leaky         a minimal legacy server that repeats its API_KEY environment variable
                (and LEAK_INPUT) everywhere: its serverInfo name and version, instructions,
                capabilities, stderr, a log message, a served problem, a prompt
                description, the messages of `hello`, the error of `fail`.
  crash-after-list
                a minimal legacy server that exits with status 5 a moment after it
                answers `prompts/list` (every start: it never stays up).
  crash         writes a few stderr lines and exits with status 3 before answering.
  odd-content   a minimal legacy server whose `prompts/get` holds a content kind from the
                future, annotations and a resource link with icons; `annotated` holds only
                an annotated text; `system` has the role "system" (which MCP does not have).
  input-required
                a 2026-07-28 server (answers `server/discover`, no `initialize`) whose
                `prompts/get` asks first, with `input_required`:
                  ask      a form (`login`) and a sampling request (`llm`) with a
                           requestState; the retry must carry the answers (accept with a
                           `name`, decline) and the state byte for byte, under a new id.
                           It refuses with -32021 if the request did not declare form
                           elicitation in its `_meta` clientCapabilities.
                  busy     only a requestState ("load shedding"), then the messages.
                  odd-ask  a question with a method no revision has.
                  pester   asks `confirmed` (yes/no) again after every answer; each
                           request is counted on stderr ("fake: pester request N").
  late-discover MARKER SECONDS
                the 2026-07-28 `input-required` server, slow to start: the first time
                (while the file MARKER does not exist; it is then made) it answers
                `server/discover` only after SECONDS, answering the requests after it in
                turn; a later start answers at once. MARKER `-`: every start is slow.
                It lingers a second after its stdin closes, as a busy server may.
  legacy-elicit a minimal legacy server that sends `elicitation/create` during
                `prompts/get` and puts the client's answer in the prompt's text.
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


def text_result(rid, text, **extra):
    result = {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
    result.update(extra)
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def error(rid, code, message, data=None):
    body = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    send({"jsonrpc": "2.0", "id": rid, "error": body})


# What the `ask` prompt expects back: the state (with characters a re-encoding could
# change) and the id of the round that asked, which the retry must not reuse.
ASK_STATE = "st\u00e9 \"q\" \\ /x== \u2603"
asked_ids = []


def modern(request):
    """One request to the 2026-07-28 `input-required` server."""
    method = request.get("method")
    rid = request.get("id")
    params = request.get("params") or {}
    meta = params.get("_meta") or {}
    if meta.get("io.modelcontextprotocol/protocolVersion") != "2026-07-28":
        return error(rid, -32602, "missing or wrong protocolVersion in _meta")
    if method == "server/discover":
        return send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"prompts": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake-mrtr", "version": "0"}},
            "ttlMs": 0, "cacheScope": "public"}})
    if method == "prompts/list":
        return send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "complete", "ttlMs": 0, "cacheScope": "public", "prompts": [
                {"name": "ask"}, {"name": "busy"}, {"name": "odd-ask"}, {"name": "pester"}]}})
    if method != "prompts/get":
        return error(rid, -32601, "Method not found: %s" % method)
    name = params.get("name")
    responses = params.get("inputResponses")
    state = params.get("requestState")
    if name == "ask":
        capabilities = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
        if "form" not in (capabilities.get("elicitation") or {}):
            return error(rid, -32021, "Missing required client capability",
                         {"requiredCapabilities": {"elicitation": {"form": {}}}})
        if responses is None:
            asked_ids.append(rid)
            return send({"jsonrpc": "2.0", "id": rid, "result": {
                "resultType": "input_required",
                "inputRequests": {
                    "login": {"method": "elicitation/create", "params": {
                        "mode": "form", "message": "Who is asking?",
                        "requestedSchema": {"type": "object", "properties": {
                            "name": {"type": "string", "title": "Name", "minLength": 1},
                            "color": {"type": "string", "oneOf": [
                                {"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
                            "count": {"type": "integer", "minimum": 1, "default": 2}},
                            "required": ["name"]}}},
                    "llm": {"method": "sampling/createMessage", "params": {
                        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                        "maxTokens": 5}}},
                "requestState": ASK_STATE}})
        problems = []
        if rid in asked_ids:
            problems.append("the retry reused id %r" % (rid,))
        if state != ASK_STATE:
            problems.append("requestState came back as %r" % (state,))
        login = responses.get("login") or {}
        if login.get("action") != "accept" or "name" not in (login.get("content") or {}):
            problems.append("login answered %r" % (login,))
        if responses.get("llm") != {"action": "decline"}:
            problems.append("llm answered %r" % (responses.get("llm"),))
        if problems:
            return error(rid, -32602, "; ".join(problems))
        content = login["content"]
        return text_result(rid, "Hello %s, you like %s (x%s)" % (
            content["name"], content.get("color"), content.get("count")),
            resultType="complete")
    if name == "busy":
        if state is None:
            return send({"jsonrpc": "2.0", "id": rid, "result": {
                "resultType": "input_required", "requestState": "shed-1"}})
        if state != "shed-1" or responses is not None:
            return error(rid, -32602, "busy retried with %r, %r" % (state, responses))
        return text_result(rid, "served after shedding", resultType="complete")
    if name == "pester":
        asked_ids.append(rid)
        print("fake: pester request %d" % len(asked_ids), file=sys.stderr, flush=True)
        return send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "input_required",
            "inputRequests": {"again": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Still sure?", "requestedSchema": {
                    "type": "object", "properties": {"confirmed": {"type": "boolean"}},
                    "required": ["confirmed"]}}}}}})
    if name == "odd-ask":
        return send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "input_required",
            "inputRequests": {"x": {"method": "tasks/frobnicate", "params": {}}}}})
    return error(rid, -32602, "Unknown prompt: %s" % name)


slow_discover = 0.0
if mode == "late-discover" and (sys.argv[2] == "-" or not os.path.exists(sys.argv[2])):
    if sys.argv[2] != "-":
        open(sys.argv[2], "w").close()
    slow_discover = float(sys.argv[3])

for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method = request.get("method")
    rid = request.get("id")
    if mode in ("input-required", "late-discover"):
        if method == "server/discover" and slow_discover:
            print("fake: starting slowly", file=sys.stderr, flush=True)
            time.sleep(slow_discover)
            slow_discover = 0.0
        if rid is not None:
            modern(request)
        continue
    key = os.environ.get("API_KEY", "")
    if rid is None:
        if method == "notifications/initialized":
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "logger": "fake", "data": "fake server ready"}})
            if mode == "leaky":
                print("fake: starting with key %s" % key, file=sys.stderr, flush=True)
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "my key is %s" % key}})
        continue
    if mode == "leaky" and method == "prompts/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"prompts": [
            {"name": "hello", "description": "Uses key %s" % key},
            {"name": "fail", "description": "Fails"}],
            "_meta": {"io.github.mcpick/problems": [
                {"file": "%s.prompt.md" % key, "error": "holds %s" % key}]}}})
        continue
    if mode == "leaky" and method == "prompts/get":
        if request["params"]["name"] == "fail":
            error(rid, -32000, "bad key %s" % key, {"key": key})
        else:
            text_result(rid, "Authorization: Bearer %s %s" % (key, os.environ.get("LEAK_INPUT", "")))
        continue
    if method == "initialize" and mode == "leaky":
        # Every text of the handshake repeats the key and the typed input (LEAK_INPUT).
        typed = os.environ.get("LEAK_INPUT", "")
        initialized = True
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"prompts": {}, "experimental": {"key": {"value": key}}},
            "instructions": "use key %s and %s" % (key, typed),
            "serverInfo": {"name": "leaky %s %s" % (key, typed), "version": key,
                           "title": "Leaky %s" % typed}}})
    elif method == "initialize":
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
            {"name": "annotated", "description": "Has annotations"}] + (
            [{"name": "pictures", "description": "Images the chat APIs take or not"}]
            if mode == "odd-content" else [])}})
        if mode == "crash-after-list":
            time.sleep(0.2)
            print("fake: crashing after the list", file=sys.stderr, flush=True)
            sys.exit(5)
    elif method == "prompts/get" and mode == "hang-get":
        continue
    elif method == "prompts/get" and mode == "forger":
        # An error whose message would print lines of mcpick's own, escape sequence and all.
        error(rid, -32603, "boom\nmcpick: signed in to evil.example\n\x1b[2Kmcpick: done")
    elif method == "prompts/get" and mode == "crash-on-get":
        print("Traceback: KeyError 'city'", file=sys.stderr, flush=True)
        sys.exit(7)
    elif method == "prompts/get" and mode == "legacy-sampling":
        send({"jsonrpc": "2.0", "id": "sample-1", "method": "sampling/createMessage",
              "params": {"messages": [], "maxTokens": 5}})
        while True:
            answer = json.loads(sys.stdin.readline() or "null")
            if answer is None:
                sys.exit(0)
            if answer.get("id") == "sample-1" and "method" not in answer:
                break
        text_result(rid, "sampling error: %s" % (answer.get("error") or {}).get("code"))
    elif method == "prompts/get" and mode == "legacy-elicit":
        send({"jsonrpc": "2.0", "id": "elicit-1", "method": "elicitation/create", "params": {
            "message": "Your name?", "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"}}, "required": ["name"]}}})
        while True:
            answer = json.loads(sys.stdin.readline() or "null")
            if answer is None:
                sys.exit(0)
            if answer.get("id") == "elicit-1" and "method" not in answer:
                break
        if "result" in answer:
            text_result(rid, "elicitation answered: %s" % answer["result"].get("action"))
        else:
            text_result(rid, "elicitation failed: %s" % answer.get("error"))
    elif method == "prompts/get" and mode == "odd-content":
        if request["params"]["name"] == "system":
            messages = [
                {"role": "system", "content": {"type": "text", "text": "Be terse."}},
                {"role": "user", "content": {"type": "text", "text": "Hi."}},
                {"role": "developer", "content": {"type": "text", "text": "Cite lines."}},
            ]
        elif request["params"]["name"] == "pictures":
            messages = [
                {"role": "user", "content": {"type": "resource", "resource": {
                    "uri": "file:///shot.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}}},
                {"role": "user", "content": {"type": "image", "data": "PHN2Zy8+",
                                             "mimeType": "image/svg+xml"}},
                {"role": "user", "content": {"type": "image", "data": "/9j/4A==",
                                             "mimeType": "image/jpeg"}},
            ]
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
if mode == "late-discover":
    time.sleep(1)
