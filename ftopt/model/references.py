"""Which catalogue ids a workload names that the catalogue does not hold, and which cards it allows.

Why here and not only in the file loader: a library caller builds a `Workload` in code and hands it
to `solve` with a catalogue of its choosing; the same check must run there, and the file loader adds
the line numbers it alone knows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.hardware import Catalogue, Gpu, Kind
from ftopt.model.methods import MethodRegistry
from ftopt.model.stack import Stack
from ftopt.model.workload import FULL_METHOD, Algorithm, Offload, Run, Workload

#: What an UnknownReference names when the stack exists but runs on none of the allowed cards.
OFF_PLATFORM = "stack for the allowed cards"
#: What an UnknownReference names when a run asks for CPU offload under a method whose registry
#: entry does not offer it (`offers.cpu_offload`); its `known` are the methods that do.
NO_OFFLOAD = "method for offload cpu"
#: What an UnknownReference names when a `site.policy` value is not one its field takes; its one
#: `known` says what the field takes (a rule family's data file declares the field).
BAD_POLICY = "site policy value"


@dataclass(frozen=True)
class UnknownReference:
    """An id the workload names at `loc` that the catalogue lacks, with the ids it would accept."""

    loc: tuple[str | int, ...]
    what: str
    value: str
    known: tuple[str, ...]

    @property
    def field(self) -> str:
        """The field path as a person writes it: `runs[0].model`."""
        path = ""
        for part in self.loc:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
        return path


def unknown_references(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """Every model, feed, stack, card and chassis id of the workload that the catalogue does not hold."""
    found = _unknown_models(workload, catalogue, "model")
    found += _unknown_models(workload, catalogue, "reward_model")
    found += _unknown_methods(workload, catalogue)
    found += _unknown_feeds(workload, catalogue)
    found += _unknown_owned_parts(workload, catalogue)
    if catalogue.stacks:  # without stack data in the catalogue, no stack id can be checked
        found += _unknown_stacks(workload, catalogue)
        found += _stacks_off_platform(workload, catalogue)
    found += _unknown_hardware(workload, catalogue)
    found += _policy_faults(workload, catalogue)
    return found


def _unknown_models(workload: Workload, catalogue: Catalogue, field: str) -> list[UnknownReference]:
    """Runs whose `field` (model or reward_model) names a catalogue model the catalogue lacks; a
    model given inline (a mapping, not an id) needs no catalogue entry."""
    return [
        UnknownReference(("runs", i, field), "model", model, catalogue.ids("models"))
        for i, run in enumerate(workload.runs)
        if isinstance(model := getattr(run, field), str) and not catalogue.has("models", model)
    ]


def _unknown_methods(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """Runs whose method (an RL run's adapter) the catalogue's method registry lacks, or whose
    method does not offer the CPU offload the run asks for. The registry, not an enum, says which
    methods exist, so that a vendor's methods.yaml or a new entry adds one without code."""
    found = [_method_fault(i, run, catalogue.methods) for i, run in enumerate(workload.runs)]
    return [f for f in found if f is not None]


def _method_fault(i: int, run: Run, registry: MethodRegistry) -> UnknownReference | None:
    """The first thing wrong with run `i`'s method: unknown, or asked for an optimiser or an offload
    its entry does not offer."""
    return _unknown_method(i, run, registry) or _not_offered(i, run, registry)


def _unknown_method(i: int, run: Run, registry: MethodRegistry) -> UnknownReference | None:
    """A method (an RL run's adapter) the registry lacks."""
    rl = run.algorithm != Algorithm.SFT
    # An RL run's `adapter: none` arrives as the full method; its other adapters train one.
    known = registry.ids if not rl else ("none", *(m.id for m in registry.methods if not m.full))
    if run.method in known or (rl and run.method == FULL_METHOD):
        return None
    what = "adapter" if rl else "method"
    return UnknownReference(("runs", i, what), what, run.method, known)


def _not_offered(i: int, run: Run, registry: MethodRegistry) -> UnknownReference | None:
    """An optimiser or a CPU offload the run's (known) method does not offer."""
    offers = registry.method(run.method).offers
    if run.optimizer != "auto" and not offers.allows(run.optimizer):
        allowed = tuple(str(o) for o in offers.optimizers or ())
        what = f"optimizer for method {run.method}"
        return UnknownReference(("runs", i, "optimizer"), what, str(run.optimizer), allowed)
    if run.offload == Offload.CPU and not offers.cpu_offload:
        offering = tuple(m.id for m in registry.methods if m.offers.cpu_offload)
        return UnknownReference(("runs", i, "offload"), NO_OFFLOAD, run.method, offering)
    return None


def _unknown_stacks(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """The workload's stack first (a run without its own inherits it), then each run's own."""
    known = catalogue.ids("stacks")
    found = (
        []
        if catalogue.has("stacks", workload.stack)
        else [UnknownReference(("stack",), "stack", workload.stack, known)]
    )
    return found + [
        UnknownReference(("runs", i, "stack"), "stack", run.stack, known)
        for i, run in enumerate(workload.runs)
        if run.stack is not None and not catalogue.has("stacks", run.stack)
    ]


def _unknown_hardware(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """The cards, then the chassis, that `hardware:` limits the bid to and the catalogue lacks."""
    limits: tuple[tuple[Kind, str, tuple[str, ...] | None], ...] = (
        ("gpus", "card", workload.hardware.gpus),
        ("chassis", "chassis", workload.hardware.chassis),
    )
    return [
        UnknownReference(("hardware", kind, i), what, item, catalogue.ids(kind))
        for kind, what, ids in limits
        for i, item in enumerate(ids or ())
        if not catalogue.has(kind, item)
    ]


def _policy_faults(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """`site.policy` keys no rule family's data file declares, and values their field does not take."""
    declared = catalogue.policy_fields()
    found = []
    for key, value in workload.site.policy.items():
        loc = ("site", "policy", key)
        if key not in declared:
            found.append(UnknownReference(loc, "site policy", key, tuple(declared)))
            continue
        family, field = declared[key]
        problem = field.problem(value, catalogue.families[family].ids)
        if problem is not None:
            found.append(UnknownReference(loc, BAD_POLICY, str(value), (problem,)))
    return found


#: The parts of an owned server (inventory entry field → catalogue kind and what it is called).
OWNED_PARTS: tuple[tuple[str, Kind, str], ...] = (
    ("chassis", "chassis", "chassis"),
    ("gpu", "gpus", "card"),
    ("cpu", "cpus", "CPU"),
    ("dimm", "dimms", "DIMM"),
    ("data_drive", "drives", "drive"),
    ("boot_drive", "drives", "drive"),
    ("bridge", "bridges", "bridge"),
    ("nic", "nics", "NIC"),
)


def _unknown_owned_parts(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """Every part id of an owned server (the workload's inventory) the catalogue lacks."""
    return [
        UnknownReference(("inventory", i, field), what, value, catalogue.ids(kind))
        for i, entry in enumerate(workload.inventory)
        for field, kind, what in OWNED_PARTS
        if (value := getattr(entry, field)) is not None and not catalogue.has(kind, value)
    ]


def _unknown_feeds(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """The site's feed, or every circuit of every rack, that the catalogue lacks."""
    site, known = workload.site, catalogue.ids("feeds")
    if site.racks is None:
        ok = catalogue.has("feeds", site.feed)
        return [] if ok else [UnknownReference(("site", "feed"), "feed", site.feed, known)]
    return [
        UnknownReference(("site", "racks", i, "feeds", j), "feed", feed, known)
        for i, rack in enumerate(site.racks)
        for j, feed in enumerate(rack.feeds)
        if not catalogue.has("feeds", feed)
    ]


def _stacks_off_platform(workload: Workload, catalogue: Catalogue) -> list[UnknownReference]:
    """Runs whose stack targets none of the allowed cards' platforms (a CUDA stack when only AMD
    Instinct cards are allowed): no plan could train them, which is the workload's mistake."""
    cards = allowed_gpus(catalogue, workload)
    if not cards:
        return []
    fitting = tuple(s.id for s in catalogue.stacks if _runs_on_any(s, cards))
    found = []
    for i, run in enumerate(workload.runs):
        stack_id = run.stack or workload.stack
        if not catalogue.has("stacks", stack_id) or _runs_on_any(catalogue.stack(stack_id), cards):
            continue
        loc: tuple[str | int, ...] = ("runs", i, "stack") if run.stack else ("stack",)
        found.append(UnknownReference(loc, OFF_PLATFORM, stack_id, fitting))
    return found


def _runs_on_any(stack: Stack, cards: list[Gpu]) -> bool:
    """Whether the stack trains on at least one of the cards (their platform and class)."""
    return any(stack.runs_on(g.platform, g.card_class) for g in cards)


def allowed_gpus(catalogue: Catalogue, workload: Workload) -> list[Gpu]:
    """Cards the workload's `hardware.gpus` allows (every card when it names none), in catalogue
    order: the one filter the solver's training modes and `ftopt estimate` share."""
    ids = workload.hardware.gpus
    return [g for g in catalogue.gpus if ids is None or g.id in ids]
