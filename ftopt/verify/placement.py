"""Rules on where copies train: known servers and runs, GPUs that exist, none shared, every copy once.

A server carries one card model by construction (its `gpu` field); what can go wrong is the
assignments: a GPU index past the server's cards, one GPU given to two copies, a copy missing,
placed twice or numbered past the run's `concurrent`, a run the workload does not have, and the
plan's restatement of the runs (names in order, each one's stack, model, method, algorithm, sequence
length, micro-batch, copies, rank and tokens) differing from the workload.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from ftopt.model.methods import TrainingMethod
from ftopt.model.plan import COMPLETE_SINCE, Assignment, RunSummary
from ftopt.model.workload import Run
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.violation import Violation, plural

#: Index lists longer than this are cut short in messages.
SHOWN = 8


def indices(values: list[int]) -> str:
    """GPU indices for a message: '1, 2, 5', or the first few and how many in all."""
    shown = ", ".join(map(str, values[:SHOWN]))
    return shown if len(values) <= SHOWN else f"{shown}, … ({len(values)} in all)"


def check_server_ids(ctx: Context) -> Iterator[Violation]:
    """Server ids are unique and every assignment names a server of the plan."""
    counts = Counter(s.id for s in ctx.plan.servers)
    for server_id, count in counts.items():
        if count > 1:
            yield Violation(
                "server-id", f"server {server_id}", f"id used by {count} servers", "ids are unique"
            )
    for a in ctx.plan.assignments:
        if a.server not in counts:
            yield Violation(
                "server-id", copy_subject(a), f"on server {a.server!r}", "no such server in the plan"
            )


def check_gpu_indices(ctx: Context) -> Iterator[Violation]:
    """Each copy has GPUs, each an index 0…gpu_count−1 of its server, none listed twice."""
    for a in ctx.plan.assignments:
        parts = ctx.parts.get(a.server)
        if not a.gpus:
            yield Violation("gpu-index", copy_subject(a), "no GPUs", "a copy trains on at least one GPU")
            continue
        repeated = sorted(i for i, n in Counter(a.gpus).items() if n > 1)
        if repeated:
            yield Violation(
                "gpu-index",
                copy_subject(a),
                f"GPUs [{indices(a.gpus)}] list {indices(repeated)} twice",
                "each GPU once",
            )
        if parts is None:
            continue
        count = parts.server.gpu_count
        outside = sorted({i for i in a.gpus if not 0 <= i < count})
        if outside:
            yield Violation(
                "gpu-index",
                copy_subject(a),
                f"GPU {indices(outside)} on server {a.server}",
                f"it has GPUs 0–{count - 1}",
            )


def check_gpu_sharing(ctx: Context) -> Iterator[Violation]:
    """No GPU is given to two copies at once (in queue mode: to two jobs whose hours intersect)."""
    holders: dict[tuple[str, int, str, int], list[Assignment]] = defaultdict(list)
    for a in ctx.plan.assignments:
        instance = (a.mig.profile, a.mig.index) if a.mig else ("", -1)  # one GPU slice (MIG) of the card
        for index in sorted(set(a.gpus)):
            holders[a.server, index, *instance].append(a)
    for (server_id, index, _, _), copies in sorted(holders.items()):
        clashing = _clashing(ctx, copies)
        if clashing:
            names = " and ".join(copy_subject(a) for a in clashing)
            allowed = "one job per GPU at a time" if ctx.queued else "one copy per GPU"
            yield Violation("gpu-shared", f"server {server_id}", f"GPU {index} given to {names}", allowed)


def _clashing(ctx: Context, copies: list[Assignment]) -> list[Assignment]:
    """Every copy of one GPU that overlaps another in time (all of them, outside queue mode)."""
    if len(copies) < 2:
        return []
    if not ctx.queued:
        return copies
    return [a for a in copies if any(b is not a and ctx.overlap(a, b) for b in copies)]


def check_known_runs(ctx: Context) -> Iterator[Violation]:
    """Every assignment names a run of the workload."""
    for a in ctx.plan.assignments:
        if a.run not in ctx.runs:
            yield Violation(
                "unknown-run", copy_subject(a), f"run {a.run!r}", "the workload has no run of that name"
            )


def _stack_of(ctx: Context, run: Run) -> str | None:
    """The stack a loaded run trains with (its own, else the workload's); None without stack data."""
    stack = run.stack or ctx.workload.stack
    return stack if ctx.catalogue.has("stacks", stack) else None


def check_run_summaries(ctx: Context) -> Iterator[Violation]:
    """The plan's `runs` restate the workload's runs in order, each with the stack its speed
    assumes: a reader of the plan alone learns what was asked and under which stack."""
    if ctx.plan.schema_version < COMPLETE_SINCE:
        return  # older plans may lack the runs or their stacks
    stated = [r.name for r in ctx.plan.runs]
    wanted = [r.name for r in ctx.workload.runs]
    if stated != wanted:
        yield Violation(
            "run-summary", "plan", f"runs {stated[:SHOWN]}", f"the workload's runs are {wanted[:SHOWN]}"
        )
        return
    for summary, run in zip(ctx.plan.runs, ctx.workload.runs, strict=True):
        if summary.stack != _stack_of(ctx, run):
            yield Violation(
                "run-summary",
                f"run {run.name}",
                f"stack {summary.stack}",
                f"the run trains with {_stack_of(ctx, run)}",
            )
        for name, said, asked in _stated_fields(summary, run, ctx.catalogue.methods.method(run.method)):
            if said != asked:
                yield Violation(
                    "run-summary", f"run {run.name}", f"{name} {said}", f"the workload states {asked}"
                )


def _stated_fields(summary: RunSummary, run: Run, method: TrainingMethod) -> list[tuple[str, object, object]]:
    """(field, as the plan states it, as the workload states it) for each field a reader of the plan
    takes as the workload's. The deadline is left out: a frontier point's plan is solved for a
    tighter one, and the timing rules check the workload's own deadline."""
    algorithm = None if run.algorithm.value == "sft" else run.algorithm.value
    return [
        ("model", summary.model, run.model_id),
        ("method", summary.method, run.method),
        ("algorithm", summary.algorithm, algorithm),
        ("seq_len", summary.seq_len, run.seq_len),
        ("micro_batch", summary.micro_batch, run.micro_batch),
        ("concurrent", summary.concurrent, run.concurrent),
        ("lora_rank", summary.lora_rank, run.lora_rank if method.ranked else None),
        ("train_tokens", summary.train_tokens, run.train_tokens),
    ]


def check_copies(ctx: Context) -> Iterator[Violation]:
    """Every copy 1…concurrent of every run is placed exactly once, and no copy beyond that."""
    placed = Counter((a.run, a.copy_) for a in ctx.plan.assignments)
    numbers: dict[str, list[int]] = {}  # copy numbers per run, gathered once (a scan per run was quadratic)
    for name, c in placed:
        numbers.setdefault(name, []).append(c)
    for run in ctx.workload.runs:
        expected = ctx.expected_copies(run)
        yield from _unplaced_or_twice(run.name, expected, placed)
        extra = sorted(c for c in numbers.get(run.name, ()) if c > expected)
        what = "jobs" if ctx.queued else "concurrent"
        for copy in extra:
            yield Violation(
                "copies", f"run {run.name} copy {copy}", "placed", f"the run has {expected} {what}"
            )


def _unplaced_or_twice(name: str, expected: int, placed: Counter[tuple[str, int]]) -> Iterator[Violation]:
    """Copies 1…expected of the run placed other than exactly once."""
    for copy in range(1, expected + 1):
        times = placed[name, copy]
        if times != 1:
            found = "not placed" if times == 0 else f"placed {plural(times, 'time')}"
            yield Violation("copies", f"run {name} copy {copy}", found, "placed exactly once")


def check_max_servers(ctx: Context) -> Iterator[Violation]:
    """At most the site's server positions."""
    limit = ctx.workload.site.max_servers
    count = len(ctx.plan.servers)
    if limit is not None and count > limit:
        yield Violation("max-servers", "plan", plural(count, "server"), f"site has {limit} positions")
