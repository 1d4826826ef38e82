"""The rule-family interface: one module per hard rule of a bid, with explicit optional hooks.

Why one interface: the peak model counts servers per build, per heavy configuration and per
multi-node option; the queue model counts servers per build over a horizon. A rule of the site
(the server limit, the parts in stock and the servers owned, the racks and their circuits, the
racks' liquid loops) asks only *how many servers of which build* are bought, so both models hand
every family the same `Fleet` (the build of each count) and the family adds its constraints once,
for both. Each family also owns what the rest of the solver asks of that rule: whether a plan in
hand keeps it, the eased bid a what-if re-solves (with its stable `RelaxationId`), the
binding-rule findings read off a plan, the reasons a bid without a plan gets, and the verifier rule
that re-checks it.

Why explicit hooks and not no-op methods: a family declares only what it has. A rule that filters
builds (the inlet) has no constraints; a rule of the racks (the liquid loop) has a `RackLimit` and
no constraints of its own. The registry (`ftopt.solver.cpsat.families`) calls a hook only where a
family set it, so "liquid adds nothing" is a missing hook, not an empty method that looks like a rule.
The declared data (`workload_fields`, `catalogue_fields`, `verifier_rules`) is checked by the
families' tests against the workload schema, the catalogue and the verifier's rule names.

Why a family may bring its data and sentences with it: a rule with inputs of its own (a site's PDU
outlets) names its data file (`data`: `ftopt/catalogue/data/families/<data>.yaml`, which declares
the `site.policy` fields it reads and holds its items), its own relaxation id (a lowercase slug, not
a value of the core `RelaxationId`) and its sentences (`sentences`: a binding line and a reason for a
bid without a plan, worded from the finding's figures by `Family.finding`). Such a family lands in
its module, its data file, its verifier rule, its test and its registry line; the workload, the
catalogue and the findings' models need no edit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ortools.sat.python import cp_model

from ftopt.model.family_data import FamilyData
from ftopt.model.findings import Figure, Finding, FindingKind
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Rack, Workload
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.data import ProblemData

#: Every server count of a model with the build it buys: (build, count) pairs, a build may repeat.
Fleet = Sequence[tuple[Build, cp_model.LinearExprT]]


class RackLimit(Protocol):
    """A per-rack capacity beyond units and circuits that a family adds (the liquid loop's kW)."""

    def need(self, build: Build) -> int:
        """What one server of the build takes of the rack's capacity (0: nothing)."""

    def capacity(self, rack: Rack) -> int | None:
        """The rack's capacity; None: the rack has none, so no server that needs some stands there."""


@dataclass(frozen=True)
class Relaxation:
    """A bid with one rule eased: the id findings and the workbench name it by, the words for people,
    and the eased workload (and catalogue, where the rule is the catalogue's: stock)."""

    id: str  # a `RelaxationId`, or a family's own slug
    words: str
    workload: Workload
    catalogue: Catalogue | None = None  # None: the bid's own catalogue


#: The family's constraints on the fleet; `enforce` switches those a conflict core may name.
Add = Callable[[cp_model.CpModel, ProblemData, Fleet, cp_model.IntVar | None], None]
#: Whether concrete servers (one build each, in the plan's order) keep the rule.
Admits = Callable[[ProblemData, Sequence[Build]], bool]
#: The bid with this rule eased (none: nothing to ease for this bid).
Relax = Callable[[ProblemData], list[Relaxation]]
#: The binding-rule lines this rule adds to a plan.
Explain = Callable[[ProblemData, Plan], list[Finding]]
#: Why the rule alone leaves a bid without a plan, when it can tell without a search.
Impossible = Callable[[ProblemData], list[Finding]]


@dataclass(frozen=True)
class Family:
    """One hard rule of a bid: what it declares, and the hooks it has (None: it has none).

    `relaxations` are the ids of the rule's what-ifs (none: the rule is a fact, not eased);
    `verifier_rules` the names of the independent verifier's rules that re-check it;
    `workload_fields` and `catalogue_fields` the data it reads (dotted paths, `[]` for a list), its
    fragment of the workload schema and of the catalogue; `data` the name of its own data file
    (`families/<data>.yaml`: the `site.policy` fields and items it brings), and `sentences` its
    own wording: `binding` (what shaped the answer) and `impossible` (why no plan), format strings
    over the figures `finding` is given."""

    name: str
    relaxations: tuple[str, ...]
    verifier_rules: tuple[str, ...]
    workload_fields: tuple[str, ...] = ()
    catalogue_fields: tuple[str, ...] = ()
    add: Add | None = None
    admits: Admits | None = None
    relax: Relax | None = None
    explain: Explain | None = None
    impossible: Impossible | None = None
    rack_limit: RackLimit | None = None
    data: str | None = None
    sentences: Mapping[str, str] = field(default_factory=dict)

    def finding(self, line: str, subject: str, **figures: Figure) -> Finding:
        """The family's own finding: its `binding` line or its `impossible` reason about `subject`,
        worded from `figures` by the family's sentence (format fields: the figures and `subject`)."""
        kind = FindingKind.FAMILY if line == "binding" else FindingKind.FAMILY_REASON
        text = self.sentences[line].format(subject=subject, **figures)
        return Finding(kind=kind, subject=subject, figures={"rule": self.name, **figures}, text=text)

    def items(self, catalogue: Catalogue) -> FamilyData:
        """The family's own data file, as the catalogue loaded it (empty when the file is absent)."""
        return catalogue.families.get(self.data or self.name, FamilyData())

    def policy(self, workload: Workload, name: str) -> str | int | float | bool | None:
        """The workload's `site.policy` value of one of the family's fields; None when not given."""
        return workload.site.policy.get(name)


def site(data: ProblemData, **update: object) -> Workload:
    """The bid with its site's fields replaced: what most relaxations change."""
    workload = data.workload
    return workload.model_copy(update={"site": workload.site.model_copy(update=update)})
