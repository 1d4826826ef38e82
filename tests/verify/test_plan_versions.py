"""Plans written before findings became records (schema version 1) still read back and verify."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ftopt.errors import InputError
from ftopt.model.findings import FindingKind
from ftopt.model.plan import SCHEMA_VERSION
from ftopt.verify import parse_plan
from tests.verify.conftest import Case


def _as_version_1(text: str) -> str:
    """The plan as ftopt 0.1 wrote it: sentences for rules and notes, no version, no savings."""
    data = json.loads(text)
    del data["schema_version"]
    data["binding"] = [f["text"] for f in data["binding"] + data.pop("savings")]
    data["notes"] = [f["text"] for f in data["notes"]]
    return json.dumps(data)


def test_a_version_1_plan_reads_back_with_its_sentences_and_verifies(solved: Callable[[str], Case]) -> None:
    case = solved("mix")
    old = parse_plan(_as_version_1(case.json), "old.json")
    assert old.schema_version == 1 and case.plan.schema_version == SCHEMA_VERSION
    assert [n.text for n in old.notes] == [n.text for n in case.plan.notes]
    assert all(n.kind == FindingKind.RULE for n in old.notes)
    assert case.verify(old) == []


def test_a_plan_from_a_future_version_is_refused(solved: Callable[[str], Case]) -> None:
    data = json.loads(solved("mix").json)
    data["schema_version"] = 99
    with pytest.raises(InputError, match="schema_version"):
        parse_plan(json.dumps(data), "new.json")
