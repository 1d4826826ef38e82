"""Short functions: none above cyclomatic complexity 15, at most 2 above 10 per 1,000 lines.

Why a test: a function that branches on everything at once (the 39-way hint of wave 3) cannot be
tested branch by branch, and every wave added a few; the check keeps the next one from landing.
The measure is radon's (McCabe's count plus boolean operators and comprehensions), the one issue
27 set the targets in: each function and method counts on its own, nested functions too.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

PACKAGE = Path(__file__).resolve().parents[1] / "ftopt"
#: No function may branch more than this.
MOST = 15
#: A function above this is complex; at most COMPLEX_PER_KLOC of them per 1,000 lines.
COMPLEX = 10
COMPLEX_PER_KLOC = 2.0


@cache
def measured() -> tuple[list[tuple[str, str, int]], int]:
    """(module, function, complexity) of every function and method of the package, and its lines."""
    found, lines = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        code = path.read_text(encoding="utf-8")
        lines += code.count("\n")
        name = str(path.relative_to(PACKAGE.parent))
        # cc_visit lists each method both inside its class and on its own: the Function blocks are all.
        found += [
            (name, block.fullname, block.complexity)
            for block in cc_visit(code)
            if isinstance(block, Function)
        ]
    return found, lines


def test_no_function_branches_more_than_the_limit() -> None:
    functions, _ = measured()
    assert len(functions) > 1000, "the package was not read"
    over = sorted(f"{module}:{name} ({c})" for module, name, c in functions if c > MOST)
    assert over == [], f"above complexity {MOST}: {over}"


def test_complex_functions_are_few() -> None:
    functions, lines = measured()
    complex_ = sorted(f"{module}:{name} ({c})" for module, name, c in functions if c > COMPLEX)
    allowed = int(COMPLEX_PER_KLOC * lines / 1000)
    assert len(complex_) <= allowed, (
        f"{len(complex_)} functions above {COMPLEX} in {lines:,} lines: {complex_}"
    )
