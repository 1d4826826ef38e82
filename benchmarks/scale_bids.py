"""`python -m benchmarks.scale_bids DIR`: the bids of issue 38, written to DIR (kept outside the repo).

Why a generator of its own: `benchmarks.generate` checks every drawn run with a solve of its own
(about 20 ms each), which for 5,000 distinct runs takes minutes; here every candidate run is checked
at once, by building one problem of all candidates and keeping the runs some allowed build holds
(the same test the solver's precheck makes). The bids:

- `c500`: 500 copies of 40 runs; `c10000`: 10,000 copies of the same 40 runs;
- `d300`, `d1000`, `d5000`: 300, 1,000 and 5,000 distinct runs, 1.5 copies each on average;
- `heavy2`, `heavy20`: 40 full fine-tunes that may offload (`offload: auto`), 1-2 and 20 copies each;
- `ckpt`: ~100 copies of 30 runs keeping 10-40 checkpoints (NVMe decides what shares a server);
- `q200`, `q1000`: queues of 200 and 1,000 jobs over 60 runs, each run with its own release time
  and a 10-13-day window in a 30-day month, PCIe cards only.

Every bid has one three-phase 32 A feed and a 25 °C inlet; the same seed gives the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import yaml

from benchmarks.generate import _apportion, _checkpoint_template, _heavy_template, _run_template
from ftopt import Workload, load_catalogue, runs_fitting

SITE = {"feed": "400v-3p-32a", "inlet_c": 25}
SEED = 38
PCIE = ["rtx-pro-6000-se", "h200-nvl", "h100-nvl", "l40s"]
#: name: (kind, distinct runs, total copies or copies each)
BIDS: dict[str, tuple[str, int, int]] = {
    "c500": ("mix", 40, 500),
    "c10000": ("mix", 40, 10_000),
    "d300": ("mix", 300, 450),
    "d1000": ("mix", 1000, 1500),
    "d5000": ("mix", 5000, 7500),
    "heavy2": ("heavy", 40, 0),
    "heavy20": ("heavy", 40, 20),
    "ckpt": ("checkpoints", 30, 100),
}
QUEUES = {"q200": 200, "q1000": 1000}


def _fitting(runs: list[dict[str, Any]], hardware: dict[str, Any] | None) -> list[bool]:
    """Per candidate run, whether some allowed build holds one copy of it (one problem for all)."""
    doc = {"site": SITE, "runs": runs, **({"hardware": hardware} if hardware else {})}
    return runs_fitting(Workload.model_validate(doc), load_catalogue())


#: Rounds in a row that may draw no unseen run before the template is taken as exhausted.
MAX_EMPTY_ROUNDS = 50


def _draw_runs(
    rng: random.Random, kind: str, distinct: int, hardware: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """`distinct` distinct runs of `kind` that each fit some build alone.

    A round may draw only runs already seen (at 5,000 runs the templates' space thins out): it is
    drawn again rather than checked empty, and a template that yields nothing new for
    MAX_EMPTY_ROUNDS rounds is reported as too small for the bid."""
    template = {"heavy": _heavy_template, "checkpoints": _checkpoint_template}.get(kind)
    runs: list[dict[str, Any]] = []
    seen: set[str] = set()
    empty = 0
    while len(runs) < distinct:
        candidates = []
        for _ in range(2 * (distinct - len(runs)) + 10):
            run = template(rng, "r") if template else _run_template(rng, "r", False)
            signature = json.dumps(run, sort_keys=True)
            if signature not in seen:
                seen.add(signature)
                candidates.append(run)
        if not candidates:
            empty += 1
            if empty >= MAX_EMPTY_ROUNDS:
                raise ValueError(f"{kind}: only {len(runs)} distinct runs fit, {distinct} asked")
            continue
        empty = 0
        fits = _fitting([{**r, "name": f"c{i}"} for i, r in enumerate(candidates)], hardware)
        runs += [r for r, ok in zip(candidates, fits, strict=True) if ok][: distinct - len(runs)]
    for index, run in enumerate(runs, start=1):
        run["name"] = f"{run['model'].replace('.', '')}-{run['method']}-r{index:04d}"
    return runs


def bid(name: str, seed: int = SEED) -> dict[str, Any]:
    """One of BIDS as a workload document."""
    kind, distinct, copies = BIDS[name]
    rng = random.Random(f"{seed}-{'c' if name.startswith('c') and kind == 'mix' else name}")
    runs = _draw_runs(rng, kind, distinct, None)
    if kind == "heavy":
        counts = [copies or rng.choice((1, 2)) for _ in runs]
    else:
        counts = _apportion(rng, runs, copies)
    for run, count in zip(runs, counts, strict=True):
        if count > 1:
            run["concurrent"] = count
    return {"name": name, "site": SITE, "runs": runs}


def queue_bid(jobs: int, seed: int = SEED) -> dict[str, Any]:
    """`jobs` jobs over 60 adapter runs, each run with its own release and a 10-13-day window."""
    rng = random.Random(f"{seed}-q{jobs}")
    hardware = {"gpus": PCIE}
    runs = []
    for index, run in enumerate(_draw_runs(rng, "mix", 60, hardware), start=1):
        run.pop("gpus", None)
        run.pop("keep_checkpoints", None)
        if run["method"] == "full":
            run["method"], run["lora_rank"] = "lora", 16
            run.pop("optimizer", None)
        run["name"] = f"job{index:02d}-{run['model'].replace('.', '')}"
        run["train_tokens"] = rng.choice((10, 20, 40, 80)) * 1_000_000
        release = rng.randrange(0, 17) * 24
        run |= {"release_hours": release, "deadline_hours": release + rng.randint(10, 13) * 24}
        runs.append(run)
    for run, count in zip(runs, _apportion(rng, runs, jobs), strict=True):
        run["jobs"] = count
    return {
        "name": f"q{jobs}",
        "queue": {"horizon_hours": 720},
        "site": SITE,
        "hardware": hardware,
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the bids to (outside the repository)")
    parser.add_argument("--only", default="", help="comma-separated bid names (default: all)")
    parser.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help=f"another draw of the same bids (default {SEED}: the recorded draw)",
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or [*BIDS, *QUEUES]
    for name in names:
        doc = queue_bid(QUEUES[name], args.seed) if name in QUEUES else bid(name, args.seed)
        path = args.out / f"{name}.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
