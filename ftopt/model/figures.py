"""The figures each kind of finding carries, as types: which names, and a number, a word or a list.

Why types and not a free mapping: a finding's sentence, the quote and the sweep table read its
figures by name, so a plan whose `power-cap` finding says `"cap_w": "300"` or `null` would word
wrongly or fail far from where it was read. `Finding` checks its figures against the type of its
kind here (strictly: no string for a number, no number for a word), at construction in the solver
and when `ftopt verify` reads a plan back. A new kind of finding gets its figures type here; a test
holds every kind to having one.

Figures whose wording tolerates their absence (`link` of a deadline finding, `max_servers` of a
conflict) are optional; every other figure is required.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from ftopt.model.relaxation import RelaxationId, relaxation_id


class Figures(BaseModel):
    """Base of every figures type: frozen, strict, no figure it does not name."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class NoFigures(Figures):
    """A finding whose sentence needs nothing but its kind and subject."""


class PowerCapFigures(Figures):
    feed: str
    feed_usable_w: int
    gpu_count: int
    gpu: str
    cap_w: int


class HostRamFigures(Figures):
    runs: list[str]
    need_gb: float
    reserve_gb: float
    ram_gb: int | None = None


class NvmeFigures(Figures):
    need_gb: float
    nvme_tb: float


class MultiGpuFigures(Figures):
    gpus: int
    gpu: str
    strategy: str
    per_gpu_gb: float


class ServerLimitFigures(Figures):
    max_servers: int


class InletFigures(Figures):
    inlet_c: float
    chassis: str
    limit_c: float


class FeedFigures(Figures):
    feed: str
    feed_usable_w: int
    gpu_count: int
    need_w: int
    cap_w: int


class SuppliesFigures(Figures):
    chassis: str
    supplies: str
    capacity_w: int
    gpu_count: int
    need_w: int
    cap_w: int


class ChassisFigures(Figures):
    gpu_count: int
    gpu: str


class Relaxed(Figures):
    """A figure naming the relaxation a what-if eased: one of `RelaxationId`'s values."""

    relaxation: str | None = None  # None: a plan from before relaxation ids

    @field_validator("relaxation")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and relaxation_id(value) is None:
            raise ValueError(f"an id of {', '.join(r.value for r in RelaxationId)} or a rule family's own")
        return value


class SavingFigures(Relaxed):
    saved: float
    eased_price: float
    price: float
    currency: str
    eased_status: str | None = None
    servers: int | None = None  # the plan's server count, and the eased plan's
    eased_servers: int | None = None
    extra_hours: float | None = None  # a deadline's what-if: the hours each deadline gave


class FeasibleIfFigures(Relaxed):
    """A relaxation whose re-solve gives a bid without a plan one, and that plan's price."""

    eased_price: float
    currency: str
    eased_status: str


class DeadlineBoundFigures(Figures):
    """A run whose copies take more cards than their memory needs, to meet its deadline."""

    deadline_hours: float
    gpus: int
    gpu: str
    fewest_gpus: int


class DisproportionFigures(Figures):
    """Something bought whose cost is large against the hours it saves, and the plan's own rate."""

    what: str  # "spare server"
    cost: float
    currency: str
    hours_saved: float
    confidence: float
    cost_per_hour: float
    plan_per_hour: float


class OffloadDisproportionFigures(Figures):
    """Runs the plan offloads to host RAM (their `offload: auto` let it): what that saves against the
    re-solved plan without offload, the hours it adds at P90, and the plan's own rate."""

    saved: float
    without_price: float
    without_status: str
    currency: str
    hours_lost: float
    confidence: float
    saved_per_hour: float
    plan_per_hour: float


class RentDisproportionFigures(Figures):
    """Buying against renting the plan's GPU-hours, when one side is far off: `side` buy, the purchase
    pays off after more workloads than the servers can train in their years; rent, renting the
    workload once costs more than the servers."""

    side: str  # "buy" or "rent"
    purchase: float
    rent_cost: float
    currency: str
    gpu_hours: float
    queue: bool  # a queue plan: the workload is the horizon's jobs
    purchase_multiple: float  # rent_cost / purchase
    workloads_to_pay_off: float  # purchase / rent_cost
    workloads_in_life: float  # years × 8,760 h × utilisation / the workload's hours
    years: float
    utilisation: float


class LiquidSmallFigures(Figures):
    """The largest rack liquid loop, and the smallest full-load draw of the liquid-cooled servers that
    are all a run fits, kW."""

    liquid_kw: float
    need_kw: float


class NoFitFigures(Figures):
    """One entry per allowed card in each list, in the same order."""

    cards: list[str]
    need_gb: list[float]
    gpus: list[int]
    setup: list[str]
    card_gb: list[float]
    relax: list[str]
    margin: float = 0.0  # the memory margin the needs include


class RacksFigures(Figures):
    """A chassis without a height, left out of a site given as racks."""

    gpu: str


class CoolantFigures(Figures):
    """A liquid-cooled chassis the site's coolant supply cannot cool."""

    gpu: str
    why: str


class LiquidFigures(Figures):
    """A rack's liquid loop, full to within one server."""

    load_kw: float
    liquid_kw: float


class OwnedFigures(Figures):
    """Owned servers no build of this site matches."""

    count: int
    chassis: str
    gpu: str


class StockFigures(Figures):
    stock: int


class LeadTimeFigures(Figures):
    lead_weeks: float
    delivery_weeks: float


class NoServerFigures(Figures):
    needs: list[str]


class ConflictFigures(Figures):
    """Empty when no smaller conflict was found in time."""

    runs: list[str] = []
    copies: int | None = None
    max_servers: int | None = None
    racks: str | None = None  # the site's racks in words, when they are in the conflict


class NoPlanFigures(Figures):
    seconds: float


class DeadlineFigures(Figures):
    deadline_hours: float
    fastest_hours: float
    confidence: float | None = None  # the deadline confidence fastest_hours is stated at (P50, P90)
    gpu: str
    gpus: int
    strategy: str
    optimizer: str
    offload: str
    link: str | None = None
    servers: int = 1


class StatementFigures(Figures):
    """A version 1 plan's sentence, read back as a rule."""

    statement: str


class HostRuleFigures(Figures):
    ram_per_gpu_memory: float
    reserve_gb: float
    cores_per_gpu: int
    data_tb_per_socket: float


class PowerRuleFigures(Figures):
    supplies: list[str] = []  # "chassis: 4 × 3,000 W, N+1", one per chassis the builds use


class MemoryRuleFigures(Figures):
    states_only: bool
    flash_attention: bool
    cuda_context_gb: float
    allocator_reserve: float  # the workload's, else the calibration's fitted share
    memory_margin: float | None = None  # the workload's; None: each stack and method's own


class TightMarginFigures(Figures):
    """A run planned with a workload margin below its stack and method's measured error."""

    given: float
    measured: float
    basis: str


class StepTimeRuleFigures(Figures):
    mfu: float


class PricesRuleFigures(Figures):
    items: list[str]


class SparesRuleFigures(Figures):
    """Runs with hot spare servers, those whose copies each fit one server, and the repair a spare saves."""

    runs: list[str]
    one_server: list[str]
    repair_hours: float


class SkippedFigures(Figures):
    """Something asked for but left out to keep within the time limit."""

    what: str
    seconds: float
    on: str = "on the plan itself"  # what the limit went on: the plan, or searching for `what`


class FamilyFigures(BaseModel):
    """A rule family's own finding (`family`, `family-reason`): the family that worded it and the
    figures its sentence names. The family words the sentence itself (`Family.finding`), so the
    figures are the family's to choose: numbers, words or lists, each named."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)
    rule: str


#: The figures of each kind of finding, by its value (`FindingKind` is a string enum).
BY_KIND: dict[str, type[BaseModel]] = {
    "power-cap": PowerCapFigures,
    "host-ram": HostRamFigures,
    "nvme": NvmeFigures,
    "multi-gpu": MultiGpuFigures,
    "server-limit": ServerLimitFigures,
    "inlet": InletFigures,
    "feed": FeedFigures,
    "supplies": SuppliesFigures,
    "chassis": ChassisFigures,
    "racks": RacksFigures,
    "coolant": CoolantFigures,
    "liquid": LiquidFigures,
    "saving": SavingFigures,
    "feasible-if": FeasibleIfFigures,
    "deadline-bound": DeadlineBoundFigures,
    "disproportion": DisproportionFigures,
    "offload-disproportion": OffloadDisproportionFigures,
    "rent-disproportion": RentDisproportionFigures,
    "liquid-small": LiquidSmallFigures,
    "no-fit": NoFitFigures,
    "no-server": NoServerFigures,
    "conflict": ConflictFigures,
    "no-card": NoFigures,
    "no-plan": NoPlanFigures,
    "deadline": DeadlineFigures,
    "owned": OwnedFigures,
    "stock": StockFigures,
    "lead-time": LeadTimeFigures,
    "queue-heavy": NoFigures,
    "tight-margin": TightMarginFigures,
    "family": FamilyFigures,
    "family-reason": FamilyFigures,
}

#: A rule note's figures depend on which rule it states (its subject); any other subject is a
#: version 1 plan's sentence.
RULES_BY_SUBJECT: dict[str, type[Figures]] = {
    "host": HostRuleFigures,
    "power": PowerRuleFigures,
    "memory": MemoryRuleFigures,
    "step-time": StepTimeRuleFigures,
    "prices": PricesRuleFigures,
    "skipped": SkippedFigures,
    "spares": SparesRuleFigures,
}


def figures_type(kind: str, subject: str) -> type[BaseModel]:
    """The figures type a finding of this kind about this subject must match."""
    if kind == "rule":
        return RULES_BY_SUBJECT.get(subject, StatementFigures)
    return BY_KIND[kind]
