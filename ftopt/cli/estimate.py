"""`ftopt estimate WORKLOAD.yaml`: renders `ftopt.estimate`'s records as tables or JSON.

For every run, every allowed card and every way the run's settings allow, on one server and over
several (`ftopt.model.estimate`), it prints memory per GPU, whether it fits, host RAM, checkpoint
size, traffic, the speed model's step time and tokens per second per copy (with the hours to train
when the run gives `train_tokens`). No rule is computed here: the records come from the library.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click
from rich.table import Table

from ftopt.cli import (
    catalogue_dir_option,
    open_catalogue,
    output_option,
    plain_console,
    prices_option,
    table_or_json_option,
)
from ftopt.cli.errors import handle_errors
from ftopt.model.estimate import EstimateOption, RunEstimate, iter_estimates
from ftopt.model.parallelism import config_label, config_record
from ftopt.model.sizing import RunProfile, Sizing
from ftopt.model.speed import Speed
from ftopt.model.workload import Placement, Run
from ftopt.reading.workload_file import load_workload


def gb(value: float) -> float:
    """GB figures to 0.1 (never -0.0)."""
    return round(value, 1) + 0.0


def seconds(value: float) -> float:
    """Seconds to three decimals."""
    return round(value, 3) + 0.0


def speed_record(stack: str | None, speed: Speed) -> dict[str, Any]:
    """The speed model's step, in its parts."""
    return {
        "stack": stack,
        "precision": speed.precision,
        "link": speed.link,
        "mfu": speed.mfu,
        "step_seconds": seconds(speed.step_seconds),
        "compute_seconds": seconds(speed.compute_seconds),
        "dequant_seconds": seconds(speed.dequant_seconds),
        "exposed_comm_seconds": seconds(speed.exposed_comm_seconds),
        "parallel_seconds": seconds(speed.parallel_seconds),
        "offload_seconds": seconds(speed.offload_seconds),
        "optimizer_seconds": seconds(speed.optimizer_seconds),
        "overhead_seconds": seconds(speed.overhead_seconds),
    }


def option_record(option: EstimateOption, stack: str | None) -> dict[str, Any]:
    """One option as the JSON record of `estimate --format json`."""
    sizing, speed = option.sizing, option.speed
    return {
        "gpu": sizing.gpu,
        "gpus": sizing.gpus,
        "servers": option.servers,
        "strategy": sizing.strategy.value,
        "optimizer": sizing.optimizer.value,
        "offload": sizing.offload.value,
        "memory_per_gpu_gb": {
            "states": gb(sizing.states_gb),
            "activations": gb(sizing.activations_gb),
            "overhead": gb(sizing.overhead_gb),
            "total": gb(sizing.total_gb),
        },
        "fits": sizing.fits,
        "free_gb": gb(sizing.free_gb),
        "memory_margin": sizing.memory_margin,
        "headroom_gb": gb(sizing.headroom_gb),
        "host_ram_gb": gb(sizing.host_ram_gb),
        "checkpoint_gb": gb(sizing.checkpoint_gb),
        "traffic_gb_per_step": gb(sizing.traffic_gb_per_step),
        **(config_record(sizing.config) if sizing.config else {}),
        "step_seconds": seconds(speed.step_seconds) if speed else None,
        "bound_step_seconds": seconds(option.bound_step_seconds),
        "tokens_per_s": round(speed.tokens_per_s, 1) if speed else None,
        "hours": round(option.hours, 2) if option.hours is not None else None,
        "speed": speed_record(stack, speed) if speed else None,
        "no_speed": option.no_speed,
        **_rl_fields(sizing),
    }


def _rl_fields(sizing: Sizing) -> dict[str, Any]:
    """An RL layout's engine placement and roles, and a colocated layout's two phases per GPU
    (its peak, `total_gb`, is the larger); nothing for a supervised run."""
    if not sizing.roles:
        return {}
    fields: dict[str, Any] = {
        "placement": sizing.placement.value if sizing.placement else None,
        "train_gpus": sizing.train_gpus,
        "roles": [{"role": r.role.value, "gpus": r.gpus, "memory_gb": gb(r.memory_gb)} for r in sizing.roles],
    }
    if sizing.placement == Placement.COLOCATED:
        fields["phases_gb"] = {
            "training": gb(sizing.training_phase_gb),
            "generation": gb(sizing.generation_gb),
        }
    return fields


def gpus_cell(sizing: Sizing) -> str:
    """GPUs per copy; an RL copy with a separate engine shows training + engine GPUs."""
    engine = sizing.gpus - sizing.train_gpus if sizing.placement == Placement.SEPARATE else 0
    return f"{sizing.train_gpus}+{engine}" if engine else str(sizing.gpus)


def method_label(run: Run) -> str:
    """`lora`, or `grpo (lora)` for an RL run with its adapter."""
    label = run.algorithm_label
    return label if label == run.method else f"{label} ({run.method})"


def run_record(run: RunEstimate) -> dict[str, Any]:
    """One run's estimate as plain data."""
    profile = run.profile
    stack = profile.stack.id if profile.stack else None
    return {
        "run": profile.run.name,
        "params": run.params,
        "trainable_params": run.trainable_params,
        "stack": stack,
        "train_tokens": profile.run.train_tokens,
        "options": [option_record(o, stack) for o in run.options],
    }


def _count(value: int) -> str:
    if value >= 1e9:
        return f"{value / 1e9:,.2f} B"
    return f"{value / 1e6:,.1f} M"


def _caption(run: RunEstimate, states_only: bool, with_speed: bool) -> str:
    """What the table's columns mean, and the caveats of this run's figures (speed source, states
    only, options without speed, the memory margin), so the table reads on its own."""
    caption = (
        "GB per GPU (1 GB = 1e9 bytes); servers: whole servers one copy spans; configuration: "
        "micro-batch × accumulation, recomputation, parallel degrees (chosen by ftopt)"
    )
    caption += _speed_caption(run.profile, with_speed)
    if states_only:
        caption += "; model states only (--states-only)"
    stalled = sorted({o.no_speed for o in run.options if o.no_speed})
    if stalled:
        count = sum(1 for o in run.options if o.no_speed)
        caption += f"; {count} options show '-' for speed, {'; '.join(stalled)}"
    margin = run.options[0].sizing.memory_margin if run.options else 0.0
    if margin:
        caption += f"; fits: with total × {1 + margin:g} (the {margin:.0%} memory margin)"
    return caption


def _speed_caption(profile: RunProfile, with_speed: bool) -> str:
    """Where the time columns come from: the speed model (with hours when the run has tokens), or
    else a lower bound at the sizing MFU, which must not be read as an estimate."""
    if with_speed and profile.stack:
        text = f"; step s and tok/s: the speed model, per copy, {profile.stack.id}, cards at full power"
        if profile.run.train_tokens:
            text += f"; hours for {profile.run.train_tokens:,} tokens"
        return text
    return (
        f"; bound s: a lower bound on a step at {profile.run.name}'s sizing MFU (compute and transfer "
        "overlapped), not an estimate"
    )


def run_table(run: RunEstimate, states_only: bool) -> Table:
    """One run's options as a rich table: the speed model's step and tokens/s (and hours) where it
    has data, else the step's lower bound, named as one."""
    profile = run.profile
    r = profile.run
    title = (
        f"{r.name}: {profile.model_name}, {method_label(r)}, seq_len {r.seq_len:,}, "
        f"{_count(run.params)} params, {_count(run.trainable_params)} trainable"
    )
    if profile.stack:
        title += f", stack {profile.stack.id}"
    with_speed = any(o.speed is not None for o in run.options)
    table = Table(
        title=title,
        caption=_caption(run, states_only, with_speed),
        title_justify="left",
        caption_justify="left",
    )
    for header in ("card", "GPUs", "servers", "strategy", "optimizer", "offload"):
        table.add_column(header, no_wrap=True)
    table.add_column("configuration", ratio=1)  # wraps, so the figures keep their width
    numbers = ["states", "activ.", "overhead", "total", "fits", "free", "host RAM", "ckpt GB", "traffic GB"]
    numbers += ["step s", "tok/s"] if with_speed else ["bound s"]
    if with_speed and r.train_tokens:
        numbers.append("hours")
    for header in numbers:
        table.add_column(header, justify="right", no_wrap=True)
    for option in run.options:
        table.add_row(*_cells(option, with_speed, bool(r.train_tokens)))
    return table


def _cells(option: EstimateOption, with_speed: bool, with_hours: bool) -> list[str]:
    s = option.sizing
    cells = [
        s.gpu,
        gpus_cell(s),
        str(option.servers),
        s.strategy.value,
        s.optimizer.value,
        s.offload.value,
        config_label(s.config) if s.config else "",
        *(f"{gb(v):,.1f}" for v in (s.states_gb, s.activations_gb, s.overhead_gb, s.total_gb)),
        "yes" if s.fits else "no",
        *(f"{gb(v):,.1f}" for v in (s.free_gb, s.host_ram_gb, s.checkpoint_gb, s.traffic_gb_per_step)),
    ]
    if not with_speed:
        return [*cells, f"{seconds(option.bound_step_seconds):,.3f}"]
    speed = option.speed
    cells += [f"{speed.step_seconds:,.3f}", f"{speed.tokens_per_s:,.0f}"] if speed else ["-", "-"]
    if with_hours:
        cells.append(f"{option.hours:,.1f}" if option.hours is not None else "-")
    return cells


@click.command("estimate")
@click.argument("workload_file", metavar="WORKLOAD.yaml", type=click.Path(path_type=Path))
@click.option(
    "--states-only",
    is_flag=True,
    help="Count model states only, as published sizing tables do (no activations or overhead).",
)
@table_or_json_option
@output_option
@prices_option
@catalogue_dir_option
@handle_errors
def estimate_command(
    workload_file: Path,
    states_only: bool,
    fmt: str,
    output: Path | None,
    prices: Path | None,
    catalogue_dir: Path | None,
) -> None:
    """Size each run on each card and GPU count, on one server and over several, without the solver."""
    catalogue = open_catalogue(prices, catalogue_dir)
    workload = load_workload(workload_file, catalogue)
    states_only = states_only or workload.sizing.states_only
    runs = iter_estimates(workload, catalogue, states_only=states_only)  # made and rendered run by run
    if fmt == "json":
        with _json_file(output) as out:
            write_runs_json(runs, out)
        return
    with plain_console(output) as console:
        for run in runs:
            console.print(run_table(run, states_only))
            console.print()


@contextmanager
def _json_file(output: Path | None) -> Iterator[IO[str]]:
    """The file to write JSON to: `output`, or stdout."""
    if output is None:
        yield sys.stdout
        return
    with output.open("w", encoding="utf-8") as out:
        yield out


def write_runs_json(runs: Iterable[RunEstimate], out: IO[str]) -> None:
    """`{"runs": [...]}`, as `json.dumps(indent=2)` writes it, but one run at a time, so that no more
    than one run's records are held."""
    out.write('{\n  "runs": [')
    count = 0
    for run in runs:
        text = json.dumps(run_record(run), indent=2, ensure_ascii=False).replace("\n", "\n    ")
        out.write(f"{',' if count else ''}\n    {text}")
        count += 1
    out.write("\n  ]\n}\n" if count else "]\n}\n")
