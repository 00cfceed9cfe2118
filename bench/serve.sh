#!/usr/bin/env bash
# `mcpick serve --http` against the official SDK servers, side by side, in one run: the same
# `prompts/get` (with arguments) and `prompts/list` at 1, 16, 64 and 256 connections over
# loopback, through wrk (a keep-alive HTTP/1.1 load client; percentiles from its own
# histogram). Prints one Markdown table: requests/s, p50/p99 latency, errors, each server's
# peak RSS (VmHWM) so far in its run, and its CPU time (user + system) per request.
#   bench/serve.sh                  every server, 5 s per cell
#   DURATION=10 bench/serve.sh      longer cells
#   MCPICK_BEFORE=path/to/old/mcpick bench/serve.sh   also rows for another mcpick build
#   MCPICK=path/to/mcpick bench/serve.sh   that binary instead of building the release one
#   MCPICK_BEFORE=old ROUNDS=5 CONNECTIONS=64 PEERS=0 bench/serve.sh
#                                   the two mcpick builds (and the C floor) alone, A B A B
#                                   for 5 rounds, at 64 connections (CONNECTIONS: any list;
#                                   PEERS=0 skips the SDK servers and h2load); with ROUNDS over
#                                   1 a last table gives each row's median requests/s
#   FLOOR=0 bench/serve.sh          without the C floor
# The servers:
#   mcpick        `mcpick serve --builtin --http`, 2026-07-28 requests (stateless)
#   mcpick legacy the same server, one `initialize`d session (Mcp-Session-Id), 2025-11-25
#   python-sdk    bench/py_prompt_server.py: the Python SDK `mcp` (low-level Server,
#                 stateless_http, json_response) under uvicorn, one prompt, 2026-07-28
#   ts-everything @modelcontextprotocol/server-everything `streamableHttp` (TypeScript SDK,
#                 Express): sessions only, so one `initialize`d session, 2025-11-25
#   C floor       bench/http_floor.c (when gcc is there): an epoll HTTP/1.1 server, a thread
#                 per core, that reads each request and answers a fixed JSON body as long as
#                 mcpick's `prompts/get` answer; the same wrk script and headers as mcpick's
#                 `prompts/get` cell. What the HTTP alone costs on this machine.
# mcpick, mcpick before, the C floor and python-sdk run once a round (A B A B with ROUNDS);
# ts-everything and h2load once, after.
# Installs wrk and h2load (apt-get) and the SDK servers (tests/peers/setup.sh), builds the
# release binary. Exits 1 when a server cannot be started or answers wrongly before load.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-5}"
peers="${MCPICK_PEERS_DIR:-$root/target/peers}"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
say() { printf '%s\n' "$*" >&2; }

if ! command -v wrk >/dev/null || ! command -v h2load >/dev/null; then
    say "== installing wrk and h2load (apt-get)"
    as_root=""
    [ "$(id -u)" -ne 0 ] && as_root="sudo"
    $as_root apt-get install -y wrk nghttp2-client >&2
fi
say "== SDK servers (tests/peers/setup.sh)"
bash "$root/tests/peers/setup.sh"
if [ -n "${MCPICK:-}" ]; then
    mcpick="$MCPICK"
else
    say "== release build"
    (cd "$root" && cargo build --release --bin mcpick >&2)
    mcpick="${CARGO_TARGET_DIR:-$root/target}/release/mcpick"
fi
everything="$peers/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
python="$peers/venv/bin/python"

# A free loopback port (the kernel picks it; a race with another program is unlikely).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_port() {
    for _ in $(seq 1 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    say "bench/serve.sh: nothing listens on port $1"
    return 1
}

accept='Accept: application/json, text/event-stream'
json_type='Content-Type: application/json'
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# The request bodies, one file per (protocol, method).
printf '%s' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":\"explain-error\",\"arguments\":{\"error\":\"segfault\"},$meta}}" >"$work/modern-get.json"
printf '%s' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/list\",\"params\":{$meta}}" >"$work/modern-list.json"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"explain-error","arguments":{"error":"segfault"}}}' >"$work/legacy-get.json"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"args-prompt","arguments":{"city":"Paris"}}}' >"$work/ts-get.json"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{}}' >"$work/legacy-list.json"
cp "$work/legacy-list.json" "$work/ts-list.json"

# wrk's script: POST the body in $BODY, each request with an id of its own (a session
# routes answers by id: requests in flight with one id would wait for each other's
# answer), and print one parseable line at the end.
cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
local file = assert(io.open(os.getenv("BODY"), "rb"))
local body = file:read("*a")
file:close()
local first, last = string.find(body, '"id":%d+')
assert(first, "the body has no numeric id")
local head, tail = body:sub(1, first + 4), body:sub(last + 1)
local threads = 0
setup = function(thread)
    threads = threads + 1
    thread:set("base", threads * 100000000)
end
local counter = 0
request = function()
    counter = counter + 1
    return wrk.format(nil, nil, nil, head .. string.format("%d", base + counter) .. tail)
end
done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("RESULT %d %d %.0f %.0f %d\n", summary.requests, summary.duration,
        latency:percentile(50), latency:percentile(99),
        e.connect + e.read + e.write + e.timeout + e.status))
end
LUA

# `initialize` + `notifications/initialized` on URL; prints the session id.
open_session() {
    local url="$1" sid
    sid="$(curl -s -D - -o /dev/null "$url" -H "$json_type" -H "$accept" \
        -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' |
        tr -d '\r' | awk 'tolower($1) == "mcp-session-id:" { print $2 }')"
    [ -n "$sid" ] || {
        say "bench/serve.sh: $url gave no session id"
        return 1
    }
    curl -s -o /dev/null "$url" -H "$json_type" -H "$accept" -H "Mcp-Session-Id: $sid" \
        -H 'MCP-Protocol-Version: 2025-11-25' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    printf '%s' "$sid"
}

# The CPU time (user and system, in clock ticks) process PID has used so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

rows=()
# measure NAME PID URL BODYFILE METHOD EXPECT [HEADER...]: one answer checked, then wrk at
# each connection count; a row per count, with the server's CPU time per request (user and
# system, from /proc: less disturbed than requests/s by other work on the machine).
measure() {
    local name="$1" pid="$2" url="$3" body="$4" method="$5" expect="$6"
    shift 6
    local headers=(-H "$json_type" -H "$accept" -H "Mcp-Method: $method")
    local h
    for h in "$@"; do headers+=(-H "$h"); done
    [ "$method" = prompts/get ] && headers+=(-H "Mcp-Name: $(sed 's/.*"name":"\([^"]*\)".*/\1/' "$body")")
    local answer
    answer="$(curl -s "$url" "${headers[@]}" --data-binary @"$body")"
    case "$answer" in
        *"$expect"*)
            if [ "$name" = mcpick ] && [ "$method" = prompts/get ] && [ -z "${get_answer_bytes:-}" ]; then
                get_answer_bytes="$(printf '%s' "$answer" | wc -c)"
            fi
            ;;
        *)
            say "bench/serve.sh: $name answered $method with: ${answer:0:400}"
            exit 1
            ;;
    esac
    local connections threads out result
    for connections in ${CONNECTIONS:-1 16 64 256}; do
        threads=2
        [ "$connections" -eq 1 ] && threads=1
        ticks_before="$(cpu_ticks "$pid")"
        out="$(BODY="$body" wrk -t "$threads" -c "$connections" -d "${duration}s" --timeout 10s \
            -s "$work/post.lua" "${headers[@]}" "$url")"
        ticks_after="$(cpu_ticks "$pid")"
        result="$(grep '^RESULT' <<<"$out")" || {
            say "$out"
            exit 1
        }
        local requests micros p50 p99 errors hwm
        read -r _ requests micros p50 p99 errors <<<"$result"
        hwm="$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")"
        rows+=("$(printf '| %s | %s | %d | %s | %s | %s | %s | %s MB | %s µs |' "$name" "$method" "$connections" \
            "$(awk -v r="$requests" -v d="$micros" 'BEGIN { printf "%.0f", r / (d / 1e6) }')" \
            "$(awk -v v="$p50" 'BEGIN { printf "%.2f ms", v / 1000 }')" \
            "$(awk -v v="$p99" 'BEGIN { printf "%.2f ms", v / 1000 }')" \
            "$errors" "$hwm" \
            "$(awk -v a="$ticks_before" -v b="$ticks_after" -v t="$(getconf CLK_TCK)" -v r="$requests" \
                'BEGIN { printf "%.1f", (b - a) / t * 1e6 / r }')")")
        say "${rows[-1]}"
    done
}

# bench_mcpick LABEL BINARY: the 2026-07-28 and the legacy-session rows of one mcpick build.
bench_mcpick() {
    local label="$1" binary="$2" method port url pid sid
    for method in get list; do
        port="$(free_port)"
        "$binary" serve --builtin --http "127.0.0.1:$port" 2>/dev/null &
        pid=$!
        pids+=("$pid")
        wait_port "$port"
        url="http://127.0.0.1:$port/mcp"
        measure "$label" "$pid" "$url" "$work/modern-$method.json" "prompts/$method" '"result"' \
            'MCP-Protocol-Version: 2026-07-28'
        kill "$pid"
        wait "$pid" 2>/dev/null || true
    done
    for method in get list; do
        port="$(free_port)"
        "$binary" serve --builtin --http "127.0.0.1:$port" 2>/dev/null &
        pid=$!
        pids+=("$pid")
        wait_port "$port"
        url="http://127.0.0.1:$port/mcp"
        sid="$(open_session "$url")"
        measure "$label legacy" "$pid" "$url" "$work/legacy-$method.json" "prompts/$method" '"result"' \
            'MCP-Protocol-Version: 2025-11-25' "Mcp-Session-Id: $sid"
        kill "$pid"
        wait "$pid" 2>/dev/null || true
    done
}

# bench_floor: the C floor's row, the 2026-07-28 `prompts/get` cell's request and headers,
# answered with as many bytes as mcpick answered it.
floor=""
if [ "${FLOOR:-1}" != 0 ] && command -v gcc >/dev/null; then
    floor="$work/http_floor"
    gcc -O2 -pthread -o "$floor" "$here/http_floor.c"
fi
bench_floor() {
    local port pid
    port="$(free_port)"
    "$floor" "$port" "$(nproc)" "${get_answer_bytes:-541}" &
    pid=$!
    pids+=("$pid")
    wait_port "$port"
    measure "C floor" "$pid" "http://127.0.0.1:$port/mcp" "$work/modern-get.json" prompts/get '"result"' \
        'MCP-Protocol-Version: 2026-07-28'
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

# bench_python: the Python SDK server's rows.
bench_python() {
    local method port pid
    for method in get list; do
        port="$(free_port)"
        "$python" "$here/py_prompt_server.py" "$port" 2>/dev/null &
        pid=$!
        pids+=("$pid")
        wait_port "$port"
        measure python-sdk "$pid" "http://127.0.0.1:$port/mcp" "$work/modern-$method.json" "prompts/$method" \
            '"result"' 'MCP-Protocol-Version: 2026-07-28'
        kill "$pid"
        wait "$pid" 2>/dev/null || true
    done
}

# medians: with more than one round, each (server, request, connections)'s median
# requests/s, and its rounds' figures.
medians() {
    [ "${ROUNDS:-1}" -gt 1 ] || return 0
    printf '\nMedians over %s rounds (requests/s, each round in order)\n\n' "$ROUNDS"
    printf '| server | request | connections | median requests/s | rounds | median CPU/request |\n'
    printf '|---|---|---:|---:|---|---:|\n'
    printf '%s\n' "${rows[@]}" | awk -F' *[|] *' '
        function median(key, column,    i, j, m, s, t) {
            m = n[key]
            for (i = 1; i <= m; i++) s[i] = v[key, i, column] + 0
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
                if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
            return m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
        }
        { key = $2 " | " $3 " | " $4; if (!(key in n)) order[++keys] = key
          n[key]++; v[key, n[key], 5] = $5; v[key, n[key], 10] = $10
          all[key] = all[key] (n[key] > 1 ? " " : "") $5 }
        END {
            for (k = 1; k <= keys; k++) {
                key = order[k]
                printf "| %s | %.0f | %s | %.1f µs |\n", key, median(key, 5), all[key], median(key, 10)
            }
        }'
}

say "== load: ${duration}s per cell"
for _ in $(seq "${ROUNDS:-1}"); do
    bench_mcpick mcpick "$mcpick"
    if [ -n "${MCPICK_BEFORE:-}" ]; then
        bench_mcpick "mcpick before" "$MCPICK_BEFORE"
    fi
    if [ -n "$floor" ]; then bench_floor; fi
    if [ "${PEERS:-1}" != 0 ]; then bench_python; fi
done
if [ "${PEERS:-1}" = 0 ]; then
    printf '\nmcpick serve --http, %s, %s cores, wrk %ss per cell, loopback\n\n' \
        "$(date -u +%Y-%m-%d)" "$(nproc)" "$duration"
    printf '| server | request | connections | requests/s | p50 | p99 | errors | peak RSS | CPU/request |\n'
    printf '|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
    printf '%s\n' "${rows[@]}"
    medians
    exit 0
fi
for method in get list; do
    port="$(free_port)"
    # It logs a line per request to stdout, as shipped; that goes nowhere here.
    PORT="$port" node "$everything" streamableHttp >/dev/null 2>&1 &
    pid=$!
    pids+=("$pid")
    wait_port "$port"
    url="http://127.0.0.1:$port/mcp"
    sid="$(open_session "$url")"
    measure ts-everything "$pid" "$url" "$work/ts-$method.json" "prompts/$method" '"result"' \
        'MCP-Protocol-Version: 2025-11-25' "Mcp-Session-Id: $sid"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done

# The issue's acceptance check, with h2load: 20,000 2026-07-28 `prompts/get`s on 64
# connections, and a single connection's mean.
port="$(free_port)"
"$mcpick" serve --builtin --http "127.0.0.1:$port" 2>/dev/null &
pid=$!
pids+=("$pid")
wait_port "$port"
h2load_args=(--h1 -d "$work/modern-get.json" -H "$json_type" -H "$accept" -H 'MCP-Protocol-Version: 2026-07-28'
    -H 'Mcp-Method: prompts/get' -H 'Mcp-Name: explain-error' "http://127.0.0.1:$port/mcp")
h2load_many="$(h2load -n 20000 -c 64 "${h2load_args[@]}")"
h2load_one="$(h2load -n 2000 -c 1 "${h2load_args[@]}")"
kill "$pid"
wait "$pid" 2>/dev/null || true

printf '\nmcpick serve --http benchmark, %s, %s (%s cores), wrk %ss per cell, loopback\n\n' \
    "$(date -u +%Y-%m-%d)" "$(lscpu | sed -n 's/^Model name: *//p' | head -1)" "$(nproc)" "$duration"
printf '| server | request | connections | requests/s | p50 | p99 | errors | peak RSS | CPU/request |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
printf '%s\n' "${rows[@]}"
printf '\nh2load --h1, mcpick serve --builtin --http, 2026-07-28 prompts/get:\n'
printf -- '- -n 20000 -c 64: %s\n' "$(grep -E '^finished in' <<<"$h2load_many")"
printf -- '- -n 2000 -c 1: %s; time for request (min max mean sd): %s\n' \
    "$(grep -E '^finished in' <<<"$h2load_one")" \
    "$(grep -E '^time for request' <<<"$h2load_one" | awk '{ print $4, $5, $6, $7 }')"
medians
