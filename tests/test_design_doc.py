"""The docs stay true to the code: every verifier rule is in docs/design.md's rule map, every dotted
path a page (or the README) names imports, and every file they mention exists."""

from __future__ import annotations

import inspect
import re
from importlib import import_module
from pathlib import Path

import pytest

from ftopt.verify import RULES

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
#: Every page of the documentation site (docs/ and its sections) and the README.
DOCS = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]

#: A dotted path in backticks: `ftopt.solver.cpsat.constraints.add_gpu_blocks`.
DOTTED = re.compile(r"`(ftopt(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`")
#: A repository path: a file with a known ending (`ftopt/solver/decode/layout.py`, `rules.yaml`,
#: `render_*.py`), or a folder under a top-level one (`ftopt/verify/`).
FILE = re.compile(
    r"(?<![\w./-])([\w*-]+(?:/[\w.*-]+)*\.(?:py|md|yaml|json|toml)"
    r"|(?:ftopt|tests|benchmarks|examples|docs)/[\w./*-]*[\w*/])(?![\w/-])"
)
#: Where a bare file name (no folder) may live.
FOLDERS = ("", "ftopt", "tests", "benchmarks", "examples", "docs")


def rule_names() -> dict[str, str]:
    """Each verifier rule's printed name, from the `Violation("name", ...)` its function builds."""
    names = {}
    for rule in RULES:
        found = set(re.findall(r'Violation\(\s*"([a-z-]+)"', inspect.getsource(rule)))
        assert len(found) == 1, f"{rule.__qualname__} names {sorted(found) or 'no'} rule"
        names[found.pop()] = f"{rule.__module__}.{rule.__name__}"
    return names


def rule_map() -> dict[str, str]:
    """The rule map's rows: rule name → the rest of its row."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("## Rule map", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)` \|(.*)$", section, re.M)
    assert rows, "the rule map has rows"
    return dict(rows)


def family_rules() -> dict[str, str]:
    """Verifier rules of the rule families that bring their own data file: each is documented in its
    family's module docstring, which names the verifier function, so that such a family lands in its
    own files (docs/contributing/add-a-rule-family.md) without a row in design.md's map or a line in
    the verifier's list. Rule name → that docstring."""
    from ftopt.solver.cpsat.families import FAMILIES

    found = {}
    for family in FAMILIES:
        hook = next((h for h in (family.add, family.relax, family.explain) if h is not None), None)
        if family.data is None or hook is None:
            continue
        doc = import_module(hook.__module__).__doc__ or ""
        found.update({rule: doc for rule in family.verifier_rules})
    return found


def resolve(dotted: str) -> object:
    """Import the longest importable module prefix, then getattr the rest."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            value = getattr(value, name)
        return value
    raise ModuleNotFoundError(dotted)


def test_every_verifier_rule_is_in_the_rule_map() -> None:
    names, rows = rule_names(), rule_map() | family_rules()
    assert sorted(set(names) - set(rows)) == [], "verifier rules missing from docs/design.md's rule map"
    assert sorted(set(rows) - set(names)) == [], "rule map rows (or families) that name no verifier rule"
    for name, checker in names.items():
        assert f"`{checker}`" in rows[name], f"{name}: the map names its verifier function {checker}"


def test_every_rule_map_row_names_solver_code() -> None:
    for name, row in rule_map().items():
        enforced = row.split("|")[1]
        assert DOTTED.search(enforced), f"{name}: no enforcing function in the rule map"


def test_the_verifier_docstring_lists_the_same_rules() -> None:
    doc = import_module("ftopt.verify").__doc__ or ""
    listed = {n.strip() for line in re.findall(r"^- [^:]+: (.+)$", doc, re.M) for n in line.split(",")}
    assert listed | set(family_rules()) == set(rule_names())


@pytest.mark.parametrize(
    "dotted", sorted({d for doc in DOCS for d in DOTTED.findall(doc.read_text(encoding="utf-8"))})
)
def test_every_dotted_path_resolves(dotted: str) -> None:
    resolve(dotted)


#: Files the docs name as the user's own (a command's argument or output), not the repository's.
USERS_FILES = {
    "W.yaml",
    "G.yaml",
    "PLAN.json",
    "plan.json",
    "measured.yaml",
    "my-prices.yaml",
    "mine/bridges.yaml",
    "bid.yaml",  # a workbench download
    "workload.yaml",  # the reader's own workload and grid, in the Ray how-to
    "grid.yaml",
    "ruamel.yaml",  # not a file: the YAML library the workbench writes with
}
#: A Markdown link's target: page-relative, checked by the strict site build (tests/test_docs.py).
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")


def mentioned_files() -> list[tuple[str, str]]:
    texts = {
        str(doc.relative_to(ROOT)): LINK_TARGET.sub("]", doc.read_text(encoding="utf-8")) for doc in DOCS
    }
    found = {(name, path.rstrip("/.")) for name, text in texts.items() for path in FILE.findall(text)}
    return sorted((name, path) for name, path in found if path not in USERS_FILES)


def test_the_docs_mention_files() -> None:
    assert len(mentioned_files()) > 20


@pytest.mark.parametrize(("doc", "path"), mentioned_files())
def test_every_file_the_docs_mention_exists(doc: str, path: str) -> None:
    if "/" in path:
        found = list(ROOT.glob(path))
    else:  # a bare name such as `layout.py`: somewhere in the package, tests, benchmarks or docs
        found = [p for folder in FOLDERS for p in (ROOT / folder).glob(f"{'**/' if folder else ''}{path}")]
    assert found, f"{doc} mentions {path}, which the repository does not have"
