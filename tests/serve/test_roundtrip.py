"""A bid's YAML edited in place: every example comes back byte for byte, one edit changes one field,
and no comment is lost on the way."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from ftopt.serve.roundtrip import Document, RoundTripError, edited, parse_path
from ftopt.serve.workloads import data_of

REPO = Path(__file__).resolve().parents[2]
#: Every workload example (the broken ones that still parse as YAML included): a user's file.
EXAMPLES = sorted(REPO.glob("examples/*.yaml")) + sorted(
    p for p in REPO.glob("examples/broken/*.yaml") if p.name != "yaml-syntax.yaml"
)


def comments(text: str) -> list[str]:
    """The comments of a YAML text, without their indentation."""
    return [m.group(0).strip() for m in re.finditer(r"#.*", text)]


@pytest.mark.parametrize("path", [p for p in EXAMPLES if "broken" not in p.parts], ids=lambda p: p.name)
def test_every_example_comes_back_byte_for_byte(path):
    text = path.read_text(encoding="utf-8")
    assert Document(text).dump() == text


def test_a_multi_line_flow_mapping_is_refolded_onto_one_line_and_keeps_its_values():
    # ruamel writes a flow mapping on one line: the one known layout this library does not keep
    text = (REPO / "examples/broken/owned-unknown-card.yaml").read_text(encoding="utf-8")
    assert data_of(Document(text).dump()) == data_of(text)


def test_setting_a_field_changes_its_line_and_keeps_every_comment():
    text = (REPO / "examples/first-project.yaml").read_text(encoding="utf-8")
    after = edited(text, [("runs[0].lora_rank", 32)])
    changed = [
        line for line in difflib.unified_diff(text.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]  # fmt: skip
    assert changed == ["-    lora_rank: 16", "+    lora_rank: 32"]
    assert comments(after) == comments(text)


def test_a_new_field_makes_its_mappings_and_a_string_yaml_would_misread_is_quoted():
    after = edited("runs: [{name: a, model: m, method: lora}]\n", [("quote.valid_until", "2027-01-31"),
                                                                   ("quote.customer", "yes")])  # fmt: skip
    assert data_of(after)["quote"] == {"valid_until": "2027-01-31", "customer": "yes"}


def test_removing_a_field_keeps_the_comment_above_the_next_one():
    text = "a: 1\nb: 2   # b's own\n# about c\nc: {x: 1}\n# about d\nd: 4\n"
    assert edited(text, [("b", None)]) == "a: 1\n# about c\nc: {x: 1}\n# about d\nd: 4\n"
    assert edited(text, [("c.x", None)]) == "a: 1\nb: 2   # b's own\n# about c\n# about d\nd: 4\n"


def test_an_entry_is_appended_by_the_next_index():
    after = edited("runs:\n  - name: a\n", [("runs[1].name", "b"), ("runs[1].model", "m")])
    assert data_of(after)["runs"] == [{"name": "a"}, {"name": "b", "model": "m"}]


def test_paths_and_texts_that_are_not_what_they_should_be_are_refused():
    assert parse_path("site.racks[0].feeds") == ("site", "racks", 0, "feeds")
    for bad in ("", "a..b", "a[x]", "[0]x"):
        with pytest.raises(RoundTripError):
            parse_path(bad)
    with pytest.raises(RoundTripError, match="mapping"):
        Document("- a\n- b\n")
    with pytest.raises(RoundTripError, match="not YAML"):
        Document("a: [b\n")
    with pytest.raises(RoundTripError):
        edited("runs: [{name: a}]\n", [("runs.name", "x")])
