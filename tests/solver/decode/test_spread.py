"""Each copy's hours at P50 and P90, from its hours with failures and its stack's spread."""

from __future__ import annotations

from ftopt.solver.decode.spread import SpreadInput, p90_without_spares, with_spread
from tests.solver.decode.figures import timed_plan


def test_every_copy_states_p50_below_p90_from_its_stacks_spread() -> None:
    data, plan = timed_plan()
    spread = SpreadInput.of(data.catalogue.spread, data.profiles)
    assert set(spread.stacks) == {"one", "two"}
    for a in plan.assignments:
        assert a.hours_p50 is not None and a.hours_p90 is not None and a.hours_p50 < a.hours_p90
        bare = a.model_copy(update={"hours_p50": None, "hours_p90": None, "spread_basis": None})
        assert with_spread(spread, bare) == a


def test_without_spread_data_or_spares_there_is_no_figure() -> None:
    data, plan = timed_plan()
    a = plan.assignments[0]
    none = SpreadInput(None, {})
    bare = a.model_copy(update={"hours_p50": None, "hours_p90": None, "spread_basis": None, "bands": None})
    assert with_spread(none, bare) == bare
    spread = SpreadInput.of(data.catalogue.spread, data.profiles)
    assert not a.spares and p90_without_spares(spread, a, 0.1) is None
    spared = a.model_copy(update={"spares": ["s9"]})
    more = p90_without_spares(spread, spared, 2 * (a.failure_overhead or 0.0))
    assert more is not None and a.hours_p90 is not None and more > a.hours_p90
