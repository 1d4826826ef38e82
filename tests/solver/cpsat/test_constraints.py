"""Each constraint family alone, on tiny problems: what it forbids and what it still permits."""

from __future__ import annotations

import math

from ortools.sat.python import cp_model

from ftopt.solver.cpsat import constraints
from ftopt.solver.cpsat.variables import Variables, make_variables
from ftopt.solver.problem.data import ProblemData
from tests.solver.tiny import HEAVY, SHARING, SMALL, optimum, problem


def _switch(model: cp_model.CpModel, on: bool) -> cp_model.IntVar:
    literal = model.new_bool_var("switch")
    model.add(literal == int(on))
    return literal


def _bare(data: ProblemData) -> tuple[cp_model.CpModel, Variables]:
    model = cp_model.CpModel()
    return model, make_variables(model, data)


def _copies_of(data: ProblemData, v: Variables, run: int) -> cp_model.LinearExpr:
    return cp_model.LinearExpr.sum([x for o, x in v.copies_by_mode() if data.modes[o].run == run])


def test_every_copy_placed_fixes_each_runs_copies_when_switched_on() -> None:
    data = problem(SMALL)
    for switched_on in (True, False):
        model, v = _bare(data)
        enforce = {r: _switch(model, switched_on) for r in range(len(data.profiles))}
        constraints.add_every_copy_placed(model, data, v, enforce)
        most = optimum(model, _copies_of(data, v, 0))
        if switched_on:
            assert most == data.copies[0] == 3
            model, v = _bare(data)
            enforce = {r: _switch(model, True) for r in range(len(data.profiles))}
            constraints.add_every_copy_placed(model, data, v, enforce)
            assert optimum(model, _copies_of(data, v, 0), maximize=False) == 3
        else:  # off (an infeasibility core leaves it out): only the variables' domains bound it
            assert most is not None and most > 3


def _one_server(data: ProblemData, gpus: int) -> tuple[cp_model.CpModel, Variables, int]:
    """A bare model with the GPU-block family and exactly one server of the `gpus`-card build."""
    model, v = _bare(data)
    build = next(f for f, b in enumerate(data.builds) if b.gpu_count == gpus)
    for f, n in v.plain_servers.items():
        model.add(n == (1 if f == build else 0))
    constraints.add_gpu_blocks(model, data, v)
    return model, v, build


def _light(data: ProblemData, v: Variables, build: int, gpus: int) -> cp_model.LinearExpr:
    return cp_model.LinearExpr.sum(
        [x for (o, f), x in v.light_copies.items() if f == build and data.modes[o].gpus == gpus]
    )


def test_gpu_blocks_give_one_copy_per_gpu() -> None:
    data = problem(SMALL)
    for gpus in (2, 4):
        model, v, build = _one_server(data, gpus)
        assert optimum(model, _light(data, v, build, 1)) == min(gpus, data.copies[0])
    model, v, build = _one_server(data, 4)
    assert optimum(model, _light(data, v, build, 2)) == 2


def test_gpu_blocks_count_a_two_card_copy_against_single_card_ones() -> None:
    data = problem(SMALL)
    model, v, build = _one_server(data, 4)
    model.add(_light(data, v, build, 2) == 1)
    assert optimum(model, _light(data, v, build, 1)) == 2  # four cards: one pair and two singles


def test_gpu_blocks_place_nothing_without_servers() -> None:
    data = problem(SMALL)
    model, v = _bare(data)
    for n in v.plain_servers.values():
        model.add(n == 0)
    constraints.add_gpu_blocks(model, data, v)
    assert optimum(model, cp_model.LinearExpr.sum(list(v.light_copies.values()))) == 0


def test_heavy_classes_are_filled_by_exactly_their_configurations_places() -> None:
    data = problem(HEAVY)
    assert data.configs, "the offloaded run must make heavy configurations"
    chosen = data.configs[0]
    model, v = _bare(data)
    for c, n in v.config_servers.items():
        model.add(n == (1 if c == 0 else 0))
    constraints.add_heavy_classes_filled(model, data, v)
    for k, count in chosen.heavy:
        copies = cp_model.LinearExpr.sum([x for (_, c), x in v.heavy_copies.items() if c == k])
        assert optimum(model, copies) == count
        model.clear_objective()
        assert optimum(model, copies, maximize=False) == count
        model.clear_objective()


def test_light_room_keeps_light_copies_on_a_configuration_within_its_servers_room() -> None:
    """Sized problem, one server of the open configuration with least disk room: the NVMe of light
    copies counted on it never exceeds that room (without the family, their variables alone allow
    more)."""
    data = problem(SHARING).with_sized_configs()
    opened = [c for c, config in enumerate(data.configs) if config.free_blocks]
    c = min(opened, key=lambda c: data.configs[c].nvme_room_gb)
    room = math.ceil(data.configs[c].nvme_room_gb * 100)
    for with_family in (True, False):
        model, v = _bare(data)
        model.add(v.config_servers[c] == 1)
        if with_family:
            constraints.add_light_room(model, data, v)
        on_c = [(data.modes[m], y) for (m, cc), y in v.light_on_config.items() if cc == c]
        assert on_c, "some light copy must fit the configuration's room"
        most = optimum(model, sum(math.floor(mode.nvme_gb * 100) * y for mode, y in on_c))
        assert most is not None and (most <= room if with_family else most > room)


def test_light_room_counts_no_copy_on_a_configuration_that_its_pair_does_not_place() -> None:
    """Copies of a light pair counted on heavy configurations never outnumber the pair's copies on
    the build: with none placed, none may be counted (without the family, some could be, and the
    decoder would lay out copies that do not exist)."""
    data = problem(SHARING).with_sized_configs()
    for with_family in (True, False):
        model, v = _bare(data)
        (m, c), _ = next(iter(v.light_on_config.items()))
        model.add(v.light_copies[m, data.configs[c].build] == 0)
        if with_family:
            constraints.add_light_room(model, data, v)
        counted = sum(y for (mm, _), y in v.light_on_config.items() if mm == m)
        most = optimum(model, counted)
        assert most is not None and (most == 0 if with_family else most > 0)
