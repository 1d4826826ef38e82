"""The plan's shape: every figure a plan of its version states is there, of its kind, and its summary
is the one its own figures give. A plan that fails here is a damaged file (exit 2), not a wrong plan.

Why beside the rules: the types admit null for many figures, because older plans lack them and some
copies have none (no hours without `train_tokens`). A plan that states a figure for one copy and not
for its like, or a speed without the hours it gives, was edited or truncated; the rules would then
skip the missing figure and call the plan valid. So null is judged from the plan itself: figures
that come together (a copy's margin, its failure terms, its spread) are all stated or none, and
what one copy of a kind states its like states too. The summary (`ftopt solve --format json` writes
it for the quote formats) is validated strictly and compared field by field with the summary the
plan's own figures give, so no sentence of a quote can disagree with the figures it is read from.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import yaml
from pydantic import ValidationError

from ftopt.errors import InputError, quoted
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import COMPLETE_SINCE, Assignment, Plan
from ftopt.model.summary import PlanSummary, summarize
from ftopt.model.workload import Workload
from ftopt.reading.safe_yaml import expected_text, locate
from ftopt.verify.copies import bid_margin, cost_plan, stated_copy

#: Figures of a copy that come together: stated all, or none (a version 3 plan).
TOGETHER: dict[str, tuple[str, ...]] = {
    "training configuration": ("micro_batch", "accumulation", "recompute", "parallelism"),
    "planning margin": ("memory_margin", "memory_margin_basis", "headroom_gb"),
    "failure terms": (
        "checkpoint_write_s",
        "checkpoint_interval_h",
        "expected_interruptions",
        "failure_overhead",
        "hours_with_failures",
        "restart_hours",
    ),
    "spread": ("hours_p50", "hours_p90", "spread_basis"),
}
#: Figures the hours come from or with: a copy stating hours states these.
WITH_HOURS = ("tokens_per_s", "energy_kwh")
#: Every figure compared between copies of one kind (with hours, or without).
COMPARED = tuple(f for group in TOGETHER.values() for f in group) + WITH_HOURS


def shape_faults(
    plan: Plan,
    summary: Any,
    workload: Workload,
    catalogue: Catalogue,
    where: tuple[str, yaml.Node | None],
) -> list[InputError]:
    """Every shape fault of the plan (and of its summary, when the file has one), each naming the
    field and its line; an empty list when the shape holds."""
    file, node = where
    faults = [*_plan_faults(plan), *_copy_faults(plan), *_node_faults(plan), *_basis_faults(plan, catalogue)]
    if summary is not None:
        faults += _summary_faults(summary, plan, workload, catalogue)
    out = []
    for loc, expected in faults:
        _, line = locate(node, loc, False)
        out.append(InputError(file, _path(loc), expected, line))
    return out


def _path(loc: tuple[str | int, ...]) -> str:
    """`summary.runs[0].hours` from its location parts."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


Fault = tuple[tuple[str | int, ...], str]


def _plan_faults(plan: Plan) -> Iterator[Fault]:
    """Plan-wide figures a version 3 plan states: the site, the TCO, a bound and a gap together,
    and the makespan and energy wherever a copy has hours and energy."""
    if plan.schema_version < COMPLETE_SINCE:
        return
    needed = {"site": "the site the plan is for", "tco": "the purchase and energy over the years"}
    if plan.bound is not None:  # a search without a bound (the queue's greedy) states neither
        needed["gap"] = "the gap to the lower bound the plan states"
    if plan.gap is not None:
        needed["bound"] = "the lower bound the plan states a gap to"
    if any(a.hours is not None for a in plan.assignments):
        needed["makespan_hours"] = "the longest copy's hours, since copies state hours"
    if any(a.energy_kwh is not None for a in plan.assignments):
        needed["energy_kwh"] = "the copies' training energy, since copies state it"
    for field, what in needed.items():
        if getattr(plan, field) is None:
            yield (field,), f"expected {what}, got null"


def _copy_faults(plan: Plan) -> Iterator[Fault]:
    """Each copy states the figures its like states, and figures that come together together."""
    if plan.schema_version < COMPLETE_SINCE:
        return
    stated: dict[bool, set[str]] = {True: set(), False: set()}
    for a in plan.assignments:
        stated[a.hours is not None] |= {f for f in COMPARED if getattr(a, f) is not None}
    for i, a in enumerate(plan.assignments):
        wanted = set(stated[a.hours is not None])
        for group in TOGETHER.values():
            if any(getattr(a, f) is not None for f in group):
                wanted |= set(group)
        if a.hours is not None:
            wanted |= set(WITH_HOURS)
        for field in sorted(f for f in wanted if getattr(a, f) is None):
            yield ("assignments", i, field), f"expected {_what(field, a)}, got null"


def _node_faults(plan: Plan) -> Iterator[Fault]:
    """A copy's `server` and `gpus` are its first node's: the two say one thing twice, so a plan
    where they differ was edited in one place only."""
    for i, a in enumerate(plan.assignments):
        first = a.nodes[0] if a.nodes else None
        if first is not None and (first.server, first.gpus) != (a.server, a.gpus):
            where = f"server {first.server} GPUs {first.gpus}"
            yield (
                ("assignments", i, "gpus"),
                f"expected its first node's {where}, got server {a.server} GPUs {a.gpus}",
            )


def _what(field: str, a: Assignment) -> str:
    """What a missing figure should have been, and why the plan must state it."""
    group = next((name for name, fields in TOGETHER.items() if field in fields), None)
    why = f"its {group}" if group else "its hours"
    kind = (
        "a text" if field.endswith("basis") else "a configuration" if field == "parallelism" else "a figure"
    )
    return f"{kind} ({field} is part of {why}, which run {a.run} copy {a.copy_} states)"


def _basis_faults(plan: Plan, catalogue: Catalogue) -> Iterator[Fault]:
    """A copy's spread basis is one the catalogue's spread data states (its stack's or the pool's)."""
    spread = catalogue.spread
    if spread is None:
        return
    bases = {spread.pooled.basis, *(f.basis for f in spread.stacks.values())}
    for i, a in enumerate(plan.assignments):
        if a.spread_basis is not None and a.spread_basis not in bases:
            known = "; ".join(sorted(bases))
            yield (
                ("assignments", i, "spread_basis"),
                f"expected one of the spread data's bases ({known}), " + (f"got {quoted(a.spread_basis)}"),
            )


def _summary_faults(summary: Any, plan: Plan, workload: Workload, catalogue: Catalogue) -> list[Fault]:
    """The summary validates as one (strictly: no null where a figure belongs, no text for a number)
    and says what the plan's own figures give, the catalogue in use included (a vendor's by its
    contents, wherever its directory lies)."""
    try:
        stated = PlanSummary.model_validate_json(json.dumps(summary), strict=True)
    except ValidationError as exc:
        return [(("summary", *e["loc"]), expected_text(e)) for e in exc.errors()]
    # the copy the file states, and at a margin the cost its seller's copy sets beside each price
    cost = cost_plan(plan, catalogue) if bid_margin(summary, workload) else None
    derived = summarize(plan, workload, catalogue, stated_copy(summary).copy, cost=cost)
    # A vendor's directory may be spelt otherwise here (the CLI found it by its contents' hash).
    spelt = {"directory", "words"} if derived.catalogue.kind == stated.catalogue.kind == "vendor" else set()
    given = stated.model_dump(mode="json", exclude={"catalogue": spelt})
    wanted = derived.model_dump(mode="json", exclude={"catalogue": spelt})
    return [
        (("summary", *loc), f"the plan's own figures give {quoted(want)}, not {quoted(got)}")
        for loc, got, want in _differences(given, wanted)
    ]


def _differences(given: Any, wanted: Any, loc: tuple[str | int, ...] = ()) -> Iterator[tuple[Any, Any, Any]]:
    """(location, given, wanted) of each leaf where two JSON values differ."""
    if isinstance(given, dict) and isinstance(wanted, dict) and given.keys() == wanted.keys():
        for key in wanted:
            yield from _differences(given[key], wanted[key], (*loc, key))
    elif isinstance(given, list) and isinstance(wanted, list) and len(given) == len(wanted):
        for i, (g, w) in enumerate(zip(given, wanted, strict=True)):
            yield from _differences(g, w, (*loc, i))
    elif given != wanted:
        yield loc, given, wanted
