"""The packaged rollout constants (data/rollout.yaml), read once."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

from ftopt.model.rollout import RolloutConstants


@lru_cache(maxsize=1)
def load_rollout_constants() -> RolloutConstants:
    """The rollout model's constants, validated; a broken packaged file is a bug, so it raises."""
    text = resources.files("ftopt.catalogue").joinpath("data/rollout.yaml").read_text(encoding="utf-8")
    return RolloutConstants.model_validate(yaml.safe_load(text))
