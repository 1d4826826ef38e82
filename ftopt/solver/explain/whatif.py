"""What shaped the optimum, what a relaxation would save, and which relaxation gives a plan at all.

Three kinds of lines for the quote, each from the rule families (`ftopt.solver.cpsat.families`).
*Binding rules* are read off the plan and the problem data at no cost: a feed that forces capped
cards, host RAM or NVMe bought beyond the base build, cards the room's inlet rules out, runs that
memory (or a deadline) puts on several cards, the server limit reached, a full liquid loop.
*Savings* re-solve the bid once per relaxation, each with one rule eased, and report the ones whose
re-solve changes the price or the server count, with the relaxation's stable id in the figures (the
workbench eases by that id, never by the sentence). *Feasible if* lines re-solve an impossible bid
once per relaxation and name the rules whose easing gives it a plan. A deadline's what-if is worded
by the fewest hours each deadline must give for the cheaper plan ("deadlines +6 h"), found by
re-solving the bid with its deadlines loosened (`ftopt.solver.explain.extension`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId, relaxation_id
from ftopt.model.workload import Workload
from ftopt.solver.cpsat import families
from ftopt.solver.cpsat.deadline import loosen
from ftopt.solver.cpsat.family import Relaxation
from ftopt.solver.explain.extension import Resolve, least_extension
from ftopt.solver.problem.data import ProblemData


def binding_rules(data: ProblemData, plan: Plan) -> list[Finding]:
    """The rules that visibly shaped this plan: each rule family's lines."""
    return families.findings(data, plan)


def relaxations(data: ProblemData) -> list[Relaxation]:
    """The bid once per eased rule, each with its stable id: every family's."""
    return families.relaxations(data)


def _in_time(data: ProblemData, until: float | None) -> Iterator[Relaxation]:
    """The relaxations, while the clock (`time.perf_counter`) is before `until`: a re-solve also builds
    its problem, which a time limit split ten ways does not bound, so the last ones give way."""
    for relaxation in relaxations(data):
        if until is not None and time.perf_counter() >= until:
            return
        yield relaxation


def savings(data: ProblemData, plan: Plan, resolve: Resolve, until: float | None = None) -> list[Finding]:
    """One re-solve per relaxation (until `until`); a finding for each whose plan is cheaper, or as
    cheap with another server count. A re-solve that stopped on a dearer plan than the bid's own (its
    short share of the time limit) says nothing of the relaxation: it was reported as "the same
    price" before, and is left out now. The deadline's least extension is searched last, in the time
    the other relaxations left, so that its re-solves never crowd one of them out."""
    kept: list[tuple[Relaxation, Plan]] = []
    for relaxation in _in_time(data, until):
        eased = resolve(relaxation).plan
        if eased is None or eased.total_price > plan.total_price + 0.005:
            continue
        cheaper = eased.total_price < plan.total_price - 0.005
        if cheaper or len(eased.servers) != len(plan.servers):
            kept.append((relaxation, eased))
    found = []
    for relaxation, eased in kept:
        extra = None
        if relaxation.id == RelaxationId.DEADLINE:
            extra, eased = least_extension(data.workload, eased, _as_cheap_as(eased), resolve, until)
        found.append(_saving(plan, relaxation, eased, extra))
    return found


def _as_cheap_as(eased: Plan) -> Callable[[Plan], bool]:
    """Whether a plan of a loosened bid buys the no-deadline plan's saving: its price or less, and
    its server count (a saving may be a count at the same price)."""

    def enough(found: Plan) -> bool:
        if found.total_price > eased.total_price + 0.005:
            return False
        return found.total_price < eased.total_price - 0.005 or len(found.servers) == len(eased.servers)

    return enough


def _saving(plan: Plan, relaxation: Relaxation, eased: Plan, extra: float | None) -> Finding:
    """A saving's finding; a deadline's is worded by the least extension `extra` that buys it."""
    words = f"deadlines +{extra:g} h" if extra is not None else relaxation.words
    return finding(
        FindingKind.SAVING,
        words,
        relaxation=str(relaxation.id),
        saved=round(max(0.0, plan.total_price - eased.total_price), 2),
        eased_price=eased.total_price,
        price=plan.total_price,
        currency=plan.currency,
        eased_status=eased.status.value,
        servers=len(plan.servers),
        eased_servers=len(eased.servers),
        extra_hours=extra,
    )


def feasible_if(data: ProblemData, resolve: Resolve, until: float | None = None) -> list[Finding]:
    """For a bid without a plan: each relaxation whose re-solve (until `until`) finds one, with that
    plan's price; the deadline's least extension searched last, as for savings."""
    kept = [(r, eased) for r in _in_time(data, until) if (eased := resolve(r).plan) is not None]
    found = []
    for relaxation, eased in kept:
        extra: float | None = None
        if relaxation.id == RelaxationId.DEADLINE:  # the least extension that gives any plan
            extra, eased = least_extension(data.workload, eased, lambda _: True, resolve, until)
        found.append(
            finding(
                FindingKind.FEASIBLE_IF,
                f"deadlines +{extra:g} h" if extra is not None else relaxation.words,
                relaxation=str(relaxation.id),
                eased_price=eased.total_price,
                currency=eased.currency,
                eased_status=eased.status.value,
            )
        )
    return found


def eased_workload(data: ProblemData, saving: Finding) -> Workload | None:
    """The bid as a saving eased it, found by the relaxation id its figures carry (the workbench's
    "ease" button); a deadline saving loosens each deadline by its hours, not to none. None when the
    saving names no id (a plan from before ids) or the rule is no longer eased for this bid, or the
    eased rule is the catalogue's (stock), which no workload edit can ease."""
    wanted = relaxation_id(saving.figures.get("relaxation"))
    relaxation = next((r for r in relaxations(data) if r.id == wanted), None)
    if relaxation is None or relaxation.catalogue is not None:
        return None
    extra = saving.figures.get("extra_hours")
    if relaxation.id == RelaxationId.DEADLINE and isinstance(extra, (int, float)):
        return loosen(data.workload, float(extra))
    return relaxation.workload
