"""Multi-node bids: the CP-SAT optimum, fabric included, equals a brute force's to the cent.

The brute force (tests/bruteforce.py, `multinode_brute_force`) tries every build, strategy and
optimiser for every copy and every switch model with every leaf and spine count; it shares the
model layer's sizing and the builds with the solver, none of its model.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve
from tests.bruteforce import multinode_brute_force
from tests.properties.support import exercised, reached
from tests.strategies import CATALOGUE

MODELS = ("llama-3.3-70b", "qwen3-32b", "llama-3.1-405b", "mixtral-8x7b")


@st.composite
def multinode_bids(draw: st.DrawFn) -> dict[str, Any]:
    runs = []
    for index in range(draw(st.integers(1, 2))):
        runs.append(
            {
                "name": f"r{index}",
                "model": draw(st.sampled_from(MODELS)),
                "method": "full",
                "optimizer": draw(st.sampled_from(("auto", "adamw-32bit", "adamw-8bit"))),
                "gpus": draw(st.sampled_from((16, 32, 64))),
                "concurrent": draw(st.integers(1, 2)),
            }
        )
    cards = draw(st.sampled_from((None, ["h200-sxm"], ["b200-sxm"])))
    bid: dict[str, Any] = {
        "runs": runs,
        "site": {
            "feed": draw(st.sampled_from(("400v-3p-32a", "400v-3p-63a", "400v-3p-16a"))),
            "max_servers": draw(st.sampled_from((None, 6, 12))),
        },
    }
    if cards:
        bid["hardware"] = {"gpus": cards}
    return bid


@exercised(minimum=15)
@settings(max_examples=40, deadline=None)
@given(multinode_bids())
def test_multinode_optimum_equals_the_brute_force(bid: dict[str, Any]) -> None:
    note(str(bid))
    workload = Workload.model_validate(bid)
    reference = multinode_brute_force(workload, CATALOGUE)
    result = solve(workload, CATALOGUE, SolveSettings(time_limit=20, workers=1))
    note(f"brute force {reference}, solver {result.status} {result.price}")
    event("no plan" if reference is None else "a plan")
    if reference is None:
        assert result.plan is None
        return
    assert result.plan is not None and result.status == "optimal"
    assert round(result.price * 100) == reference
    reached()
