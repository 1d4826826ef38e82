"""The hardware catalogue's types: cards, bridges, CPUs, DIMMs, drives, chassis, feeds, models, prices.

Each item validates its own fields; `Catalogue` checks the references between items (a bridge's
card, a price's item) and exposes read-only lookups. Prices are data: every entry carries amount,
currency, date and source, and a user's price list replaces entries by item id.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from ftopt.model.architecture import Architecture, ParamCounts, count_params
from ftopt.model.stack import CardClass, SpeedConstants, Stack

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class _Item(BaseModel):
    model_config = _FROZEN
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", description="lowercase catalogue id")
    name: str = Field(min_length=1, description="what a person calls it")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")


class NvLink(BaseModel):
    """NVLink bridges a card accepts."""

    model_config = _FROZEN
    bandwidth_gbps: float = Field(gt=0, description="GB/s per GPU, both directions summed")
    bridge_sizes: tuple[int, ...] = Field(min_length=1, description="cards one bridge joins")


class Gpu(_Item):
    """A PCIe accelerator card."""

    memory_gb: float = Field(gt=0, description="card memory, GB = 1e9 bytes")
    power_w: int = Field(gt=0, description="board power at full load")
    power_caps_w: tuple[int, ...] = Field(default=(), description="lower caps the card accepts")
    pcie_gbps: float = Field(gt=0, description="host link, GB/s both directions summed")
    nvlink: NvLink | None = Field(default=None, description="NVLink bridges, if any")
    bf16_dense_tflops: float = Field(gt=0, description="dense BF16 tensor peak")
    fp8_dense_tflops: float | None = Field(default=None, gt=0, description="dense FP8 peak, if any")
    memory_bandwidth_gbps: float = Field(gt=0, description="card memory bandwidth, GB/s")
    card_class: CardClass = Field(description="speed class: hbm (data-centre) or gddr (workstation)")
    max_inlet_c: float = Field(description="warmest inlet the servers accept with this card")

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


class Dimm(_Item):
    """A registered DDR5 module."""

    gb: int = Field(gt=0, description="capacity, GB")


class Drive(_Item):
    """An NVMe drive, for training data or booting."""

    tb: float = Field(gt=0, description="capacity, TB = 1e12 bytes")
    role: Literal["data", "boot"] = Field(description="data drives hold checkpoints; one boot drive")


class Chassis(_Item):
    """A GPU server chassis with two sockets."""

    gpu_slots: int = Field(gt=0, description="double-width PCIe card slots")
    sockets: int = Field(default=2, gt=0, description="CPU sockets")
    dimm_slots: int = Field(gt=0, description="DIMM slots (one per channel)")
    drive_bays: int = Field(gt=0, description="NVMe bays for data drives")
    max_cpu_tdp_w: int = Field(gt=0, description="hottest CPU the chassis cools")
    max_inlet_c: float = Field(description="warmest inlet the chassis accepts with any card")


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
    date: str = Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$", description="when the price was seen")
    source: str = Field(min_length=1, description="where it was seen, or why it is an assumption")
    assumption: bool = Field(default=False, description="no public price found: a stated guess")


class Rules(BaseModel):
    """The host and site rules every build must meet (docs/design.md, Sizing; sources in rules.yaml)."""

    model_config = _FROZEN
    cores_per_gpu: int = Field(gt=0, description="physical cores per GPU")
    host_ram_per_gpu_memory: float = Field(gt=0, description="system memory ≥ this × GPU memory")
    host_ram_reserve_gb: float = Field(ge=0, description="kept free beside offloaded states")
    data_tb_per_socket: float = Field(ge=0, description="training NVMe per socket at least")
    power_overhead: float = Field(ge=0, description="memory, drives, NICs, fans, conversion")
    sources: tuple[str, ...] = Field(default=(), description="where the rules come from")


Kind = Literal["gpus", "bridges", "cpus", "dimms", "drives", "chassis", "feeds", "models", "stacks"]
PRICED: tuple[Kind, ...] = ("gpus", "bridges", "cpus", "dimms", "drives", "chassis")


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
    stacks: tuple[Stack, ...] = ()
    speed: SpeedConstants | None = None
    # Lookups by id, built on first use: plain dicts in a private attribute, so the catalogue
    # pickles (process pools and Ray ship it to workers) and equality ignores the cache.
    _lookups: dict[Kind, dict[str, BaseModel]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _references_resolve(self) -> Catalogue:
        ids: dict[str, str] = {}
        for kind in (*PRICED, "feeds", "models"):
            for item in getattr(self, kind):
                if item.id in ids:
                    raise ValueError(f"id {item.id!r} is used by both {ids[item.id]} and {kind}")
                ids[item.id] = kind
        gpu_ids = {g.id for g in self.gpus}
        for bridge in self.bridges:
            if bridge.gpu not in gpu_ids:
                raise ValueError(f"bridge {bridge.id!r}: card {bridge.gpu!r} is not in the catalogue")
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
        stack_ids = [s.id for s in self.stacks]
        if len(stack_ids) != len(set(stack_ids)):
            raise ValueError("stacks: each stack id may appear once")
        if not any(d.role == "boot" for d in self.drives):
            raise ValueError("the catalogue needs a boot drive")
        return self

    def __eq__(self, other: object) -> bool:
        """Equal when every field is: the lookup cache is no part of a catalogue's value."""
        if not isinstance(other, Catalogue):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in type(self).model_fields)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, k) for k in type(self).model_fields))

    def _index(self, kind: Kind) -> dict[str, BaseModel]:
        """Items of one kind by id (callers only read it)."""
        cache = self._lookups
        if kind not in cache:
            cache[kind] = {item.id: item for item in getattr(self, kind)}
        return cache[kind]

    def gpu(self, gpu_id: str) -> Gpu:
        """The card with this id (KeyError if absent)."""
        return self._index("gpus")[gpu_id]  # type: ignore[return-value]

    def cpu(self, cpu_id: str) -> Cpu:
        """The processor with this id."""
        return self._index("cpus")[cpu_id]  # type: ignore[return-value]

    def dimm(self, dimm_id: str) -> Dimm:
        """The DIMM with this id."""
        return self._index("dimms")[dimm_id]  # type: ignore[return-value]

    def drive(self, drive_id: str) -> Drive:
        """The drive with this id."""
        return self._index("drives")[drive_id]  # type: ignore[return-value]

    def chassis_by_id(self, chassis_id: str) -> Chassis:
        """The chassis with this id."""
        return self._index("chassis")[chassis_id]  # type: ignore[return-value]

    def feed(self, feed_id: str) -> Feed:
        """The feed with this id."""
        return self._index("feeds")[feed_id]  # type: ignore[return-value]

    def model(self, model_id: str) -> CatalogueModel:
        """The base model with this id."""
        return self._index("models")[model_id]  # type: ignore[return-value]

    def stack(self, stack_id: str) -> Stack:
        """The training stack with this id."""
        return self._index("stacks")[stack_id]  # type: ignore[return-value]

    def has(self, kind: Kind, item_id: str) -> bool:
        """Whether an item of this kind and id exists."""
        return item_id in self._index(kind)

    def ids(self, kind: Kind) -> tuple[str, ...]:
        """All ids of one kind, in catalogue order."""
        return tuple(self._index(kind))

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
