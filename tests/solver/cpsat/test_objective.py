"""The objective alone: prices in exact cents, each server counted at its build's price (plus its
energy under `objective: tco`), and tie-breaks that prefer fewer servers."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.objective import cents, price_expression, server_cost, tie_break_expression
from ftopt.solver.cpsat.variables import make_variables
from tests.solver.tiny import SMALL, optimum, problem


def test_cents_are_exact_for_prices_with_cents() -> None:
    assert cents(12_345.67) == 1_234_567
    assert cents(0.1 + 0.2) == 30  # float noise does not lose a cent
    assert server_cost(1000.0, 0.0) == 100_000
    assert server_cost(1000.0, 250.5) == 125_050


def test_the_price_is_the_servers_at_their_builds_prices() -> None:
    data = problem(SMALL)
    model = cp_model.CpModel()
    v = make_variables(model, data)
    counts = {f: 1 for f in v.plain_servers}  # one of each build (their domains allow that)
    for f, n in v.plain_servers.items():
        model.add(n == counts[f])
    builds = data.builds
    expected = sum(server_cost(builds[f].price, builds[f].energy_cost) * n for f, n in counts.items())
    assert optimum(model, price_expression(data, v)) == expected


def test_tie_breaks_rank_one_server_before_two_whatever_the_modes() -> None:
    data = problem(SMALL)
    values = []
    for servers in (1, 2):
        model = cp_model.CpModel()
        v = make_variables(model, data)
        model.add(cp_model.LinearExpr.sum(v.servers()) == servers)
        values.append(optimum(model, tie_break_expression(data, v), maximize=servers == 1))
    worst_with_one, best_with_two = values
    assert worst_with_one is not None and best_with_two is not None
    assert worst_with_one < best_with_two
