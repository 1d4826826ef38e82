"""docs/design.md states facts the code must keep: every module has its line, and each row of the
accepted-values table equals the constants it names and what the verifier accepts.

The verifier is probed, not read: a solved plan is edited one copy at a time (every GPU count, every
strategy) and the verifier's own rule functions say which edits they let through. So a row that
goes stale, a constant that changes or a verifier copy that drifts from the model each fail here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.fabric import MULTI_NODE_STRATEGIES, NETWORK
from ftopt.model.plan import Plan
from ftopt.model.sizing import strategy_choices
from ftopt.model.stack import LinkKind
from ftopt.model.topology import Interconnect
from ftopt.model.workload import GPU_COUNTS, MULTI_NODE_COUNTS, Strategy
from ftopt.verify import memory, multinode
from ftopt.verify.context import Context
from ftopt.verify.multinode import NETWORK as VERIFIER_NETWORK
from tests.verify.conftest import Case, solve_case

ROOT = Path(__file__).resolve().parents[1]
DESIGN = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")


def facts() -> dict[str, list[str]]:
    """The accepted-values table: fact → its values as written."""
    section = DESIGN.split("## Accepted values", 1)[1].split("\n## ", 1)[0]
    rows = [
        r for r in re.findall(r"^\| ([^|`-][^|]*?) \| ([^|]+?) \| [^|]+\|$", section, re.M) if r[0] != "fact"
    ]
    assert rows, "the design doc has an accepted-values table"
    return {fact: [v.strip() for v in values.split(",")] for fact, values in rows}


def numbers(fact: str) -> list[int]:
    return [int(v) for v in facts()[fact]]


def _with_copy(case: Case, index: int, **update: object) -> Plan:
    assignments = list(case.plan.assignments)
    assignments[index] = assignments[index].model_copy(update=update)
    return case.plan.model_copy(update={"assignments": assignments})


def _accepted_strategies(case: Case, index: int) -> set[str]:
    """The strategies the verifier's strategy rules let a copy have."""
    found = set()
    for strategy in Strategy:
        ctx = Context.build(_with_copy(case, index, strategy=strategy), case.workload, case.catalogue)
        if not [*memory.check_strategy(ctx), *multinode.check_multinode_strategy(ctx)]:
            found.add(strategy.value)
    return found


def _copy(case: Case, test: object) -> int:
    return next(i for i, a in enumerate(case.plan.assignments) if test(a))  # type: ignore[operator]


def test_gpu_counts_are_the_constants_and_what_the_verifier_accepts() -> None:
    assert numbers("GPU counts on one server") == list(GPU_COUNTS)
    assert numbers("GPU counts over several servers") == list(MULTI_NODE_COUNTS)
    assert numbers("GPU counts of a copy") == [*GPU_COUNTS, *MULTI_NODE_COUNTS]
    case = solve_case("first-project")  # its runs say no GPU count: `auto`
    assert all(run.gpus == "auto" for run in case.workload.runs)
    accepted = []
    for count in range(1, 129):
        ctx = Context.build(_with_copy(case, 0, gpus=list(range(count))), case.workload, case.catalogue)
        if not list(memory.check_gpu_count(ctx)):
            accepted.append(count)
    assert accepted == numbers("GPU counts of a copy")


def test_strategies_are_the_enum_and_what_the_verifier_accepts_where() -> None:
    assert facts()["strategies"] == [s.value for s in Strategy]
    assert facts()["strategies on one GPU"] == [s.value for s in strategy_choices(1)]
    assert facts()["strategies on several GPUs of one server"] == [s.value for s in strategy_choices(2)]
    assert facts()["strategies over several servers"] == [s.value for s in MULTI_NODE_STRATEGIES]
    case = solve_case("first-project")
    one = _copy(case, lambda a: len(a.gpus) == 1)
    several = _copy(case, lambda a: len(a.gpus) > 1 and not a.multinode)
    assert _accepted_strategies(case, one) == set(facts()["strategies on one GPU"])
    assert _accepted_strategies(case, several) == set(facts()["strategies on several GPUs of one server"])
    big = solve_case("multinode-405b")
    spanning = _copy(big, lambda a: a.multinode)
    assert _accepted_strategies(big, spanning) == set(facts()["strategies over several servers"])


def test_interconnects_and_link_kinds_are_the_types() -> None:
    assert facts()["interconnects a copy reports"] == [*get_args(Interconnect), NETWORK]
    assert NETWORK == VERIFIER_NETWORK  # the verifier's own copy of the multi-node link
    kinds = facts()["link kinds of the speed model"]
    assert kinds == list(get_args(LinkKind))
    constants = load_catalogue().speed
    assert constants is not None
    assert all(
        constants.bus_bandwidth_gbps.of(kind) > 0 for kind in get_args(LinkKind)
    )  # each has a measured bandwidth


def _own_data_families() -> dict[str, str]:
    """The modules of the rule families that bring their own data file, with the file's name: the
    families' registry lists them and their docstrings describe them, so that such a family lands in
    its own files (docs/contributing/add-a-rule-family.md) without a line in design.md's module map."""
    from ftopt.solver.cpsat.families import FAMILIES

    found = {}
    for family in FAMILIES:
        hook = next((h for h in (family.add, family.relax, family.explain) if h is not None), None)
        if family.data is not None and hook is not None:
            found[hook.__module__.replace(".", "/") + ".py"] = family.data
    return found


def _modules() -> list[str]:
    own = _own_data_families()
    return sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "ftopt").rglob("*.py")
        if "__pycache__" not in p.parts and str(p.relative_to(ROOT)) not in own
    )


@pytest.mark.parametrize("module", _modules())
def test_every_module_is_in_the_design_doc(module: str) -> None:
    assert f"`{module}`" in DESIGN, f"docs/design.md has no line for {module}"


def test_a_family_with_its_own_data_describes_itself_and_its_data_file() -> None:
    """Each module left out of the map above says in its docstring which data file it brings."""
    for module, data in _own_data_families().items():
        doc = (ROOT / module).read_text(encoding="utf-8").split('"""')[1]
        assert f"ftopt/catalogue/data/families/{data}.yaml" in doc, module
