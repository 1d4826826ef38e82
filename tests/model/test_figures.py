"""Every kind of finding has a figures type, and each type refuses what its sentence cannot use."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from ftopt.model import findings
from ftopt.model.figures import BY_KIND, RULES_BY_SUBJECT, StatementFigures, figures_type
from ftopt.model.findings import _WORDING, FindingKind

ROOT = Path(__file__).resolve().parents[2]


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


def _finding_calls() -> list[tuple[str, str, str | None, set[str]]]:
    """(where, kind, subject when a literal, figure names) of every `finding(FindingKind.X, …)` call."""
    calls = []
    for path in sorted((ROOT / "ftopt").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "finding" and node.args):
                continue
            kind = node.args[0]
            if not (isinstance(kind, ast.Attribute) and getattr(kind.value, "id", None) == "FindingKind"):
                continue
            subject = node.args[1] if len(node.args) > 1 else None
            literal = subject.value if isinstance(subject, ast.Constant) else None
            names = {k.arg for k in node.keywords if k.arg is not None}
            calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", kind.attr, literal, names))
    return calls


def test_every_finding_the_code_makes_names_only_typed_figures() -> None:
    """Statically, so a producer on a path no test reaches cannot add an untyped figure."""
    calls = _finding_calls()
    assert len(calls) >= 15
    for where, attr, subject, names in calls:
        kind = FindingKind[attr].value
        if kind == "rule":
            assert subject is not None, f"{where}: a rule note's subject is a literal"
        typed = set(figures_type(kind, subject or "").model_fields)
        assert names <= typed, f"{where}: {sorted(names - typed)} are not figures of {kind}"
