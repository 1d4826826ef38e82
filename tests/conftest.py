"""Test-suite wide set-up: hypothesis profiles, and the repository root on sys.path.

Profiles (chosen with the environment variable HYPOTHESIS_PROFILE, default "default"):

- default: a bounded, derandomised run for CI. Few examples per property, no deadline (a CP-SAT
  solve has no stable wall time on a loaded machine), a fixed seed so that every CI run tries the
  same examples, and no example database, so that a failure seen once is reproduced by the same
  command rather than by a cache. A failure found this way is copied into tests/regressions/.
- long: thousands of examples in all (1,000 per property), random seeds, the example database on,
  for a night run: `HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest tests/properties`.

The repository root goes on sys.path so that `from tests.strategies import ...` works however
pytest is started (`python -m pytest` adds it by itself; the `pytest` script does not).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

settings.register_profile(
    "default",
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
