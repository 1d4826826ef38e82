"""Rule family: memory per GPU, which decides how many cards each copy of a run needs.

Memory is applied where each run is sized (`ftopt.solver.problem.modes.fitting_modes`): no
constraints here. The family owns the binding lines and the what-if. A copy on several cards is
blamed on memory only when no fewer cards of that kind hold it; when fewer would and the run has a
deadline, the deadline put it on more cards, and the line says so (a small LoRA that fits one card
with a deadline that needs four is the deadline's, not memory's). The what-if allows the
catalogue's cards with more memory than any the bid allows.
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Assignment, Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat.family import Family, Relaxation
from ftopt.solver.problem.data import ProblemData, build_problem
from ftopt.solver.problem.modes import fitting_modes


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """One line per run whose copies use several cards of their own choosing (`gpus: auto`)."""
    lines, seen = list[Finding](), set()
    index = {p.run.name: i for i, p in enumerate(data.profiles)}
    cards = {s.id: s.gpu for s in plan.servers}  # by id once: a scan per copy was quadratic
    for a in plan.assignments:
        run = data.profiles[index[a.run]].run
        if run.gpus == "auto" and a.gpu_count > 1 and a.run not in seen:
            seen.add(a.run)
            lines.append(_line(data, index[a.run], a, cards[a.server]))
    return lines


def _line(data: ProblemData, run_index: int, a: Assignment, gpu: str) -> Finding:
    """Memory's line, or the deadline's where fewer cards of the kind would hold the copy."""
    run = data.profiles[run_index].run
    fewest = _fewest_cards(data, run_index, gpu, a.multinode) if run.deadline_hours is not None else None
    if run.deadline_hours is not None and fewest is not None and fewest < a.gpu_count:
        return finding(
            FindingKind.DEADLINE_BOUND,
            a.run,
            deadline_hours=run.deadline_hours,
            gpus=a.gpu_count,
            gpu=gpu,
            fewest_gpus=fewest,
        )
    return finding(
        FindingKind.MULTI_GPU,
        a.run,
        gpus=a.gpu_count,
        gpu=gpu,
        strategy=a.strategy.value,
        per_gpu_gb=a.memory_per_gpu_gb.total,
    )


def _fewest_cards(data: ProblemData, run_index: int, gpu_id: str, spans: bool) -> int | None:
    """The fewest cards of this kind whose memory holds a copy of the run, deadline aside: on one
    server from its sizings; for a copy over several servers, from the modes of the run alone
    without its deadline (the multi-node options are sized with the servers they span)."""
    profile = data.profiles[run_index]
    if not spans:
        modes = fitting_modes(run_index, profile, data.catalogue.gpu(gpu_id), data.workload.sizing)
        return min((m.gpus for m in modes), default=None)
    run = profile.run.model_copy(update={"deadline_hours": None})
    alone = build_problem(data.workload.model_copy(update={"runs": (run,)}), data.catalogue)
    return min((m.gpus for m in alone.modes if m.gpu == gpu_id), default=None)


def relax(data: ProblemData) -> list[Relaxation]:
    """The bid allowing, besides its cards, every card of the catalogue with more memory than the
    largest it allows: offered only where memory binds (some run fits no allowed card, or needs
    several of each), none when it allows every card or already the largest. A larger card is often
    also a faster one; offering it where memory does not bind would credit memory with a saving
    that speed made."""
    workload = data.workload
    allowed = workload.hardware.gpus
    if allowed is None or not _memory_binds(data):
        return []
    largest = max((g.memory_gb for g in data.catalogue.gpus if g.id in allowed), default=0.0)
    larger = [g.id for g in data.catalogue.gpus if g.memory_gb > largest and g.id not in allowed]
    if not larger:
        return []
    hardware = workload.hardware.model_copy(update={"gpus": (*allowed, *larger)})
    words = f"a card with more memory ({', '.join(larger)})"
    return [Relaxation(RelaxationId.MEMORY, words, workload.model_copy(update={"hardware": hardware}))]


def _memory_binds(data: ProblemData) -> bool:
    """Whether some run has no way of training at all, or (choosing its own card count) none on one
    card: with the deadline set aside, so that a run a deadline spreads is not counted."""
    cards = [g for g in data.catalogue.gpus if g.id in (data.workload.hardware.gpus or ())]
    for r, profile in enumerate(data.profiles):
        modes = [data.modes[m] for m in data.modes_of(r)]
        if not modes:
            return True
        if profile.run.gpus != "auto" or min(m.gpus for m in modes) == 1:
            continue
        sizing = data.workload.sizing
        if not any(m.gpus == 1 for gpu in cards for m in fitting_modes(r, profile, gpu, sizing)):
            return True
    return False


Memory = Family(
    name="memory",
    relaxations=(RelaxationId.MEMORY,),
    verifier_rules=("gpu-memory", "memory-margin"),
    workload_fields=("hardware.gpus", "runs[].gpus", "sizing.memory_margin"),
    catalogue_fields=("gpus[].memory_gb",),
    relax=relax,
    explain=explain,
)
