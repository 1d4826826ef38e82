"""`ftopt verify` reads the whole plan document against its types: a damaged field anywhere is exit 2
with one line naming the file, the field (and its line) and what was expected.

The types are the schema, so fields other features add are covered without a list here: the sweep
test below damages every number and every word of a solved plan, whatever fields it has.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from ftopt.errors import InputError
from ftopt.model.figures import BY_KIND, RULES_BY_SUBJECT
from ftopt.model.findings import FindingKind
from ftopt.model.plan import SCHEMA_VERSION
from ftopt.verify import parse_plan


def _refused(data: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_plan(json.dumps(data, indent=2), "plan.json")
    return caught.value


def _note(data: dict[str, Any], subject: str) -> dict[str, Any]:
    return next(n for n in data["notes"] if n["subject"] == subject)


@pytest.mark.parametrize(
    ("figure", "value", "expected"),
    [
        ("cuda_context_gb", "2", "expected a valid number"),
        ("cuda_context_gb", None, "expected a valid number"),
        ("cuda_context_gb", [2], "expected a valid number"),
        ("states_only", 0, "expected a valid boolean"),
    ],
)
def test_a_finding_figure_of_the_wrong_type_is_refused_by_name(solved, figure, value, expected) -> None:
    data = json.loads(solved("first-project").json)
    _note(data, "memory")["figures"][figure] = value
    error = _refused(data)
    index = data["notes"].index(_note(data, "memory"))
    assert error.field == f"notes[{index}].figures.{figure}"
    assert error.expected.startswith(expected) and error.line is not None


def test_a_missing_or_unknown_figure_is_refused(solved) -> None:
    data = json.loads(solved("first-project").json)
    figures = _note(data, "step-time")["figures"]
    del figures["mfu"]
    assert _refused(data).expected == "required figure is missing"
    figures["mfu"], figures["speed"] = 0.4, 1
    assert _refused(data).expected.startswith("unknown figure")


def test_a_string_where_a_number_belongs_is_refused(solved) -> None:
    data = json.loads(solved("first-project").json)
    data["servers"][0]["ram_gb"] = "700"
    error = _refused(data)
    assert (error.field, error.expected) == ("servers[0].ram_gb", "expected a valid integer, got '700'")


def test_a_missing_required_field_is_refused(solved) -> None:
    data = json.loads(solved("first-project").json)
    del data["assignments"][0]["step_seconds"]
    error = _refused(data)
    assert (error.field, error.expected) == ("assignments[0].step_seconds", "required field is missing")


def _leaves(item: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(item, dict):
        for key, value in item.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(item, list):
        for i, value in enumerate(item):
            yield from _leaves(value, (*path, i))
    else:
        yield path, item


def _shown(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))


def _set(data: Any, path: tuple[str | int, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def test_every_number_and_word_of_a_plan_is_typed(solved) -> None:
    """Each distinct field of a solved multi-node plan (indices aside) damaged alone: a number made
    a word, a word made a list. Every one is refused and named, so no field is read unchecked."""
    text = solved("multinode-405b").json
    seen: set[str] = set()
    checked = 0
    for path, value in _leaves(json.loads(text)):
        pattern = re.sub(r"\[\d+\]", "[]", _shown(path))
        if pattern in seen or value is None or path[-1] == "text" or isinstance(value, bool):
            continue
        seen.add(pattern)
        data = json.loads(text)
        _set(data, path, "x" if isinstance(value, int | float) else [7])
        error = _refused(data)
        assert error.field == _shown(path), (error.field, _shown(path))
        checked += 1
    assert checked >= 60, checked  # the plan's servers, copies, fabric, findings and notes


def test_a_null_stack_in_a_current_plan_is_a_violation(solved) -> None:
    c = solved("first-project")
    runs = [r.model_copy(update={"stack": None}) for r in c.plan.runs]
    violations = c.verify(c.plan.model_copy(update={"runs": runs}))
    assert {(v.rule, v.found) for v in violations} == {("run-summary", "stack None")}
    assert c.plan.schema_version == SCHEMA_VERSION


def test_every_kind_of_finding_has_a_figures_type() -> None:
    assert set(BY_KIND) | {"rule"} == {k.value for k in FindingKind}
    assert set(RULES_BY_SUBJECT) == {"host", "power", "memory", "step-time", "prices", "skipped", "spares"}
