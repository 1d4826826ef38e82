"""Hostile input (issue 13, item 5): each class a robustness run found, kept as explicit cases.

Every case must end in exactly one bounded `ftopt:` line on stderr naming file, line, field and
what was expected, with exit 2; never a traceback, exit 1 or an unbounded read. A valid but extreme
value gets a correct answer instead. Cases that could hang (a FIFO, /dev/zero) run the command in
a forked child under a deadline, so a regression costs seconds, not the CI job.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import Result

from ftopt.verify.reading import MAX_PLAN_BYTES
from tests.commands import invoke, invoke_within, write

#: No error line may be longer than this, whatever the input (the catalogue's id lists included).
MAX_LINE = 700

GOOD_RUN = """\
runs:
  - name: chat-lora
    model: llama-3.1-8b
    method: lora
"""
PRICE = '  - {item: h200-nvl, amount: 30000, currency: USD, date: "2026-01", source: quote}\n'


def error_line(result: Result) -> str:
    """The single stderr line of a failed command, after checking exit 2, no traceback and its length."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, result.stdout[-300:], result.stderr[-300:])
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ftopt: "), [line[:200] for line in lines[:3]]
    assert len(lines[0]) <= MAX_LINE, len(lines[0])
    return lines[0]


# 1. Tiny or huge floats that made figures infinite ------------------------------------------------


@pytest.mark.parametrize("mfu", ["5e-324", "0.0001", "1.0e-320"])
def test_denormal_mfu_is_refused_not_an_infinite_step_time(tmp_path: Path, mfu: str) -> None:
    """`gt=0` let 5e-324 through: the step time overflowed to inf and the plan failed its own
    verification (exit 1). MFU is now at least 1 %."""
    path = write(tmp_path, f"sizing: {{mfu: {mfu}}}\n" + GOOD_RUN)
    line = error_line(invoke("estimate", str(path)))
    assert line.startswith(f"ftopt: {path}:1: sizing.mfu: ") and "0.01" in line


def test_lowest_mfu_gives_a_finite_step_time(tmp_path: Path) -> None:
    path = write(tmp_path, "sizing: {mfu: 0.01}\n" + GOOD_RUN)
    result = invoke("estimate", str(path), "--format", "json")
    assert result.exit_code == 0, result.stderr
    steps = [o["step_seconds"] for r in json.loads(result.stdout)["runs"] for o in r["options"]]
    assert steps and all(0 < s < float("inf") for s in steps)


def test_astronomical_price_is_refused_not_an_overflow(tmp_path: Path) -> None:
    """Found by the fuzz pass: `amount: 1e308` made the price in cents infinite (OverflowError)."""
    workload = write(tmp_path, GOOD_RUN)
    prices = write(tmp_path, "prices:\n" + PRICE.replace("30000", "1.0e+308"), "prices.yaml")
    line = error_line(invoke("solve", str(workload), "--prices", str(prices), "--quiet"))
    assert line.startswith(f"ftopt: {prices}:2: prices[0].amount: expected at most ")


# 2. Tags that contradict their text, integers beyond Python's digit limit -------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("!!int abc", "expected an integer, got 'abc'"),
        ("!!float x", "expected a number, got 'x'"),
        ("!!bool maybe", "expected true or false, got 'maybe'"),
        ("!!timestamp nope", "expected a date (YYYY-MM-DD) or a time stamp, got 'nope'"),
        ("!!timestamp 2001-13-45", "expected a date (YYYY-MM-DD) or a time stamp, got '2001-13-45'"),
        ("!!int 0x", "expected an integer, got '0x'"),
    ],
)
def test_tag_contradicting_its_text_is_one_line(tmp_path: Path, value: str, expected: str) -> None:
    path = write(tmp_path, GOOD_RUN + f"    seq_len: {value}\n")
    assert error_line(invoke("estimate", str(path))) == f"ftopt: {path}:5: runs[0].seq_len: {expected}"


def test_tag_contradiction_in_a_key_names_its_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    !!int abc: 1\n")
    line = error_line(invoke("estimate", str(path)))
    assert line == f"ftopt: {path}:5: runs[0]: expected an integer, got 'abc'"


def test_integer_of_five_thousand_digits_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    seq_len: " + "1" * 5000 + "\n")
    line = error_line(invoke("estimate", str(path)))
    assert line == f"ftopt: {path}:5: runs[0].seq_len: expected an integer of at most 4,300 digits, got 5,000"


def test_escape_beyond_unicode_is_one_line(tmp_path: Path) -> None:
    """Found by the fuzz pass: the pure-Python scanner's chr() raised OverflowError."""
    path = write(tmp_path, 'name: "\\UFFFFFFFF"\n' + GOOD_RUN)
    line = error_line(invoke("estimate", str(path)))
    assert line == f"ftopt: {path}:1: not valid YAML: an escape names no Unicode character"


def test_plan_with_an_integer_of_five_thousand_digits(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    plan = write(tmp_path, '{"status": "optimal", "gap": ' + "1" * 5000 + "}", "plan.json")
    line = error_line(invoke("verify", str(workload), str(plan)))
    assert line == f"ftopt: {plan}: not valid JSON: an integer has more than 4,300 digits"


# 3. Huge values are quoted, never echoed whole ------------------------------------------------------

MEGABYTE = "a" * 1_000_000


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (GOOD_RUN.replace("llama-3.1-8b", MEGABYTE), "runs[0].model: unknown model 'aaaa"),
        (f"site: {{feed: {MEGABYTE}}}\n" + GOOD_RUN, "site.feed: unknown feed 'aaaa"),
        (GOOD_RUN + f"hardware: {{gpus: [{MEGABYTE}]}}\n", "hardware.gpus[0]: unknown card 'aaaa"),
        (GOOD_RUN + f"    {'k' * 1000}: 1\n", "runs[0].'kkkk"),
        (GOOD_RUN + GOOD_RUN[6:].replace("chat-lora", "b" * 100_000) * 2, "is used twice"),
        (GOOD_RUN + "    seq_len: " + "x" * 100_000 + "\n", "runs[0].seq_len: expected a valid integer"),
    ],
    ids=["model", "feed", "card", "unknown-key", "run-name-twice", "wrong-type"],
)
def test_huge_value_is_quoted_in_at_most_80_characters(tmp_path: Path, text: str, field: str) -> None:
    path = write(tmp_path, text)
    line = error_line(invoke("estimate", str(path)))
    assert field in line and "…" in line
    assert not re.search(r"(.)\1{80}", line), "a value quoted beyond 80 characters"


def test_unknown_key_with_control_characters_is_quoted_in_the_path(tmp_path: Path) -> None:
    """Found by the fuzz pass: a key `"\\0"` was written raw into the field path."""
    path = write(tmp_path, GOOD_RUN + '    "a\\0 b": 1\n')
    assert error_line(invoke("estimate", str(path))) == f"ftopt: {path}:5: runs[0].'a\\x00 b': unknown field"


def test_huge_price_item_is_quoted(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    prices = write(tmp_path, "prices:\n" + PRICE.replace("h200-nvl", MEGABYTE), "prices.yaml")
    line = error_line(invoke("estimate", str(workload), "--prices", str(prices)))
    assert "prices[0].item: unknown item 'aaa" in line and len(line) < 300


def test_huge_catalogue_id_is_quoted() -> None:
    line = error_line(invoke("catalogue", "show", "x" * 100_000))
    assert line.startswith("ftopt: unknown catalogue id 'xxx") and "x" * 81 not in line


# 4. Duplicate keys ---------------------------------------------------------------------------------


def test_second_runs_key_is_refused_not_silently_replacing_the_first(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "site: {feed: 230v-16a}\nruns: []\n")
    line = error_line(invoke("estimate", str(path)))
    assert line == f"ftopt: {path}:6: runs: duplicate key 'runs', first on line 1; write each key once"


def test_duplicate_key_deep_in_a_run_and_on_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    method: full\n")
    line = error_line(invoke("estimate", str(path)))
    assert (
        line
        == f"ftopt: {path}:5: runs[0].method: duplicate key 'method', first on line 4; write each key once"
    )
    path = write(tmp_path, "sizing: {mfu: 0.3, mfu: 0.5}\n" + GOOD_RUN)
    assert "sizing.mfu: duplicate key 'mfu', first on line 1" in error_line(invoke("estimate", str(path)))


def test_duplicate_key_in_a_price_list(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    prices = write(tmp_path, "prices:\n" + PRICE.replace("amount: 30000", "amount: 1, amount: 2"), "p.yaml")
    line = error_line(invoke("estimate", str(workload), "--prices", str(prices)))
    assert line.startswith(f"ftopt: {prices}:2: prices[0].amount: duplicate key 'amount'")


def test_same_key_in_different_mappings_is_fine(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + GOOD_RUN[6:].replace("chat-lora", "other"))
    assert invoke("estimate", str(path)).exit_code == 0


# 5. Surrogates in JSON (or YAML) escapes -----------------------------------------------------------


def test_lone_surrogate_in_a_json_workload_is_refused(tmp_path: Path) -> None:
    data = {"name": "\\ud800", "runs": [{"name": "a", "model": "llama-3.1-8b", "method": "lora"}]}
    path = write(tmp_path, json.dumps(data).replace("\\\\", "\\"), "workload.json")
    line = error_line(invoke("estimate", str(path)))
    assert line.startswith(f"ftopt: {path}:1: name: expected Unicode text; a lone surrogate")


def test_escaped_surrogate_pair_is_joined_into_its_character(tmp_path: Path) -> None:
    path = write(tmp_path, 'name: "chat \\ud83d\\ude00"\n' + GOOD_RUN)
    result = invoke("solve", str(path), "--format", "json", "--quiet", "--no-what-if", "--time-limit", "5")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["workload"] == "chat \U0001f600"


def test_lone_surrogate_in_a_plan_is_refused(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    plan = write(
        tmp_path, '{"status": "optimal", "servers": [], "assignments": [{"run": "\\udc00"}]}', "p.json"
    )
    line = error_line(invoke("verify", str(workload), str(plan)))
    assert line.startswith(f"ftopt: {plan}: assignments[0].run: expected Unicode text, got '\\udc00'")


# 6. Special files are refused, never read without bound --------------------------------------------


def special_files(tmp_path: Path) -> list[tuple[str, str]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return [("/dev/zero", "a device, pipe or socket"), (str(fifo), "a device, pipe or socket")]


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork, FIFOs and /dev/zero")
@pytest.mark.parametrize("role", ["workload", "prices", "plan"])
def test_special_file_is_refused_within_seconds(tmp_path: Path, role: str) -> None:
    workload = str(write(tmp_path, GOOD_RUN))
    for special, kind in [*special_files(tmp_path), (str(tmp_path), "a directory")]:
        args = {
            "workload": ["estimate", special],
            "prices": ["estimate", workload, "--prices", special],
            "plan": ["verify", workload, special],
        }[role]
        code, _, stderr, exception = invoke_within(*args)
        assert code == 2, (code, exception, stderr[-300:])
        if role == "prices" and kind == "a directory":  # click's `dir_okay=False` answers first
            assert "Error: Invalid value for '--prices'" in stderr and "is a directory" in stderr
            continue
        assert stderr == f"ftopt: {special}: expected a regular file, not {kind}\n"


def test_plan_beyond_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    """A sparse file: its size comes from the file system, so nothing of it is read."""
    workload = write(tmp_path, GOOD_RUN)
    plan = tmp_path / "plan.json"
    with plan.open("wb") as file:
        file.truncate(MAX_PLAN_BYTES + 1)
    line = error_line(invoke("verify", str(workload), str(plan)))
    assert line == f"ftopt: {plan}: file is {MAX_PLAN_BYTES + 1:,} bytes; at most {MAX_PLAN_BYTES:,} accepted"


# 7. nan and inf for float options -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "+inf", "1e999", "NaN"])
@pytest.mark.parametrize("command", ["solve", "frontier", "sweep"])
def test_time_limit_must_be_finite(tmp_path: Path, command: str, value: str) -> None:
    workload = str(write(tmp_path, GOOD_RUN))
    grid = ["--grid", str(write(tmp_path, "cross: {site.inlet_c: [25]}\n", "grid.yaml"))]
    result = invoke(command, workload, *(grid if command == "sweep" else []), "--time-limit", value)
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "Invalid value for '--time-limit'" in result.stderr and "is not a finite number" in result.stderr


def test_time_limit_of_a_huge_string_is_quoted(tmp_path: Path) -> None:
    result = invoke("solve", str(write(tmp_path, GOOD_RUN)), "--time-limit", "9" * 100_000)
    assert result.exit_code == 2
    assert "expected a number of at most 80 characters" in result.stderr and len(result.stderr) < 600
