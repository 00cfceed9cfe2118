"""An MCP server behind OAuth, for mcpick's sign-in tests, on the official Python SDK (`mcp==2.3.0`).

Usage:
    python auth_server.py PORT [--token-lifetime SECONDS] [--list-ttl MS] [--dpop]

Serves Streamable HTTP on http://127.0.0.1:PORT/mcp (PORT may be 0: any free port) and is
its own OAuth 2.1 authorization server at http://127.0.0.1:PORT, with the SDK's routes
(mcp.server.auth): RFC 9728 protected resource metadata, RFC 8414 metadata, dynamic client
registration, /authorize, /token (authorization_code and refresh_token grants) and /revoke.
Every /mcp request needs a bearer token it issued, with the scope `prompts`; anything else
gets the SDK's 401 with a `WWW-Authenticate` challenge naming the resource metadata.

What makes it a test server, all in memory:
  * /authorize approves at once: it redirects straight back to the client's redirect_uri
    with `code`, `state` and the RFC 9207 `iss` (whose support the metadata advertises), so
    any HTTP client that follows redirects can play the browser;
  * access tokens live --token-lifetime seconds (default 3600); refresh tokens never expire
  * with --list-ttl, prompts/list results say `ttlMs` MS and `cacheScope: "private"`
    and are rotated on use;
  * test-only control endpoints (loopback only, like everything here):
      GET  /test/stats   JSON counts: registrations, authorizations, the token grants by
                         type (`authorization_code`, `refresh_token`), refresh tokens refused,
                         revocations, requests that carried a bearer token
                         (`bearer_checks`), live access and refresh tokens
      POST /test/revoke  revokes every access and refresh token (clients stay registered)
  * machine grants at /token, besides the SDK's (which knows only the two above):
    `client_credentials` for the client `ci-client` with the secret `ci-secret` sent as
    HTTP Basic (anything else: 401 `invalid_client`), and the RFC 7523 `jwt-bearer` grant
    for the assertion `workload-jwt-ok` (anything else: 400 `invalid_grant`); both want
    `resource` to be this server's /mcp, and issue an access token with no refresh token.
    Counted as `client_credentials`, `jwt_bearer` and `machine_refused`.
  * with --dpop, DPoP (RFC 9449) in front of it all: the metadata offers ES256
    (`dpop_signing_alg_values_supported`); a token request with a valid proof gets a token
    bound to the proof's key (`token_type: "DPoP"`), after first asking for the nonce
    `as-nonce` (400 `use_dpop_nonce`); an /mcp request with `Authorization: DPoP` must
    carry a valid proof (method, URL, `ath`, the bound key, a `jti` never seen, the nonce
    `rs-nonce`, asked for with 401 `use_dpop_nonce`); a bound token sent as Bearer is
    refused. Counted as `dpop_token_proofs`, `dpop_mcp_proofs`, `dpop_nonces_asked`,
    `dpop_refused` (bad proofs, bound tokens without one).

Prompts: `secret_prompt` (no arguments) and `greet_member` (required `name`).

stderr protocol for test harnesses:
    "auth-server starting"                          first line, always
    "auth-server ready http://127.0.0.1:N/mcp"      socket bound and app started (N is the
                                                    real port)
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import urllib.parse
import secrets
import socket
import sys
import time
from typing import Any

import anyio
import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import mcp.server.auth.routes as auth_routes
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

HOST = "127.0.0.1"
HTTP_PATH = "/mcp"
SCOPE = "prompts"
CODE_LIFETIME = 300


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# The SDK's authorization server puts no `iss` in its metadata's RFC 9207 flag; this one sends
# `iss` on every redirect, so it says so, and clients must then check it.
_sdk_build_metadata = auth_routes.build_metadata


def _build_metadata(*args: Any, **kwargs: Any) -> Any:
    metadata = _sdk_build_metadata(*args, **kwargs)
    metadata.authorization_response_iss_parameter_supported = True
    return metadata


auth_routes.build_metadata = _build_metadata


class InMemoryProvider:
    """An `OAuthAuthorizationServerProvider` that approves everyone and keeps counts."""

    def __init__(self, issuer: str, token_lifetime: int) -> None:
        self.issuer = issuer
        self.token_lifetime = token_lifetime
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access_tokens: dict[str, AccessToken] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        # Which refresh token goes with which access token, to revoke them together.
        self.pairs: dict[str, str] = {}
        self.counts = {
            "registrations": 0,
            "authorizations": 0,
            "authorization_code": 0,
            "refresh_token": 0,
            "refresh_refused": 0,
            "revocations": 0,
            "bearer_checks": 0,
            "client_credentials": 0,
            "jwt_bearer": 0,
            "machine_refused": 0,
            "dpop_token_proofs": 0,
            "dpop_mcp_proofs": 0,
            "dpop_nonces_asked": 0,
            "dpop_refused": 0,
        }

    def stats(self) -> dict[str, int]:
        return {
            **self.counts,
            "live_access_tokens": len(self.access_tokens),
            "live_refresh_tokens": len(self.refresh_tokens),
        }

    # -- clients ------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.counts["registrations"] += 1

    # -- authorization code ----------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + CODE_LIFETIME,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.counts["authorizations"] += 1
        # Approved at once: straight back to the client, as a browser would be sent.
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=self.issuer)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        # Single use.
        self.codes.pop(authorization_code.code, None)
        self.counts["authorization_code"] += 1
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    # -- refresh ----------------------------------------------------------------

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        token = self.refresh_tokens.get(refresh_token)
        if token is None:
            self.counts["refresh_refused"] += 1
        return token

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        # Rotation: the old refresh token and its access token stop working.
        self._forget_refresh(refresh_token.token)
        self.counts["refresh_token"] += 1
        return self._issue(client.client_id, scopes, refresh_token.resource)

    # -- access tokens --------------------------------------------------------------

    async def load_access_token(self, token: str) -> AccessToken | None:
        # Called for every request that carries a bearer token, valid or not.
        self.counts["bearer_checks"] += 1
        access = self.access_tokens.get(token)
        if access is None:
            return None
        if access.expires_at is not None and access.expires_at <= time.time():
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.counts["revocations"] += 1
        if isinstance(token, RefreshToken):
            self._forget_refresh(token.token)
        else:
            self.access_tokens.pop(token.token, None)
            refresh = self.pairs.pop(token.token, None)
            if refresh is not None:
                self.refresh_tokens.pop(refresh, None)

    def revoke_everything(self) -> None:
        self.counts["revocations"] += len(self.access_tokens) + len(self.refresh_tokens)
        self.access_tokens.clear()
        self.refresh_tokens.clear()
        self.pairs.clear()

    def _forget_refresh(self, refresh: str) -> None:
        self.refresh_tokens.pop(refresh, None)
        for access, paired in list(self.pairs.items()):
            if paired == refresh:
                self.pairs.pop(access, None)
                self.access_tokens.pop(access, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = secrets.token_urlsafe(32)
        refresh = secrets.token_urlsafe(32)
        self.access_tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.token_lifetime,
            resource=resource,
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        self.pairs[access] = refresh
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.token_lifetime,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )


MACHINE_CLIENT = ("ci-client", "ci-secret")
MACHINE_ASSERTION = "workload-jwt-ok"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


class MachineGrants:
    """ASGI wrapper answering the machine grants at POST /token; the rest goes to `app`."""

    def __init__(self, app: Any, provider: InMemoryProvider, resource: str) -> None:
        self.app = app
        self.provider = provider
        self.resource = resource

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/token":
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        form = dict(urllib.parse.parse_qsl(body.decode("utf-8", "replace")))
        grant = form.get("grant_type")
        if grant not in ("client_credentials", JWT_BEARER):
            replayed = False

            async def replay() -> Any:
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            await self.app(scope, replay, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        response = self.answer(grant, form, headers.get("authorization", ""))
        await response(scope, receive, send)

    def answer(self, grant: str, form: dict[str, str], authorization: str) -> Response:
        def refuse(status: int, error: str, description: str) -> Response:
            self.provider.counts["machine_refused"] += 1
            return JSONResponse({"error": error, "error_description": description}, status_code=status)

        if grant == "client_credentials":
            try:
                scheme, _, encoded = authorization.partition(" ")
                pair = base64.b64decode(encoded).decode() if scheme.lower() == "basic" else ""
            except ValueError:
                pair = ""
            client_id, _, secret = pair.partition(":")
            client = (urllib.parse.unquote_plus(client_id), urllib.parse.unquote_plus(secret))
            if client != MACHINE_CLIENT:
                return refuse(401, "invalid_client", "client authentication failed")
        elif form.get("assertion") != MACHINE_ASSERTION:
            return refuse(400, "invalid_grant", "the assertion is not trusted")
        if form.get("resource") != self.resource:
            return refuse(400, "invalid_target", "the token must be asked for this server's /mcp")
        self.provider.counts["client_credentials" if grant == "client_credentials" else "jwt_bearer"] += 1
        token = self.provider._issue(MACHINE_CLIENT[0], [SCOPE], self.resource)
        # No refresh token: a machine asks again.
        self.provider.pairs.pop(token.access_token, None)
        assert token.refresh_token is not None
        self.provider.refresh_tokens.pop(token.refresh_token, None)
        return JSONResponse(
            {"access_token": token.access_token, "token_type": "Bearer", "expires_in": token.expires_in, "scope": SCOPE}
        )


AS_NONCE = "as-nonce"
RS_NONCE = "rs-nonce"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class DpopGate:
    """ASGI wrapper adding DPoP (see the module's doc) in front of `app`."""

    def __init__(self, app: Any, provider: InMemoryProvider, base: str) -> None:
        self.app = app
        self.provider = provider
        self.base = base
        self.bound: dict[str, str] = {}  # access token -> its key's thumbprint
        self.jtis: set[str] = set()

    def verify(self, proof: str, method: str, url: str, token: str | None) -> tuple[str | None, str, str | None]:
        """(thumbprint or None, why not, the proof's nonce)."""
        import jwt
        from jwt.algorithms import ECAlgorithm

        try:
            header = jwt.get_unverified_header(proof)
            jwk = header.get("jwk") or {}
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in jwk:
                return None, "bad header", None
            key = ECAlgorithm.from_jwk(json.dumps(jwk))
            claims = jwt.decode(proof, key=key, algorithms=["ES256"], options={"verify_aud": False})
        except Exception as error:  # noqa: BLE001 - any bad proof is refused alike
            return None, f"bad proof: {error}", None
        if claims.get("htm") != method or claims.get("htu") != url:
            return None, f"htm/htu {claims.get('htm')} {claims.get('htu')}", None
        if abs(int(claims.get("iat", 0)) - time.time()) > 300:
            return None, "iat", None
        jti = claims.get("jti")
        if not isinstance(jti, str) or jti in self.jtis:
            return None, "jti replayed", None
        self.jtis.add(jti)
        if token is not None:
            ath = b64url(hashlib.sha256(token.encode()).digest())
            if claims.get("ath") != ath:
                return None, "ath", None
        canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
        return b64url(hashlib.sha256(canonical.encode()).digest()), "", claims.get("nonce")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope["path"]
        if path == "/.well-known/oauth-authorization-server":
            await self.rewrite(scope, receive, send, lambda j: {**j, "dpop_signing_alg_values_supported": ["ES256"]})
            return
        if path == "/token" and scope["method"] == "POST" and "dpop" in headers:
            thumbprint, why, nonce = self.verify(headers["dpop"], "POST", f"{self.base}/token", None)
            if thumbprint is None:
                self.provider.counts["dpop_refused"] += 1
                log(f"auth-server: token request proof refused: {why}")
                await JSONResponse({"error": "invalid_dpop_proof"}, status_code=400)(scope, receive, send)
                return
            if nonce != AS_NONCE:
                self.provider.counts["dpop_nonces_asked"] += 1
                response = JSONResponse({"error": "use_dpop_nonce"}, status_code=400, headers={"DPoP-Nonce": AS_NONCE})
                await response(scope, receive, send)
                return
            self.provider.counts["dpop_token_proofs"] += 1

            def bind(answer: dict[str, Any]) -> dict[str, Any]:
                if "access_token" in answer:
                    self.bound[answer["access_token"]] = thumbprint
                    answer = {**answer, "token_type": "DPoP"}
                return answer

            await self.rewrite(scope, receive, send, bind)
            return
        if path.startswith("/mcp"):
            scheme, _, token = headers.get("authorization", "").partition(" ")
            if scheme.lower() == "bearer" and token in self.bound:
                self.provider.counts["dpop_refused"] += 1
                await self.refuse_mcp(scope, receive, send, 'DPoP error="invalid_token"', None)
                return
            if scheme.lower() == "dpop":
                thumbprint, why, nonce = self.verify(headers.get("dpop", ""), scope["method"], f"{self.base}{path}", token)
                if thumbprint is None or self.bound.get(token) != thumbprint:
                    self.provider.counts["dpop_refused"] += 1
                    log(f"auth-server: MCP request proof refused: {why or 'not the bound key'}")
                    await self.refuse_mcp(scope, receive, send, 'DPoP error="invalid_dpop_proof"', None)
                    return
                if nonce != RS_NONCE:
                    self.provider.counts["dpop_nonces_asked"] += 1
                    await self.refuse_mcp(scope, receive, send, 'DPoP error="use_dpop_nonce"', RS_NONCE)
                    return
                self.provider.counts["dpop_mcp_proofs"] += 1
                scope = dict(scope)
                scope["headers"] = [
                    (k, f"Bearer {token}".encode() if k.lower() == b"authorization" else v) for k, v in scope["headers"]
                ]
        await self.app(scope, receive, send)

    async def refuse_mcp(self, scope: Any, receive: Any, send: Any, challenge: str, nonce: str | None) -> None:
        headers = {"WWW-Authenticate": f'{challenge}, resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'}
        if nonce is not None:
            headers["DPoP-Nonce"] = nonce
        await JSONResponse({"error": challenge.split('"')[1]}, status_code=401, headers=headers)(scope, receive, send)

    async def rewrite(self, scope: Any, receive: Any, send: Any, change: Any) -> None:
        """Runs `app`, passing its JSON answer through `change`."""
        start: dict[str, Any] = {}
        body = b""

        async def keep(message: dict[str, Any]) -> None:
            nonlocal body
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                body += message.get("body", b"")

        await self.app(scope, receive, keep)
        try:
            answer = json.loads(body)
            if isinstance(answer, dict) and 200 <= start.get("status", 500) < 300:
                body = json.dumps(change(answer)).encode()
        except ValueError:
            pass
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": start.get("status", 500), "headers": headers})
        await send({"type": "http.response.body", "body": body})


def build_server(provider: InMemoryProvider, base: str, list_ttl: int = 0) -> MCPServer[Any]:
    # `--list-ttl`: prompts/list results fresh that long, private to the sign-in.
    hints = {"prompts/list": CacheHint(ttl_ms=list_ttl, scope="private")} if list_ttl else None
    server: MCPServer[Any] = MCPServer(
        "mcpick-auth-test",
        version="1.0.0",
        log_level="WARNING",
        cache_hints=hints,
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}{HTTP_PATH}",
            # Tokens are bound to this resource (RFC 8707): the client must ask for it.
            validate_token_resource=True,
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
        ),
    )

    @server.prompt(description="Only for signed-in clients")
    def secret_prompt() -> str:
        return "The secret is: signed requests work."

    @server.prompt(description="Greets a member by name")
    def greet_member(name: str) -> str:
        return f"Welcome back, {name}."

    @server.custom_route("/test/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse(provider.stats())

    @server.custom_route("/test/revoke", methods=["POST"])
    async def revoke(request: Request) -> Response:
        provider.revoke_everything()
        return JSONResponse(provider.stats())

    return server


class _Uvicorn(uvicorn.Server):
    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if self.started:
            port = self.servers[0].sockets[0].getsockname()[1]
            log(f"auth-server ready http://{HOST}:{port}{HTTP_PATH}")


async def serve(sock: socket.socket, token_lifetime: int, list_ttl: int, dpop: bool = False) -> None:
    port = sock.getsockname()[1]
    # No trailing slash: RFC 8414/9207 compare issuers as exact strings.
    base = f"http://{HOST}:{port}"
    provider = InMemoryProvider(base, token_lifetime)
    app = build_server(provider, base, list_ttl).streamable_http_app(streamable_http_path=HTTP_PATH, host=HOST)
    app = MachineGrants(app, provider, f"{base}{HTTP_PATH}")
    if dpop:
        app = DpopGate(app, provider, base)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    await _Uvicorn(config).serve(sockets=[sock])


def main(argv: list[str]) -> int:
    log("auth-server starting")
    parser = argparse.ArgumentParser(description="MCP server behind OAuth, for tests (loopback only)")
    parser.add_argument("port", type=int, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--token-lifetime", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--list-ttl", type=int, default=0, help="ttlMs of prompts/list (private); 0: the SDK's default")
    parser.add_argument("--dpop", action="store_true", help="DPoP in front (see the module's doc)")
    args = parser.parse_args(argv[1:])
    if args.token_lifetime < 1:
        parser.error("--token-lifetime must be at least 1")
    # Bound before the app is built, so the issuer URL carries the real port.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, args.port))
    sock.listen(128)
    anyio.run(serve, sock, args.token_lifetime, args.list_ttl, args.dpop)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
