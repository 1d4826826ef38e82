"""The server-rendered pages: bids, versions, the form and the YAML editor, live solves, diffs.

Why server-rendered with Jinja2's autoescape: every piece of user text (a bid named
`<script>alert(1)</script>`, a run name, an error quoting the input) is escaped by the template
engine, so it shows as text; the one script (`/static/app.js`, held in this module, not read from
disk) only follows a solve's server-sent events. Forms post to routes that call the same operations
as the API (`ftopt.serve.bids`); each checks the form's CSRF token first.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile

from ftopt.quote.view import ALTERNATIVE_HEADERS, alternative_rows
from ftopt.serve import bids
from ftopt.serve.api import author_of, bench_of, import_record
from ftopt.serve.bids import NotFound, Workbench
from ftopt.serve.examples import bundled, example
from ftopt.serve.form import bid_form, blank_section, changes, suggestions, typed_fields
from ftopt.serve.jobs import QueueFull
from ftopt.serve.quotes import FORMATS
from ftopt.serve.roundtrip import RoundTripError, edited
from ftopt.serve.security import CSRF_FIELD, TOKEN_COOKIE, csrf_ok, token_matches
from ftopt.serve.workloads import MAX_UPLOAD_BYTES, WorkloadError, decode_upload

router = APIRouter(include_in_schema=False)
TEMPLATES = Environment(
    loader=PackageLoader("ftopt.serve", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)

#: The page script: follows a solve's events and moves to the result when it is done.
APP_JS = """\
"use strict";
(function () {
  // A closed part of the bid form that the bid does not have comes without its (empty) fields:
  // they are fetched when it is first opened.
  document.addEventListener("toggle", (e) => {
    const part = e.target;
    if (!(part instanceof HTMLDetailsElement) || !part.open || !part.dataset.lazy) return;
    const depth = part.dataset.lazy;
    delete part.dataset.lazy;
    fetch("/form/section?path=" + encodeURIComponent(part.dataset.path) + "&depth=" + depth,
          {credentials: "same-origin"})
      .then((r) => r.ok ? r.text() : Promise.reject(new Error(String(r.status))))
      .then((html) => part.insertAdjacentHTML("beforeend", html))
      .catch(() => { part.dataset.lazy = depth; part.open = false; });
  }, true);
  const job = document.getElementById("job");
  if (!job || !window.EventSource) return;
  const money = (x) => x === null ? "—"
    : x.toLocaleString("en", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  const show = (s) => {
    document.getElementById("state").textContent = s.state;
    document.getElementById("incumbent").textContent = money(s.price);
    document.getElementById("bound").textContent = money(s.bound);
    document.getElementById("gap").textContent = s.gap === null ? "—" : (100 * s.gap).toFixed(2) + " %";
    document.getElementById("seconds").textContent = s.seconds === null ? "—" : s.seconds.toFixed(1);
    document.getElementById("job-error").textContent = s.error || "";
  };
  const events = new EventSource("/api/jobs/" + job.dataset.job + "/events");
  events.addEventListener("progress", (e) => show(JSON.parse(e.data)));
  events.addEventListener("done", (e) => {
    const s = JSON.parse(e.data);
    show(s);
    events.close();
    if (s.state === "done") window.location.assign(job.dataset.result);
  });
})();
"""


class BadForm(Exception):
    """A form without a valid CSRF token, or with a field that is not what it should be."""


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A template rendered with the request's CSRF token."""
    html = TEMPLATES.get_template(name).render(csrf=request.state.csrf, **context)
    return HTMLResponse(html, status_code=status)


def message(request: Request, text: str, status: int) -> HTMLResponse:
    """A page of one line: what went wrong."""
    return page(request, "message.html", status, message=text)


async def form_of(request: Request) -> FormData:
    """The posted form, once its CSRF token matched its cookie."""
    form = await request.form(max_part_size=MAX_UPLOAD_BYTES)
    submitted = form.get(CSRF_FIELD)
    if not isinstance(submitted, str) or not csrf_ok(request, submitted):
        raise BadForm("ftopt: the form is stale or came from another site (CSRF check); reload the page")
    return form


def _fields(form: FormData) -> dict[str, str]:
    return typed_fields(form)


def to_version(bid_id: int, number: int) -> RedirectResponse:
    """After a change: the version's page (303, so a reload does not post again)."""
    return RedirectResponse(f"/bids/{bid_id}/versions/{number}", status_code=303)


@router.get("/static/app.js")
def app_js() -> Response:
    return Response(APP_JS, media_type="text/javascript")


@router.get("/", response_class=HTMLResponse)
def home(request: Request, customer: str = "") -> HTMLResponse:
    found = bench_of(request).store.bids(customer=customer[:200])
    return page(request, "home.html", bids=found, examples=list(bundled()), customer=customer[:200])


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request) -> HTMLResponse:
    return page(request, "login.html")


@router.post("/login")
async def login(request: Request) -> Response:
    given = _fields(await form_of(request)).get("token", "")
    token = bench_of(request).token
    if token is not None and not token_matches(given, token):
        return page(request, "login.html", 401, error="ftopt: that is not this server's token")
    response = RedirectResponse("/", status_code=303)
    if token is not None:
        response.set_cookie(TOKEN_COOKIE, given, httponly=True, samesite="strict")
    return response


def _form_page(request: Request, template: str, text: str, **context: Any) -> HTMLResponse:
    """A page with the bid form drawn from the version `text` (with what was typed, after an error)."""
    context.setdefault("typed", {})
    field_errors: dict[str, str] = context.pop("field_errors", {})
    context["field_errors"] = field_errors
    context["open_paths"] = {p for field in field_errors for p in _prefixes(field)}
    context["keep"] = {p for key in context["typed"] for p in _prefixes(key)}  # parts with typed text
    suggest = suggestions(bench_of(request).catalogue)
    return page(request, template, form=bid_form(text), suggest=suggest, **context)


@router.get("/form/section", response_class=HTMLResponse)
def form_section(request: Request, path: str, depth: int = 1) -> HTMLResponse:
    """The fields of a closed part of the form that the bid does not have, when it is opened: all
    empty, the same for every bid (`ftopt.serve.form.blank_section`)."""
    try:
        part = blank_section(path[:300])
    except (KeyError, RoundTripError):
        raise NotFound(f"the form has no part {path[:80]!r}") from None
    return page(
        request, "form_section.html", form=part, depth=max(0, min(depth, 20)),
        typed={}, field_errors={}, open_paths=set(), keep=set(),
    )  # fmt: skip


def _refused(err: WorkloadError) -> dict[str, Any]:
    """A refused form's page context: 400, the whole error on top, each problem beside its field."""
    return {"status": 400, "error": err.message, "field_errors": err.field_errors()}


def _prefixes(field: str) -> list[str]:
    """`runs[0].rollout.engine` → runs, runs[0], runs[0].rollout: the sections to open for it."""
    cuts = [i for i, c in enumerate(field) if c in ".["]
    return [field[:i] for i in cuts]


def form_text(base: str, typed: dict[str, str]) -> str:
    """The version `base` with the inputs the user changed written into it (comments kept)."""
    try:
        return edited(base, changes(base, typed))
    except RoundTripError as err:
        raise WorkloadError(f"ftopt: workload: {err}") from None


@router.get("/bids/new", response_class=HTMLResponse)
def new_page(request: Request) -> HTMLResponse:
    return _form_page(request, "new.html", "")


@router.post("/bids/new")
async def new_from_form(request: Request) -> Response:
    typed = _fields(await form_of(request))
    try:
        text = form_text("", typed)
        version = await run_in_threadpool(
            bids.create, bench_of(request), text, author_of(request), "created from the form"
        )
    except WorkloadError as err:
        return _form_page(request, "new.html", "", typed=typed, **_refused(err))
    return to_version(version.bid_id, version.number)


@router.post("/bids/example")
async def new_from_example(request: Request) -> Response:
    name = _fields(await form_of(request)).get("example", "")
    text = example(name)
    if text is None:
        raise NotFound(f"no bundled example {name[:80]!r}")
    version = await run_in_threadpool(
        bids.create, bench_of(request), text, author_of(request), f"from the example {name}"
    )
    return to_version(version.bid_id, version.number)


async def _upload(form: FormData) -> tuple[str, bytes]:
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise BadForm("ftopt: choose a file to upload")
    raw = await upload.read(MAX_UPLOAD_BYTES + 1)
    return (upload.filename or "upload")[:80], raw


@router.post("/bids/upload")
async def new_from_upload(request: Request) -> Response:
    name, raw = await _upload(await form_of(request))
    version = await run_in_threadpool(
        bids.create, bench_of(request), decode_upload(raw, name), author_of(request), f"uploaded {name}"
    )
    return to_version(version.bid_id, version.number)


@router.post("/bids/import")
async def import_page(request: Request) -> Response:
    form = await form_of(request)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise BadForm("ftopt: choose an exported bid (JSON) to import")
    bid_id = await run_in_threadpool(import_record, bench_of(request), await upload.read())
    return RedirectResponse(f"/bids/{bid_id}", status_code=303)


@router.post("/bids/{bid_id}/files")
async def file_page(request: Request, bid_id: int) -> Response:
    form = await form_of(request)
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise BadForm("ftopt: choose a file (the seller's logo: PNG, JPEG or SVG)")
    data = await upload.read(bids.MAX_FILE_BYTES + 1)
    name = upload.filename.replace("\\", "/").rsplit("/", 1)[-1]
    await run_in_threadpool(bids.attach, bench_of(request), bid_id, name, data, author_of(request))
    version = bids.require_version(bench_of(request), bid_id)
    return to_version(bid_id, version.number)


@router.get("/bids/{bid_id}")
def bid_page(request: Request, bid_id: int) -> Response:
    version = bids.require_version(bench_of(request), bid_id)
    return to_version(bid_id, version.number)


def _version_page(request: Request, bid_id: int, number: int, **context: Any) -> HTMLResponse:
    """A version's page: its workload (as a form and as YAML), the bid's versions with each one's
    latest solve state, this version's solves and, once solved, its plan and frontier."""
    bench = bench_of(request)
    version = bids.require_version(bench, bid_id, number)
    store = bench.store
    solves = store.solves(bid_id)
    latest = {
        v.number: next((s.state for s in solves if s.version == v.number), "not solved")
        for v in store.versions(bid_id)
    }
    prices = {s.version: s.price for s in reversed(solves) if s.state == "done"}  # the latest wins
    solved = _solved_context(bench, bid_id, number)
    context.setdefault("yaml_text", version.workload)
    return _form_page(
        request, "version.html", version.workload, bid=store.bid(bid_id), version=version,
        versions=store.versions(bid_id), latest=latest, prices=prices, files=store.files(bid_id),
        solves=[s for s in solves if s.version == number],
        time_limit=f"{bench.time_limit:g}", formats=list(FORMATS), **solved, **context,
    )  # fmt: skip


def _solved_context(bench: Workbench, bid_id: int, number: int) -> dict[str, Any]:
    """The version's plan, the summary the page states (as every download), the alternatives' rows as
    every format prints them, its solve record and its frontier; None each until solved."""
    solved = bids.solved_plan(bench, bid_id, number)
    if not solved:
        return {"plan": None, "summary": None, "solved": None, "frontier": None}
    plan, record = solved
    view = bids.quote_of(bench, bid_id, number, plan, logo=False)  # the buyer's copy: sell prices
    summary = view.summary
    return {
        "plan": view.plan,
        "summary": summary,
        "options": alternative_rows(summary),
        "option_headers": ALTERNATIVE_HEADERS,
        "solved": record,
        "frontier": json.loads(record.frontier) if record.frontier else None,
    }


@router.get("/bids/{bid_id}/versions/{number}", response_class=HTMLResponse)
def version_page(request: Request, bid_id: int, number: int) -> HTMLResponse:
    return _version_page(request, bid_id, number)


@router.post("/bids/{bid_id}/versions/{number}/form")
async def edit_form(request: Request, bid_id: int, number: int) -> Response:
    typed = _fields(await form_of(request))
    base = bids.require_version(bench_of(request), bid_id, number).workload
    try:
        text = form_text(base, typed)
        version = await run_in_threadpool(
            bids.edit, bench_of(request), bid_id, text, author_of(request), "edited in the form"
        )
    except WorkloadError as err:
        return _version_page(request, bid_id, number, typed=typed, **_refused(err))
    return to_version(bid_id, version.number)


@router.post("/bids/{bid_id}/versions/{number}/yaml")
async def edit_yaml(request: Request, bid_id: int, number: int) -> Response:
    text = _fields(await form_of(request)).get("workload", "").replace("\r\n", "\n")
    try:
        version = await run_in_threadpool(
            bids.edit, bench_of(request), bid_id, text, author_of(request), "edited as YAML"
        )
    except WorkloadError as err:
        return _version_page(request, bid_id, number, status=400, yaml_text=text, yaml_error=err.message)
    return to_version(bid_id, version.number)


def _knobs(form: dict[str, str]) -> dict[str, Any]:
    """The solve form's knobs; a number that is none is the form's error."""
    try:
        time_limit = float(form.get("time_limit", "") or 60)
        alternatives = int(form.get("alternatives", "") or 0)
    except ValueError:
        raise BadForm("ftopt: time limit and alternatives: expected numbers") from None
    if not 0 < time_limit <= 3600 or not 0 <= alternatives <= 20:
        raise BadForm("ftopt: time limit: expected 0 < s ≤ 3600; alternatives: 0 to 20")
    return {
        "time_limit": time_limit,
        "alternatives": alternatives,
        "what_if": "what_if" in form,
        "frontier": "frontier" in form,
    }


@router.post("/bids/{bid_id}/versions/{number}/solve")
async def solve_page(request: Request, bid_id: int, number: int) -> Response:
    knobs = _knobs(_fields(await form_of(request)))
    try:
        solve = await run_in_threadpool(
            bids.solve, bench_of(request), bid_id, number, knobs, author_of(request)
        )
    except QueueFull:
        return message(request, "ftopt: too many solves are queued; try again in a minute", 429)
    return RedirectResponse(f"/jobs/{solve.id}", status_code=303)


@router.post("/bids/{bid_id}/versions/{number}/ease/{saving}")
async def ease_page(request: Request, bid_id: int, number: int, saving: int) -> Response:
    await form_of(request)
    version = await run_in_threadpool(
        bids.ease, bench_of(request), bid_id, number, saving - 1, author_of(request)
    )
    return to_version(bid_id, version.number)


@router.get("/jobs/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, job_id: int) -> HTMLResponse:
    store = bench_of(request).store
    solve = store.solve(job_id)
    if solve is None:
        raise NotFound(f"no job {job_id}")
    return page(request, "job.html", solve=solve, bid=store.bid(solve.bid_id))


@router.post("/jobs/{job_id}/cancel")
async def cancel_page(request: Request, job_id: int) -> Response:
    await form_of(request)
    await run_in_threadpool(bench_of(request).jobs.cancel, job_id)
    return RedirectResponse(f"/jobs/{job_id}", status_code=303)


@router.get("/bids/{bid_id}/compare", response_class=HTMLResponse)
def compare_page(request: Request, bid_id: int, a: int, b: int) -> HTMLResponse:
    found = bids.compare(bench_of(request), bid_id, a, b)
    return page(request, "compare.html", bid=bench_of(request).store.bid(bid_id), cmp=found, p=found.plans)
