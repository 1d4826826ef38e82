"""The least deadline extension: the fewest hours (on the 0.1 h grid) at which a re-solve of the
loosened bid reaches the saving's price, confirmed by that re-solve, not the no-deadline plan's own
lateness."""

from __future__ import annotations

import pytest

from ftopt.model.plan import Plan
from ftopt.model.result import Result
from ftopt.solver.cpsat.deadline import STEP_H, loosen, loosened_by
from ftopt.solver.cpsat.family import Relaxation
from ftopt.solver.explain.extension import least_extension
from ftopt.solver.explain.whatif import savings
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.tiny import catalogue, problem

QUICK = SolveSettings(time_limit=20, workers=2)

#: An 8B LoRA whose memory fits one card and whose 20 h deadline needs two RTX PRO 6000 cards; with
#: 6.5 h more two L40S meet it for USD 10,500 less, while the no-deadline plan puts it on L40S at a
#: lower power setting (or otherwise slower) that needs +32.8 h.
SLOW_TIE = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se, l40s]}
runs:
  - {name: lora8b, model: llama-3.1-8b, method: lora, seq_len: 4096, gradient_checkpointing: true,
     train_tokens: 300000000, deadline_hours: 20}
"""


def _price_at(hours: float) -> float:
    data = problem(SLOW_TIE)
    return solve(loosen(data.workload, hours), catalogue(), QUICK).plan_or_raise().total_price


def test_the_deadline_saving_states_the_fewest_hours_that_buy_it() -> None:
    data = problem(SLOW_TIE)
    plan = solve(data.workload, catalogue(), QUICK).plan_or_raise()

    def resolve(relaxation: Relaxation) -> Result:
        return solve(relaxation.workload, relaxation.catalogue or catalogue(), QUICK)

    [saving] = [f for f in savings(data, plan, resolve) if f.figures["relaxation"] == "deadline"]
    extra, eased = saving.figures["extra_hours"], saving.figures["eased_price"]
    assert isinstance(extra, float) and isinstance(eased, float)
    unbound = solve(data.workload.model_copy(update={"runs": tuple(
        r.model_copy(update={"deadline_hours": None}) for r in data.workload.runs)}),
        catalogue(), QUICK).plan_or_raise()  # fmt: skip
    assert extra < loosened_by(data.workload, unbound)  # the no-deadline plan is a slow one
    assert _price_at(extra) == eased == unbound.total_price  # the extension buys the whole saving
    assert _price_at(round(extra - STEP_H, 6)) > eased  # and one step less does not
    assert saving.text.startswith(f"deadlines +{extra:g} h would save USD ")


def _fake(hours_needed: float, calls: list[float], plan: Plan) -> object:
    """A resolver whose price drops from 200 to 100 once the deadlines give `hours_needed`."""

    def resolve(relaxation: Relaxation) -> Result:
        (run,) = relaxation.workload.runs
        assert run.deadline_hours is not None
        hours = round(run.deadline_hours - 20, 6)
        calls.append(hours)
        price = 100.0 if hours >= hours_needed else 200.0
        return Result(status=plan.status, plan=plan.model_copy(update={"total_price": price}))

    return resolve


@pytest.mark.parametrize("needed", [0.1, 3.3, 6.5, 32.7, 32.8])
def test_a_bisection_finds_the_first_step_at_the_price_in_few_re_solves(needed: float) -> None:
    data = problem(SLOW_TIE)
    eased = solve(loosen(data.workload, 40), catalogue(), QUICK).plan_or_raise()
    top = loosened_by(data.workload, eased)
    assert top >= needed  # the no-deadline stand-in is later than every threshold tried
    calls: list[float] = []
    resolve = _fake(needed, calls, eased)
    hours, found = least_extension(data.workload, eased, lambda p: p.total_price <= 100, resolve)  # type: ignore[arg-type]
    assert hours == needed and found.total_price == 100
    assert needed in calls  # confirmed by a re-solve at that very extension
    assert len(calls) <= 10  # log2 of the ~330 steps, not a walk over them


def test_without_time_the_no_deadline_plan_s_own_lateness_stands() -> None:
    data = problem(SLOW_TIE)
    eased = solve(loosen(data.workload, 40), catalogue(), QUICK).plan_or_raise()
    calls: list[float] = []
    hours, found = least_extension(data.workload, eased, lambda _: True, _fake(1, calls, eased), until=0.0)  # type: ignore[arg-type]
    assert hours == pytest.approx(loosened_by(data.workload, eased)) and (found, calls) == (eased, [])
