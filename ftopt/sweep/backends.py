"""Where the scenarios of a sweep run: local worker processes (the default) or a Ray cluster.

Both take the same context and scenarios and report each finished scenario as (key, status, JSON
line) through `on_done`, in completion order; the runner writes the lines. Neither loses a
scenario: a worker that dies (killed, out of memory) costs an attempt of the scenarios it may have
held, and a scenario is recorded as failed, with the reason, only after `max_attempts` attempts.

Local: a `ProcessPoolExecutor` on the forkserver context (spawn where there is none), whose server
has imported the solver once, so that a pool rebuilt after a crash starts in milliseconds. Only a
few tasks are in flight at a time, so when the pool breaks the suspects are known: they are run
again one by one, alone in a one-worker pool, where a crash names its scenario for certain; the
scenarios that were only queued are resubmitted without an attempt charged.

Ray: one task per scenario with `max_retries`; Ray reruns a task whose worker died. The context
travels once through the object store and each worker keeps it. `ray` is imported only here, only
when asked for.
"""

from __future__ import annotations

import multiprocessing
import os
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

from ftopt.errors import FtoptError
from ftopt.sweep.scenario import (
    Scenario,
    SweepContext,
    failed_record,
    init_worker,
    record_line,
    run_in_ray,
    run_in_worker,
)

#: (key, status, JSON line) of one finished scenario.
OnDone = Callable[[str, str, str], None]
#: How many scenarios are being solved right now.
OnRunning = Callable[[int], None]

#: Attempts per scenario before it is recorded as failed: a crash that repeats three times is the
#: scenario's, not bad luck.
MAX_ATTEMPTS = 3


class RayMissingError(FtoptError):
    """`--ray` without the `ray` package installed."""

    exit_code = 2


class Backend(Protocol):
    """Runs scenarios and reports each one finished, exactly once."""

    workers: int

    def run(
        self,
        context: SweepContext,
        scenarios: list[Scenario],
        on_done: OnDone,
        on_running: OnRunning | None = None,
    ) -> None:
        """Solve every scenario; return when each has been reported through `on_done`."""


def _mp_context() -> multiprocessing.context.BaseContext:
    """Forkserver with the solver preloaded (fresh workers in milliseconds); spawn elsewhere."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["ftopt.sweep.scenario", "ftopt.solver.solve"])
        return context
    return multiprocessing.get_context("spawn")


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now, killing the scenarios it is solving (Ctrl-C must not wait for them)."""
    processes = dict(getattr(pool, "_processes", None) or {})  # private, but the only handle
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        if process.is_alive():
            process.terminate()


@dataclass
class LocalBackend:
    """Worker processes on this machine, each solving one scenario at a time with one CP-SAT worker."""

    workers: int
    max_attempts: int = MAX_ATTEMPTS

    def run(
        self,
        context: SweepContext,
        scenarios: list[Scenario],
        on_done: OnDone,
        on_running: OnRunning | None = None,
    ) -> None:
        """Solve every scenario; rebuild the pool when a worker dies and retry what it may have held."""
        attempts: dict[str, int] = {}
        pending = list(scenarios)
        alone: deque[Scenario] = deque()  # in flight when a pool broke: retried one at a time
        while pending or alone:
            if alone:
                batch, workers, in_flight = [alone.popleft()], 1, 1
            else:
                batch, workers, in_flight = pending, min(self.workers, len(pending)), 2 * self.workers
            unfinished, suspects = self._round(context, batch, workers, in_flight, on_done, on_running)
            if batch is pending:
                pending = unfinished
            for scenario in suspects:
                attempts[scenario.key] = attempts.get(scenario.key, 0) + 1
                if attempts[scenario.key] >= self.max_attempts:
                    reason = f"the worker died on each of {attempts[scenario.key]} attempts"
                    on_done(scenario.key, "failed", record_line(failed_record(scenario, context.bid, reason)))
                else:
                    alone.append(scenario)

    def _round(
        self,
        context: SweepContext,
        scenarios: list[Scenario],
        workers: int,
        in_flight: int,
        on_done: OnDone,
        on_running: OnRunning | None,
    ) -> tuple[list[Scenario], list[Scenario]]:
        """One pool over `scenarios`: ([], []) when it held, else (never started, in flight)."""
        queue = deque(scenarios)
        running: dict[Future[tuple[str, str, str]], Scenario] = {}
        pool = ProcessPoolExecutor(workers, _mp_context(), initializer=init_worker, initargs=(context,))
        try:
            while queue or running:
                while queue and len(running) < in_flight:
                    scenario = queue.popleft()
                    try:
                        running[pool.submit(run_in_worker, scenario)] = scenario
                    except BrokenProcessPool:  # a worker died since the last wait: its future says which
                        queue.appendleft(scenario)
                        break
                if not running:  # broken with nothing in flight: a fresh pool for the rest
                    pool.shutdown(wait=True)
                    return list(queue), []
                if on_running:
                    on_running(min(workers, len(running)))
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    scenario = running.pop(future)
                    try:
                        on_done(*future.result())
                    except BrokenProcessPool:
                        suspects = [scenario, *running.values()]
                        pool.shutdown(wait=True)
                        return list(queue), suspects
                    except Exception as exc:  # the result did not come back (say, it would not pickle)
                        error = f"{type(exc).__name__}: {exc}"
                        on_done(
                            scenario.key, "failed", record_line(failed_record(scenario, context.bid, error))
                        )
        except BaseException:
            _stop(pool)
            raise
        pool.shutdown(wait=True)
        return [], []


def import_ray() -> Any:
    """The `ray` module, or a one-line error (exit 2) saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayMissingError(
            "--ray needs the ray package: pip install 'ftopt[ray]' (or run without --ray)"
        ) from None
    return ray


@dataclass
class RayBackend:
    """A Ray cluster: `auto` joins a local one or starts one; otherwise the address of a cluster."""

    address: str = "auto"
    max_attempts: int = MAX_ATTEMPTS
    num_cpus: int | None = None  # for a Ray started here; None: all cores
    workers: int = 0  # known once connected: the cluster's CPUs

    def run(
        self,
        context: SweepContext,
        scenarios: list[Scenario],
        on_done: OnDone,
        on_running: OnRunning | None = None,
    ) -> None:
        """One task per scenario; Ray reruns a task whose worker died, up to `max_attempts` in all."""
        ray = import_ray()
        started_here = self.connect(ray)
        try:
            self.workers = int(ray.cluster_resources().get("CPU", 1))
            remote = ray.remote(run_in_ray).options(
                num_cpus=1, max_retries=self.max_attempts - 1, retry_exceptions=False
            )
            token = f"{context.bid}-{uuid.uuid4().hex}"
            holder = [ray.put(context)]  # a list, so that Ray hands the ref itself to the task
            refs = {remote.remote(token, holder, scenario): scenario for scenario in scenarios}
            try:
                while refs:
                    if on_running:
                        on_running(min(self.workers, len(refs)))
                    ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0.2)
                    for ref in ready:
                        scenario = refs.pop(ref)
                        try:
                            on_done(*ray.get(ref))
                        except ray.exceptions.RayError as exc:
                            error = _ray_error(exc, self.max_attempts)
                            record = failed_record(scenario, context.bid, error)
                            on_done(scenario.key, "failed", record_line(record))
            except BaseException:
                for ref in refs:
                    ray.cancel(ref, force=True)
                raise
        finally:
            if started_here:
                ray.shutdown()

    def connect(self, ray: Any) -> bool:
        """Join the cluster (or start a local one); True when this call started or joined it."""
        if ray.is_initialized():
            return False
        # Ray's own workers must find ftopt as this process does (a source tree, a test run).
        os.environ.setdefault("PYTHONPATH", os.pathsep.join(p for p in _import_roots() if p))
        options: dict[str, Any] = {"include_dashboard": False, "logging_level": "WARNING"}
        if self.address != "auto":
            ray.init(address=self.address, **options)
            return True
        try:
            ray.init(address="auto", **options)
        except ConnectionError:
            ray.init(num_cpus=self.num_cpus, **options)
        return True


def _import_roots() -> list[str]:
    """The folder ftopt is imported from, for Ray workers started by this process."""
    import ftopt

    return [os.path.dirname(os.path.dirname(os.path.abspath(ftopt.__file__)))]


def _ray_error(exc: Exception, attempts: int) -> str:
    """One line for a task Ray gave up on."""
    name = type(exc).__name__
    if "WorkerCrashed" in name or "NodeDied" in name or "ActorDied" in name:
        return f"the worker died on each of {attempts} attempts ({name})"
    return f"{name}: {' '.join(str(exc).split())[:500]}"
