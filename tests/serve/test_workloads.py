"""The web's workloads meet the CLI's checks and wording."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.serve.workloads import (
    MAX_UPLOAD_BYTES,
    WorkloadError,
    check,
    decode_upload,
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
