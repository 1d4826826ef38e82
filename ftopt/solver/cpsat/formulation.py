"""Assembles the CP-SAT model from the constraint families, in dependency order."""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.solver.cpsat import constraints
from ftopt.solver.cpsat.fabric import add_fabric
from ftopt.solver.cpsat.families import add_families
from ftopt.solver.cpsat.objective import price_expression
from ftopt.solver.cpsat.variables import Variables, add_multinode_variables, make_variables
from ftopt.solver.problem.data import ProblemData


@dataclass
class Formulation:
    """The model, its variables, its price and the literals that switch rule groups on."""

    data: ProblemData
    model: cp_model.CpModel
    variables: Variables
    price: cp_model.LinearExpr
    place_run: dict[int, cp_model.IntVar]
    server_limit: cp_model.IntVar

    def enforce_all(self) -> None:
        """Switch every rule group on (the assumption literals are only for infeasibility cores)."""
        for literal in (*self.place_run.values(), self.server_limit):
            self.model.add(literal == 1)


def build_formulation(data: ProblemData) -> Formulation:
    """Variables, then the copies' placement rules, then every registered family of the site's rules
    (`ftopt.solver.cpsat.families.FAMILIES`), then the price objective."""
    model = cp_model.CpModel()
    v = make_variables(model, data)
    add_multinode_variables(model, data, v)
    place_run = {r: model.new_bool_var(f"place[{r}]") for r in range(len(data.profiles))}
    server_limit = model.new_bool_var("server_limit")
    constraints.add_every_copy_placed(model, data, v, place_run)
    constraints.add_heavy_classes_filled(model, data, v)
    constraints.add_gpu_blocks(model, data, v)
    constraints.add_light_room(model, data, v)
    add_families(model, data, v.fleet(data), server_limit)  # the site's rules, shared with the queue model
    v.fabric_cents = add_fabric(model, data, v)
    price = price_expression(data, v)
    model.minimize(price)
    return Formulation(data, model, v, price, place_run, server_limit)
