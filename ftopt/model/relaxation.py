"""The stable ids of the relaxations: which rule of a bid a what-if eased.

Why ids and not words: a saving, a "feasible if" finding, the plan's JSON and the workbench's "ease"
button all name the rule that was eased. Telling them apart by the sentence ("a 400v-3p-32a feed")
made a reworded sentence silently change the explanation; an id stays put while its sentence is
reworded. The ids live in the model layer (no CP-SAT here) so that findings, the plan file and the
workbench can carry them; the solver's rule families (`ftopt.solver.cpsat.families`) declare which
id their relaxation has and build the eased bid.

The values are part of the plan file: never rename one (a test holds them fixed); add new ones.
"""

from __future__ import annotations

import re
from enum import StrEnum


class RelaxationId(StrEnum):
    """One eased rule of a bid, as findings, the JSON and the workbench name it."""

    DEADLINE = "deadline"  # every run's deadline loosened (by the hours the cheaper plan needs)
    MEMORY = "memory"  # a card with more memory than the bid allows
    HOST_RAM = "host-ram"  # host RAM per GPU memory eased (a catalogue rule)
    CORES = "cores"  # half the CPU cores per GPU (a catalogue rule)
    FEED = "feed"  # the next larger feed
    INLET = "inlet"  # a cooler room
    RACK_UNITS = "rack-units"  # taller racks
    CIRCUIT = "circuit"  # every rack's circuits at the catalogue's largest feed
    LIQUID_LOOP = "liquid-loop"  # each rack's liquid loop as large as its circuits
    NVLINK_DOMAIN = "nvlink-domain"  # sharded runs allowed outside one NVLink domain
    STOCK = "stock"  # no part limited by its stock
    OWNED_SERVERS = "owned-servers"  # the owned servers' counts
    SERVER_LIMIT = "server-limit"  # no site.max_servers
    OPTIMISER = "optimiser"  # 8-bit Adam for runs fixed at 32-bit


#: The relaxations a what-if re-solves today; the others are named ids only, for families whose
#: eased bid needs more than the workload and the catalogue hold (an owned server's count is a fact).
RESOLVED = frozenset(
    {
        RelaxationId.DEADLINE,
        RelaxationId.MEMORY,
        RelaxationId.HOST_RAM,
        RelaxationId.CORES,
        RelaxationId.FEED,
        RelaxationId.INLET,
        RelaxationId.RACK_UNITS,
        RelaxationId.CIRCUIT,
        RelaxationId.LIQUID_LOOP,
        RelaxationId.STOCK,
        RelaxationId.SERVER_LIMIT,
        RelaxationId.OPTIMISER,
    }
)


#: The relaxations that ease the catalogue (its host rules, its stock), not the bid: no edit of a
#: workload applies them, so the workbench cannot turn them into a new version.
CATALOGUE_RULES = frozenset({RelaxationId.HOST_RAM, RelaxationId.CORES, RelaxationId.STOCK})


def relaxation_id(value: object) -> str | None:
    """The id a finding's figure names: a `RelaxationId`, or the slug a rule family declares for its
    own relaxation (`outlet`: a family that lands in its own files names its id there, not here);
    None for a figure without one (a plan from before ids)."""
    if isinstance(value, str) and value in _VALUES:
        return RelaxationId(value)
    if isinstance(value, str) and FAMILY_ID.fullmatch(value):
        return value
    return None


_VALUES = frozenset(r.value for r in RelaxationId)
#: The shape of a family's own relaxation id: lowercase words joined by hyphens.
FAMILY_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
