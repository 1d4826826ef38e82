"""Every kind of finding has a figures type, and each type refuses what its sentence cannot use."""

from __future__ import annotations

import inspect
import re

import pytest
from pydantic import ValidationError

from ftopt.model import findings
from ftopt.model.figures import BY_KIND, RULES_BY_SUBJECT, StatementFigures, figures_type
from ftopt.model.findings import _WORDING, FindingKind


def test_each_kind_has_a_type_and_rules_go_by_subject() -> None:
    assert set(BY_KIND) | {"rule"} == {k.value for k in FindingKind}
    assert figures_type("rule", "memory") is RULES_BY_SUBJECT["memory"]
    assert figures_type("rule", "plan") is StatementFigures  # a version 1 sentence


@pytest.mark.parametrize(
    "figures",
    [{"seconds": "10"}, {"seconds": None}, {"seconds": [10]}, {}, {"seconds": 10, "extra": 1}],
    ids=["string", "null", "list", "missing", "unknown"],
)
def test_a_figure_of_the_wrong_shape_is_refused(figures: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        figures_type("no-plan", "time-limit").model_validate(figures)


def test_whole_numbers_stand_for_fractions_but_not_the_reverse() -> None:
    assert figures_type("no-plan", "x").model_validate({"seconds": 10})
    with pytest.raises(ValidationError):
        figures_type("server-limit", "site").model_validate({"max_servers": 2.5})


def test_every_figure_a_sentence_reads_is_typed_for_its_kind() -> None:
    """The wording of each kind reads only figures its type names (so a plan read strictly can
    always be worded); nested helpers such as `_over` are read with the function that calls them."""
    for kind, word in _WORDING.items():
        source = inspect.getsource(word)
        for helper in re.findall(r"\b(_[a-z]+)\(f\)", source):
            source += inspect.getsource(getattr(findings, helper))
        read = set(re.findall(r"f\[['\"](\w+)['\"]\]", source)) | set(
            re.findall(r"f\.get\(['\"](\w+)['\"]", source)
        )
        types = [*RULES_BY_SUBJECT.values(), StatementFigures] if kind == "rule" else [BY_KIND[kind]]
        typed = {name for t in types for name in t.model_fields}
        assert read <= typed, f"{kind}: {sorted(read - typed)} read but not typed"
