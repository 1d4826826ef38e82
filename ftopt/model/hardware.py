"""The hardware catalogue's types: cards, bridges, CPUs, DIMMs, drives, chassis, feeds, models,
network cards, switches, cables and prices.

Each item validates its own fields; `Catalogue` checks the references between items (a bridge's
card, a chassis' cards, a price's item) and exposes read-only lookups. Prices are data: every entry
carries amount, currency, date and source, and a user's price list replaces entries by item id.

A chassis describes its interconnect as data (sockets, where each GPU slot and NIC slot attaches,
PCIe switches, an NVSwitch baseboard); `ftopt.model.topology` turns it into one graph.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from ftopt.model.architecture import Architecture, ParamCounts, count_params
from ftopt.model.failures import Reliability
from ftopt.model.family_data import FamilyData, PolicyField
from ftopt.model.methods import MethodRegistry
from ftopt.model.mig import Mig
from ftopt.model.rent import CloudPrices
from ftopt.model.spread import Spread
from ftopt.model.stack import CardClass, MemoryMargins, Platform, RolloutConstants, SpeedConstants, Stack
from ftopt.model.written import DateText

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class _Item(BaseModel):
    model_config = _FROZEN
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", description="lowercase catalogue id")
    name: str = Field(min_length=1, description="what a person calls it")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")


class NvLink(BaseModel):
    """A card's GPU-to-GPU link: its bandwidth, and the bridges it accepts (none for a baseboard
    module, whose links run to the NVSwitch chips of an HGX board, or straight to every other module
    on an AMD Instinct board's Infinity Fabric). The name is NVIDIA's; an OAM module's Infinity Fabric
    is described by the same two figures, and carries its own `name`, which every format prints."""

    model_config = _FROZEN
    name: str = Field(
        default="NVLink",
        min_length=1,
        description="the link's own name, as its maker calls it (NVLink, Infinity Fabric): what plans print",
    )
    bandwidth_gbps: float = Field(gt=0, description="GB/s per GPU, both directions summed")
    bridge_sizes: tuple[int, ...] = Field(default=(), description="cards one bridge joins")


class Gpu(_Item):
    """A PCIe accelerator card, or a module on an eight-GPU baseboard (NVIDIA SXM, AMD OAM)."""

    form: Literal["pcie", "sxm", "oam"] = Field(
        default="pcie", description="PCIe card, NVIDIA SXM module or AMD OAM module"
    )
    platform: Platform = Field(
        default="cuda", description="the software platform its training stacks target (stacks.yaml)"
    )
    memory_gb: float = Field(gt=0, description="card memory, GB = 1e9 bytes")
    power_w: int = Field(gt=0, description="board power at full load")
    power_caps_w: tuple[int, ...] = Field(default=(), description="lower caps the card accepts")
    pcie_gbps: float = Field(gt=0, description="host link, GB/s both directions summed")
    nvlink: NvLink | None = Field(default=None, description="NVLink bandwidth and bridges, if any")
    bf16_dense_tflops: float = Field(gt=0, description="dense BF16 tensor peak")
    fp8_dense_tflops: float | None = Field(default=None, gt=0, description="dense FP8 peak, if any")
    memory_bandwidth_gbps: float = Field(gt=0, description="card memory bandwidth, GB/s")
    card_class: CardClass = Field(description="speed class: hbm (data-centre) or gddr (workstation)")
    max_inlet_c: float = Field(description="warmest inlet the servers accept with this card")
    mig: Mig | None = Field(default=None, description="GPU slices (MIG): profiles and valid layouts")

    @model_validator(mode="after")
    def _module_has_nvlink(self) -> Gpu:
        if self.on_baseboard and (self.nvlink is None or self.nvlink.bridge_sizes):
            raise ValueError("@nvlink: a baseboard module links to its board's GPUs and takes no bridges")
        return self

    @property
    def on_baseboard(self) -> bool:
        """A module of an eight-GPU baseboard (SXM or OAM): all its board's GPUs form one domain."""
        return self.form != "pcie"

    @property
    def power_settings_w(self) -> tuple[int, ...]:
        """Full power first, then each cap, highest first."""
        return (
            self.power_w,
            *sorted((c for c in self.power_caps_w if c < self.power_w), reverse=True),
        )


class Bridge(_Item):
    """An NVLink bridge joining `size` cards of one model."""

    gpu: str = Field(description="card id the bridge fits")
    size: int = Field(ge=2, description="cards joined")


class Cpu(_Item):
    """A server processor; servers take two."""

    cores: int = Field(gt=0, description="physical cores")
    tdp_w: int = Field(gt=0, description="default thermal design power")
    memory_channels: int = Field(gt=0, description="DDR5 channels per socket")
    socket: str = Field(
        default="sp5", min_length=1, description="socket it fits: sp5 (EPYC 9005), lga4710 (Xeon 6700P)"
    )


class Dimm(_Item):
    """A registered DDR5 module."""

    gb: int = Field(gt=0, description="capacity, GB")
    watts: float = Field(gt=0, description="module power under load, W (counted at the wall)")


class Drive(_Item):
    """An NVMe drive, for training data or booting."""

    tb: float = Field(gt=0, description="capacity, TB = 1e12 bytes")
    role: Literal["data", "boot"] = Field(description="data drives hold checkpoints; one boot drive")
    watts: float = Field(gt=0, description="drive power while writing (its highest), W")
    write_gbps: float = Field(gt=0, description="sequential write, GB/s: how fast checkpoints land")


#: A PCIe attachment point: a socket index, or a node name "socket<i>" or "switch<j>".
Attach = int | str
_ATTACH = re.compile(r"^(socket|switch)(\d+)$")


def attach_node(point: Attach) -> str:
    """The graph node an attachment point names: 1 → "socket1", "switch0" stays."""
    return f"socket{point}" if isinstance(point, int) else point


class PcieSwitch(BaseModel):
    """A PCIe switch on the board: which socket it hangs under and how wide its uplink is."""

    model_config = _FROZEN
    socket: int = Field(ge=0, description="socket index of its uplink")
    uplink_gbps: float = Field(default=128, gt=0, description="uplink GB/s, both directions summed")


class BasePart(BaseModel):
    """One thing in a chassis' own draw (`Chassis.base_watts`): fans, NVSwitch chips, PCIe switches,
    retimers, the BMC. Kept part by part so that a reader sees which watts are a published figure and
    which an assumption, rather than one number that could have been set to make a check come out."""

    model_config = _FROZEN
    part: str = Field(min_length=1, description="what draws: 'fans', 'NVSwitch chip', ...")
    count: int = Field(gt=0, description="how many of it")
    watts: float = Field(ge=0, description="W each, at full load")
    basis: Literal["published", "derived", "assumed"] = Field(
        description="published: a vendor or press figure for this part; derived: arithmetic on a published"
        " figure (the fans' share of the draw); assumed: a stand-in where no figure was found"
    )


class PublishedMax(BaseModel):
    """A vendor's published maximum input power for its own system of this chassis class, and the
    cards it was published for. Why it is kept beside the parts: where the parts explain less than
    the vendor's figure (a DGX H200 at 0.91, a DGX B200 at 0.86), a circuit sized to the parts could
    be overloaded by the real server; the power rules plan with the larger of the two
    (ftopt.model.power.vendor_load_w says how it is scaled to a build's cards)."""

    model_config = _FROZEN
    system: str = Field(min_length=1, description="the vendor's system the figure is for: 'NVIDIA DGX H200'")
    watts: int = Field(gt=0, description="its published maximum input power at the wall, W")
    gpu_w: int = Field(gt=0, description="the power of each of its cards the figure was published at, W")
    gpu_count: int = Field(gt=0, description="its cards")
    source: str = Field(min_length=1, description="where it is published, with the date it was read")


#: How a chassis' supplies back each other up: the supplies that must carry the whole draw are all of
#: them (none), all but one (N+1) or half (N+N: one of two feeds may fail).
PsuRedundancy = Literal["none", "N+1", "N+N"]


class Chassis(_Item):
    """A GPU server chassis (or an HGX system around its baseboard) and its interconnect."""

    gpu_slots: int = Field(gt=0, description="GPU slots: double-width PCIe slots or SXM sockets")
    sockets: int = Field(default=2, gt=0, description="CPU sockets")
    cpu_socket: str = Field(default="sp5", min_length=1, description="the socket type its CPUs fit")
    dimm_slots: int = Field(gt=0, description="DIMM slots (one per channel)")
    drive_bays: int = Field(gt=0, description="NVMe bays for data drives")
    max_cpu_tdp_w: int = Field(gt=0, description="hottest CPU the chassis cools")
    max_inlet_c: float = Field(description="warmest inlet the chassis accepts with any card")
    gpus: tuple[str, ...] | None = Field(
        default=None, description="card ids it takes (an HGX system: its modules); None: any PCIe card"
    )
    gpu_attach: tuple[Attach, ...] | Literal["by-domain"] = Field(
        default="by-domain",
        description="per GPU slot: socket index or switch<j>; by-domain: spread evenly over the "
        "sockets, each NVLink bridge group under one socket (NVIDIA's reference placement)",
    )
    pcie_switches: tuple[PcieSwitch, ...] = Field(default=(), description="PCIe switches on the board")
    nvswitch: bool = Field(default=False, description="NVSwitch joins all its GPUs in one NVLink domain")
    nic_slots: tuple[Attach, ...] = Field(default=(), description="east-west NIC slots: attachment")
    nic_slot_gbps: float = Field(
        default=128,
        gt=0,
        description="host link of each NIC slot, GB/s both directions summed (PCIe Gen5 x16: 128, the "
        "default; Gen6 x16: 256)",
    )
    rack_units: int | None = Field(
        default=None, gt=0, le=60, description="height, U; needed to place the chassis in a site's racks"
    )
    weight_kg: float | None = Field(
        default=None, gt=0, le=500, description="weight as installed, kg (the facility sheet's figure)"
    )
    airflow_cfm: float | None = Field(
        default=None, gt=0, le=5000, description="airflow at full load, cubic feet per minute (air-cooled)"
    )
    facility_sources: tuple[str, ...] = Field(
        default=(),
        description="where weight_kg and airflow_cfm are published, with the date read: one entry per "
        "figure, starting with its field name ('weight_kg: 130.45 kg, NVIDIA DGX H100/H200 …'); an "
        "entry may also say where a figure was looked for and not found",
    )
    inlet_limits: dict[str, float] = Field(
        default_factory=dict,
        description="card id → warmest inlet the chassis is qualified for with that card, where stricter "
        "than max_inlet_c (a dense server that needs cooler air for hot cards)",
    )
    cooling: Literal["air", "liquid"] = Field(
        default="air", description="air: held to the room's inlet air; liquid: to the coolant supply"
    )
    coolant_max_c: float | None = Field(
        default=None, gt=0, le=70, description="liquid only: warmest coolant supply the cold plates take, °C"
    )

    @model_validator(mode="after")
    def _facility_figures_name_their_source(self) -> Chassis:
        """A weight or airflow reaches the data-centre team as a published figure, so each one set
        must say where it is published: a `facility_sources` entry that starts with its field name."""
        for field in ("weight_kg", "airflow_cfm"):
            cited = any(source.startswith(f"{field}: ") for source in self.facility_sources)
            if getattr(self, field) is not None and not cited:
                raise ValueError(f"@{field}: give its source in facility_sources, starting '{field}: '")
        return self

    @model_validator(mode="after")
    def _liquid_names_its_coolant_limit(self) -> Chassis:
        """A cold-plate chassis is qualified for a coolant supply temperature, so it must say which."""
        if self.cooling == "liquid" and self.coolant_max_c is None:
            raise ValueError("@coolant_max_c: a liquid-cooled chassis gives its warmest coolant supply, °C")
        if self.cooling == "air" and self.coolant_max_c is not None:
            raise ValueError("@coolant_max_c: applies to cooling: liquid only")
        return self

    psu_watts: int = Field(gt=0, description="one power supply's rating at the site's voltage (200-240 V)")
    psu_count: int = Field(gt=0, description="power supplies fitted")
    psu_redundancy: PsuRedundancy = Field(
        description="none: all supplies carry the load; N+1: all but one must; N+N: half of them must"
    )
    psu_efficiency: float = Field(gt=0, le=1, description="the supplies' efficiency at typical load")
    base_watts: float = Field(
        ge=0, description="fans, baseboard, BMC and on-board switches at full load, W (before the supplies)"
    )
    base_parts: tuple[BasePart, ...] = Field(
        default=(), description="what base_watts is made of; when given, it sums to base_watts"
    )
    published_max: PublishedMax | None = Field(
        default=None,
        description="the vendor's published maximum input power for its own system of this class: "
        "a floor under the parts' estimate in every power rule",
    )

    @model_validator(mode="after")
    def _base_is_its_parts(self) -> Chassis:
        total = sum(p.count * p.watts for p in self.base_parts)
        if self.base_parts and abs(total - self.base_watts) > 0.5:
            raise ValueError(f"@base_watts: {self.base_watts:g} W, but its base_parts sum to {total:g} W")
        return self

    @model_validator(mode="after")
    def _interconnect_is_consistent(self) -> Chassis:
        if self.gpu_attach != "by-domain" and len(self.gpu_attach) != self.gpu_slots:
            raise ValueError(f"@gpu_attach: {len(self.gpu_attach)} entries for {self.gpu_slots} GPU slots")
        points = (() if self.gpu_attach == "by-domain" else self.gpu_attach) + self.nic_slots
        for point in points:
            self._check_point(point)
        for switch in self.pcie_switches:
            if switch.socket >= self.sockets:
                raise ValueError(f"@pcie_switches: socket {switch.socket} of {self.sockets} sockets")
        if self.nvswitch and not self.gpus:
            raise ValueError("@gpus: an NVSwitch baseboard names the modules it carries")
        return self

    def _check_point(self, point: Attach) -> None:
        if isinstance(point, int):
            kind, index = "socket", point
        else:
            match = _ATTACH.match(point)
            if match is None:
                raise ValueError(f"attachment {point!r}: expected a socket index, socket<i> or switch<j>")
            kind, index = match.group(1), int(match.group(2))
        limit = self.sockets if kind == "socket" else len(self.pcie_switches)
        if not 0 <= index < limit:
            raise ValueError(f"attachment {point!r}: the chassis has {limit} {kind}(es)")

    @model_validator(mode="after")
    def _supplies_can_be_redundant(self) -> Chassis:
        if self.psu_redundancy == "N+1" and self.psu_count < 2:
            raise ValueError("@psu_count: N+1 needs at least two supplies")
        if self.psu_redundancy == "N+N" and self.psu_count % 2:
            raise ValueError("@psu_count: N+N needs an even number of supplies")
        return self

    @property
    def psu_carrying(self) -> int:
        """Supplies that must carry the whole draw when the redundant ones have failed."""
        spare = {"none": 0, "N+1": 1, "N+N": self.psu_count // 2}[self.psu_redundancy]
        return self.psu_count - spare

    @property
    def psu_capacity_w(self) -> int:
        """Watts the supplies deliver with the redundant ones failed: what the server may draw."""
        return self.psu_carrying * self.psu_watts

    def inlet_limit_c(self, gpu: Gpu) -> float:
        """Warmest inlet with this card in this chassis: the card's, the chassis' and the pair's limit.
        A liquid-cooled chassis' cards sit on cold plates, so the card's air limit does not apply; the
        chassis' own (its fans, PSUs and drives are still cooled by the room's air) does."""
        card = gpu.max_inlet_c if self.cooling == "air" else math.inf
        return min(card, self.max_inlet_c, self.inlet_limits.get(gpu.id, math.inf))

    def coolant_fault(self, coolant_c: float | None) -> str | None:
        """Why the site's coolant supply cannot cool this chassis (None: it can, or it is air-cooled)."""
        if self.cooling == "air":
            return None
        if coolant_c is None:
            return "the site has no coolant supply (site.coolant_c)"
        if self.coolant_max_c is not None and coolant_c > self.coolant_max_c:
            return f"coolant of {coolant_c:g} °C is warmer than its {self.coolant_max_c:g} °C"
        return None

    def fits(self, cpu: Cpu) -> bool:
        """Whether the CPU fits the chassis' sockets and its cooling."""
        return cpu.socket == self.cpu_socket and cpu.tdp_w <= self.max_cpu_tdp_w

    def carries(self, nic: Nic) -> bool:
        """Whether the NIC slots carry the card's whole host link: ftopt plans NICs at line rate only,
        so an 800G PCIe Gen6 NIC goes only where its slots are Gen6 (a Gen5 slot would halve it)."""
        return bool(self.nic_slots) and nic.pcie_gbps <= self.nic_slot_gbps

    def takes(self, gpu: Gpu) -> bool:
        """Whether this chassis holds the card: listed, or any PCIe card when none are listed."""
        return gpu.id in self.gpus if self.gpus is not None else gpu.form == "pcie"


class Feed(_Item):
    """The power feed at one rack position; a server must run from one side of an A/B pair."""

    volts: float = Field(gt=0, description="line-to-line volts for three-phase")
    amps: float = Field(gt=0, description="breaker rating")
    phases: Literal[1, 3] = Field(description="1 or 3")
    derating: float = Field(default=0.8, gt=0, le=1, description="share planned for continuous load")

    @property
    def usable_w(self) -> int:
        """Watts a server may draw: V × A (× √3 for three phases) × derating, rounded down."""
        factor = math.sqrt(3) if self.phases == 3 else 1.0
        return int(self.volts * self.amps * factor * self.derating)


#: The network technology a NIC speaks or a switch is built for. Not `Fabric`: that name is the
#: plan's network section (`ftopt.model.plan.Fabric`).
FabricProtocol = Literal["infiniband", "ethernet"]


class Nic(_Item):
    """A network card for the GPU fabric (east-west), in a PCIe Gen5 x16 NIC slot."""

    ports: int = Field(gt=0, description="network ports")
    port_gbits: int = Field(gt=0, description="line rate per port, Gb/s")
    connector: str = Field(min_length=1, description="cage: OSFP, QSFP112, ...")
    fabrics: tuple[FabricProtocol, ...] = Field(min_length=1, description="InfiniBand, Ethernet or both")
    pcie_gbps: float = Field(gt=0, description="host link GB/s, both directions summed")
    power_w: float = Field(gt=0, description="card power at full load, without optics")


class Switch(_Item):
    """A leaf or spine switch of the GPU fabric."""

    fabric: FabricProtocol = Field(description="InfiniBand or Ethernet")
    ports: int = Field(gt=0, description="ports at port_gbits (after breakout where noted)")
    port_gbits: int = Field(gt=0, description="line rate per port, Gb/s")
    cages: int = Field(gt=0, description="physical cages on the front panel")
    rack_units: int = Field(gt=0, description="height, U")
    power_w: float = Field(gt=0, description="power at full load without optics")


class Cable(_Item):
    """A link between a NIC and a switch or between two switches: a DAC, an AOC or a transceiver."""

    kind: Literal["dac", "acc", "aoc", "transceiver"] = Field(description="copper, active copper, AOC")
    gbits: int = Field(gt=0, description="line rate of one link, Gb/s")
    links: int = Field(default=1, gt=0, description="links one unit carries (2 for a twin-port OSFP)")
    reach_m: float = Field(gt=0, description="longest supported length, m")
    power_w: float = Field(ge=0, description="power per unit (both ends), W")
    joins: Literal["switch-nic", "switch-switch"] | None = Field(
        default=None,
        description="what a whole unit joins, end to end (multi-node fabrics); None: one end of an "
        "optical link (a transceiver), not chosen by the fabric sizing",
    )


class CatalogueModel(_Item):
    """A base model with its architecture."""

    architecture: Architecture = Field(description="layers, widths, heads, vocabulary")

    @property
    def params(self) -> ParamCounts:
        """Exact parameter counts."""
        return count_params(self.architecture)


class Price(BaseModel):
    """An indicative price of one catalogue item."""

    model_config = _FROZEN
    item: str = Field(description="catalogue id of the priced item")
    amount: float = Field(ge=0, description="price of one unit")
    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code")
    date: DateText = Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$", description="when the price was seen")
    source: str = Field(min_length=1, description="where it was seen, or why it is an assumption")
    assumption: bool = Field(default=False, description="no public price found: a stated guess")
    stock: int | None = Field(
        default=None, ge=0, le=1_000_000, description="units available to buy; none given: unlimited"
    )
    lead_weeks: float | None = Field(
        default=None, ge=0, le=520, description="weeks from order to delivery; none given: in time"
    )


class Rules(BaseModel):
    """The host and site rules every build must meet (docs/design.md, Sizing; sources in rules.yaml)."""

    model_config = _FROZEN
    cores_per_gpu: int = Field(gt=0, description="physical cores per GPU")
    host_ram_per_gpu_memory: float = Field(gt=0, description="system memory ≥ this × GPU memory")
    host_ram_reserve_gb: float = Field(ge=0, description="kept free beside offloaded states")
    data_tb_per_socket: float = Field(ge=0, description="training NVMe per socket at least")
    sources: tuple[str, ...] = Field(default=(), description="where the rules come from")


Kind = Literal[
    "gpus",
    "bridges",
    "cpus",
    "dimms",
    "drives",
    "chassis",
    "feeds",
    "models",
    "stacks",
    "nics",
    "switches",
    "cables",
]
#: The kinds of catalogue item, in the order the catalogue lists them (the loader reads one file of
#: each, plus prices; `ftopt catalogue` shows them).
ITEM_KINDS: tuple[Kind, ...] = (
    "gpus",
    "bridges",
    "cpus",
    "dimms",
    "drives",
    "chassis",
    "feeds",
    "models",
    "nics",
    "switches",
    "cables",
)
PRICED: tuple[Kind, ...] = (
    "gpus",
    "bridges",
    "cpus",
    "dimms",
    "drives",
    "chassis",
    "nics",
    "switches",
    "cables",
)
#: Kinds a price entry may give `stock` for: the parts a server's build fixes (ftopt counts them per
#: server in its model); memory and drives come in tiers chosen per server, which it does not count.
STOCKED: tuple[Kind, ...] = ("gpus", "bridges", "cpus", "chassis", "nics")


ItemT = TypeVar("ItemT", bound=BaseModel)


class CatalogueOrigin(BaseModel):
    """Where the catalogue in use came from, so a quote can name it and say whose its prices are.

    `bundled`: the packaged files, whose prices are indicative; `vendor`: a vendor's directory
    (`--catalogue DIR`) merged over them, named with a hash of its files' contents so two quotes
    from different copies of "the same" directory can be told apart. `price_list` names a user's
    `--prices` file laid over either.
    """

    model_config = _FROZEN
    kind: Literal["bundled", "vendor"] = Field(default="bundled", description="packaged, or a vendor's")
    directory: str | None = Field(default=None, description="the vendor's catalogue directory")
    content_hash: str | None = Field(default=None, description="sha256 of its files, first 12 hex digits")
    vendor_prices: bool = Field(default=False, description="the directory gives its own prices.yaml")
    price_list: str | None = Field(default=None, description="a --prices file laid over the catalogue")


class Catalogue(BaseModel):
    """Everything ftopt may build from, with prices; references between items are checked here."""

    model_config = _FROZEN
    gpus: tuple[Gpu, ...]
    bridges: tuple[Bridge, ...]
    cpus: tuple[Cpu, ...]
    dimms: tuple[Dimm, ...]
    drives: tuple[Drive, ...]
    chassis: tuple[Chassis, ...]
    feeds: tuple[Feed, ...]
    models: tuple[CatalogueModel, ...]
    prices: tuple[Price, ...]
    rules: Rules
    # The training methods and algorithms (methods.yaml): what each means for memory, time, choices.
    methods: MethodRegistry
    # The rollout model's constants (rollout.yaml) and the public cloud rates for buy-or-rent
    # (cloud.yaml): catalogue data like the rest, so a vendor's directory may replace them.
    rollout: RolloutConstants
    cloud: CloudPrices
    stacks: tuple[Stack, ...] = ()
    speed: SpeedConstants | None = None
    # Planning memory margins per stack and method (issue 19): margins.yaml, from the calibration.
    margins: MemoryMargins | None = None
    # Interruptions per GPU-hour and restart time (issue 28, item 5): reliability.yaml.
    reliability: Reliability | None = None
    # The speed model's P50/P90 hours factors per stack (issue 28, item 4): spread.yaml, from the
    # calibration's held-out throughput points.
    spread: Spread | None = None
    # The fabric for multi-node plans (issue 14): ftopt/model/fabric.py, ftopt/solver/problem/multinode.py.
    nics: tuple[Nic, ...] = ()
    switches: tuple[Switch, ...] = ()
    cables: tuple[Cable, ...] = ()
    # Each rule family's own data file (families/<name>.yaml): its site.policy fields and items.
    families: dict[str, FamilyData] = Field(default_factory=dict)
    # Where the files came from (issue 26): named in every quote; not part of an export.
    origin: CatalogueOrigin = Field(default_factory=CatalogueOrigin, exclude=True)
    # Lookups by id, built on first use: plain dicts in a private attribute, so the catalogue
    # pickles (process pools and Ray ship it to workers) and equality ignores the cache.
    _lookups: dict[Kind, dict[str, BaseModel]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _references_resolve(self) -> Catalogue:
        """Every reference between items names an item that exists, so that a plan never meets an
        unknown id; the checks run in a fixed order and the first failure is the one reported."""
        ids = self._kinds_by_id()
        self._cards_exist()
        self._prices_match_items(ids)
        self._stacks_unique()
        self._stacks_cover_their_cards()
        if not any(d.role == "boot" for d in self.drives):
            raise ValueError("the catalogue needs a boot drive")
        self._stock_on_build_parts(ids)
        return self

    def _kinds_by_id(self) -> dict[str, str]:
        """Each id's kind: ids are unique across kinds, since prices and plans name items by id only."""
        ids: dict[str, str] = {}
        for kind in (*PRICED, "feeds", "models"):
            for item in getattr(self, kind):
                if item.id in ids:
                    raise ValueError(f"id {item.id!r} is used by both {ids[item.id]} and {kind}")
                ids[item.id] = kind
        return ids

    def _cards_exist(self) -> None:
        """Bridges and chassis name cards of this catalogue (a chassis's card list and inlet limits)."""
        gpu_ids = {g.id for g in self.gpus}
        for bridge in self.bridges:
            if bridge.gpu not in gpu_ids:
                raise ValueError(f"bridge {bridge.id!r}: card {bridge.gpu!r} is not in the catalogue")
        for chassis in self.chassis:
            for gpu_id in (*(chassis.gpus or ()), *chassis.inlet_limits):
                if gpu_id not in gpu_ids:
                    raise ValueError(f"chassis {chassis.id!r}: card {gpu_id!r} is not in the catalogue")

    def _prices_match_items(self, ids: dict[str, str]) -> None:
        """Each price names a priced item, each priced item has a price, all in one currency: the
        bill of materials sums them."""
        priced = {p.item for p in self.prices}
        for price in self.prices:
            if ids.get(price.item) not in PRICED:
                raise ValueError(f"price for {price.item!r}: no such priced item in the catalogue")
        for kind in PRICED:
            for item in getattr(self, kind):
                if item.id not in priced:
                    raise ValueError(f"{kind} {item.id!r} has no price")
        currencies = {p.currency for p in self.prices}
        if len(currencies) > 1:
            raise ValueError(f"prices mix currencies {sorted(currencies)}; use one price list currency")

    def _stacks_unique(self) -> None:
        """A workload names its stack by id, so one id means one stack."""
        stack_ids = [s.id for s in self.stacks]
        if len(stack_ids) != len(set(stack_ids)):
            raise ValueError("stacks: each stack id may appear once")

    def _stock_on_build_parts(self, ids: dict[str, str]) -> None:
        """Stock limits only the parts fixed by a server's build; memory and drives are bought freely."""
        for price in self.prices:
            if price.stock is not None and ids.get(price.item) not in STOCKED:
                raise ValueError(
                    f"price for {price.item!r}: stock applies to chassis, cards, CPUs, bridges and NICs "
                    "(the parts fixed by a server's build), not to memory or drives"
                )

    def _stacks_cover_their_cards(self) -> None:
        """A stack that targets a card's platform knows its speed there (an MFU for its class)."""
        for stack in self.stacks:
            for gpu in self.gpus:
                if gpu.platform in stack.platforms and gpu.card_class not in stack.mfu:
                    raise ValueError(f"stack {stack.id!r} runs on {gpu.platform}: no MFU for {gpu.id}")

    def arriving_within(self, weeks: float | None) -> Catalogue:
        """The catalogue without the items whose lead time is longer than `weeks` (all of them
        when `weeks` is None). Their prices stay, so plans made earlier still price their parts."""
        late = {p.item for p in self.prices if weeks is not None and (p.lead_weeks or 0) > weeks}
        if not late:
            return self
        update: dict[str, Any] = {
            kind: tuple(i for i in getattr(self, kind) if i.id not in late) for kind in PRICED
        }
        kept = self.model_copy(update=update)
        kept._lookups = {}  # the copy shares the original's cache, which still holds the late items
        return kept

    def stock(self, item_id: str) -> int | None:
        """Units of an item the price list says are available; None when unlimited."""
        return next((p.stock for p in self.prices if p.item == item_id), None)

    def __eq__(self, other: object) -> bool:
        """Equal when every field is: the lookup cache is no part of a catalogue's value."""
        if not isinstance(other, Catalogue):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in type(self).model_fields)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, k) for k in type(self).model_fields))

    def _get(self, kind: Kind, item_id: str, cls: type[ItemT]) -> ItemT:
        """The item of `kind` with this id (KeyError if absent), typed as `cls`."""
        item = self._index(kind)[item_id]
        if not isinstance(item, cls):  # unreachable: each kind holds one type
            raise TypeError(f"{kind} {item_id!r} is a {type(item).__name__}, not a {cls.__name__}")
        return item

    def _index(self, kind: Kind) -> dict[str, BaseModel]:
        """Items of one kind by id (callers only read it)."""
        cache = self._lookups
        if kind not in cache:
            cache[kind] = {item.id: item for item in getattr(self, kind)}
        return cache[kind]

    def gpu(self, gpu_id: str) -> Gpu:
        """The card with this id (KeyError if absent)."""
        return self._get("gpus", gpu_id, Gpu)

    def cpu(self, cpu_id: str) -> Cpu:
        """The processor with this id."""
        return self._get("cpus", cpu_id, Cpu)

    def dimm(self, dimm_id: str) -> Dimm:
        """The DIMM with this id."""
        return self._get("dimms", dimm_id, Dimm)

    def drive(self, drive_id: str) -> Drive:
        """The drive with this id."""
        return self._get("drives", drive_id, Drive)

    def chassis_by_id(self, chassis_id: str) -> Chassis:
        """The chassis with this id."""
        return self._get("chassis", chassis_id, Chassis)

    def feed(self, feed_id: str) -> Feed:
        """The feed with this id."""
        return self._get("feeds", feed_id, Feed)

    def model(self, model_id: str) -> CatalogueModel:
        """The base model with this id."""
        return self._get("models", model_id, CatalogueModel)

    def stack(self, stack_id: str) -> Stack:
        """The training stack with this id."""
        return self._get("stacks", stack_id, Stack)

    def nic(self, nic_id: str) -> Nic:
        """The network card with this id."""
        return self._get("nics", nic_id, Nic)

    def switch(self, switch_id: str) -> Switch:
        """The fabric switch with this id."""
        return self._get("switches", switch_id, Switch)

    def cable(self, cable_id: str) -> Cable:
        """The cable or transceiver with this id."""
        return self._get("cables", cable_id, Cable)

    def has(self, kind: Kind, item_id: str) -> bool:
        """Whether an item of this kind and id exists."""
        return item_id in self._index(kind)

    def ids(self, kind: Kind) -> tuple[str, ...]:
        """All ids of one kind, in catalogue order."""
        return tuple(self._index(kind))

    def policy_fields(self) -> dict[str, tuple[str, PolicyField]]:
        """Every `site.policy` field the rule families' data files declare, with its family."""
        families = self.families.items()
        return {name: (family, f) for family, data in families for name, f in data.fields.items()}

    def price(self, item_id: str) -> Price:
        """The price entry of an item."""
        for price in self.prices:
            if price.item == item_id:
                return price
        raise KeyError(item_id)

    def bridge_for(self, gpu_id: str, size: int) -> Bridge | None:
        """The bridge joining `size` cards of this model, if the catalogue has one."""
        return next((b for b in self.bridges if b.gpu == gpu_id and b.size == size), None)

    @property
    def currency(self) -> str:
        """The price list's currency."""
        return self.prices[0].currency

    def with_prices(self, overlay: tuple[Price, ...]) -> Catalogue:
        """A copy whose prices are replaced, item by item, by `overlay` (a user's price list)."""
        replaced = {p.item: p for p in self.prices} | {p.item: p for p in overlay}
        return Catalogue.model_validate(
            {
                **{k: getattr(self, k) for k in type(self).model_fields},
                "prices": tuple(replaced.values()),
            }
        )
