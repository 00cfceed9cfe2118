#!/usr/bin/env python3
"""Whole-process benchmarks of mcpick's command line (driven by bench/run.sh; stdlib only).

    whole.py measure --out FILE [--runs N] ...   time the CLI cases, write the samples as JSON
    whole.py table CLI.json STARTUP.json          print every result as one table

`measure` runs each case's clients interleaved (A B C A B C ...), one untimed warm-up round
first. Each run is one process started with posix_spawn, stdin from /dev/null, stdout and
stderr to files; its wall time is from the spawn to wait4's return; its peak memory is the
client process's own VmHWM, read from /proc/PID/status about every millisecond until it exits
(the last value read: sampled, so a peak in the last millisecond can be missed; the servers
are its children and are not counted). Every run's output is checked, and a wrong one stops
the benchmark (exit 1).
"""

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import textwrap
import threading
import time

# Per-request expectations: prompts every list must name, text every get must show.
EVERYTHING_PROMPTS = {"simple-prompt", "args-prompt", "completable-prompt"}
BUILTIN_PROMPTS = {"summarize", "translate", "commit-message", "review-diff"}
PYTHON_PROMPTS = {"greet", "code_review", "all_content"}
GET_CASES = {
    # server: (prompt, arguments, a line of the text the prompt must come back with)
    "everything": ("simple-prompt", {}, "This is a simple prompt without arguments."),
    "builtin": ("summarize", {"text": "Hello"}, "Summarise the text below in one paragraph"),
    "python": ("greet", {"name": "Ada"}, "Please greet Ada in a casual style."),
}
# The servers that speak 2026-07-28, which a raw client can ask with no handshake at all.
MODERN = {"builtin", "python"}
# Warm `get` on a 2026-07-28 server against the raw client that sends only prompts/get.
WARM_GET_RATIO_BUDGET = 1.05
# The budgets of DESIGN.md §6 that whole-process runs can check.
LIST_RATIO_BUDGET = 1.15
MEMORY_BUDGET_MIB = 30
PARALLEL_RATIO_BUDGET = 1.5
FIRST_FRAME_BUDGET_MS = 50
DELAY_S = 0.3
PARALLEL_SERVERS = 10
# A run longer than this is killed and stops the benchmark.
RUN_TIMEOUT_S = 120


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# Running one process


def _vm_hwm_kib(pid):
    try:
        with open("/proc/%d/status" % pid, "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def run_once(argv, env, workdir, tag):
    """Runs argv; returns (wall seconds, peak KiB or None, exit code, stdout, stderr)."""
    out_path = os.path.join(workdir, tag + ".out")
    err_path = os.path.join(workdir, tag + ".err")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, flags, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, flags, 0o644),
    ]
    peak = [None]
    timed_out = [False]
    done = threading.Event()
    started = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)

    def sample():
        while not done.is_set():
            value = _vm_hwm_kib(pid)
            if value is not None:
                peak[0] = value
            if time.perf_counter() - started > RUN_TIMEOUT_S and not timed_out[0]:
                timed_out[0] = True
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.001)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, _ = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    with open(out_path, "rb") as f:
        out = f.read().decode("utf-8", "replace")
    with open(err_path, "rb") as f:
        err = f.read().decode("utf-8", "replace")
    if timed_out[0]:
        raise BenchError("%s ran longer than %d s (killed)\nstderr:\n%s"
                         % (" ".join(argv), RUN_TIMEOUT_S, err[-2000:]))
    return wall, peak[0], os.waitstatus_to_exitcode(status), out, err


# ---------------------------------------------------------------------------------------
# Checking outputs


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def listed_names(client, out):
    """The prompt names in a client's prompts/list output."""
    data = json.loads(out)
    if client.startswith("mcpick"):
        return [p["name"] for p in data], [p["server"] for p in data]
    if client == "floor":
        data = data["result"]
    return [p["name"] for p in data["prompts"]], []


def check(case, client, code, out, err):
    """Raises BenchError unless the output is a right answer."""
    what = "%s %s via %s" % (case["op"], case["server"], client)
    if code != 0:
        raise BenchError("%s exited %d\nstderr:\n%s" % (what, code, err[-2000:]))
    if not out.strip():
        raise BenchError("%s printed nothing\nstderr:\n%s" % (what, err[-2000:]))
    if case["op"] == "list":
        try:
            names, servers = listed_names(client, out)
        except (ValueError, KeyError, TypeError) as e:
            raise BenchError("%s: not a prompt list (%s):\n%s" % (what, e, out[:2000]))
        missing = case["expect_names"] - set(names)
        if missing:
            raise BenchError("%s: prompts missing: %s\n%s" % (what, sorted(missing), out[:2000]))
        if case.get("expect_servers") and set(servers) != case["expect_servers"]:
            raise BenchError("%s: servers %s, expected %s" % (what, sorted(set(servers)),
                                                              sorted(case["expect_servers"])))
        if case.get("expect_count") and len(names) != case["expect_count"]:
            raise BenchError("%s: %d prompts, expected %d" % (what, len(names),
                                                              case["expect_count"]))
        case.setdefault("seen_names", {})[client] = sorted(names)
    else:
        text = out
        if not client.startswith("mcpick"):
            try:
                text = "\n".join(_strings(json.loads(out)))
            except ValueError as e:
                raise BenchError("%s: not JSON (%s):\n%s" % (what, e, out[:2000]))
        if case["expect_text"] not in text:
            raise BenchError("%s: %r not in the output:\n%s" % (what, case["expect_text"],
                                                                out[:2000]))


# ---------------------------------------------------------------------------------------
# The cases


def toml_str(text):
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def server_table(name, command):
    return "[servers.%s]\ncommand = %s\nargs = [%s]\n\n" % (
        name, toml_str(command[0]), ", ".join(toml_str(a) for a in command[1:]))


def cli_cases(args, work):
    everything_js = os.path.join(
        args.peers, "node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
    servers = {
        "everything": [args.node, everything_js, "stdio"],
        "builtin": [args.mcpick, "serve", "--builtin"],
        "python": [os.path.join(args.peers, "venv/bin/python3"),
                   os.path.join(args.repo, "tests/peers/py_server/server.py")],
    }
    expected = {"everything": EVERYTHING_PROMPTS, "builtin": BUILTIN_PROMPTS,
                "python": PYTHON_PROMPTS}
    cases = []
    for op in ("list", "get"):
        for server, command in servers.items():
            if op == "list" and server == "python":
                # Its list is paged (5 a page) and the floor reads one page: not comparable.
                continue
            config = os.path.join(work, "config-%s.toml" % server)
            with open(config, "w") as f:
                f.write(server_table(server, command))
            case = {"op": op, "server": server, "clients": {}, "command": command,
                    "config": config}
            mcpick = [args.mcpick, "--config", config]
            inspector = [args.node22, args.inspector, "--cli"] + command
            # Cold: --refresh reads no catalog (the full handshake and list, as before the
            # catalog cache); warm: the catalog the cold run just wrote.
            if op == "list":
                case["label"] = "list --json"
                case["expect_names"] = expected[server]
                case["clients"]["floor"] = [args.floor, "list"] + command
                case["clients"]["mcpick cold"] = mcpick + ["--refresh", "list", "--json"]
                case["clients"]["mcpick warm"] = mcpick + ["list", "--json"]
                case["clients"]["inspector"] = inspector + ["--method", "prompts/list"]
            else:
                prompt, arguments, text = GET_CASES[server]
                case["label"] = "get %s" % prompt
                case["expect_text"] = text
                pairs = ["%s=%s" % kv for kv in arguments.items()]
                case["clients"]["floor"] = [args.floor, "get", prompt,
                                            json.dumps(arguments)] + command
                if server in MODERN:
                    case["clients"]["floor direct"] = [args.floor, "get-direct", prompt,
                                                       json.dumps(arguments)] + command
                reference = "%s/%s" % (server, prompt)
                case["clients"]["mcpick cold"] = mcpick + ["--refresh", "get", reference] + pairs
                case["clients"]["mcpick warm"] = mcpick + ["get", reference] + pairs
                case["clients"]["inspector"] = inspector + ["--method", "prompts/get",
                                                            "--prompt-name", prompt]
                if pairs:
                    case["clients"]["inspector"] += ["--prompt-args"] + pairs
            cases.append(case)
    return cases


def wire_counts(cases, env, work):
    """The requests mcpick sends, cold and warm: each server run once more behind a tee of
    its stdin (untimed), per case and mode, as {(op, server, mode): [method, ...]}."""
    counts = {}
    for case in cases:
        for mode in ("mcpick cold", "mcpick warm"):
            log = os.path.join(work, "wire-%s-%s-%s.log" % (case["op"], case["server"],
                                                            mode.split()[1]))
            if os.path.exists(log):
                os.remove(log)
            tee = ["/bin/sh", "-c", 'tee -a "$0" | "$@"', log] + case["command"]
            config = case["config"] + ".wire.toml"
            with open(config, "w") as f:
                f.write(server_table(case["server"], tee))
            argv = list(case["clients"][mode])
            argv[argv.index(case["config"])] = config
            # The wire config is another config (another fingerprint): prime its catalog.
            run_once(argv, env, work, "wire-prime")
            if os.path.exists(log):
                os.remove(log)
            code = run_once(argv, env, work, "wire")[2]
            if code != 0:
                raise BenchError("%s (wire log) exited %d" % (" ".join(argv), code))
            methods = []
            with open(log) as f:
                for line in f:
                    try:
                        message = json.loads(line)
                    except ValueError:
                        continue
                    if "method" in message and "id" in message:
                        methods.append(message["method"])
            counts[(case["op"], case["server"], mode)] = methods
    return counts


def parallel_cases(args, work, builtin_count):
    """`mcpick list --json` with 1 and with 10 servers that each wait 300 ms before starting."""
    delayed = ["/bin/sh", "-c", 'sleep %s; exec "$0" serve --builtin' % DELAY_S, args.mcpick]
    cases = []
    for count in (1, PARALLEL_SERVERS):
        config = os.path.join(work, "config-delayed-%d.toml" % count)
        with open(config, "w") as f:
            for n in range(count):
                f.write(server_table("s%d" % n, delayed))
        cases.append({
            "op": "list", "server": "%d delayed" % count, "label": "list --json",
            "count": count,
            "clients": {"mcpick": [args.mcpick, "--config", config, "list", "--json"]},
            "expect_names": BUILTIN_PROMPTS,
            "expect_servers": {"s%d" % n for n in range(count)},
            "expect_count": count * builtin_count,
        })
    return cases


def run_cases(cases, runs, env, work, log):
    """Runs every case's clients interleaved; returns {(case index, client): [samples]}."""
    samples = {}
    for round_ in range(runs + 1):
        warm_up = round_ == 0
        for index, case in enumerate(cases):
            for client, argv in case["clients"].items():
                tag = "c%d-%s" % (index, client)
                wall, peak, code, out, err = run_once(argv, env, work, tag)
                check(case, client, code, out, err)
                if not warm_up:
                    samples.setdefault((index, client), []).append((wall, peak))
        log("  round %d/%d%s done" % (round_, runs, " (warm-up)" if warm_up else ""))
    return samples


def measure(args):
    work = tempfile.mkdtemp(prefix="cli-", dir=args.work)
    home = os.path.join(work, "home")
    os.makedirs(home)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MCPICK_") and k not in ("NO_COLOR",)}
    env.update({
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "XDG_DATA_HOME": os.path.join(home, "data"),
        "XDG_STATE_HOME": os.path.join(home, "state"),
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
    })

    def log(text):
        print(text, file=sys.stderr, flush=True)

    cases = cli_cases(args, work)
    log("one request, %d runs (+1 warm-up) of floor / mcpick / Inspector CLI, interleaved"
        % args.runs)
    samples = run_cases(cases, args.runs, env, work, log)
    log("requests on the wire, cold and warm (each once more, untimed)")
    wires = wire_counts(cases, env, work)
    # Every client listed the same prompts as the floor.
    for case in cases:
        seen = case.get("seen_names")
        if seen and any(names != seen["floor"] for names in seen.values()):
            raise BenchError("%s %s: the clients listed different prompts: %s"
                             % (case["op"], case["server"], seen))

    builtin_list = next(c for c in cases if c["op"] == "list" and c["server"] == "builtin")
    parallel = parallel_cases(args, work, len(builtin_list["seen_names"]["floor"]))
    log("parallel start: %d runs (+1 warm-up) of 1 and %d delayed servers, interleaved"
        % (args.runs, PARALLEL_SERVERS))
    parallel_samples = run_cases(parallel, args.runs, env, work, log)

    result = {"runs": args.runs, "cli": [], "parallel": [],
              "wire": [{"op": op, "server": server, "client": mode, "methods": methods}
                       for (op, server, mode), methods in wires.items()]}
    for index, case in enumerate(cases):
        for client in case["clients"]:
            result["cli"].append({
                "server": case["server"], "request": case["label"], "op": case["op"],
                "client": client,
                "wall_ms": [w * 1000 for w, _ in samples[(index, client)]],
                "peak_kib": [p for _, p in samples[(index, client)]],
            })
    for index, case in enumerate(parallel):
        result["parallel"].append({
            "servers": case["count"],
            "wall_ms": [w * 1000 for w, _ in parallel_samples[(index, "mcpick")]],
            "peak_kib": [p for _, p in parallel_samples[(index, "mcpick")]],
        })
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


# ---------------------------------------------------------------------------------------
# The table


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    return "%d cores (nproc), %s, %.1f GiB RAM; load average now %s" % (
        os.cpu_count() if not hasattr(os, "sched_getaffinity") else len(os.sched_getaffinity(0)),
        cpu, mem_kib / 1024 / 1024, load)


def stats(values):
    return statistics.median(values), min(values), max(values)


def fmt_ms(values):
    med, lo, hi = stats(values)
    return "%8.1f %8.1f %8.1f" % (med, lo, hi)


def fmt_mib(kibs):
    kibs = [k for k in kibs if k]
    if not kibs:
        return "       ?"
    return "%8.1f" % (max(kibs) / 1024)


def verdict(ok):
    return "ok" if ok else "OVER"


def table(args):
    with open(args.cli) as f:
        cli = json.load(f)
    startup = None
    if args.startup and os.path.exists(args.startup):
        with open(args.startup) as f:
            startup = json.load(f)
    lines = []
    add = lines.append
    rule = "-" * 108
    add("=" * 108)
    add("mcpick whole-process benchmarks")
    add("machine: " + machine())
    add("=" * 108)
    add("")
    add("1. One request from start to exit (%d timed runs each, interleaved, after a warm-up)"
        % cli["runs"])
    add(rule)
    add("%-10s %-20s %-12s %8s %8s %8s %7s %9s  %s" % (
        "server", "request", "client", "median", "min", "max", "x floor", "peak MiB",
        "budget"))
    add("%-10s %-20s %-12s %8s %8s %8s %7s %9s" % ("", "", "", "ms", "ms", "ms", "", ""))
    add(rule)
    floors = {}
    for row in cli["cli"]:
        if row["client"] in ("floor", "floor direct"):
            floors[(row["server"], row["op"], row["client"])] = statistics.median(row["wall_ms"])
    for row in cli["cli"]:
        floor = floors[(row["server"], row["op"], "floor")]
        median = statistics.median(row["wall_ms"])
        ratio = median / floor
        budget = ""
        if row["client"].startswith("mcpick"):
            notes = []
            if (row["op"] == "list" and row["server"] == "everything"
                    and row["client"] == "mcpick cold"):
                notes.append("time <= %.2fx: %s" % (LIST_RATIO_BUDGET,
                                                    verdict(ratio <= LIST_RATIO_BUDGET)))
            direct = floors.get((row["server"], row["op"], "floor direct"))
            if direct and row["client"] == "mcpick warm":
                notes.append("%.2fx direct, <= %.2fx: %s" % (
                    median / direct, WARM_GET_RATIO_BUDGET,
                    verdict(median / direct <= WARM_GET_RATIO_BUDGET)))
            peak = max(k for k in row["peak_kib"] if k) / 1024
            notes.append("mem < %d MiB: %s" % (MEMORY_BUDGET_MIB,
                                               verdict(peak < MEMORY_BUDGET_MIB)))
            budget = "; ".join(notes)
        add("%-10s %-20s %-12s %s %7.2f %s  %s" % (
            row["server"], row["request"], row["client"], fmt_ms(row["wall_ms"]), ratio,
            fmt_mib(row["peak_kib"]), budget))
    add(rule)
    add("")
    add("1b. Requests mcpick sends, cold (--refresh) and warm (the catalog of the run before)")
    add(rule)
    for row in cli.get("wire", []):
        add("%-10s %-8s %-12s %2d  %s" % (row["server"], row["op"], row["client"],
                                         len(row["methods"]), ", ".join(row["methods"])))
    add(rule)
    add("")
    add("2. Parallel start: mcpick list --json, servers that each sleep %d ms before starting"
        % (DELAY_S * 1000))
    add(rule)
    add("%-31s %-10s %8s %8s %8s %7s %9s  %s" % (
        "servers", "", "median", "min", "max", "x one", "peak MiB", "budget"))
    add(rule)
    one = statistics.median(cli["parallel"][0]["wall_ms"])
    for row in cli["parallel"]:
        ratio = statistics.median(row["wall_ms"]) / one
        budget = ""
        if row["servers"] > 1:
            budget = "< %.1fx one: %s" % (PARALLEL_RATIO_BUDGET,
                                         verdict(ratio < PARALLEL_RATIO_BUDGET))
        add("%-31s %-10s %s %7.2f %s  %s" % (
            "%d delayed server%s" % (row["servers"], "s" if row["servers"] > 1 else ""), "",
            fmt_ms(row["wall_ms"]), ratio, fmt_mib(row["peak_kib"]), budget))
    add(rule)
    add("")
    add("3. Full-screen menu in a pseudo-terminal (cargo bench --bench startup)")
    add(rule)
    if startup is None:
        add("(no results: the startup bench did not run)")
    else:
        add("%-42s %8s %8s %8s %7s %9s  %s" % ("what", "median", "min", "max", "runs",
                                               "", "budget"))
        add(rule)
        for row in startup["times"]:
            budget = ""
            if row.get("budget_ms") and row.get("vs"):
                base = next(r for r in startup["times"] if r["name"] == row["vs"])
                ratio = statistics.median(row["ms"]) / statistics.median(base["ms"])
                ok = statistics.median(row["ms"]) < row["budget_ms"]
                budget = "%.3fx cold; < %d ms: %s" % (ratio, row["budget_ms"], verdict(ok))
            elif row.get("budget_ms"):
                ok = (statistics.median(row["ms"]) < row["budget_ms"]
                      and not row.get("runs_with_a_server_ready"))
                budget = "< %d ms, no server ready yet: %s" % (row["budget_ms"], verdict(ok))
            if row.get("ratio_to"):
                base = next(r for r in startup["times"] if r["name"] == row["ratio_to"])
                ratio = statistics.median(row["ms"]) / statistics.median(base["ms"])
                budget = "%.2fx one server; < %.1fx: %s" % (
                    ratio, PARALLEL_RATIO_BUDGET, verdict(ratio < PARALLEL_RATIO_BUDGET))
            add("%-42s %s %7d %9s  %s" % (row["what"], fmt_ms(row["ms"]), len(row["ms"]), "",
                                          budget))
        add(rule)
        add("%-42s %8s %8s %8s %7s %9s  %s" % ("mcpick's own memory, menu complete", "", "",
                                               "RSS MiB", "runs", "peak MiB", "budget"))
        add(rule)
        for row in startup["memory"]:
            peak = max(row["kib"]) / 1024
            budget = ""
            if row.get("budget_mib"):
                budget = "< %d MiB: %s" % (row["budget_mib"], verdict(peak < row["budget_mib"]))
            add("%-42s %8s %8s %s %7d %s  %s" % (row["what"], "", "", fmt_mib(row["rss_kib"]),
                                                len(row["kib"]), fmt_mib(row["kib"]), budget))
        add(rule)
    add("")
    add("Notes:")
    for note in NOTES:
        add(textwrap.fill(note, width=106, initial_indent="  - ", subsequent_indent="    "))
    print("\n".join(lines))


NOTES = [
    "Wall time: from spawning the client to its exit (wait4), stdout and stderr to files.",
    "Peak MiB: the client process's own VmHWM, sampled from /proc/PID/status about every"
    " 1 ms until it exits (the last value read; the servers, its children, are not counted),"
    " the largest over the runs. The Inspector's is its launcher's node process.",
    "floor: bench/floor.rs, a std-only client: initialize, notifications/initialized, the"
    " one request, prints the answer; then ends the server as mcpick does (closes its stdin,"
    " 100 ms to exit, SIGTERM to its process group, 100 ms, SIGKILL).",
    "mcpick cold (--refresh: no catalog read) asks server/discover first (2026-07-28) and"
    " falls back to initialize for a legacy server such as server-everything (one more round"
    " trip), then lists (a one-shot command opens no subscriptions/listen stream); mcpick warm"
    " uses the catalog the run before it wrote: the remembered era (initialize at once for a"
    " legacy server, no handshake for a 2026-07-28 one) and the cached list (listed again"
    " only when stale, for `list`; `get` checks the arguments against any cached list).",
    "floor direct: bench/floor.rs get-direct, the 2026-07-28 prompts/get alone (its _meta"
    " naming the version), the least any client can send; the warm-get budget is against it.",
    "Inspector: @modelcontextprotocol/inspector CLI (see bench/run.sh for the version), run"
    " on Node 22 from target/peers/node22; the servers run on the PATH's node. It sends"
    " logging/setLevel before the request; its SDK's StdioClientTransport.close ends the"
    " server's stdin, waits up to 2 s for it to exit, then SIGTERMs the process (2 s more,"
    " then SIGKILL).",
    "server-everything does not exit within 100 ms of its stdin closing, so about 100 ms of"
    " every floor and mcpick run on it is that grace before the SIGTERM; `mcpick serve"
    " --builtin` exits on its own.",
    "Menu (section 3): the release binary in a 120x40 pseudo-terminal; times from the spawn"
    " to the read that first leaves text on the alternate screen (first frame) and to the"
    " one after which the status bar shows every server ready with its prompt count (menu"
    " complete). Its memory: VmHWM and VmRSS of the mcpick process read once, 300 ms after"
    " the menu is complete, the largest over the runs.",
    "Delayed servers: `sh -c 'sleep 0.3; exec mcpick serve --builtin'` (9 prompts each).",
    "x floor, x one: ratio of medians. OVER marks a missed budget (DESIGN.md section 6).",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--runs", type=int, default=7)
    m.add_argument("--out", required=True)
    m.add_argument("--work", help="where the temp dir (configs, outputs, HOME) goes")
    m.add_argument("--mcpick", required=True)
    m.add_argument("--floor", required=True)
    m.add_argument("--node", required=True, help="the node that runs server-everything")
    m.add_argument("--node22", required=True, help="the node that runs the Inspector")
    m.add_argument("--inspector", required=True, help="the Inspector's launcher script")
    m.add_argument("--peers", required=True, help="target/peers")
    m.add_argument("--repo", required=True, help="the repository (for tests/peers)")
    t = sub.add_parser("table")
    t.add_argument("cli")
    t.add_argument("startup", nargs="?")
    args = parser.parse_args()
    sys.setswitchinterval(0.0005)
    try:
        if args.command == "measure":
            if args.runs < 1:
                parser.error("--runs must be at least 1")
            measure(args)
        else:
            table(args)
    except BenchError as e:
        print("whole.py: WRONG OUTPUT: %s" % e, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
