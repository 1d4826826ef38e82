"""ftopt sizes GPU servers for LLM fine-tuning: the cheapest server set that runs a workload mix.

Library use::

    from ftopt import load_catalogue, load_workload, solve
    catalogue = load_catalogue()
    plan = solve(load_workload(path, catalogue), catalogue)
"""

from ftopt.catalogue import load_catalogue
from ftopt.loading import load_workload
from ftopt.model.plan import Plan
from ftopt.solver.solve import SolveSettings, solve

__all__ = ["Plan", "SolveSettings", "load_catalogue", "load_workload", "solve"]
