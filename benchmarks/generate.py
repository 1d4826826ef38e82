"""Seeded generator of the benchmark instances: `python -m benchmarks.generate`.

Writes `benchmarks/instances/{tier}-NN.yaml` and `benchmarks/instances/known_optima.json`. Each
instance draws a pool of distinct run templates (model × method × sequence length × micro-batch ×
optimiser × GPU count, mostly `gpus: auto`) over the whole catalogue and spreads the tier's total of
run copies over them as `concurrent` counts (full fine-tunes get fewer copies than adapter sweeps,
as in real bids). Each instance has one feed and an inlet of 22-32 °C (above 30 °C no H200 NVL),
and sometimes allows only some cards.

The `multinode` tier adds about 20 copies of runs bigger than one server (16 to 64 GPUs on HGX
systems, `MULTINODE_RUNS`) beside a ~500-copy single-server mix, on a 400 V 32 A feed.

The last instance of every tier but `c200` and `multinode` is an *offload variant*: its full fine-tunes say
`offload: auto`, so ZeRO-Offload copies (large host RAM on few GPUs) become "heavy": a server must
hold them alone, and the product's model counts them in heavy classes and configurations rather than
in the builds' pools. Their copies are capped at `OFFLOAD_COPY_CAP` each.

Every run must fit some allowed build (checked by solving one copy of it while drawing);
every instance must be feasible (checked by solving it once; an infeasible draw is redrawn with the
next seed). The solve also records the proven optimal price in `known_optima.json`, which the CI
smoke test (tests/benchmarks/test_seed_tier.py) asserts.

Nothing here is random at import time and nothing depends on the clock: the same seed and the same
catalogue give byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ftopt import Catalogue, SolveSettings, Status, Workload, load_catalogue, solve

HERE = Path(__file__).resolve().parent
INSTANCES = HERE / "instances"
KNOWN_OPTIMA = INSTANCES / "known_optima.json"
BASE_SEED = 20261024

MODELS = (
    "llama-3.1-8b",
    "llama-3.3-70b",
    "qwen3-8b",
    "qwen3-14b",
    "qwen3-32b",
    "qwen3.8-27b",
    "mistral-7b-v0.3",
    "mixtral-8x7b",
)
CARDS = ("h200-nvl", "rtx-pro-6000-se", "h100-nvl", "l40s")
FEEDS = ("230v-16a", "230v-32a", "400v-3p-16a", "400v-3p-32a")
FEED_WEIGHTS = (1, 2, 4, 3)  # most GPU rooms have three-phase feeds
METHODS = ("lora", "qlora", "full")
METHOD_WEIGHTS = (4, 3, 3)
SEQ_LENS = (2048, 4096, 8192, 16384)
SEQ_WEIGHTS = (3, 4, 2, 1.5)
OFFLOAD_COPY_CAP = 8
FULL_COPY_WEIGHT = 0.3  # full fine-tunes are fewer than adapter sweeps


@dataclass(frozen=True)
class Tier:
    """One size class of instances."""

    name: str
    count: int  # instances
    copies: tuple[int, int]  # total run copies, inclusive range
    distinct: tuple[int, int]  # distinct runs, inclusive range
    offload_variant: bool  # whether the last instance lets full runs offload
    tier_index: int  # separates the seeds of the tiers
    kind: str = "mix"  # mix | heavy (offloading full runs) | checkpoints | limit (see ROBUSTNESS_TIERS)
    copies_each: int = 0  # heavy: copies of every run (0: one or two, drawn)
    multinode_copies: int = 0  # copies over several servers added beside `copies` (multinode tier)


TIERS = (
    Tier("seed", 6, (4, 20), (2, 6), True, 1),
    Tier("medium", 4, (90, 110), (12, 18), True, 2),
    Tier("c200", 1, (200, 200), (20, 20), False, 3),
    Tier("large", 3, (500, 500), (38, 42), True, 4),
    Tier("xl", 2, (2000, 2000), (38, 42), True, 5),
    Tier("multinode", 1, (500, 500), (38, 42), False, 11, multinode_copies=20),
)

#: The multinode tier's runs bigger than one server (issue 14), beside its single-server mix: full
#: fine-tunes that need 16 to 64 GPUs, on HGX systems, which need a three-phase 32 A feed and an
#: inlet of at most 30 °C.
MULTINODE_RUNS: tuple[dict[str, Any], ...] = (
    {"model": "llama-3.1-405b", "method": "full", "seq_len": 4096},
    {"model": "llama-3.3-70b", "method": "full", "optimizer": "adamw-32bit", "gpus": 16},
    {"model": "llama-3.3-70b", "method": "full", "seq_len": 8192, "gpus": 32},
    {"model": "qwen3-32b", "method": "full", "gpus": 16},
    {"model": "mixtral-8x7b", "method": "full", "optimizer": "adamw-32bit", "gpus": 16},
)
MULTINODE_SITE = {"feed": "400v-3p-32a"}

# Shapes that broke the solver (issue 13), solved by `python -m benchmarks.robustness`. The three
# heavy tiers share their seeds, so they hold the same forty runs at 1-2, 5 and 20 copies each.
ROBUSTNESS_TIERS = (
    Tier("heavy2", 1, (0, 0), (40, 40), False, 6, "heavy"),
    Tier("heavy5", 1, (0, 0), (40, 40), False, 6, "heavy", 5),
    Tier("heavy20", 1, (0, 0), (40, 40), False, 6, "heavy", 20),
    Tier("ckpt", 2, (90, 110), (28, 32), False, 7, "checkpoints"),
    Tier("d1000", 1, (1500, 1500), (1000, 1000), False, 8),
    Tier("d5000", 1, (7500, 7500), (5000, 5000), False, 9),
    Tier("limit", 2, (90, 110), (12, 18), False, 10, "limit"),
)
TIER_NAMES = tuple(t.name for t in TIERS)  # the tiers `python -m benchmarks` runs
ALL_TIERS = TIERS + ROBUSTNESS_TIERS


def _run_template(rng: random.Random, name: str, offload: bool) -> dict[str, Any]:
    """One run as a presales engineer would write it; defaults are left out, as in examples/."""
    method = rng.choices(METHODS, METHOD_WEIGHTS)[0]
    run: dict[str, Any] = {"name": name, "model": rng.choice(MODELS), "method": method}
    if method == "full":
        run["optimizer"] = rng.choices(("auto", "adamw-32bit", "adamw-8bit"), (2, 1, 1))[0]
        if offload and run["optimizer"] != "adamw-8bit":
            run["offload"] = "auto"
    else:
        run["lora_rank"] = rng.choice((8, 16, 32, 64))
        if rng.random() < 0.15:
            run["optimizer"] = "adamw-8bit"
    run["seq_len"] = rng.choices(SEQ_LENS, SEQ_WEIGHTS)[0]
    if rng.random() < 0.3:
        run["micro_batch"] = 2
    if rng.random() < 0.1 and run["seq_len"] <= 4096:
        run["gradient_checkpointing"] = False
    if rng.random() < 0.2:
        run["gpus"] = rng.choice((1, 2, 4, 8))
    if rng.random() < 0.1:
        run["keep_checkpoints"] = rng.choice((1, 5))
    return run


def _heavy_template(rng: random.Random, name: str) -> dict[str, Any]:
    """A full fine-tune that may offload: the copies a server must hold alone (heavy)."""
    run = _run_template(rng, name, True)
    run.pop("lora_rank", None)
    run["method"] = "full"
    run["optimizer"] = rng.choices(("auto", "adamw-32bit"), (2, 1))[0]
    run["offload"] = "auto"
    return run


def _checkpoint_template(rng: random.Random, name: str) -> dict[str, Any]:
    """Any run, keeping many checkpoints: NVMe, not GPUs, decides what shares a server."""
    run = _run_template(rng, name, False)
    run["keep_checkpoints"] = rng.choice((10, 20, 40))
    return run


def _site_and_hardware(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any] | None]:
    site = {"feed": rng.choices(FEEDS, FEED_WEIGHTS)[0], "inlet_c": rng.choice(range(22, 33))}
    hardware = None
    if rng.random() < 0.25:
        hardware = {"gpus": sorted(rng.sample(CARDS, rng.choice((2, 3))), key=CARDS.index)}
    return site, hardware


def _fits_alone(
    run: dict[str, Any], site: dict[str, Any], hardware: dict[str, Any] | None, catalogue: Catalogue
) -> bool:
    """Whether the product finds a plan for one copy of the run at this site (through the public API:
    a run no allowed build holds is infeasible before CP-SAT starts)."""
    doc = {"site": site, "runs": [run], **({"hardware": hardware} if hardware else {})}
    workload = Workload.model_validate(doc)
    settings = SolveSettings(time_limit=10, workers=1, verify=False)
    return solve(workload, catalogue, settings).status != Status.INFEASIBLE


def _apportion(rng: random.Random, runs: list[dict[str, Any]], total: int) -> list[int]:
    """`total` copies over the runs, each at least one; offload runs capped; full runs weighted down."""
    weights = [rng.lognormvariate(0, 1) * (FULL_COPY_WEIGHT if r["method"] == "full" else 1.0) for r in runs]
    caps = [OFFLOAD_COPY_CAP if r.get("offload") == "auto" else total for r in runs]
    counts = [1] * len(runs)
    left = total - len(runs)
    while left > 0:  # largest-remainder rounds, redistributing what the caps refuse
        open_ = [i for i in range(len(runs)) if counts[i] < caps[i]]
        if not open_:
            break
        mass = sum(weights[i] for i in open_)
        shares = {i: left * weights[i] / mass for i in open_}
        given = 0
        for i in open_:
            add = min(int(shares[i]), caps[i] - counts[i])
            counts[i] += add
            given += add
        if given == 0:  # hand out single copies by largest remainder
            i = max(open_, key=lambda j: (shares[j] - int(shares[j]), -j))
            counts[i] += 1
            given = 1
        left -= given
    return counts


def draw_instance(tier: Tier, seed: int, catalogue: Catalogue, name: str) -> dict[str, Any]:
    """One instance document, drawn from `seed`."""
    rng = random.Random(seed)
    total = rng.randint(*tier.copies)
    distinct = rng.randint(*tier.distinct)
    distinct = distinct if tier.kind == "heavy" else min(distinct, total)
    offload = tier.offload_variant and name.endswith(f"-{tier.count:02d}")
    site, hardware = _site_and_hardware(rng)
    if tier.multinode_copies:
        site, hardware = {**MULTINODE_SITE, "inlet_c": rng.choice(range(22, 30))}, None
    runs: list[dict[str, Any]] = []
    signatures: set[str] = set()
    attempts = 0
    while len(runs) < distinct:
        attempts += 1
        if attempts > 50 * distinct:
            raise RuntimeError(f"{name}: cannot draw {distinct} distinct fitting runs (seed {seed})")
        template = {"heavy": _heavy_template, "checkpoints": _checkpoint_template}.get(tier.kind)
        label = f"r{len(runs) + 1:02d}"
        run = template(rng, label) if template else _run_template(rng, label, offload)
        signature = json.dumps({k: v for k, v in run.items() if k != "name"}, sort_keys=True)
        if signature in signatures or not _fits_alone(run, site, hardware, catalogue):
            continue
        signatures.add(signature)
        runs.append(run)
    if tier.kind == "heavy":
        counts = [tier.copies_each or rng.choice((1, 2)) for _ in runs]
    else:
        counts = _apportion(rng, runs, total)
    for run, count in zip(runs, counts, strict=True):
        run["name"] = f"{run['model'].replace('.', '')}-{run['method']}-{run['name']}"
        if count > 1:
            run["concurrent"] = count
    if tier.multinode_copies:
        runs += _multinode_runs(rng, tier.multinode_copies)
    doc: dict[str, Any] = {"name": name, "site": site}
    if hardware:
        doc["hardware"] = hardware
    doc["runs"] = runs
    return doc


def _multinode_runs(rng: random.Random, copies: int) -> list[dict[str, Any]]:
    """The multi-node runs with `copies` copies spread over them, each at least one."""
    counts = [1] * len(MULTINODE_RUNS)
    for _ in range(copies - len(counts)):
        counts[rng.randrange(len(counts))] += 1
    runs = []
    for index, (template, count) in enumerate(zip(MULTINODE_RUNS, counts, strict=True), start=1):
        run = {"name": f"{template['model'].replace('.', '')}-multinode-m{index:02d}", **template}
        if count > 1:
            run["concurrent"] = count
        runs.append(run)
    return runs


def _header(tier: Tier, seed: int, doc: dict[str, Any]) -> str:
    limit = doc["site"].get("max_servers")
    if limit is not None:
        return _header_text(tier, seed, doc) + (
            f"# max_servers {limit}: one below the fewest servers any plan needs (infeasible).\n"
        )
    return _header_text(tier, seed, doc)


def _header_text(tier: Tier, seed: int, doc: dict[str, Any]) -> str:
    copies = sum(r.get("concurrent", 1) for r in doc["runs"])
    variant = (
        "; offload variant (full runs may offload)"
        if any(r.get("offload") == "auto" for r in doc["runs"])
        else ""
    )
    return (
        f"# Benchmark instance, tier {tier.name}: {copies} run copies of {len(doc['runs'])} "
        f"distinct runs{variant}.\n"
        f"# Generated by `python -m benchmarks.generate` (seed {seed}); do not edit by hand.\n"
    )


def solve_once(workload: Workload, catalogue: Catalogue, time_limit: float) -> tuple[str, float | None]:
    """Status and price of one solve: 'optimal' / 'feasible' / 'infeasible' / 'no-plan'."""
    result = solve(workload, catalogue, SolveSettings(time_limit=time_limit, workers=2))
    if result.plan is None:
        return ("infeasible" if result.status == "infeasible" else "no-plan"), None
    return result.status.value, result.price


def _limit_below_fewest(doc: dict[str, Any], catalogue: Catalogue) -> tuple[dict[str, Any], Workload]:
    """The bid with `max_servers` one below the fewest servers any plan of it needs.

    The optimum's server count is not that: a dearer plan may use fewer servers. So the limit goes
    down from FFD's count, one public solve each, until a solve proves no plan keeps it."""
    from benchmarks.baselines.ffd import first_fit_decreasing

    workload = Workload.model_validate(doc)
    solved = solve(workload, catalogue, SolveSettings(time_limit=60.0, workers=2))
    limit = (
        len(solved.plan.servers)
        if solved.plan
        else len(first_fit_decreasing(workload, catalogue).plan.servers)
    )
    settings = SolveSettings(time_limit=60.0, workers=1, verify=False)
    while limit > 1:
        limit -= 1
        trial = {**doc, "site": {**doc["site"], "max_servers": limit}}
        if solve(Workload.model_validate(trial), catalogue, settings).status == Status.INFEASIBLE:
            return trial, Workload.model_validate(trial)
    raise RuntimeError("no server limit makes the bid infeasible")


def generate(tiers: list[Tier], time_limit: float, base_seed: int = BASE_SEED) -> dict[str, Any]:
    """Write every instance of `tiers`; return the known optima found."""
    catalogue = load_catalogue()
    INSTANCES.mkdir(parents=True, exist_ok=True)
    optima: dict[str, Any] = json.loads(KNOWN_OPTIMA.read_text()) if KNOWN_OPTIMA.exists() else {}
    for tier in tiers:
        for stale in INSTANCES.glob(f"{tier.name}-*.yaml"):
            stale.unlink()
            optima.pop(stale.stem, None)
        for index in range(1, tier.count + 1):
            name = f"{tier.name}-{index:02d}"
            seed = base_seed + 1000 * tier.tier_index + 10 * index
            while True:
                doc = draw_instance(tier, seed, catalogue, name)
                workload = Workload.model_validate(doc)
                status, price = solve_once(
                    workload, catalogue, time_limit if tier in TIERS else min(time_limit, 10.0)
                )
                if tier.kind == "limit" and status != "infeasible":
                    doc, workload = _limit_below_fewest(doc, catalogue)
                    status, price = "infeasible", None
                    break
                print(f"{name}: seed {seed}, {workload.total_copies} copies, {status}, {price}", flush=True)
                if status != "infeasible":
                    break
                seed += 1  # regenerate with the next seed
            path = INSTANCES / f"{name}.yaml"
            path.write_text(_header(tier, seed, doc) + yaml.safe_dump(doc, sort_keys=False, width=110))
            if status == Status.OPTIMAL.value and tier not in ROBUSTNESS_TIERS:
                optima[name] = {"price": price, "copies": workload.total_copies, "seed": seed}
            else:
                optima.pop(name, None)
    KNOWN_OPTIMA.write_text(json.dumps(dict(sorted(optima.items())), indent=2) + "\n")
    return optima


def main(argv: list[str] | None = None) -> int:
    """Command line: which tiers, the solve time limit for the feasibility check."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.generate", description=__doc__.split("\n")[0])
    names = ", ".join(t.name for t in ALL_TIERS)
    parser.add_argument("--tiers", default=",".join(TIER_NAMES), help=f"comma-separated tiers of {names}")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per feasibility solve")
    parser.add_argument("--seed", type=int, default=BASE_SEED, help="base seed")
    args = parser.parse_args(argv)
    wanted = args.tiers.split(",")
    unknown = [t for t in wanted if t not in {t.name for t in ALL_TIERS}]
    if unknown:
        parser.error(f"unknown tier(s) {', '.join(unknown)}; expected some of {', '.join(TIER_NAMES)}")
    generate([t for t in ALL_TIERS if t.name in wanted], args.time_limit, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
