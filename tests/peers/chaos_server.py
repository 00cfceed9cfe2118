"""A misbehaving stdio MCP server for chaos tests (python3 standard library only).

    python3 chaos_server.py MODES [--pid-file PATH] [--stats PATH]

MODES is a comma-separated list (empty or `benign`: a well-behaved server). It speaks
newline-delimited JSON-RPC as a legacy (2025-06-18) server: `server/discover` is answered
with method-not-found, so the client falls back to `initialize`, which declares prompts with
`listChanged: true`; then `prompts/list`, `prompts/get`, `completion/complete`, `ping`.

Every server has the prompts `hello` (no arguments: "hello from chaos") and `greet` (argument
`name`, required: "Hello, NAME!"). The modes:

  never-answers     prompts/get is never answered.
  slow:MS           prompts/get is answered after MS milliseconds (default 2000).
  slow-all:MS       every answer comes after MS milliseconds.
  exit-mid-request  on prompts/get, writes "chaos: lost the backend while filling NAME" to
                    stderr as its last line and exits with status 3.
  junk-stdout       non-JSON lines (and JSON that is no JSON-RPC message) on stdout before
                    every real message.
  bad-utf8          whole lines of invalid UTF-8 before every message, and invalid UTF-8
                    bytes inside strings: the description of prompt `bad` in prompts/list
                    and the text of prompts/get `bad`. `bad-utf8:lines` sends only the
                    whole lines; `bad-utf8:get` also the bytes in prompts/get `bad`.
  huge:MB           a prompt `huge` whose prompts/get result is one text message of MB MiB
                    (default 50; fractions allowed): lines of 99 `x` and a newline, the last
                    one without its newline.
  tiny:N            a prompt `tiny` whose prompts/get result is N tiny text messages
                    (default 480000; roles alternate, texts `m0`, `m1`, …): 480,000 make an
                    answer of about 31 MiB, within the default max_response_bytes.
  malformed:KIND    prompts/get is answered with a response no JSON-RPC reader can take, of
                    KIND: `surrogate` (a lone surrogate, \ud800, in the message text),
                    `string-code` (an error whose code is the string "E42"), `both` (a
                    result and an error), `deep` (a result nested 300 levels deep).
  odd-names         prompts/list also holds a prompt with an empty name and two prompts named
                    `twin` (their descriptions say which); prompts/get `twin` answers
                    "the first twin".
  many:N            N prompts (default 100000) `prompt-00000`…, plus `needle-42` titled
                    "Needle in the haystack"; `page:SIZE` pages prompts/list (nextCursor).
  page:SIZE         prompts/list returns at most SIZE prompts a page.
  escapes           terminal escape sequences (CSI, OSC 0/8/52, DCS, C1 controls, bidi
                    overrides; see EVIL) in serverInfo, prompt names, titles, descriptions,
                    argument names and descriptions, message text, completion values, error
                    messages and on stderr. Prompts: `show` (clean name, evil everything
                    else; optional arguments `topic` and an evil-named one), an evil-named
                    prompt, and `fail` (answers with an error whose message is evil).
  notify-flood[:N]  after `notifications/initialized`, N (default 200000) notifications/message
                    and notifications/progress as fast as it can write (or until stdin closes).
  stderr-flood[:N]  N lines (default 200000) on stderr, then one 8 MiB line without a
                    newline, while it serves as usual.
  stray-ids         responses with ids nobody asked for: one before anything was asked, and
                    before every real answer: an unknown number, an unknown string (with a
                    decoy result), an error with a null id, one with an unknown id.
                    `stray-ids:after-init` only once `notifications/initialized` came.
  typed-ids         once initialized, before every real answer, a response whose id is the
                    real id with another type (3 → "3") carrying a decoy result ("DECOY").
  list-storm[:MS]   for MS ms (default 3000) after initialization, the prompt list changes
                    and `notifications/prompts/list_changed` is sent every 2 ms; the list is
                    `hello`, `greet` and `storm-GEN`, and `storm-final` once it is over.

--pid-file appends this process's pid (one line) so a test can check it is gone; --stats
writes counters (requests by method, notifications sent) as JSON on exit and every 200 ms.
"""

import base64
import json
import os
import sys
import threading
import time

# ---------------------------------------------------------------------------------------
# Arguments

argv = sys.argv[1:]
pid_file = None
stats_file = None
positional = []
while argv:
    arg = argv.pop(0)
    if arg == "--pid-file":
        pid_file = argv.pop(0)
    elif arg == "--stats":
        stats_file = argv.pop(0)
    else:
        positional.append(arg)

modes = {}
for item in (positional[0] if positional else "").split(","):
    item = item.strip()
    if not item or item == "benign":
        continue
    name, _, param = item.partition(":")
    modes[name] = param


def param(mode, default, kind=int):
    value = modes.get(mode)
    return kind(value) if value else default


if pid_file:
    with open(pid_file, "a") as f:
        f.write("%d\n" % os.getpid())

# ---------------------------------------------------------------------------------------
# Output: one lock, bytes, flushed per message (or per batch for floods)

out = sys.stdout.buffer
out_lock = threading.Lock()
stats = {"requests": {}, "notifications_sent": 0, "list_changed_sent": 0}
stats_lock = threading.Lock()

JUNK = [
    b"this is not JSON at all",
    b"",
    b"   ",
    b"{not json either",
    b"[1, 2, 3]",
    b'{"jsonrpc": "2.0"}',
    b"Content-Length: 52",
    b'{"jsonrpc": "2.0", "method": 42}',
    b"\x00\x01\x02 binary-ish junk",
]
BAD_LINES = [b"\xff\xfe\xfd not utf-8", b"\xc3\x28\xa0\xa1", b'{"jsonrpc": "2.0", "x": "\xed\xa0\x80"}']
# Invalid UTF-8 inside a JSON string: a lone continuation byte, an overlong encoding, a
# surrogate, a truncated sequence.
BAD_BYTES = b"\x80 \xc0\xaf \xed\xa0\x80 \xe2\x82"
BAD_MARK = "@@BAD-UTF8@@"


def write_raw(data):
    with out_lock:
        out.write(data)
        out.flush()


def encode(message):
    data = json.dumps(message).encode()
    if BAD_MARK.encode() in data:
        data = data.replace(BAD_MARK.encode(), BAD_BYTES)
    return data + b"\n"


def send(message):
    data = encode(message)
    prefix = b""
    if "junk-stdout" in modes:
        prefix += b"\n".join(JUNK) + b"\n"
    if "bad-utf8" in modes:
        prefix += b"\n".join(BAD_LINES) + b"\n"
    write_raw(prefix + data)


def respond(rid, result):
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def error(rid, code, message):
    send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def note_stats(key, n=1, method=None):
    with stats_lock:
        if method is not None:
            stats["requests"][method] = stats["requests"].get(method, 0) + n
        else:
            stats[key] += n


# One writer at a time: the periodic writer and a final write share the temp file, and one
# replacing it under the other made that one fail (an OSError that ended the request loop,
# so `exit-mid-request` exited with status 0 instead of 3).
stats_file_lock = threading.Lock()


def write_stats():
    if not stats_file:
        return
    with stats_lock:
        text = json.dumps(stats)
    tmp = stats_file + ".tmp"
    with stats_file_lock:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, stats_file)


def stats_writer():
    while True:
        time.sleep(0.2)
        write_stats()


if stats_file:
    threading.Thread(target=stats_writer, daemon=True).start()


def log(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------
# Escapes

OSC52_PAYLOAD = base64.b64encode(b"PWNED").decode()
EVIL = (
    "\x1b[2J"  # CSI: clear the screen
    "\x1b[31m"  # CSI: red
    "\x1b]0;PWNED-TITLE\x07"  # OSC 0: window title
    "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"  # OSC 8: hyperlink
    "\x1b]52;c;" + OSC52_PAYLOAD + "\x07"  # OSC 52: clipboard write
    "\x1bP1$r0m\x1b\\"  # DCS
    "\x9b2J"  # C1 CSI
    "\x9d0;C1-TITLE\x9c"  # C1 OSC ... ST
    "\u202eREVERSED\u202c"  # bidi override (RLO … PDF)
    "\u2066\u2067\u2068isolates\u2069"  # bidi isolates
    "\u061c"  # Arabic letter mark (a bidi control too)
    "\r\x08\x07"  # CR, backspace, bell
)


def evil(label):
    return "%s[%s]" % (label, EVIL)


EVIL_PROMPT_NAME = "evil" + EVIL + "name"
EVIL_ARG_NAME = "arg" + EVIL


# ---------------------------------------------------------------------------------------
# Prompts

def base_prompts():
    return [
        {"name": "hello", "description": "Says hello"},
        {"name": "greet", "description": "Greets someone",
         "arguments": [{"name": "name", "description": "Who", "required": True}]},
    ]


many_cache = {}


def prompt_list():
    prompts = base_prompts()
    if "many" in modes:
        n = param("many", 100000)
        if n not in many_cache:
            many_cache[n] = [{"name": "prompt-%05d" % i, "description": "Prompt number %d" % i}
                             for i in range(n)]
            many_cache[n].insert(n // 2, {"name": "needle-42", "title": "Needle in the haystack",
                                          "description": "The one to find"})
        prompts = prompts + many_cache[n]
    if "huge" in modes:
        prompts.append({"name": "huge", "description": "One very large message"})
    if "tiny" in modes:
        prompts.append({"name": "tiny", "description": "Very many tiny messages"})
    if "odd-names" in modes:
        prompts += [{"name": "", "description": "A prompt with no name"},
                    {"name": "twin", "description": "The first twin"},
                    {"name": "twin", "description": "The second twin"}]
    if "bad-utf8" in modes:
        description = "Bad bytes: " + (BAD_MARK if modes["bad-utf8"] == "" else "none here")
        prompts.append({"name": "bad", "description": description})
    if "escapes" in modes:
        prompts += [
            {"name": "show", "title": evil("title"), "description": evil("description"),
             "arguments": [
                 {"name": "topic", "title": evil("argtitle"), "description": evil("argdesc"),
                  "required": False},
                 {"name": EVIL_ARG_NAME, "description": evil("evil-arg"), "required": False},
             ]},
            {"name": EVIL_PROMPT_NAME, "title": evil("title2"), "description": evil("desc2")},
            {"name": "fail", "description": "Answers with an error"},
        ]
    if "list-storm" in modes:
        with storm_lock:
            generation = storm["generation"]
            done = storm["done"]
        prompts.append({"name": "storm-final" if done else "storm-%d" % generation,
                        "description": "generation %d" % generation})
    return prompts


def huge_result(rid):
    """Writes the `huge` answer in a few large writes, without building it twice. The text
    is lines of 99 `x` and a newline, ending in `x` (no final newline)."""
    size = int(param("huge", 50, float) * 1024 * 1024)
    unit = b"x" * 99 + b"\\n"  # 100 characters once decoded
    units, rest = divmod(size, 100)
    if units:
        units, rest = units - 1, rest + 100
    head = ('{"jsonrpc": "2.0", "id": %s, "result": {"messages": [{"role": "user", '
            '"content": {"type": "text", "text": "' % json.dumps(rid)).encode()
    tail = b'"}}]}}\n'
    with out_lock:
        out.write(head)
        block = unit * 10000
        full, left = divmod(units, 10000)
        for _ in range(full):
            out.write(block)
        out.write(unit * left + b"x" * rest + tail)
        out.flush()


def tiny_result(rid):
    """Writes the `tiny` answer: N messages of a few bytes each, in a few large writes."""
    count = param("tiny", 480000)
    roles = ("user", "assistant")
    parts = ['{"role": "%s", "content": {"type": "text", "text": "m%d"}}' % (roles[i % 2], i)
             for i in range(count)]
    head = '{"jsonrpc": "2.0", "id": %s, "result": {"messages": [' % json.dumps(rid)
    with out_lock:
        out.write(head.encode())
        for at in range(0, count, 10000):
            chunk = ", ".join(parts[at:at + 10000])
            out.write(((", " if at else "") + chunk).encode())
        out.write(b"]}}\n")
        out.flush()


def malformed(rid):
    """Writes a malformed answer to request `rid`, of the kind `malformed:KIND` names."""
    kind = modes["malformed"]
    head = '{"jsonrpc": "2.0", "id": %s, ' % json.dumps(rid)
    if kind == "surrogate":
        body = ('"result": {"messages": [{"role": "user", "content": {"type": "text", '
                '"text": "lone \\ud800 surrogate"}}]}}')
    elif kind == "string-code":
        body = '"error": {"code": "E42", "message": "a string code"}}'
    elif kind == "both":
        body = ('"result": {"messages": []}, '
                '"error": {"code": -32603, "message": "and an error"}}')
    elif kind == "deep":
        body = '"result": {"messages": [], "x": %s}}' % ("[" * 300 + "]" * 300)
    else:
        raise SystemExit("unknown malformed kind: %s" % kind)
    write_raw((head + body + "\n").encode())


def text_messages(*texts):
    roles = ["user", "assistant"]
    return {"messages": [{"role": roles[i % 2], "content": {"type": "text", "text": t}}
                         for i, t in enumerate(texts)]}


def get_prompt(rid, params):
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "hello":
        return respond(rid, text_messages("hello from chaos"))
    if name == "greet":
        return respond(rid, text_messages("Hello, %s!" % arguments.get("name", "?")))
    if name == "huge" and "huge" in modes:
        return huge_result(rid)
    if name == "tiny" and "tiny" in modes:
        return tiny_result(rid)
    if name == "twin" and "odd-names" in modes:
        return respond(rid, text_messages("the first twin"))
    if name == "bad" and "bad-utf8" in modes:
        if modes["bad-utf8"] == "lines":
            return respond(rid, text_messages("no bad bytes here"))
        return respond(rid, text_messages("before " + BAD_MARK + " after"))
    if "escapes" in modes:
        if name == "show":
            result = text_messages(evil("user-text"), evil("assistant-text"))
            result["description"] = evil("result-description")
            return respond(rid, result)
        if name == EVIL_PROMPT_NAME:
            return respond(rid, text_messages(evil("evil-named")))
        if name == "fail":
            return error(rid, -32603, evil("error-message"))
    if "many" in modes and (name.startswith("prompt-") or name == "needle-42"):
        return respond(rid, text_messages("you found " + name))
    if "list-storm" in modes and name.startswith("storm-"):
        return respond(rid, text_messages("storm prompt " + name))
    error(rid, -32602, "Unknown prompt: %s" % name)


# ---------------------------------------------------------------------------------------
# Background behaviours

def notify_flood():
    total = param("notify-flood", 200000)
    template = ('{"jsonrpc": "2.0", "method": "notifications/message", "params": '
                '{"level": "info", "logger": "flood", "data": "flood message %d"}}\n'
                '{"jsonrpc": "2.0", "method": "notifications/progress", "params": '
                '{"progressToken": "nobody-asked", "progress": %d, "total": %d}}\n')
    sent = 0
    try:
        while sent < total and not stdin_closed.is_set():
            batch = min(100, total - sent)
            data = "".join(template % (sent + i, sent + i, total) for i in range(batch)).encode()
            with out_lock:
                out.write(data)
                out.flush()
            sent += batch
            note_stats("notifications_sent", 2 * batch)
            time.sleep(0)  # let the request loop have the lock
    except (BrokenPipeError, OSError):
        pass


def stderr_flood():
    lines = param("stderr-flood", 200000)
    err = sys.stderr.buffer
    try:
        for start in range(0, lines, 1000):
            err.write(b"".join(b"chaos stderr flood line %d\n" % i
                               for i in range(start, min(lines, start + 1000))))
        err.flush()
        err.write(b"y" * (8 * 1024 * 1024))
        err.flush()
        err.write(b"\nchaos: stderr flood over\n")
        err.flush()
    except (BrokenPipeError, OSError):
        pass


storm_lock = threading.Lock()
storm = {"generation": 0, "done": False}


def list_storm():
    duration = param("list-storm", 3000) / 1000.0
    end = time.monotonic() + duration
    notice = b'{"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}\n'
    try:
        while time.monotonic() < end and not stdin_closed.is_set():
            with storm_lock:
                storm["generation"] += 1
            write_raw(notice)
            note_stats("list_changed_sent")
            time.sleep(0.002)
        with storm_lock:
            storm["done"] = True
        write_raw(notice)
        note_stats("list_changed_sent")
    except (BrokenPipeError, OSError):
        pass


def start(target):
    threading.Thread(target=target, daemon=True).start()


# ---------------------------------------------------------------------------------------
# The request loop

stdin_closed = threading.Event()
stray_counter = [0]
initialized = [False]


def strays(rid, method):
    """Responses nobody asked for, sent before the real answer to `rid`."""
    if modes["stray-ids"] == "after-init" and not initialized[0]:
        return
    stray_counter[0] += 1
    n = stray_counter[0]
    for message in [
        {"jsonrpc": "2.0", "id": 900000 + n, "result": {}},
        {"jsonrpc": "2.0", "id": "stray-%d" % n, "result": decoy(method)},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "stray error"}},
        {"jsonrpc": "2.0", "id": -n, "error": {"code": -32603, "message": "nobody asked"}},
    ]:
        send(message)


def decoy(method):
    """A well-formed result for `method` that is not the real one."""
    if method == "prompts/list":
        return {"prompts": [{"name": "decoy", "description": "DECOY"}]}
    if method == "prompts/get":
        return text_messages("DECOY: an answer to the wrong id")
    return {}


def typed_decoy(rid, method):
    """The real id with another type (a number as a string, or the other way round),
    carrying a decoy, before the real answer."""
    if not initialized[0]:
        return
    if isinstance(rid, bool):
        return
    if isinstance(rid, int):
        other = str(rid)
    elif isinstance(rid, str) and rid.isdigit():
        other = int(rid)
    else:
        return
    send({"jsonrpc": "2.0", "id": other, "result": decoy(method)})


def answer_later(delay, fn, *args):
    def run():
        time.sleep(delay)
        try:
            fn(*args)
        except (BrokenPipeError, OSError):
            pass
    threading.Thread(target=run, daemon=True).start()


def handle(request):
    method = request.get("method")
    rid = request.get("id")
    params = request.get("params") or {}
    if method is None:
        return  # a response (e.g. the client's "Invalid request" to our junk)
    if rid is None:
        if method == "notifications/initialized":
            initialized[0] = True
            if "escapes" in modes:
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": {
                    "level": "warning", "logger": evil("logger"), "data": evil("log-data")}})
                log(evil("stderr-after-init"))
            if "notify-flood" in modes:
                start(notify_flood)
            if "list-storm" in modes:
                start(list_storm)
        return
    note_stats(None, method=method)
    if "stray-ids" in modes:
        strays(rid, method)
    if "typed-ids" in modes:
        typed_decoy(rid, method)
    delay = param("slow-all", 0) / 1000.0 if "slow-all" in modes else 0
    if method == "prompts/get" and "slow" in modes:
        delay = param("slow", 2000) / 1000.0

    if method == "server/discover":
        return error(rid, -32601, "Method not found: server/discover")
    if method == "initialize":
        name = evil("chaos-server") if "escapes" in modes else "chaos"
        capabilities = {"prompts": {"listChanged": True}}
        if "escapes" in modes:
            capabilities["completions"] = {}
            capabilities["logging"] = {}
        result = {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                  "serverInfo": {"name": name, "version": "1.0" + ("" if "escapes" not in modes
                                                                  else EVIL)}}
        if "escapes" in modes:
            result["instructions"] = evil("instructions")
        if delay:
            return answer_later(delay, respond, rid, result)
        return respond(rid, result)
    if method == "ping":
        return respond(rid, {})
    if method == "prompts/list":
        prompts = prompt_list()
        cursor = params.get("cursor")
        page_size = param("page", 0)
        result = {"prompts": prompts}
        if page_size:
            offset = int(cursor) if cursor else 0
            result = {"prompts": prompts[offset:offset + page_size]}
            if offset + page_size < len(prompts):
                result["nextCursor"] = str(offset + page_size)
        if delay:
            return answer_later(delay, respond, rid, result)
        return respond(rid, result)
    if method == "prompts/get":
        if "never-answers" in modes:
            return
        if "malformed" in modes:
            return malformed(rid)
        if "exit-mid-request" in modes:
            log("chaos: serving prompts/get")
            last = "chaos: lost the backend while filling %s" % params.get("name")
            if "escapes" in modes:
                last = evil(last)
            log(last)
            write_stats()
            os._exit(3)
        if delay:
            return answer_later(delay, get_prompt, rid, params)
        return get_prompt(rid, params)
    if method == "completion/complete":
        values = [evil("completion")] if "escapes" in modes else []
        return respond(rid, {"completion": {"values": values, "hasMore": False}})
    if method == "logging/setLevel":
        return respond(rid, {})
    error(rid, -32601, "Method not found: %s" % method)


def main():
    if "stray-ids" in modes and modes["stray-ids"] != "after-init":
        send({"jsonrpc": "2.0", "id": 999999, "result": {"before": "anything was asked"}})
    if "stderr-flood" in modes:
        start(stderr_flood)
    if "escapes" in modes:
        log(evil("stderr-at-start"))
    try:
        for line in sys.stdin.buffer:
            try:
                request = json.loads(line)
            except ValueError:
                continue
            if isinstance(request, dict):
                handle(request)
    except (BrokenPipeError, OSError):
        pass
    stdin_closed.set()
    write_stats()


main()
