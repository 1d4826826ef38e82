"""Every API error in one shape: RFC 9457 problem details (`application/problem+json`).

Why one shape: a script that calls the workbench reads `status`, `title` and `detail` the same way
whatever went wrong (a bad workload, an unknown id, a full queue, a missing token, a route that does
not exist), and the field paths in `errors` say which input of a bid is wrong in the loader's own
paths (`runs[0].train_tokens`), with the line of the YAML where one is known. `type` is a URN per
kind of problem (`urn:ftopt:problem:invalid-workload`), listed in docs/how-to/workbench.md;
`instance` is the path of the request that failed. The CLI's JSON errors use the same fields
(`ftopt.errors.problem`, printed with FTOPT_ERRORS=json).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from starlette.responses import JSONResponse

from ftopt.errors import PROBLEM_URN, pointer

MEDIA_TYPE = "application/problem+json"
URN = PROBLEM_URN


#: The JSON Schema of a problem, as /openapi.json documents every error.
SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "RFC 9457 problem details",
    "type": "object",
    "required": ["type", "title", "status", "detail", "instance"],
    "properties": {
        "type": {"type": "string", "description": "urn:ftopt:problem:<kind>, or about:blank"},
        "title": {"type": "string", "description": "the kind of problem in words"},
        "status": {"type": "integer", "description": "the HTTP status"},
        "detail": {"type": "string", "description": "the CLI's one line: what went wrong"},
        "instance": {"type": "string", "description": "the path of the request"},
        "errors": {
            "type": "array",
            "description": "the fields concerned, where the problem is about fields",
            "items": {
                "type": "object",
                "required": ["field", "pointer", "detail"],
                "properties": {
                    "field": {"type": "string", "description": "field path, e.g. runs[0].train_tokens"},
                    "pointer": {"type": "string", "description": "the same as a JSON Pointer"},
                    "detail": {"type": "string"},
                    "line": {"type": "integer", "description": "the line of the YAML"},
                    "in": {"type": "string", "description": "path, query or body (request errors)"},
                },
            },
        },
    },
}


class Problem(Exception):
    """An error the API answers as problem details: its status, kind (the end of `type`), title and
    detail, and the fields it concerns (each a mapping with `field`, `detail` and maybe `line`)."""

    def __init__(
        self,
        status: int,
        kind: str,
        detail: str,
        errors: Sequence[Mapping[str, Any]] = (),
        headers: Mapping[str, str] | None = None,
        title: str = "",
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.detail = detail
        self.errors = list(errors)
        self.headers = dict(headers or {})
        self.title = title or HTTPStatus(status).phrase


def body(problem: Problem, instance: str) -> dict[str, Any]:
    """The problem's JSON object: type, title, status, detail, instance, and errors where any."""
    out: dict[str, Any] = {
        "type": URN + problem.kind if problem.kind else "about:blank",
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
        "instance": instance,
    }
    if problem.errors:
        out["errors"] = problem.errors
    return out


def response(problem: Problem, instance: str) -> JSONResponse:
    """The problem as a response of its status, typed `application/problem+json`."""
    return JSONResponse(
        body(problem, instance), status_code=problem.status, headers=problem.headers, media_type=MEDIA_TYPE
    )


def field_error(field: str, detail: str, line: int | None = None) -> dict[str, Any]:
    """One entry of `errors`: the field path (and its JSON Pointer), what is wrong, the line."""
    entry: dict[str, Any] = {"field": field, "pointer": pointer(field), "detail": detail}
    if line is not None:
        entry["line"] = line
    return entry


def validation_errors(errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """FastAPI's request validation errors as entries: the location without its `path`, `query` or
    `body` head as the field (`bid_id`, `time_limit`), pydantic's message as the detail."""
    found = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ())]
        where = ".".join(loc[1:] if len(loc) > 1 else loc) or "body"
        found.append({**field_error(where, str(err.get("msg", "invalid"))), "in": loc[0] if loc else ""})
    return found
