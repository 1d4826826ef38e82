"""From a solution's counts to servers: every copy on disjoint GPUs, multi-node copies on k servers."""

from __future__ import annotations

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.formulation import build_formulation
from ftopt.solver.decode.counts import decode
from tests.solver.tiny import HEAVY, MULTINODE, SMALL, copies_placed, no_gpu_shared, problem


def test_decoded_servers_hold_every_copy_once() -> None:
    for text in (SMALL, HEAVY, MULTINODE):
        data = problem(text)
        built = build_formulation(data)
        built.enforce_all()
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = 20
        assert solver.solve(built.model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        servers = decode(data, built, solver)
        assert servers is not None
        assert copies_placed(servers) == dict(enumerate(data.copies))
        assert no_gpu_shared(servers)
        groups = [s.group for s in servers if s.group is not None]
        if text is MULTINODE:  # one copy over several whole servers, numbered as one group
            assert groups and len(set(groups)) == 1 and len(groups) > 1
            assert all(len(gpus) == s.build.gpu_count for s in servers for _, gpus in s.copies)
