"""The official Python SDK's server (`mcp`, low-level API) with one prompt, for bench/serve.sh.

Usage: python py_prompt_server.py PORT

Stateless Streamable HTTP with JSON answers (the SDK's fastest settings), served by
uvicorn on 127.0.0.1:PORT/mcp. The prompt mirrors mcpick's bundled `explain-error`
(three arguments, one text message), so both servers answer the same request.
"""

from __future__ import annotations

import sys
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

PROMPT = types.Prompt(
    name="explain-error",
    title="Explain an error",
    description="What an error message means, its likely causes in order, and how to fix each.",
    arguments=[
        types.PromptArgument(name="error", description="The error message or stack trace", required=True),
        types.PromptArgument(name="code", description="The code that produced it", required=False),
        types.PromptArgument(name="language", description="Where the error comes from", required=False),
    ],
)


async def list_prompts(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[PROMPT])


async def get_prompt(ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
    if params.name != PROMPT.name:
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")
    args = params.arguments or {}
    if not args.get("error"):
        raise MCPError(types.INVALID_PARAMS, "Missing required argument: error")
    text = (
        f"Explain this error to me. Language or tool: {args.get('language') or 'unknown'}.\n\n"
        f"{args['error']}\n\nCode: {args.get('code') or '(not available)'}"
    )
    return types.GetPromptResult(
        description=PROMPT.description,
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: py_prompt_server.py PORT", file=sys.stderr)
        return 2
    server = Server("bench-py", version="1.0.0", on_list_prompts=list_prompts, on_get_prompt=get_prompt)
    app = server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=int(argv[1]), log_level="warning", lifespan="on")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
