"""Reasons a bid has no plan, found before any search: a run that fits no card, no allowed card."""

from __future__ import annotations

from ftopt.model.findings import FindingKind
from ftopt.solver.explain.reasons import describe_core, precheck
from tests.solver.tiny import SMALL, problem

TOO_BIG = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: huge, model: llama-3.3-70b, method: full, gpus: 1}]
"""


def test_a_bid_that_fits_has_no_precheck_reasons() -> None:
    assert precheck(problem(SMALL)) == []


def test_a_run_that_fits_no_card_names_the_card_and_its_need() -> None:
    [reason] = precheck(problem(TOO_BIG))
    assert (reason.kind, reason.subject) == (FindingKind.NO_FIT, "huge")
    assert reason.figures["cards"] == ["rtx-pro-6000-se"]
    need = reason.figures["need_gb"]
    held = reason.figures["card_gb"]
    assert isinstance(need, list) and isinstance(held, list) and need[0] > held[0]  # type: ignore[operator]


def test_a_core_names_its_runs_their_copies_and_the_limit() -> None:
    data = problem(SMALL, max_servers=1)
    [core] = describe_core(data, [0, 1], limit_in_core=True)
    assert core.kind == FindingKind.CONFLICT
    assert core.figures == {"runs": ["one", "two"], "copies": 5, "max_servers": 1}
    assert describe_core(data, [0], limit_in_core=False)[0].figures["max_servers"] is None
