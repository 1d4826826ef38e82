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

Ray: scenarios go out in batches, a few tasks per CPU, because each Ray task costs a millisecond
or two of scheduling and result transfer, as much as a small scenario's solve. A batch whose worker
died is not retried whole: each of its scenarios goes out again alone, with the attempts left,
so a crash still names its scenario and costs the others nothing but a rerun. The context travels
once through the object store and each worker keeps it. `ray` is imported only here, only when
asked for.
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
    NOT_RUN,
    Scenario,
    SweepContext,
    failed_record,
    init_worker,
    not_run_record,
    record_line,
    run_in_ray,
    run_in_worker,
    search_left,
)

#: (key, status, JSON line) of one finished scenario.
OnDone = Callable[[str, str, str], None]
#: How many scenarios are being solved right now.
OnRunning = Callable[[int], None]

#: Attempts per scenario before it is recorded as failed: a crash that repeats three times is the
#: scenario's, not bad luck.
MAX_ATTEMPTS = 3

#: Ray tasks per CPU, and scenarios per task at most: several tasks per CPU keep every CPU busy to
#: the end of the sweep; a cap keeps a batch's rerun after a crash short.
RAY_TASKS_PER_CPU = 4
MAX_RAY_BATCH = 16


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


def spent(context: SweepContext) -> bool:
    """Whether the command's budget is spent: what is left gives no scenario its least search."""
    return context.ends_at is not None and search_left(context) is None


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


def _close_broken(pool: ProcessPoolExecutor) -> None:
    """Close a pool one of whose workers died, without hanging on the others.

    Python 3.11's pool terminates its workers when one dies and then joins them, but a worker it
    starts while breaking can miss the terminate and wait on the call queue for ever, and with it
    the join (seen under load). So every worker the pool holds is killed until its manager thread
    has finished; the workers are ours and their scenarios are retried anyway.
    """
    processes = getattr(pool, "_processes", None) or {}  # the live dict the manager thread joins
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    while manager is not None and manager.is_alive():
        for process in list(processes.values()):
            if process.is_alive():
                process.kill()
        manager.join(0.1)


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
                    if spent(context):  # no worker for a scenario whose turn comes after the budget
                        on_done(scenario.key, NOT_RUN, record_line(not_run_record(scenario, context)))
                        continue
                    try:
                        running[pool.submit(run_in_worker, scenario)] = scenario
                    except BrokenProcessPool:  # a worker died since the last wait: its future says which
                        queue.appendleft(scenario)
                        break
                if not running:  # broken with nothing in flight: a fresh pool for the rest
                    _close_broken(pool)
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
                        _close_broken(pool)
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
        """Batches of scenarios as Ray tasks; a batch whose worker died goes out again one by one."""
        ray = import_ray()
        started_here = self.connect(ray)
        try:
            self.workers = int(ray.cluster_resources().get("CPU", 1))
            token = f"{context.bid}-{uuid.uuid4().hex}"
            holder = [ray.put(context)]  # a list, so that Ray hands the ref itself to the task
            tasks = _RayTasks(ray, token, holder, self.max_attempts)
            for batch in ray_batches(scenarios, self.workers):
                tasks.submit(batch)
            try:
                while tasks.refs:
                    if on_running:
                        on_running(min(self.workers, tasks.scenarios_in_flight()))
                    tasks.collect(context, on_done)
            except BaseException:
                tasks.cancel()
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


def ray_batches(scenarios: list[Scenario], cpus: int) -> list[list[Scenario]]:
    """Scenarios in order, cut into about RAY_TASKS_PER_CPU batches per CPU of at most MAX_RAY_BATCH."""
    size = max(1, min(MAX_RAY_BATCH, len(scenarios) // (max(cpus, 1) * RAY_TASKS_PER_CPU)))
    return [scenarios[start : start + size] for start in range(0, len(scenarios), size)]


def run_batch_in_ray(token: str, holder: list[Any], batch: list[Scenario]) -> list[tuple[str, str, str]]:
    """Ray task: the scenarios of one batch, one after the other, in one worker."""
    return [run_in_ray(token, holder, scenario) for scenario in batch]


class _RayTasks:
    """The Ray tasks in flight: batches first, then the scenarios of a batch whose worker died, alone.

    A batch runs once (no retries): if its worker dies, each of its scenarios has used one attempt
    and goes out alone with the attempts left, where Ray's own retries rerun it.
    """

    def __init__(self, ray: Any, token: str, holder: list[Any], max_attempts: int) -> None:
        self.ray, self.token, self.holder, self.max_attempts = ray, token, holder, max_attempts
        self.refs: dict[Any, tuple[list[Scenario], int]] = {}  # ref → (scenarios, attempts it may use)

    def submit(self, batch: list[Scenario], attempts: int | None = None) -> None:
        """Send a batch: several scenarios get one attempt; one alone gets `attempts` (default all)."""
        if attempts is None:
            attempts = self.max_attempts if len(batch) == 1 else 1
        remote = self.ray.remote(run_batch_in_ray).options(
            num_cpus=1, max_retries=attempts - 1, retry_exceptions=False
        )
        self.refs[remote.remote(self.token, self.holder, batch)] = (batch, attempts)

    def scenarios_in_flight(self) -> int:
        """How many scenarios the tasks in flight hold."""
        return sum(len(batch) for batch, _ in self.refs.values())

    def collect(self, context: SweepContext, on_done: OnDone) -> None:
        """Report what finished in the last moment; resubmit or fail what Ray gave up on."""
        ready, _ = self.ray.wait(list(self.refs), num_returns=len(self.refs), timeout=0.2)
        for ref in ready:
            batch, attempts = self.refs.pop(ref)
            try:
                results = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:
                self._gave_up(batch, attempts, exc, context, on_done)
                continue
            for result in results:
                on_done(*result)

    def _gave_up(
        self, batch: list[Scenario], attempts: int, exc: Exception, context: SweepContext, on_done: OnDone
    ) -> None:
        """A batch's scenarios go out alone; a scenario alone has used every attempt and is failed."""
        left = self.max_attempts - attempts
        for scenario in batch:
            if len(batch) > 1 and left > 0:
                self.submit([scenario], left)
                continue
            error = _ray_error(exc, self.max_attempts)
            on_done(scenario.key, "failed", record_line(failed_record(scenario, context.bid, error)))

    def cancel(self) -> None:
        """Stop every task in flight (Ctrl-C must not wait for them)."""
        for ref in self.refs:
            self.ray.cancel(ref, force=True)


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
