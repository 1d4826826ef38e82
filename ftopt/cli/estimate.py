"""`ftopt estimate WORKLOAD.yaml`: the sizing of each run on each card and GPU count, no solver.

For every run, every allowed card (the workload's `hardware.gpus`, else the whole catalogue) and
every way the run's settings allow (`all_sizings`: GPU counts, strategies, optimisers, offload),
it prints memory per GPU, whether it fits, host RAM, checkpoint size, traffic, the step time's lower
bound, and the speed model's tokens per second per copy (with the hours to train when the run gives
`train_tokens`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table

from ftopt.cli import echo_json, open_catalogue, prices_option, stdout_console, table_or_json_option
from ftopt.cli.errors import handle_errors
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import trainable_params
from ftopt.model.parallelism import config_label, config_record
from ftopt.model.references import allowed_gpus
from ftopt.model.sizing import RunProfile, Sizing, all_sizings, profile_run
from ftopt.model.speed import Speed, estimate_speed, hours_to_train, planning_host, speed_ranker
from ftopt.model.workload import Workload
from ftopt.reading.workload_file import load_workload


def gb(value: float) -> float:
    """GB figures to 0.1 (never -0.0)."""
    return round(value, 1) + 0.0


def seconds(value: float) -> float:
    """Seconds to three decimals."""
    return round(value, 3) + 0.0


def run_sizings(workload: Workload, catalogue: Catalogue) -> list[tuple[RunProfile, list[Sizing]]]:
    """Each run's profile with its sizings on every allowed card, in catalogue order."""
    result = []
    for run in workload.runs:
        profile = profile_run(run, catalogue)
        sizings = [
            sizing
            for gpu in allowed_gpus(catalogue, workload)
            for sizing in all_sizings(profile, gpu, workload.sizing, speed_ranker(profile, gpu, catalogue))
        ]
        result.append((profile, sizings))
    return result


def speed_of(profile: RunProfile, sizing: Sizing, catalogue: Catalogue) -> Speed | None:
    """The speed model's estimate for one sizing, on a planning host; None without speed data."""
    if profile.stack is None or catalogue.speed is None:
        return None
    host = planning_host(catalogue, sizing.gpus, catalogue.speed)
    gpu = catalogue.gpu(sizing.gpu)
    return estimate_speed(profile, sizing, gpu, profile.stack, catalogue.speed, host)


def speed_record(profile: RunProfile, speed: Speed | None) -> dict[str, Any]:
    """Tokens per second, the step's parts and, with train_tokens, the hours to train."""
    if speed is None:
        return {"tokens_per_s": None, "hours": None, "speed": None}
    tokens = profile.run.train_tokens
    return {
        "tokens_per_s": round(speed.tokens_per_s, 1),
        "hours": round(hours_to_train(tokens, speed), 2) if tokens else None,
        "speed": {
            "stack": profile.stack.id if profile.stack else None,
            "precision": speed.precision,
            "link": speed.link,
            "mfu": speed.mfu,
            "step_seconds": seconds(speed.step_seconds),
            "compute_seconds": seconds(speed.compute_seconds),
            "dequant_seconds": seconds(speed.dequant_seconds),
            "exposed_comm_seconds": seconds(speed.exposed_comm_seconds),
            "offload_seconds": seconds(speed.offload_seconds),
            "optimizer_seconds": seconds(speed.optimizer_seconds),
            "overhead_seconds": seconds(speed.overhead_seconds),
        },
    }


def option_record(sizing: Sizing, speed: dict[str, Any] | None = None) -> dict[str, Any]:
    """One sizing as the JSON record of `estimate --format json`."""
    return {
        "gpu": sizing.gpu,
        "gpus": sizing.gpus,
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
        "host_ram_gb": gb(sizing.host_ram_gb),
        "checkpoint_gb": gb(sizing.checkpoint_gb),
        "traffic_gb_per_step": gb(sizing.traffic_gb_per_step),
        "step_seconds": seconds(sizing.step_seconds),
        **(config_record(sizing.config) if sizing.config else {}),
        **(speed or {}),
    }


def estimate_records(workload: Workload, catalogue: Catalogue) -> dict[str, Any]:
    """The whole estimate as plain data: `{"runs": [{run, params, trainable_params, options}]}`."""
    runs = []
    for profile, sizings in run_sizings(workload, catalogue):
        run = profile.run
        runs.append(
            {
                "run": run.name,
                "params": profile.counts.total,
                "trainable_params": trainable_params(profile.counts, run.method, run.lora_rank),
                "stack": profile.stack.id if profile.stack else None,
                "train_tokens": run.train_tokens,
                "options": [
                    option_record(s, speed_record(profile, speed_of(profile, s, catalogue))) for s in sizings
                ],
            }
        )
    return {"runs": runs}


def _count(value: int) -> str:
    if value >= 1e9:
        return f"{value / 1e9:,.2f} B"
    return f"{value / 1e6:,.1f} M"


def run_table(
    profile: RunProfile, sizings: list[Sizing], states_only: bool, catalogue: Catalogue | None = None
) -> Table:
    """One run's sizings as a rich table; with the catalogue, tokens/s (and hours) per option."""
    run = profile.run
    trainable = trainable_params(profile.counts, run.method, run.lora_rank)
    title = (
        f"{run.name}: {profile.model_name}, {run.method.value}, seq_len {run.seq_len:,}, "
        f"{_count(profile.counts.total)} params, "
        f"{_count(trainable)} trainable"
    )
    caption = (
        "GB per GPU (1 GB = 1e9 bytes); step s is a lower bound (compute and transfer overlap); "
        "configuration: micro-batch × accumulation, recomputation, parallel degrees (chosen by ftopt)"
    )
    stack = profile.stack.id if profile.stack else None
    if stack:
        title += f", stack {stack}"
        caption += f"; tok/s: speed model, per copy, {stack}"
        if run.train_tokens:
            caption += f"; hours for {run.train_tokens:,} tokens"
    if states_only:
        caption += "; model states only (--states-only)"
    table = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
    for header in ("card", "GPUs", "strategy", "optimizer", "offload"):
        table.add_column(header, no_wrap=True)
    table.add_column("configuration", ratio=1)  # wraps, so the figures keep their width
    for header in (
        "states",
        "activ.",
        "overhead",
        "total",
        "fits",
        "free",
        "host RAM",
        "ckpt GB",
        "traffic GB",
        "step s",
    ):
        table.add_column(header, justify="right", no_wrap=True)
    with_speed = catalogue is not None and stack is not None
    if with_speed:
        table.add_column("tok/s", justify="right", no_wrap=True)
        if run.train_tokens:
            table.add_column("hours", justify="right", no_wrap=True)
    for s in sizings:
        extra: list[str] = []
        speed = speed_of(profile, s, catalogue) if with_speed and catalogue else None
        if speed is not None:
            extra.append(f"{speed.tokens_per_s:,.0f}")
            if run.train_tokens:
                extra.append(f"{hours_to_train(run.train_tokens, speed):,.1f}")
        table.add_row(
            s.gpu,
            str(s.gpus),
            s.strategy.value,
            s.optimizer.value,
            s.offload.value,
            config_label(s.config) if s.config else "",
            f"{gb(s.states_gb):,.1f}",
            f"{gb(s.activations_gb):,.1f}",
            f"{gb(s.overhead_gb):,.1f}",
            f"{gb(s.total_gb):,.1f}",
            "yes" if s.fits else "no",
            f"{gb(s.free_gb):,.1f}",
            f"{gb(s.host_ram_gb):,.1f}",
            f"{gb(s.checkpoint_gb):,.1f}",
            f"{gb(s.traffic_gb_per_step):,.1f}",
            f"{seconds(s.step_seconds):,.3f}",
            *extra,
        )
    return table


@click.command()
@click.argument("workload_file", metavar="WORKLOAD.yaml", type=click.Path(path_type=Path))
@click.option(
    "--states-only",
    is_flag=True,
    help="Count model states only, as published sizing tables do (no activations or overhead).",
)
@table_or_json_option
@prices_option
@handle_errors
def estimate(workload_file: Path, states_only: bool, fmt: str, prices: Path | None) -> None:
    """Size each run on each card and GPU count, without the solver."""
    catalogue = open_catalogue(prices)
    workload = load_workload(workload_file, catalogue)
    if states_only:
        sizing = workload.sizing.model_copy(update={"states_only": True})
        workload = workload.model_copy(update={"sizing": sizing})
    if fmt == "json":
        echo_json(estimate_records(workload, catalogue))
        return
    console = stdout_console()
    for profile, sizings in run_sizings(workload, catalogue):
        console.print(run_table(profile, sizings, workload.sizing.states_only, catalogue))
        console.print()
