"""The verifier's rule list: every check a rule module defines runs, once, in the documented order."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import ftopt.verify
from ftopt.verify.verifier import RULES, verify_plan


def _defined_checks() -> set[tuple[str, str]]:
    """(module, name) of every public `check_*` function the rule modules define."""
    found = set()
    for info in pkgutil.iter_modules(ftopt.verify.__path__):
        module = importlib.import_module(f"ftopt.verify.{info.name}")
        for name, value in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("check_") and value.__module__ == module.__name__:
                found.add((module.__name__, name))
    return found


def test_every_check_a_module_defines_is_a_rule() -> None:
    # A check written but not listed would never run: the plan would pass a rule nobody applies.
    registered = [(rule.__module__, rule.__name__) for rule in RULES]
    assert len(registered) == len(set(registered)), "a rule is listed twice"
    assert set(registered) == _defined_checks()


def test_the_parts_come_first_and_the_rent_last(solved) -> None:
    # A plan whose parts do not resolve is reported by the parts rules before any rule that reads them.
    assert RULES[0].__module__.endswith("components") and RULES[-1].__module__.endswith("rent")
    c = solved("first-project")
    broken = c.with_server(gpu="h300-nvl")
    rules = [v.rule for v in verify_plan(broken, c.workload, c.catalogue)]
    assert rules[0] == "catalogue-id"
