"""`ftopt estimate`: the JSON shape, figures matching the sizing layer and the reference figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ftopt.catalogue.loader import load_catalogue
from ftopt.model.parallelism import Degrees, TrainingConfig
from ftopt.model.sizing import CopySetup, profile_run, size_run
from ftopt.model.workload import Offload, Optimizer, Recompute, Run, SizingOptions, Strategy
from tests.commands import invoke, write

REPO = Path(__file__).resolve().parents[2]
FIRST_PROJECT = REPO / "examples" / "first-project.yaml"

RUN_KEYS = {"run", "params", "trainable_params", "stack", "train_tokens", "options"}
OPTION_KEYS = {
    "gpu",
    "gpus",
    "servers",
    "strategy",
    "optimizer",
    "offload",
    "memory_per_gpu_gb",
    "fits",
    "free_gb",
    "memory_margin",
    "headroom_gb",
    "host_ram_gb",
    "checkpoint_gb",
    "traffic_gb_per_step",
    "step_seconds",
    "micro_batch",
    "accumulation",
    "recompute",
    "parallelism",
    "bound_step_seconds",
    "tokens_per_s",
    "hours",
    "speed",
    "no_speed",
}
MEMORY_KEYS = {"states", "activations", "overhead", "total"}


def estimate_json(path: Path, *extra: str) -> dict[str, Any]:
    result = invoke("estimate", str(path), "--format", "json", *extra)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def option(
    data: dict[str, Any],
    run: str,
    gpu: str,
    gpus: int,
    strategy: str,
    optimizer: str = "adamw-32bit",
    offload: str = "none",
) -> dict[str, Any]:
    (entry,) = [r for r in data["runs"] if r["run"] == run]
    matches = [
        o
        for o in entry["options"]
        if (o["gpu"], o["gpus"], o["strategy"], o["optimizer"], o["offload"])
        == (gpu, gpus, strategy, optimizer, offload)
    ]
    assert len(matches) == 1, matches
    return matches[0]


@pytest.fixture
def seventy_b(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        """\
        runs:
          - name: big-lora
            model: llama-3.3-70b
            method: lora
            seq_len: 4096
            gradient_checkpointing: true
          - name: big-qlora
            model: llama-3.3-70b
            method: qlora
            gpus: 1
          - name: big-full
            model: llama-3.3-70b
            method: full
            optimizer: auto
            offload: auto
            gpus: 8
        site:
          feed: 400v-3p-16a
        hardware:
          gpus: [h200-nvl, rtx-pro-6000-se]
        """,
    )


def test_json_shape(seventy_b: Path) -> None:
    data = estimate_json(seventy_b)
    assert set(data) == {"runs"}
    assert [r["run"] for r in data["runs"]] == ["big-lora", "big-qlora", "big-full"]
    for run in data["runs"]:
        assert set(run) == RUN_KEYS
        assert isinstance(run["params"], int) and isinstance(run["trainable_params"], int)
        assert run["options"]
        for opt in run["options"]:
            assert set(opt) == OPTION_KEYS
            assert set(opt["memory_per_gpu_gb"]) == MEMORY_KEYS
            assert opt["gpu"] in {"h200-nvl", "rtx-pro-6000-se"}
            assert opt["strategy"] in {"single", "ddp", "fsdp"}
            assert opt["gpus"] in {1, 2, 4, 8}
            assert (opt["strategy"] == "single") == (opt["gpus"] == 1)
            assert isinstance(opt["fits"], bool)
            # a copy fits when its total raised by the margin fits: headroom ≥ 0, to the rounding
            assert 0 <= opt["memory_margin"] <= 1
            assert opt["fits"] == (opt["headroom_gb"] >= 0) or abs(opt["headroom_gb"]) < 0.05
            for value in (
                *opt["memory_per_gpu_gb"].values(),
                opt["free_gb"],
                opt["host_ram_gb"],
                opt["checkpoint_gb"],
                opt["traffic_gb_per_step"],
            ):
                assert isinstance(value, float)
                assert value == round(value, 1)
            assert opt["bound_step_seconds"] == round(opt["bound_step_seconds"], 3)
            assert opt["servers"] == 1


def test_options_follow_the_run_settings(seventy_b: Path) -> None:
    runs = {r["run"]: r for r in estimate_json(seventy_b)["runs"]}
    lora = {(o["gpu"], o["gpus"], o["strategy"]) for o in runs["big-lora"]["options"]}
    assert lora == {
        (gpu, n, s)
        for gpu in ("h200-nvl", "rtx-pro-6000-se")
        for n, s in ((1, "single"), (2, "ddp"), (2, "fsdp"), (4, "ddp"), (4, "fsdp"), (8, "ddp"), (8, "fsdp"))
    }
    assert {o["gpus"] for o in runs["big-qlora"]["options"]} == {1}
    full = {(o["gpus"], o["optimizer"], o["offload"]) for o in runs["big-full"]["options"]}
    # auto optimiser and offload: 32- and 8-bit Adam, CPU offload with 32-bit Adam only.
    assert full == {(8, "adamw-32bit", "none"), (8, "adamw-8bit", "none"), (8, "adamw-32bit", "cpu")}


def test_reference_figures_states_only(seventy_b: Path) -> None:
    data = estimate_json(seventy_b, "--states-only")
    runs = {r["run"]: r for r in data["runs"]}
    assert runs["big-lora"]["params"] == 70_553_706_496
    assert round(runs["big-lora"]["trainable_params"] / 1e6, 1) == 207.1
    # "70B LoRA on 2 / 4 cards (sharded): 72.2 / 36.1 GB per card"
    two = option(data, "big-lora", "h200-nvl", 2, "fsdp")
    assert two["memory_per_gpu_gb"] == {"states": 72.2, "activations": 0.0, "overhead": 0.0, "total": 72.2}
    assert two["fits"] is True
    assert two["free_gb"] == round(141 - 72.2, 1)
    assert option(data, "big-lora", "h200-nvl", 4, "fsdp")["memory_per_gpu_gb"]["states"] == 36.1
    # LoRA on a BF16 base, unsharded: 144.4 GB; a rank-16 checkpoint with its optimiser: 3.3 GB.
    ddp = option(data, "big-lora", "rtx-pro-6000-se", 2, "ddp")
    assert ddp["memory_per_gpu_gb"]["states"] == 144.4 and ddp["fits"] is False
    assert ddp["checkpoint_gb"] == 3.3
    # DDP all-reduce of the rank-16 adapter: 0.83 GB per card per step.
    assert ddp["traffic_gb_per_step"] == 0.8
    # "FSDP 70B LoRA, base weights received per pass, 2 / 4 cards: 141 / 212 GB"
    assert two["traffic_gb_per_step"] == 141.1
    assert option(data, "big-lora", "h200-nvl", 4, "fsdp")["traffic_gb_per_step"] == 211.7
    # "70B QLoRA: 42.8 GB; on one 96 GB card about 53 GB left" is the 4-bit model as loaded; the
    # default stack (hf-fsdp) also runs PEFT's preparation, which casts the BF16 embeddings and head
    # (2 × 128,256 × 8,192 parameters) to FP32: 2 bytes more each, 4.2 GB (stacks.yaml).
    qlora = option(data, "big-qlora", "rtx-pro-6000-se", 1, "single")
    cast_gb = round(2 * 128_256 * 8_192 * 2 / 1e9, 1)
    assert qlora["memory_per_gpu_gb"]["states"] == round(42.8 + cast_gb, 1)
    assert qlora["free_gb"] == round(53.2 - cast_gb, 1)
    # "full 70B on 8 × H200 NVL, 32-bit / 8-bit Adam: 141.1 / 88.2 GB per card"
    assert option(data, "big-full", "h200-nvl", 8, "fsdp")["memory_per_gpu_gb"]["states"] == 141.1
    eight_bit = option(data, "big-full", "h200-nvl", 8, "fsdp", "adamw-8bit")
    assert eight_bit["memory_per_gpu_gb"]["states"] == 88.2
    # "ZeRO-Offload host RAM 70B: 987.7 GB; 17.6 GB weights per card on 8"
    offload = option(data, "big-full", "h200-nvl", 8, "fsdp", "adamw-32bit", "cpu")
    # (14 × 70,553,706,496 B = 987.75 GB, printed 987.8; the article multiplies the rounded 70.55 B.)
    assert offload["host_ram_gb"] == pytest.approx(987.7, abs=0.1)
    assert offload["memory_per_gpu_gb"]["states"] == 17.6
    # "resumable full checkpoint (14 B/param) 70B: 988 GB"
    assert round(option(data, "big-full", "h200-nvl", 8, "ddp")["checkpoint_gb"]) == 988


def test_figures_match_the_sizing_layer(seventy_b: Path) -> None:
    """Without --states-only, every printed figure is the sizing layer's, rounded."""
    data = estimate_json(seventy_b)
    catalogue = load_catalogue()
    run = Run(name="big-lora", model="llama-3.3-70b", method="lora", seq_len=4096)
    got = option(data, "big-lora", "rtx-pro-6000-se", 4, "fsdp")
    degrees = got["parallelism"]
    assert degrees["dp"] * degrees["tp"] * degrees["pp"] * degrees["cp"] == 4
    config = TrainingConfig(
        got["micro_batch"], got["accumulation"], Recompute(got["recompute"]), Degrees(**degrees)
    )
    expected = size_run(
        CopySetup(
            profile_run(run, catalogue),
            catalogue.gpu("rtx-pro-6000-se"),
            4,
            Strategy.FSDP,
            Optimizer.ADAMW_32BIT,
            Offload.NONE,
            SizingOptions(),
        ),
        config=config,
    )
    assert got["memory_per_gpu_gb"] == {
        "states": round(expected.states_gb, 1),
        "activations": round(expected.activations_gb, 1),
        "overhead": round(expected.overhead_gb, 1),
        "total": round(expected.total_gb, 1),
    }
    assert got["fits"] == expected.fits
    assert got["free_gb"] == round(expected.free_gb, 1)
    assert got["host_ram_gb"] == round(expected.host_ram_gb, 1)
    assert got["checkpoint_gb"] == round(expected.checkpoint_gb, 1)
    assert got["traffic_gb_per_step"] == round(expected.traffic_gb_per_step, 1)
    assert got["bound_step_seconds"] == round(expected.step_seconds, 3)
    # One step time: the reported step is the speed model's, the one its tokens/s imply.
    assert got["step_seconds"] == got["speed"]["step_seconds"]
    # dp replicas of micro_batch × accumulation 4,096-token sequences each
    tokens_per_step = degrees["dp"] * config.micro_batch * config.accumulation * 4096
    assert got["tokens_per_s"] == pytest.approx(tokens_per_step / got["step_seconds"], rel=2e-3)
    assert got["memory_per_gpu_gb"]["activations"] > 0


def test_states_only_zeroes_activations_and_overhead(seventy_b: Path) -> None:
    full = estimate_json(seventy_b)
    states = estimate_json(seventy_b, "--states-only")
    assert any(o["memory_per_gpu_gb"]["activations"] > 0 for r in full["runs"] for o in r["options"])
    for run_full, run_states in zip(full["runs"], states["runs"], strict=True):
        for o_full, o_states in zip(run_full["options"], run_states["options"], strict=True):
            memory = o_states["memory_per_gpu_gb"]
            assert memory["activations"] == 0.0 and memory["overhead"] == 0.0
            assert memory["total"] == memory["states"]
            assert memory["states"] == o_full["memory_per_gpu_gb"]["states"]
            assert memory["total"] <= o_full["memory_per_gpu_gb"]["total"]


def test_states_only_in_the_workload_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        runs:
          - {name: a, model: llama-3.1-8b, method: qlora, gpus: 1}
        sizing:
          states_only: true
        """,
    )
    (opt, *_) = estimate_json(path)["runs"][0]["options"]
    assert opt["memory_per_gpu_gb"]["activations"] == 0.0


def test_all_catalogue_cards_without_hardware_limits(tmp_path: Path) -> None:
    """Every card the run's stack runs on (hf-fsdp, the default: the CUDA cards, not AMD's)."""
    path = write(tmp_path, "runs:\n  - {name: a, model: llama-3.1-8b, method: qlora, gpus: 1}\n")
    options = estimate_json(path)["runs"][0]["options"]
    catalogue = load_catalogue()
    cuda = [g.id for g in catalogue.gpus if g.platform == "cuda"]
    assert [o["gpu"] for o in options] == cuda and len(cuda) < len(catalogue.gpus)


def test_inline_model(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        runs:
          - name: tiny
            method: full
            gpus: 1
            model:
              name: tiny-llama
              architecture: {layers: 2, hidden: 256, intermediate: 512, heads: 4, kv_heads: 4,
                             head_dim: 64, vocab: 1000, tied_embeddings: true}
        """,
    )
    run = estimate_json(path)["runs"][0]
    assert run["params"] == run["trainable_params"] > 0
    assert all(o["fits"] for o in run["options"])


def test_table_output(seventy_b: Path) -> None:
    result = invoke("estimate", str(seventy_b))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    for text in (
        "big-lora",
        "big-qlora",
        "big-full",
        "h200-nvl",
        "rtx-pro-6000-se",
        "fsdp",
        "72.2",
        "step s",
        "tok/s",
    ):
        assert text in result.stdout
    assert "\x1b[" not in result.stdout  # no colour codes when stdout is not a terminal
    assert "…" not in result.stdout  # no cell cut short off a terminal


def test_table_states_only_says_so(seventy_b: Path) -> None:
    result = invoke("estimate", str(seventy_b), "--states-only")
    assert result.exit_code == 0, result.stderr
    assert "states only" in result.stdout


def test_first_project_example() -> None:
    result = invoke("estimate", str(FIRST_PROJECT))
    assert result.exit_code == 0, result.stderr
    data = estimate_json(FIRST_PROJECT)
    runs = {r["run"]: r for r in data["runs"]}
    assert len(runs) == 2
    # Article A (docs/reference-figures.md) runs LoRA and QLoRA on two RTX PRO 6000 Server Edition
    # cards. The 8B QLoRA fits one; the 70B LoRA sharded over two leaves less than its measured
    # margin (issue 28) and fits over four.
    rtx = {
        name: {(o["gpus"], o["strategy"]): o for o in run["options"] if o["gpu"] == "rtx-pro-6000-se"}
        for name, run in runs.items()
    }
    assert rtx["llama8b-qlora"][(1, "single")]["fits"]
    two, four = rtx["llama70b-lora"][(2, "fsdp")], rtx["llama70b-lora"][(4, "fsdp")]
    assert not two["fits"] and two["headroom_gb"] < 0 < four["headroom_gb"] and four["fits"]
    assert two["memory_margin"] > 0


def test_price_overlay_is_accepted(tmp_path: Path) -> None:
    workload = write(tmp_path, "runs:\n  - {name: a, model: llama-3.1-8b, method: lora}\n")
    prices = write(
        tmp_path,
        "prices:\n  - {item: h200-nvl, amount: 29000, currency: USD, "
        'date: "2026-11", source: our distributor}\n',
        "prices.yaml",
    )
    assert estimate_json(workload, "--prices", str(prices))["runs"][0]["options"]


def test_help_lists_the_commands() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "estimate" in result.stdout and "catalogue" in result.stdout


def test_tokens_per_second_and_hours(tmp_path: Path) -> None:
    """The speed model's tokens/s per option; hours = train_tokens / tokens/s / 3600 when given."""
    path = write(
        tmp_path,
        """\
        runs:
          - name: tuned
            model: llama-3.1-8b
            method: lora
            gpus: 1
            stack: torchtune
            dataset_tokens: 100000000
            epochs: 2
          - name: plain
            model: llama-3.1-8b
            method: lora
            gpus: 1
        """,
    )
    data = estimate_json(path)
    tuned, plain = data["runs"]
    assert tuned["stack"] == "torchtune" and plain["stack"] == "hf-fsdp"
    assert tuned["train_tokens"] == 200_000_000 and plain["train_tokens"] is None
    for a, b in zip(tuned["options"], plain["options"], strict=True):
        assert a["tokens_per_s"] > b["tokens_per_s"] > 0
        assert a["hours"] == pytest.approx(200_000_000 / a["tokens_per_s"] / 3600, abs=0.01)
        assert b["hours"] is None
        assert a["speed"]["step_seconds"] > 0
    text = invoke("estimate", str(path)).stdout
    assert "tok/s" in text and "hours for 200,000,000 tokens" in text


def test_multi_server_options_are_listed() -> None:
    """A 405B full fine-tune fits no server: estimate lists copies over several whole servers, and
    some of them fit (the solver plans one over 64 GPUs)."""
    data = estimate_json(REPO / "examples" / "405b-full.yaml")
    (run,) = data["runs"]
    spanning = [o for o in run["options"] if o["servers"] > 1]
    assert spanning and all(o["gpus"] in (16, 32, 64) and o["strategy"] in ("fsdp", "hsdp") for o in spanning)
    assert all(o["gpus"] % o["servers"] == 0 for o in spanning)
    fitting = [o for o in run["options"] if o["fits"]]
    assert fitting and all(o["servers"] > 1 for o in fitting)
    assert any(o["gpus"] == 64 and o["gpu"] == "h200-sxm" for o in fitting)
    assert all(o["tokens_per_s"] > 0 and o["step_seconds"] > 0 for o in fitting)


def test_output_file_holds_whole_cells(tmp_path: Path) -> None:
    """`-o FILE` writes plain tables no narrower than their widest cell: "6,493.7", not "6,493…"."""
    target = tmp_path / "estimate.txt"
    result = invoke("estimate", str(REPO / "examples" / "405b-full.yaml"), "-o", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    text = target.read_text(encoding="utf-8")
    assert "…" not in text and "\x1b[" not in text
    assert "rtx-pro-6000-se" in text and "6,493.7" in text and "b200-sxm" in text


def test_output_file_json(tmp_path: Path) -> None:
    target = tmp_path / "estimate.json"
    result = invoke("estimate", str(FIRST_PROJECT), "--format", "json", "-o", str(target))
    assert result.exit_code == 0, result.stderr
    assert json.loads(target.read_text(encoding="utf-8")) == estimate_json(FIRST_PROJECT)


def test_without_speed_data_the_bound_is_named_a_bound(tmp_path: Path) -> None:
    """Where the speed model has no stack data, the table shows the step's lower bound under its
    own name, never as "step s" beside a speed it does not imply."""
    from ftopt.cli.estimate import run_table
    from ftopt.model.estimate import estimate

    catalogue = load_catalogue()
    catalogue = catalogue.model_copy(update={"speed": None})
    workload = _one_run_workload()
    table = run_table(estimate(workload, catalogue)[0], states_only=False)
    headers = [c.header for c in table.columns]
    assert "bound s" in headers and "step s" not in headers and "tok/s" not in headers
    assert "lower bound" in str(table.caption)


def _one_run_workload() -> Any:
    from ftopt.model.workload import Workload

    return Workload.model_validate(
        {"runs": [{"name": "a", "model": "llama-3.1-8b", "method": "lora", "gpus": 1}]}
    )
