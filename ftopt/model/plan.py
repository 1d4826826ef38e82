"""The plan ftopt returns: servers with their bill of materials, and where every run copy trains.

A plain pydantic model, so that its JSON is a contract other tools (and `ftopt verify`) can read
back without the solver. Figures are rounded for people where they are reported (GB to 0.1, W to
1, prices to the cent); every rule the verifier checks is re-derived from ids, not from these.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ftopt.model.findings import Finding, FindingKind
from ftopt.model.spread import Band, FigureBands
from ftopt.model.workload import MAX_MICRO_BATCH, Offload, Optimizer, Recompute, Strategy

_PLAN = ConfigDict(frozen=True, extra="forbid")

#: Version 1 plans had sentences for binding rules and notes; version 2 has `Finding` records
#: (kind, subject, figures and the sentence) and a separate list of what-if savings; version 3 plans
#: promise every figure the catalogue's data gives: each run's stack, each copy's tokens per second
#: and hours (ftopt verify holds them to it; older plans without them still read and verify).
SCHEMA_VERSION = 3
#: The first version whose plans must state every run's stack and every copy's speed figures.
COMPLETE_SINCE = 3


class Status(StrEnum):
    """How a solve ended; a plan is only ever optimal or feasible."""

    OPTIMAL = "optimal"  # a plan, proven cheapest
    FEASIBLE = "feasible"  # a plan, with a bound and a gap
    INFEASIBLE = "infeasible"  # proven: no plan exists; the result's reasons say why
    NO_PLAN_IN_TIME = "no-plan-in-time"  # the time limit ran out before any plan was found


class LineItem(BaseModel):
    """One line of a server's bill of materials."""

    model_config = _PLAN
    item: str = Field(description="catalogue id")
    name: str = Field(description="what it is")
    quantity: int = Field(ge=0, description="units")
    unit_price: float = Field(ge=0, description="price of one unit")
    price: float = Field(ge=0, description="quantity × unit price")


class MigCard(BaseModel):
    """One sliced card of a server: its GPU index and the MIG instances it is split into."""

    model_config = _PLAN
    card: int = Field(ge=0, description="GPU index on the server")
    profiles: list[str] = Field(
        min_length=1, description="the card's instances, by profile (a listed layout)"
    )


class MigSlice(BaseModel):
    """The GPU slice (MIG instance) a copy trains on: its card, profile and instance number."""

    model_config = _PLAN
    card: int = Field(ge=0, description="GPU index on the server; the copy's `gpus` is [card]")
    profile: str = Field(description="MIG profile, e.g. 1g.24gb")
    index: int = Field(ge=0, description="which instance of that profile on the card, from 0")


class Server(BaseModel):
    """One server of the plan."""

    model_config = _PLAN
    id: str = Field(description="s1, s2, …")
    chassis: str
    gpu: str
    gpu_count: int = Field(gt=0)
    cpu: str
    cpu_count: int = Field(gt=0)
    cores: int = Field(gt=0)
    ram_gb: int = Field(gt=0)
    dimm: str
    dimm_gb: int = Field(gt=0)
    dimm_count: int = Field(gt=0)
    data_drive: str
    data_drive_count: int = Field(ge=0)
    boot_drive: str
    nvme_tb: float = Field(ge=0, description="data NVMe, TB")
    bridge: str | None = Field(default=None, description="NVLink bridge id, if bridged")
    bridge_count: int = Field(default=0, ge=0)
    nvlink_domains: list[list[int]] = Field(default_factory=list, description="GPU indices per domain")
    link_name: str | None = Field(
        default=None,
        description="its cards' GPU-to-GPU link as their maker names it (NVLink, Infinity Fabric); "
        "None: no such link, or a plan written before the name was kept (read as NVLink)",
    )
    gpu_power_cap_w: int = Field(gt=0)
    power_w: int = Field(
        gt=0,
        description="full-load draw at the wall the power rules plan with: the parts over the supplies' "
        "efficiency, or the vendor's published maximum scaled to its cards where larger (power_basis)",
    )
    parts_power_w: int | None = Field(
        default=None, ge=0, description="the parts' estimate at the wall; None in plans written before it"
    )
    vendor_max_w: int | None = Field(
        default=None,
        ge=0,
        description="the vendor's published system maximum scaled to its cards, at the wall (chassis "
        "published_max); None where none is published",
    )
    power_band: Band | None = Field(
        default=None, description="band of power_w: published systems' maxima against ftopt's estimate"
    )
    power_basis: Literal["parts", "vendor maximum"] = Field(
        default="parts", description="which of parts_power_w and vendor_max_w power_w is: the larger"
    )
    feed: str
    feed_usable_w: int = Field(gt=0)
    max_inlet_c: float
    price: float = Field(ge=0)
    bill_of_materials: list[LineItem] = Field(default_factory=list)
    nic: str | None = Field(default=None, description="fabric NIC id, on servers of multi-node copies")
    nic_count: int = Field(default=0, ge=0, description="fabric NICs (one per GPU on HGX systems)")
    owned: bool = Field(default=False, description="one of the customer's servers: nothing to buy")
    rack: str | None = Field(default=None, description="rack name, when the site is given as racks")
    circuit: int | None = Field(
        default=None, ge=0, description="index into its rack's feeds: the circuit the server draws from"
    )
    psu_load_w: int = Field(
        default=0,
        ge=0,
        description="what its supplies deliver at full load (the parts' sum, or the vendor's maximum at "
        "the supplies where larger), rounded up",
    )
    psu_watts: int = Field(default=0, ge=0, description="one supply's rating")
    psu_count: int = Field(default=0, ge=0, description="supplies fitted")
    psu_redundancy: str = Field(default="", description="none, N+1 or N+N")
    psu_capacity_w: int = Field(
        default=0, ge=0, description="what the supplies deliver with the redundant ones failed"
    )
    mig: list[MigCard] = Field(default_factory=list, description="its cards split into GPU slices (MIG)")


class Node(BaseModel):
    """One server's part of a copy: the server and the GPUs of it the copy trains on."""

    model_config = _PLAN
    server: str
    gpus: list[int]


class MemoryPerGpu(BaseModel):
    """Memory per GPU of one assignment, GB."""

    model_config = _PLAN
    states: float
    activations: float
    overhead: float
    total: float


class RoleOnGpus(BaseModel):
    """One role of a preference or RL copy: the copy's GPUs that hold it and its memory on each."""

    model_config = _PLAN
    role: Literal["policy", "reference", "reward", "critic", "rollout"]
    gpus: list[int] = Field(description="GPU indices on the copy's server")
    memory_gb: float = Field(ge=0, description="memory per GPU, GB")


class ParallelDegrees(BaseModel):
    """Data, tensor, pipeline and context parallel degrees of a copy; their product is its GPUs."""

    model_config = _PLAN
    dp: int = Field(default=1, ge=1, description="data-parallel replicas (or FSDP shard groups)")
    tp: int = Field(default=1, ge=1, description="tensor-parallel GPUs, inside one NVLink domain")
    pp: int = Field(default=1, ge=1, description="pipeline stages (1F1B)")
    cp: int = Field(default=1, ge=1, description="context-parallel GPUs splitting each sequence")


class Assignment(BaseModel):
    """Where one copy of one run trains."""

    model_config = _PLAN
    run: str
    copy_: int = Field(alias="copy", ge=1, description="copy number, from 1")
    server: str
    gpus: list[int]
    strategy: Strategy
    optimizer: Optimizer
    offload: Offload
    link: str | None = Field(default=None, description="nvlink or pcie between its GPUs")
    memory_per_gpu_gb: MemoryPerGpu
    free_gb: float
    memory_margin: float | None = Field(
        default=None,
        ge=0,
        description="planning margin on memory per GPU: the copy must fit with total × (1 + margin); "
        "the stack and method's (margins.yaml) unless the workload's sizing.memory_margin sets it",
    )
    memory_margin_basis: str | None = Field(
        default=None,
        description="where memory_margin comes from: 'cross-validated error of STACK/METHOD, N sources' (at "
        "least 3 sources measured that stack and method), 'pooled cross-validated error of all stacks, N "
        "sources', or the workload's sizing.memory_margin",
    )
    headroom_gb: float | None = Field(
        default=None, description="card memory left per GPU after the margin: card − total × (1 + margin)"
    )
    host_ram_gb: float
    nvme_gb: float
    traffic_gb_per_step: float
    step_seconds: float
    tokens_per_s: float | None = Field(
        default=None, description="the speed model's tokens per second for this placement (link, host)"
    )
    hours: float | None = Field(default=None, description="hours to train its run's train_tokens")
    energy_kwh: float | None = Field(
        default=None,
        description="grid energy of those hours: hours × (GPUs at their power setting + host W per GPU) "
        "× PUE",
    )
    checkpoint_write_s: float | None = Field(
        default=None, description="seconds to write one checkpoint on its servers' data drives"
    )
    checkpoint_interval_h: float | None = Field(
        default=None, description="Young/Daly interval between checkpoints, √(2 × write × MTBF), hours"
    )
    expected_interruptions: float | None = Field(
        default=None, description="interruptions expected over its hours with failures"
    )
    failure_overhead: float | None = Field(
        default=None, description="hours added per training hour by checkpoints, lost work and restarts"
    )
    hours_with_failures: float | None = Field(
        default=None, description="hours × (1 + failure_overhead): checkpoints, lost work, restarts"
    )
    restart_hours: float | None = Field(
        default=None,
        description="expected hours from an interruption to training again: the restart, plus the repair "
        "of a broken server when no spare takes its place",
    )
    spares: list[str] = Field(
        default_factory=list,
        description="hot spare servers of this copy (same build, on its fabric): they train nothing until "
        "one of its nodes breaks",
    )
    hours_p90_without_spares: float | None = Field(
        default=None, description="a copy with spares: its hours at P90 had it none (what the spares buy)"
    )
    hours_p50: float | None = Field(
        default=None,
        description="hours at P50: hours with failures (on its servers' data drives) × its stack's "
        "P50 spread factor (spread.yaml)",
    )
    hours_p90: float | None = Field(
        default=None, description="hours at P90: as hours_p50 with the stack's P90 spread factor"
    )
    spread_basis: str | None = Field(
        default=None,
        description="where the spread factors come from: the stack's own or pooled held-out points",
    )
    bands: FigureBands | None = Field(
        default=None,
        description="where memory per GPU, hours and energy fell around ftopt's figures on calibration "
        "points nobody fitted to: low/high percent, points, sources, basis (docs/calibration.md)",
    )
    nodes: list[Node] = Field(
        default_factory=list,
        description="every server the copy trains on with its GPUs; one node for a single-server copy, "
        "whose server and gpus are `server` and `gpus` (always the first node's)",
    )
    placement: Literal["colocated", "separate"] | None = Field(
        default=None, description="where a GRPO/PPO copy's rollout engine generates"
    )
    roles: list[RoleOnGpus] = Field(
        default_factory=list, description="a DPO/GRPO/PPO copy's models and engine on its GPUs"
    )
    micro_batch: int | None = Field(
        default=None, ge=1, description="sequences per GPU per forward pass (absent in older plans)"
    )
    accumulation: int | None = Field(default=None, ge=1, description="micro-batches per optimiser step")
    recompute: Recompute | None = Field(default=None, description="activation recomputation")
    parallelism: ParallelDegrees | None = Field(
        default=None, description="dp, tp, pp, cp; dp·tp·pp·cp equals the copy's GPUs"
    )
    mig: MigSlice | None = Field(
        default=None, description="the GPU slice the copy trains on; None: whole GPUs"
    )

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _nodes_from_server(cls, data: Any) -> Any:
        """Plans without `nodes` (before multi-node copies) have one node: `server` and `gpus`."""
        if isinstance(data, dict) and not data.get("nodes") and "server" in data and "gpus" in data:
            return {**data, "nodes": [{"server": data["server"], "gpus": data["gpus"]}]}
        return data

    def hours_at(self, confidence: float | None) -> float | None:
        """Its hours at `confidence` (0.5: P50, 0.9: P90); its plain hours without a confidence or in
        plans without spread."""
        at = {0.5: self.hours_p50, 0.9: self.hours_p90}.get(confidence) if confidence is not None else None
        return at if at is not None else self.hours

    @property
    def gpu_count(self) -> int:
        """GPUs of the copy on all its nodes (a single-server copy's are `gpus`)."""
        return sum(len(n.gpus) for n in self.nodes) if self.multinode else len(self.gpus)

    @property
    def multinode(self) -> bool:
        """Whether the copy spans several servers."""
        return len(self.nodes) > 1

    @property
    def gpus_text(self) -> str:
        """Its GPUs as every format shows them: '0,1', '0,1 on each of 2', or '2 (1g.24gb #1)' for
        the second 1g.24gb instance of GPU 2."""
        text = ",".join(map(str, self.gpus)) + (f" on each of {len(self.nodes)}" if self.multinode else "")
        return f"{text} ({self.mig.profile} #{self.mig.index + 1})" if self.mig else text


class ScheduledJob(BaseModel):
    """When and where one job of a queue bid trains: its GPUs are its own from start to end."""

    model_config = _PLAN
    run: str
    job: int = Field(
        ge=1, description="job number within the run, from 1; the assignment with this copy number"
    )
    server: str = Field(description="the first node's server")
    gpus: list[int] = Field(description="the first node's GPU indices")
    start_hours: float = Field(ge=0, description="hours from the start of the horizon")
    end_hours: float = Field(ge=0, description="start plus the speed model's hours for this placement")
    nodes: list[Node] = Field(default_factory=list, description="every server and its GPUs, multi-node jobs")


class RentSource(BaseModel):
    """One cloud rate a rent figure used: card, provider's offer, rate, and where it is published."""

    model_config = _PLAN
    card: str
    kind: str = Field(description="on-demand or committed")
    provider: str
    offer: str
    match: str = Field(description="exact: the same product; nearest: the closest one rented")
    usd_per_gpu_hour: float
    gpu_hours: float = Field(description="the plan's GPU-hours on this card")
    url: str
    read: str = Field(description="when the rate was read")


class Rent(BaseModel):
    """The plan's training hours rented instead: cost, GPU-hours, when buying pays off, sources."""

    model_config = _PLAN
    cost: float = Field(ge=0, description="GPU-hours × the cheapest on-demand rate per card")
    committed_cost: float | None = Field(
        default=None, description="at the cheapest committed rate per card; null where none is published"
    )
    gpu_hours: float = Field(ge=0, description="Σ hours × GPUs over the copies or jobs")
    break_even_months: float | None = Field(
        default=None,
        description="queue plans: months of renting the horizon's jobs on demand that cost the purchase",
    )
    sources: list[RentSource] = Field(default_factory=list)
    read_by_ftopt: str = Field(default="", description="when ftopt read the rate table")


class SiteSummary(BaseModel):
    """The site the plan was made for."""

    model_config = _PLAN
    feed: str
    feed_usable_w: int
    inlet_c: float
    max_servers: int | None = None


class CircuitLoad(BaseModel):
    """One circuit of a rack and the servers that draw from it."""

    model_config = _PLAN
    feed: str = Field(description="feed id of the circuit")
    usable_w: int = Field(ge=0, description="watts the circuit may carry (the feed's derated figure)")
    load_w: int = Field(ge=0, description="Σ full-load draw of the servers on this circuit")
    servers: list[str] = Field(default_factory=list, description="ids of the servers on this circuit")


class RackUse(BaseModel):
    """One rack of the site: its height and what the plan puts in it."""

    model_config = _PLAN
    name: str
    units: int = Field(gt=0, description="rack units the site offers")
    units_used: int = Field(ge=0, description="Σ the chassis' rack units")
    redundant: bool = Field(default=False, description="each circuit carries the whole rack alone")
    load_w: int = Field(ge=0, description="Σ full-load draw of the rack's servers")
    circuits: list[CircuitLoad] = Field(description="one per feed of the rack, in the site's order")


class RunSummary(BaseModel):
    """One run of the bid as the workload states it."""

    model_config = _PLAN
    name: str
    model: str
    method: str = Field(
        min_length=1, description="the method id of the registry (methods.yaml), an RL run's adapter"
    )
    method_label: str | None = Field(
        default=None,
        description="the registry's label of the method (`LoRA`), as the quote prints it; None in plans "
        "written before the label was stated, which print the id",
    )
    seq_len: int = Field(gt=0)
    micro_batch: Annotated[int, Field(gt=0, le=MAX_MICRO_BATCH)] | Literal["auto"]
    concurrent: int = Field(gt=0)
    lora_rank: int | None = Field(default=None, gt=0)
    algorithm: Literal["dpo", "grpo", "ppo"] | None = Field(
        default=None, description="dpo, grpo or ppo (None: supervised)"
    )
    stack: str | None = Field(default=None, description="training stack the speed estimate assumes")
    train_tokens: int | None = Field(default=None, gt=0, description="tokens one copy trains on")
    deadline_hours: float | None = Field(default=None, gt=0, description="hours each copy must finish within")
    deadline_confidence: float | None = Field(
        default=None, description="0.5 or 0.9: the deadline holds for each copy's P50 or P90 hours"
    )
    jobs: int | None = Field(default=None, gt=0, description="queue mode: jobs of the run within the horizon")
    release_hours: float | None = Field(
        default=None, ge=0, description="queue mode: earliest start of its jobs"
    )


class Tco(BaseModel):
    """Purchase price plus the servers' energy over the years they are written off."""

    model_config = _PLAN
    objective: str = Field(default="price", description="what the solver minimised: price or tco")
    purchase: float = Field(ge=0, description="the plan's total price")
    energy_kwh: float = Field(ge=0, description="Σ server full-load W × utilisation × years × 8,760 h × PUE")
    energy_cost: float = Field(ge=0, description="energy_kwh × price_per_kwh")
    total: float = Field(ge=0, description="purchase + energy_cost")
    price_per_kwh: float
    pue: float
    utilisation: float
    years: float


class FabricSwitch(BaseModel):
    """Switches of one role in the fabric."""

    model_config = _PLAN
    id: str = Field(description="catalogue switch id")
    role: Literal["leaf", "spine"]
    count: int = Field(gt=0)
    ports_used: int = Field(ge=0, description="ports in use over all switches of this role")


class FabricLinks(BaseModel):
    """Links of one kind and the cable units that carry them."""

    model_config = _PLAN
    joins: Literal["switch-nic", "switch-switch"]
    links: int = Field(ge=0)
    cable: str = Field(description="catalogue cable id")
    cables: int = Field(ge=0, description="units (a twin-port unit carries two links)")


class Fabric(BaseModel):
    """The network joining the servers of multi-node copies: switches, NICs, links, price."""

    model_config = _PLAN
    nic: str = Field(description="catalogue NIC id the servers carry")
    nics_per_server: dict[str, int] = Field(description="server id → fabric NICs")
    nic_ports: int = Field(ge=0, description="NIC ports joined to leaves")
    switches: list[FabricSwitch]
    links: list[FabricLinks]
    price: float = Field(ge=0, description="switches and cables (the NICs are in their servers' bills)")
    bill_of_materials: list[LineItem] = Field(default_factory=list)


class Budget(BaseModel):
    """How the command that made the plan shared its time limit: why a figure (a what-if saving, an
    alternative) is missing, or a search stopped short of its proof, is read here."""

    model_config = _PLAN
    limit_s: float = Field(ge=0, description="the command's --time-limit: the whole command, not one phase")
    shares: dict[str, float] = Field(
        default_factory=dict,
        description="the seconds each phase was allowed: search, what-if, alternatives (0: skipped)",
    )
    sharing: str = Field(description="how the limit was shared, in words")


class Plan(BaseModel):
    """The answer to a workload: status, price, proof quality, servers and assignments."""

    model_config = _PLAN
    schema_version: int = Field(default=SCHEMA_VERSION, ge=1, le=SCHEMA_VERSION, description="plan format")
    status: Status
    currency: str
    total_price: float
    bound: float | None = Field(description="the solver's proven lower bound on the price")
    gap: float | None = Field(description="(price − bound) / price")
    wall_seconds: float
    workload: str | None = None
    price_list: str = Field(default="", description="price list date and source summary")
    site: SiteSummary | None = Field(default=None, description="feed and room the plan is for")
    runs: list[RunSummary] = Field(default_factory=list, description="the bid's runs, in workload order")
    servers: list[Server] = Field(default_factory=list)
    assignments: list[Assignment] = Field(default_factory=list)
    binding: list[Finding] = Field(default_factory=list, description="rules that shaped the optimum")
    savings: list[Finding] = Field(default_factory=list, description="what one eased rule would save")
    notes: list[Finding] = Field(default_factory=list, description="assumptions and defaults applied")
    makespan_hours: float | None = Field(
        default=None,
        description="the longest copy's hours to train (a queue: the last job's end); null when no run "
        "gives train_tokens",
    )
    energy_kwh: float | None = Field(default=None, description="Σ the copies' training energy")
    tco: Tco | None = Field(default=None, description="purchase plus energy over the years")
    fabric: Fabric | None = Field(
        default=None, description="the network of multi-node copies; in total_price"
    )
    horizon_hours: float | None = Field(
        default=None, description="queue mode: every job lies within this many hours; null otherwise"
    )
    schedule: list[ScheduledJob] = Field(
        default_factory=list,
        description="queue mode: each job's server, GPUs and hours; each assignment is then one job",
    )
    rent: Rent | None = Field(
        default=None, description="the same training hours rented on public clouds (buy or rent)"
    )
    racks: list[RackUse] = Field(
        default_factory=list, description="racks, units used and load per circuit, when the site has racks"
    )
    alternatives: list[Alternative] = Field(
        default_factory=list,
        description="the next cheapest bids whose server sets differ, in price order (--alternatives)",
    )
    budget: Budget | None = Field(
        default=None, description="how the solve shared its time limit among its phases"
    )

    @property
    def last_job_end_hours(self) -> float | None:
        """A queue plan's last job's end, hours from the horizon's start; None at peak."""
        if self.horizon_hours is None:
            return None
        return max((job.end_hours for job in self.schedule), default=None)

    @property
    def confident_finish_hours(self) -> float | None:
        """Hours until every run is trained at its deadline confidence (each copy's P50 or P90 hours;
        its plain hours in plans without them); a queue plan's last job's end."""
        last = self.last_job_end_hours
        if last is not None:
            return last
        confidence = {r.name: r.deadline_confidence for r in self.runs}
        held = [h for a in self.assignments if (h := a.hours_at(confidence.get(a.run))) is not None]
        return max(held, default=None)

    @model_validator(mode="before")
    @classmethod
    def _drop_summary(cls, data: Any) -> Any:
        """`ftopt solve --format json` writes the quote's summary (`ftopt.model.summary`) beside the
        plan's fields; it is derived from them, so reading a plan back leaves it out and every figure
        is re-derived from the plan itself."""
        if isinstance(data, dict) and "summary" in data:
            return {k: v for k, v in data.items() if k != "summary"}
        return data

    @model_validator(mode="before")
    @classmethod
    def _read_version_1(cls, data: Any) -> Any:
        """Version 1 plans (no `schema_version`) had sentences where version 2 has findings."""
        if not isinstance(data, dict) or "schema_version" in data:
            return data
        lines = [*data.get("binding", ()), *data.get("notes", ())]
        if not any(isinstance(line, str) for line in lines):
            return data
        return {
            **data,
            "schema_version": 1,
            "binding": [_sentence(line) for line in data.get("binding", ())],
            "notes": [_sentence(line) for line in data.get("notes", ())],
        }

    def to_json(self) -> str:
        """The plan as JSON with the documented key names (`copy`, not `copy_`)."""
        return self.model_dump_json(by_alias=True, indent=2)


class Alternative(BaseModel):
    """Another bid for the same workload: a different server set, its extra cost and what differs."""

    model_config = _PLAN
    rank: int = Field(ge=1, description="1 for the next cheapest after the plan, 2 after that, …")
    price_difference: float = Field(ge=0, description="its total price minus the plan's")
    differs: list[str] = Field(description="servers it adds (+) and drops (−) against the plan")
    proven_next: bool = Field(
        description="CP-SAT proved no cheaper plan differs from the ones before it in its server counts"
    )
    plan: Plan


Plan.model_rebuild()


def _sentence(line: Any) -> Any:
    """A version 1 sentence as a finding that carries only its words."""
    if not isinstance(line, str):
        return line
    return {"kind": FindingKind.RULE, "subject": "plan", "figures": {"statement": line}, "text": line}
