"""The buyer's view of a plan, shared by every quote format (table, Markdown, HTML, xlsx).

Why a view apart from the plan: the plan lists every server and every copy, as the verifier needs
them; a buyer signs for kinds of server and runs. Here identical servers become one *server group*
with a quantity, copies of a run trained the same way become one row, the proof becomes a
sentence, and the solver's internals (bound, gap, solve time, which prices are assumptions) go to a
technical appendix. Each renderer only lays these out and escapes them for its format.

`RUN_COLUMNS` is the run table of every format: adding a column (a training setting a later plan
field carries) is one `RunColumn` line here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ftopt.model.commercial import hardware_key
from ftopt.model.findings import FindingKind, money
from ftopt.model.plan import Assignment, Plan, RunSummary, Server
from ftopt.model.spread import confidence_words
from ftopt.model.summary import (
    ASSUMED_PRICES,
    LIST_LIMIT,
    AlternativeLine,
    CopyHeadroom,
    PlanSummary,
    Statement,
    deadline_met,
    link_words,
    method_words,
    power_basis_words,
    summarize,
)
from ftopt.model.workload import QuoteDetails


@dataclass(frozen=True)
class ServerGroup:
    """Identical servers (same bill, cards, power setting, feed): one group bought `quantity` times."""

    servers: tuple[Server, ...]

    @property
    def server(self) -> Server:
        """The first of them, standing for all."""
        return self.servers[0]

    @property
    def quantity(self) -> int:
        return len(self.servers)

    @property
    def ids(self) -> str:
        """`s1–s8` or `s1, s3`: which servers of the plan this group is."""
        return id_ranges([s.id for s in self.servers])

    @property
    def label(self) -> str:
        """`1 server (s1)`, `8 servers (s1–s8)`."""
        return f"{self.quantity} server{'s' if self.quantity != 1 else ''} ({self.ids})"

    @property
    def price(self) -> float:
        return self.server.price * self.quantity


def _group_key(server: Server) -> str:
    """Identical hardware: a slice layout (MIG) and a place in the racks are settings, not things to buy."""
    return hardware_key(server)


def server_groups(plan: Plan) -> list[ServerGroup]:
    """The plan's servers grouped into identical server_groups, in order of first appearance."""
    groups: dict[str, list[Server]] = {}
    for server in plan.servers:
        groups.setdefault(_group_key(server), []).append(server)
    return [ServerGroup(tuple(group)) for group in groups.values()]


def id_ranges(ids: list[str]) -> str:
    """Server ids with consecutive numbers joined: s1, s2, s3, s5 → `s1–s3, s5`."""
    parts: list[str] = []
    run: list[tuple[str, int]] = []
    for sid in ids:
        m = re.fullmatch(r"(\D*)(\d+)", sid)
        if m and run and run[-1][0] == m[1] and run[-1][1] + 1 == int(m[2]):
            run.append((m[1], int(m[2])))
            continue
        parts += _close(run)
        run = [(m[1], int(m[2]))] if m else []
        if not m:
            parts.append(sid)
    parts += _close(run)
    return ", ".join(parts)


def _close(run: list[tuple[str, int]]) -> list[str]:
    if not run:
        return []
    first, last = f"{run[0][0]}{run[0][1]}", f"{run[-1][0]}{run[-1][1]}"
    if len(run) == 1:
        return [first]
    return [f"{first}–{last}"] if len(run) > 2 else [first, last]


def capped(plan: Plan, server: Server) -> bool:
    """Whether the server's cards run below the card's full power: the plan says so with a
    power-cap finding (the solver records one exactly when the setting is below the card's rating)."""
    return any(f.kind == FindingKind.POWER_CAP and f.subject == server.id for f in plan.binding)


def power_words(plan: Plan, server: Server) -> str:
    """The cards' power as the plan knows it: capped only where a configured cap lies below the card."""
    if capped(plan, server):
        return f"cards capped at {server.gpu_power_cap_w:,} W to fit the feed"
    return f"cards at {server.gpu_power_cap_w:,} W"


def supplies_fitted(server: Server) -> str:
    """The supplies fitted, "4 × 2,400 W, N+N"; empty for a plan written before supplies were stated."""
    if not server.psu_count:
        return ""
    return f"{server.psu_count} × {server.psu_watts:,} W, {server.psu_redundancy}"


def supplies_words(server: Server) -> str:
    """The server's supplies as a buyer reads them, "4 × 2,400 W, N+N", with what they deliver when
    the redundant ones fail; empty for a plan written before supplies were stated."""
    if not server.psu_count:
        return ""
    return (
        f"{supplies_fitted(server)} "
        f"({server.psu_load_w:,} W of {server.psu_capacity_w:,} W with the redundant ones failed)"
    )


def circuit_share(server: Server) -> float:
    """The share of its circuit's usable watts the server draws at the wall."""
    return server.power_w / server.feed_usable_w if server.feed_usable_w else 0.0


def slices_text(server: Server) -> str:
    """How a server's cards are split into GPU slices (MIG), or nothing: ', each card split 4 × 1g.24gb
    (MIG)', or each sliced card's layout when they differ (it follows the chassis)."""
    if not server.mig:
        return ""
    layouts = sorted({_layout_text(c.profiles) for c in server.mig})
    whole = len(server.mig) == server.gpu_count and len(layouts) == 1
    if whole:
        return f", each card split {layouts[0]} (MIG)"
    return ", " + ", ".join(f"GPU {c.card} split {_layout_text(c.profiles)}" for c in server.mig) + " (MIG)"


def _layout_text(profiles: list[str]) -> str:
    counts = Counter(profiles)
    return " + ".join(f"{n} × {p}" for p, n in sorted(counts.items()))


def group_slices_text(group: ServerGroup) -> str:
    """The group's slice layouts: the one all its servers share, or each server's (`; s1: …; s2: …`)."""
    layouts = {server.id: slices_text(server) for server in group.servers}
    if len(set(layouts.values())) == 1:
        return next(iter(layouts.values()))
    return "; slices per server: " + "; ".join(
        f"{sid}: {text.removeprefix(', ') or 'whole cards'}" for sid, text in layouts.items()
    )


def group_heading(plan: Plan, group: ServerGroup) -> str:
    """One line: quantity, the group, its power against the feed, inlet limit and price each."""
    s = group.server
    bridges = f", {s.bridge_count} × {s.bridge}" if s.bridge else ""
    each = f"{money(s.price, plan.currency)} each" if group.quantity > 1 else money(s.price, plan.currency)
    if s.owned:
        each = "owned: nothing to buy"
    return (
        f"{group.label}: {s.gpu_count} × {s.gpu}{bridges} in {s.chassis}{group_slices_text(group)}; "
        f"{s.cpu_count} × {s.cpu} ({s.cores} cores); {s.ram_gb:,} GB RAM ({s.dimm_count} × {s.dimm_gb} GB); "
        f"{s.nvme_tb:g} TB NVMe; {s.power_w:,} W at the wall of {s.feed_usable_w:,} W "
        f"({circuit_share(s):.0%} of the {s.feed} circuit, {power_words(plan, s)})"
        + (f", {power_basis_words(s)}" if power_basis_words(s) else "")
        + (f"; supplies {supplies_words(s)}" if s.psu_count else "")
        + f"; inlet ≤ {s.max_inlet_c:g} °C; {each}"
    )


def summary_of(plan: Plan, summary: PlanSummary | None) -> PlanSummary:
    """The summary a renderer lays out: the one given, or the plan's own (no buyer details, the
    catalogue unnamed) for a caller that has only the plan."""
    return summary if summary is not None else summarize(plan)


def _reference(b: QuoteDetails) -> str | None:
    """The customer's reference; without a quote number it carries the revision (`Q-7, revision 2`)."""
    if b.number or b.revision is None:
        return b.reference
    return f"{b.reference}, revision {b.revision}" if b.reference else f"revision {b.revision}"


def _party_lines(b: QuoteDetails) -> list[tuple[str, str | None]]:
    """The quote's number, seller, customer, reference and dates, as (label, value or None)."""
    revision = f", revision {b.revision}" if b.revision is not None else ""
    number = f"{b.number}{revision}" if b.number else None
    seller = ", ".join(x for x in (b.seller.name, b.seller.address) if x) if b.seller else None
    customer = ", ".join(x for x in (b.customer.name, b.customer.contact) if x) if b.customer else None
    return [("Quote", number), ("Seller", seller), ("Customer", customer), ("Reference", _reference(b)),
            ("Date", b.date.isoformat() if b.date else None),
            ("Valid until", b.valid_until.isoformat() if b.valid_until else None)]  # fmt: skip


def buyer_lines(summary: PlanSummary) -> list[tuple[str, str]]:
    """The quote's details the workload gives (`quote:`), as (label, value) lines; empty without."""
    b = summary.buyer
    if b is None:
        return []
    lines = _party_lines(b)
    if b.discount_percent:
        extras = summary.commercial is not None and summary.commercial.total != summary.price_to_pay
        pays = "for the hardware" if extras else "to pay"
        lines.append(("Discount", f"{b.discount_percent:g} % off {money(summary.price, summary.currency)}: "
                      f"{money(summary.price_to_pay, summary.currency)} {pays}"))  # fmt: skip
    lines += [("Payment terms", b.payment_terms), ("Notes", b.notes)]
    return [(label, value) for label, value in lines if value]


def figure_lines(summary: PlanSummary) -> list[tuple[str, str]]:
    """The summary's key figures as (label, value) lines, in every format's order."""
    return [(f.label, f.value) for f in summary.figures]


SCHEDULE_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("run", False), ("job", True), ("servers", False), ("GPUs", False), ("start h", True), ("end h", True),
)  # fmt: skip


def schedule_rows(summary: PlanSummary) -> list[list[str]]:
    """A queue plan's jobs in start order, as text (empty for a peak plan)."""
    return [
        [j.run, str(j.job), j.servers, j.gpus, f"{j.start_hours:,.1f}", f"{j.end_hours:,.1f}"]
        for j in summary.schedule
    ]


RENT_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("card", False), ("kind", False), ("rate from", False), ("GPU-hours", True), ("per GPU-hour", True),
    ("cost", True), ("read", False),
)  # fmt: skip


def rent_rows(plan: Plan, summary: PlanSummary) -> list[list[str]]:
    """The cloud rates behind buy or rent, one row per card and kind, when the rent is compared
    like with like (empty otherwise: the summary's sentence says why)."""
    if plan.rent is None or summary.rent is None or not summary.rent.comparable:
        return []
    c = plan.currency
    return [
        [s.card, s.kind, f"{s.provider}: {s.offer}" + (" (nearest product)" if s.match == "nearest" else ""),
         f"{s.gpu_hours:,.1f}", f"{s.usd_per_gpu_hour:,.3f}", money(s.gpu_hours * s.usd_per_gpu_hour, c),
         s.read]
        for s in plan.rent.sources
    ]  # fmt: skip


HEADROOM_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("run", False), ("copies", False), ("card", False), ("GPUs", True), ("memory GB", True),
    ("free GB", True), ("free %", True), ("margin", True), ("margin's basis", False),
    ("beyond margin GB", True),
)  # fmt: skip
#: The sentence above the headroom table.
HEADROOM_NOTE = (
    "Memory headroom per GPU: what each copy leaves free on its card beyond the memory ftopt counts, "
    "against the planning margin it must leave (the error measured for its stack and method on "
    "held-out calibration points, unless the workload's sizing.memory_margin sets it)."
)


def margin_cell(h: CopyHeadroom) -> str:
    """`13 %`, or `0 % (measured 16 %)` where the workload forced it below the measured error."""
    if h.margin_percent is None:
        return "—"
    forced = f" (measured {h.measured_percent:.0f} %)" if h.measured_percent is not None else ""
    return f"{h.margin_percent:.0f} %{forced}"


def headroom_row(h: CopyHeadroom) -> list[str]:
    """One headroom line as text, in HEADROOM_COLUMNS order."""
    beyond = f"{h.headroom_gb:,.1f}" if h.headroom_gb is not None else "—"
    return [h.run, h.copies, h.card, str(h.gpus), f"{h.memory_gb:,.1f}", f"{h.free_gb:,.1f}",
            f"{h.free_percent:.0f} %", margin_cell(h), h.basis or "—", beyond]  # fmt: skip


def headroom_rows(summary: PlanSummary) -> list[list[str]]:
    """Each copy's (or identical copies') headroom line, as text."""
    return [headroom_row(h) for h in summary.headroom]


def schedule_note(summary: PlanSummary) -> str:
    """The sentence above the schedule: the jobs, the horizon and the last job's end."""
    return f"Schedule: {summary.together}."


# --- the run table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunRow:
    """Copies of one run trained the same way on the same card: one row of the run table."""

    run: RunSummary | None
    name: str
    copies: tuple[Assignment, ...]
    card: str
    link: str | None = None  # what joins a copy's GPUs, in the card maker's words (summary.link_words)

    @property
    def first(self) -> Assignment:
        return self.copies[0]

    @property
    def gpus_per_copy(self) -> int:
        a = self.first
        return len(a.gpus) * (len(a.nodes) if a.multinode else 1)

    @property
    def energy_kwh(self) -> float | None:
        """The energy of all its copies, or None when the run has no hours."""
        known = [a.energy_kwh for a in self.copies if a.energy_kwh is not None]
        return sum(known) if known else None

    @property
    def deadline_met(self) -> bool | None:
        """Whether every copy's hours at its run's deadline confidence are within the deadline (None
        without a deadline or hours): the summary's rule."""
        return None if self.run is None else deadline_met(self.run, self.copies)


def _training_key(a: Assignment, card: str) -> tuple[object, ...]:
    slice_ = a.mig.profile if a.mig else ""
    return (a.run, card, slice_, len(a.gpus), len(a.nodes), a.strategy, a.optimizer, a.offload, a.link,
            a.tokens_per_s, a.hours, configuration_text(a))  # fmt: skip


def run_rows(plan: Plan) -> list[RunRow]:
    """The copies grouped by run and by how they train, runs in workload order."""
    cards = {s.id: s.gpu for s in plan.servers}
    summaries = {r.name: r for r in plan.runs}
    groups: dict[tuple[object, ...], list[Assignment]] = {}
    for a in plan.assignments:
        groups.setdefault(_training_key(a, cards.get(a.server, "")), []).append(a)
    order = {name: i for i, name in enumerate(summaries)}
    rows = [
        RunRow(
            summaries.get(copies[0].run),
            copies[0].run,
            tuple(copies),
            cards.get(copies[0].server, ""),
            link_words(plan, copies[0]),
        )
        for copies in groups.values()
    ]
    return sorted(rows, key=lambda r: order.get(r.name, len(order)))


#: What a run-table cell shows when the figure does not exist (no train_tokens, no deadline).
NONE = "—"


def _method(row: RunRow) -> str:
    """The algorithm and adapter: `GRPO, LoRA r32`, `full` (the summary's words)."""
    return NONE if row.run is None else method_words(row.run)


def configuration_text(a: Assignment) -> str:
    """The configuration the plan states for a copy, so its engineers can reproduce the run:
    `micro-batch 2 × 4, recompute full, dp 2 tp 4` (degrees of 1 left out); empty in older plans."""
    if a.micro_batch is None:
        return ""
    batch = f"micro-batch {a.micro_batch}" + (f" × {a.accumulation}" if (a.accumulation or 1) > 1 else "")
    parts = [batch]
    if a.recompute is not None:
        parts.append(f"recompute {a.recompute.value}")
    p = a.parallelism
    if p is not None:
        parts.append(
            " ".join(f"{k} {v}" for k, v in (("dp", p.dp), ("tp", p.tp), ("pp", p.pp), ("cp", p.cp)) if v > 1)
        )
    return ", ".join(part for part in parts if part)


def _training(row: RunRow) -> str:
    """How a copy trains: sharding, optimiser, offload, link, and the configuration ftopt chose."""
    a = row.first
    parts = [a.strategy.value, a.optimizer.value]
    if a.offload.value != "none":
        parts.append(f"offload {a.offload.value}")
    if row.link:
        parts.append(f"over {row.link}")
    configuration = configuration_text(a)
    if configuration:
        parts.append(configuration)
    elif row.run is not None:
        parts.append(f"micro-batch {row.run.micro_batch}")
    return ", ".join(parts)


def _gpus(row: RunRow) -> str:
    a = row.first
    per_node = f" ({len(a.gpus)} on each of {len(a.nodes)} servers)" if a.multinode else ""
    slice_ = f" slice {a.mig.profile}" if a.mig else ""
    return f"{row.gpus_per_copy} × {row.card}{slice_}{per_node}"


def _number(value: float | None, digits: int = 0) -> str:
    return NONE if value is None else f"{value:,.{digits}f}"


def _deadline(row: RunRow) -> str:
    """The deadline and the confidence it holds at: `48.0 at P90`."""
    deadline = row.run.deadline_hours if row.run else None
    if deadline is None:
        return NONE
    confidence = row.run.deadline_confidence if row.run else None
    return f"{deadline:,.1f}" + (f" at {confidence_words(confidence)}" if confidence else "")


def _met(row: RunRow) -> str:
    return {None: NONE, True: "yes", False: "no"}[row.deadline_met]


@dataclass(frozen=True)
class RunColumn:
    """One column of the run table: its header, whether it is a number, and its cell as text."""

    header: str
    numeric: bool
    cell: Callable[[RunRow], str]


def _checkpoints(a: Assignment) -> str:
    """The copy's checkpoint interval, expected interruptions and the hours they add, in words."""
    if a.checkpoint_interval_h is None or a.expected_interruptions is None or a.failure_overhead is None:
        return NONE
    return (
        f"every {a.checkpoint_interval_h:,.1f} h; {a.expected_interruptions:.2f} interruptions "
        f"expected; +{a.failure_overhead:.2%}"
    )


RUN_COLUMNS: tuple[RunColumn, ...] = (
    RunColumn("run", False, lambda r: r.name),
    RunColumn("model", False, lambda r: r.run.model if r.run else NONE),
    RunColumn("method", False, _method),
    RunColumn("copies", True, lambda r: str(len(r.copies))),
    RunColumn("GPUs per copy", False, _gpus),
    RunColumn("training", False, _training),
    RunColumn("tokens/s per copy", True, lambda r: _number(r.first.tokens_per_s)),
    RunColumn("hours", True, lambda r: _number(r.first.hours, 1)),
    RunColumn("P50 h", True, lambda r: _number(r.first.hours_p50, 1)),
    RunColumn("P90 h", True, lambda r: _number(r.first.hours_p90, 1)),
    RunColumn("deadline h", False, _deadline),
    RunColumn("deadline met", False, _met),
    RunColumn("hours with failures", True, lambda r: _number(r.first.hours_with_failures, 1)),
    RunColumn("checkpoints", False, lambda r: _checkpoints(r.first)),
    RunColumn("energy kWh", True, lambda r: _number(r.energy_kwh)),
)


def _spares(row: RunRow) -> str:
    """The row's hot spare servers and its P90 hours without them: `1 per copy (s3); 48.3 h at P90
    without`."""
    a = row.first
    if not a.spares:
        return NONE
    ids = ", ".join(s for c in row.copies for s in c.spares)
    without = a.hours_p90_without_spares
    return f"{len(a.spares)} per copy ({ids})" + (f"; {without:,.1f} h at P90 without" if without else "")


#: The spares column, in plans where some copy has spares.
SPARES_COLUMN = RunColumn("spares", False, _spares)


def run_columns(plan: Plan) -> list[RunColumn]:
    """`RUN_COLUMNS`, the spares when a copy has any, and the energy's cost when the bid minimises
    TCO (the runs' share of it)."""
    columns = list(RUN_COLUMNS)
    if any(a.spares for a in plan.assignments):
        columns.insert(columns.index(RUN_COLUMNS[-1]), SPARES_COLUMN)
    tco = plan.tco
    if tco is None or tco.objective != "tco":
        return columns

    def cost(row: RunRow) -> str:
        kwh = row.energy_kwh
        return NONE if kwh is None else money(kwh * tco.price_per_kwh, plan.currency)

    return [*columns, RunColumn("energy cost", True, cost)]


def run_table(plan: Plan) -> tuple[list[RunColumn], list[list[str]]]:
    """The run table's columns and rows as plain text (each renderer escapes them)."""
    columns = run_columns(plan)
    return columns, [[c.cell(r) for c in columns] for r in run_rows(plan)]


# --- TCO, alternatives, findings and the appendix -----------------------------------------------


def tco_lines(plan: Plan) -> list[tuple[str, str]]:
    """Purchase, energy and TCO, when the bid minimises TCO; empty otherwise."""
    t = plan.tco
    if t is None or t.objective != "tco":
        return []
    c = plan.currency
    return [
        ("purchase", money(t.purchase, c)),
        (
            f"energy over {t.years:g} years",
            f"{t.energy_kwh:,.0f} kWh × {money(t.price_per_kwh, c)}/kWh = {money(t.energy_cost, c)} "
            f"(at {t.utilisation:.0%} utilisation, PUE {t.pue:g})",
        ),
        ("total cost of ownership", money(t.total, c)),
    ]


def alternative_rows(summary: PlanSummary) -> list[list[str]]:
    """Option, price to pay, extra over option 1, its slowest run's hours, what differs, its servers:
    one row per alternative, from the summary (prices at the buyer's discount, as the headline's)."""
    c = summary.currency
    return [
        [
            f"option {alt.option}",
            money(alt.price_to_pay, c),
            "+" + money(alt.more_to_pay, c),
            alternative_hours(alt),
            "; ".join(alt.differs),
            alt.servers,
        ]
        for alt in summary.alternatives
    ]


def alternative_hours(alt: AlternativeLine) -> str:
    """`57.1 h at P90 (P50 31.2 h)`, `31.2 h` without spread, or `-` without hours."""
    return alt.hours_words or "-"


ALTERNATIVE_HEADERS = ("option", "price to pay", "more than option 1", "hours", "what differs", "servers")
#: (header, numeric) of each column, so that every format right-aligns the same ones.
ALTERNATIVE_COLUMNS = tuple((h, h in ("price to pay", "more than option 1")) for h in ALTERNATIVE_HEADERS)


def shaped(summary: PlanSummary) -> tuple[Statement, ...]:
    """What shaped the answer: binding rules, then what one eased rule would save (the summary's)."""
    return summary.shaped


def buyer_notes(summary: PlanSummary) -> tuple[Statement, ...]:
    """The rules and defaults applied (the summary's): the assumed prices and the weighed lines are
    elsewhere."""
    return summary.rules


def assumed_prices(plan: Plan) -> list[str]:
    """Catalogue ids whose prices are assumptions without a public source."""
    for note in plan.notes:
        items = note.figures.get("items")
        if note.subject == ASSUMED_PRICES and isinstance(items, list):
            return [str(i) for i in items]
    return []


def price_words(plan: Plan, summary: PlanSummary, appendix: bool = True) -> str:
    """Where the prices come from, for the buyer: the price list and whose prices they are (the
    catalogue in use is a key figure), and the assumed ones counted (and listed in the technical
    appendix, when the quote has one)."""
    assumed = assumed_prices(plan)
    stated = plan.price_list or plan.currency + ", price list not stated"
    standing = summary.catalogue.prices
    text = f"Prices: {stated}." if standing in stated else f"Prices: {stated} ({standing})."
    if assumed:
        where = " (listed in the technical appendix)" if appendix else ""
        text += f" {len(assumed)} of them are assumptions without a public source{where}."
    return text


def internals(plan: Plan) -> list[tuple[str, str]]:
    """The solver's figures behind the proof: status, bound, gap, solve time, assumed prices."""
    bound = money(plan.bound, plan.currency) if plan.bound is not None else "none"
    gap = f"{plan.gap:.2%}" if plan.gap is not None else "no bound"
    assumed = assumed_prices(plan)
    return [
        ("status", plan.status.value),
        ("proven lower bound", bound),
        ("optimality gap", gap),
        ("solve time", f"{plan.wall_seconds:.2f} s"),
        ("price list", plan.price_list or "not stated"),
        ("assumed prices", f"{len(assumed)}: {', '.join(assumed)}" if assumed else "none"),
        *_long_lists(plan),
    ]


def _long_lists(plan: Plan) -> list[tuple[str, str]]:
    """The whole lists the quote's sentences cut short ("and 37 more"): the runs without hours."""
    without = [r.name for r in plan.runs if r.train_tokens is None]
    if len(without) <= LIST_LIMIT:
        return []
    return [(f"runs without hours (all {len(without)})", ", ".join(without))]


def fabric_heading(plan: Plan) -> str:
    """One line for the fabric of multi-node copies: NICs, switches, links and price."""
    f = plan.fabric
    if f is None:
        return ""
    switches = ", ".join(f"{s.count} × {s.id} {s.role}" for s in f.switches)
    links = ", ".join(f"{g.links} {g.joins} links" for g in f.links)
    servers = len(f.nics_per_server)
    return (
        f"fabric: {f.nic_ports} ports of {f.nic} on {servers} servers; {switches}; {links}; "
        f"{money(f.price, plan.currency)} (NICs in their servers' bills)"
    )


PLACEMENT_HEADERS = ("run", "copy", "server", "gpus", "strategy", "link", "optimizer", "offload", "states",
                     "activ.", "overhead", "free", "headroom (margin)", "host RAM", "bound s")  # fmt: skip
TIMING_HEADERS = ("tok/s", "hours", "kWh")
#: The plan's `step_seconds` is the sizing's lower bound at the workload's MFU, not the speed model's
#: step (which tok/s implies): its column says so.
BOUND_HEADER = PLACEMENT_HEADERS[-1]
BOUND_NOTE = (
    "bound s: a step's lower bound at the workload's sizing MFU, compute and transfer overlapped; "
    "tok/s, hours and kWh: the speed model for this placement and power setting"
)


def margin_basis_short(basis: str | None) -> str:
    """The margin's basis in a cell's width: 'torchtune/lora, 4 sources', 'pooled, 9 sources',
    'worst source', 'workload'; '' for a plan written before bases."""
    if not basis:
        return ""
    if basis.startswith("pooled"):
        return "pooled, " + basis.rsplit(", ", 1)[-1]
    if basis.startswith("worst-source"):
        return "worst source"
    if basis.startswith("held-out error of "):
        return basis.removeprefix("held-out error of ")
    return "workload" if "workload" in basis else basis


def headroom_cell(a: Assignment) -> str:
    """Free memory per GPU after the planning margin, with the margin and its basis; '—' for a plan
    without one."""
    if a.headroom_gb is None or a.memory_margin is None:
        return "—"
    basis = margin_basis_short(a.memory_margin_basis)
    return f"{a.headroom_gb:.1f} (+{a.memory_margin:.0%}{', ' + basis if basis else ''})"


def has_hours(plan: Plan) -> bool:
    """Whether any copy has hours (its run gives train_tokens): then the placement shows speed too."""
    return any(a.hours is not None for a in plan.assignments)


def timing_cells(a: Assignment) -> list[str]:
    """Tokens per second, hours to train and their energy ('-' where unknown)."""
    return [
        f"{a.tokens_per_s:,.0f}" if a.tokens_per_s is not None else "—",
        f"{a.hours:,.1f}" if a.hours is not None else "—",
        f"{a.energy_kwh:,.0f}" if a.energy_kwh is not None else "—",
    ]


def placement_cells(a: Assignment, link: str | None) -> list[str]:
    """One copy's row of the per-copy placement (technical appendix), shared by the terminal and
    Markdown views; a multi-node copy names all its servers and the GPUs it takes on each. `link`:
    what joins its GPUs in the card maker's words (summary.link_words)."""
    m = a.memory_per_gpu_gb
    servers = "+".join(n.server for n in a.nodes) if a.multinode else a.server
    return [a.run, str(a.copy_), servers, a.gpus_text, a.strategy.value, link or "—", a.optimizer.value,
            a.offload.value, f"{m.states:.1f}", f"{m.activations:.1f}", f"{m.overhead:.1f}",
            f"{a.free_gb:.1f}", headroom_cell(a), f"{a.host_ram_gb:.0f}",
            f"{a.step_seconds:.2f}"]  # fmt: skip


def placement_headers(plan: Plan) -> list[tuple[str, bool]]:
    """(header, numeric) of the per-copy placement, with the speed columns when any copy has hours."""
    headers = [(h, i >= 8) for i, h in enumerate(PLACEMENT_HEADERS)]
    return headers + [(h, True) for h in TIMING_HEADERS] if has_hours(plan) else headers


def placement_rows(plan: Plan) -> list[list[str]]:
    """The per-copy placement's rows, in the columns of `placement_headers`."""
    timed = has_hours(plan)
    return [
        placement_cells(a, link_words(plan, a)) + (timing_cells(a) if timed else []) for a in plan.assignments
    ]
