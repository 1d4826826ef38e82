"""A default stack that follows the allowed cards (issue 36, item 8): a bid for AMD-only hardware
without `stack:` trains with the ROCm build of Hugging Face + FSDP, not NVIDIA's hf-fsdp, which no
AMD card runs (before: refused, "stack 'hf-fsdp' runs on none of the allowed cards")."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.model.stack import DEFAULT_STACKS, default_stack
from ftopt.model.workload import DEFAULT_STACK
from ftopt.reading.workload_file import load_workload_text
from tests.commands import invoke, write

CATALOGUE = load_catalogue()

AMD = """\
runs:
  - name: lora70
    model: llama-3.3-70b
    method: lora
    train_tokens: 100M
  - name: own
    model: llama-3.1-8b
    method: lora
    stack: primus
site: {feed: 400v-3p-63a, inlet_c: 25}
hardware: {gpus: [mi300x, mi355x]}
"""


def test_amd_only_hardware_defaults_to_the_rocm_stack() -> None:
    workload = load_workload_text(AMD, "amd.yaml", CATALOGUE)
    assert workload.stack == "rocm-fsdp"
    assert [r.stack for r in workload.runs] == ["rocm-fsdp", "primus"]  # a run's own stack is kept


def test_nvidia_or_mixed_hardware_keeps_hf_fsdp() -> None:
    nvidia = load_workload_text(
        AMD.replace("mi300x, mi355x", "h200-nvl").replace("primus", "megatron"), "n", CATALOGUE
    )
    mixed = load_workload_text(AMD.replace("mi300x, mi355x", "mi300x, h200-nvl"), "m", CATALOGUE)
    assert nvidia.stack == mixed.stack == DEFAULT_STACK == "hf-fsdp"


def test_a_written_stack_is_never_replaced() -> None:
    written = load_workload_text("stack: primus\n" + AMD, "amd.yaml", CATALOGUE)
    assert written.stack == "primus"


def test_every_platform_default_is_a_stack_of_that_platform() -> None:
    for platform, stack_id in DEFAULT_STACKS.items():
        assert platform in CATALOGUE.stack(stack_id).platforms
    assert default_stack({"rocm"}) == "rocm-fsdp" and default_stack({"cuda", "rocm"}) == default_stack(set())


def test_an_amd_bid_without_a_stack_solves_and_verifies(tmp_path: Path) -> None:
    bid = write(tmp_path, AMD.replace("mi300x, mi355x", "mi300x"))
    plan = tmp_path / "plan.json"
    solved = invoke("solve", bid, "--format", "json", "-o", plan, "--time-limit", "20", "--no-what-if")
    assert solved.exit_code == 0, solved.output
    verified = invoke("verify", bid, plan)
    assert verified.exit_code == 0, verified.output
