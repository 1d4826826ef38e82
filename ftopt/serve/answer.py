"""One solve's answer, computed in a worker process: the plan, its HTML quotes (the buyer's and the
seller's copy, each with the frontier's three bids) and the frontier.

Why a module of its own: this is the only code that runs in the worker processes, so it imports the
solver and the quote renderer and nothing of the web stack. It calls what `ftopt solve` calls
(`ftopt.solver.solve.solve`, the frontier behind the quote's three bids, and the renderer
`ftopt solve --format html` uses), so a quote from the browser is the CLI's quote.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ftopt.catalogue.loader import load_catalogue
from ftopt.errors import FtoptError, InputError, one_line, quoted
from ftopt.model.commercial import Copy
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.settings import Progress, SolveSettings
from ftopt.model.workload import Workload
from ftopt.quote.bids import bids_for_copy, quote_bids
from ftopt.quote.copies import COPIES, logo_uri, quote_copy
from ftopt.quote.formats import QuoteOptions, render_bytes
from ftopt.reading.workload_file import load_workload_text
from ftopt.serve.revisions import stamped
from ftopt.serve.solve_request import SolveRequest
from ftopt.solver.frontier import Frontier
from ftopt.solver.solve import solve

#: The name a stored workload is given in error messages.
WORKLOAD_NAME = "workload"


def answer(request: SolveRequest, on_progress: Callable[[Progress], None] | None = None) -> dict[str, Any]:
    """The finished solve as the store records it: state `done` with the plan, quote and frontier,
    or `failed` with the CLI's one-line reason (no plan can exist, no plan in time, bad input)."""
    try:
        return _answer(request, on_progress)
    except FtoptError as err:
        return {"state": "failed", "error": one_line(str(err))}


def _answer(request: SolveRequest, on_progress: Callable[[Progress], None] | None) -> dict[str, Any]:
    catalogue = load_catalogue()
    text = request.workload if request.revision is None else stamped(request.workload, request.revision)
    workload = load_workload_text(text, WORKLOAD_NAME, catalogue)
    settings = SolveSettings(
        time_limit=request.time_limit,
        what_if=request.what_if,
        alternatives=request.alternatives,
        workers=request.solver_workers,
    )
    started = time.perf_counter()
    result = solve(workload, catalogue, settings, on_progress, workload_name=workload.name or "bid")
    plan = result.plan_or_raise()
    left = request.time_limit - (time.perf_counter() - started)
    bids = _frontier(workload, catalogue, settings, left, plan) if request.frontier else None
    logo = logo_beside(workload, request.files)
    html = {copy: _quote_html(plan, workload, catalogue, bids, copy, logo) for copy in COPIES}
    return {
        "state": "done",
        "price": plan.total_price,
        "bound": plan.bound,
        "gap": plan.gap,
        "seconds": round(time.perf_counter() - started, 3),
        "plan": plan.to_json(),
        "quote_html": html["buyer"],
        "seller_html": html["seller"],
        "frontier": json.dumps(frontier_points(bids, bids_for_copy(bids, workload, "buyer")[0]))
        if bids
        else None,
    }


def _quote_html(
    plan: Plan, workload: Workload, catalogue: Catalogue, bids: Frontier | None, copy: Copy, logo: str
) -> str:
    """One copy's HTML quote with the frontier's three bids at that copy's prices, as `ftopt solve
    --format html --copy COPY` renders it: both copies are rendered here, where the frontier is."""
    shown, summary = quote_copy(plan, workload, catalogue, copy)
    sold, cost = bids_for_copy(bids, workload, copy)
    return render_bytes(shown, "html", summary, QuoteOptions(sold, True, logo, cost)).decode("utf-8")


def _frontier(
    workload: Workload, catalogue: Catalogue, settings: SolveSettings, budget_s: float, plan: Plan
) -> Frontier | None:
    """The frontier behind the quote's three bids, as `ftopt solve --format html` finds it: the
    `ftopt frontier` search with the same settings, in what the solve left of the time limit (None
    for a bid without train_tokens or no point found; a queue bid's time axis is its last job's end).
    The plan is the first point, so the cheapest bid is never dearer than it."""
    return quote_bids(workload, catalogue, settings, budget_s, plan)


def frontier_points(found: Frontier, sold: Frontier | None = None) -> list[dict[str, Any]]:
    """The frontier's points, fastest first, as the result page shows them: `total_price` and `tco`
    at the catalogue's prices (the stored plan's, the solver's), `sell_price` and `sell_tco` as the
    buyer's copy prices them (`sold`: with `quote.margin_percent`, sell prices; else the same)."""
    sold = sold if sold is not None else found
    return [
        {
            "makespan_hours": p.makespan_hours,
            "total_price": p.total_price,
            "tco": p.tco,
            "sell_price": s.total_price,
            "sell_tco": s.tco,
            "status": p.status.value,
            "gap": p.gap,
            "proven": p.proven,
            "servers": p.servers(),
            "currency": p.plan.currency,
        }
        for p, s in zip(found.points, sold.points, strict=True)
    ]


def logo_beside(workload: Workload, files: tuple[tuple[str, bytes], ...]) -> str:
    """The seller's logo as a data: URI, read as `ftopt solve` reads it beside the bid's file: here
    the files kept beside the bid, written into a fresh folder ("" without a logo)."""
    quote = workload.quote
    if quote is None or quote.seller is None or quote.seller.logo is None:
        return ""
    kept = dict(files)
    if quote.seller.logo not in kept:
        raise InputError(
            WORKLOAD_NAME,
            "quote.seller.logo",
            f"no file {quoted(quote.seller.logo)} is kept beside this bid: upload it under the bid's files",
        )
    with tempfile.TemporaryDirectory(prefix="ftopt-bid-") as folder:
        for name, data in kept.items():
            (Path(folder) / name).write_bytes(data)
        return logo_uri(Path(folder) / "bid.yaml", workload)
