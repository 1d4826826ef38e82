"""Input as people write it (issue 36, item 8): dates unquoted, token counts with suffixes or
exponents, and every mistake of a file reported at once, each with file, line and field; exit 2,
never a traceback.

Before: the README's own `quote: {valid_until: 2027-01-31}` exited 2 (YAML reads it as a date),
`train_tokens: 2e9` and `2B` were refused, and a bid with three mistakes reported only the first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.commands import invoke, write

BID = """\
name: written
runs:
  - name: chat
    model: llama-3.1-8b
    method: qlora
    train_tokens: {tokens}
site: {{feed: 400v-3p-32a, inlet_c: 25}}
hardware: {{gpus: [rtx-pro-6000-se]}}
"""


def test_the_readmes_quote_reads_with_its_date_unquoted(tmp_path: Path) -> None:
    """The quote block of docs/reference/quote.md (the README's until it moved), as written there."""
    quote = (
        "quote: {customer: ACME Labs, reference: Q-2026-117, valid_until: 2027-01-31,\n"
        "        discount_percent: 12.5, notes: Prices exclude VAT.}\n"
    )
    path = write(tmp_path, BID.format(tokens="2B") + quote)
    result = invoke("solve", path, "--format", "json", "--time-limit", "20", "--no-what-if")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["buyer"]["valid_until"] == "2027-01-31"


@pytest.mark.parametrize("tokens", ["2000000000", "2e9", "2_000_000_000", "2B", "2000M", "0.002T", "2.0e9"])
def test_two_billion_tokens_written_any_way_train_as_long(tmp_path: Path, tokens: str) -> None:
    result = invoke("estimate", write(tmp_path, BID.format(tokens=tokens)), "--format", "json")
    assert result.exit_code == 0, result.output
    assert _hours(result.stdout) == _hours(invoke("estimate", write(tmp_path, BID.format(tokens=2 * 10**9)),
                                                  "--format", "json").stdout)  # fmt: skip


def _hours(text: str) -> list[float]:
    return sorted(float(h) for h in re.findall(r'"hours": ([0-9.]+)', text))


def test_a_bid_with_three_mistakes_reports_all_three(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        runs:
          - name: chat
            model: llama-3.1-8b
            method: lora
            seq_len: -5
            train_tokens: 2X
          - name: other
            model: llama-3.1-8b
            methd: lora
        site: {feed: 400v-3p-32a, inlet_c: hot}
        """,
    )
    result = invoke("solve", path)
    assert result.exit_code == 2 and "Traceback" not in result.output and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"ftopt: {path}:5: runs[0].seq_len: expected greater than 0, got -5",
        f"ftopt: {path}:6: runs[0].train_tokens: expected a whole number of tokens such as 2000000000, "
        "2_000_000_000, 2e9, 2B, 500M or 1.5T, got '2X'",
        f"ftopt: {path}:9: runs[1].methd: unknown field (did you mean 'method'?)",
        f"ftopt: {path}:10: site.inlet_c: expected a valid number, unable to parse string as a number, "
        "got 'hot'",
    ]


def test_an_unknown_id_is_reported_beside_the_files_field_errors(tmp_path: Path) -> None:
    """A typo in a method id and two out-of-range numbers: all three at once, in line order (the
    full reference check needs a valid workload, so the plain ids are read off the file)."""
    path = write(
        tmp_path,
        """\
        runs:
          - {name: a, model: llama-3.1-8b, method: loraa, seq_len: 2048}
          - {name: b, model: llama-3.1-8b, method: qlora, seq_len: -5}
        site: {feed: 400v-3p-32a, inlet_c: 250}
        """,
    )
    result = invoke("solve", path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    fields = [line.split(": ")[2] for line in result.stderr.splitlines()]
    assert fields == ["runs[0].method", "runs[1].seq_len", "site.inlet_c"]
    assert "unknown method 'loraa' (did you mean 'lora'?)" in result.stderr


def test_unknown_ids_are_reported_together(tmp_path: Path) -> None:
    text = BID.format(tokens="2B").replace("llama-3.1-8b", "llama-9b").replace("400v-3p-32a", "400v-9a")
    result = invoke("estimate", write(tmp_path, text))
    assert result.exit_code == 2
    fields = [line.split(": ")[2] for line in result.stderr.splitlines()]
    assert fields == ["runs[0].model", "site.feed"]


def test_a_file_wrong_everywhere_reports_fifty_problems_and_counts_the_rest(tmp_path: Path) -> None:
    runs = "".join(
        f"  - {{name: r{i}, model: llama-3.1-8b, method: lora, seq_len: -{i + 1}}}\n" for i in range(60)
    )
    result = invoke("estimate", write(tmp_path, "runs:\n" + runs))
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 51 and lines[-1].endswith("and 10 more problems")
    assert all(re.match(rf"ftopt: .*:{i + 2}: runs\[{i}\]\.seq_len: ", lines[i]) for i in range(50))
