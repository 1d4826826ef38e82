"""A queue plan's schedule: hand-broken plans fail the rule that guards each promise."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, ScheduledJob
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import placement, schedule, verify_plan
from tests.solver.conftest import workload_from
from tests.solver.test_queue import MONTH
from tests.verify.conftest import rules_of


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="module")
def month(catalogue: Catalogue) -> tuple[Workload, Plan]:
    workload = workload_from(MONTH)
    plan = solve(workload, catalogue, SolveSettings(time_limit=30, workers=2)).plan_or_raise()
    return workload, Plan.model_validate_json(plan.to_json())  # as a user's file reads back


def _with_job(plan: Plan, index: int, **update: object) -> Plan:
    schedule = list(plan.schedule)
    schedule[index] = schedule[index].model_copy(update=update)
    return plan.model_copy(update={"schedule": schedule})


def _rules(plan: Plan, workload: Workload, catalogue: Catalogue) -> list[str]:
    return [str(v) for v in verify_plan(plan, workload, catalogue)]


def test_the_solved_queue_plan_is_clean(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    assert _rules(plan, workload, catalogue) == []


def test_two_jobs_on_one_gpu_at_once(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    first = plan.schedule[0]
    other = next(
        j for j in plan.schedule if (j.server, j.gpus) == (first.server, first.gpus) and j is not first
    )
    # Move the later job onto the first one's hours, keeping its length: they now overlap.
    length = other.end_hours - other.start_hours
    index = plan.schedule.index(other)
    broken = _with_job(plan, index, start_hours=first.start_hours, end_hours=first.start_hours + length)
    found = [r for r in _rules(broken, workload, catalogue) if r.startswith("gpu-shared")]
    assert len(found) == 1 and "one job per GPU at a time" in found[0]
    # Each module alone: the placement rules own the sharing; the schedule's own rules see the job
    # only when the move puts it before its run's release (a 'late' job, released at 168 h).
    assert rules_of(placement, broken, workload, catalogue) == {"gpu-shared"}
    release = next(r.release_hours or 0.0 for r in workload.runs if r.name == other.run)
    early = first.start_hours < release
    assert rules_of(schedule, broken, workload, catalogue) == ({"window"} if early else set())


def test_a_job_before_its_release(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    index = next(i for i, j in enumerate(plan.schedule) if j.run == "late")
    job = plan.schedule[index]
    broken = _with_job(plan, index, start_hours=job.start_hours - 168, end_hours=job.end_hours - 168)
    found = _rules(broken, workload, catalogue)
    assert any(
        r.startswith(f"window: run late job {job.job}: starts at") and "released at 168 h" in r for r in found
    )


def test_a_job_past_its_deadline_and_the_horizon(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    late = next(i for i, j in enumerate(plan.schedule) if j.run == "late")
    lora = next(i for i, j in enumerate(plan.schedule) if j.run == "lora")
    shift = {"start_hours": 700.0, "end_hours": 700.0}
    broken = _with_job(_with_job(plan, late, **shift), lora, **shift)
    for index, limit in ((late, "its deadline is 504 h"), (lora, "the horizon ends 720 h")):
        job = broken.schedule[index]
        length = plan.schedule[index].end_hours - plan.schedule[index].start_hours
        broken = _with_job(broken, index, end_hours=job.start_hours + length)
        assert any(r.startswith("window") and limit in r for r in _rules(broken, workload, catalogue))


def test_a_job_shorter_than_the_speed_model(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    job = plan.schedule[0]
    broken = _with_job(plan, 0, end_hours=job.start_hours + (job.end_hours - job.start_hours) / 2)
    found = [r for r in _rules(broken, workload, catalogue) if r.startswith("duration")]
    assert len(found) == 1
    assert found[0].startswith(f"duration: run {job.run} job {job.job}: ")
    assert "h scheduled, " in found[0] and "h at P90 with failures" in found[0]  # not the bare hours


def test_a_job_without_an_entry_or_on_other_gpus(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    dropped = plan.model_copy(update={"schedule": plan.schedule[1:]})
    assert any(
        r.startswith("schedule") and "0 schedule entries" in r for r in _rules(dropped, workload, catalogue)
    )
    job = plan.schedule[0]
    moved = _with_job(plan, 0, gpus=[(job.gpus[0] + 1) % 4])
    assert any("its assignment trains on" in r for r in _rules(moved, workload, catalogue))


def test_a_peak_plan_must_not_carry_a_schedule(month: tuple[Workload, Plan], catalogue: Catalogue) -> None:
    workload, plan = month
    stray = ScheduledJob(run="lora", job=1, server="s1", gpus=[0], start_hours=0, end_hours=1)
    peak_workload = workload.model_copy(update={"queue": None})
    assert "schedule" in {
        v.rule for v in verify_plan(plan.model_copy(update={"schedule": [stray]}), peak_workload, catalogue)
    }
