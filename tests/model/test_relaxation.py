"""Relaxation ids are part of the plan file: fixed values, and a figure that names one is checked."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.relaxation import CATALOGUE_RULES, RESOLVED, RelaxationId, relaxation_id

#: The ids as plan files carry them: a rename breaks every saved plan and the workbench's buttons.
STABLE = {
    "deadline", "memory", "host-ram", "cores", "feed", "inlet", "rack-units", "circuit", "liquid-loop",
    "nvlink-domain", "stock", "owned-servers", "server-limit", "optimiser",
}  # fmt: skip


def test_the_ids_are_stable() -> None:
    assert {r.value for r in RelaxationId} == STABLE
    assert set(RelaxationId) >= RESOLVED


def test_a_figure_names_an_id_or_nothing() -> None:
    assert relaxation_id("liquid-loop") is RelaxationId.LIQUID_LOOP
    assert relaxation_id("a 230v-32a feed") is None and relaxation_id(None) is None


def test_a_saving_carries_its_id_through_the_json_and_refuses_an_unknown_one() -> None:
    saving = finding(
        FindingKind.SAVING, "a 230v-32a feed", relaxation="feed", saved=1.0, eased_price=9.0, price=10.0,
        currency="USD",
    )  # fmt: skip
    back = Finding.model_validate_json(saving.model_dump_json())
    assert back.figures["relaxation"] == "feed" and back == saving
    with pytest.raises(ValidationError, match="relaxation"):
        finding(FindingKind.SAVING, "x", relaxation="a bigger feed", saved=1.0, eased_price=9.0, price=10.0,
                currency="USD")  # fmt: skip
    old = finding(
        FindingKind.SAVING, "a 230v-32a feed", saved=1.0, eased_price=9.0, price=10.0, currency="USD"
    )
    assert old.figures.get("relaxation") is None  # a plan from before ids still reads


def test_the_catalogue_s_rules_are_resolved_but_not_workload_edits() -> None:
    assert {"host-ram", "cores", "stock"} == {r.value for r in CATALOGUE_RULES}
    assert CATALOGUE_RULES <= RESOLVED
