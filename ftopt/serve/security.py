"""Safe by default: the access token, CSRF on forms, capped request bodies and strict headers.

Why each: the workbench binds to 127.0.0.1 unless told otherwise, and any other address needs a
token (`--token-file`), checked on every request (an `Authorization: Bearer` or `X-Ftopt-Token`
header, or the cookie the login form sets). Every form POST carries a CSRF token equal to its
cookie (double submit), and the API refuses the content types a cross-site form can send, so another
site open in the same browser cannot make bids. Bodies are capped before they are read, and the
Content-Security-Policy allows scripts from this server only, so escaped user text stays text even
if an escape were ever missed.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from ftopt.errors import InputError
from ftopt.reading.safe_yaml import read_user_file
from ftopt.serve import problems
from ftopt.serve.problems import Problem
from ftopt.serve.workloads import MAX_UPLOAD_BYTES

TOKEN_COOKIE = "ftopt_token"
CSRF_COOKIE = "ftopt_csrf"
CSRF_FIELD = "csrf"
#: Any request body beyond this is refused unread (an upload's 1 MiB and the form around it).
MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 64 * 1024
#: A bid's export holds every version and quote, so its import may be larger.
MAX_IMPORT_BYTES = 64 * 1024 * 1024
IMPORT_PATHS = ("/api/bids/import", "/bids/import")
#: Hosts reachable only from this machine: no token needed there.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MIN_TOKEN_CHARS = 16
#: Content types a cross-site HTML form can send without asking; the API takes none of them.
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
_OPEN_PATHS = ("/login",)
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'self'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "SAMEORIGIN",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def read_token(path: Path) -> str:
    """The token in `path` (surrounding blanks dropped); `InputError` when it is too short to guess."""
    token = read_user_file(path, 4096).strip()
    if len(token) < MIN_TOKEN_CHARS:
        raise InputError(str(path), "", f"expected a token of at least {MIN_TOKEN_CHARS} characters")
    return token


def token_ok(request: Request, token: str) -> bool:
    """Whether the request carries the token, in a header or the login cookie."""
    bearer = request.headers.get("authorization", "")
    given = [
        bearer[7:] if bearer.lower().startswith("bearer ") else "",
        request.headers.get("x-ftopt-token", ""),
        request.cookies.get(TOKEN_COOKIE, ""),
    ]
    return any(token_matches(g, token) for g in given)


def token_matches(given: str, token: str) -> bool:
    """Whether `given` is the token, compared in constant time."""
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


def csrf_ok(request: Request, submitted: str) -> bool:
    """Whether a form's CSRF field equals its cookie."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return bool(cookie) and hmac.compare_digest(cookie.encode(), submitted.encode())


def _refusal(request: Request, token: str | None) -> Response | None:
    """The answer to a request that must not reach a route, or None: an unbounded or oversized
    body first (before anything reads it), then a missing token, then a form posted to the API."""
    return _body_refusal(request) or _token_refusal(request, token) or _form_refusal(request)


def _body_refusal(request: Request) -> Response | None:
    """A body without a Content-Length, or longer than the path allows (an import may be larger)."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return None
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        return _plain_refusal(request, 411, "length-required", "ftopt: a request body needs a Content-Length")
    cap = MAX_IMPORT_BYTES if request.url.path in IMPORT_PATHS else MAX_BODY_BYTES
    if int(length) > cap:
        text = f"ftopt: request body over {cap:,} bytes; refused"
        return _plain_refusal(request, 413, "body-too-large", text)
    return None


def _token_refusal(request: Request, token: str | None) -> Response | None:
    """Without the server's token: a JSON 401 to the API (a script reads it), the login page to a
    browser."""
    if token is None or request.url.path in _OPEN_PATHS or token_ok(request, token):
        return None
    if _is_api(request):
        text = "ftopt: this server needs its access token"
        return problems.response(Problem(401, "token-required", text), request.url.path)
    return RedirectResponse("/login", status_code=303)


def _form_refusal(request: Request) -> Response | None:
    """A form body sent to the API: a cross-site form may post without a CORS preflight, JSON not."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.url.path.startswith("/api") and request.method != "GET" and kind in _FORM_TYPES:
        text = f"ftopt: the API takes JSON or YAML bodies, not {kind}"
        return problems.response(Problem(415, "unsupported-media-type", text), request.url.path)
    return None


def _is_api(request: Request) -> bool:
    """Whether the request is the API's (answered with problem details) rather than a page's."""
    return request.url.path.startswith("/api") or request.url.path == "/openapi.json"


def _plain_refusal(request: Request, status: int, kind: str, text: str) -> Response:
    """A refusal before any route: problem details to the API, one line of text to a page."""
    if _is_api(request):
        return problems.response(Problem(status, kind, text), request.url.path)
    return PlainTextResponse(text + "\n", status_code=status)


def guard(
    token: str | None,
) -> Callable[[Request, Callable[[Request], Awaitable[Response]]], Awaitable[Response]]:
    """The middleware: refuse what must be refused, give each browser a CSRF cookie, set headers."""

    async def middleware(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        response = _refusal(request, token)
        csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        request.state.csrf = csrf
        if response is None:
            response = await call_next(request)
        if request.cookies.get(CSRF_COOKIE) != csrf:
            response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        # the time in the app (for a streamed body, until its first byte): the load benchmark's
        # second figure, beside the time its clients see
        response.headers["Server-Timing"] = f"app;dur={1000 * (time.perf_counter() - started):.1f}"
        return response

    return middleware
