"""Bad input ends in one line on stderr naming file, line, field path and what was expected; exit 2.

Each case writes a small workload into a temporary directory, so the line numbers asserted here are
visible in the test itself. The files under examples/broken/ carry their expectations as
`# expect:` comments and are checked the same way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ftopt.catalogue.loader import load_catalogue
from ftopt.cli.main import cli
from tests.commands import write

REPO = Path(__file__).resolve().parents[2]
BROKEN = sorted((REPO / "examples" / "broken").glob("*.yaml"))

GOOD_RUN = """\
runs:
  - name: chat-lora
    model: llama-3.1-8b
    method: lora
"""


def estimate(*args: str) -> Result:
    return CliRunner().invoke(cli, ["estimate", *args])


def error_line(result: Result) -> str:
    """The single stderr line of a failed command, after checking exit 2 and no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("ftopt: ")
    return lines[0]


def test_misspelt_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    seq_lenght: 4096\n")
    line = error_line(estimate(str(path)))
    assert line == f"ftopt: {path}:5: runs[0].seq_lenght: unknown field (did you mean 'seq_len'?)"


def test_wrong_type(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    seq_len: long\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:5: runs[0].seq_len: ")
    assert "integer" in line


def test_unknown_model(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN.replace("llama-3.1-8b", "llama-9b"))
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:3: runs[0].model: unknown model 'llama-9b'")
    assert "expected one of: " in line and "llama-3.3-70b" in line


def test_unknown_card_in_hardware_gpus(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "hardware:\n  gpus: [h200-nvl, b200]\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:6: hardware.gpus[1]: unknown card 'b200'")
    assert "h200-nvl" in line and "rtx-pro-6000-se" in line


def test_unknown_feed(tmp_path: Path) -> None:
    path = write(tmp_path, "site:\n  feed: 110v-15a\n" + GOOD_RUN)
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:2: site.feed: unknown feed '110v-15a'")
    assert "230v-16a" in line


def test_negative_sequence_length(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    seq_len: -4096\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:5: runs[0].seq_len: ")
    assert "greater than 0" in line


def test_yaml_syntax_error_names_its_line(tmp_path: Path) -> None:
    # The unclosed flow list on line 6 is reported where the parser notices it, on line 7.
    path = write(tmp_path, GOOD_RUN + "hardware:\n  gpus: [h200-nvl, l40s\nsite:\n  feed: 230v-16a\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:7: not valid YAML: ")


def test_bad_indentation_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "runs:\n  - name: a\n    model: llama-3.1-8b\n   method: lora\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:4: not valid YAML: ")


def test_tab_indentation_is_named(tmp_path: Path) -> None:
    # A tab is the commonest YAML mistake; the message must say it is the tab, not "a character".
    path = write(tmp_path, "runs:\n\t- name: a\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:2: not valid YAML: ")
    assert "'\\t'" in line


def test_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- chat-lora\n- big-lora\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}: ")
    assert "expected a mapping" in line


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    assert "expected a mapping" in error_line(estimate(str(path)))


def test_run_name_used_twice(tmp_path: Path) -> None:
    second = "  - name: chat-lora\n    model: qwen3-8b\n    method: qlora\n"
    path = write(tmp_path, GOOD_RUN + second)
    line = error_line(estimate(str(path)))
    # The second run's name, on its own line 5 (GOOD_RUN takes lines 1-4).
    assert line.startswith(f"ftopt: {path}:5: runs[1].name: ")
    assert "'chat-lora' is used twice" in line


def test_gpus_three(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    gpus: 3\n")
    line = error_line(estimate(str(path)))
    assert line == f"ftopt: {path}:5: runs[0].gpus: expected auto or one of 1, 2, 4, 8, 16, 32, 64"


@pytest.mark.parametrize("gpus", ["12", "128", "24"])
def test_gpus_not_a_multi_node_count(tmp_path: Path, gpus: str) -> None:
    """Multi-node counts are powers of two from 16 to 64; anything else exits 2 like the rest."""
    path = write(tmp_path, GOOD_RUN + f"    gpus: {gpus}\n")
    result = estimate(str(path))
    assert result.exit_code == 2
    assert "expected auto or one of 1, 2, 4, 8, 16, 32, 64" in error_line(result)


def test_offload_cpu_with_lora(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    offload: cpu\n")
    line = error_line(estimate(str(path)))
    # A rule across fields of one run points at the field that breaks it.
    assert line.startswith(f"ftopt: {path}:5: runs[0].offload: ")
    assert "cpu applies to methods full, not lora" in line


def test_missing_method(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN.replace("    method: lora\n", ""))
    line = error_line(estimate(str(path)))
    # A missing field is not in the file: the line is that of the run it belongs to.
    assert line == f"ftopt: {path}:2: runs[0].method: required field is missing"


def test_missing_runs(tmp_path: Path) -> None:
    path = write(tmp_path, "site:\n  feed: 230v-16a\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}")
    assert "runs: required field is missing" in line


def test_unknown_method_lists_the_choices(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN.replace("method: lora", "method: lorra"))
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:4: runs[0].method: unknown method 'lorra' (did you mean 'lora'?)")
    # every method of the registry, in its order (a method added to methods.yaml is listed too)
    known = ", ".join(load_catalogue().methods.ids)
    assert known.startswith("full, lora, qlora, gptq-lora, dora") and line.endswith(
        f"expected one of: {known}"
    ), line


def test_workload_file_that_does_not_exist(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}: cannot read the file")


def test_price_list_with_a_bad_entry(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    prices = write(
        tmp_path,
        """\
        prices:
          - item: h200-nvl
            amount: -31000
            currency: USD
            date: "2026-10"
            source: our distributor
        """,
        "prices.yaml",
    )
    line = error_line(estimate(str(workload), "--prices", str(prices)))
    assert line.startswith(f"ftopt: {prices}:3: prices[0].amount: ")
    assert "greater than or equal to 0" in line


def test_price_list_for_an_unknown_item(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    prices = write(
        tmp_path,
        'prices:\n  - {item: b200, amount: 1, currency: USD, date: "2026-10", source: x}\n',
        "prices.yaml",
    )
    line = error_line(estimate(str(workload), "--prices", str(prices)))
    assert line.startswith(f"ftopt: {prices}:2: prices[0].item: ")
    assert "'b200'" in line


def test_price_list_that_does_not_exist(tmp_path: Path) -> None:
    workload = write(tmp_path, GOOD_RUN)
    line = error_line(estimate(str(workload), "--prices", str(tmp_path / "none.yaml")))
    assert "none.yaml: cannot read the file" in line


@pytest.mark.parametrize("path", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_examples(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = [
        line.split("# expect:", 1)[1].strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("# expect:")
    ]
    assert expected, f"{path.name} has no '# expect:' comment"
    monkeypatch.chdir(REPO)
    relative = str(path.relative_to(REPO))
    line = error_line(estimate(relative))
    assert line.startswith(f"ftopt: {relative}")
    for fragment in expected:
        assert fragment in line, (fragment, line)


def test_end_to_end_no_traceback(tmp_path: Path) -> None:
    """A real process: one stderr line, exit 2, nothing on stdout."""
    path = write(tmp_path, GOOD_RUN + "    seq_len: long\n")
    done = subprocess.run(
        [sys.executable, "-m", "ftopt.cli.main", "estimate", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"ftopt: {path}:5: runs[0].seq_len: ")


def test_unknown_stack_lists_the_stacks(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    stack: deepspeed\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(
        f"ftopt: {path}:5: runs[0].stack: unknown stack 'deepspeed' (did you mean 'hf-deepspeed'?); "
        "expected one of: "
    )
    assert "hf-deepspeed" in line and "torchtune" in line


def test_unknown_workload_stack(tmp_path: Path) -> None:
    path = write(tmp_path, "stack: axolotl\n" + GOOD_RUN)
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:1: stack: unknown stack 'axolotl'")


def test_train_tokens_and_dataset_tokens_together(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    train_tokens: 1000\n    dataset_tokens: 500\n    epochs: 2\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:")
    assert "runs[0].train_tokens: give train_tokens or dataset_tokens with epochs, not both" in line


def test_epochs_without_dataset_tokens(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    epochs: 2\n")
    line = error_line(estimate(str(path)))
    assert line == (
        f"ftopt: {path}:5: runs[0].epochs: dataset_tokens and epochs go together; dataset_tokens is missing"
    )


def test_deadline_must_be_positive(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    deadline_hours: 0\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:5: runs[0].deadline_hours: ")


def test_optimizer_the_stack_does_not_offer(tmp_path: Path) -> None:
    path = write(
        tmp_path, GOOD_RUN.replace("lora", "full") + "    stack: megatron\n    optimizer: adamw-8bit\n"
    )
    line = error_line(estimate(str(path)))
    assert line == f"ftopt: {path}:6: runs[0].optimizer: stack megatron offers adamw-32bit; not adamw-8bit"


def test_fp8_with_a_stack_without_fp8(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    precision: fp8\n")
    line = error_line(estimate(str(path)))
    assert line == f"ftopt: {path}:5: runs[0].precision: stack hf-fsdp does not train in fp8; use bf16"


def test_activation_offload_with_a_stack_that_does_not_offload(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    activation_offload: true\n")
    line = error_line(estimate(str(path)))
    problem = "stack hf-fsdp does not offload activations; use false"
    assert line == f"ftopt: {path}:5: runs[0].activation_offload: {problem}"
    offered = write(tmp_path, GOOD_RUN + "    stack: torchtune\n    activation_offload: true\n")
    assert estimate(str(offered)).exit_code == 0


def test_unknown_objective(tmp_path: Path) -> None:
    path = write(tmp_path, "objective: speed\n" + GOOD_RUN)
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:1: objective: expected 'price' or 'tco'")


def test_pue_below_one(tmp_path: Path) -> None:
    path = write(tmp_path, "energy:\n  pue: 0.9\n" + GOOD_RUN)
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:2: energy.pue: ")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("micro_batch: true", "runs[0].micro_batch: expected auto or an integer from 1 to 4096, got True"),
        ("micro_batch: fast", "runs[0].micro_batch: expected auto or an integer from 1 to 4096, got 'fast'"),
        ("micro_batch: 0", "runs[0].micro_batch: expected auto or an integer from 1 to 4096, got 0"),
        (
            "gradient_checkpointing: partial",
            "runs[0].gradient_checkpointing: expected true, false, auto, none, selective or full, "
            "got 'partial'",
        ),
        (
            "global_batch_tokens: 5000",
            "runs[0].global_batch_tokens: 5000 is not a whole number of 4096-token sequences",
        ),
    ],
)
def test_training_configuration_settings(tmp_path: Path, line: str, expected: str) -> None:
    path = write(tmp_path, GOOD_RUN + f"    {line}\n")
    assert error_line(estimate(str(path))) == f"ftopt: {path}:5: {expected}"


@pytest.mark.parametrize("setting", ["auto", "none", "selective", "full", "true", "false"])
def test_every_recomputation_setting_reads(tmp_path: Path, setting: str) -> None:
    path = write(tmp_path, GOOD_RUN + f"    gradient_checkpointing: {setting}\n    micro_batch: auto\n")
    assert estimate(str(path), "--format", "json").exit_code == 0


def test_a_method_the_stack_has_no_recipe_for(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    stack: torchtitan\n")
    assert (
        error_line(estimate(str(path)))
        == f"ftopt: {path}:4: runs[0].method: stack torchtitan trains full; not lora"
    )


def test_dora_only_on_a_stack_with_a_recipe_for_it(tmp_path: Path) -> None:
    dora = GOOD_RUN.replace("method: lora", "method: dora")
    assert estimate(str(write(tmp_path, dora + "    stack: torchtune\n")), "--format", "json").exit_code == 0
    path = write(tmp_path, dora + "    stack: unsloth\n")
    result = estimate(str(path))
    assert result.exit_code == 2
    assert (
        error_line(result)
        == f"ftopt: {path}:4: runs[0].method: stack unsloth trains full, lora, qlora; not dora"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            GOOD_RUN + "    seq_lenght: 4096\n",
            ":5: runs[0].seq_lenght: unknown field (did you mean 'seq_len'?)",
        ),
        (GOOD_RUN + "site: {fed: 230v-16a}\n", ":5: site.fed: unknown field (did you mean 'feed'?)"),
        # the misspelt key, not the field it leaves missing
        (
            GOOD_RUN + "site:\n  racks: [{name: r, units: 4, feed: [230v-16a]}]\n",
            "site.racks[0].feed: unknown field (did you mean 'feeds'?)",
        ),
        (
            GOOD_RUN.replace("llama-3.1-8b", "llama-3.1-8", 1),
            ":3: runs[0].model: unknown model 'llama-3.1-8' (did you mean 'llama-3.1-8b'?); expected one of:",
        ),
        (
            GOOD_RUN + "hardware: {gpus: [h200-nv]}\n",
            "hardware.gpus[0]: unknown card 'h200-nv' (did you mean 'h200-nvl'?)",
        ),
        (
            GOOD_RUN + "site:\n  racks: [{name: r, units: 4, feeds: [230v-16A]}]\n",
            "site.racks[0].feeds[0]: unknown feed '230v-16A' (did you mean '230v-16a'?)",
        ),
    ],
)
def test_did_you_mean_for_fields_and_ids(tmp_path: Path, text: str, expected: str) -> None:
    line = error_line(estimate(str(write(tmp_path, text))))
    assert expected in line


def test_no_suggestion_for_a_key_unlike_any_field(tmp_path: Path) -> None:
    line = error_line(estimate(str(write(tmp_path, GOOD_RUN + "    colour: blue\n"))))
    assert line.endswith("runs[0].colour: unknown field")


@pytest.mark.parametrize(
    ("text", "line_no", "words"),
    [
        (
            "runs:\n  - name: a\n    model: llama-3.1-8b\n   method: lora\n",
            4,
            "the indentation does not match",
        ),
        ("runs:\n\t- name: a\n", 2, "a tab ('\\t') indents this line; indent with spaces"),
        (GOOD_RUN + "hardware:\n  gpus: [h200-nvl, l40s\nsite: {}\n", 7, "a [ list ] is not closed"),
        (GOOD_RUN + "site: {feed: 230v-16a\n", 6, "a { mapping } is not closed"),
        ("name: 'acme\nruns: []\n", 3, "a quoted text is never closed"),
        ("name: *bid\n", 1, "an alias (*name) with no anchor (&name) above it"),
        (GOOD_RUN + "---\nname: b\n", 5, "a second document (---): one workload per file"),
    ],
)
def test_yaml_syntax_errors_in_the_projects_words(
    tmp_path: Path, text: str, line_no: int, words: str
) -> None:
    path = write(tmp_path, text)
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:{line_no}: not valid YAML: {words}")
    for raw in ("<block end>", "expected ','", "could not", "while scanning", "found character"):
        assert raw not in line  # PyYAML's own wording stays out


RACK = "site:\n  racks:\n    - {name: r, units: 4, feeds: [230v-16a]}\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            GOOD_RUN + "site:\n  feed: 230v-16a\n  racks: [{name: r, units: 4, feeds: [230v-16a]}]\n",
            ":6: site.feed: give feed (one server per feed) or racks, not both",
        ),
        (
            GOOD_RUN + RACK.replace("]}", "], redundant: true}"),
            ":7: site.racks[0].feeds: a redundant rack needs at least two circuits (an A and a B side)",
        ),
        (
            GOOD_RUN + RACK + "    - {name: r, units: 2, feeds: [230v-32a]}\n",
            ":8: site.racks[1].name: rack name 'r' is used twice",
        ),
        (
            GOOD_RUN + RACK.replace("units: 4", "units: 99"),
            ":7: site.racks[0].units: expected less than or equal to 60",
        ),
    ],
)
def test_a_bad_rack_is_one_line(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in error_line(estimate(str(write(tmp_path, text))))


def test_a_cuda_stack_with_only_amd_cards(tmp_path: Path) -> None:
    """Issue 30: hf-fsdp runs on no AMD Instinct card; the line names the ROCm stacks. (Written: a
    workload that names no stack gets rocm-fsdp on AMD-only cards, tests/reading/test_default_stack.py.)"""
    path = write(tmp_path, "stack: hf-fsdp\n" + GOOD_RUN + "hardware:\n  gpus: [mi350x]\n")
    line = error_line(estimate(str(path)))
    assert "stack 'hf-fsdp' runs on none of the allowed cards" in line
    assert line.endswith("expected one of: primus, rocm-fsdp, torchtune-rocm")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("-1", "greater than or equal to 0"),
        ("9", "less than or equal to 8"),
        ("'1'", "integer"),
        ("true", "integer"),
    ],
)
def test_spares_out_of_range_or_not_a_count(tmp_path: Path, value: str, expected: str) -> None:
    path = write(tmp_path, GOOD_RUN + f"    gpus: 16\n    spares: {value}\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:6: runs[0].spares: ") and expected in line, line


def test_spares_on_a_run_that_fits_one_server(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_RUN + "    gpus: 8\n    spares: 1\n")
    line = error_line(estimate(str(path)))
    assert line.startswith(f"ftopt: {path}:6: runs[0].spares: applies to copies over several servers")
    assert "not gpus 8" in line


def test_spares_in_queue_mode(tmp_path: Path) -> None:
    text = "queue: {horizon_hours: 100}\n" + GOOD_RUN + "    train_tokens: 1000000\n    spares: 1\n"
    line = error_line(estimate(str(path := write(tmp_path, text))))
    assert line.startswith(f"ftopt: {path}:7: runs[0].spares: queue mode plans copies on one server")
