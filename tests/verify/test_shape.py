"""The plan's shape (`ftopt.verify.shape`): figures that come together are stated together, a copy
states what its like states, and a summary is the one the plan's own figures give."""

from __future__ import annotations

from ftopt.model.summary import summarize
from ftopt.verify.shape import shape_faults


def _fields(c, plan, summary=None) -> list[str]:
    return [e.field for e in shape_faults(plan, summary, c.workload, c.catalogue, ("plan.json", None))]


def test_a_solved_plan_and_its_summary_have_their_shape(solved) -> None:
    c = solved("mig")
    summary = summarize(c.plan, c.workload, c.catalogue).model_dump(mode="json")
    assert _fields(c, c.plan, summary) == []


def test_a_figure_nulled_on_one_copy_is_named(solved) -> None:
    c = solved("mig")
    assert _fields(c, c.with_assignment("q8-qlora", 2, headroom_gb=None)) == ["assignments[1].headroom_gb"]
    assert _fields(c, c.with_assignment("q8-qlora", 1, micro_batch=None)) == ["assignments[0].micro_batch"]


def test_a_summary_other_than_the_plans_is_named_field_by_field(solved) -> None:
    c = solved("mig")
    summary = summarize(c.plan, c.workload, c.catalogue).model_dump(mode="json")
    summary["servers"] = 99
    summary["runs"][0]["copies"] = None
    assert _fields(c, c.plan, summary) == ["summary.runs[0].copies"]  # strict validation first
    summary["runs"][0]["copies"] = 8
    assert _fields(c, c.plan, summary) == ["summary.servers"]


def test_older_plans_are_not_held_to_version_3(solved) -> None:
    c = solved("mig")
    older = c.with_assignment("q8-qlora", 1, micro_batch=None).model_copy(update={"schema_version": 2})
    assert _fields(c, older) == []
