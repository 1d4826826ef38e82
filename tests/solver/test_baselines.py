"""The solver's offer before its search, as the library gives it: which runs fit some build alone,
and the first-fit price no peak plan exceeds."""

from __future__ import annotations

from ftopt import SolveSettings, load_catalogue, solve
from ftopt.solver.baselines import first_fit_price, runs_fitting
from tests.solver.conftest import workload_from

BID = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [l40s]}
runs:
  - {name: small, model: llama-3.1-8b, method: qlora, gpus: 1, concurrent: 5}
  - {name: other, model: llama-3.1-8b, method: lora, gpus: 2, concurrent: 3}
  - {name: huge, model: llama-3.1-405b, method: full, gpus: 1}
"""


def test_a_run_no_allowed_card_holds_alone_is_marked_and_the_others_fit() -> None:
    assert runs_fitting(workload_from(BID), load_catalogue()) == [True, True, False]


def test_no_plan_is_dearer_than_the_first_fit_price() -> None:
    catalogue = load_catalogue()
    workload = workload_from(BID.split("  - {name: huge")[0])
    price = first_fit_price(workload, catalogue)
    result = solve(workload, catalogue, SolveSettings(time_limit=10, workers=1, what_if=False))
    assert price is not None and result.price is not None
    assert result.price <= price + 0.005
