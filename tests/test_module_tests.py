"""Every module of the package is imported by a test; those of the model and the solver have a test
module of their own.

Why import, not coverage: a module reached only through the CLI or the solver is tested only as far
as those paths happen to go; a test that imports it names what it checks of that module.

By convention the tests of `ftopt/<package>/<path>/<name>.py` are `tests/<package>/<path>/test_<name>.py`
(the package's layout mirrored) or `tests/<package>/test_<name>.py` (flat); the few whose tests
were named after what they test rather than the module are listed in ELSEWHERE.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("model", "solver")

#: Modules whose test module has another name: module path → test path, both from the root.
ELSEWHERE = {
    "ftopt/model/stack.py": "tests/model/test_stack_memory.py",
    "ftopt/solver/problem/data.py": "tests/solver/test_problem.py",
    "ftopt/model/rl.py": "tests/model/test_roles.py",
    # tested through the rules that re-check them
    "ftopt/solver/explain/supply.py": "tests/verify/test_verifier_supply.py",
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


def _imported_by(tree: ast.Module) -> set[str]:
    """The dotted names a test module imports: modules, and `package.name` for each name it takes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@cache
def imported_by_tests() -> frozenset[str]:
    """Every dotted name some test module (tests/**/test_*.py) imports."""
    found: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        found |= _imported_by(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(found)


def every_module() -> list[Path]:
    return sorted(p.relative_to(ROOT) for p in (ROOT / "ftopt").rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("module", every_module(), ids=str)
def test_a_test_imports_the_module(module: Path) -> None:
    dotted = ".".join(module.with_suffix("").parts)
    assert dotted in imported_by_tests(), f"no test module imports {dotted}"
