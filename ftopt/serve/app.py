"""The workbench's ASGI application: the store, the solve queue, the guard and the two routers.

Why a factory (`create_app`): the command, the tests and the load benchmark each make an app over
their own data folder, with nothing global; the app's state (`app.state.bench`) is the only place
the routes find the store and the queue. Errors raised by the operations, FastAPI's request
validation and Starlette's 404 and 405 become RFC 9457 problem details under /api
(`ftopt.serve.problems`), a page of the CLI's one line elsewhere.
"""

from __future__ import annotations

import getpass
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ftopt.serve import api, pages, problems
from ftopt.serve.bids import NotFound, Workbench
from ftopt.serve.jobs import Jobs, JobSettings, QueueFull
from ftopt.serve.problems import Problem, field_error, validation_errors
from ftopt.serve.security import guard
from ftopt.serve.store import Store
from ftopt.serve.workloads import WorkloadError, default_catalogue

#: Seconds a client should wait before asking again when the solve queue is full.
RETRY_AFTER_S = 30


@dataclass(frozen=True)
class ServeConfig:
    """What `ftopt serve` was started with."""

    data: Path
    token: str | None = None
    workers: int = 1
    max_queue: int = 8
    solver_workers: int = 1
    time_limit: float = 60.0


def _error(request: Request, problem: Problem) -> Response:
    """Problem details under /api and for /openapi.json; a page of one line elsewhere."""
    if request.url.path.startswith("/api") or request.url.path == "/openapi.json":
        return problems.response(problem, request.url.path)
    return pages.message(request, problem.detail, problem.status)


def _workload_problem(err: WorkloadError) -> Problem:
    errors = [field_error(field, message, line) for field, message, line in err.problems]
    return Problem(400, "invalid-workload", err.message, errors, title="The workload is not valid")


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(Problem)
    async def problem(request: Request, err: Problem) -> Response:
        return _error(request, err)

    @app.exception_handler(WorkloadError)
    async def bad_workload(request: Request, err: WorkloadError) -> Response:
        return _error(request, _workload_problem(err))

    @app.exception_handler(NotFound)
    async def not_found(request: Request, err: NotFound) -> Response:
        return _error(request, Problem(404, "not-found", f"ftopt: {err}"))

    @app.exception_handler(QueueFull)
    async def queue_full(request: Request, err: QueueFull) -> Response:
        text = "ftopt: too many solves are queued; try again later"
        return _error(request, Problem(429, "queue-full", text, headers={"Retry-After": str(RETRY_AFTER_S)}))

    @app.exception_handler(pages.BadForm)
    async def bad_form(request: Request, err: pages.BadForm) -> Response:
        return _error(request, Problem(400, "bad-form", str(err)))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, err: RequestValidationError) -> Response:
        found = validation_errors(err.errors())
        detail = "ftopt: " + "; ".join(f"{e['field']}: {e['detail']}" for e in found)
        title = "The request is not valid"
        return _error(request, Problem(422, "invalid-request", detail, found, title=title))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        detail = err.detail if isinstance(err.detail, str) else HTTPStatus(err.status_code).phrase
        return _error(request, Problem(err.status_code, "", f"ftopt: {detail}", headers=err.headers))


def create_app(config: ServeConfig) -> FastAPI:
    """The workbench over `config.data`; solves in flight when it last stopped are marked failed."""
    store = Store(config.data)
    jobs = Jobs(store, JobSettings(config.workers, config.max_queue, config.solver_workers))
    bench = Workbench(
        store, jobs, default_catalogue(), time_limit=config.time_limit, token=config.token, author=_user()
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        jobs.close()

    app = FastAPI(
        title="ftopt workbench",
        summary="Bids, their versions and proven-optimal quotes for LLM fine-tuning servers.",
        version="1",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.bench = bench
    app.middleware("http")(guard(config.token))
    _handlers(app)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document of the API's routes, with the problem details every operation may answer
    (as `default`: FastAPI documents a 422 of its own shape, which the handler above replaces)."""
    if app.openapi_schema is None:
        document = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
        document.setdefault("components", {}).setdefault("schemas", {})["Problem"] = problems.SCHEMA
        problem = {"$ref": "#/components/schemas/Problem"}
        for item in document.get("paths", {}).values():
            for operation in item.values():
                responses = operation.setdefault("responses", {})
                if "422" in responses:
                    responses["422"] = {"description": "The request is not valid",
                                        "content": {problems.MEDIA_TYPE: {"schema": problem}}}  # fmt: skip
                responses["default"] = {
                    "description": "An error, as RFC 9457 problem details",
                    "content": {problems.MEDIA_TYPE: {"schema": problem}},
                }
        app.openapi_schema = document
    return app.openapi_schema


def _user() -> str:
    """Who edits, when a request does not say: the user running the server."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "presales"
