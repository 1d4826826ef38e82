"""The registry: every family once, each declaring its relaxation ids, verifier rules and data, and
each registry function calling the hooks the families have."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ftopt.catalogue.loader import load_catalogue
from ftopt.model.findings import FindingKind
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RESOLVED, RelaxationId, relaxation_id
from ftopt.model.workload import Workload
from ftopt.solver.cpsat import families
from tests.solver.tiny import SMALL, problem

VERIFY = Path(__file__).resolve().parents[3] / "ftopt" / "verify"


def test_the_registry_holds_each_family_once_and_gives_the_racks_their_limits() -> None:
    names = [family.name for family in families.FAMILIES]
    assert len(names) == len(set(names))
    assert {"feed", "inlet", "memory", "deadline", "server-limit", "stock", "racks", "liquid"} <= set(names)
    limits = [f.rack_limit for f in families.FAMILIES if f.rack_limit is not None]
    assert limits and all(limit in families.RACKS.limits for limit in limits)


def test_every_relaxation_the_what_if_resolves_belongs_to_exactly_one_family() -> None:
    declared = [r for family in families.FAMILIES for r in family.relaxations]
    assert len(declared) == len(set(declared))
    assert set(RESOLVED) <= set(declared)
    # A family's own id (one that lands in its own files) is a slug that no core id spells.
    own = set(declared) - set(RESOLVED)
    assert all(relaxation_id(r) == r and r not in {c.value for c in RelaxationId} for r in own), own
    assert all(family.relax is not None for family in families.FAMILIES if family.relaxations)


def test_every_declared_verifier_rule_is_one_the_verifier_reports() -> None:
    text = "\n".join(path.read_text() for path in VERIFY.glob("*.py"))
    for family in families.FAMILIES:
        assert family.verifier_rules or family.name == "optimiser", family.name
        for rule in family.verifier_rules:
            assert f'"{rule}"' in text, f"{family.name}: the verifier has no rule {rule!r}"


def _resolves(model: type[BaseModel], path: str) -> bool:
    """Whether a dotted path (`site.racks[].liquid_kw`) names fields of the pydantic model."""
    current: Any = model
    for part in path.replace("[]", "").split("."):
        fields = getattr(current, "model_fields", {})
        if part not in fields:
            return False
        current = _inner(fields[part].annotation)
    return True


def _inner(annotation: Any) -> Any:
    """The model type inside an annotation (`tuple[Rack, ...] | None` → Rack), else the annotation."""
    for arg in getattr(annotation, "__args__", ()):
        found = _inner(arg)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return annotation


def test_every_family_declares_data_the_workload_and_the_catalogue_have() -> None:
    declared = load_catalogue().policy_fields()
    for family in families.FAMILIES:
        for path in family.workload_fields:
            if path.startswith("site.policy."):  # a field the family's own data file declares
                assert declared.get(path.removeprefix("site.policy."), ("",))[0] == family.data, path
                continue
            assert _resolves(Workload, path), f"{family.name}: workload field {path}"
        for path in family.catalogue_fields:
            assert _resolves(Catalogue, path), f"{family.name}: catalogue field {path}"
    assert not _resolves(Workload, "site.racks[].no_such_field")  # the check can fail


def test_relaxations_and_findings_come_from_the_families(solve_yaml: Callable[..., Plan]) -> None:
    data = problem(SMALL, max_servers=1)
    ids = [r.id for r in families.relaxations(data)]
    assert RelaxationId.SERVER_LIMIT in ids and len(ids) == len(set(ids))
    plan = solve_yaml(SMALL.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"), time_limit=10)
    assert FindingKind.SERVER_LIMIT in [f.kind for f in families.findings(data, plan)]
    assert families.admits(data, [data.builds[0]]) and not families.admits(data, [data.builds[0]] * 2)


def test_every_family_data_file_belongs_to_a_family_and_its_sentences_word_its_findings() -> None:
    """The catalogue loads every file of `families/`; each is some family's `data`, and a family with
    sentences has a binding line or a reason (the two lines `Family.finding` words)."""
    named = {family.data for family in families.FAMILIES if family.data is not None}
    assert set(load_catalogue().families) == named
    for family in families.FAMILIES:
        assert set(family.sentences) <= {"binding", "impossible"}, family.name
