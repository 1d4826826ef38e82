"""The plan summary: everything a headline, a quote or a report says about a plan, computed once.

Why one summary: each format (terminal table, Markdown, HTML, xlsx, JSON and YAML) used to count
the GPUs, word the hours and name the runs on its own, and they drifted ("10 GPUs (2 of them owned
already)" counted owned *servers*; a queue plan was "every run trained within 97.5 h" where its
schedule ends at 655 h; GRPO printed as "lora r32"). Here those figures and sentences are derived
once from the plan (with the workload's buyer details and the catalogue's origin), and every
renderer lays out these records. A new figure is one field here, one `Figure` in `key_figures`,
and it reaches every format that lists the key figures.

The model layer only: no solver, no click, no rendering.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ftopt.model.commercial import Commercial, Copy, cents, commercial, figure_pairs, total_words
from ftopt.model.facility import Facility, facility
from ftopt.model.findings import WEIGHED, money
from ftopt.model.hardware import Catalogue, CatalogueOrigin
from ftopt.model.plan import Assignment, Node, Plan, RunSummary, ScheduledJob, Server, Status
from ftopt.model.result import Result
from ftopt.model.spread import DEFAULT_CONFIDENCE, confidence_words
from ftopt.model.workload import Energy, QuoteDetails, Workload

_SUMMARY = ConfigDict(frozen=True, extra="forbid")

#: The algorithm of a supervised run, as `RunSummary.algorithm` leaves it unset.
SUPERVISED = "sft"


class Figure(BaseModel):
    """One key figure of the quote: a label and its value as text, in every format's list."""

    model_config = _SUMMARY
    label: str
    value: str


class CopyFailures(BaseModel):
    """What failures cost one copy (ftopt.model.failures), as the run table states it."""

    model_config = _SUMMARY
    hours_with_failures: float
    checkpoint_interval_h: float
    expected_interruptions: float
    failure_overhead: float
    servers: int = Field(description="servers the copy spans (its checkpoints land on all their drives)")


class SpareLine(BaseModel):
    """A run's hot spare servers and what they buy: its copy longest at P90, with and without them."""

    model_config = _SUMMARY
    per_copy: int = Field(description="spare servers beside each copy over several servers")
    servers: tuple[str, ...] = Field(description="every spare server of the run, by id")
    price: float = Field(description="what all of them cost")
    hours_p90: float | None = Field(description="the copy's hours at P90 with its spares")
    hours_p90_without: float | None = Field(description="the same copy's hours at P90 had it none")


class RunLine(BaseModel):
    """One run of the bid as the quote states it: what trains, how, how many, and its hours."""

    model_config = _SUMMARY
    name: str
    model: str
    algorithm: str = Field(description="sft, dpo, grpo or ppo")
    adapter: str = Field(description="full, lora or qlora: how the (policy) weights train")
    method: str = Field(description="the words a quote prints: `GRPO, LoRA r32`, `full`, `QLoRA r16`")
    copies: int = Field(description="copies at once (peak) or jobs within the horizon (queue)")
    hours: float | None = Field(description="the longest copy's or job's hours; None without train_tokens")
    hours_p50: float | None = Field(default=None, description="the longest copy's hours at P50 (spread)")
    hours_p90: float | None = Field(default=None, description="the longest copy's hours at P90 (spread)")
    failures: CopyFailures | None = Field(
        default=None, description="the checkpoints and interruptions of the copy longest with failures"
    )
    spares: SpareLine | None = Field(default=None, description="its hot spare servers, when it has any")
    deadline_hours: float | None
    deadline_confidence: float | None = Field(
        default=None, description="0.5 or 0.9: the deadline is met when the hours at it are within it"
    )
    deadline_met: bool | None


class ScheduleLine(BaseModel):
    """One job of a queue plan: where and when it trains."""

    model_config = _SUMMARY
    run: str
    job: int
    servers: str = Field(description="`s1`, or `s1+s2` for a multi-node job")
    gpus: str = Field(description="GPU indices on each of its servers")
    start_hours: float
    end_hours: float


class CopyHeadroom(BaseModel):
    """The memory one copy (or several identical copies) of a run leaves free per GPU, against the
    planning margin it must leave: the issue-28 promise, stated in every format."""

    model_config = _SUMMARY
    run: str
    copies: str = Field(description="the copies (or jobs) it holds for: `1`, `1-4`, `2, 5`")
    card: str = Field(description="the card id")
    gpus: int = Field(description="GPUs per copy")
    memory_gb: float = Field(description="memory ftopt counts per GPU (states, activations, overhead)")
    free_gb: float = Field(description="card memory per GPU the copy leaves free: card - memory_gb")
    free_percent: float = Field(description="free_gb as a share of memory_gb: how far the memory may grow")
    margin_percent: float | None = Field(description="the margin the copy is planned with; None: none")
    basis: str | None = Field(description="where the margin comes from (Assignment.memory_margin_basis)")
    measured_percent: float | None = Field(
        description="the error measured for the run's stack and method where the workload's own margin "
        "is tighter (its tight-margin note); None otherwise"
    )
    headroom_gb: float | None = Field(description="free beyond the margin (Assignment.headroom_gb)")
    words: str = Field(description="the line every format prints")


class CatalogueInUse(BaseModel):
    """The catalogue the plan was made from, and whose prices it quotes."""

    model_config = _SUMMARY
    kind: Literal["bundled", "vendor"]
    directory: str | None
    content_hash: str | None
    prices: Literal["indicative", "vendor", "price list"]
    words: str


class Statement(BaseModel):
    """One sentence of the quote's explanation and the kind of finding it words (the HTML marks it)."""

    model_config = _SUMMARY
    kind: str
    text: str


#: The note that lists the catalogue prices without a public source: an internal, for the appendix.
ASSUMED_PRICES = "prices"


class RentComparison(BaseModel):
    """Buy or rent, like with like: the same runs and hours on both sides, or why not."""

    model_config = _SUMMARY
    comparable: bool
    rent_cost: float | None = None
    committed_cost: float | None = None
    purchase: float
    gpu_hours: float | None = None
    break_even_months: float | None = None
    words: str


class AlternativeLine(BaseModel):
    """Another bid the buyer may weigh (`--alternatives`): its price at the buyer's discount, as the
    headline states the plan's, what it adds and drops, and how long its slowest run takes."""

    model_config = _SUMMARY
    option: int = Field(description="2 for the next cheapest bid (option 1 is the plan), 3 after that, …")
    price: float = Field(description="its total price before the buyer's discount")
    price_to_pay: float = Field(description="its price less the same discount as the plan's")
    more_to_pay: float = Field(description="its price to pay minus the plan's")
    differs: tuple[str, ...] = Field(description="servers it adds (+) and drops (−) against the plan")
    servers: str = Field(description="its server groups in words: `2 × 4 × h200-nvl in gpu-server-4`")
    hours: float | None = Field(
        description="its slowest run's hours at the planned confidence (`confidence`), as the plan's `hours`"
    )
    hours_p50: float | None = Field(default=None, description="its slowest run's hours at P50")
    hours_p90: float | None = Field(description="its slowest run's hours at P90; None without spread")
    hours_words: str = Field(default="", description="`80.9 h at P90 (P50 61.7 h)`: hours as printed")
    proven_next: bool = Field(description="CP-SAT proved no cheaper bid differs from the options before")
    status: str = Field(default="feasible", description="optimal or feasible, as the plan's own status")
    gap: float | None = Field(
        default=None, description="its price's distance to the search's lower bound; proven only at 0"
    )


class PlanSummary(BaseModel):
    """Everything a headline, a quote or a report says about a plan, computed once (`summarize`)."""

    model_config = _SUMMARY
    workload: str | None
    currency: str
    price: float = Field(description="the plan's total price: what the solver minimised over")
    discount_percent: float = Field(description="the buyer's discount (quote.discount_percent)")
    price_to_pay: float = Field(description="price less the discount: the figure the buyer reads")
    servers: int
    servers_owned: int
    gpus: int
    gpus_owned: int = Field(description="GPUs in the customer's own servers")
    mode: Literal["peak", "queue"]
    together: str = Field(description="what is trained at once, in words")
    hours: float | None = Field(
        description="the time until everything trains at the planned confidence (`confidence`): peak: "
        "the slowest run's hours at its deadline confidence (P90 by default); queue: the last job's end"
    )
    confidence: float = Field(
        default=DEFAULT_CONFIDENCE,
        description="the confidence the plan's hours are checked at (0.9: P90, 0.5: P50): the runs' "
        "deadline confidence, the largest where they differ",
    )
    hours_label: str = Field(
        default="P90",
        description="how `hours` is stated: P90 or P50, or `the speed model` for plans without spread",
    )
    hours_p50: float | None = Field(default=None, description="`hours` at P50, printed beside it")
    hours_p90: float | None = Field(default=None, description="`hours` at P90")
    hours_model: float | None = Field(
        default=None, description="peak: the slowest copy's hours by the speed model alone (no spread)"
    )
    hours_words: str = Field(default="", description="`80.9 h at P90 (P50 61.7 h)`: hours as printed")
    horizon_hours: float | None
    last_job_end_hours: float | None
    queue_finish_p50: float | None = Field(
        default=None,
        description="queue: the last job's end with every job at its P50 hours, in the schedule's order",
    )
    queue_finish_p90: float | None = Field(
        default=None,
        description="queue: the last job's end with every job at its P90 hours, in the schedule's order",
    )
    runs_without_hours: tuple[str, ...] = Field(description="runs without train_tokens: no hours")
    runs: tuple[RunLine, ...]
    spares: int = Field(default=0, description="hot spare servers in the plan (in `servers` too)")
    spares_price: float = Field(default=0.0, description="what the spare servers cost (in `price` too)")
    shaped: tuple[Statement, ...] = Field(
        default=(), description="what shaped the answer: binding rules, then what one eased rule would save"
    )
    rules: tuple[Statement, ...] = Field(
        default=(),
        description="the rules and defaults applied: the plan's notes less the assumed prices (in the "
        "appendix) and the weighed lines (their own block)",
    )
    weighed: tuple[str, ...] = Field(
        default=(),
        description="what the plan buys at a cost large against what it buys (spare servers, CPU offload, "
        "buying against renting), each sentence with both figures (`WEIGHED` findings of the notes)",
    )
    schedule: tuple[ScheduleLine, ...]
    headroom: tuple[CopyHeadroom, ...] = Field(
        description="each copy's free memory per GPU against its planning margin, identical copies once"
    )
    links: tuple[CopyLink, ...] = Field(
        default=(), description="what joins each copy's GPUs, in the card maker's words (link_words)"
    )
    standing: Literal["proven", "within gap", "unproven", "none"]
    gap: float | None
    bound: float | None
    proof: str = Field(description="the standing in words")
    catalogue: CatalogueInUse
    rent: RentComparison | None
    buyer: QuoteDetails | None
    alternatives: tuple[AlternativeLine, ...] = Field(
        default=(), description="the next cheapest bids, in price order (`--alternatives`)"
    )
    budget: str | None = Field(
        default=None, description="how the solve shared its time limit among its phases (Plan.budget)"
    )
    commercial: Commercial | None = Field(
        default=None,
        description="the quote's commercial lines (`quote:`): hardware at sell price, discount, services, "
        "shipping, tax and total; cost and margin in the seller's copy (ftopt.quote.copies)",
    )
    facility: Facility | None = Field(
        default=None,
        description="the facility sheet: power, heat, airflow, weight and rack units per rack and bid",
    )
    headline: str
    figures: tuple[Figure, ...] = Field(description="the key figures every format lists, in order")

    @property
    def hours_p50_p90(self) -> tuple[float, float] | None:
        """A peak plan's slowest run at P50 and P90 (the speed model's spread, with failures); a queue
        plan's last job's end at P50 and P90 (`queue_finish`); None without spread figures."""
        if self.mode == "queue":
            p50, p90 = self.queue_finish_p50, self.queue_finish_p90
        else:
            p50 = max((r.hours_p50 for r in self.runs if r.hours_p50 is not None), default=None)
            p90 = max((r.hours_p90 for r in self.runs if r.hours_p90 is not None), default=None)
        return None if p50 is None or p90 is None else (p50, p90)


# --- runs -----------------------------------------------------------------------------------------


def method_words(run: RunSummary) -> str:
    """`GRPO, LoRA r32`, `DPO, full`, `full`, `QLoRA r16`: the algorithm (when not supervised) and
    the adapter with its rank."""
    adapter = run.method_label or run.method
    if run.lora_rank:  # stated for adapter methods only (the registry's `trains: adapter`)
        adapter += f" r{run.lora_rank}"
    algorithm = run.algorithm or SUPERVISED
    return adapter if algorithm == SUPERVISED else f"{algorithm.upper()}, {adapter}"


def _hours(copies: list[Assignment], field: str = "hours") -> float | None:
    known = [getattr(a, field) for a in copies if getattr(a, field) is not None]
    return max(known) if known else None


def deadline_met(run: RunSummary, copies: list[Assignment] | tuple[Assignment, ...]) -> bool | None:
    """Whether every copy's hours at the run's deadline confidence are within its deadline (None
    without a deadline or hours); plans without spread figures hold their plain hours to it."""
    held = [h for a in copies if (h := a.hours_at(run.deadline_confidence)) is not None]
    if run.deadline_hours is None or not held:
        return None
    return max(held) <= run.deadline_hours + 1e-9


def _failures(copies: list[Assignment]) -> CopyFailures | None:
    """The failure figures of the copy with the most hours with failures (None without them)."""
    stated = [a for a in copies if a.hours_with_failures is not None]
    if not stated:
        return None
    a = max(stated, key=lambda c: c.hours_with_failures or 0.0)
    if a.checkpoint_interval_h is None or a.expected_interruptions is None or a.failure_overhead is None:
        return None
    return CopyFailures(
        hours_with_failures=a.hours_with_failures or 0.0,
        checkpoint_interval_h=a.checkpoint_interval_h,
        expected_interruptions=a.expected_interruptions,
        failure_overhead=a.failure_overhead,
        servers=len(a.nodes) if a.multinode else 1,
    )


def _spares(copies: list[Assignment], prices: dict[str, float]) -> SpareLine | None:
    """The run's spares and the P90 hours of its copy that would be longest without them (None when
    no copy has spares)."""
    spared = [a for a in copies if a.spares]
    if not spared:
        return None
    a = max(spared, key=lambda c: c.hours_p90_without_spares or 0.0)
    servers = tuple(s for c in spared for s in c.spares)
    return SpareLine(
        per_copy=len(a.spares),
        servers=servers,
        price=round(sum(prices.get(s, 0.0) for s in servers), 2),
        hours_p90=a.hours_p90,
        hours_p90_without=a.hours_p90_without_spares,
    )


def _spare_totals(runs: tuple[RunLine, ...]) -> dict[str, float | int]:
    """The plan's spare servers and what they cost, over every run's spares."""
    lines = [r.spares for r in runs if r.spares]
    return {
        "spares": sum(len(x.servers) for x in lines),
        "spares_price": round(sum(x.price for x in lines), 2),
    }


def _run_line(run: RunSummary, copies: list[Assignment], prices: dict[str, float]) -> RunLine:
    hours = _hours(copies)
    return RunLine(
        name=run.name,
        model=run.model,
        algorithm=run.algorithm or SUPERVISED,
        adapter=run.method,
        method=method_words(run),
        copies=run.jobs if run.jobs is not None else run.concurrent,
        hours=hours,
        hours_p50=_hours(copies, "hours_p50"),
        hours_p90=_hours(copies, "hours_p90"),
        failures=_failures(copies),
        spares=_spares(copies, prices),
        deadline_hours=run.deadline_hours,
        deadline_confidence=run.deadline_confidence,
        deadline_met=deadline_met(run, copies),
    )


def run_lines(plan: Plan) -> tuple[RunLine, ...]:
    """Each run of the bid, in workload order, with its copies' longest hours.

    The assignments are grouped by run once: a scan of every assignment per run took 27 s on a bid
    of 5,000 runs."""
    by_run: dict[str, list[Assignment]] = {}
    for a in plan.assignments:
        by_run.setdefault(a.run, []).append(a)
    prices = {s.id: s.price for s in plan.servers}
    return tuple(_run_line(r, by_run.get(r.name, []), prices) for r in plan.runs)


def schedule_lines(plan: Plan) -> tuple[ScheduleLine, ...]:
    """A queue plan's jobs in start order (empty for a peak plan)."""
    lines = []
    for job in sorted(plan.schedule, key=lambda j: (j.start_hours, j.run, j.job)):
        nodes = job.nodes or []
        servers = "+".join(n.server for n in nodes) if len(nodes) > 1 else job.server
        gpus = ",".join(map(str, job.gpus)) + (f" on each of {len(nodes)}" if len(nodes) > 1 else "")
        lines.append(
            ScheduleLine(
                run=job.run,
                job=job.job,
                servers=servers,
                gpus=gpus,
                start_hours=job.start_hours,
                end_hours=job.end_hours,
            )
        )
    return tuple(lines)


# --- each copy's memory headroom ---------------------------------------------------------------------


def _numbers(copies: list[int]) -> str:
    """`1`, `1-4`, `2, 5`: copy numbers, runs of consecutive ones as ranges."""
    spans: list[list[int]] = []
    for n in sorted(copies):
        if spans and n == spans[-1][-1] + 1:
            spans[-1].append(n)
        else:
            spans.append([n])
    return ", ".join(str(s[0]) if len(s) == 1 else f"{s[0]}-{s[-1]}" for s in spans)


def headroom_words(h: CopyHeadroom) -> str:
    """`run r copy 1 on 2 × card: 12.3 GB free per GPU, 18 % of its 68.0 GB, against a 13 % margin
    (basis); 3.4 GB beyond it`, and where the workload forced the margin below the measured error,
    says so."""
    copies = f"cop{'ies' if ('-' in h.copies or ',' in h.copies) else 'y'} {h.copies}"
    line = (
        f"{h.run} {copies} on {h.gpus} × {h.card}: {h.free_gb:,.1f} GB free per GPU, "
        f"{h.free_percent:.0f} % of its {h.memory_gb:,.1f} GB"
    )
    if h.margin_percent is None:
        return line + " (planned without a margin)"
    line += f", against a {h.margin_percent:.0f} % margin ({h.basis})"
    if h.measured_percent is not None:
        line += f", tighter than the {h.measured_percent:.0f} % measured for its stack and method"
    return line + (f"; {h.headroom_gb:,.1f} GB beyond it" if h.headroom_gb is not None else "")


def _measured(plan: Plan) -> dict[str, float]:
    """Per run, the measured error its tight-margin note states (runs the workload forced tighter)."""
    found: dict[str, float] = {}
    for n in plan.notes:
        measured = n.figures.get("measured")
        if n.kind == "tight-margin" and isinstance(measured, int | float):
            found[n.subject] = float(measured)
    return found


def _headroom_key(a: Assignment) -> tuple[object, ...]:
    m = a.memory_per_gpu_gb
    return (a.run, a.gpu_count, m.total, a.free_gb, a.memory_margin, a.memory_margin_basis, a.headroom_gb)


def headroom_lines(plan: Plan) -> tuple[CopyHeadroom, ...]:
    """Each copy's memory left free against its margin, in plan order; identical copies of a run on
    the same card (same figures) are one line."""
    cards = {s.id: s.gpu for s in plan.servers}
    measured = _measured(plan)
    groups: dict[tuple[object, ...], list[Assignment]] = {}
    for a in plan.assignments:
        groups.setdefault((cards.get(a.server, "?"), *_headroom_key(a)), []).append(a)
    lines = []
    for (card, *_), copies in groups.items():
        a, total = copies[0], copies[0].memory_per_gpu_gb.total
        forced = measured.get(a.run) if a.memory_margin is not None else None
        draft = CopyHeadroom(
            run=a.run,
            copies=_numbers([c.copy_ for c in copies]),
            card=str(card),
            gpus=a.gpu_count,
            memory_gb=total,
            free_gb=a.free_gb,
            free_percent=round(100 * a.free_gb / total, 1) if total > 0 else 0.0,
            margin_percent=None if a.memory_margin is None else round(100 * a.memory_margin, 1),
            basis=a.memory_margin_basis,
            measured_percent=None if forced is None else round(100 * forced, 1),
            headroom_gb=a.headroom_gb,
            words="",
        )
        lines.append(draft.model_copy(update={"words": headroom_words(draft)}))
    return tuple(lines)


# --- a server's draw: the parts or the vendor's maximum ----------------------------------------------


def power_basis_words(server: Server) -> str:
    """Which figure the server's draw was planned with, and the other: the parts' estimate or the
    vendor's published system maximum (scaled to its cards); empty where no vendor figure is
    published or the plan predates the two figures. Every format prints it beside the draw."""
    parts, vendor = server.parts_power_w, server.vendor_max_w
    if parts is None or vendor is None:
        return ""
    if server.power_basis == "vendor maximum":
        return f"planned at the vendor's published maximum, {vendor:,} W (the parts come to {parts:,} W)"
    return f"planned at the parts' {parts:,} W (the vendor's published maximum is {vendor:,} W)"


# --- the links between a copy's GPUs ---------------------------------------------------------------

#: A link kind's words where the server names no link of its own (PCIe; a plan written before
#: `Server.link_name` was kept reads as NVLink, the only such link then).
_LINK_WORDS = {"nvlink": "NVLink", "pcie": "PCIe"}


class CopyLink(BaseModel):
    """What joins one copy's GPUs, in the words of the card's maker: the line every format prints."""

    model_config = _SUMMARY
    run: str
    copy_number: int = Field(ge=1, description="the copy (or job) number, Assignment.copy")
    kind: str = Field(description="nvlink or pcie, as the plan stores it (Assignment.link)")
    words: str = Field(description="NVLink, Infinity Fabric or PCIe: the server's own link name")


def server_link_words(server: Server) -> str:
    """The server's scale-up link as its cards' maker names it; NVLink for a plan written before
    the name was kept."""
    return server.link_name or _LINK_WORDS["nvlink"]


def link_words(plan: Plan, a: Assignment) -> str | None:
    """What joins a copy's GPUs as the card's maker names it: its server's scale-up link (NVLink, AMD
    Infinity Fabric) when they share one, PCIe when they do not; None for a copy on one GPU. Why
    from the server: the plan's link kind says only whether the GPUs share a scale-up domain, and an
    AMD board printed "over nvlink"."""
    return copy_link_words(a, next((s for s in plan.servers if s.id == a.server), None))


def copy_link_words(a: Assignment, server: Server | None) -> str | None:
    """`link_words` of a copy drawn on `server` (its first, for a copy over several)."""
    if a.link is None:
        return None
    if a.link == "nvlink" and server is not None:
        return server_link_words(server)
    return _LINK_WORDS.get(a.link, a.link)


def link_lines(plan: Plan) -> tuple[CopyLink, ...]:
    """Each copy's link words, in plan order; copies on one GPU have none."""
    servers = {s.id: s for s in plan.servers}
    out = []
    for a in plan.assignments:
        words = copy_link_words(a, servers.get(a.server))
        if a.link is not None and words is not None:
            out.append(CopyLink(run=a.run, copy_number=a.copy_, kind=a.link, words=words))
    return tuple(out)


# --- what is trained at once, and when it ends -----------------------------------------------------


def together_words(plan: Plan, runs: tuple[RunLine, ...]) -> str:
    """Peak: every copy of every run at once; queue: the jobs, the horizon and the last job's end."""
    if plan.horizon_hours is None:
        return "every copy of every run at once"
    jobs = len(plan.schedule) or sum(r.copies for r in runs)
    end = plan.last_job_end_hours
    last = f", the last ending at {end:,.1f} h" if end is not None else ""
    return (
        f"{jobs} job{'s' if jobs != 1 else ''} sharing the GPUs within the "
        f"{plan.horizon_hours:,g} h horizon{last}"
    )


def queue_finish(plan: Plan, confidence: float) -> float | None:
    """A queue plan's last job's end if every job took its hours at `confidence` (0.5: P50, 0.9: P90,
    failures included), in the schedule's order: a job starts at its scheduled start or, when a job
    before it on one of its GPUs (or GPU slices) is still training, as that one ends. At the
    confidence the schedule was made at this is its last end; at the other it says how far the
    finish moves. None without a schedule or without every job's P50/P90 hours."""
    copies = {(a.run, a.copy_): a for a in plan.assignments}
    free: dict[tuple[str, int, str], float] = {}
    end: float | None = None
    for job in sorted(plan.schedule, key=lambda j: (j.start_hours, j.run, j.job)):
        a = copies.get((job.run, job.job))
        hours = a.hours_at(confidence) if a is not None and a.hours_p50 is not None else None
        if a is None or hours is None:
            return None
        cards = _job_cards(job, a)
        finish = max([job.start_hours, *(free.get(c, 0.0) for c in cards)]) + hours
        free.update(dict.fromkeys(cards, finish))
        end = max(end or 0.0, finish)
    return round(end, 6) if end is not None else None


def _job_cards(job: ScheduledJob, a: Assignment) -> list[tuple[str, int, str]]:
    """Each GPU (server, index, slice instance) the job trains on: every node's for a multi-node job."""
    part = f"{a.mig.profile}#{a.mig.index}" if a.mig is not None else ""
    nodes = job.nodes or [Node(server=job.server, gpus=job.gpus)]
    return [(n.server, g, part) for n in nodes for g in n.gpus]


#: Names a sentence lists before it counts the rest ("and 37 more"): a screen line's worth.
LIST_LIMIT = 8


def summarised(names: tuple[str, ...] | list[str], limit: int = LIST_LIMIT) -> str:
    """`a, b, c`, or past `limit` names `a, …, h and 37 more (all in the appendix)`: a sentence stays
    one screen line on a bid of many runs; the summary's fields keep every name (JSON, appendix)."""
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit} more (all in the appendix)"


def planned_confidence(plan: Plan) -> float:
    """The confidence the plan's hours are checked at: its runs' deadline confidence (the largest
    where they differ; P90 by default)."""
    return max((c for r in plan.runs if (c := r.deadline_confidence) is not None), default=DEFAULT_CONFIDENCE)


def hours_words(hours: float | None, label: str, p50: float | None) -> str:
    """`80.9 h at P90 (P50 61.7 h)`: hours at the planned confidence with P50 beside them; plain
    `61.7 h` for plans without spread figures; empty without hours."""
    if hours is None:
        return ""
    if label not in ("P90", "P50"):
        return f"{hours:,.1f} h"
    beside = f" (P50 {p50:,.1f} h)" if label != "P50" and p50 is not None else ""
    return f"{hours:,.1f} h at {label}{beside}"


def _hours_fields(plan: Plan, runs: tuple[RunLine, ...], mode: str) -> dict[str, object]:
    """The summary's hours at the planned confidence, P50 and P90 beside them, and their words."""
    confidence = planned_confidence(plan)
    if mode == "queue":
        hours, p50, p90 = plan.last_job_end_hours, queue_finish(plan, 0.5), queue_finish(plan, 0.9)
    else:
        hours = plan.confident_finish_hours
        p50 = max((r.hours_p50 for r in runs if r.hours_p50 is not None), default=None)
        p90 = max((r.hours_p90 for r in runs if r.hours_p90 is not None), default=None)
    spread = p50 is not None and p90 is not None
    label = confidence_words(confidence) if spread else "the speed model"
    return {
        "hours": hours,
        "confidence": confidence,
        "hours_label": label,
        "hours_p50": p50,
        "hours_p90": p90,
        "hours_model": None if mode == "queue" else _longest("peak", runs, None),
        "hours_words": hours_words(hours, label, p50),
    }


def _hours_clause(s: PlanSummary) -> str:
    """The hours clause of a peak headline: only for runs that have hours, naming those without."""
    if s.hours is None:
        return ""
    without, runs = s.runs_without_hours, len(s.runs)
    if not without:
        return f"; every run trained within {s.hours_words}"
    named = summarised(without)
    return (
        f"; the {runs - len(without)} run{'s' if runs - len(without) != 1 else ''} with train_tokens "
        f"trained within {s.hours_words} ({named}: no train_tokens, no hours)"
    )


# --- standing, catalogue, buyer, rent ----------------------------------------------------------------


def _standing(plan: Plan) -> Literal["proven", "within gap", "unproven", "none"]:
    """Proven only at gap 0: an optimal status with a gap left (a bound a hair below the price) is
    stated with its gap, as a feasible plan's is."""
    if plan.status == Status.OPTIMAL and not plan.gap:
        return "proven"
    if plan.status in (Status.OPTIMAL, Status.FEASIBLE):
        return "within gap" if plan.gap is not None else "unproven"
    return "none"


def proof_words(plan: Plan, objective: str) -> str:
    """Whether the bid is the cheapest the catalogue allows, honestly, in words, for its mode."""
    holds = (
        "runs every job of every run within the horizon"
        if plan.horizon_hours is not None
        else "runs every copy of every run at once"
    )
    if plan.status == Status.OPTIMAL and not plan.gap:
        best = (
            "cheapest set of servers"
            if objective == "price"
            else f"set of servers with the lowest {objective}"
        )
        return (
            f"This is the {best} the catalogue allows for these runs: the solver proved that no set with a "
            f"lower {objective} {holds} under the rules below."
        )
    if plan.status in (Status.OPTIMAL, Status.FEASIBLE):
        stop = f"This set of servers {holds}, but the search stopped at its time limit before it could prove"
        if plan.bound is None or plan.gap is None:
            return f"{stop} it the lowest {objective}; a longer search may find a cheaper one."
        return (
            f"{stop} it the lowest {objective}: no set can cost less than "
            f"{money(plan.bound, plan.currency)}, so this bid is at most {plan.gap:.1%} above the "
            "cheapest possible one."
        )
    return "No set of servers satisfies every rule; see what shaped the answer."


def catalogue_in_use(origin: CatalogueOrigin | None) -> CatalogueInUse:
    """The catalogue named for the buyer, and whose prices the quote gives."""
    origin = origin or CatalogueOrigin()
    prices: Literal["indicative", "vendor", "price list"] = (
        "price list" if origin.price_list else "vendor" if origin.vendor_prices else "indicative"
    )
    if origin.kind == "vendor":
        words = (
            f"the vendor's catalogue {origin.directory} (sha256 {origin.content_hash}) over ftopt's "
            "bundled one"
        )
    else:
        words = "ftopt's bundled catalogue"
    standing = {
        "indicative": "prices are indicative (public list prices and stated assumptions)",
        "vendor": "prices are the vendor's own, where its catalogue gives them",
        "price list": f"prices from the price list {origin.price_list}",
    }[prices]
    return CatalogueInUse(kind=origin.kind, directory=origin.directory, content_hash=origin.content_hash,
                          prices=prices, words=f"{words}; {standing}")  # fmt: skip


def shaped(plan: Plan) -> tuple[Statement, ...]:
    """What shaped the answer: binding rules, then what one eased rule would save."""
    return tuple(Statement(kind=f.kind.value, text=f.text) for f in [*plan.binding, *plan.savings])


def rules_applied(plan: Plan) -> tuple[Statement, ...]:
    """The rules and defaults applied, less the list of assumed prices (an internal) and the purchases
    weighed against what they buy (their own block)."""
    return tuple(
        Statement(kind=n.kind.value, text=n.text)
        for n in plan.notes
        if n.subject != ASSUMED_PRICES and n.kind not in WEIGHED
    )


def weighed(plan: Plan) -> tuple[str, ...]:
    """The notes that weigh a purchase against what it buys, in the plan's order."""
    return tuple(n.text for n in plan.notes if n.kind in WEIGHED)


def _rent(plan: Plan, without: tuple[str, ...]) -> RentComparison | None:
    """Buy or rent, only where the rent covers the same runs and hours as the purchase."""
    rent = plan.rent
    if rent is None and not without:
        return None
    if without:
        return RentComparison(
            comparable=False,
            purchase=plan.total_price,
            words=f"Buy or rent cannot be compared: {summarised(without)} give no train_tokens, so their "
            "hours, and what renting them would cost, are unknown; the servers bought run them all.",
        )
    assert rent is not None
    owned = " (including the hours on owned servers)" if any(s.owned for s in plan.servers) else ""
    return RentComparison(
        comparable=True,
        rent_cost=rent.cost,
        committed_cost=rent.committed_cost,
        purchase=plan.total_price,
        gpu_hours=rent.gpu_hours,
        break_even_months=rent.break_even_months,
        words=f"The same {rent.gpu_hours:,.1f} GPU-hours of every run{owned} rented on demand cost "
        f"{money(rent.cost, plan.currency)}, against {money(plan.total_price, plan.currency)} to buy.",
    )


# --- the summary ---------------------------------------------------------------------------------------


def _headline(s: PlanSummary) -> str:
    """Price, servers and GPUs, owned GPUs, the hours clause: the one line a buyer reads first."""
    price = money(s.price_to_pay, s.currency)
    if s.discount_percent:
        price += f" ({money(s.price, s.currency)} less {s.discount_percent:g} % discount)"
    line = f"{price} for {s.servers} server{'s' if s.servers != 1 else ''}, {s.gpus} GPUs"
    if s.gpus_owned:
        line += f" ({s.gpus_owned} of them owned already)"
    if s.mode == "queue":
        line += f"; {s.together}"
        return line
    return line + _hours_clause(s)


def key_figures(s: PlanSummary, plan: Plan) -> tuple[Figure, ...]:
    """The figures every format lists, in order; a new figure is one entry here."""
    c = s.currency
    out = [Figure(label="Price", value=money(s.price, c))]
    if s.discount_percent:
        out += [Figure(label="Discount", value=f"{s.discount_percent:g} %"),
                Figure(label="Price to pay", value=money(s.price_to_pay, c))]  # fmt: skip
    out += [Figure(label="Servers", value=str(s.servers)), Figure(label="GPUs", value=str(s.gpus))]
    out.append(Figure(label="Full-load power", value=f"{sum(x.power_w for x in plan.servers):,} W"))
    if s.gpus_owned:
        out.append(Figure(label="GPUs owned already", value=str(s.gpus_owned)))
    out.append(Figure(label="Trained at once", value=s.together))
    if s.mode == "queue" and s.last_job_end_hours is not None:
        out.append(Figure(label="Last job ends", value=f"{s.last_job_end_hours:,.1f} h"))
    elif s.hours is not None:
        label = "Runs with hours done within" if s.runs_without_hours else "Every run done within"
        out.append(Figure(label=label, value=s.hours_words))
    spread = _spread_figure(s)
    if spread is not None:
        out.append(spread)
    out += [Figure(label="Spare servers", value=spares_words(s))] * bool(s.spares)
    if s.runs_without_hours:
        out.append(Figure(label="Runs without hours", value=summarised(s.runs_without_hours)))
    if plan.energy_kwh is not None:
        out.append(Figure(label="Training energy", value=f"{plan.energy_kwh:,.0f} kWh"))
    if plan.tco is not None and plan.tco.objective == "tco":
        out.append(Figure(label=f"TCO over {plan.tco.years:g} years", value=money(plan.tco.total, c)))
    out.append(
        Figure(label="Standing", value=s.standing + (f" ({s.gap:.2%})" if s.standing == "within gap" else ""))
    )
    out.append(Figure(label="Catalogue", value=s.catalogue.words))
    return tuple(out)


def spares_words(s: PlanSummary) -> str:
    """The plan's spare servers, their price and what they buy: the run they save most hours at P90,
    with and without them (`1, USD 442,168; P90 47.8 h with them, 48.3 h without`)."""
    words = f"{s.spares}, {money(s.spares_price, s.currency)}"
    lines = [r.spares for r in s.runs if r.spares and r.spares.hours_p90 and r.spares.hours_p90_without]
    if not lines:
        return words
    best = max(lines, key=lambda x: (x.hours_p90_without or 0.0) - (x.hours_p90 or 0.0))
    return words + f"; P90 {best.hours_p90:,.1f} h with them, {best.hours_p90_without:,.1f} h without"


def _spread_figure(s: PlanSummary) -> Figure | None:
    """A peak plan's slowest run at P50 and P90, a queue plan's last job's end at P50 and P90
    (`hours_p50_p90`): the speed model's spread with failures; None without spread figures."""
    if s.hours_p50_p90 is None:
        return None
    p50, p90 = s.hours_p50_p90
    label = "Last job ends at P50 / P90" if s.mode == "queue" else "Hours at P50 / P90"
    return Figure(label=label, value=f"{p50:,.1f} h / {p90:,.1f} h")


def _to_pay(price: float, discount: float) -> float:
    """The price less the discount, each rounded to the cent as the commercial lines round them."""
    return cents(price - cents(price * discount / 100))


def server_words(plan: Plan) -> str:
    """The plan's servers grouped by build: `2 × 4 × h200-nvl in gpu-server-4; 1 × …`."""
    groups: dict[tuple[int, str, str], int] = {}
    for s in plan.servers:
        key = (s.gpu_count, s.gpu, s.chassis)
        groups[key] = groups.get(key, 0) + 1
    return "; ".join(f"{n} × {count} × {gpu} in {chassis}" for (count, gpu, chassis), n in groups.items())


def alternative_lines(plan: Plan, discount: float) -> tuple[AlternativeLine, ...]:
    """The plan's alternatives as the quote states them: each at the buyer's discount, so that the
    options compare with the headline's price to pay like with like."""
    lines = []
    for alt in plan.alternatives:
        runs = run_lines(alt.plan)
        mode = "queue" if alt.plan.horizon_hours is not None else "peak"
        hours = _hours_fields(alt.plan, runs, mode)
        price_to_pay = _to_pay(alt.plan.total_price, discount)
        lines.append(
            AlternativeLine(
                option=alt.rank + 1,
                price=alt.plan.total_price,
                price_to_pay=price_to_pay,
                more_to_pay=round(price_to_pay - _to_pay(plan.total_price, discount), 2),
                differs=tuple(alt.differs),
                servers=server_words(alt.plan),
                hours=hours["hours"],
                hours_p50=hours["hours_p50"],
                hours_p90=hours["hours_p90"],
                hours_words=hours["hours_words"],
                proven_next=alt.proven_next,
                status=alt.plan.status.value,
                gap=alt.plan.gap,
            )
        )
    return tuple(lines)


def _plan_of(result: Result | Plan) -> Plan:
    plan = result if isinstance(result, Plan) else result.plan
    if plan is None:
        raise ValueError("a result without a plan has no summary; see its reasons")
    return plan


def _longest(mode: str, runs: tuple[RunLine, ...], last: float | None) -> float | None:
    """The time until everything ends: a queue plan's last job, a peak plan's slowest run with hours."""
    if mode == "queue":
        return last
    return max((r.hours for r in runs if r.hours is not None), default=None)


def _budget_words(plan: Plan) -> str | None:
    """How the solve shared its time limit (`Plan.budget`), in words; None for plans without it."""
    return plan.budget.sharing if plan.budget is not None else None


def summarize(
    result: Result | Plan,
    workload: Workload | None = None,
    catalogue: Catalogue | None = None,
    copy: Copy = "buyer",
    cost: Plan | None = None,
) -> PlanSummary:
    """The summary of a result's plan (or a plan), with the workload's buyer details and the
    catalogue's origin; without them, no buyer details and the bundled catalogue. With `quote:` the
    commercial block for `copy` (the plan's prices are the sell prices; `cost` is the same plan at
    the catalogue's prices when they differ, `ftopt.model.commercial.sell_plan`), with a catalogue
    the facility sheet."""
    plan = _plan_of(result)
    runs = run_lines(plan)
    without = tuple(r.name for r in runs if r.hours is None)
    buyer = workload.quote if workload is not None else None
    discount = buyer.discount_percent if buyer is not None else 0.0
    mode: Literal["peak", "queue"] = "queue" if plan.horizon_hours is not None else "peak"
    last = plan.last_job_end_hours
    tco = plan.tco is not None and plan.tco.objective == "tco"
    fields = {
        "workload": plan.workload,
        "currency": plan.currency,
        "price": plan.total_price,
        "discount_percent": discount,
        "price_to_pay": _to_pay(plan.total_price, discount),
        "servers": len(plan.servers),
        "servers_owned": sum(1 for s in plan.servers if s.owned),
        "gpus": sum(s.gpu_count for s in plan.servers),
        "gpus_owned": sum(s.gpu_count for s in plan.servers if s.owned),
        "mode": mode,
        "together": together_words(plan, runs),
        **_hours_fields(plan, runs, mode),
        "horizon_hours": plan.horizon_hours,
        "last_job_end_hours": last,
        "queue_finish_p50": queue_finish(plan, 0.5),
        "queue_finish_p90": queue_finish(plan, 0.9),
        "runs_without_hours": without,
        "runs": runs,
        **_spare_totals(runs),
        "shaped": shaped(plan),
        "rules": rules_applied(plan),
        "weighed": weighed(plan),
        "schedule": schedule_lines(plan),
        "headroom": headroom_lines(plan),
        "links": link_lines(plan),
        "standing": _standing(plan),
        "gap": plan.gap,
        "bound": plan.bound,
        "proof": proof_words(plan, "total cost of ownership" if tco else "price"),
        "catalogue": catalogue_in_use(catalogue.origin if catalogue is not None else None),
        "rent": _rent(plan, without),
        "buyer": buyer,
        "alternatives": alternative_lines(plan, discount),
        "budget": _budget_words(plan),
        "headline": "",
        "figures": (),
    }
    draft = PlanSummary.model_validate(fields)
    draft = draft.model_copy(update={"headline": _headline(draft)})
    draft = draft.model_copy(update={"figures": key_figures(draft, plan)})
    return _with_quote(draft, plan, cost, workload, catalogue, copy)


def _with_quote(
    s: PlanSummary,
    sell: Plan,
    cost: Plan | None,
    workload: Workload | None,
    catalogue: Catalogue | None,
    copy: Copy,
) -> PlanSummary:
    """The facility sheet (with a catalogue) and the commercial block (with `quote:`): the total in
    the headline, the block's figures after the price figures."""
    cost = cost or sell
    if catalogue is not None:
        utilisation = workload.energy.utilisation if workload is not None else Energy().utilisation
        s = s.model_copy(update={"facility": facility(cost, catalogue, utilisation)})
    quote = workload.quote if workload is not None else None
    if quote is None:
        return s
    lead = {p.item: p.lead_weeks for p in catalogue.prices if p.lead_weeks is not None} if catalogue else {}
    block = commercial(cost, sell, quote, lead, copy)
    update = {"commercial": block, "headline": s.headline + total_words(block), "figures": _figures(s, block)}
    return s.model_copy(update=update)


def _figures(s: PlanSummary, block: Commercial) -> tuple[Figure, ...]:
    """The key figures with the commercial block's after the price figures; where services, shipping
    or tax make the total differ from the price to pay, that one is the hardware after discount."""
    extras = block.total != s.price_to_pay
    figures = list(s.figures)
    if extras:
        figures = [f.model_copy(update={"label": "Hardware after discount"}) if f.label == "Price to pay"
                   else f for f in figures]  # fmt: skip
    prices = ("Hardware after discount", "Price to pay", "Price")
    at = max((i + 1 for i, f in enumerate(figures) if f.label in prices), default=0)
    added = [Figure(label=label, value=value) for label, value in figure_pairs(block)
             if extras or label != "Total to pay"]  # fmt: skip
    return tuple(figures[:at] + added + figures[at:])
