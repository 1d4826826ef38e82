"""The notes every plan carries, and the quote's price-list header."""

from __future__ import annotations

from ftopt.solver.decode.notes import plan_notes, price_list_summary
from tests.solver.decode.figures import timed_plan
from tests.solver.tiny import catalogue


def test_the_price_list_summary_names_the_currency() -> None:
    assert price_list_summary(catalogue()).startswith(catalogue().currency)


def test_every_plan_states_its_rules_and_only_runs_with_spares_get_a_spares_note() -> None:
    data, plan = timed_plan()
    notes = plan_notes(data, plan.assignments)
    assert notes == plan.notes
    assert {n.subject for n in notes} >= {"host", "power", "memory", "step-time"}
    assert "spares" not in {n.subject for n in notes}
