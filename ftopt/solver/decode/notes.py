"""The notes every plan carries: the rules and defaults it was made under, with their figures.

Why a module of its own: the notes restate the catalogue's rules (host, power, memory, step time),
the assumed prices, the runs whose workload margin is tighter than the calibration's, and the runs
with spares; they read the problem's rules and runs and the placed copies (to tell the copies that
span servers), never a server's figures. The quote's price-list header is stated here too.
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Assignment
from ftopt.model.power import supplies_words
from ftopt.model.stack import LEGACY_ALLOCATOR_RESERVE
from ftopt.model.workload import Run
from ftopt.solver.problem.data import ProblemData


def plan_notes(data: ProblemData, assignments: list[Assignment]) -> list[Finding]:
    """The rules and defaults the plan was made under, then the note on its spares (if any)."""
    return _rules(data) + _spares_note(data, assignments)


def _rules(data: ProblemData) -> list[Finding]:
    """The rules and defaults every plan was made under, with their figures."""
    rules, sizing = data.catalogue.rules, data.workload.sizing
    notes = [
        finding(
            FindingKind.RULE,
            "host",
            ram_per_gpu_memory=rules.host_ram_per_gpu_memory,
            reserve_gb=rules.host_ram_reserve_gb,
            cores_per_gpu=rules.cores_per_gpu,
            data_tb_per_socket=rules.data_tb_per_socket,
        ),
        finding(
            FindingKind.RULE,
            "power",
            supplies=sorted({f"{b.chassis.id}: {supplies_words(b.chassis)}" for b in data.builds}),
        ),
        finding(
            FindingKind.RULE,
            "memory",
            states_only=sizing.states_only,
            flash_attention=sizing.flash_attention,
            cuda_context_gb=sizing.cuda_context_gb,
            allocator_reserve=_reserve(data),
            memory_margin=sizing.memory_margin,
        ),
        finding(FindingKind.RULE, "step-time", mfu=sizing.mfu),
        *_tight_margins(data),
    ]
    assumed = sorted(p.item for p in data.catalogue.prices if p.assumption)
    if assumed:
        notes.append(finding(FindingKind.RULE, "prices", items=assumed))
    return notes


def _reserve(data: ProblemData) -> float:
    """The allocator reserve the plan was sized with: the workload's, else the calibration's."""
    given, margins = data.workload.sizing.allocator_reserve, data.catalogue.margins
    if given is not None:
        return given
    return margins.reserve() if margins else LEGACY_ALLOCATOR_RESERVE


def _tight_margins(data: ProblemData) -> list[Finding]:
    """A note for every run whose workload margin is below the error measured for its stack and
    method: the plan is tighter than the calibration says is safe, and every format must say so."""
    given = data.workload.sizing.memory_margin
    if given is None:
        return []
    return [
        finding(
            FindingKind.TIGHT_MARGIN,
            p.run.name,
            given=given,
            measured=round(p.memory_margin, 3),
            basis=p.margin_basis,
        )
        for p in data.profiles
        if given < p.memory_margin
    ]


def _spares_note(data: ProblemData, assignments: list[Assignment]) -> list[Finding]:
    """A note naming the runs with spares and those whose copies each fit one server (no spare)."""
    spared = [p.run for p in data.profiles if p.run.spares]
    if not spared:
        return []
    spanning = {a.run for a in assignments if a.multinode}
    reliability = data.catalogue.reliability
    repair = (reliability.repair_hours if reliability else None) or 0.0
    return [finding(FindingKind.RULE, "spares", **_spared_runs(spared, spanning), repair_hours=repair)]


def _spared_runs(spared: list[Run], spanning: set[str]) -> dict[str, list[str]]:
    """The runs with spares, and those of them whose copies each fit one server."""
    return {
        "runs": [f"{r.name}: {r.spares} per copy" for r in spared],
        "one_server": [r.name for r in spared if r.name not in spanning],
    }


def price_list_summary(catalogue: Catalogue) -> str:
    """Currency and the range of price dates, for the quote's header; "indicative" only for the
    bundled prices (a vendor's catalogue or a user's price list gives its own)."""
    dates = sorted(p.date for p in catalogue.prices)
    origin = catalogue.origin
    own = origin.price_list is not None or origin.vendor_prices
    return f"{catalogue.currency}, {'' if own else 'indicative '}prices dated {dates[0]} to {dates[-1]}"
