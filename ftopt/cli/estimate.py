"""`ftopt estimate WORKLOAD.yaml`: renders `ftopt.estimate`'s records as tables or JSON.

For every run, every allowed card and every way the run's settings allow, on one server and over
several (`ftopt.model.estimate`), it prints memory per GPU, whether it fits, host RAM, checkpoint
size, traffic, the speed model's step time and tokens per second per copy (with the hours to train
when the run gives `train_tokens`). No rule is computed here: the records come from the library.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click
from rich.table import Table

from ftopt.cli import (
    FiniteFloatRange,
    catalogue_dir_option,
    open_catalogue,
    output_option,
    plain_console,
    prices_option,
    table_or_json_option,
)
from ftopt.cli.errors import handle_errors
from ftopt.cli.started import process_started
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
@click.option(
    "--time-limit",
    type=FiniteFloatRange(min=0.1),
    default=None,
    help="Seconds for the whole command: runs not reached by then are listed as not estimated "
    "(JSON: `not_estimated`) [default: no limit].",
)
@table_or_json_option
@output_option
@prices_option
@catalogue_dir_option
@handle_errors
def estimate_command(
    workload_file: Path,
    states_only: bool,
    time_limit: float | None,
    fmt: str,
    output: Path | None,
    prices: Path | None,
    catalogue_dir: Path | None,
) -> None:
    """Size each run on each card and GPU count, on one server and over several, without the solver."""
    catalogue = open_catalogue(prices, catalogue_dir)
    workload = load_workload(workload_file, catalogue)
    states_only = states_only or workload.sizing.states_only
    limited = _Limited(time_limit)
    # made and rendered run by run, until the time limit
    runs = limited.runs(iter_estimates(workload, catalogue, states_only=states_only), workload.runs)
    if fmt == "json":
        with _json_file(output) as out:
            write_runs_json(runs, out, limited)
        return
    with plain_console(output) as console:
        for run in runs:
            console.print(run_table(run, states_only))
            console.print()
        if limited.left_out:
            console.print(limited.sentence())


class _Limited:
    """The runs estimated before the deadline, and the names of those left out after it.

    Why: 5,000 distinct runs took 130 s; `--time-limit` bounds the command, and what it left out is
    said, never silently dropped. The deadline is counted from the process start (imports and the
    catalogue included), with a margin for writing the last run and closing the file."""

    MARGIN_S = 0.5

    def __init__(self, time_limit: float | None) -> None:
        self.time_limit = time_limit
        started = time.perf_counter() - _since_process_start()
        self.deadline = None if time_limit is None else started + time_limit - self.MARGIN_S
        self.left_out: list[str] = []

    def runs(self, estimates: Iterator[RunEstimate], runs: Sequence[Run]) -> Iterator[RunEstimate]:
        """`estimates` (one per run of `runs`) until the deadline; the rest go into `left_out`."""
        for index in range(len(runs)):
            if self.deadline is not None and time.perf_counter() > self.deadline:
                self.left_out = [run.name for run in runs[index:]]
                return
            yield next(estimates)

    def sentence(self) -> str:
        """What the time limit left out, as the table format ends."""
        names = ", ".join(self.left_out[:5]) + (", …" if len(self.left_out) > 5 else "")
        return f"{len(self.left_out)} run(s) not estimated within --time-limit {self.time_limit:g} s: {names}"


def _since_process_start() -> float:
    """Seconds since this process started (Python's start-up and imports count against the limit)."""
    try:
        return max(0.0, time.time() - process_started())
    except OSError:
        return 0.0


@contextmanager
def _json_file(output: Path | None) -> Iterator[IO[str]]:
    """The file to write JSON to: `output`, or stdout."""
    if output is None:
        yield sys.stdout
        return
    with output.open("w", encoding="utf-8") as out:
        yield out


def write_runs_json(runs: Iterable[RunEstimate], out: IO[str], limited: _Limited | None = None) -> None:
    """`{"runs": [...]}`, one run a line, written one run at a time, so that no more than one run's
    records are held; with `not_estimated` (the names a time limit left out) when there are any.

    Why one compact line per run: `json.dumps(indent=2)` runs Python's own encoder, which took a
    third of `ftopt estimate` on 300 runs and wrote 86 KB per run; the compact C encoder writes
    a third of that, and a reader (`json.load`, `jq`) sees the same document."""
    out.write('{"runs": [')
    for count, run in enumerate(runs):
        text = json.dumps(run_record(run), ensure_ascii=False, separators=(",", ":"))
        out.write(f"{',' if count else ''}\n{text}")
    out.write("\n]")
    if limited is not None and limited.left_out:
        out.write(f',\n"time_limit_s": {limited.time_limit!r},\n"not_estimated": ')
        out.write(json.dumps(limited.left_out, ensure_ascii=False))
    out.write("}\n")
