"""GPU slices (MIG): the instances a card may be split into, and the card one slice amounts to.

A card that supports Multi-Instance GPU may be split into instances of the profiles its vendor
lists, and only in the combinations the vendor lists (NVIDIA's MIG user guide gives the valid
placements per card; a free packing of compute and memory slices would admit layouts the driver
refuses). Each instance has its share of memory, of compute (the profile's compute slices of the
card's) and of memory bandwidth (its memory slices), and no NVLink or peer link to another GPU.
`slice_card` turns one instance into a `Gpu` with those shares, so that sizing and the speed model
read a slice exactly as they read a card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Protocol, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class MigProfile(BaseModel):
    """One instance profile of a card, e.g. 1g.24gb: its memory and its compute and memory slices."""

    model_config = _FROZEN
    name: str = Field(pattern=r"^[0-9]+g\.[0-9]+gb$", description="NVIDIA's profile name, e.g. 1g.24gb")
    memory_gb: float = Field(gt=0, description="instance memory, GB")
    compute_slices: int = Field(ge=1, description="compute slices (SM groups) of the card's")
    memory_slices: int = Field(ge=1, description="memory slices of the card's")
    max_count: int = Field(ge=1, description="most instances of this profile on one card")


def _over_count(layout: tuple[str, ...], names: dict[str, MigProfile]) -> bool:
    """Whether a layout holds more instances of a profile than the card allows of it."""
    return any(c > names[n].max_count for n, c in Counter(layout).items())


def _slices(used: list[MigProfile]) -> tuple[int, int]:
    """The compute and memory slices a layout's instances take together."""
    return sum(p.compute_slices for p in used), sum(p.memory_slices for p in used)


class Mig(BaseModel):
    """A card's MIG support: its slices, its profiles and the layouts the vendor lists as valid."""

    model_config = _FROZEN
    compute_slices: int = Field(ge=1, description="compute slices of the whole card (7, or 4 on RTX PRO)")
    memory_slices: int = Field(ge=1, description="memory slices of the whole card (8, or 4 on RTX PRO)")
    profiles: tuple[MigProfile, ...] = Field(min_length=1, description="instance profiles")
    layouts: tuple[tuple[str, ...], ...] = Field(
        min_length=1, description="valid layouts: each the profile names of one card's instances"
    )

    @model_validator(mode="after")
    def _layouts_fit(self) -> Mig:
        """Each listed layout names known profiles and fits the card: a layout the card cannot hold
        would let the solver build a server the driver refuses."""
        for layout in self.layouts:
            problem = self._layout_problem(layout)
            if problem:
                raise ValueError(f"@layouts: {list(layout)} {problem}")
        return self

    def _layout_problem(self, layout: tuple[str, ...]) -> str | None:
        """What is wrong with one layout, or None: unknown profiles first, then counts and compute
        slices, then memory slices."""
        names = {p.name: p for p in self.profiles}
        unknown = [n for n in layout if n not in names]
        if unknown or not layout:
            return f"names no profile or unknown ones {unknown}"
        compute, memory = _slices([names[n] for n in layout])
        if _over_count(layout, names) or compute > self.compute_slices:
            return "exceeds the card's slices or a profile's count"
        if memory > self.memory_slices:
            return "exceeds the card's memory slices"
        return None

    def profile(self, name: str) -> MigProfile | None:
        """The profile of this name, None when the card has none."""
        return next((p for p in self.profiles if p.name == name), None)

    def valid(self, profiles: list[str]) -> bool:
        """Whether one card's instances are a listed layout or part of one (instances left uncreated
        are allowed: the driver creates what is asked within a valid placement)."""
        wanted = Counter(profiles)
        return any(not wanted - Counter(layout) for layout in self.layouts)

    def compute_share(self, name: str) -> float:
        """The share of the card's compute (and so of its power) one instance of this profile has;
        1 for a name the card lacks (other rules report it)."""
        profile = self.profile(name)
        return profile.compute_slices / self.compute_slices if profile else 1.0

    def uniform_layouts(self) -> list[tuple[MigProfile, int]]:
        """Each profile with the most instances of it alone that a listed layout holds, for profiles
        that split the card in two or more: the layouts a server of sliced cards is built with."""
        found = []
        for p in self.profiles:
            count = max(Counter(layout)[p.name] for layout in self.layouts)
            if count >= 2:
                found.append((p, count))
        return found


class _Card(Protocol):
    """What `slice_card` reads of a card (`ftopt.model.hardware.Gpu`, which imports this module)."""

    @property
    def id(self) -> str: ...
    @property
    def mig(self) -> Mig | None: ...
    @property
    def bf16_dense_tflops(self) -> float: ...
    @property
    def fp8_dense_tflops(self) -> float | None: ...
    @property
    def memory_bandwidth_gbps(self) -> float: ...
    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


Card = TypeVar("Card", bound=_Card)


def slice_card(gpu: Card, profile: MigProfile) -> Card:
    """The card one instance amounts to: the profile's memory, its compute share of the peaks, its
    memory-slice share of the bandwidth, and no NVLink (same id, power and host link as the card)."""
    if gpu.mig is None:
        raise ValueError(f"{gpu.id} has no MIG profiles")
    compute = profile.compute_slices / gpu.mig.compute_slices
    memory = profile.memory_slices / gpu.mig.memory_slices
    return gpu.model_copy(
        update={
            "memory_gb": profile.memory_gb,
            "bf16_dense_tflops": gpu.bf16_dense_tflops * compute,
            "fp8_dense_tflops": gpu.fp8_dense_tflops * compute if gpu.fp8_dense_tflops else None,
            "memory_bandwidth_gbps": gpu.memory_bandwidth_gbps * memory,
            "nvlink": None,
        }
    )
