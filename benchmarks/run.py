"""The benchmark runner: `python -m benchmarks` solves every instance and writes results.md.

Per instance: the product (`ftopt.solver.solve.solve`) `--repeats` times with `--time-limit` and
`--workers` (default: the product's own, one per core); first-fit decreasing once; the naive CP-SAT
model once on the tiers `--naive-tiers` (same time limit unless `--naive-time-limit`). Wall time is
split into problem build, model build, the price stage of CP-SAT, the tie-break stage and decode plus
plan by wrapping the product's own functions (PHASES) while it runs (no second solve); a function the
product no longer has is skipped with a note in the report. `run_model` is watched to record each
CP-SAT model solved (the relaxation, then maybe the safe configurations). Every plan is checked with
`ftopt.verify.verify_plan`. The xl instances are solved again with their copies scaled at a fixed
run mix (scaling.py), for the flatness target. Optionally compares worker counts and times the whole
`ftopt solve` process. Writes benchmarks/results.md, benchmarks/results.json and, when matplotlib
is importable, benchmarks/results.png.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import importlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from benchmarks.baselines.ffd import first_fit_decreasing
from benchmarks.baselines.naive import naive
from benchmarks.generate import INSTANCES, KNOWN_OPTIMA, TIER_NAMES
from benchmarks.scaling import ScalePoint, flatness_target, measure_series, render_section
from ftopt.catalogue import load_catalogue
from ftopt.loading import load_workload
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.problem import ProblemData, build_problem, compatible, light
from ftopt.solver.solve import SolveSettings, solve

try:
    from ftopt.verify import verify_plan
except ImportError:  # pragma: no cover - the verifier is optional to the runner
    verify_plan = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLES = ROOT / "examples"
ALL_TIERS = ("example", *TIER_NAMES)
#: Timed phases: (phase, module, function). Each is wrapped in that module's namespace, where its
#: caller looks it up, while `solve` runs; the price stage is the wall time less all of them.
PHASES = (
    ("build_problem", "ftopt.solver.solve", "build_problem"),
    ("precheck", "ftopt.solver.solve", "precheck"),
    ("build_formulation", "ftopt.solver.search", "build_formulation"),
    ("build_formulation", "ftopt.solver.solve", "build_formulation"),  # the infeasibility core only
    ("_tie_break", "ftopt.solver.search", "_tie_break"),
    ("decode", "ftopt.solver.search", "decode"),
    ("build_plan", "ftopt.solver.solve", "build_plan"),
    ("_explain_optimum", "ftopt.solver.solve", "_explain_optimum"),
)
#: Watched, not timed into the split: one call per CP-SAT model solved (relaxed, then maybe safe).
MODEL_RUN = ("ftopt.solver.solve", "run_model")
PHASE_GROUPS = {
    "problem": ("build_problem", "precheck"),
    "model": ("build_formulation",),
    "tie_break": ("_tie_break",),
    "plan": ("decode", "build_plan", "_explain_optimum"),
}
#: Why a phase could not be timed (the product renamed or moved a function); shown in the report.
NOTES: list[str] = []


@dataclass
class Instance:
    """One workload file and its tier."""

    name: str
    tier: str
    path: Path


@dataclass
class Attempt:
    """One product solve."""

    status: str
    price: float | None
    bound: float | None
    gap: float | None
    seconds: float
    servers: int | None
    phases: dict[str, float] = field(default_factory=dict)
    # One entry per CP-SAT model run_model solved: the relaxation (or the exact model), then, when
    # the relaxed plan cost more once right-sized, the safe configurations. Price and objective in
    # currency units; seconds include that model's build, tie-break and decode.
    models: list[dict[str, Any]] = field(default_factory=list)
    violations: int | None = None  # what ftopt.verify found wrong with the plan; None: not verified

    @property
    def price_stage(self) -> float:
        """CP-SAT's price stage(s): the wall time less the timed phases around it."""
        return max(0.0, self.seconds - sum(self.phases.values()))

    @property
    def proven_at(self) -> float:
        """Seconds until the price stage ended: problem build, model build and the price stage."""
        return self.group("problem") + self.group("model") + self.price_stage

    def group(self, name: str) -> float:
        """Seconds in one group of phases (PHASE_GROUPS)."""
        return sum(self.phases.get(p, 0.0) for p in PHASE_GROUPS[name])

    @property
    def scheme(self) -> str:
        """'1', or '2, relaxed kept' / '2, safe kept' when the safe configurations were solved too."""
        if len(self.models) < 2:
            return str(len(self.models)) if self.models else "?"
        safe, relaxed = self.models[1].get("price"), self.models[0].get("price")
        took_safe = (
            self.price is not None
            and safe is not None
            and abs(safe - self.price) < 0.01
            and (relaxed is None or safe < relaxed - 0.01)
        )
        return f"{len(self.models)}, {'safe' if took_safe else 'relaxed'} kept"


@dataclass
class Row:
    """Everything measured on one instance."""

    name: str
    tier: str
    copies: int
    runs: int
    modes: int
    builds: int
    heavy_copies: int  # copies of runs with a mode some build must hold alone (RAM or NVMe)
    pool_pairs: int
    attempts: list[Attempt]
    ffd_price: float | None
    ffd_servers: int | None
    ffd_seconds: float | None
    heavy_classes: int = 0  # ProblemData.heavy_classes: heavy modes of one build and shape
    heavy_configs: int = 0  # ProblemData.configs: the relaxation's configurations (heavy copies alone)
    safe_configs: int = 0  # ProblemData.safe_configs: light copies budgeted
    exact: bool | None = None  # ProblemData.exact: budgeting light copies changes no configuration
    naive: dict[str, Any] | None = None
    known_optimum: float | None = None
    flags: list[str] = field(default_factory=list)

    @property
    def times(self) -> list[float]:
        """Wall time of every attempt."""
        return [a.seconds for a in self.attempts]

    @property
    def median(self) -> float:
        """Median wall time."""
        return statistics.median(self.times)

    @property
    def best(self) -> Attempt:
        """The attempt with the lowest price (then the proven one, then the fastest)."""
        return min(
            self.attempts, key=lambda a: (a.price is None, a.price or 0, a.status != "optimal", a.seconds)
        )

    @property
    def all_optimal(self) -> bool:
        """Whether every attempt proved optimality."""
        return all(a.status == "optimal" for a in self.attempts)

    @property
    def saving(self) -> float | None:
        """1 − price / FFD price."""
        price = self.best.price
        if price is None or not self.ffd_price:
            return None
        return 1 - price / self.ffd_price

    def phase_median(self, phase: str) -> float:
        """Median seconds of one phase group, of the price stage, or until the price stage ended."""
        if phase == "price_stage":
            return statistics.median(a.price_stage for a in self.attempts)
        if phase == "proven":
            return statistics.median(a.proven_at for a in self.attempts)
        return statistics.median(a.group(phase) for a in self.attempts)

    @property
    def heavy(self) -> str:
        """Heavy copies / classes / configurations (safe configurations), e.g. '19 / 7 / 230 (241)'."""
        if not self.heavy_copies:
            return "0"
        return f"{self.heavy_copies} / {self.heavy_classes} / {self.heavy_configs} ({self.safe_configs})"

    @property
    def scheme(self) -> str:
        """The models solved per call (the most common over the repeats), and why only one."""
        schemes = [a.scheme for a in self.attempts]
        most = max(sorted(set(schemes)), key=schemes.count) if schemes else "?"
        if most != "1" or not self.heavy_copies:
            return most
        return "1, exact" if self.exact else "1, relaxation held"


# ---------------------------------------------------------------- measurement


def _resolve(module_name: str, name: str) -> tuple[Any, Callable[..., Any]] | None:
    """The module and its function `name`, or None (with a note) when either is missing."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        note = f"`{module_name}` does not import ({exc}): `{name}` not timed"
    else:
        fn = getattr(module, name, None)
        if callable(fn):
            return module, fn
        note = f"`{module_name}.{name}` does not exist: that phase is not timed"
    if note not in NOTES:
        NOTES.append(note)
    return None


@contextmanager
def timed_phases(sink: dict[str, float], models: list[dict[str, Any]]) -> Iterator[None]:
    """Wrap the product's solve-stage functions so their wall time lands in `sink` and each model
    `run_model` solves is described in `models`. A missing function is skipped with a note."""
    patched: list[tuple[Any, str, Callable[..., Any]]] = []
    active: set[str] = set()  # a phase re-entered (a nested solve) is timed once, by its outer call
    for phase, module_name, name in PHASES:
        found = _resolve(module_name, name)
        if found is None:
            continue
        module, fn = found

        def wrapper(*args: Any, _fn: Callable[..., Any] = fn, _phase: str = phase, **kwargs: Any) -> Any:
            if _phase in active:
                return _fn(*args, **kwargs)
            active.add(_phase)
            started = time.perf_counter()
            try:
                return _fn(*args, **kwargs)
            finally:
                sink[_phase] = sink.get(_phase, 0.0) + time.perf_counter() - started
                active.discard(_phase)

        patched.append((module, name, fn))
        setattr(module, name, wrapper)
    found = _resolve(*MODEL_RUN)
    if found is not None:
        module, run_model = found

        def watch(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            entry: dict[str, Any] = {"seconds": None, "status": "raised"}
            models.append(entry)
            try:
                outcome = run_model(*args, **kwargs)
                entry.update(_describe_outcome(outcome))
                return outcome
            finally:
                entry["seconds"] = time.perf_counter() - started

        patched.append((module, MODEL_RUN[1], run_model))
        setattr(module, MODEL_RUN[1], watch)
    try:
        yield
    finally:
        for module, name, fn in reversed(patched):
            setattr(module, name, fn)


def _describe_outcome(outcome: Any) -> dict[str, Any]:
    """Status, right-sized price, objective and bound (currency units) of one run_model outcome."""
    if outcome is None:
        return {"status": "infeasible"}

    def units(name: str) -> float | None:
        value = getattr(outcome, name, None)
        return None if value is None or value == float("inf") else round(value / 100, 2)

    return {
        "status": "optimal" if getattr(outcome, "proven", False) else "feasible",
        "price": units("price_cents"),
        "objective": units("objective"),
        "bound": units("bound"),
    }


def product_attempt(workload: Workload, catalogue: Catalogue, settings: SolveSettings) -> Attempt:
    """One timed `solve` call, its plan checked by ftopt.verify (outside the timing)."""
    phases: dict[str, float] = {}
    models: list[dict[str, Any]] = []
    started = time.perf_counter()
    with timed_phases(phases, models):
        result = solve(workload, catalogue, replace(settings, verify=False))
    seconds = time.perf_counter() - started
    plan = result.plan
    if plan is None:
        status = "infeasible" if result.status == "infeasible" else "no-plan"
        return Attempt(status, None, None, None, seconds, None, phases, models)
    return Attempt(
        plan.status.value,
        plan.total_price,
        plan.bound,
        plan.gap,
        seconds,
        len(plan.servers),
        phases,
        models,
        _violations(plan, workload, catalogue),
    )


def _violations(plan: Plan, workload: Workload, catalogue: Catalogue) -> int | None:
    if verify_plan is None:
        return None
    return len(verify_plan(plan, workload, catalogue))


def discover(tiers: list[str]) -> list[Instance]:
    """Instance files of the wanted tiers, in tier order, plus examples/*.yaml as tier `example`."""
    found: list[Instance] = []
    for tier in tiers:
        if tier == "example":
            paths = sorted(EXAMPLES.glob("*.yaml")) if EXAMPLES.is_dir() else []
            found += [Instance(f"example:{p.stem}", "example", p) for p in paths]
        else:
            found += [Instance(p.stem, tier, p) for p in sorted(INSTANCES.glob(f"{tier}-*.yaml"))]
    return found


def settings_for(args: argparse.Namespace, workers: int | None = None) -> SolveSettings:
    """The product's settings with the time limit, and workers only when asked (else its default)."""
    workers = workers if workers is not None else args.workers
    if workers is None:
        return SolveSettings(time_limit=args.time_limit)
    return SolveSettings(time_limit=args.time_limit, workers=workers)


def measure(
    instance: Instance,
    catalogue: Catalogue,
    args: argparse.Namespace,
    optima: dict[str, Any],
    log: Callable[[str], None],
) -> Row | None:
    """Every measurement of one instance."""
    try:
        workload = load_workload(instance.path, catalogue)
    except Exception as exc:  # an example another engineer is editing may not load; say so and go on
        log(f"  {instance.name}: skipped, does not load ({exc})")
        return None
    data = build_problem(workload, catalogue)
    ffd_price: float | None = None
    ffd_servers: int | None = None
    ffd_seconds: float | None = None
    try:
        ffd_result = first_fit_decreasing(data)
        ffd_price, ffd_servers, ffd_seconds = ffd_result.price, len(ffd_result.servers), ffd_result.seconds
    except ValueError:
        pass
    settings = settings_for(args)
    attempts = []
    for _ in range(args.repeats):
        attempts.append(product_attempt(workload, catalogue, settings))
        a = attempts[-1]
        log(f"  {instance.name}: {a.status} {a.price} in {a.seconds:.2f} s ({a.scheme})")
    row = Row(
        name=instance.name,
        tier=instance.tier,
        copies=workload.total_copies,
        runs=len(workload.runs),
        modes=len(data.modes),
        builds=len(data.builds),
        heavy_copies=heavy_copies(data),
        heavy_classes=len(getattr(data, "heavy_classes", [])),
        heavy_configs=len(getattr(data, "configs", [])),
        safe_configs=len(getattr(data, "safe_configs", [])),
        exact=getattr(data, "exact", None),
        pool_pairs=len(data.pool),
        attempts=attempts,
        ffd_price=ffd_price,
        ffd_servers=ffd_servers,
        ffd_seconds=ffd_seconds,
        known_optimum=(optima.get(instance.name) or {}).get("price"),
    )
    if instance.tier in args.naive_tiers:
        limit = args.naive_time_limit or args.time_limit
        result = naive(workload, catalogue, limit, settings.workers)
        row.naive = {**asdict(result), "seconds": result.seconds, "gap": result.gap, "time_limit": limit}
        log(f"  {instance.name}: naive {result.status} {result.price} in {result.seconds:.2f} s")
    check(row)
    return row


def measure_scaling(
    instances: list[Instance], catalogue: Catalogue, args: argparse.Namespace, log: Callable[[str], None]
) -> list[list[ScalePoint]]:
    """The xl instances at a fixed run mix with their copies scaled (benchmarks/scaling.py)."""
    settings = settings_for(args)

    def attempt(workload: Workload, catalogue: Catalogue) -> tuple[str, float]:
        a = product_attempt(workload, catalogue, settings)
        if a.violations:
            raise RuntimeError(f"a scaled plan breaks {a.violations} rule(s) per ftopt.verify")
        return a.status, a.seconds

    series = []
    for instance in instances:
        points = measure_series(
            instance.name, load_workload(instance.path, catalogue), catalogue, attempt, args.repeats
        )
        for p in points:
            log(f"  scaled {p.name} × {p.factor:g}: {p.copies} copies, {p.median:.3f} s")
        series.append(points)
    return series


def heavy_copies(data: ProblemData) -> int:
    """Copies of runs that take part in a heavy class (some build must hold one of them alone)."""
    classes = getattr(data, "heavy_classes", None)
    if classes is not None:
        runs = {data.modes[o].run for heavy_class in classes for o in heavy_class.modes}
    else:  # an older ProblemData: any compatible mode that is not light
        reserve = data.catalogue.rules.host_ram_reserve_gb
        runs = {
            mode.run
            for mode in data.modes
            for build in data.builds
            if compatible(mode, build) and not light(mode, build, reserve)
        }
    return sum(data.copies[r] for r in runs)


def check(row: Row) -> None:
    """Flags that point at a solver bug or a stale known optimum."""
    for a in row.attempts:
        if a.price is not None and row.ffd_price is not None and a.price > row.ffd_price + 0.01:
            row.flags.append(f"price {a.price:,.0f} > FFD {row.ffd_price:,.0f} ({a.status})")
        known = row.known_optimum
        if (
            a.status == "optimal"
            and a.price is not None
            and known is not None
            and abs(a.price - known) > 0.01
        ):
            row.flags.append(f"optimal price {a.price:,.0f} ≠ known optimum {row.known_optimum:,.0f}")
        if a.bound is not None and row.ffd_price is not None and a.bound > row.ffd_price + 0.01:
            row.flags.append(f"bound {a.bound:,.0f} > FFD {row.ffd_price:,.0f}")
        if a.violations:
            row.flags.append(f"plan breaks {a.violations} rule(s) per ftopt.verify ({a.status})")
    n = row.naive
    best = row.best.price
    if n and n["status"] == "optimal" and row.all_optimal and best is not None and n["price"] < best - 0.01:
        row.flags.append(f"naive optimum {n['price']:,.0f} < product optimum {best:,.0f}")
    row.flags = sorted(set(row.flags))


def compare_workers(
    instances: list[Instance],
    catalogue: Catalogue,
    counts: list[int],
    args: argparse.Namespace,
    log: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Median wall time per worker count on a few instances."""
    out = []
    for instance in instances:
        workload = load_workload(instance.path, catalogue)
        entry: dict[str, Any] = {"name": instance.name, "copies": workload.total_copies}
        for n in counts:
            runs = [product_attempt(workload, catalogue, settings_for(args, n)) for _ in range(args.repeats)]
            entry[str(n)] = {
                "median": statistics.median(a.seconds for a in runs),
                "optimal": all(a.status == "optimal" for a in runs),
            }
            log(f"  workers {n} on {instance.name}: {entry[str(n)]['median']:.3f} s")
        out.append(entry)
    return out


def ftopt_executable() -> str | None:
    """The `ftopt` console script next to this interpreter, or on PATH."""
    local = Path(sys.executable).parent / "ftopt"
    return str(local) if local.exists() else shutil.which("ftopt")


def _compile_package() -> None:
    """Byte-compile ftopt's modules, as `pip install` does, before the process is timed.

    An editable install under PYTHONDONTWRITEBYTECODE (as on the machines here) would otherwise
    compile every ftopt module from source in every timed process, about 0.1 s no user pays.
    """
    import ftopt

    compileall.compile_dir(Path(ftopt.__file__).parent, quiet=1)


def time_cli(instance: Instance, repeats: int, time_limit: float) -> dict[str, Any]:
    """Wall time of the whole `ftopt solve FILE --format json` process, or why it was skipped."""
    exe = ftopt_executable()
    if exe is None:
        return {"skipped": "no `ftopt` console script found"}
    probe = subprocess.run([exe, "solve", "--help"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        said = " ".join((probe.stderr or probe.stdout).split())[-120:]
        return {"skipped": f"`ftopt solve` is not available yet: {said}"}
    _compile_package()
    times, codes = [], []
    command = [exe, "solve", str(instance.path), "--format", "json", "--time-limit", f"{time_limit:g}"]
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=time_limit + 120)
        times.append(time.perf_counter() - started)
        codes.append(done.returncode)
    imports = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import ftopt.cli.main"], check=False, timeout=120)
        imports.append(time.perf_counter() - started)
    return {
        "instance": instance.name,
        "command": " ".join(["ftopt", *command[1:]]),
        "median": statistics.median(times),
        "times": times,
        "exit_codes": codes,
        "import_median": statistics.median(imports),
    }


# ---------------------------------------------------------------- report


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        ortools_version = version("ortools")
    except Exception:  # pragma: no cover
        ortools_version = "?"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(cores),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "ortools": ortools_version,
        "load_start": _load(),
    }


def _load() -> str:
    """The 1-, 5- and 15-minute load averages: other processes skew the wall times."""
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


def _money(x: float | None) -> str:
    return "–" if x is None else f"{x:,.0f}"


def _pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f} %"


def _secs(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _tier_rows(rows: list[Row], tier: str, offload: bool | None = None) -> list[Row]:
    chosen = [r for r in rows if r.tier == tier]
    if offload is not None:
        chosen = [r for r in chosen if (r.heavy_copies > 0) == offload]
    return chosen


def targets(
    rows: list[Row], cli: dict[str, Any] | None, scaling: list[list[ScalePoint]] | None = None
) -> list[tuple[str, str, str]]:
    """(target, measured, verdict) rows for the top of results.md."""
    out: list[tuple[str, str, str]] = []

    def tier_target(label: str, tier: str, limit: float) -> None:
        chosen = _tier_rows(rows, tier)
        if not chosen:
            out.append((label, "not run", "–"))
            return
        proven = sum(r.all_optimal for r in chosen)
        worst = max(chosen, key=lambda r: r.median)
        slowest, slowest_name = max((a.seconds, r.name) for r in chosen for a in r.attempts)
        measured = (
            f"{proven}/{len(chosen)} proven optimal in every repeat; median wall per instance "
            f"{_secs(min(r.median for r in chosen))}–{_secs(worst.median)} s (worst {worst.name}, "
            f"{worst.copies} copies, heavy {worst.heavy}); price stage ended by "
            f"{_secs(max(r.phase_median('proven') for r in chosen))} s; slowest single solve "
            f"{_secs(slowest)} s ({slowest_name})"
        )
        missed = [r for r in chosen if not r.all_optimal or r.median >= limit]
        if not missed:
            verdict = "met"
        else:
            parts = []
            for r in missed:
                if not r.all_optimal:
                    why = (
                        f"not proven in {args_limit(r)}, gap {_pct(max((a.gap or 0) for a in r.attempts), 2)}"
                    )
                else:
                    why = (
                        f"{_secs(r.median)} s = {r.median / limit:.1f} × the limit; price proven at "
                        f"{_secs(r.phase_median('proven'))} s, "
                        f"tie-break {_secs(r.phase_median('tie_break'))}"
                        f" s, plan {_secs(r.phase_median('plan'))} s"
                    )
                parts.append(f"{r.name} (heavy {r.heavy}: {why})")
            verdict = "MISSED: " + "; ".join(parts)
        out.append((label, measured, verdict))

    tier_target("seed-sized: proven optimal, median solve < 0.2 s", "seed", 0.2)
    if cli is None:
        out.append(("whole `ftopt solve` process < 1.5 s", "not measured (--no-cli)", "–"))
    elif "skipped" in cli:
        out.append(("whole `ftopt solve` process < 1.5 s", f"skipped: {cli['skipped']}", "–"))
    else:
        ok = cli["median"] < 1.5 and all(c == 0 for c in cli["exit_codes"])
        out.append(
            (
                "whole `ftopt solve` process < 1.5 s",
                f"median {cli['median']:.2f} s on {cli['instance']} "
                f"(exit codes {sorted(set(cli['exit_codes']))}); "
                f"`import ftopt.cli.main` alone {cli['import_median']:.2f} s",
                "met" if ok else f"MISSED by {cli['median'] - 1.5:.2f} s",
            )
        )
    tier_target("large (500 copies): proven optimal within 2 s", "large", 2.0)
    tier_target("xl (2,000 copies): proven optimal within 10 s", "xl", 10.0)
    measured, verdict = flatness_target(scaling or [])
    out.append(
        ("xl: time nearly flat in copies (same runs, copies scaled)", f"{measured}. {_tiers(rows)}", verdict)
    )
    out.append(_ffd_target(rows))
    out.append(_naive_target(rows))
    return out


def args_limit(row: Row) -> str:
    """The time the unproven attempts ran, as words."""
    return f"{statistics.median(a.seconds for a in row.attempts):.0f} s"


def _tiers(rows: list[Row]) -> str:
    """Context: the tiers' times, which differ in distinct runs as well as in copies."""
    base = [r for r in rows if r.heavy_copies == 0 and r.all_optimal]
    by_tier = {t: [r for r in base if r.tier == t] for t in ("medium", "large", "xl")}
    parts = [
        f"{t} {statistics.median(r.median for r in chosen):.3f} s "
        f"({statistics.median(r.copies for r in chosen):.0f} copies, "
        f"{statistics.median(r.runs for r in chosen):.0f} runs)"
        for t, chosen in by_tier.items()
        if chosen
    ]
    if not parts:
        return ""
    return "Across tiers, instances without heavy copies, median of medians (runs differ too): " + ", ".join(
        parts
    )


def _ffd_target(rows: list[Row]) -> tuple[str, str, str]:
    compared = [r for r in rows if r.saving is not None]
    worse = [r for r in compared if r.saving is not None and r.saving < -1e-9]
    if not compared:
        return ("price ≤ FFD on every instance", "no instance compared", "–")
    savings = [r.saving for r in compared if r.saving is not None]
    best = max(compared, key=lambda r: r.saving or 0)
    measured = (
        f"{len(compared) - len(worse)}/{len(compared)} instances ≤ FFD; "
        f"saving mean {_pct(statistics.mean(savings))}, "
        f"max {_pct(max(savings))} ({best.name}), min {_pct(min(savings))}"
    )
    verdict = "met" if not worse else "MISSED (solver bug?): " + ", ".join(r.name for r in worse)
    return ("price ≤ FFD on every instance; mean and max saving", measured, verdict)


def _naive_target(rows: list[Row]) -> tuple[str, str, str]:
    label = "≥ 100 × faster than the naive model at 200 copies, or naive fails to prove"
    chosen = [r for r in rows if r.naive and 150 <= r.copies <= 250] or [
        r for r in rows if r.naive and r.copies >= 50
    ]
    if not chosen:
        return (label, "naive model not run near 200 copies", "–")
    parts, ok = [], True
    for r in chosen:
        n = r.naive or {}
        ratio = n["seconds"] / r.median
        proven = n["status"] == "optimal"
        parts.append(
            f"{r.name} ({r.copies} copies, {n['booleans']:,} booleans, {n['slots']} slots): "
            f"naive {n['status']}"
            f" after {_secs(n['seconds'])} s (limit {n['time_limit']:g} s), product {_secs(r.median)} s"
            f" → × {ratio:,.0f}{'' if proven else ' (lower bound: naive not proven)'}"
        )
        ok = ok and (not proven or ratio >= 100)
    return (label, "; ".join(parts), "met" if ok else "MISSED")


def render(
    rows: list[Row],
    args: argparse.Namespace,
    info: dict[str, str],
    cli: dict[str, Any] | None,
    workers: list[dict[str, Any]],
    plot: str | None,
    scaling: list[list[ScalePoint]] | None = None,
) -> str:
    """results.md."""
    lines = [
        "# ftopt benchmarks",
        "",
        f"Measured {info['date']} on {info['cpu']}, {info['cores']} cores available, {info['os']}, "
        f"Python {info['python']}, OR-Tools {info['ortools']}. Product settings: time limit "
        f"{args.time_limit:g} s, {_workers_text(args)}, {args.repeats} repeats per instance; naive model "
        f"once per instance on tiers {', '.join(args.naive_tiers) or 'none'}. Regenerate with "
        f"`python -m benchmarks` (instances: `python -m benchmarks.generate`). Wall times are "
        "non-deterministic (parallel CP-SAT on a shared machine).",
        "",
        f"Load average (1 / 5 / 15 min) at the start {info.get('load_start', '?')}, at the end "
        f"{info.get('load_end', '?')}: a load above the core count means other processes took CPU time "
        "and the wall times below are inflated accordingly."
        + (f" {args.note}" if getattr(args, "note", "") else ""),
        "",
        "## Targets",
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
    ]
    lines += [f"| {t} | {m} | {v} |" for t, m, v in targets(rows, cli, scaling)]
    lines += ["", "## Formulation", "", formulation(rows)]
    flagged = [r for r in rows if r.flags]
    lines += ["", "## Solver checks", ""]
    verified = all(a.violations is not None for r in rows for a in r.attempts)
    if flagged:
        lines += [f"- **{r.name}**: {'; '.join(r.flags)}" for r in flagged]
    else:
        lines.append(
            "No product price above FFD, no bound above FFD, no proven optimum differing from "
            "`instances/known_optima.json`, no naive optimum below the product's"
            + (", and `ftopt.verify` found every plan valid." if verified else ".")
        )
    if NOTES:
        lines += ["", "Phases the runner could not time (the product moved or renamed a function):", ""]
        lines += [f"- {note}" for note in NOTES]
    lines += ["", "## Per instance", ""]
    lines += [
        "Wall = the whole `solve()` call (problem build, model build, price stage, tie-break stage, "
        "layout and plan); median and min–max over the repeats. Price stage ended = median seconds from "
        "the call until the last price stage returned (the price proven, or the time limit). Split = "
        "median seconds of problem build / model build / CP-SAT price stage / tie-break stage / layout "
        "and plan (decode and right-size, plan, binding-rule explanation); with two models both are in "
        "these figures. Heavy = copies of runs with a mode that a server must hold alone (offloaded "
        "states or checkpoints beyond the GPUs' share of base RAM or NVMe) / heavy classes / "
        "configurations (safe configurations). Models = CP-SAT models solved per call (the most common "
        "over the repeats): 1 without heavy copies, or when the configurations are exact (budgeting light "
        "copies changes none), or when the relaxation's plan, right-sized, cost its objective (relaxation "
        "held); 2 when the safe configurations were solved too, and which plan was kept. "
        "Status: the worst over the repeats.",
        "",
        "| instance | copies | runs | heavy | models | status | price | bound | gap | wall median "
        "| wall min–max | price stage ended | split | FFD price (servers) | price / FFD | naive "
        "| naive / product time |",
        "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|",
    ]
    order = {"optimal": 0, "feasible": 1, "no-plan": 2, "infeasible": 3}
    for r in rows:
        worst = max(r.attempts, key=lambda a: order.get(a.status, 9))
        best = r.best
        split = " / ".join(
            _secs(r.phase_median(p)) for p in ("problem", "model", "price_stage", "tie_break", "plan")
        )
        ratio = f"{best.price / r.ffd_price:.3f}" if best.price and r.ffd_price else "–"
        naive_cell, naive_ratio = "–", "–"
        if r.naive:
            n = r.naive
            naive_cell = f"{n['status']} {_money(n['price'])} in {_secs(n['seconds'])} s"
            naive_ratio = f"{'≥ ' if n['status'] != 'optimal' else ''}{n['seconds'] / r.median:,.0f}"
        lines.append(
            f"| {r.name} | {r.copies} | {r.runs} | {r.heavy} | {r.scheme} | {worst.status} | "
            f"{_money(best.price)} | "
            f"{_money(best.bound)} | {_pct(worst.gap, 2)} | {_secs(r.median)} | {_secs(min(r.times))}–"
            f"{_secs(max(r.times))} | {_secs(r.phase_median('proven'))} | {split} | "
            f"{_money(r.ffd_price)} ({r.ffd_servers}) | {ratio} | "
            f"{naive_cell} | {naive_ratio} |"
        )
    lines += render_section(scaling or [], args.repeats)
    if workers:
        counts = [k for k in workers[0] if k not in ("name", "copies")]
        lines += ["", "## Worker count", ""]
        lines += [f"Median wall over {args.repeats} repeats; * = not proven optimal in every repeat.", ""]
        lines += ["| instance | copies | " + " | ".join(f"{c} workers" for c in counts) + " |"]
        lines += ["|---|---:|" + "---:|" * len(counts)]
        for w in workers:
            cells = [f"{_secs(w[c]['median'])}{'' if w[c]['optimal'] else ' *'}" for c in counts]
            lines.append(f"| {w['name']} | {w['copies']} | " + " | ".join(cells) + " |")
    if cli and "skipped" not in cli:
        lines += ["", "## Whole process", ""]
        times = ", ".join(f"{t:.2f}" for t in cli["times"])
        lines.append(
            f"`{cli['command']}`: {times} s (median {cli['median']:.2f} s); `python -c 'import "
            f"ftopt.cli.main'` alone: median {cli['import_median']:.2f} s. ftopt's modules are byte-compiled "
            "first, as `pip install` leaves them."
        )
    if plot:
        lines += ["", "## Solve time and gap against run copies", "", f"![solve time and gap]({plot})"]
    lines += [
        "",
        "## Method",
        "",
        "- Instances: `benchmarks/generate.py` (seeded), tiers seed (≤ 20 copies), medium (~100), c200 "
        "(200, the naive comparison), large (500 copies of ~40 runs), xl (2,000 copies of ~40 runs), "
        "plus `examples/*.yaml`. The last instance of each tier but c200 is an offload variant (full "
        "runs say `offload: auto`, at most 8 copies each), so it has heavy copies.",
        "- FFD (`baselines/ffd.py`): per copy the least-memory mode, copies by memory need "
        "descending, first open server that holds it, else the cheapest build (with the cheapest RAM "
        "and disk that hold it). Same builds, modes and rules as the product.",
        "- Naive (`baselines/naive.py`): one boolean per (copy, mode, slot), build choice per slot, "
        "slots = FFD's server count, no symmetry breaking; same rules, same time limit and workers.",
        "- Phases are timed by wrapping the product's functions where their callers look them up "
        "(`ftopt.solver.solve`: build_problem, precheck, build_plan, _explain_optimum; "
        "`ftopt.solver.search`: build_formulation, _tie_break, decode; `ftopt.solver.solve.run_model` is "
        "watched to count the models), so nothing is solved twice; every plan is then checked by "
        "`ftopt.verify.verify_plan`, outside the timing.",
    ]
    return "\n".join(lines) + "\n"


def _workers_text(args: argparse.Namespace) -> str:
    used = getattr(args, "workers_used", None) or args.workers
    if args.workers is None:
        return f"{used} CP-SAT workers (the product's default, one per core)"
    return f"{used} CP-SAT workers (--workers)"


def formulation(rows: list[Row]) -> str:
    """What the product's model is, with this run's sizes of its heavy part."""
    text = (
        "The product's CP-SAT model names no server; every variable is a count. Per build (chassis, "
        "card, card count, CPU, power cap, bridges, base RAM and disk): plain servers, and light copies "
        "per (mode, build), a copy being light on a build when its offloaded host RAM and NVMe fit its "
        "GPUs' share of the base RAM and disk. Per heavy configuration: servers. Heavy copies, which a "
        "server must hold alone, are grouped into classes (heavy modes of one build with the same GPUs, "
        "RAM and disk, counted per (mode, class)); a configuration is a multiset of classes one server "
        "holds, with the cheapest RAM and disk tiers for it, and its free GPUs, in aligned blocks, join "
        "the build's pool. The GPU rule is one row per build and block size t ∈ {1, 2, 4, 8}: GPUs of "
        "light copies of ≥ t cards ≤ GPUs of plain servers plus configurations' free blocks of ≥ t cards, "
        "exact because the sizes are powers of two (buddy blocks). The price (cents) is minimised, then a "
        "short tie-break stage holds it. Heavy configurations are first priced for their heavy copies "
        "alone, a relaxation whose optimum bounds the true one from below; every decoded server is "
        "right-sized to what it carries, and when that costs no more than the relaxed objective the plan "
        "is optimal. Otherwise the safe configurations, which budget per free GPU the most any light copy "
        "of the build needs, are solved as a second model, the cheaper buildable plan is kept and the "
        "relaxation's bound gives the gap."
    )
    heavy = [r for r in rows if r.heavy_copies]
    if not heavy:
        return text
    two = [r for r in heavy if any(len(a.models) > 1 for a in r.attempts)]
    biggest = max(heavy, key=lambda r: r.heavy_configs)
    sizes = "; ".join(
        f"{r.name} {r.heavy_copies} heavy copies → {r.heavy_classes} classes, {r.heavy_configs} "
        f"configurations ({r.safe_configs} safe)"
        for r in heavy
    )
    needed = ", ".join(f"{r.name} ({r.scheme})" for r in two) if two else "none"
    return (
        f"{text} Here {len(heavy)}/{len(rows)} instances have heavy copies ({sizes}; largest "
        f"{biggest.name}); the safe model was solved on {needed}."
    )


def draw_plot(rows: list[Row], path: Path, scaling: list[list[ScalePoint]] | None = None) -> bool:
    """results.png: solve time and gap against copies; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    markers = {"example": "P", "seed": "o", "medium": "s", "c200": "D", "large": "^", "xl": "v"}
    for tier in ALL_TIERS:
        for heavy in (False, True):
            chosen = [r for r in rows if r.tier == tier and (r.heavy_copies > 0) == heavy]
            if not chosen:
                continue
            label = f"{tier}{' (heavy copies)' if heavy else ''}"
            style = {
                "marker": markers.get(tier, "o"),
                "linestyle": "none",
                "fillstyle": "none" if heavy else "full",
            }
            top.errorbar(
                [r.copies for r in chosen],
                [r.median for r in chosen],
                yerr=[[r.median - min(r.times) for r in chosen], [max(r.times) - r.median for r in chosen]],
                label=label,
                **style,
            )
            bottom.plot(
                [r.copies for r in chosen],
                [100 * max(a.gap or 0 for a in r.attempts) for r in chosen],
                label=label,
                **style,
            )
    naive_rows = [r for r in rows if r.naive]
    if naive_rows:
        top.plot(
            [r.copies for r in naive_rows],
            [r.naive["seconds"] for r in naive_rows if r.naive],
            "kx",
            label="naive CP-SAT (build + solve)",
        )
    for points in scaling or []:
        top.plot(
            [p.copies for p in points],
            [p.median for p in points],
            linestyle="--",
            linewidth=0.8,
            marker=".",
            label=f"{points[0].name}, copies scaled",
        )
    for y, text in ((0.2, "0.2 s"), (2, "2 s"), (10, "10 s")):
        top.axhline(y, color="grey", linewidth=0.5, linestyle=":")
        top.text(1, y, text, fontsize=7, color="grey", va="bottom")
    top.set_xscale("log")
    top.set_yscale("log")
    top.set_ylabel("wall time per solve, s (median, min–max)")
    top.legend(fontsize=7, ncol=2)
    bottom.set_ylabel("worst gap over repeats, %")
    bottom.set_xlabel("run copies")
    top.set_title("ftopt: solve time and gap against run copies")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ---------------------------------------------------------------- command line


def parse(argv: list[str] | None) -> argparse.Namespace:
    """Modes of `python -m benchmarks`."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description="Run the ftopt benchmarks.")
    parser.add_argument("--tiers", default=",".join(ALL_TIERS), help="comma-separated tiers")
    parser.add_argument("--repeats", type=int, default=5, help="solves per instance")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per product solve")
    parser.add_argument(
        "--workers", type=int, default=None, help="CP-SAT workers (default: the product's, one per core)"
    )
    parser.add_argument("--naive-tiers", default="seed,medium,c200", help="tiers the naive model runs on")
    parser.add_argument("--naive-time-limit", type=float, default=None, help="default: --time-limit")
    parser.add_argument("--compare-workers", default="", help="e.g. 2,8: median wall per worker count")
    parser.add_argument(
        "--compare-on",
        default="seed-01,seed-03,medium-01,large-01,xl-01",
        help="instances for --compare-workers",
    )
    parser.add_argument("--cli-instance", default="seed-01", help="instance for the whole-process timing")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process timing")
    parser.add_argument(
        "--no-scaling", action="store_true", help="skip the xl instances with their copies scaled"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results.md", help="report path")
    parser.add_argument("--note", default="", help="a sentence for the report's header")
    parser.add_argument(
        "--render-only",
        type=Path,
        default=None,
        help="re-render results.md/.png from a results.json without solving",
    )
    args = parser.parse_args(argv)
    args.tiers = [t for t in args.tiers.split(",") if t]
    args.naive_tiers = [t for t in args.naive_tiers.split(",") if t]
    unknown = [t for t in args.tiers if t not in ALL_TIERS]
    if unknown:
        parser.error(f"unknown tier(s) {', '.join(unknown)}; expected some of {', '.join(ALL_TIERS)}")
    args.workers_used = settings_for(args).workers
    return args


def main(argv: list[str] | None = None) -> int:
    """Run, write results.md/.json/.png, print where."""
    args = parse(argv)

    def log(text: str) -> None:
        print(text, flush=True)

    if args.render_only:
        return rerender(args, log)

    catalogue = load_catalogue()
    optima = json.loads(KNOWN_OPTIMA.read_text()) if KNOWN_OPTIMA.exists() else {}
    info = machine()
    instances = discover(args.tiers)
    rows: list[Row] = []
    for instance in instances:
        log(f"{instance.name} ({instance.tier})")
        row = measure(instance, catalogue, args, optima, log)
        if row is not None:
            rows.append(row)
    workers: list[dict[str, Any]] = []
    if args.compare_workers:
        counts = [int(c) for c in args.compare_workers.split(",")]
        wanted = set(args.compare_on.split(","))
        chosen = [i for i in discover(list(TIER_NAMES)) if i.name in wanted]
        workers = compare_workers(chosen, catalogue, counts, args, log)
    scaling: list[list[ScalePoint]] = []
    if not args.no_scaling:
        log("scaling copies at a fixed run mix")
        scaling = measure_scaling([i for i in instances if i.tier == "xl"], catalogue, args, log)
    cli = None
    info["load_end"] = _load()
    if not args.no_cli:
        target = next((i for i in discover(["seed"]) if i.name == args.cli_instance), None)
        cli = time_cli(target, args.repeats, args.time_limit) if target else {"skipped": "instance not found"}
        log(f"cli: {cli}")
    write_report(rows, args, info, cli, workers, log, scaling)
    raw = {
        "machine": info,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "rows": [{**asdict(r), "median": r.median} for r in rows],
        "workers": workers,
        "scaling": [[asdict(p) for p in points] for points in scaling],
        "cli": cli,
        "notes": NOTES,
    }
    args.out.with_suffix(".json").write_text(json.dumps(raw, indent=1, default=str) + "\n")
    return 0


def write_report(
    rows: list[Row],
    args: argparse.Namespace,
    info: dict[str, str],
    cli: dict[str, Any] | None,
    workers: list[dict[str, Any]],
    log: Callable[[str], None],
    scaling: list[list[ScalePoint]] | None = None,
) -> None:
    """results.md and, when matplotlib is importable, results.png."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    png = args.out.with_suffix(".png")
    plot = png.name if draw_plot(rows, png, scaling) else None
    args.out.write_text(render(rows, args, info, cli, workers, plot, scaling))
    log(f"wrote {args.out}" + (f", {png}" if plot else " (no plot: matplotlib not importable)"))


def rerender(args: argparse.Namespace, log: Callable[[str], None]) -> int:
    """Rebuild the report from a results.json (same measurements, new wording or a note)."""
    raw = json.loads(args.render_only.read_text())
    keep = {f for f in Row.__dataclass_fields__}
    rows = []
    for d in raw["rows"]:
        fields = {k: v for k, v in d.items() if k in keep}
        fields["attempts"] = [Attempt(**a) for a in d["attempts"]]
        rows.append(Row(**fields))
    settings = raw["settings"]
    for key in ("time_limit", "workers", "repeats", "naive_tiers"):
        setattr(args, key, settings[key])
    args.workers_used = settings.get("workers_used", settings["workers"])
    NOTES[:] = raw.get("notes", [])
    scaling = [[ScalePoint(**p) for p in points] for points in raw.get("scaling", [])]
    write_report(rows, args, raw["machine"], raw["cli"], raw["workers"], log, scaling)
    return 0
