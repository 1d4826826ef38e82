"""The objective: least total price, then the tie-breaks, solved lexicographically.

Prices enter in cents so a user's price list with cents stays exact. The tie-breaks (fewer servers,
preferred options: 32-bit Adam, no offload, replicated over sharded, sharding on NVLink; then more
free memory per GPU) are a second objective solved with the price held at its optimum, so they
can never cost money.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.problem import ProblemData
from ftopt.solver.variables import Variables


def cents(amount: float) -> int:
    """A price in integer cents."""
    return round(amount * 100)


def price_expression(data: ProblemData, v: Variables) -> cp_model.LinearExpr:
    """Total price in cents: base price of every server plus the RAM and disk upgrades of slots."""
    terms: list[cp_model.LinearExpr] = []
    for f, servers in v.pool_servers.items():
        terms.append(cents(data.frames[f].price) * servers)
    for (f, s), used in v.slot_used.items():
        frame = data.frames[f]
        terms.append(cents(frame.fixed_price) * used)
        terms += [cents(t.price) * v.slot_ram[f, s, i] for i, t in enumerate(frame.ram_upgrades)]
        terms += [cents(t.price) * v.slot_disk[f, s, i] for i, t in enumerate(frame.disk_upgrades)]
    return sum(terms)  # type: ignore[return-value]


def _used_percent(data: ProblemData, option: int) -> int:
    sizing = data.options[option].sizing
    return round(100 * sizing.total_gb / sizing.card_gb)


def tie_break_expression(data: ProblemData, v: Variables) -> cp_model.LinearExpr:
    """Fewer servers first, then preferred options, then fuller cards last (less used memory)."""
    per_copy = [(o, x) for (o, *_), x in [*v.pool_copies.items(), *v.slot_copies.items()]]
    most_memory = 800 * sum(data.copies) + 1  # 100 % on up to 8 GPUs per copy
    most_preference = (5 * sum(data.copies) + 1) * most_memory
    memory = sum(_used_percent(data, o) * data.options[o].gpus * x for o, x in per_copy)
    preference = sum(data.options[o].preference * x for o, x in per_copy)
    return most_preference * sum(v.servers()) + most_memory * preference + memory  # type: ignore[return-value]
