"""Bad preference and RL input ends like any bad field: one line naming file, line and field, exit 2."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ftopt.cli.main import cli
from tests.cli.test_input_errors import error_line
from tests.commands import write

GRPO = """\
runs:
  - name: reasoner
    model: llama-3.1-8b
    method: grpo
"""


def _error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    return error_line(CliRunner().invoke(cli, ["estimate", str(path)])).replace(str(path), "FILE")


def test_memory_fraction_outside_zero_one(tmp_path: Path) -> None:
    for bad in ("1.0", "0", "-0.2"):
        line = _error(tmp_path, GRPO + f"    rollout:\n      memory_fraction: {bad}\n")
        assert line.startswith("ftopt: FILE:6: runs[0].rollout.memory_fraction: expected "), line


def test_unknown_reward_model(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO + "    reward_model: llama-9b-rm\n")
    assert line.startswith("ftopt: FILE:5: runs[0].reward_model: unknown model 'llama-9b-rm'"), line
    assert "expected one of: " in line


def test_rollout_on_a_supervised_run(tmp_path: Path) -> None:
    text = GRPO.replace("method: grpo", "method: lora") + "    rollout:\n      group_size: 4\n"
    line = _error(tmp_path, text)
    assert line.startswith("ftopt: FILE:"), line
    assert "runs[0].rollout: applies to methods grpo and ppo, not lora" in line


def test_rollout_on_dpo(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO.replace("grpo", "dpo") + "    rollout: {}\n")
    assert "runs[0].rollout: applies to methods grpo and ppo, not dpo" in line


def test_adapter_on_a_supervised_run(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO.replace("method: grpo", "method: full") + "    adapter: lora\n")
    assert "runs[0].adapter: applies to methods dpo, grpo and ppo" in line


def test_unknown_adapter(tmp_path: Path) -> None:
    """The adapters are the registry's adapter methods (methods.yaml), checked against the catalogue."""
    line = _error(tmp_path, GRPO + "    adapter: lokr\n")
    assert line.startswith("ftopt: FILE:5: runs[0].adapter: unknown adapter 'lokr'"), line
    assert line.endswith("expected one of: none, lora, qlora, gptq-lora, dora"), line


def test_seq_len_on_a_generating_run(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO + "    seq_len: 2048\n")
    assert "runs[0].seq_len: grpo trains on rollout.prompt_len + response_len" in line


def test_precomputed_reference_outside_dpo(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO + "    reference: precomputed\n")
    assert "runs[0].reference: precomputed applies to method dpo only" in line


def test_an_adapter_without_a_method_names_the_missing_method(tmp_path: Path) -> None:
    """Issue 26: this was told "runs[0].adapter: applies to methods dpo, grpo and ppo"."""
    line = _error(tmp_path, GRPO.replace("    method: grpo\n", "") + "    adapter: lora\n")
    assert "method is missing; a run with an adapter names its method (dpo, grpo and ppo)" in line
    assert "adapter: applies" not in line


def test_a_misspelt_rl_method_names_the_method(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO.replace("method: grpo", "method: gpro") + "    adapter: lora\n")
    assert line.startswith("ftopt: FILE:4: runs[0].method: expected dpo, grpo, ppo with an adapter"), line
    assert "(did you mean 'grpo'?), got 'gpro'" in line


def test_unknown_rollout_engine(tmp_path: Path) -> None:
    line = _error(tmp_path, GRPO + "    rollout:\n      engine: tgi\n")
    assert line.startswith("ftopt: FILE:6: runs[0].rollout.engine: "), line
    assert "'vllm'" in line and "'sglang'" in line, line
