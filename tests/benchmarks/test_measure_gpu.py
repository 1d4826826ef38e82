"""benchmarks/measure_gpu.py without a GPU: its configurations become rows that the calibration can
recompute, its arguments are checked, and importing it pulls in no torch (CI has none)."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks.calibration import calibration_cards, recompute
from benchmarks.measure_gpu import (
    DEFAULT_CONFIGS,
    GIB,
    MODELS,
    Config,
    Measurement,
    parse_args,
    render,
    selected,
    source_key,
    to_points,
    transformers_config,
)
from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture

ROOT = Path(__file__).resolve().parents[2]

DAY = dt.date(2026, 12, 3)
MEASURED = Measurement(
    peak_allocated_bytes=int(21.5 * GIB), peak_reserved_bytes=24 * GIB, tokens_per_s=12345.6, steps=5
)


def test_importing_the_script_needs_no_torch() -> None:
    code = "import sys; import benchmarks.measure_gpu; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_configuration_becomes_a_memory_and_a_throughput_point() -> None:
    config = Config("llama-3.2-1b", "lora", 2048, 2)
    memory, speed = to_points(config, MEASURED, "h200-nvl", DAY)
    assert memory["id"] == "gpu-llama-3.2-1b-lora-2048x2-mem" and speed["id"].endswith("-speed")
    assert {memory["split"], speed["split"]} == {"held-out"}
    assert (
        memory["source"] == speed["source"] == source_key("h200-nvl", DAY) == "measured-h200-nvl-2026-12-03"
    )
    assert (memory["published"], memory["unit"], memory["includes"]) == (21.5, "GiB", "allocated")
    assert (speed["published"], speed["unit"]) == (12346, "tokens/s")
    assert memory["config"]["lora_rank"] == 16 and memory["config"]["card"] == "h200-nvl"
    assert (
        "lora_rank"
        not in to_points(Config("llama-3.2-1b", "full", 2048, 1), MEASURED, "h200-nvl", DAY)[0]["config"]
    )


@pytest.mark.parametrize("config", DEFAULT_CONFIGS, ids=lambda c: c.id)
def test_every_row_is_one_the_calibration_can_recompute(config: Config) -> None:
    """The rows are in points.yaml's shape: the calibration recomputes ftopt's figure for each."""
    catalogue, cards = load_catalogue(), calibration_cards()
    models = {name: Architecture.model_validate(arch) for name, arch in MODELS.items()}
    for point in to_points(config, MEASURED, "h200-nvl", DAY):
        assert recompute(point, catalogue, cards, models) > 0


def test_the_rendered_yaml_carries_models_sources_and_points() -> None:
    configs = selected(["llama-3.2-3b-lora-4096x2"])
    rows = [row for c in configs for row in to_points(c, MEASURED, "h200-nvl", DAY)]
    doc = yaml.safe_load(render(rows, configs, {"measured-h200-nvl-2026-12-03": "on one H200 NVL"}))
    assert list(doc["models"]) == ["llama-3.2-3b"]
    assert doc["sources"] == {"measured-h200-nvl-2026-12-03": "on one H200 NVL"}
    assert [p["kind"] for p in doc["points"]] == ["memory", "throughput"]


def test_transformers_config_names_every_field() -> None:
    fields = transformers_config(MODELS["llama-3.2-1b"])
    assert fields["num_hidden_layers"] == 16 and fields["num_key_value_heads"] == 8
    assert fields["tie_word_embeddings"] is True and fields["head_dim"] == 64


def test_configuration_ids_are_unique() -> None:
    assert len({c.id for c in DEFAULT_CONFIGS}) == len(DEFAULT_CONFIGS)


def test_arguments() -> None:
    args = parse_args(["--card-id", "h200-nvl"])
    assert (args.card_id, args.steps, args.warmup, args.only, args.out) == ("h200-nvl", 5, 2, None, None)
    assert selected(args.only) == list(DEFAULT_CONFIGS)
    args = parse_args(["--card-id", "b200-sxm", "--only", "llama-3.2-1b-full-2048x4", "-o", "m.yaml"])
    assert [c.id for c in selected(args.only)] == ["llama-3.2-1b-full-2048x4"] and args.out == Path("m.yaml")


@pytest.mark.parametrize(
    "argv",
    [[], ["--card-id", "x", "--steps", "0"], ["--card-id", "x", "--only", "no-such-config"]],
    ids=["no-card", "no-steps", "unknown-config"],
)
def test_bad_arguments_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2
