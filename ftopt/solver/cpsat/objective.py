"""The objective: least total price (or TCO), then the tie-breaks, solved lexicographically.

Prices enter in cents so a user's price list with cents stays exact. The tie-breaks (fewer servers,
faster modes, preferred modes: 32-bit Adam, no offload, replicated over sharded, sharding on NVLink; then more
free memory per GPU) are a second objective solved with the price held at its optimum, so they
can never cost money.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.variables import Variables
from ftopt.solver.problem.data import ProblemData


def cents(amount: float) -> int:
    """A price in integer cents."""
    return round(amount * 100)


def server_cost(price: float, energy_cost: float) -> int:
    """What one server adds to the objective, in cents: its price, and with `objective: tco` its
    energy over the years (`Build.energy_cost`, zero otherwise). The energy is a per-build constant,
    so TCO is the same count model with other coefficients."""
    return cents(price) + cents(energy_cost)


def price_expression(data: ProblemData, v: Variables) -> cp_model.LinearExpr:
    """Total price in cents: plain servers at their build's price, configurations at theirs (each
    with its build's energy cost under `objective: tco`), multi-node copies' servers, the fabric."""
    builds = data.builds
    plain = [server_cost(builds[f].price, builds[f].energy_cost) * n for f, n in v.plain_servers.items()]
    heavy = [
        server_cost(data.configs[c].price, builds[data.configs[c].build].energy_cost) * n
        for c, n in v.config_servers.items()
    ]
    terms: list[cp_model.LinearExprT] = [*plain, *heavy, *_multinode_terms(data, v), v.fabric_cents]
    return cp_model.LinearExpr.sum(terms)


def _multinode_terms(data: ProblemData, v: Variables) -> list[cp_model.LinearExprT]:
    """Cents of every multi-node option's servers, by copies (the fabric is `v.fabric_cents`)."""
    return [
        (cents(o.price) + o.servers * cents(o.build.energy_cost)) * v.multinode_copies[o.mode]
        for o in data.multinode
    ]


def _used_percent(data: ProblemData, mode: int) -> int:
    sizing = data.modes[mode].sizing
    return round(100 * sizing.total_gb / sizing.card_gb)


def tie_break_expression(data: ProblemData, v: Variables) -> cp_model.LinearExpr:
    """Fewer servers first, then faster modes (none marked slower), then preferred modes, then fuller
    cards last (less used memory)."""
    per_mode = v.copies_by_mode()
    most_memory = 800 * sum(data.copies) + 1  # 100 % on up to 8 GPUs per copy
    worst = max((mode.preference for mode in data.modes), default=0)  # a slice mode's is up to 8
    most_preference = (worst * sum(data.copies) + 1) * most_memory
    most_slowness = (sum(data.copies) + 1) * most_preference
    memory = sum(_used_percent(data, m) * data.modes[m].gpus * x for m, x in per_mode)
    preference = sum(data.modes[m].preference * x for m, x in per_mode)
    slowness = sum(data.modes[m].slowness * x for m, x in per_mode)
    servers = most_slowness * sum(v.servers())
    return servers + most_preference * slowness + most_memory * preference + memory  # type: ignore[return-value]
