"""Rule failures: each copy's checkpoint interval, interruptions and hours with failures, re-derived."""

from __future__ import annotations

import math

from ftopt.verify import failures


def test_the_deadline_plan_states_its_failure_figures_as_re_derived(solved) -> None:
    c = solved("deadline")
    (copy,) = [a for a in c.plan.assignments if a.run == "llama70b-lora"][:1]
    assert copy.hours is not None and copy.hours_with_failures is not None
    assert copy.hours < copy.hours_with_failures < copy.hours * 1.05
    # Young/Daly: the interval is √(2 × write × MTBF), MTBF = 1 / (1.97e-5 × GPUs)
    mtbf = 1 / (1.97e-5 * copy.gpu_count)
    write_h = (copy.checkpoint_write_s or 0) / 3600
    assert math.isclose(copy.checkpoint_interval_h or 0, math.sqrt(2 * write_h * mtbf), rel_tol=1e-2)
    assert "failures" not in c.rules()


def test_misstated_hours_with_failures_or_a_missing_interval(solved) -> None:
    c = solved("deadline")
    a = c.plan.assignments[0]
    assert "failures" in c.rules(c.with_assignment(a.run, a.copy_, hours_with_failures=a.hours))
    assert "failures" in c.rules(c.with_assignment(a.run, a.copy_, checkpoint_interval_h=None))
    assert "failures" in c.rules(c.with_assignment(a.run, a.copy_, expected_interruptions=1.0))


def test_the_failure_rules_alone_find_misstated_hours(solved) -> None:
    c = solved("deadline")
    a = c.plan.assignments[0]
    assert c.alone(failures) == set()
    assert c.alone(failures, c.with_assignment(a.run, a.copy_, hours_with_failures=a.hours)) == {"failures"}
