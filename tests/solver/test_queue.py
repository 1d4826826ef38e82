"""Queue mode: every job inside its window and the horizon, on fewer servers than the peak bid."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ftopt.model.findings import FindingKind
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.workload import Workload
from ftopt.solver.decode.queue import attach_schedule
from ftopt.solver.problem.data import build_problem
from ftopt.solver.problem.queue import peak_workload, queue_problem
from ftopt.solver.search.queue import with_bound
from ftopt.solver.search.queue_greedy import greedy_queue, repair_fleet
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan
from tests.solver.conftest import workload_from

#: Twelve 8B LoRA jobs of ~98 h on an H200 (~180 h on an RTX PRO 6000) in a month: far fewer GPUs
#: than twelve at once.
MONTH = """
queue: {horizon_hours: 720}
runs:
  - {name: lora, model: llama-3.1-8b, method: lora, jobs: 12, train_tokens: 2000000000}
  - {name: late, model: qwen3-32b, method: qlora, jobs: 4, train_tokens: 500000000,
     release_hours: 168, deadline_hours: 504}
site: {feed: 230v-32a, inlet_c: 27}
hardware: {gpus: [rtx-pro-6000-se, h200-nvl]}
"""


@pytest.fixture(scope="module")
def month(catalogue: Catalogue) -> tuple[Workload, Plan]:
    workload = workload_from(MONTH)
    return workload, solve(workload, catalogue, SolveSettings(time_limit=30, workers=2)).plan_or_raise()


def test_queue_plan_is_proven_and_verified(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    assert plan.status == Status.OPTIMAL
    assert verify_plan(plan, workload, catalogue) == []
    assert plan.horizon_hours == 720
    assert len(plan.schedule) == len(plan.assignments) == 16


def test_queue_bid_is_below_the_peak_bid(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    # Queue mode plans whole cards; so does the peak bid it is compared with (no GPU slices).
    peak_bid = peak_workload(workload)
    whole = peak_bid.model_copy(update={"sizing": peak_bid.sizing.model_copy(update={"mig": False})})
    peak = solve(whole, catalogue, SolveSettings(time_limit=30, workers=2)).plan_or_raise()
    assert plan.total_price < peak.total_price
    assert sum(s.gpu_count for s in plan.servers) < 16 <= sum(s.gpu_count for s in peak.servers)


def test_every_job_lies_in_its_window(month: tuple[Workload, Plan]) -> None:
    _, plan = month
    late = [j for j in plan.schedule if j.run == "late"]
    assert len(late) == 4
    assert all(j.start_hours >= 168 and j.end_hours <= 504 for j in late)
    assert all(0 <= j.start_hours < j.end_hours <= 720 for j in plan.schedule)


def test_the_peak_workload_runs_every_job_at_once() -> None:
    peak = peak_workload(workload_from(MONTH))
    assert peak.queue is None
    assert [(r.concurrent, r.deadline_hours, r.jobs) for r in peak.runs] == [(12, 720, None), (4, 336, None)]


@pytest.mark.parametrize("fleet", ["one build", "two builds from one server each"])
def test_greedy_schedule_keeps_windows_and_gpus_apart(catalogue: Catalogue, fleet: str) -> None:
    workload = workload_from(MONTH)
    qp = queue_problem(build_problem(peak_workload(workload), catalogue), workload)
    plan = greedy_queue(qp) if fleet == "one build" else repair_fleet(qp, {qp.builds[0]: 1, qp.builds[-1]: 1})
    assert plan is not None
    assert sum(qp.jobs) == len(plan.jobs)
    held: dict[tuple[int, int, int], list[tuple[int, int]]] = {}
    for job, server, first in plan.jobs:
        early, late = qp.windows[job.run]
        end = job.start + job.option.minutes
        assert early <= job.start and end <= late
        assert server < plan.fleet[job.option.build]
        for card in range(first, first + job.option.gpus):
            for a, b in held.get((job.option.build, server, card), []):
                assert end <= a or b <= job.start, "two jobs on one card at once"
            held.setdefault((job.option.build, server, card), []).append((job.start, end))


def test_a_window_shorter_than_any_job_is_infeasible(catalogue: Catalogue) -> None:
    workload = workload_from(MONTH.replace("deadline_hours: 504", "deadline_hours: 170"))
    result = solve(workload, catalogue, SolveSettings(time_limit=10, workers=2))
    assert result.status == Status.INFEASIBLE
    deadlines = [r.subject for r in result.reasons if r.kind == FindingKind.DEADLINE]
    assert deadlines == ["late"]  # inlet findings may come with it, as context


def test_an_inlet_no_card_allows_is_infeasible_with_the_reason(catalogue: Catalogue) -> None:
    """Issue 26: this ended as "no plan in time" (exit 4) after 0.03 s."""
    workload = workload_from(MONTH.replace("inlet_c: 27", "inlet_c: 45"))
    result = solve(workload, catalogue, SolveSettings(time_limit=10, workers=2))
    assert result.status == Status.INFEASIBLE
    assert {r.kind for r in result.reasons} == {FindingKind.INLET}
    assert {r.subject for r in result.reasons} == {"rtx-pro-6000-se", "h200-nvl"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"queue": None}, "queue mode only"),
        ({"concurrent": 2}, "give jobs"),
        ({"train_tokens": None}, "train_tokens"),
        ({"release_hours": 800}, "no time before"),
    ],
)
def test_queue_fields_are_checked(change: dict[str, object], message: str) -> None:
    data: dict[str, object] = {
        "queue": {"horizon_hours": 720},
        "runs": [{"name": "a", "model": "llama-3.1-8b", "method": "lora", "jobs": 2, "train_tokens": 10**9}],
    }
    run = dict(data["runs"][0])  # type: ignore[index]
    if "queue" in change:
        data.pop("queue")
    else:
        run.update(change)
        run = {k: v for k, v in run.items() if v is not None}
    data["runs"] = [run]
    with pytest.raises(ValueError, match=message):
        Workload.model_validate(data)


def test_queue_mode_keeps_the_racks_and_uses_the_owned_server(catalogue: Catalogue) -> None:
    """All 28 jobs at once need more than the two racks' 8 U; over the month, each job scheduled on
    its P90 hours with failures (about 1.7 × its bare hours), two servers do, one of them the owned
    one, each on a circuit of a rack (the same racks and stock families as the peak)."""
    path = Path(__file__).resolve().parents[2] / "examples" / "queue-racks-owned.yaml"
    workload = Workload.model_validate(yaml.safe_load(path.read_text()))
    quick = SolveSettings(time_limit=60, workers=2, what_if=False)  # the P90 queue is harder to prove
    # Queue mode plans whole cards; so does the peak bid it is compared with (no GPU slices).
    at_once = peak_workload(workload)
    whole = at_once.model_copy(update={"sizing": at_once.sizing.model_copy(update={"mig": False})})
    peak = solve(whole, catalogue, quick)
    assert peak.status == Status.INFEASIBLE and "racks offer" in peak.reasons[0].text
    plan = solve(workload, catalogue, quick).plan_or_raise()
    assert plan.status == Status.OPTIMAL and verify_plan(plan, workload, catalogue) == []
    assert sorted(s.owned for s in plan.servers) == [False, True]
    assert all(s.rack in {"a", "b"} for s in plan.servers)
    assert [s.price for s in plan.servers if s.owned] == [0.0]


def test_the_schedule_is_each_copy_from_its_start_for_its_hours(
    month: tuple[Workload, Plan], catalogue: Catalogue
) -> None:
    workload, plan = month
    starts = {(j.run, j.job): j.start_hours for j in plan.schedule}
    bare = plan.model_copy(update={"schedule": [], "horizon_hours": None})
    again = attach_schedule(bare, workload, starts)
    assert again.schedule == plan.schedule and again.horizon_hours == workload.queue.horizon_hours  # type: ignore[union-attr]
    # Each job lasts its P90 hours with failures (the workload's default deadline confidence), at its
    # stack's P90 factor (spread.yaml: the stack's own with three sources, else pooled).
    copies = {(a.run, a.copy_): a for a in plan.assignments}
    stacks = {r.name: r.stack for r in plan.runs}
    assert catalogue.spread is not None
    for j in again.schedule:
        a = copies[j.run, j.job]
        p90 = catalogue.spread.of(stacks[j.run]).p90
        assert a.hours is not None and a.hours_with_failures is not None and a.hours_p90 is not None
        assert a.hours < a.hours_with_failures
        assert a.hours_p90 == pytest.approx(a.hours_with_failures * p90, rel=1e-5)
        assert j.end_hours == pytest.approx(j.start_hours + a.hours_p90, abs=2e-6)


def test_a_schedule_on_bare_hours_is_caught(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    """The verifier holds each job to its P90 hours: the same schedule on the speed model's bare
    hours (what a queue planned before deadline confidence reached it) breaks the duration rule."""
    workload, plan = month
    copies = {(a.run, a.copy_): a for a in plan.assignments}
    bare = [
        j.model_copy(update={"end_hours": round(j.start_hours + (copies[j.run, j.job].hours or 0.0), 6)})
        for j in plan.schedule
    ]
    faults = verify_plan(plan.model_copy(update={"schedule": bare}), workload, catalogue)
    durations = [v for v in faults if v.rule == "duration"]
    assert len(durations) == len(bare) and all("at P90 with failures" in v.allowed for v in durations)


def test_a_queue_at_p50_schedules_shorter_jobs(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    """`deadline_confidence: 0.5` schedules each job on its P50 hours, verified, and its last job ends
    no later than at P90."""
    workload, plan = month
    at_p50 = workload.model_copy(
        update={"runs": tuple(r.model_copy(update={"deadline_confidence": 0.5}) for r in workload.runs)}
    )
    p50 = solve(at_p50, catalogue, SolveSettings(time_limit=30, workers=2)).plan_or_raise()
    assert verify_plan(p50, at_p50, catalogue) == []
    copies = {(a.run, a.copy_): a for a in p50.assignments}
    for j in p50.schedule:
        assert j.end_hours - j.start_hours == pytest.approx(copies[j.run, j.job].hours_p50 or 0.0, abs=2e-6)
    assert p50.total_price <= plan.total_price
    assert verify_plan(plan, at_p50, catalogue) != []  # a P90 schedule is not a P50 one


def test_the_bound_sets_the_gap_and_the_status_it_proves(month: tuple[Workload, Plan]) -> None:
    _, plan = month
    price = plan.total_price
    assert with_bound(plan, None).status == Status.FEASIBLE and with_bound(plan, None).gap is None
    proven = with_bound(plan, price)
    assert (proven.status, proven.gap, proven.bound) == (Status.OPTIMAL, 0.0, price)
    open_ = with_bound(plan, 0.9 * price)
    assert open_.status == Status.FEASIBLE and open_.gap == pytest.approx(0.1, abs=1e-6)
    assert with_bound(plan, 2 * price).bound == price  # a bound above the plan is the plan


def test_queue_options_are_whole_cards(catalogue: Catalogue) -> None:
    """The peak bid's data offers sliced (MIG) builds; the queue's interval model holds one job per
    card, so its options leave them out (a job dealt to slot 2 of a sliced card was decoded onto
    card 1, and the plan's copies no longer followed its servers)."""
    workload = workload_from(MONTH)
    data = build_problem(peak_workload(workload), catalogue)
    assert any(b.mig is not None for b in data.builds)
    qp = queue_problem(data, workload)
    assert all(data.builds[o.build].mig is None for options in qp.options for o in options)
    assert all(options for options in qp.options)


def test_a_queue_plans_makespan_is_its_last_jobs_end(month: tuple[Workload, Plan]) -> None:
    """`makespan_hours` of a queue plan was its longest job's hours (98 h where the schedule ends at
    626 h): a queue trains until its last job ends."""
    _, plan = month
    longest = max(a.hours_p90 or 0.0 for a in plan.assignments)
    assert plan.makespan_hours == max(j.end_hours for j in plan.schedule) == plan.last_job_end_hours
    assert plan.makespan_hours > longest


def test_a_queue_plan_is_finished_like_a_peak_plan(catalogue: Catalogue) -> None:
    """The queue path re-implemented finishing: its plans had no binding rules and no savings. With
    one server allowed the limit binds; each saving re-solves the queue bid eased (a peak re-solve,
    every job at once, would cost more than the queue plan it is set against, never less)."""
    bid = MONTH.replace("inlet_c: 27}", "inlet_c: 27, max_servers: 1}")
    settings = SolveSettings(time_limit=30, workers=2, what_if=True)
    plan = solve(workload_from(bid), catalogue, settings).plan_or_raise()
    free = solve(workload_from(MONTH), catalogue, settings).plan_or_raise()
    assert plan.horizon_hours == 720 and len(plan.servers) == 1
    assert FindingKind.SERVER_LIMIT in {b.kind for b in plan.binding}
    eased = [s.figures["eased_price"] for s in plan.savings]
    assert eased and all(0 < e < plan.total_price for e in eased)  # queue against queue
    assert free.total_price <= plan.total_price
    assert plan.budget is not None and plan.budget.shares["what-if re-solves"] > 0
    assert plan.budget.limit_s == 30 and plan.budget.shares["search"] <= 30


def test_the_queue_search_never_calls_back_into_the_solve() -> None:
    """The solve passed itself into the queue search (solve → queue → solve …): the data walk now
    goes down the layers, so neither strategy imports the solve."""
    import ast

    for module in ("queue", "peak"):
        path = Path(__file__).resolve().parents[2] / "ftopt" / "solver" / "search" / f"{module}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "ftopt.solver.solve" not in imported and "ftopt.solver.frontier" not in imported, module
