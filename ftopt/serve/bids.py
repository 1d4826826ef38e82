"""What a user does with a bid, shared by the API and the pages: create, edit, ease, solve, compare.

Why one module: the pages use the same operations as the API, so a bid made in the browser and one
posted by a script are checked, stored and solved the same way. Every workload is checked before it
is stored, so a stored version always solves or fails for a reason about the bid, never a parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ftopt.errors import InputError, one_line
from ftopt.model.commercial import Copy
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.relaxation import CATALOGUE_RULES, relaxation_id
from ftopt.model.summary import PlanSummary
from ftopt.model.workload import Workload
from ftopt.quote.copies import quote_copy
from ftopt.serve.answer import logo_beside
from ftopt.serve.diff import Change, PlanDiff, plan_diff, workload_changes
from ftopt.serve.jobs import Jobs
from ftopt.serve.revisions import stamped
from ftopt.serve.roundtrip import edited
from ftopt.serve.solve_request import SolveRequest
from ftopt.serve.store import BidFile, Solve, Store, Version
from ftopt.serve.workloads import WorkloadError, check, data_of
from ftopt.solver.explain.whatif import eased_workload
from ftopt.solver.problem.data import build_problem

#: The name a new bid gets when its workload has none.
UNNAMED = "unnamed bid"


class NotFound(Exception):
    """A bid, version or solve that does not exist; the message says which."""


@dataclass
class Workbench:
    """The server's state: the store, the solve queue, the catalogue and the solve defaults."""

    store: Store
    jobs: Jobs
    catalogue: Catalogue
    time_limit: float = 60.0
    token: str | None = None
    author: str = "presales"
    extra: dict[str, Any] = field(default_factory=dict)


def create(bench: Workbench, text: str, author: str, note: str = "created") -> Version:
    """A new bid from a workload text, checked first."""
    checked = check(text, bench.catalogue)
    return bench.store.create_bid(checked.workload.name or UNNAMED, text, author, note)


def edit(bench: Workbench, bid_id: int, text: str, author: str, note: str = "edited") -> Version:
    """The edited workload as the bid's next version, checked first."""
    require_bid(bench, bid_id)
    check(text, bench.catalogue)
    return bench.store.add_version(bid_id, text, author, note)


def require_bid(bench: Workbench, bid_id: int) -> None:
    """`NotFound` unless the bid exists."""
    if bench.store.bid(bid_id) is None:
        raise NotFound(f"no bid {bid_id}")


def require_version(bench: Workbench, bid_id: int, number: int | None = None) -> Version:
    """A bid's version (its latest when `number` is None), or `NotFound`."""
    versions = bench.store.versions(bid_id)
    if not versions:
        raise NotFound(f"no bid {bid_id}")
    if number is None:
        return versions[-1]
    found = next((v for v in versions if v.number == number), None)
    if found is None:
        raise NotFound(f"bid {bid_id} has no version {number}")
    return found


def solve(bench: Workbench, bid_id: int, number: int | None, knobs: dict[str, Any], author: str) -> Solve:
    """Queue a solve of a version; `QueueFull` when the queue is full."""
    version = require_version(bench, bid_id, number)
    workload = check(version.workload, bench.catalogue).workload
    _logo(workload, tuple((n, k.data) for n, k in bench.store.files(bid_id).items()))  # found before a solve
    request = SolveRequest(workload=version.workload, **{"time_limit": bench.time_limit, **knobs})
    return bench.jobs.submit(bid_id, version.number, request, author)


def solved_plan(bench: Workbench, bid_id: int, number: int) -> tuple[Plan, Solve] | None:
    """The plan of a version's latest finished solve, or None when it has none."""
    solve = bench.store.latest_done(bid_id, number)
    if solve is None or solve.plan is None:
        return None
    return Plan.model_validate_json(solve.plan), solve


@dataclass(frozen=True)
class QuoteView:
    """A version's quote as one copy shows it: the plan (at sell prices where the quote has a
    margin), its summary with the commercial block, and the seller's logo as a data: URI."""

    plan: Plan
    summary: PlanSummary
    logo: str


def quote_of(
    bench: Workbench, bid_id: int, number: int, plan: Plan, copy: Copy = "buyer", logo: bool = True
) -> QuoteView:
    """The quote every view of a version's plan is rendered from (page, downloads, comparison): the
    plan with the version's commercial lines, revision and (with `logo`) the seller's logo, as
    `ftopt solve --copy` renders it."""
    workload = check(
        stamped(require_version(bench, bid_id, number).workload, number), bench.catalogue
    ).workload
    shown, summary = quote_copy(plan, workload, bench.catalogue, copy)
    files = tuple((name, kept.data) for name, kept in bench.store.files(bid_id).items())
    return QuoteView(shown, summary, _logo(workload, files) if logo else "")


def _logo(workload: Workload, files: tuple[tuple[str, bytes], ...]) -> str:
    """The logo, or the bid's error naming `quote.seller.logo`."""
    try:
        return logo_beside(workload, files)
    except InputError as err:
        raise WorkloadError(f"ftopt: {one_line(str(err))}", err.field, err.line) from None


def summary_of(bench: Workbench, bid_id: int, number: int, plan: Plan) -> PlanSummary:
    """The buyer's summary of a version's plan (what the comparison and the page state)."""
    return quote_of(bench, bid_id, number, plan, logo=False).summary


def ease(bench: Workbench, bid_id: int, number: int, index: int, author: str) -> Version:
    """A new version with the rule of the plan's `index`-th saving eased, as the what-if re-solve
    eased it: the relaxation the saving names by its id (`ftopt.solver.explain.whatif.eased_workload`),
    never by its sentence. Only the fields the relaxation changed are written into the version's
    text; its comments and other fields stay."""
    version = require_version(bench, bid_id, number)
    solved = solved_plan(bench, bid_id, number)
    if solved is None or not 0 <= index < len(solved[0].savings):
        raise NotFound(f"version {number} of bid {bid_id} has no saving {index + 1}")
    saving = solved[0].savings[index]
    workload = check(version.workload, bench.catalogue).workload
    data = build_problem(workload, bench.catalogue.arriving_within(workload.site.delivery_weeks))
    eased = eased_workload(data, saving)
    words = saving.subject
    if eased is None:
        catalogue = relaxation_id(saving.figures.get("relaxation")) in CATALOGUE_RULES
        why = (
            "is the catalogue's, not the workload's"
            if catalogue
            else "can no longer be eased for this workload"
        )
        raise WorkloadError(f"ftopt: the rule '{words}' {why}")
    fields = eased_fields(
        workload.model_dump(mode="json", by_alias=True), eased.model_dump(mode="json", by_alias=True)
    )
    return edit(bench, bid_id, edited(version.workload, fields), author, f"eased: {words}")


def eased_fields(before: Any, after: Any, path: str = "") -> list[tuple[str, Any]]:
    """The (field path, new value) pairs in which two dumps of a workload differ: mappings and
    equally long lists of mappings are walked into, anything else is one field (a list of feed
    ids is replaced whole)."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        return [
            change
            for key in dict.fromkeys([*before, *after])
            for change in eased_fields(before.get(key), after.get(key), f"{path}.{key}" if path else key)
        ]
    if _entry_lists(before, after):
        return [
            c
            for i, (a, b) in enumerate(zip(before, after, strict=True))
            for c in eased_fields(a, b, f"{path}[{i}]")
        ]
    return [(path, after)]


def _entry_lists(before: Any, after: Any) -> bool:
    lists = isinstance(before, list) and isinstance(after, list) and len(before) == len(after)
    return lists and all(isinstance(x, dict) for x in [*before, *after])


#: A file kept beside a bid: a plain name (no folder) of an image a quote may embed.
FILE_NAME = re.compile(r"(?i)^[a-z0-9][a-z0-9._-]{0,95}\.(png|jpe?g|svg)$")
#: The largest file kept beside a bid: a letterhead's logo, not a photograph.
MAX_FILE_BYTES = 1_000_000


def attach(bench: Workbench, bid_id: int, name: str, data: bytes, author: str) -> BidFile:
    """Keep a file beside the bid (the seller's logo its `quote.seller.logo` names), checked first."""
    require_bid(bench, bid_id)
    if not FILE_NAME.fullmatch(name):
        raise WorkloadError(
            f"ftopt: file: expected a plain name ending .png, .jpg, .jpeg or .svg, got {name[:80]!r}", "file"
        )
    if len(data) > MAX_FILE_BYTES:
        raise WorkloadError(f"ftopt: {name}: {len(data):,} bytes; at most {MAX_FILE_BYTES:,}", "file")
    return bench.store.add_file(bid_id, name, data, author)


@dataclass(frozen=True)
class Comparison:
    """Two versions: the workload's changed fields, and the plans' differences when both are solved."""

    before: Version
    after: Version
    changes: list[Change]
    plans: PlanDiff | None


def compare(bench: Workbench, bid_id: int, a: int, b: int) -> Comparison:
    """Version `a` against version `b` of one bid."""
    before, after = require_version(bench, bid_id, a), require_version(bench, bid_id, b)
    changes = workload_changes(data_of(before.workload), data_of(after.workload))
    plan_a, plan_b = solved_plan(bench, bid_id, a), solved_plan(bench, bid_id, b)
    plans = None
    if plan_a and plan_b:
        summaries = (summary_of(bench, bid_id, a, plan_a[0]), summary_of(bench, bid_id, b, plan_b[0]))
        plans = plan_diff(plan_a[0], plan_b[0], summaries)
    return Comparison(before, after, changes, plans)
