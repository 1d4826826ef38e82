"""Generated malformed workload files: exit 2 and one line naming the field, never a traceback (§5).

Each example is a valid workload with one mutation (tests.strategies.malformed_workloads) run
through `ftopt estimate`, the command that reads a workload without solving it.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import event, given, note, settings

from ftopt.cli.main import cli
from ftopt.reading import safe_yaml
from ftopt.reading.safe_yaml import MAX_INPUT_BYTES
from tests.strategies import Malformed, malformed_workloads

FILE_NAME = "workload.yaml"


def estimate(content: bytes) -> tuple[Path, Result]:
    """Write `content` to a fresh directory and run `ftopt estimate` on it."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / FILE_NAME
        path.write_bytes(content)
        result = CliRunner().invoke(cli, ["estimate", str(path)])
    return path, result


def one_error_line(path: Path, result: Result) -> str:
    """The message after `ftopt: FILE[:LINE]: `, once exit 2, one line and no traceback are checked."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, result.stdout[-500:], result.stderr[-500:])
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), lines[:3]
    prefix = f"ftopt: {path}"
    assert lines[0].startswith(prefix), lines[0]
    match = re.match(r"^(?::(\d+))?: (.+)$", lines[0][len(prefix) :])
    assert match, f"not `FILE[:LINE]: message`: {lines[0]}"
    return match[2]


@settings(max_examples=4 * settings.default.max_examples)  # cheap examples: four times the profile's
@given(malformed_workloads())
def test_malformed_workload_exits_2_with_one_line_naming_the_field(case: Malformed) -> None:
    note(f"{case.kind} ({case.field or case.fragment}): {case.content[:2000]!r}")
    event(case.kind)
    path, result = estimate(case.content)
    if case.field is None and case.fragment is None and result.exit_code == 0:
        return  # a truncation that happened to leave a valid file
    message = one_error_line(path, result)
    note(message)
    if case.field is not None:
        assert message.startswith(case.field), f"expected the field {case.field!r}: {message}"
        rest = message[len(case.field) :]
        assert rest[:1] in (":", ".", "["), f"expected the field {case.field!r}: {message}"
    if case.fragment is not None:
        assert case.fragment in message


def test_python_object_tag_is_refused_and_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    content = (
        "runs: [{name: a, model: llama-3.1-8b, method: lora}]\n"
        f"extra: !!python/object/apply:os.system ['touch {marker}']\n"
    ).encode()
    path, result = estimate(content)
    message = one_error_line(path, result)
    assert "not valid YAML" in message
    assert not marker.exists(), "the YAML tag ran a command"


def test_python_object_tag_as_the_whole_document(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    content = f"!!python/object/apply:os.system ['touch {marker}']\n".encode()
    path, result = estimate(content)
    one_error_line(path, result)
    assert not marker.exists()


def test_file_beyond_the_size_limit_is_refused() -> None:
    valid = b"runs: [{name: a, model: llama-3.1-8b, method: lora}]\n"
    content = valid + b"#" * (MAX_INPUT_BYTES + 1 - len(valid))
    path, result = estimate(content)
    message = one_error_line(path, result)
    assert message == f"file is {MAX_INPUT_BYTES + 1:,} bytes; at most {MAX_INPUT_BYTES:,} accepted"


def test_file_at_the_size_limit_is_read_and_one_byte_more_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """The boundary, with the limit lowered so that the file at it stays quick to parse."""
    monkeypatch.setattr(safe_yaml, "MAX_INPUT_BYTES", 1000)
    valid = b"runs: [{name: a, model: llama-3.1-8b, method: lora}]\n"
    at_limit = valid + b"#" * (1000 - len(valid))
    _, result = estimate(at_limit)
    assert result.exit_code == 0, result.stderr
    path, result = estimate(at_limit + b"#")
    assert one_error_line(path, result) == "file is 1,001 bytes; at most 1,000 accepted"
