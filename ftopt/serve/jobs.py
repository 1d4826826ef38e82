"""Solves in worker processes: a queue, at most `workers` at once, live progress, cancel, time limit.

Why processes: CP-SAT holds the cores for seconds to minutes, and a solve must be stoppable at once
(cancel, or past its time limit) without stopping the server: a process can be killed, a thread
cannot. Each queue thread keeps one worker process alive between solves (starting one costs a
second of CPU to import OR-Tools) and replaces it when it is killed. The parent alone writes to the
store: the worker sends its incumbents and, at the end, its whole answer through a pipe, and the
parent records the answer in one transaction, so a killed worker (or server) never leaves half an
answer. A flood of requests is refused once
`workers + max_queue` solves are queued or running (`QueueFull`, HTTP 429).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ftopt.serve.solve_request import SolveRequest
from ftopt.serve.store import Solve, Store

#: A worker is killed this long past its time limit (the what-if re-solves and the frontier's
#: own budget come on top of the search's limit).
GRACE_S = 60.0
#: Incumbents are written to the store at most this often per solve.
PROGRESS_EVERY_S = 0.2
#: How much a worker process lowers its priority (os.nice) below the server's.
NICENESS = 10


class QueueFull(Exception):
    """More solves are queued than the server accepts; the caller should try again later."""


@dataclass(frozen=True)
class JobSettings:
    """How many solves run at once, how many may wait, and the CP-SAT workers each gets."""

    workers: int = 1
    max_queue: int = 8
    solver_workers: int = 1


def _serve(conn: Connection) -> None:
    """A worker process: solve each request that arrives, sending its incumbents, then its answer.

    It runs below the server's priority, so that the pages stay quick while solves run: a person
    waiting on a page matters more than a solve's last second. (On Linux it was started niced,
    before its imports; elsewhere it lowers itself here.)
    """
    if os.nice(0) < NICENESS:
        os.nice(NICENESS - os.nice(0))
    from ftopt.serve.answer import answer

    def report(p: Any) -> None:
        conn.send(("progress", p.price, p.bound, p.gap, p.seconds))

    while True:
        try:
            request = conn.recv()
        except EOFError:  # the server is gone
            return
        try:
            outcome = answer(request, report)
        except Exception as err:  # an internal error: still one line, never a lost solve
            outcome = {"state": "failed", "error": f"internal error: {type(err).__name__}: {err}"}
        conn.send(("done", outcome))


def _start_below_the_pages(process: BaseProcess) -> None:
    """Start a worker from a short-lived thread of lower priority: Linux keeps a nice value per
    thread and a child inherits it, so the worker starts (and imports OR-Tools, a second of CPU)
    below the pages. Not the queue's own thread: a niced thread holding the GIL would stall every
    page while the machine is busy. Elsewhere the worker lowers itself once started."""
    if sys.platform != "linux":
        process.start()
        return
    failed: list[BaseException] = []

    def start() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
            process.start()
        except BaseException as err:  # raised again in the queue's thread
            failed.append(err)

    starter = threading.Thread(target=start, name="ftopt-start-worker")
    starter.start()
    starter.join()
    if failed:
        raise failed[0]


class _Worker:
    """One queue thread's worker process and its end of the pipe, started when first needed."""

    def __init__(self, context: Any) -> None:
        self._context = context
        self.process: BaseProcess | None = None
        self.conn: Connection | None = None

    def ready(self) -> tuple[BaseProcess, Connection]:
        """The live worker, started anew if there is none (or it was killed)."""
        if self.process is None or self.conn is None or not self.process.is_alive():
            self.stop()
            here, there = self._context.Pipe(duplex=True)
            process = self._context.Process(target=_serve, args=(there,), daemon=True)
            _start_below_the_pages(process)
            there.close()
            self.process, self.conn = process, here
        return self.process, self.conn

    def stop(self) -> None:
        """Kill the worker (a cancel, a time limit, or shutdown); the next solve starts another."""
        if self.process is not None and self.process.pid is not None:
            self.process.kill()
            self.process.join(5)
        if self.conn is not None:
            self.conn.close()
        self.process, self.conn = None, None


class Jobs:
    """The solve queue and its threads, each of which keeps one worker process for its solves."""

    def __init__(self, store: Store, settings: JobSettings) -> None:
        self.store = store
        self.settings = settings
        self._context = multiprocessing.get_context("spawn")
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._lock = threading.Lock()
        self._running: dict[int, BaseProcess] = {}  # solve id → the process solving it
        self._workers = [_Worker(self._context) for _ in range(settings.workers)]
        self._threads = [
            threading.Thread(target=self._loop, args=(worker,), daemon=True) for worker in self._workers
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, bid_id: int, version: int, request: SolveRequest, author: str) -> Solve:
        """Queue a solve of one version; `QueueFull` when too many wait already."""
        with self._lock:
            if self.store.in_flight() >= self.settings.workers + self.settings.max_queue:
                raise QueueFull()
            solve = self.store.create_solve(bid_id, version, request.settings(), author)
        self._queue.put(solve.id)
        return solve

    def cancel(self, solve_id: int) -> bool:
        """Stop a queued or running solve; False when it had finished already."""
        solve = self.store.solve(solve_id)
        if solve is None or solve.finished:
            return False
        self.store.finish(solve_id, {"state": "cancelled", "error": "cancelled by the user"})
        with self._lock:
            process = self._running.get(solve_id)
        if process is not None:
            process.kill()
        return True

    def close(self) -> None:
        """Stop the queue threads and kill the workers (solves in flight are failed on restart)."""
        for _ in self._threads:
            self._queue.put(None)
        for worker in self._workers:
            if worker.process is not None and worker.process.pid is not None:
                worker.process.kill()

    def _loop(self, worker: _Worker) -> None:
        while (solve_id := self._queue.get()) is not None:
            if self.store.start(solve_id):
                self._run(solve_id, worker)
        worker.stop()

    def _run(self, solve_id: int, worker: _Worker) -> None:
        solve = self.store.solve(solve_id)
        version = self.store.version(solve.bid_id, solve.version) if solve else None
        if solve is None or version is None:
            return
        request = SolveRequest(
            workload=version.workload,
            solver_workers=self.settings.solver_workers,
            revision=version.number,
            files=tuple((name, kept.data) for name, kept in self.store.files(solve.bid_id).items()),
            **solve.settings,
        )
        process, conn = worker.ready()
        with self._lock:
            self._running[solve_id] = process
        latest = self.store.solve(solve_id)
        if latest is None or latest.finished:  # cancelled while the worker started
            process.kill()
        try:
            conn.send(request)
            outcome = self._follow(solve_id, process, conn, request.time_limit * 2 + GRACE_S)
        except OSError:  # the pipe broke: the worker was killed
            outcome = {"state": "failed", "error": "the worker process stopped without an answer"}
        finally:
            with self._lock:
                self._running.pop(solve_id, None)
        if outcome.get("from") != "worker":
            worker.stop()  # killed, timed out or died: the next solve gets a fresh worker
        outcome.pop("from", None)
        self.store.finish(solve_id, outcome)

    def _follow(
        self, solve_id: int, process: BaseProcess, receiver: Connection, limit_s: float
    ) -> dict[str, Any]:
        """The worker's messages until its answer: incumbents to the store, the answer returned."""
        deadline, written = time.monotonic() + limit_s, 0.0
        while (left := deadline - time.monotonic()) > 0:
            if not receiver.poll(min(0.5, left)):
                if not process.is_alive() and not receiver.poll():
                    break
                continue
            try:
                message = receiver.recv()
            except EOFError:
                break
            if message[0] == "done":
                return {**message[1], "from": "worker"}
            if time.monotonic() - written >= PROGRESS_EVERY_S:
                self.store.progress(solve_id, *message[1:])
                written = time.monotonic()
        else:
            process.kill()
            return {"state": "failed", "error": f"stopped after {limit_s:g} s, past the solve's time limit"}
        return {"state": "failed", "error": "the worker process stopped without an answer"}
