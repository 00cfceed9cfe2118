"""A stdio server on the official Python SDK (`mcp==2.3.0`) whose `prompts/get` asks the
user mid-request with `elicitation/create`, as servers of 2025-06-18 and 2025-11-25 do.
Run it behind `legacy_gate.py` so that the client takes it for a legacy server:

    python legacy_gate.py python elicit_server.py

Prompts:
    deploy   asks one yes/no question, `confirmed` (required), and says what came back:
             "deploy confirmed", "deploy not confirmed", "the user declined: not deploying",
             "the user cancelled: not deploying". A client that declared no form
             elicitation is not asked (the spec forbids it): "cannot ask: ...".
    survey   asks one form of every field kind: `name` (text, required), `age` (integer
             1..150, default 30), `color` (choice red/green), `tags` (multi-choice a/b/c)
             and says back the content it received as JSON.
    pester   asks `confirmed` again and again, however it is answered (a server that never
             stops asking).

stderr: "elicit-server ready" once serving, then one "elicit-server: answered ACTION CONTENT"
line per answer received.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

CONFIRM = {
    "type": "object",
    "properties": {"confirmed": {"type": "boolean", "title": "Deploy now?"}},
    "required": ["confirmed"],
}
SURVEY = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 1},
        "age": {"type": "integer", "minimum": 1, "maximum": 150, "default": 30},
        "color": {"type": "string", "oneOf": [{"const": "red", "title": "Red"}, {"const": "green", "title": "Green"}]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}},
    },
    "required": ["name"],
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def text(body: str) -> types.GetPromptResult:
    return types.GetPromptResult(
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=body))]
    )


async def list_prompts(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(name="deploy", description="Asks for a confirmation first"),
            types.Prompt(name="survey", description="Asks a form of every kind"),
            types.Prompt(name="pester", description="Never stops asking"),
        ]
    )


async def ask(ctx: ServerRequestContext[Any, Any], message: str, schema: dict[str, Any]) -> types.ElicitResult:
    answer = await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
    log("elicit-server: answered %s %s" % (answer.action, json.dumps(answer.content, sort_keys=True)))
    return answer


async def get_prompt(ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
    form = types.ClientCapabilities(elicitation=types.ElicitationCapability(form=types.FormElicitationCapability()))
    declared = ctx.session.check_client_capability(form) or ctx.session.check_client_capability(
        types.ClientCapabilities(elicitation=types.ElicitationCapability())
    )
    if params.name not in ("deploy", "survey", "pester"):
        raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")
    if not declared:
        return text("cannot ask: the client declared no form elicitation")
    if params.name == "survey":
        answer = await ask(ctx, "A few questions", SURVEY)
        return text("survey %s %s" % (answer.action, json.dumps(answer.content, sort_keys=True)))
    if params.name == "pester":
        while True:
            await ask(ctx, "Deploy now? (again)", CONFIRM)
    answer = await ask(ctx, "Deploy to production?", CONFIRM)
    if answer.action == "accept":
        confirmed = (answer.content or {}).get("confirmed") is True
        return text("deploy confirmed" if confirmed else "deploy not confirmed")
    verb = "declined" if answer.action == "decline" else "cancelled"
    return text(f"the user {verb}: not deploying")


async def main() -> None:
    server = Server("elicit-server", version="1.0.0", on_list_prompts=list_prompts, on_get_prompt=get_prompt)
    async with stdio_server() as (read_stream, write_stream):
        log("elicit-server ready")
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
