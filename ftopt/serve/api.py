"""The HTTP API under /api (documented at /openapi.json): bids, versions, solves, quotes, diffs.

Why a JSON API first: a script, a spreadsheet macro or a CRM can make and solve bids, and the pages
call the same operations (`ftopt.serve.bids`). Workloads are sent as YAML (`application/yaml`) or as
a JSON object (`application/json`); every error comes back as RFC 9457 problem details
(`application/problem+json`: type, title, status, detail with the CLI's one line, instance, and
`errors` with the field path and line where known): 400 for a bad workload, 404 for a missing id,
422 for a malformed request, 429 when the solve queue is full.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from ftopt.catalogue.schema import workload_schema
from ftopt.errors import one_line
from ftopt.quote.copies import COPIES
from ftopt.serve import bids
from ftopt.serve.bids import NotFound, Workbench
from ftopt.serve.examples import bundled, example
from ftopt.serve.problems import Problem
from ftopt.serve.quotes import FORMATS, NoPdf, quote
from ftopt.serve.store import BidExport, Solve
from ftopt.serve.workloads import WorkloadError, check, from_json_body

router = APIRouter(prefix="/api", tags=["bids"])
#: Seconds between two looks at a running solve for its server-sent events.
EVENT_POLL_S = 0.25
#: A stream of events ends after this long whatever the solve does (the page reconnects).
EVENT_STREAM_S = 3600.0
_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
_WORKLOAD_BODY = {
    "requestBody": {
        "required": True,
        "description": "the workload, as YAML text or as a JSON object (the schema of `ftopt schema`)",
        "content": {
            "application/yaml": {"schema": {"type": "string"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Workload"}},
        },
    }
}


class SolveKnobs(BaseModel):
    """The knobs of one solve; the server's defaults where left out."""

    model_config = ConfigDict(extra="forbid")
    version: int | None = Field(
        default=None, ge=1, description="the version to solve; the latest if left out"
    )
    time_limit: float | None = Field(default=None, gt=0, le=3600, description="seconds for the search")
    what_if: bool = Field(default=True, description="re-solve once per eased rule to report savings")
    frontier: bool = Field(default=True, description="the price–makespan frontier (runs with train_tokens)")
    alternatives: int = Field(default=2, ge=0, le=20, description="the next cheapest bids")

    def knobs(self) -> dict[str, Any]:
        """The solve request's fields."""
        found = self.model_dump(exclude={"version"}, exclude_none=True)
        return found


def bench_of(request: Request) -> Workbench:
    """The workbench the app was made with."""
    bench: Workbench = request.app.state.bench
    return bench


def author_of(request: Request) -> str:
    """Who made a change: the `X-Ftopt-User` header, else the server's user."""
    return request.headers.get("x-ftopt-user", "").strip()[:100] or bench_of(request).author


async def workload_text(request: Request) -> str:
    """The request body as workload YAML text (a JSON object is turned into YAML)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await request.body()
    if kind == "application/json":
        return from_json_body(raw)
    if kind in _YAML_TYPES:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WorkloadError("ftopt: request body: expected UTF-8 text") from None
    raise WorkloadError(
        f"ftopt: request body: expected application/yaml or application/json, not {kind or 'none'}"
    )


def solve_json(solve: Solve, with_plan: bool = False) -> dict[str, Any]:
    """A solve as the API shows it: state, incumbent price, bound, gap (and the plan when done)."""
    out: dict[str, Any] = {
        "id": solve.id,
        "bid": solve.bid_id,
        "version": solve.version,
        "state": solve.state,
        "price": solve.price,
        "bound": solve.bound,
        "gap": solve.gap,
        "seconds": solve.seconds,
        "error": solve.error,
        "settings": solve.settings,
        "created_at": solve.created_at,
        "finished_at": solve.finished_at,
        "author": solve.author,
    }
    if with_plan:
        out["plan"] = json.loads(solve.plan) if solve.plan else None
        out["frontier"] = json.loads(solve.frontier) if solve.frontier else None
    return out


@router.get("/schema", summary="The workload's JSON Schema (as `ftopt schema`)")
def schema() -> dict[str, Any]:
    return workload_schema()


@router.get("/examples", summary="The bundled examples a bid may start from")
def examples() -> list[str]:
    return list(bundled())


@router.get("/examples/{name}", summary="One bundled example's YAML")
def one_example(name: str) -> Response:
    text = example(name)
    if text is None:
        raise NotFound(f"no bundled example {name!r}")
    return Response(text, media_type="application/yaml")


@router.post("/bids", status_code=201, summary="A new bid from a workload", openapi_extra=_WORKLOAD_BODY)
async def create_bid(request: Request) -> dict[str, Any]:
    version = await run_in_threadpool(
        bids.create, bench_of(request), await workload_text(request), author_of(request)
    )
    return {"id": version.bid_id, "version": version.number}


@router.get("/bids", summary="The bids, latest first; `customer` finds those whose customer contains it")
def list_bids(request: Request, customer: str = Query("", max_length=200)) -> JSONResponse:
    # JSONResponse directly: FastAPI's generic encoder took 15 ms for 200 bids, the serialiser 0.3 ms
    return JSONResponse([vars(b) for b in bench_of(request).store.bids(customer=customer)])


@router.get("/bids/{bid_id}", summary="A bid and its versions")
def get_bid(request: Request, bid_id: int) -> JSONResponse:
    store = bench_of(request).store
    bid = store.bid(bid_id)
    if bid is None:
        raise NotFound(f"no bid {bid_id}")
    versions = [
        {"number": v.number, "note": v.note, "created_at": v.created_at, "author": v.author}
        for v in store.versions(bid_id)
    ]
    return JSONResponse({**vars(bid), "versions": versions})


@router.put(
    "/bids/{bid_id}", summary="The edited workload becomes the next version", openapi_extra=_WORKLOAD_BODY
)
async def put_bid(request: Request, bid_id: int) -> dict[str, Any]:
    version = await run_in_threadpool(
        bids.edit, bench_of(request), bid_id, await workload_text(request), author_of(request)
    )
    return {"id": version.bid_id, "version": version.number}


@router.get("/bids/{bid_id}/versions/{number}", summary="One version: its workload and its solves")
def get_version(request: Request, bid_id: int, number: int) -> JSONResponse:
    bench = bench_of(request)
    version = bids.require_version(bench, bid_id, number)
    return JSONResponse(
        {**vars(version), "solves": [solve_json(s) for s in bench.store.solves(bid_id, number)]}
    )


@router.post("/bids/{bid_id}/solve", status_code=202, summary="Queue a solve; returns the job id")
def solve_bid(request: Request, bid_id: int, knobs: SolveKnobs | None = None) -> dict[str, Any]:
    knobs = knobs or SolveKnobs()
    solve = bids.solve(bench_of(request), bid_id, knobs.version, knobs.knobs(), author_of(request))
    return {"job": solve.id, "bid": solve.bid_id, "version": solve.version, "state": solve.state}


@router.get("/jobs/{job_id}", summary="A solve: state, incumbent, bound, gap; the plan when done")
def get_job(request: Request, job_id: int) -> JSONResponse:
    return JSONResponse(solve_json(_solve(request, job_id), with_plan=True))


@router.post("/jobs/{job_id}/cancel", summary="Stop a queued or running solve")
def cancel_job(request: Request, job_id: int) -> dict[str, Any]:
    _solve(request, job_id)
    cancelled = bench_of(request).jobs.cancel(job_id)
    return {**solve_json(_solve(request, job_id)), "cancelled": cancelled}


@router.get(
    "/jobs/{job_id}/events", summary="Server-sent events: the incumbent, bound and gap as they improve"
)
async def job_events(request: Request, job_id: int) -> StreamingResponse:
    _solve(request, job_id)
    return StreamingResponse(_events(request, job_id), media_type="text/event-stream")


async def _events(request: Request, job_id: int) -> Any:
    """One `progress` event per change of the solve's figures, then one `done` event."""
    store, last, started = bench_of(request).store, None, time.monotonic()
    while time.monotonic() - started < EVENT_STREAM_S and not await request.is_disconnected():
        solve = store.solve(job_id)
        if solve is None:
            return
        shown = solve_json(solve)
        if shown != last:
            kind = "done" if solve.finished else "progress"
            yield f"event: {kind}\ndata: {json.dumps(shown)}\n\n"
            last = shown
        if solve.finished:
            return
        await asyncio.sleep(EVENT_POLL_S)


def _solve(request: Request, job_id: int) -> Solve:
    solve = bench_of(request).store.solve(job_id)
    if solve is None:
        raise NotFound(f"no job {job_id}")
    return solve


@router.get("/bids/{bid_id}/versions/{number}/quote", summary="The quote of the version's latest solve")
def get_quote(
    request: Request, bid_id: int, number: int, format: str = "html", copy: str = "buyer"
) -> Response:
    if format not in FORMATS:
        raise WorkloadError(
            f"ftopt: format: expected one of {', '.join(FORMATS)}, got {format[:40]!r}", "format"
        )
    if copy not in COPIES:
        raise WorkloadError(f"ftopt: copy: expected one of {', '.join(COPIES)}, got {copy[:40]!r}", "copy")
    solved = bids.solved_plan(bench_of(request), bid_id, number)
    if solved is None:
        raise NotFound(f"version {number} of bid {bid_id} has no finished solve")
    plan, solve = solved
    view = bids.quote_of(bench_of(request), bid_id, number, plan, "seller" if copy == "seller" else "buyer")
    stored = solve.quote_html if copy == "buyer" else solve.seller_html  # the worker's, with the three bids
    try:
        download = quote(view.plan, stored, format, view.summary, view.logo)
    except NoPdf as err:
        raise Problem(501, "no-pdf", f"ftopt: {err}") from None
    filename = f"bid-{bid_id}-v{number}{'' if copy == 'buyer' else '-seller'}.{download.suffix}"
    disposition = "inline" if format == "html" else "attachment"
    headers = {"Content-Disposition": f'{disposition}; filename="{filename}"'}
    return Response(download.body, media_type=download.media_type, headers=headers)


@router.get("/bids/{bid_id}/compare", summary="Version a against version b: workload and plan changes")
def compare(request: Request, bid_id: int, a: int, b: int) -> dict[str, Any]:
    found = bids.compare(bench_of(request), bid_id, a, b)
    plans = found.plans
    return {
        "workload": [
            {"path": c.path, "before": c.before, "after": c.after, "kind": c.kind} for c in found.changes
        ],
        "plan": None
        if plans is None
        else {
            "servers_added": plans.added,
            "servers_removed": plans.removed,
            "price_before": plans.price_before,
            "price_after": plans.price_after,
            "price_delta": plans.price_delta,
            "hours_before": plans.hours_before,
            "hours_after": plans.hours_after,
            "hours_delta": plans.hours_delta,
            "hours_p90_before": plans.hours_p90_before,
            "hours_p90_after": plans.hours_p90_after,
            "hours_p90_delta": plans.hours_p90_delta,
            "gpus_before": plans.gpus_before,
            "gpus_after": plans.gpus_after,
            "currency": plans.currency,
        },
    }


@router.post(
    "/bids/{bid_id}/versions/{number}/ease/{saving}",
    status_code=201,
    summary="A new version with one rule eased",
)
def ease(request: Request, bid_id: int, number: int, saving: int) -> dict[str, Any]:
    version = bids.ease(bench_of(request), bid_id, number, saving - 1, author_of(request))
    return {"id": version.bid_id, "version": version.number, "note": version.note}


@router.get("/bids/{bid_id}/files", summary="The files kept beside a bid (the seller's logo)")
def list_files(request: Request, bid_id: int) -> list[dict[str, Any]]:
    bids.require_bid(bench_of(request), bid_id)
    return [
        {"name": f.name, "bytes": len(f.data), "created_at": f.created_at, "author": f.author}
        for f in bench_of(request).store.files(bid_id).values()
    ]


@router.put(
    "/bids/{bid_id}/files/{name}",
    status_code=201,
    summary="Keep a file beside the bid (PNG, JPEG or SVG, at most 1 MB); a later one of the name wins",
    openapi_extra={"requestBody": {"required": True, "content": {"image/png": {"schema": {"type": "string",
                   "format": "binary"}}}}},
)  # fmt: skip
async def put_file(request: Request, bid_id: int, name: str) -> dict[str, Any]:
    kept = await run_in_threadpool(
        bids.attach, bench_of(request), bid_id, name, await request.body(), author_of(request)
    )
    return {"name": kept.name, "bytes": len(kept.data)}


@router.get("/bids/{bid_id}/files/{name}", summary="A file kept beside the bid, as a download")
def get_file(request: Request, bid_id: int, name: str) -> Response:
    kept = bench_of(request).store.files(bid_id).get(name)
    if kept is None:
        raise NotFound(f"bid {bid_id} has no file {name[:80]!r}")
    # a download, sandboxed: an SVG opened from here runs no script on this origin
    headers = {
        "Content-Disposition": f'attachment; filename="{kept.name}"',
        "Content-Security-Policy": "sandbox",
    }
    return Response(kept.data, media_type="application/octet-stream", headers=headers)


@router.get("/bids/{bid_id}/export", summary="The bid with its whole history, as one JSON file")
def export(request: Request, bid_id: int) -> Response:
    record = bench_of(request).store.export(bid_id)
    if record is None:
        raise NotFound(f"no bid {bid_id}")
    headers = {"Content-Disposition": f'attachment; filename="bid-{bid_id}.json"'}
    return Response(record.model_dump_json(indent=1), media_type="application/json", headers=headers)


@router.post("/bids/import", status_code=201, summary="A new bid from an exported file, history and all")
async def import_bid(request: Request) -> dict[str, Any]:
    return {"id": await run_in_threadpool(import_record, bench_of(request), await request.body())}


def import_record(bench: Workbench, raw: bytes) -> int:
    """A new bid from an export file's bytes; each version is checked as a new one would be."""
    try:
        record = BidExport.model_validate_json(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WorkloadError(f"ftopt: import: {where}: {one_line(first['msg'])}", where) from None
    for v in record.versions:
        check(v.workload, bench.catalogue, f"version {v.number}")
    try:
        return bench.store.import_bid(record)
    except ValueError as err:
        raise WorkloadError(f"ftopt: import: {err}") from None
