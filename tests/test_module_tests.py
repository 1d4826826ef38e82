"""Every module of the model and the solver has a test module of its own.

By convention the tests of `ftopt/<package>/<path>/<name>.py` are `tests/<package>/<path>/test_<name>.py`
(the package's layout mirrored) or `tests/<package>/test_<name>.py` (flat); the few whose tests
were named after what they test rather than the module are listed in ELSEWHERE.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("model", "solver")

#: Modules whose test module has another name: module path → test path, both from the root.
ELSEWHERE = {
    "ftopt/model/stack.py": "tests/model/test_stack_memory.py",
    "ftopt/model/references.py": "tests/properties/test_references.py",
    "ftopt/solver/problem/data.py": "tests/solver/test_problem.py",
    "ftopt/model/rl.py": "tests/model/test_roles.py",
    # issue 20's modules, tested through the rules that re-check them (own unit tests still wanted)
    "ftopt/model/rent.py": "tests/verify/test_verifier_rent.py",
    "ftopt/solver/explain/supply.py": "tests/verify/test_verifier_supply.py",
    "ftopt/solver/problem/owned.py": "tests/verify/test_verifier_inventory.py",
    "ftopt/solver/search/queue_greedy.py": "tests/solver/test_queue.py",
}


def modules() -> list[Path]:
    return sorted(
        path.relative_to(ROOT)
        for package in PACKAGES
        for path in (ROOT / "ftopt" / package).rglob("*.py")
        if path.name != "__init__.py"
    )


def candidates(path: Path) -> list[Path]:
    """Where the tests of a module may be, from the root."""
    if str(path) in ELSEWHERE:
        return [Path(ELSEWHERE[str(path)])]
    relative = path.relative_to("ftopt")
    name = f"test_{path.stem}.py"
    return [Path("tests") / relative.parent / name, Path("tests") / relative.parts[0] / name]


@pytest.mark.parametrize("module", modules(), ids=str)
def test_the_module_has_a_test_module(module: Path) -> None:
    found = [p for p in candidates(module) if (ROOT / p).is_file()]
    assert found, f"{module} has no test module; expected one of {[str(p) for p in candidates(module)]}"


def test_every_package_is_checked() -> None:
    assert len(modules()) >= 35
    assert all((ROOT / p).is_file() for p in ELSEWHERE.values())
