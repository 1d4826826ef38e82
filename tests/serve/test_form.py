"""The bid form: drawn from the schema with the version's values, it writes only what was changed.

The property: for every example, a form saved unchanged writes the text back byte for byte, and a
form with one input changed changes exactly that field (no other value, no comment).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ftopt.catalogue import load_catalogue
from ftopt.catalogue.schema import workload_schema
from ftopt.serve.form import Input, bid_form, changes, inputs, suggestions
from ftopt.serve.roundtrip import Document, edited, parse_path
from ftopt.serve.workloads import WorkloadError, check, data_of

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(REPO.glob("examples/*.yaml"))
CATALOGUE = load_catalogue()


def leaves(value, path="", out=None) -> dict:
    """Every leaf of a parsed workload by its field path, lists of mappings by index."""
    out = {} if out is None else out
    if isinstance(value, dict):
        for key, item in value.items():
            leaves(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            leaves(item, f"{path}[{i}]", out)
    else:
        out[path] = value
    return out


def shown(text: str) -> dict[str, str]:
    """The form as a browser would post it untouched: every editable input with its shown value."""
    return {i.path: i.value for i in inputs(bid_form(text)) if i.kind != "fixed"}


def under_an_id(doc: Document, path: str) -> bool:
    """Whether a field above `path` holds a scalar (a catalogue model id above an inline model's field)."""
    steps = parse_path(path)
    return any(not isinstance(doc.get(steps[:cut]), dict | list | type(None)) for cut in range(1, len(steps)))


def schema_paths(definition, path="", seen=()) -> set[str]:
    """Every leaf field path of the schema, a list's entries as [0]."""
    defs = workload_schema()["$defs"]
    found: set[str] = set()
    for key, prop in definition.get("properties", {}).items():
        here = f"{path}.{key}" if path else key
        variants = [
            defs[o["$ref"].rsplit("/", 1)[-1]] if "$ref" in o else o for o in prop.get("anyOf", [prop])
        ]
        variants = [defs[v["$ref"].rsplit("/", 1)[-1]] if "$ref" in v else v for v in variants]
        leaf = True
        for v in variants:
            items = v.get("items", {})
            item_def = defs[items["$ref"].rsplit("/", 1)[-1]] if "$ref" in items else items
            if "properties" in v:
                found |= schema_paths(v, here)
                leaf = any(x.get("type") == "string" for x in variants)
            elif v.get("type") == "array" and "properties" in item_def:
                found |= schema_paths(item_def, f"{here}[0]")
                leaf = False
        if leaf:
            found.add(here)
    return found


def comments(text: str) -> Counter[str]:
    return Counter(m.group(0).strip() for m in re.finditer(r"#.*", text))


def typed_value(item: Input) -> st.SearchStrategy[str]:
    """A value a user might type into this input."""
    ids = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)
    if item.kind == "number":
        return st.integers(1, 10**9).map(str) | st.floats(0.5, 1e4, allow_nan=False).map(lambda x: f"{x:.2f}")
    if item.kind == "choice":
        return st.sampled_from(item.choices)
    if item.kind == "list":
        return st.lists(ids, min_size=1, max_size=3).map(", ".join)
    return ids


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_saved_unchanged_is_byte_identical_and_one_edit_changes_one_field(path):
    text = path.read_text(encoding="utf-8")
    form = shown(text)
    assert changes(text, form) == []
    assert edited(text, changes(text, form)) == text
    before = leaves(data_of(text))
    # an inline alternative under a field that holds an id replaces the id: tested on its own below
    doc = Document(text)
    editable = [i for i in inputs(bid_form(text)) if i.kind != "fixed" and not under_an_id(doc, i.path)]
    seen: Counter[str] = Counter()

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(data=st.data())
    def one_edit(data):
        item = data.draw(st.sampled_from(editable))
        value = data.draw(typed_value(item).filter(lambda v: v.strip() != item.value.strip()))
        after_text = edited(text, changes(text, {**form, item.path: value}))
        after = leaves(data_of(after_text))
        differ = {p for p in before.keys() | after.keys() if before.get(p, "∅") != after.get(p, "∅")}
        assert differ == {item.path}, (item.path, value)
        assert comments(after_text) == comments(text)
        seen["present" if item.value else "absent"] += 1

    one_edit()
    # the examples exercised the property on fields the file has and on fields it had not
    assert seen["present"] and seen["absent"], seen


def test_a_racked_site_shows_no_feed_it_does_not_have_and_saves_unchanged():
    text = (REPO / "examples/two-racks.yaml").read_text(encoding="utf-8")
    form = {i.path: i for i in inputs(bid_form(text))}
    assert form["site.feed"].value == "" and form["site.feed"].default  # the default as a hint only
    assert form["site.racks[1].feeds"].value == "400v-3p-16a, 400v-3p-16a"
    assert form["site.racks[1].redundant"].value == "true"
    check(edited(text, changes(text, shown(text))), CATALOGUE)


def test_the_form_has_every_field_of_the_schema():
    schema = workload_schema()
    paths = {i.path for i in inputs(bid_form(""))}
    expected = schema_paths(schema)
    assert expected <= paths, sorted(expected - paths)
    for path in ("site.racks[0].feeds", "queue.horizon_hours", "inventory[0].gpu", "quote.customer",
                 "quote.discount_percent", "quote.valid_until", "runs[0].model.architecture.layers",
                 "runs[0].rollout.engine"):  # fmt: skip
        assert path in expected  # the walk above reached the nested ones
    assert len(expected) > 120


def test_a_customer_written_as_a_name_is_shown_and_gains_a_contact():
    text = "runs: [{name: a, model: llama-3.1-8b, method: lora}]\nquote: {customer: Acme GmbH}  # the buyer\n"
    form = {i.path: i for i in inputs(bid_form(text))}
    assert form["quote.customer"].value == "Acme GmbH"
    after = edited(text, changes(text, {"quote.customer.contact": "ann@acme.example"}))
    workload = check(after, CATALOGUE).workload
    assert (
        workload.quote.customer.name == "Acme GmbH" and workload.quote.customer.contact == "ann@acme.example"
    )
    assert "# the buyer" in after


def test_typing_an_inline_model_replaces_the_catalogue_id():
    text = "runs:\n  - name: a  # the support bot\n    model: llama-3.1-8b\n    method: lora\n"
    edits = changes(text, {"runs[0].model.name": "mine", "runs[0].model.architecture.layers": "32"})
    assert edits[0] == ("runs[0].model", {"name": "llama-3.1-8b"})
    after = edited(text, edits)
    assert data_of(after)["runs"][0]["model"] == {"name": "mine", "architecture": {"layers": 32}}
    assert "# the support bot" in after
    form = {i.path: i for i in inputs(bid_form(after))}
    assert form["runs[0].model"].kind == "fixed" and form["runs[0].model.architecture.layers"].value == "32"


def test_a_new_bid_from_the_form_with_buyer_details_and_a_rack():
    typed = {
        "name": "acme",
        "runs[0].name": "chat",
        "runs[0].model": "llama-3.1-8b",
        "runs[0].method": "qlora",
        "site.racks[0].name": "a",
        "site.racks[0].units": "8",
        "site.racks[0].feeds": "230v-32a, 230v-32a",
        "quote.customer": "Acme GmbH",
        "quote.discount_percent": "8",
        "quote.valid_until": "2027-01-31",
    }
    workload = check(edited("", changes("", typed)), CATALOGUE).workload
    assert workload.quote is not None and workload.quote.customer is not None
    assert workload.quote.customer.name == "Acme GmbH"  # a name alone, as bids were written before contacts
    assert workload.quote.discount_percent == 8 and str(workload.quote.valid_until) == "2027-01-31"
    assert workload.site.racks is not None and workload.site.racks[0].feeds == ("230v-32a", "230v-32a")


def test_a_blanked_input_removes_its_field_and_a_ticked_entry_goes():
    text = (
        "runs:\n  - {name: a, model: llama-3.1-8b, method: lora, concurrent: 2}\n"
        "  - {name: b, model: qwen3-8b, method: lora}\n"
    )
    edits = changes(text, {"runs[0].concurrent": "", "runs[1]._remove": "1"})
    assert edits == [("runs[0].concurrent", None), ("runs[1]", None)]
    assert data_of(edited(text, edits))["runs"] == [{"name": "a", "model": "llama-3.1-8b", "method": "lora"}]
    # a remove box is honoured only on an entry the version has
    assert changes(text, {"site._remove": "1", "runs[7]._remove": "1", "name._remove": "1"}) == []


def test_a_word_in_a_number_input_is_passed_on_for_the_loader_to_name():
    text = "runs: [{name: a, model: llama-3.1-8b, method: lora}]\n"
    with pytest.raises(WorkloadError) as err:
        check(edited(text, changes(text, {"runs[0].concurrent": "many"})), CATALOGUE)
    assert err.value.field == "runs[0].concurrent"


def test_the_forms_choices_are_the_schemas_and_suggestions_the_catalogues():
    form = {i.path: i for i in inputs(bid_form(""))}
    methods = workload_schema()["$defs"]["Run"]["properties"]["method"]["enum"]
    assert list(form["runs[0].method"].choices) == methods
    assert form["runs[0].model"].suggest == "models" and "llama-3.1-8b" in suggestions(CATALOGUE)["models"]
    assert "230v-16a" in suggestions(CATALOGUE)["feeds"]
