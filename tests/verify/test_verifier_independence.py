"""The verifier never uses the solver's code: no module under ftopt/verify (or the CLI command) imports it.

Checked twice: statically, on every import statement of the source (relative imports resolved, and
`from ftopt import solver` caught), and at run time, in a fresh interpreter that imports the verifier.
The top-level `ftopt/__init__.py` imports the solver for library users (`from ftopt import solve`),
so the run-time check stands an empty `ftopt` package in for it: what is then loaded is what the
verifier and the modules it uses pull in.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*sorted((ROOT / "ftopt" / "verify").glob("*.py")), ROOT / "ftopt" / "cli" / "verify.py"]
FORBIDDEN = "ftopt.solver"


def module_of(path: Path) -> str:
    """Dotted module name of a source file under ROOT."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module a source imports, relative imports resolved, `from a import b` also as `a.b`."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            found.add("__import__")
    return found


def forbidden(names: set[str]) -> set[str]:
    """The imports that reach the solver, or import modules by name at run time."""
    return {
        n
        for n in names
        if n == FORBIDDEN
        or n.startswith(FORBIDDEN + ".")
        or n in ("importlib", "__import__")
        or n.startswith("importlib.")
    }


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_verifier_module_imports_the_solver(path: Path) -> None:
    names = imports(path.read_text(encoding="utf-8"), module_of(path), path.name == "__init__.py")
    assert not forbidden(names), f"{path} imports {sorted(forbidden(names))}"


def test_the_sources_checked_are_the_verifier() -> None:
    names = {p.name for p in SOURCES}
    assert {"__init__.py", "verifier.py", "verify.py"} <= names
    assert len(SOURCES) >= 8


@pytest.mark.parametrize(
    "line",
    [
        "from ftopt.solver.solve import solve",
        "import ftopt.solver.problem.builds",
        "from ftopt import solver",
        "from ..solver import layout",
        "from ..solver.options import Mode",
        "import importlib",
        "x = __import__('ftopt.solver')",
    ],
)
def test_the_check_catches_every_form_of_import(line: str) -> None:
    assert forbidden(imports(line, "ftopt.verify.rules"))


def test_the_check_passes_the_model_layer() -> None:
    source = (
        "from ftopt.model.sizing import size_run\nfrom . import context\nfrom .violation import Violation"
    )
    assert not forbidden(imports(source, "ftopt.verify.rules"))


def test_importing_the_verifier_loads_no_solver_module() -> None:
    code = (
        "import sys, types\n"
        "package = types.ModuleType('ftopt')\n"
        f"package.__path__ = [{str(ROOT / 'ftopt')!r}]\n"
        "sys.modules['ftopt'] = package\n"
        "import ftopt.verify\n"
        "from ftopt.verify import verify_plan, load_plan\n"
        "assert 'ftopt.model.sizing' in sys.modules\n"
        f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
