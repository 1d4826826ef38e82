"""The package's import graph has no cycle, counting imports inside functions and type-checking blocks.

A cycle hidden behind a function-level import still ties two modules into one: neither can be read,
tested or moved alone. The graph is read from the source with `ast`, so nothing is imported to test it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "ftopt"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _targets(node: ast.AST, here: str, is_package: bool, modules: set[str]) -> list[str]:
    """The ftopt modules one import statement reaches: `from a.b import c` reaches a.b.c when c is a
    module, else a.b."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in modules]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        parent = here.split(".") if is_package else here.split(".")[:-1]
        parent = parent[: len(parent) - (node.level - 1)]
        base = ".".join([*parent, base] if base else parent)
    found = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
    if len(found) < len(node.names) and base in modules:
        found.append(base)
    return found


def import_graph() -> nx.DiGraph:
    """Module → module it imports, for every import anywhere in every ftopt module."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            for target in _targets(node, name, path.name == "__init__.py", set(modules)):
                if target != name and not name.startswith(target + "."):  # a package's own parent
                    graph.add_edge(name, target)
    return graph


def test_the_graph_sees_function_level_imports() -> None:
    graph = import_graph()
    assert graph.number_of_edges() > 200
    # ftopt/__init__.py imports its exports lazily, inside __getattr__ (PEP 562).
    assert graph.has_edge("ftopt", "ftopt.solver.solve")


def test_no_module_imports_itself_through_others() -> None:
    cycles = list(nx.simple_cycles(import_graph()))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join([*c, c[0]]) for c in cycles[:5])


#: The documented layers (docs/design.md, "Layers"), lowest first. A module may import modules of its
#: own layer and of layers below it, never above: the model knows nothing of reading files, the
#: catalogue's loaders, the verifier or the solver; the verifier nothing of the solver; inside the
#: solver each phase only what comes before it.
LAYERS = (
    ("ftopt.errors",),
    ("ftopt.model",),
    ("ftopt.reading",),
    ("ftopt.catalogue",),
    ("ftopt.verify",),
    ("ftopt.solver.problem",),
    ("ftopt.solver.cpsat",),
    ("ftopt.solver.decode",),
    ("ftopt.solver.explain",),
    ("ftopt.solver.search",),
    ("ftopt.solver.solve", "ftopt.solver"),
    ("ftopt.solver.frontier",),
    ("ftopt.sweep",),
    ("ftopt.quote",),  # every format of the quote: above what it draws, below who calls it
    ("ftopt.cli",),
    ("ftopt.serve",),  # the workbench: shows quotes through ftopt.quote, imports nothing of ftopt.cli
    ("ftopt.cli.main", "ftopt.cli.serve"),  # the command shell, which also starts the workbench
    ("ftopt",),
)


def layer_of(module: str) -> int:
    """The index of the layer a module belongs to: the longest matching prefix decides."""
    best, length = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = index, len(prefix)
    assert best >= 0, f"{module} is in no documented layer"
    return best


def upward_imports(graph: nx.DiGraph) -> list[str]:
    """Every import from a module to one of a higher layer, as `a -> b`."""
    return sorted(f"{a} -> {b}" for a, b in graph.edges if layer_of(b) > layer_of(a))


def test_every_module_is_in_a_documented_layer() -> None:
    assert {layer_of(m) for m in import_graph().nodes} == set(range(len(LAYERS)))


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = upward_imports(import_graph())
    assert not upward, "upward imports: " + "; ".join(upward)


def test_the_workbench_and_the_command_line_are_apart() -> None:
    """The workbench (serve) and the command line (cli) both call the quote package; neither imports the
    other, except the `ftopt serve` command that starts the workbench."""
    graph = import_graph()
    serve_to_cli = [
        f"{a} -> {b}" for a, b in graph.edges if a.startswith("ftopt.serve") and b.startswith("ftopt.cli")
    ]
    assert not serve_to_cli, serve_to_cli
    assert any(a.startswith("ftopt.serve") and b.startswith("ftopt.quote") for a, b in graph.edges)


def test_an_upward_import_is_caught() -> None:
    graph = import_graph()
    graph.add_edge("ftopt.model.estimate", "ftopt.catalogue.loader")  # the import issue 27 removed
    graph.add_edge("ftopt.solver.decode.plan_builder", "ftopt.solver.explain.supply")
    assert upward_imports(graph) == [
        "ftopt.model.estimate -> ftopt.catalogue.loader",
        "ftopt.solver.decode.plan_builder -> ftopt.solver.explain.supply",
    ]
