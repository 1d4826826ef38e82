"""ftopt sizes GPU servers for LLM fine-tuning: the cheapest server set that runs a workload mix.

Library use::

    from ftopt import estimate, load_catalogue, load_workload, solve

    catalogue = load_catalogue()
    result = solve(load_workload("examples/first-project.yaml", catalogue), catalogue)
    if result.plan:  # optimal or feasible; otherwise result.reasons say why not
        print(result.status, result.price, [s.gpu for s in result.plan.servers])

    for run in estimate(load_workload("examples/405b-full.yaml", catalogue), catalogue):
        fitting = [o for o in run.options if o.sizing.fits]  # each option: sizing, servers, speed, hours

The names below are imported on first use (PEP 562), so `import ftopt` stays cheap and OR-Tools
is loaded only by a solve.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ftopt.catalogue.loader import load_catalogue
    from ftopt.errors import (
        FtoptError,
        InfeasibleError,
        InputError,
        NoPlanInTimeError,
        UnverifiedPlanError,
    )
    from ftopt.model.estimate import EstimateOption, RunEstimate, estimate
    from ftopt.model.findings import Finding, FindingKind
    from ftopt.model.hardware import Catalogue
    from ftopt.model.plan import Plan, Status
    from ftopt.model.result import PhaseTimings, Result
    from ftopt.model.settings import Progress, SolveSettings
    from ftopt.model.workload import Workload
    from ftopt.reading.workload_file import load_workload
    from ftopt.solver.baselines import first_fit_price, runs_fitting
    from ftopt.solver.frontier import Frontier, FrontierPoint, frontier
    from ftopt.solver.solve import solve
    from ftopt.verify import Violation, verify_plan

try:
    __version__ = version("ftopt")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

_EXPORTS = {
    "Catalogue": "ftopt.model.hardware",
    "EstimateOption": "ftopt.model.estimate",
    "Finding": "ftopt.model.findings",
    "FindingKind": "ftopt.model.findings",
    "Frontier": "ftopt.solver.frontier",
    "FrontierPoint": "ftopt.solver.frontier",
    "FtoptError": "ftopt.errors",
    "InfeasibleError": "ftopt.errors",
    "InputError": "ftopt.errors",
    "NoPlanInTimeError": "ftopt.errors",
    "PhaseTimings": "ftopt.model.result",
    "Plan": "ftopt.model.plan",
    "Progress": "ftopt.model.settings",
    "Result": "ftopt.model.result",
    "RunEstimate": "ftopt.model.estimate",
    "SolveSettings": "ftopt.model.settings",
    "Status": "ftopt.model.plan",
    "UnverifiedPlanError": "ftopt.errors",
    "Violation": "ftopt.verify",
    "Workload": "ftopt.model.workload",
    "estimate": "ftopt.model.estimate",
    "first_fit_price": "ftopt.solver.baselines",
    "frontier": "ftopt.solver.frontier",
    "load_catalogue": "ftopt.catalogue.loader",
    "load_workload": "ftopt.reading.workload_file",
    "runs_fitting": "ftopt.solver.baselines",
    "solve": "ftopt.solver.solve",
    "verify_plan": "ftopt.verify",
}

__all__ = [
    "Catalogue",
    "EstimateOption",
    "Finding",
    "FindingKind",
    "Frontier",
    "FrontierPoint",
    "FtoptError",
    "InfeasibleError",
    "InputError",
    "NoPlanInTimeError",
    "PhaseTimings",
    "Plan",
    "Progress",
    "Result",
    "RunEstimate",
    "SolveSettings",
    "Status",
    "UnverifiedPlanError",
    "Violation",
    "Workload",
    "__version__",
    "estimate",
    "first_fit_price",
    "frontier",
    "load_catalogue",
    "load_workload",
    "runs_fitting",
    "solve",
    "verify_plan",
]


def __getattr__(name: str) -> Any:
    """Import an exported name from its module the first time it is asked for."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'ftopt' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
