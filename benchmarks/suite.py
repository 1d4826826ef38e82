"""What the benchmark steps share: where instances live, which tiers exist, and how to find them.

Kept apart from run.py and report.py so that the report never imports the runner (it reads only
results.json) and both agree on names and paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.generate import INSTANCES, TIER_NAMES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLES = ROOT / "examples"
RESULTS = HERE / "results.json"
#: `example` is examples/*.yaml; the others are benchmarks/instances/{tier}-NN.yaml.
ALL_TIERS = ("example", *TIER_NAMES)


@dataclass(frozen=True)
class Instance:
    """One workload file and its tier."""

    name: str
    tier: str
    path: Path


def discover(tiers: list[str] | tuple[str, ...]) -> list[Instance]:
    """Instance files of the wanted tiers, in tier order, plus examples/*.yaml as tier `example`."""
    found: list[Instance] = []
    for tier in tiers:
        if tier == "example":
            paths = sorted(EXAMPLES.glob("*.yaml")) if EXAMPLES.is_dir() else []
            found += [Instance(f"example:{p.stem}", "example", p) for p in paths]
        else:
            found += [Instance(p.stem, tier, p) for p in sorted(INSTANCES.glob(f"{tier}-*.yaml"))]
    return found


def relative(path: Path) -> str:
    """A path as results.json records it: from the repository root when inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
