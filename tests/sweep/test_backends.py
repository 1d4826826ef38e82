"""Local worker processes and Ray give the same answers, and a killed worker loses no scenario."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from ftopt.sweep import backends
from ftopt.sweep.backends import MAX_RAY_BATCH, RAY_TASKS_PER_CPU, LocalBackend, RayBackend, ray_batches
from ftopt.sweep.runner import run_sweep, with_deadline
from ftopt.sweep.scenario import CRASH_ENV, FAILED, NOT_RUN
from tests.sweep.support import lines, outcome, six_scenarios


def crash(monkeypatch: pytest.MonkeyPatch, folder: Path, key: str, times: int) -> None:
    """Make the worker of scenario `key` die (`os._exit`) on its first `times` attempts."""
    monkeypatch.setenv(CRASH_ENV, key)
    monkeypatch.setenv(f"{CRASH_ENV}_DIR", str(folder))
    monkeypatch.setenv(f"{CRASH_ENV}_TIMES", str(times))


def test_a_killed_worker_loses_nothing_and_duplicates_nothing(tmp_path: Path, monkeypatch):
    plan = six_scenarios(tmp_path)
    victim = plan.scenarios[2]
    crash(monkeypatch, tmp_path, victim.key, times=1)
    output = tmp_path / "results.jsonl"
    summary = run_sweep(plan, output, LocalBackend(2))
    written = lines(output)
    assert sorted(r["key"] for r in written) == sorted(s.key for s in plan.scenarios)  # each once
    assert len(list(tmp_path.glob(f"{victim.key}.*"))) == 1  # it did die once
    assert FAILED not in summary.statuses
    again = next(r for r in written if r["key"] == victim.key)
    assert again["status"] in ("optimal", "feasible") and again["plan"] is not None


def test_a_scenario_that_kills_every_worker_is_recorded_as_failed_with_the_reason(
    tmp_path: Path, monkeypatch
):
    plan = six_scenarios(tmp_path)
    victim = plan.scenarios[0]
    crash(monkeypatch, tmp_path, victim.key, times=99)
    output = tmp_path / "results.jsonl"
    summary = run_sweep(plan, output, LocalBackend(2, max_attempts=2))
    written = {r["key"]: r for r in lines(output)}
    assert len(written) == len(lines(output)) == 6
    assert written[victim.key]["status"] == FAILED
    assert "worker died on each of 2 attempts" in written[victim.key]["error"]
    assert len(list(tmp_path.glob(f"{victim.key}.*"))) == 2
    assert summary.statuses[FAILED] == 1
    assert all(r["status"] != FAILED for k, r in written.items() if k != victim.key)


def test_a_rerun_skips_finished_scenarios(tmp_path: Path):
    plan = six_scenarios(tmp_path)
    output = tmp_path / "results.jsonl"
    first = lines(output) if output.exists() else []
    assert first == []
    # a file holding three finished scenarios, as a stopped sweep leaves it
    run_sweep(plan.__class__(plan.context, plan.grid, plan.scenarios[:3]), output, LocalBackend(1))
    summary = run_sweep(plan, output, LocalBackend(2))
    assert summary.skipped == 3 and summary.solved == 3
    assert sorted(r["key"] for r in lines(output)) == sorted(s.key for s in plan.scenarios)


@pytest.fixture(scope="module")
def ray_cluster():
    """A local two-CPU Ray, as `ftopt sweep --ray auto` would join it."""
    import ray  # in the test extra: CI runs this test, never skips it

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_and_local_workers_give_the_same_answers_and_ray_retries_a_dead_worker(
    ray_cluster, tmp_path: Path, monkeypatch
):
    plan = six_scenarios(tmp_path)
    victim = plan.scenarios[4].key
    crash(monkeypatch, tmp_path, victim, times=1)
    ray_file = tmp_path / "ray.jsonl"
    summary = run_sweep(plan, ray_file, RayBackend(max_attempts=3))
    assert summary.solved == 6 and FAILED not in summary.statuses
    assert len(list(tmp_path.glob(f"{victim}.*"))) == 1  # the worker died once; Ray ran the task again
    monkeypatch.delenv(CRASH_ENV)
    local_file = tmp_path / "local.jsonl"
    run_sweep(plan, local_file, LocalBackend(2))
    by_ray = {r["key"]: outcome(r) for r in lines(ray_file)}
    by_pool = {r["key"]: outcome(r) for r in lines(local_file)}
    assert len(by_ray) == len(lines(ray_file)) == 6
    assert by_ray == by_pool
    assert Counter(price is not None for _, price, _ in by_pool.values()) == {True: 5, False: 1}


def test_ray_batches_cover_every_scenario_once_in_order_with_several_tasks_per_cpu():
    keys = list(range(1000))
    batches = ray_batches(keys, cpus=2)  # type: ignore[arg-type]
    assert [k for batch in batches for k in batch] == keys
    assert {len(b) for b in batches[:-1]} == {MAX_RAY_BATCH} and len(batches) >= 2 * RAY_TASKS_PER_CPU
    few = ray_batches(keys[:6], cpus=2)  # type: ignore[arg-type]
    assert [len(b) for b in few] == [1] * 6  # fewer scenarios than tasks wanted: one each


def test_a_ray_batch_whose_worker_dies_reruns_its_scenarios_alone_and_fails_only_the_culprit(
    ray_cluster, tmp_path: Path, monkeypatch
):
    monkeypatch.setattr(backends, "RAY_TASKS_PER_CPU", 1)  # six scenarios on 2 CPUs: batches of 3
    plan = six_scenarios(tmp_path)
    assert [len(b) for b in ray_batches(plan.scenarios, 2)] == [3, 3]
    victim = plan.scenarios[1].key
    crash(monkeypatch, tmp_path, victim, times=99)
    output = tmp_path / "ray.jsonl"
    summary = run_sweep(plan, output, RayBackend(max_attempts=2))
    written = {r["key"]: r for r in lines(output)}
    assert len(written) == len(lines(output)) == 6
    assert written[victim]["status"] == FAILED
    assert "worker died on each of 2 attempts" in written[victim]["error"]
    assert len(list(tmp_path.glob(f"{victim}.*"))) == 2  # once in its batch, once alone
    assert summary.statuses[FAILED] == 1  # its batch-mates were solved again, alone


def test_no_worker_starts_a_scenario_after_the_budget_is_spent(tmp_path: Path, monkeypatch) -> None:
    plan = with_deadline(six_scenarios(tmp_path), time.time() - 60)  # started a minute ago, 20 s limit
    submitted: list[str] = []
    monkeypatch.setattr(backends.ProcessPoolExecutor, "submit", lambda *a, **k: submitted.append("x"))
    output = tmp_path / "results.jsonl"
    summary = run_sweep(plan, output, LocalBackend(2))
    assert submitted == [] and summary.statuses == Counter({NOT_RUN: 6})
    assert {r["status"] for r in lines(output)} == {NOT_RUN}
