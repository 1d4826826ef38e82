"""Malformed inputs the property tests found (or that their search led to), kept as explicit cases.

All were open bugs when found, and each was first written here as `xfail(strict=True)`; all five
are fixed now (commits 3abf80d: alias bombs, absurd architectures, infinities; 020c76c: parameters
counted per layer kind, not per layer and expert). A new open bug goes in the same way: marked
strict xfail with what goes wrong, so that its fix turns the test into a failure until the marker
is removed. Cases that could hang run `ftopt estimate` in a forked child under a deadline, so a
regression costs seconds, not the CI job.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.commands import invoke, invoke_within, write


def assert_one_line_exit_2(outcome: tuple[int, str, str, str]) -> str:
    code, stdout, stderr, exception = outcome
    assert code == 2, (code, exception, stderr[-500:])
    assert "Traceback" not in stdout + stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ftopt: "), lines[:3]
    return lines[0]


INLINE = """\
runs:
  - name: own-model
    method: lora
    model:
      name: giant
      architecture:
        layers: {layers}
        hidden: {hidden}
        intermediate: 14336
        heads: 32
        kv_heads: 8
        head_dim: 128
        vocab: 128256
        tied_embeddings: false
"""


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
def test_valid_inline_model_answers_within_the_deadline(tmp_path: Path) -> None:
    """Control for the cases below: the forked child itself is quick on a normal file."""
    code, _, stderr, _ = invoke_within("estimate", write(tmp_path, INLINE.format(layers=32, hidden=4096)))
    assert code == 0, stderr


def test_yaml_alias_bomb_is_refused_within_seconds(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 12)]
    path = tmp_path / "workload.yaml"
    path.write_text("\n".join(lines) + "\nruns: *a11\n", encoding="utf-8")
    assert_one_line_exit_2(invoke_within("estimate", path))


def test_inline_model_with_huge_layer_count_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, INLINE.format(layers=10**12, hidden=4096))
    line = assert_one_line_exit_2(invoke_within("estimate", path))
    assert "runs[0].model.architecture.layers" in line


def test_inline_model_with_huge_width_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, INLINE.format(layers=2, hidden=10**400))
    result = invoke("estimate", str(path))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "runs[0].model.architecture.hidden" in lines[0]


def test_infinite_cuda_context_is_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        sizing: {cuda_context_gb: .inf}
        runs: [{name: a, model: llama-3.1-8b, method: lora}]
        """,
    )
    result = invoke("estimate", str(path))
    assert result.exit_code == 2, result.stdout[-300:]
    assert "sizing.cuda_context_gb" in result.stderr


MANY_EXPERTS = """\
runs:
  - name: moe
    method: qlora
    model:
      name: many-experts
      architecture: {layers: 10000, hidden: 64, intermediate: 64, heads: 1, kv_heads: 1, head_dim: 64,
                     vocab: 1000, tied_embeddings: true, experts: 100000, experts_per_token: 1}
"""


def test_many_layers_and_experts_answer_within_seconds(tmp_path: Path) -> None:
    code, _, stderr, exception = invoke_within("estimate", write(tmp_path, MANY_EXPERTS))
    assert code in (0, 2), (code, exception, stderr[-300:])
