"""The CP-SAT decision variables, in one typed container.

Copies are integer counts, never one boolean per copy, so the model grows with distinct runs and
options, not with `concurrent`. Pool servers are a count per frame; slot servers are named.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from ftopt.solver.problem import ProblemData


@dataclass
class Variables:
    """Every variable of the model, keyed by the indices of the problem data."""

    pool_servers: dict[int, cp_model.IntVar] = field(default_factory=dict)  # frame
    pool_copies: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)  # option, frame
    slot_used: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)  # frame, slot
    slot_copies: dict[tuple[int, int, int], cp_model.IntVar] = field(default_factory=dict)  # o, f, s
    slot_ram: dict[tuple[int, int, int], cp_model.IntVar] = field(default_factory=dict)  # f, s, tier
    slot_disk: dict[tuple[int, int, int], cp_model.IntVar] = field(default_factory=dict)  # f, s, tier

    def copies_of_option(self, option: int) -> list[cp_model.IntVar]:
        """All count variables of one option, pool and slots."""
        pool = [v for (o, _), v in self.pool_copies.items() if o == option]
        return pool + [v for (o, _, _), v in self.slot_copies.items() if o == option]

    def servers(self) -> list[cp_model.IntVar]:
        """Pool counts and slot booleans: summed, the number of servers."""
        return [*self.pool_servers.values(), *self.slot_used.values()]


def make_variables(model: cp_model.CpModel, data: ProblemData) -> Variables:
    """Create and name all variables with tight domains."""
    v = Variables()
    copies = data.copies
    for f in sorted({f for _, f in data.pool}):
        v.pool_servers[f] = model.new_int_var(0, data.pool_bound(f), f"pool[{f}]")
    for o, f in data.pool:
        run = data.options[o].run
        v.pool_copies[o, f] = model.new_int_var(0, copies[run], f"y[{o},{f}]")
    for f, count in data.slots.items():
        frame = data.frames[f]
        for s in range(count):
            v.slot_used[f, s] = model.new_bool_var(f"used[{f},{s}]")
            for t in range(len(frame.ram_upgrades)):
                v.slot_ram[f, s, t] = model.new_bool_var(f"ram[{f},{s},{t}]")
            for t in range(len(frame.disk_upgrades)):
                v.slot_disk[f, s, t] = model.new_bool_var(f"disk[{f},{s},{t}]")
    for o, f in data.slot_pairs:
        option = data.options[o]
        most = min(copies[option.run], data.frames[f].gpu_count // option.gpus)
        for s in range(data.slots[f]):
            v.slot_copies[o, f, s] = model.new_int_var(0, most, f"z[{o},{f},{s}]")
    return v
