"""The deadline family alone: the bid without deadlines, and the hours a cheaper plan needs beyond
each deadline (the "+N h" of a deadline's what-if)."""

from __future__ import annotations

from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import deadline
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.tiny import catalogue, problem

#: Eight copies of a small LoRA on H200 cards: alone each fits one card, but 8 h at P90 needs two.
RUSHED = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [h200-sxm]}
runs:
  - {name: small-lora, model: llama-3.1-8b, method: lora, train_tokens: 300000000, concurrent: 8,
     deadline_hours: 8}
"""


def test_the_relaxation_drops_every_deadline_and_nothing_else() -> None:
    data = problem(RUSHED)
    [eased] = deadline.relax(data)
    assert eased.id == RelaxationId.DEADLINE
    assert [r.deadline_hours for r in eased.workload.runs] == [None]
    assert eased.workload.site == data.workload.site
    assert deadline.relax(problem(RUSHED.replace(",\n     deadline_hours: 8", ""))) == []


def test_the_hours_each_deadline_gives_are_those_the_eased_plan_needs_at_p90() -> None:
    data = problem(RUSHED)
    [eased] = deadline.relax(data)
    plan = solve(eased.workload, catalogue(), SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    slowest = max(a.hours_p90 or 0.0 for a in plan.assignments)
    extra = deadline.loosened_by(data.workload, plan)
    assert slowest - 8 <= extra < slowest - 8 + deadline.STEP_H + 1e-9
    loosened = deadline.loosen(data.workload, extra)
    assert [r.deadline_hours for r in loosened.runs] == [round(8 + extra, 3)]
    again = solve(loosened, catalogue(), SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert again.total_price == plan.total_price  # the eased plan meets every loosened deadline
