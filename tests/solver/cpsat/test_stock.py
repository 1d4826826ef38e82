"""The stock family: a part's stock (or the servers owned) caps the fleet in either model."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import stock
from ftopt.solver.cpsat.variables import make_variables
from ftopt.solver.problem.data import build_problem
from tests.solver.conftest import workload_from
from tests.solver.tiny import SMALL, catalogue, optimum


def test_a_stocked_card_caps_the_servers_that_carry_it() -> None:
    cards = catalogue().price("rtx-pro-6000-se")
    stocked = catalogue().with_prices((cards.model_copy(update={"stock": 4}),))
    data = build_problem(workload_from(SMALL), stocked)
    model = cp_model.CpModel()
    v = make_variables(model, data)
    stock.add(model, data, v.fleet(data), None)
    gpus = cp_model.LinearExpr.sum([data.builds[f].gpu_count * n for f, n in v.plain_servers.items()])
    assert optimum(model, gpus) == 4
    build = next(b for b in data.builds if b.gpu_count == 4)
    assert stock.admits(data, [build]) and not stock.admits(data, [build, build])


def test_the_stock_relaxation_lifts_every_stock_in_the_catalogue_not_the_bid() -> None:
    cards = catalogue().price("rtx-pro-6000-se")
    stocked = catalogue().with_prices((cards.model_copy(update={"stock": 4}),))
    data = build_problem(workload_from(SMALL), stocked)
    [eased] = stock.relax(data)
    assert eased.id == RelaxationId.STOCK and eased.workload == data.workload
    assert eased.catalogue is not None and eased.catalogue.stock("rtx-pro-6000-se") is None
    assert stock.relax(build_problem(workload_from(SMALL), catalogue())) == []
