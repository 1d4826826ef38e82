"""Rule spread and the deadline at a confidence: each copy's P50/P90 hours are re-derived (with
failures on its servers' drives, one server or several), and a deadline holds for the hours at the workload's
deadline confidence, not the speed model's bare figure."""

from __future__ import annotations

import pytest

from ftopt.model.workload import Workload


def test_p50_and_p90_are_the_hours_with_failures_times_the_stacks_factors(solved) -> None:
    """A single-server copy's failures count too: its P50/P90 carry its checkpoints and lost work."""
    c = solved("deadline")
    spread = c.catalogue.spread
    assert spread is not None
    for a in c.plan.assignments:
        factors = spread.of("hf-fsdp")
        assert a.hours is not None and not a.multinode
        assert a.hours_with_failures is not None and a.hours_with_failures > a.hours
        assert a.hours_p50 == pytest.approx(a.hours_with_failures * factors.p50, rel=1e-6)
        assert a.hours_p90 == pytest.approx(a.hours_with_failures * factors.p90, rel=1e-6)
        assert a.spread_basis == factors.basis
    assert "spread" not in c.rules() and "deadline" not in c.rules()


def test_a_copy_over_several_servers_counts_its_failures_in_p50_and_p90(solved) -> None:
    c = solved("grpo-multinode")
    (a,) = [a for a in c.plan.assignments if a.multinode][:1]
    assert a.hours_with_failures is not None and a.hours is not None
    assert a.hours_with_failures > a.hours
    factors = c.catalogue.spread.of(c.workload.runs[0].stack) if c.catalogue.spread else None
    assert factors is not None
    assert a.hours_p90 == pytest.approx(a.hours_with_failures * factors.p90, rel=1e-5)
    assert "spread" not in c.rules()


def test_misstated_or_missing_p90_hours(solved) -> None:
    c = solved("deadline")
    a = c.plan.assignments[0]
    assert a.hours is not None and a.hours_p90 is not None
    assert "spread" in c.rules(c.with_assignment(a.run, a.copy_, hours_p90=a.hours))
    spread = c.catalogue.spread.of("hf-fsdp") if c.catalogue.spread else None
    assert spread is not None  # P90 without the single server's failures is caught
    bare = round(a.hours * spread.p90, 6)
    assert bare < a.hours_p90 - 1e-4
    assert "spread" in c.rules(c.with_assignment(a.run, a.copy_, hours_p90=bare))
    assert "spread" in c.rules(c.with_assignment(a.run, a.copy_, hours_p50=None))


def _with_confidence(workload: Workload, confidence: float, deadline: float) -> Workload:
    data = workload.model_dump()
    data["deadline_confidence"] = confidence
    for run in data["runs"]:
        run["deadline_confidence"] = None
        if run["deadline_hours"] is not None:
            run["deadline_hours"] = deadline
    return Workload.model_validate(data)


def test_a_deadline_between_the_p50_and_p90_hours_holds_only_at_p50(solved) -> None:
    c = solved("deadline")
    a = next(a for a in c.plan.assignments if a.run == "llama70b-lora")
    assert a.hours_p50 is not None and a.hours_p90 is not None
    between = (a.hours_p50 + a.hours_p90) / 2
    assert "deadline" not in c.rules(workload=_with_confidence(c.workload, 0.5, between))
    assert "deadline" in c.rules(workload=_with_confidence(c.workload, 0.9, between))
    # the bare speed-model hours meet it: the failure-free P50-like check this rule replaced
    assert a.hours <= between


def test_the_verifiers_own_derivation_matches_the_plan_and_keeps_bare_hours_without_a_confidence(
    solved,
) -> None:
    """`ftopt.verify.spread.confident_hours` re-derives P90 from the stated hours; a run without a
    confidence (a queue's jobs as one peak bid) is held to its bare hours."""
    from ftopt.verify.context import Context
    from ftopt.verify.spread import confident_hours

    c = solved("deadline")
    ctx = Context.build(c.plan, c.workload, c.catalogue)
    a = next(a for a in c.plan.assignments if a.run == "llama70b-lora")
    run = ctx.runs[a.run]
    assert a.hours is not None and a.hours_p90 is not None
    assert confident_hours(ctx, a, run, a.hours, 0.9) == pytest.approx(a.hours_p90, rel=1e-6)
    assert confident_hours(ctx, a, run, a.hours, None) == a.hours
