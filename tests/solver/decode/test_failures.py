"""Each copy's failure figures, from its own hours, GPUs, checkpoint and its servers' drives."""

from __future__ import annotations

from ftopt.model.plan import Node
from ftopt.solver.decode.failures import FailureInput, with_failures
from ftopt.solver.decode.spread import SpreadInput
from tests.solver.decode.figures import timed_plan

FIELDS = ("checkpoint_interval_h", "expected_interruptions", "failure_overhead", "hours_with_failures")


def _input() -> FailureInput:
    data, plan = timed_plan()
    spread = SpreadInput.of(data.catalogue.spread, data.profiles)
    return FailureInput(
        data.catalogue, {s.id: s for s in plan.servers}, {p.run.name: p for p in data.profiles}, spread
    )


def test_every_copy_states_what_failures_cost_it() -> None:
    _, plan = timed_plan()
    for a in plan.assignments:
        assert a.hours is not None and a.failure_overhead is not None and a.failure_overhead > 0
        assert a.hours_with_failures is not None and a.hours_with_failures > a.hours
        assert a.checkpoint_interval_h is not None and a.checkpoint_interval_h > 0


def test_the_figures_come_from_the_copy_alone_looked_up_by_id() -> None:
    """A bare copy (its failure figures cleared) gets back the same figures through the dicts."""
    _, plan = timed_plan()
    inp = _input()
    for a in plan.assignments:
        bare = a.model_copy(update=dict.fromkeys(FIELDS))
        again = with_failures(inp, bare)
        assert [getattr(again, f) for f in FIELDS] == [getattr(a, f) for f in FIELDS]


def test_a_checkpoint_lands_on_the_drives_of_all_its_servers_at_once() -> None:
    _, plan = timed_plan()
    inp = _input()
    one, two = plan.servers[0].id, plan.servers[-1].id
    single = inp.write_gbps([Node(server=one, gpus=[0])])
    assert single > 0
    assert inp.write_gbps([Node(server=one, gpus=[0]), Node(server=two, gpus=[0])]) > single


def test_a_copy_without_hours_is_left_as_it_is() -> None:
    _, plan = timed_plan()
    a = plan.assignments[0].model_copy(update={"hours": None, **dict.fromkeys(FIELDS)})
    assert with_failures(_input(), a) == a
