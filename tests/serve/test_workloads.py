"""The web's workloads meet the CLI's checks and wording; the form writes the fields it shows."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.cli.schema import workload_schema
from ftopt.serve.workloads import (
    MAX_UPLOAD_BYTES,
    WorkloadError,
    apply_form,
    check,
    data_of,
    decode_upload,
    form_choices,
    form_rows,
)

CATALOGUE = load_catalogue()


def test_a_bad_field_fails_with_the_clis_one_line_and_its_path():
    text = "name: x\nruns:\n  - {name: r, model: llama-3.1-8b, method: lora, seq_len: -4}\n"
    text += "site: {feed: 230v-16a}\n"
    with pytest.raises(WorkloadError) as err:
        check(text, CATALOGUE)
    assert err.value.field == "runs[0].seq_len" and err.value.line == 3
    assert (
        err.value.message.startswith("ftopt: workload:3: runs[0].seq_len: ") and "\n" not in err.value.message
    )


def test_an_unknown_card_is_refused_with_a_suggestion():
    with pytest.raises(WorkloadError, match="did you mean 'h200-nvl'"):
        check(
            "runs: [{name: r, model: llama-3.1-8b, method: lora}]\nhardware: {gpus: [h200-nv]}\n", CATALOGUE
        )


def test_texts_and_uploads_over_the_cap_are_refused_unparsed():
    with pytest.raises(WorkloadError, match="at most"):
        check("#" * (MAX_UPLOAD_BYTES + 1), CATALOGUE)
    with pytest.raises(WorkloadError, match="at most"):
        decode_upload(b"x" * (MAX_UPLOAD_BYTES + 1), "big.yaml")
    with pytest.raises(WorkloadError, match="UTF-8"):
        decode_upload(b"\xff\xfe", "bin.yaml")


def test_the_form_writes_its_fields_over_the_workload_and_keeps_the_rest():
    base = data_of(
        "name: b\nruns:\n"
        "  - {name: r, model: llama-3.1-8b, method: lora, seq_len: 8192, dataset_tokens: 5, epochs: 2}\n"
        "site: {feed: 230v-16a, inlet_c: 27, max_servers: 2}\n"
    )
    form = {
        "name": "b2",
        "runs[0].name": "r",
        "runs[0].model": "llama-3.1-8b",
        "runs[0].method": "qlora",
        "runs[0].train_tokens": "2e9",
        "runs[0].deadline_hours": "48",
        "runs[0].concurrent": "2",
        "runs[1].name": "new",
        "runs[1].model": "qwen3-8b",
        "runs[1].method": "lora",
        "site.feed": "230v-32a",
        "site.inlet_c": "25",
    }
    checked = check(apply_form(base, form, ["h200-nvl"]), CATALOGUE)
    run, new = checked.workload.runs
    assert checked.workload.name == "b2" and run.method == "qlora" and run.seq_len == 8192
    assert run.train_tokens == 2_000_000_000 and run.deadline_hours == 48 and run.concurrent == 2
    assert new.name == "new" and new.model == "qwen3-8b"
    site = checked.workload.site
    assert (site.feed, site.inlet_c, site.max_servers) == ("230v-32a", 25, 2)
    assert checked.workload.hardware.gpus == ("h200-nvl",)
    assert [row["name"] for row in form_rows(data_of(checked.text))] == ["r", "new", ""]


def test_a_blank_row_drops_its_run_and_a_bad_number_names_its_input():
    base = data_of(
        "runs: [{name: a, model: llama-3.1-8b, method: lora}, {name: b, model: qwen3-8b, method: lora}]\n"
    )
    form = {"runs[0].name": "", "runs[0].model": "", "runs[1].name": "b", "runs[1].concurrent": "many"}
    text = apply_form(base, form, [])
    assert [r["name"] for r in data_of(text)["runs"]] == ["b"]
    with pytest.raises(WorkloadError) as err:
        check(text, CATALOGUE)
    assert err.value.field == "runs[0].concurrent"


def test_the_forms_methods_are_the_schemas():
    choices = form_choices(CATALOGUE)
    assert choices.methods == workload_schema()["$defs"]["Run"]["properties"]["method"]["enum"]
    assert "h200-nvl" in choices.gpus and "230v-16a" in choices.feeds
