"""MCP prompts test peer for mcpick, built on the official Python SDK (`mcp==2.3.0`).

Usage:
    python server.py [stdio]        # default: JSON-RPC over stdin/stdout
    python server.py http PORT      # Streamable HTTP on http://127.0.0.1:PORT/mcp

The SDK serves both protocol eras on either transport: the legacy `initialize`
handshake (negotiates up to 2025-11-25) and the stateless 2026-07-28 revision
(`server/discover`, per-request `_meta` envelope, `subscriptions/listen`).

stderr protocol for test harnesses (stdout carries only JSON-RPC in stdio mode):
    "py-server starting"                         first line, always
    "py-server ready stdio"                      stdio: serving
    "py-server ready http://127.0.0.1:N/mcp"     http: socket bound and app
                                                 lifespan started (N is the real
                                                 port, so PORT may be 0)

The prompt list is deliberately laid out so that a client has to follow
`nextCursor` to find the interesting prompts: pages hold 5 entries and
`all_content`, `code_review` and `add_prompt` live on pages 2 and 3.

Calling `add_prompt` appends `dynamic_N` and announces the change in both eras:
legacy sessions get `notifications/prompts/list_changed` (the caller's copy
ahead of its result, on the same POST stream over HTTP), and 2026-07-28 clients
get it on any `subscriptions/listen` stream that asked for promptsListChanged
(asynchronously: it may arrive after the `prompts/get` result).

Unknown prompt names, missing (or empty) required arguments and malformed
cursors are JSON-RPC -32602 errors. Besides `code_review`, `greet`'s `style`
argument also completes (formal/casual).
"""

from __future__ import annotations

import base64
import struct
import sys
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, PromptsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

SERVER_NAME = "mcpick-py-test"
SERVER_VERSION = "1.0.0"
PAGE_SIZE = 5
HOST = "127.0.0.1"
HTTP_PATH = "/mcp"


def log(message: str) -> None:
    # stdout belongs to the protocol in stdio mode, so all diagnostics go to stderr.
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Fixed content for `all_content`
# ---------------------------------------------------------------------------

# A complete 1x1 RGBA PNG (signature, IHDR, IDAT, IEND with valid CRCs), so
# clients that decode or sniff the image get a real file rather than noise.
TINY_PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def _tiny_wav() -> bytes:
    # A canonical 44-byte RIFF/WAVE header (PCM, mono, 8 kHz, 8-bit) with an
    # empty data chunk: the smallest file audio tooling accepts as valid WAV.
    fmt = struct.pack("<4sIHHIIHH", b"fmt ", 16, 1, 1, 8000, 8000, 1, 8)
    data = struct.pack("<4sI", b"data", 0)
    return struct.pack("<4sI4s", b"RIFF", 4 + len(fmt) + len(data), b"WAVE") + fmt + data


TINY_WAV_B64 = base64.b64encode(_tiny_wav()).decode("ascii")
BLOB_B64 = base64.b64encode(bytes(range(16))).decode("ascii")


def _text(role: types.Role, text: str) -> types.PromptMessage:
    return types.PromptMessage(role=role, content=types.TextContent(text=text))


def _all_content_messages() -> list[types.PromptMessage]:
    # One message per ContentBlock variant, roles alternating, so a client can
    # check both role rendering and every content decoder in a single call.
    return [
        _text("user", "This message is plain text."),
        types.PromptMessage(role="assistant", content=types.ImageContent(data=TINY_PNG_B64, mime_type="image/png")),
        types.PromptMessage(role="user", content=types.AudioContent(data=TINY_WAV_B64, mime_type="audio/wav")),
        types.PromptMessage(
            role="assistant",
            content=types.EmbeddedResource(
                resource=types.TextResourceContents(
                    uri="file:///notes.txt", mime_type="text/plain", text="embedded notes"
                )
            ),
        ),
        types.PromptMessage(
            role="user",
            content=types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="file:///data.bin", mime_type="application/octet-stream", blob=BLOB_B64
                )
            ),
        ),
        types.PromptMessage(
            role="assistant",
            content=types.ResourceLink(
                uri="file:///project/src/main.rs",
                name="main.rs",
                title="Main source file",
                description="Entry point of the project",
                mime_type="text/x-rust",
                size=1234,
            ),
        ),
    ]


# ---------------------------------------------------------------------------
# Prompt catalog
# ---------------------------------------------------------------------------

LANGUAGES = ["python", "rust", "typescript", "go"]
FRAMEWORKS = {
    "python": ["flask", "django", "fastapi"],
    "rust": ["axum", "actix", "rocket"],
}
STYLES = ["formal", "casual"]


def _filler(n: int) -> types.Prompt:
    return types.Prompt(name=f"filler_{n:02d}", description=f"Filler prompt {n:02d} (pagination padding)")


GREET = types.Prompt(
    name="greet",
    title="Greeting",
    description="A short multi-turn greeting conversation",
    arguments=[
        types.PromptArgument(name="name", title="Name", description="Who to greet", required=True),
        types.PromptArgument(name="style", description="formal or casual", required=False),
    ],
)
ALL_CONTENT = types.Prompt(name="all_content", description="One message for every content type")
CODE_REVIEW = types.Prompt(
    name="code_review",
    description="Review code; both arguments support completion",
    arguments=[
        types.PromptArgument(name="language", description="Programming language", required=True),
        types.PromptArgument(name="framework", description="Framework (completion depends on language)"),
    ],
)
ADD_PROMPT = types.Prompt(
    name="add_prompt",
    description="Side effect: adds prompt dynamic_N and announces a prompts list change",
)


class Catalog:
    """The server's mutable prompt list (shared by every connection in the process)."""

    def __init__(self) -> None:
        # Order matters: see the module docstring about pagination.
        self.prompts: list[types.Prompt] = [
            GREET, _filler(1), _filler(2), _filler(3), _filler(4),
            ALL_CONTENT, _filler(5), _filler(6), _filler(7), _filler(8),
            CODE_REVIEW, _filler(9), ADD_PROMPT,
        ]  # fmt: skip
        self.dynamic_count = 0

    def find(self, name: str) -> types.Prompt | None:
        return next((p for p in self.prompts if p.name == name), None)

    def add_dynamic(self) -> str:
        self.dynamic_count += 1
        name = f"dynamic_{self.dynamic_count}"
        self.prompts.append(types.Prompt(name=name, description=f"Added by add_prompt call #{self.dynamic_count}"))
        return name


catalog = Catalog()


# Cursors are opaque to clients but trivially decodable here; malformed ones are
# a client error (-32602), which lets tests check cursor handling too.
def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode("ascii")


def _decode_cursor(cursor: str) -> int:
    try:
        prefix, _, value = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii").partition(":")
        offset = int(value)
    except (ValueError, UnicodeError):
        raise MCPError(types.INVALID_PARAMS, f"Invalid cursor: {cursor!r}") from None
    if prefix != "offset" or offset < 0:
        raise MCPError(types.INVALID_PARAMS, f"Invalid cursor: {cursor!r}")
    return offset


# ---------------------------------------------------------------------------
# List-changed delivery
# ---------------------------------------------------------------------------

# 2026-07-28 clients only receive change notifications on `subscriptions/listen`
# streams; the SDK's ListenHandler fans out whatever is published on this bus
# (filtering, subscription-id stamping and the acknowledgement are done for us).
bus = InMemorySubscriptionBus()
listen_handler = ListenHandler(bus)

# Handshake-era clients get `notifications/prompts/list_changed` on their session.
# The SDK has no server-wide broadcast for that era, so remember one
# ServerSession per live legacy connection: HTTP connections are keyed by their
# Mcp-Session-Id; a stdio process has exactly one connection. Entries for
# sessions that have since ended stay behind: the SDK silently drops
# notifications addressed to them, which is harmless for a short-lived peer.
legacy_sessions: dict[str, ServerSession] = {}


def _legacy_key(ctx: ServerRequestContext[Any, Any]) -> str | None:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return "stdio"
    return headers.get("mcp-session-id")  # absent on the opening `initialize` POST


async def track_legacy_sessions(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    key = _legacy_key(ctx)
    if key is not None:
        legacy_sessions[key] = ctx.session
    return await call_next(ctx)


async def announce_prompts_changed(ctx: ServerRequestContext[Any, Any]) -> None:
    await bus.publish(PromptsListChanged())

    caller = _legacy_key(ctx)
    if caller is not None:
        # Request-scoped, so over HTTP it rides this POST's SSE response (ahead of
        # the result) and reaches the caller even without a standalone GET stream.
        await ctx.session.send_notification(types.PromptListChangedNotification(), related_request_id=ctx.request_id)
    for key, session in list(legacy_sessions.items()):
        if key == caller:
            continue
        try:
            # Standalone channel: the other session's GET stream (HTTP) if open.
            await session.send_prompt_list_changed()
        except Exception as exc:  # a closed session must not fail the caller
            log(f"py-server: dropping legacy session {key}: {exc!r}")
            legacy_sessions.pop(key, None)


# ---------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------


async def list_prompts(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    offset = _decode_cursor(params.cursor) if params is not None and params.cursor else 0
    page = catalog.prompts[offset : offset + PAGE_SIZE]
    end = offset + len(page)
    next_cursor = _encode_cursor(end) if end < len(catalog.prompts) else None
    return types.ListPromptsResult(prompts=page, next_cursor=next_cursor)


def _require(prompt: types.Prompt, arguments: dict[str, str]) -> None:
    missing = [a.name for a in prompt.arguments or [] if a.required and not arguments.get(a.name)]
    if missing:
        raise MCPError(types.INVALID_PARAMS, f"Missing required argument(s) for {prompt.name}: {', '.join(missing)}")


async def get_prompt(ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
    prompt = catalog.find(params.name)
    if prompt is None:
        # The lowlevel API leaves unknown names to us; -32602 is what the spec asks for.
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")
    args = params.arguments or {}
    _require(prompt, args)

    if prompt.name == "greet":
        name, style = args["name"], args.get("style") or "casual"
        messages = [
            _text("user", f"Please greet {name} in a {style} style."),
            _text("assistant", f"Hello, {name}!"),
            _text("user", "Thanks."),
        ]
    elif prompt.name == "all_content":
        messages = _all_content_messages()
    elif prompt.name == "code_review":
        framework = f" using {args['framework']}" if args.get("framework") else ""
        messages = [_text("user", f"Please review this {args['language']} code{framework}.")]
    elif prompt.name == "add_prompt":
        added = catalog.add_dynamic()
        await announce_prompts_changed(ctx)
        messages = [_text("user", f"added {added}")]
    else:  # fillers and dynamic_N
        messages = [_text("user", f"This is {prompt.name}.")]
    return types.GetPromptResult(description=prompt.description, messages=messages)


def _complete_from(candidates: list[str], prefix: str) -> types.Completion:
    matches = [c for c in candidates if c.startswith(prefix)]
    # The spec caps one response at 100 values; total/hasMore describe the rest.
    return types.Completion(values=matches[:100], total=len(matches), has_more=len(matches) > 100)


async def complete(ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams) -> types.CompleteResult:
    ref, arg = params.ref, params.argument
    candidates: list[str] = []
    if isinstance(ref, types.PromptReference):
        if catalog.find(ref.name) is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {ref.name}")
        context = (params.context.arguments if params.context else None) or {}
        if ref.name == "code_review" and arg.name == "language":
            candidates = LANGUAGES
        elif ref.name == "code_review" and arg.name == "framework":
            candidates = FRAMEWORKS.get(context.get("language", ""), [])
        elif ref.name == "greet" and arg.name == "style":
            candidates = STYLES
    return types.CompleteResult(completion=_complete_from(candidates, arg.value))


class PeerServer(Server[Any]):
    # The streamable-HTTP manager builds handshake capabilities from
    # create_initialization_options() with no arguments, which would advertise
    # prompts.listChanged=false; make the honest default apply on every
    # transport. (At 2026-07-28 the SDK derives listChanged from the registered
    # subscriptions/listen handler instead.)
    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(prompts_changed=True),
            experimental_capabilities,
            extensions,
        )


def build_server() -> PeerServer:
    server = PeerServer(
        SERVER_NAME,
        version=SERVER_VERSION,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
        on_subscriptions_listen=listen_handler,
    )
    server.middleware.append(track_legacy_sessions)
    return server


# ---------------------------------------------------------------------------
# Transports
# ---------------------------------------------------------------------------


async def run_stdio(server: PeerServer) -> None:
    async with stdio_server() as (read_stream, write_stream):
        log("py-server ready stdio")
        await server.run(read_stream, write_stream, server.create_initialization_options())


class _PeerUvicorn(uvicorn.Server):
    # uvicorn runs the app lifespan (which starts the MCP session manager) before
    # binding, so once startup() returns the endpoint is fully usable.
    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if self.started:
            port = self.servers[0].sockets[0].getsockname()[1]
            log(f"py-server ready http://{HOST}:{port}{HTTP_PATH}")

    # uvicorn waits for in-flight responses before exiting, and a listen stream
    # never finishes on its own. Closing the streams first sends each subscriber
    # the spec's graceful final result instead of leaving SIGTERM hanging.
    async def shutdown(self, sockets: Any = None) -> None:
        listen_handler.close()
        await super().shutdown(sockets)


async def run_http(server: PeerServer, port: int) -> None:
    # host=127.0.0.1 also makes the SDK enable DNS-rebinding protection: the
    # Host header must be 127.0.0.1:*, localhost:* or [::1]:*.
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=HOST)
    # The graceful-shutdown cap covers streams nobody can close for us (legacy
    # GET streams), so a test harness's SIGTERM always ends the process promptly.
    config = uvicorn.Config(
        app, host=HOST, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=2
    )
    await _PeerUvicorn(config).serve()


def main(argv: list[str]) -> int:
    log("py-server starting")
    mode = argv[1] if len(argv) > 1 else "stdio"
    server = build_server()
    if mode == "stdio" and len(argv) <= 2:
        anyio.run(run_stdio, server)
    elif mode == "http" and len(argv) == 3 and argv[2].isdigit():
        anyio.run(run_http, server, int(argv[2]))
    else:
        log("usage: server.py [stdio] | server.py http PORT")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
