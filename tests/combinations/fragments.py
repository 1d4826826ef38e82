"""Small workloads made of composable fragments, one per feature, for the combination matrix.

Why fragments: every pair of features needs a workload, and 55 hand-written files would drift apart;
each feature here is one edit of a small base bid, so a workload is the base plus a few edits, named
by its features. `peak` is the base's own mode (every copy at once) and `queue` replaces it, so every
workload without `queue` carries `peak`.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
VENDOR_CATALOGUE = ROOT / "examples" / "vendor" / "catalogue"

FEATURES = (
    "peak",
    "queue",
    "inventory",
    "stock",
    "racks",
    "vendor",
    "multinode",
    "rl",
    "deadlines",
    "tco",
    "alternatives",
)

#: Two small runs, both with train_tokens (so every workload has hours and a frontier).
BASE: dict[str, Any] = {
    "runs": [
        {"name": "chat-lora", "model": "llama-3.1-8b", "method": "lora", "concurrent": 2,
         "train_tokens": 50_000_000},
        {"name": "code-qlora", "model": "qwen3-8b", "method": "qlora", "train_tokens": 30_000_000},
    ],
    "site": {"feed": "400v-3p-32a", "inlet_c": 25},
    "hardware": {"gpus": ["rtx-pro-6000-se", "h200-nvl", "l40s"]},
}  # fmt: skip

#: One owned four-card server, as a plan describes it (see examples/owned-servers.yaml).
OWNED = {
    "count": 1, "chassis": "gpu-server-4", "gpu": "rtx-pro-6000-se", "gpu_count": 4,
    "cpu": "epyc-9135", "cpu_count": 2, "dimm": "ddr5-32gb", "dimm_count": 24,
    "data_drive": "nvme-3.84tb", "data_drive_count": 2, "boot_drive": "nvme-boot-960gb",
}  # fmt: skip


def _queue(data: dict[str, Any]) -> None:
    data["queue"] = {"horizon_hours": 720}
    for run in data["runs"]:
        run["jobs"] = run.pop("concurrent", 1) + 1


def _inventory(data: dict[str, Any]) -> None:
    data["inventory"] = [dict(OWNED)]


def _stock(data: dict[str, Any]) -> None:
    data["site"]["delivery_weeks"] = 6


def _racks(data: dict[str, Any]) -> None:
    data["site"].pop("feed", None)
    data["site"]["racks"] = [
        {"name": "a", "units": 24, "feeds": ["400v-3p-32a", "400v-3p-32a"]},
        {"name": "b", "units": 24, "feeds": ["400v-3p-32a", "400v-3p-32a"]},
    ]


def _vendor(data: dict[str, Any]) -> None:
    data["hardware"]["gpus"].append("l4")  # the vendor's card, which only its catalogue has


def _multinode(data: dict[str, Any]) -> None:
    data["runs"].append(
        {
            "name": "wide-full",
            "model": "llama-3.1-8b",
            "method": "full",
            "gpus": 16,
            "train_tokens": 20_000_000,
            # a hot spare beside the copy (queue mode places no copy over several servers: none there)
            **({} if "queue" in data else {"spares": 1}),
        }
    )
    for card in ("h200-sxm", "b200-sxm"):
        if card not in data["hardware"]["gpus"]:
            data["hardware"]["gpus"].append(card)


def _rl(data: dict[str, Any]) -> None:
    data["runs"].append(
        {"name": "pref-dpo", "model": "llama-3.1-8b", "method": "dpo", "adapter": "lora", "seq_len": 2048,
         "train_tokens": 20_000_000}
    )  # fmt: skip


def _deadlines(data: dict[str, Any]) -> None:
    for run in data["runs"]:
        run["deadline_hours"] = 600 if "queue" in data else 400
    if "queue" in data:  # queue × confidence: one run's jobs scheduled on their P50 hours, one's on P90
        data["runs"][1]["deadline_confidence"] = 0.5


def _tco(data: dict[str, Any]) -> None:
    data["objective"] = "tco"


#: Each feature's edit of the base (`peak` and `alternatives` edit nothing: the first is the base's
#: mode, the second a flag of `solve`). Order matters where edits read each other: queue first.
EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "peak": lambda data: None,
    "queue": _queue,
    "inventory": _inventory,
    "stock": _stock,
    "racks": _racks,
    "vendor": _vendor,
    "multinode": _multinode,
    "rl": _rl,
    "deadlines": _deadlines,
    "tco": _tco,
    "alternatives": lambda data: None,
}


@dataclass(frozen=True)
class Combination:
    """A workload built from features: its name, its data and the flags its commands need."""

    features: tuple[str, ...]

    @property
    def name(self) -> str:
        return "+".join(self.features)

    def data(self) -> dict[str, Any]:
        """The base with each feature's edit, in `FEATURES` order (queue before deadlines)."""
        data = copy.deepcopy(BASE)
        data["name"] = self.name
        for feature in FEATURES:
            if feature in self.features:
                EDITS[feature](data)
        return data

    def write(self, folder: Path) -> Path:
        path = folder / f"{self.name}.yaml"
        path.write_text(yaml.safe_dump(self.data(), sort_keys=False), encoding="utf-8")
        return path

    @property
    def catalogue_args(self) -> list[str]:
        """`--catalogue DIR` for a workload that names the vendor's card."""
        return ["--catalogue", str(VENDOR_CATALOGUE)] if "vendor" in self.features else []

    def pairs(self) -> set[frozenset[str]]:
        """Every pair of features this workload holds, `peak` included when it is not a queue."""
        held = set(self.features) | ({"peak"} if "queue" not in self.features else set())
        return {frozenset(p) for p in itertools.combinations(sorted(held), 2)}


def affine_plane_triples(items: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The twelve lines of the affine plane over Z3 on nine items: every pair in exactly one triple.

    Why: nine features give 36 pairs; twelve workloads of three features cover each pair once, where
    one workload per pair would be 36 solves of everything."""
    assert len(items) == 9
    point = {(x, y): items[3 * x + y] for x in range(3) for y in range(3)}
    lines = [[(x, y) for y in range(3)] for x in range(3)]  # rows
    lines += [[(x, y) for x in range(3)] for y in range(3)]  # columns
    lines += [[(x, (slope * x + c) % 3) for x in range(3)] for slope in (1, 2) for c in range(3)]
    return [tuple(point[p] for p in line) for line in lines]
