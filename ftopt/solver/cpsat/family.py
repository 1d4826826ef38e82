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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ortools.sat.python import cp_model

from ftopt.model.findings import Finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
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

    id: RelaxationId
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
    fragment of the workload schema and of the catalogue."""

    name: str
    relaxations: tuple[RelaxationId, ...]
    verifier_rules: tuple[str, ...]
    workload_fields: tuple[str, ...] = ()
    catalogue_fields: tuple[str, ...] = ()
    add: Add | None = None
    admits: Admits | None = None
    relax: Relax | None = None
    explain: Explain | None = None
    impossible: Impossible | None = None
    rack_limit: RackLimit | None = None


def site(data: ProblemData, **update: object) -> Workload:
    """The bid with its site's fields replaced: what most relaxations change."""
    workload = data.workload
    return workload.model_copy(update={"site": workload.site.model_copy(update=update)})
