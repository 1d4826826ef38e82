"""Solves in worker processes: a queue, at most `workers` at once, live progress, cancel, time limit.

Why processes: CP-SAT holds the GIL-free cores for seconds to minutes, and a solve must be stoppable
at once (cancel, or past its time limit) without stopping the server: a process can be killed, a
thread cannot. The parent alone writes to the store: the worker sends its incumbents and, at the
end, its whole answer through a pipe, and the parent records the answer in one transaction, so a
killed worker (or server) never leaves half an answer. A flood of requests is refused once
`workers + max_queue` solves are queued or running (`QueueFull`, HTTP 429).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
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


def _work(request: SolveRequest, conn: Connection) -> None:
    """The worker process: solve, sending each incumbent, then the answer.

    It lowers its own priority first, before the solver is imported, so that the pages stay quick
    while solves run: a person waiting on a page matters more than a solve's last second.
    """
    os.nice(NICENESS)
    from ftopt.serve.answer import answer

    def report(p: Any) -> None:
        conn.send(("progress", p.price, p.bound, p.gap, p.seconds))

    try:
        conn.send(("done", answer(request, report)))
    except Exception as err:  # an internal error: still one line, never a lost solve
        conn.send(("done", {"state": "failed", "error": f"internal error: {type(err).__name__}: {err}"}))
    finally:
        conn.close()


class Jobs:
    """The solve queue and its worker threads, each of which runs one worker process at a time."""

    def __init__(self, store: Store, settings: JobSettings) -> None:
        self.store = store
        self.settings = settings
        self._context = multiprocessing.get_context("spawn")
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._lock = threading.Lock()
        self._processes: dict[int, BaseProcess] = {}
        self._threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(settings.workers)]
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
            process = self._processes.get(solve_id)
        if process is not None:
            process.kill()
        return True

    def close(self) -> None:
        """Stop the worker threads and kill running workers (their solves are failed on restart)."""
        for _ in self._threads:
            self._queue.put(None)
        with self._lock:
            for process in self._processes.values():
                process.kill()

    def _loop(self) -> None:
        while (solve_id := self._queue.get()) is not None:
            if self.store.start(solve_id):
                self._run(solve_id)

    def _run(self, solve_id: int) -> None:
        solve = self.store.solve(solve_id)
        version = self.store.version(solve.bid_id, solve.version) if solve else None
        if solve is None or version is None:
            return
        request = SolveRequest(
            workload=version.workload, solver_workers=self.settings.solver_workers, **solve.settings
        )
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(target=_work, args=(request, sender), daemon=True)
        process.start()
        sender.close()
        with self._lock:
            self._processes[solve_id] = process
        latest = self.store.solve(solve_id)
        if latest is None or latest.finished:  # cancelled while the process started
            process.kill()
        try:
            outcome = self._follow(solve_id, process, receiver, request.time_limit * 2 + GRACE_S)
        finally:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
            with self._lock:
                self._processes.pop(solve_id, None)
            receiver.close()
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
                return dict(message[1])
            if time.monotonic() - written >= PROGRESS_EVERY_S:
                self.store.progress(solve_id, *message[1:])
                written = time.monotonic()
        else:
            process.kill()
            return {"state": "failed", "error": f"stopped after {limit_s:g} s, past the solve's time limit"}
        return {"state": "failed", "error": "the worker process stopped without an answer"}
