"""What-if: the eased bids tried, one rule each with its id; savings only when a re-solve shows a
different price or count; a deadline's saving worded by its hours; the ease the workbench applies."""

from __future__ import annotations

from ftopt.model.findings import FindingKind
from ftopt.model.relaxation import RelaxationId
from ftopt.model.result import Result
from ftopt.solver.cpsat.family import Relaxation
from ftopt.solver.explain.whatif import eased_workload, feasible_if, relaxations, savings
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.cpsat.test_deadline import RUSHED
from tests.solver.tiny import SMALL, catalogue, problem

QUICK = SolveSettings(time_limit=20, workers=2)


def _resolve(relaxation: Relaxation) -> Result:
    return solve(relaxation.workload, relaxation.catalogue or catalogue(), QUICK)


def test_each_relaxation_eases_one_rule_under_its_own_id() -> None:
    data = problem(SMALL, max_servers=1)
    eased = {r.id: r for r in relaxations(data)}
    assert len(eased) == len(relaxations(data))
    limit = eased[RelaxationId.SERVER_LIMIT].workload
    assert limit.site.max_servers is None and limit.runs == data.workload.runs
    assert all(r.workload != data.workload or r.catalogue is not None for r in eased.values())


def test_a_saving_is_reported_only_when_the_eased_plan_differs() -> None:
    data = problem(SMALL, max_servers=1)
    plan = solve(data.workload, catalogue(), QUICK).plan_or_raise()

    def same(_: Relaxation) -> Result:
        return Result(status=plan.status, plan=plan)

    def cheaper(_: Relaxation) -> Result:
        return Result(
            status=plan.status, plan=plan.model_copy(update={"total_price": plan.total_price - 100})
        )

    assert savings(data, plan, same) == []
    found = savings(data, plan, cheaper)
    assert found and all(f.figures["saved"] == 100 for f in found)
    assert [f.figures["relaxation"] for f in found] == [r.id.value for r in relaxations(data)]


def test_a_re_solve_that_stopped_dearer_than_the_plan_reports_no_saving() -> None:
    """A relaxation never makes the cheapest plan dearer: an eased plan above the bid's own price
    (its re-solve ran out of its share of the time) was worded "would change the plan at the same
    price" with its other server count; it says nothing of the relaxation, so it is left out."""
    data = problem(SMALL, max_servers=1)
    plan = solve(data.workload, catalogue(), QUICK).plan_or_raise()
    dearer = plan.model_copy(update={"total_price": plan.total_price + 100, "servers": plan.servers * 2})
    same_price = plan.model_copy(update={"servers": plan.servers * 2})
    assert savings(data, plan, lambda _: Result(status=plan.status, plan=dearer)) == []
    found = savings(data, plan, lambda _: Result(status=plan.status, plan=same_price))
    assert found and all("at the same price" in f.text for f in found)


def test_a_deadline_saving_says_how_many_hours_and_the_workbench_eases_by_them() -> None:
    data = problem(RUSHED)
    plan = solve(data.workload, catalogue(), QUICK).plan_or_raise()
    [saving] = [f for f in savings(data, plan, _resolve) if f.figures["relaxation"] == "deadline"]
    extra = saving.figures["extra_hours"]
    assert isinstance(extra, float) and extra > 0
    assert saving.subject == f"deadlines +{extra:g} h" and saving.text.startswith(
        f"deadlines +{extra:g} h would save USD "
    )
    assert saving.figures["eased_servers"] < saving.figures["servers"]  # type: ignore[operator]
    eased = eased_workload(data, saving)
    assert eased is not None and [r.deadline_hours for r in eased.runs] == [round(8 + extra, 3)]
    again = solve(eased, catalogue(), QUICK).plan_or_raise()
    assert plan.total_price - again.total_price == saving.figures["saved"]


def test_the_ease_goes_by_id_whatever_the_sentence_says() -> None:
    data = problem(SMALL, max_servers=1)
    plan = solve(data.workload, catalogue(), QUICK).plan_or_raise()
    cheaper = plan.model_copy(update={"total_price": plan.total_price - 100})
    [limit] = [s for s in savings(data, plan, lambda _: Result(status=plan.status, plan=cheaper))
               if s.figures["relaxation"] == "server-limit"]  # fmt: skip
    reworded = limit.model_copy(update={"subject": "a sentence reworded since", "text": "anything"})
    eased = eased_workload(data, reworded)
    assert eased is not None and eased.site.max_servers is None
    unnamed = limit.model_copy(update={"figures": {**limit.figures, "relaxation": None}})
    assert eased_workload(data, unnamed) is None


def test_an_impossible_bid_names_the_relaxations_that_give_it_a_plan() -> None:
    data = problem(RUSHED.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"))
    assert solve(data.workload, catalogue(), QUICK).plan is None
    found = feasible_if(data, _resolve)
    ids = {f.figures["relaxation"] for f in found}
    assert {"deadline", "server-limit"} <= ids and all(f.kind == FindingKind.FEASIBLE_IF for f in found)
    assert "optimiser" not in ids and "inlet" not in ids  # nothing to ease there


def test_a_catalogue_rule_s_saving_is_no_workload_edit() -> None:
    data = problem(SMALL)
    plan = solve(data.workload, catalogue(), QUICK).plan_or_raise()
    cheaper = plan.model_copy(update={"total_price": plan.total_price - 100})
    found = savings(data, plan, lambda _: Result(status=plan.status, plan=cheaper))
    [ram] = [s for s in found if s.figures["relaxation"] == "host-ram"]
    assert eased_workload(data, ram) is None  # the catalogue's rule: the workbench says so
