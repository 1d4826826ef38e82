"""The workbench's ASGI application: the store, the solve queue, the guard and the two routers.

Why a factory (`create_app`): the command, the tests and the load benchmark each make an app over
their own data folder, with nothing global; the app's state (`app.state.bench`) is the only place
the routes find the store and the queue. Errors raised by the operations become the CLI's one line:
JSON under /api, a page elsewhere.
"""

from __future__ import annotations

import getpass
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from ftopt.serve import api, pages
from ftopt.serve.bids import NotFound, Workbench
from ftopt.serve.jobs import Jobs, JobSettings, QueueFull
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


def _error(
    request: Request, text: str, status: int, field: str = "", headers: dict[str, str] | None = None
) -> Response:
    if request.url.path.startswith("/api"):
        body = {"error": text, "field": field} if field else {"error": text}
        return JSONResponse(body, status_code=status, headers=headers)
    return pages.message(request, text, status)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(WorkloadError)
    async def bad_workload(request: Request, err: WorkloadError) -> Response:
        return _error(request, err.message, 400, err.field)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, err: NotFound) -> Response:
        return _error(request, f"ftopt: {err}", 404)

    @app.exception_handler(QueueFull)
    async def queue_full(request: Request, err: QueueFull) -> Response:
        text = "ftopt: too many solves are queued; try again later"
        return _error(request, text, 429, headers={"Retry-After": str(RETRY_AFTER_S)})

    @app.exception_handler(pages.BadForm)
    async def bad_form(request: Request, err: pages.BadForm) -> Response:
        return _error(request, str(err), 400)


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
    return app


def _user() -> str:
    """Who edits, when a request does not say: the user running the server."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "presales"
