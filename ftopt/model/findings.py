"""Structured explanations: what shaped a plan, what an eased rule would save, why no plan exists.

Why records and not sentences: a quote, a sweep table and a test each want the figures (the watts
of a feed, the saving of a relaxation, the GB a run needs) without parsing prose. A `Finding` holds
its kind, its subject (a server, a run, a card, the site) and its figures; `describe` words it. The
plan's JSON carries the sentence beside the record so a reader without ftopt can still read it.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ftopt.errors import quoted
from ftopt.model.figures import figures_type

Figure = int | float | str | bool | list[int | float | str] | None


class FindingKind(StrEnum):
    """What a finding is about; the renderers and the sweep group by it."""

    # rules that shaped the plan
    POWER_CAP = "power-cap"  # the feed caps a server's cards below full power
    HOST_RAM = "host-ram"  # offloaded states, not the GPUs, sized a server's RAM
    NVME = "nvme"  # checkpoints sized a server's NVMe
    MULTI_GPU = "multi-gpu"  # memory puts each copy of a run on several cards
    SERVER_LIMIT = "server-limit"  # site.max_servers is reached
    STOCK = "stock"  # every unit of a part in stock is used
    LEAD_TIME = "lead-time"  # a part arrives after site.delivery_weeks and was left out
    OWNED = "owned"  # an owned server that cannot stand at this site or meet the rules
    INLET = "inlet"  # the room's inlet rules a card out of a chassis
    FEED = "feed"  # the feed cannot power a build even with capped cards
    SUPPLIES = "supplies"  # a chassis' redundant supplies cannot carry its cards even capped
    CHASSIS = "chassis"  # a chassis cannot take the RAM or NVMe its cards need
    RACKS = "racks"  # a chassis without a height cannot go in the site's racks
    TIGHT_MARGIN = "tight-margin"  # the workload's memory margin is below the measured error
    COOLANT = "coolant"  # the site's coolant supply cannot cool a liquid-cooled chassis
    LIQUID = "liquid"  # a rack's liquid loop is full (no room for one more liquid-cooled server)
    DEADLINE_BOUND = "deadline-bound"  # a deadline, not memory, puts each copy of a run on several cards
    DISPROPORTION = "disproportion"  # something bought costs much against what it buys (a spare)
    OFFLOAD_DISPROPORTION = "offload-disproportion"  # CPU offload saves little against the hours it adds
    RENT_DISPROPORTION = (
        "rent-disproportion"  # buying never pays off against renting, or renting dwarfs buying
    )
    FAMILY = "family"  # a rule family's own binding line, worded by the family (Family.finding)
    # what one eased rule would save
    SAVING = "saving"
    # why no plan exists
    NO_FIT = "no-fit"  # a run fits no allowed card however it is set up
    NO_SERVER = "no-server"  # a run's options fit no allowed build
    CONFLICT = "conflict"  # runs that fit alone do not fit together
    NO_CARD = "no-card"  # the workload allows no card at all
    NO_PLAN = "no-plan"  # the time limit ran out before any plan was found
    DEADLINE = "deadline"  # a run fits but no way of training it finishes by its deadline
    QUEUE_HEAVY = "queue-heavy"  # queue mode schedules light jobs only, and the peak bid has no plan
    LIQUID_SMALL = "liquid-small"  # a run fits only liquid-cooled servers, and no loop carries one
    FEASIBLE_IF = "feasible-if"  # a relaxation whose re-solve finds a plan for a bid without one
    FAMILY_REASON = "family-reason"  # a rule family's own reason a bid has no plan, worded by it
    # assumptions and defaults applied
    RULE = "rule"


#: The kinds that weigh a purchase against what it buys: the quote lists them in a block of their
#: own (`PlanSummary.weighed`), not among the rules and defaults applied.
WEIGHED = frozenset(
    {FindingKind.DISPROPORTION, FindingKind.OFFLOAD_DISPROPORTION, FindingKind.RENT_DISPROPORTION}
)


class Finding(BaseModel):
    """One explanation: kind, subject, figures, and the sentence `describe` makes of them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: FindingKind
    subject: str = Field(description="server id, run name, card id, feed id or 'site'")
    figures: dict[str, Figure] = Field(default_factory=dict, description="the numbers behind it")
    text: str = Field(default="", description="the sentence for people; filled from the figures")

    @model_validator(mode="before")
    @classmethod
    def _check_and_word(cls, data: Any) -> Any:
        """Figures must match their kind's type (ftopt.model.figures); the sentence is filled from
        them when absent. Anything not even shaped like a finding is left to the field types."""
        if not isinstance(data, dict):
            return data
        kind, subject, figures = data.get("kind"), data.get("subject"), data.get("figures", {})
        if not isinstance(kind, str) or kind not in _KINDS or not isinstance(subject, str):
            return data
        if not isinstance(figures, dict):
            return data
        _check_figures(str(kind), subject, figures)
        if not data.get("text"):
            data = {**data, "text": describe(FindingKind(kind), subject, figures)}
        return data

    def __str__(self) -> str:
        return self.text


_KINDS = frozenset(k.value for k in FindingKind)


def _check_figures(kind: str, subject: str, figures: dict[str, Any]) -> None:
    """Raise a ValueError naming the first figure that does not match the kind's type, located
    (`@figures.cap_w: …`) so that a plan's reader can name the field and its line."""
    try:
        figures_type(kind, subject).model_validate(figures)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"])
        if error["type"] == "missing":
            problem = "required figure is missing"
        elif error["type"] == "extra_forbidden":
            problem = f"unknown figure for a {kind} finding"
        else:
            wanted = str(error["msg"]).removeprefix("Input should be ")
            problem = f"expected {wanted}, got {quoted(error.get('input'))}"
        raise ValueError(f"@figures{where}: {problem}") from None


def finding(kind: FindingKind, subject: str, **figures: Any) -> Finding:
    """A finding worded from its figures."""
    return Finding(kind=kind, subject=subject, figures=figures)


def money(amount: float, currency: str = "") -> str:
    """`USD 81,840`, cents only when there are any (`USD 81,840.50`); without a currency just the
    number. The one way ftopt writes a price: findings, every renderer and the catalogue listing."""
    number = f"{amount:,.2f}" if round(amount * 100) % 100 else f"{amount:,.0f}"
    return f"{currency} {number}" if currency else number


def _power_cap(subject: str, f: dict[str, Any]) -> str:
    return (
        f"the {f['feed']} feed ({f['feed_usable_w']:,} W usable) caps the {f['gpu_count']} × {f['gpu']} "
        f"of {subject} at {f['cap_w']} W per card"
    )


def _host_ram(subject: str, f: dict[str, Any]) -> str:
    return (
        f"host RAM, not GPUs, sized {subject}: offloaded optimiser states of {', '.join(f['runs'])} "
        f"need {f['need_gb']:,.0f} GB + {f['reserve_gb']:g} GB reserve"
    )


def _nvme(subject: str, f: dict[str, Any]) -> str:
    return (
        f"checkpoints and base models ({f['need_gb']:,.0f} GB) sized the NVMe of {subject}: "
        f"{f['nvme_tb']:g} TB"
    )


def _multi_gpu(subject: str, f: dict[str, Any]) -> str:
    return (
        f"memory per GPU puts each copy of {subject} on {f['gpus']} × {f['gpu']} ({f['strategy']}): "
        f"{f['per_gpu_gb']:.1f} GB per card there"
    )


def _inlet(subject: str, f: dict[str, Any]) -> str:
    return (
        f"site inlet {f['inlet_c']:g} °C rules out {subject} in {f['chassis']} (at most {f['limit_c']:g} °C)"
    )


def _feed(subject: str, f: dict[str, Any]) -> str:
    return (
        f"the {f['feed']} feed ({f['feed_usable_w']:,} W usable) cannot power {f['gpu_count']} × {subject} "
        f"(at least {f['need_w']:,} W at {f['cap_w']} W per card)"
    )


def _supplies(subject: str, f: dict[str, Any]) -> str:
    return (
        f"the supplies of {f['chassis']} ({f['supplies']}: {f['capacity_w']:,} W with the redundant ones "
        f"failed) cannot carry {f['gpu_count']} × {subject} (at least {f['need_w']:,} W at {f['cap_w']} W "
        "per card)"
    )


def _saving(subject: str, f: dict[str, Any]) -> str:
    currency = f["currency"]
    servers, eased = f.get("servers"), f.get("eased_servers")
    count = (
        f"; {_servers(eased)} instead of {_servers(servers)}"
        if isinstance(servers, int) and isinstance(eased, int) and eased != servers
        else ""
    )
    if f["saved"] <= 0:
        return f"{subject} would change the plan at the same price{count.replace(';', ':')}"
    return (
        f"{subject} would save {money(f['saved'], currency)} ({money(f['eased_price'], currency)} "
        f"instead of {money(f['price'], currency)}{count})"
    )


def _servers(count: int) -> str:
    return f"{count} server" if count == 1 else f"{count} servers"


def _feasible_if(subject: str, f: dict[str, Any]) -> str:
    best = "proven" if f.get("eased_status") == "optimal" else "best found, not proven cheapest"
    price = money(f["eased_price"], f["currency"])
    return f"with {subject} the bid has a plan, its cheapest at {price} ({best})"


def _deadline_bound(subject: str, f: dict[str, Any]) -> str:
    fewest = f["fewest_gpus"]
    cards = "one card" if fewest == 1 else f"{fewest} cards"
    return (
        f"the deadline of {f['deadline_hours']:,.4g} h, not memory, puts each copy of {subject} on "
        f"{f['gpus']} × {f['gpu']}: its memory fits {cards}"
    )


def _hours(hours: float) -> str:
    """Hours to a tenth, and a small figure (under 0.1 h) to two significant digits, not 0.0."""
    return f"{hours:,.1f}" if hours >= 0.1 else f"{hours:.2g}"


def _disproportion(subject: str, f: dict[str, Any]) -> str:
    currency = f["currency"]
    if not f["hours_saved"]:
        return (
            f"{f['what']} {subject} cost {money(f['cost'], currency)} and save no hours at "
            f"P{round(f['confidence'] * 100)} (the whole plan costs {money(f['plan_per_hour'], currency)} "
            "per hour)"
        )
    return (
        f"{f['what']} {subject} cost {money(f['cost'], currency)} and save {_hours(f['hours_saved'])} h at "
        f"P{round(f['confidence'] * 100)}: {money(f['cost_per_hour'], currency)} per hour saved, "
        f"against {money(f['plan_per_hour'], currency)} per hour of the whole plan"
    )


def _offload_disproportion(subject: str, f: dict[str, Any]) -> str:
    currency, level = f["currency"], f"P{round(f['confidence'] * 100)}"
    cheapest = "the cheapest plan" if f["without_status"] == "optimal" else "the best plan found"
    saves = f"saves {money(f['saved'], currency)}" if f["saved"] > 0 else "saves nothing"
    return (
        f"CPU offload of {subject} {saves} against {cheapest} without it "
        f"({money(f['without_price'], currency)}, re-solved) and adds {_hours(f['hours_lost'])} h at "
        f"{level}: {money(f['saved_per_hour'], currency)} per hour it adds, against "
        f"{money(f['plan_per_hour'], currency)} per hour of the whole plan"
    )


def _rent_disproportion(subject: str, f: dict[str, Any]) -> str:
    currency = f["currency"]
    what = "the horizon's jobs" if f["queue"] else "every run"
    rent = (
        f"renting the same {f['gpu_hours']:,.1f} GPU-hours of {what} on demand costs "
        f"{money(f['rent_cost'], currency)}"
    )
    buy = money(f["purchase"], currency)
    if f["side"] == "rent":
        return f"{rent}, {f['purchase_multiple']:,.1f} × the {buy} the servers cost to buy"
    return (
        f"buying the servers costs {buy} and {rent}: the purchase pays off after "
        f"{f['workloads_to_pay_off']:,.0f} such workloads, more than the {f['workloads_in_life']:,.0f} its "
        f"servers can train back to back in {f['years']:g} year{'' if f['years'] == 1 else 's'} at "
        f"{f['utilisation']:.0%} use"
    )


def _no_fit(subject: str, f: dict[str, Any]) -> str:
    margin = float(f.get("margin") or 0.0)
    with_margin = f" with its {margin:.0%} memory margin" if margin else ""
    parts = [
        f"needs {gb:.1f} GB per GPU{with_margin} on {n} × {card} ({how}), card holds {held:g} GB"
        for card, gb, n, how, held in zip(
            f["cards"], f["need_gb"], f["gpus"], f["setup"], f["card_gb"], strict=True
        )
    ]
    hints = f["relax"]
    tail = f"; allow {' or '.join(hints)}" if hints else ""
    return f"run {subject}: " + "; ".join(parts) + tail


def _over(f: dict[str, Any]) -> str:
    """' over N servers' for a copy that spans several."""
    servers = f.get("servers") or 1
    return f" over {servers} servers" if servers > 1 else ""


def _at(f: dict[str, Any]) -> str:
    """' at P90' where the figure names the deadline confidence its hours are stated at."""
    confidence = f.get("confidence")
    return f" at P{round(confidence * 100)}" if confidence else ""


def _deadline(subject: str, f: dict[str, Any]) -> str:
    offload = ", optimiser offloaded to the CPU" if f["offload"] == "cpu" else ""
    return (
        f"run {subject} must finish within {f['deadline_hours']:,.4g} h; the fastest ftopt can reach is "
        f"{f['fastest_hours']:,.4g} h{_at(f)} on {f['gpus']} × {f['gpu']}{_over(f)} "
        f"({f['strategy']}, {f['optimizer']}{offload}{', ' + f['link'] if f.get('link') else ''}); "
        "allow more hours, more GPUs or a faster card"
    )


def _conflict(subject: str, f: dict[str, Any]) -> str:
    if f.get("racks"):
        limit = f" or more than site.max_servers = {f['max_servers']}" if f.get("max_servers") else ""
        return (
            f"runs {', '.join(f['runs'])} ({f['copies']} copies) need more than the site's racks offer "
            f"({f['racks']}){limit}"
        )
    if f.get("max_servers") is not None:
        return (
            f"runs {', '.join(f['runs'])} ({f['copies']} copies) need more than site.max_servers = "
            f"{f['max_servers']} servers on the allowed builds"
        )
    if f.get("runs"):
        return f"runs {', '.join(f['runs'])} cannot all be placed on the allowed builds"
    return "the runs cannot all be placed (no smaller conflict found in time)"


def _rule(subject: str, f: dict[str, Any]) -> str:
    """The sentence of a rule the plan was checked against, by its subject (the price assumptions
    when none matches); a version 1 plan carries its sentence and gets it back as written."""
    if "statement" in f:  # a version 1 plan's sentence, read back
        return str(f["statement"])
    return _RULE_WORDING.get(subject, _assumed_prices)(f)


def _host_rule(f: dict[str, Any]) -> str:
    return (
        f"host RAM ≥ {f['ram_per_gpu_memory']:g} × GPU memory and ≥ offloaded states + "
        f"{f['reserve_gb']:g} GB; ≥ {f['cores_per_gpu']} cores per GPU; two sockets; "
        f"≥ {f['data_tb_per_socket']:g} TB data NVMe per socket plus a boot drive"
    )


def _power_rule(f: dict[str, Any]) -> str:
    supplies = "; ".join(f.get("supplies") or [])
    return (
        "power at the wall = (cards at their setting + CPU TDP + DIMMs + drives + NICs + the "
        "chassis' fans and baseboard) / the supplies' efficiency, at most the feed's usable watts; "
        "the supplies left when the redundant ones fail carry the parts"
        + (f" ({supplies})" if supplies else "")
        + "; sharded runs stay inside one scale-up domain (NVLink, Infinity Fabric) when one holds them"
    )


def _memory_rule(f: dict[str, Any]) -> str:
    if f["states_only"]:
        return "memory per GPU: model states only (as published sizing tables count)"
    given = f.get("memory_margin")
    margin = (
        f"the workload's {given:.0%} margin"
        if given is not None
        else "each stack and method's margin (margins.yaml)"
    )
    return (
        f"memory per GPU: states + activations (Korthikanti et al., FlashAttention "
        f"{'on' if f['flash_attention'] else 'off'}) + FP32 logits + {f['cuda_context_gb']:g} GB "
        f"CUDA context + {f['allocator_reserve']:.0%} allocator reserve; a copy fits with that total "
        f"raised by {margin}"
    )


def _skipped_rule(f: dict[str, Any]) -> str:
    on = f.get("on", "on the plan itself")
    return f"{f['what']} skipped: the time limit of {f['seconds']:g} s was spent {on}"


def _spares_rule(f: dict[str, Any]) -> str:
    """Which runs have hot spares, what one buys, and the runs whose copies needed none."""
    text = (
        f"hot spare servers ({', '.join(f['runs'])}) stand beside each copy over several servers: same "
        "build, RAM, drives and NICs, on its fabric, bought and powered at full draw; a broken server's "
        f"share restarts on a spare instead of waiting {f['repair_hours']:g} h for its repair"
    )
    if f.get("one_server"):
        text += f"; {', '.join(f['one_server'])} train on one server per copy and take none"
    return text


def _assumed_prices(f: dict[str, Any]) -> str:
    return (
        f"{len(f['items'])} catalogue prices are assumptions without a public source "
        f"({', '.join(f['items'])}); overlay your own with --prices"
    )


#: A rule's sentence by its subject, from the figures the plan recorded for it.
_RULE_WORDING: dict[str, Callable[[dict[str, Any]], str]] = {
    "host": _host_rule,
    "power": _power_rule,
    "memory": _memory_rule,
    "skipped": _skipped_rule,
    "spares": _spares_rule,
    "step-time": lambda f: f"step time: lower bound at {f['mfu']:.0%} MFU, transfers overlapped",
}


def _tight_margin(subject: str, f: dict[str, Any]) -> str:
    return (
        f"run {subject} is planned with the workload's {f['given']:.0%} memory margin, tighter than the "
        f"{f['measured']:.0%} its stack and method err by ({f['basis']}): it may run out of memory"
    )


def _family_words(subject: str, f: dict[str, Any]) -> str:
    """A rule family's finding has no wording here: the family words it from its figures when it
    makes it (`Family.finding`), and the plan's JSON carries that sentence back."""
    raise ValueError(f"@text: a {f.get('rule', 'rule family')} finding carries the sentence its family wrote")


_WORDING: dict[FindingKind, Callable[[str, dict[str, Any]], str]] = {
    FindingKind.POWER_CAP: _power_cap,
    FindingKind.HOST_RAM: _host_ram,
    FindingKind.NVME: _nvme,
    FindingKind.MULTI_GPU: _multi_gpu,
    FindingKind.SERVER_LIMIT: lambda s, f: f"site.max_servers = {f['max_servers']} is reached",
    FindingKind.OWNED: lambda s, f: (
        f"{s}: the {f['count']} owned {f['chassis']} with {f['gpu']} cannot be used here: no build of "
        "this site matches its parts within the rules (feed, inlet, RAM and disk tiers)"
    ),
    FindingKind.STOCK: lambda s, f: (
        f"all {f['stock']:,} units of {s} in stock are used: more would change the plan"
    ),
    FindingKind.LEAD_TIME: lambda s, f: (
        f"{s} arrives in {f['lead_weeks']:g} weeks, after the {f['delivery_weeks']:g} the site allows: "
        "left out"
    ),
    FindingKind.INLET: _inlet,
    FindingKind.FEED: _feed,
    FindingKind.SUPPLIES: _supplies,
    FindingKind.CHASSIS: lambda s, f: (
        f"{s} cannot take the RAM or NVMe that {f['gpu_count']} × {f['gpu']} need"
    ),
    FindingKind.COOLANT: lambda s, f: f"{s} is liquid-cooled and left out (with {f['gpu']}): {f['why']}",
    FindingKind.LIQUID: lambda s, f: (
        f"rack {s}'s liquid loop carries {f['load_kw']:g} of its {f['liquid_kw']:g} kW: no room for "
        "another liquid-cooled server"
    ),
    FindingKind.RACKS: lambda s, f: (
        f"{s} has no rack_units in the catalogue, so it cannot stand in the site's racks (with {f['gpu']})"
    ),
    FindingKind.TIGHT_MARGIN: _tight_margin,
    FindingKind.DEADLINE_BOUND: _deadline_bound,
    FindingKind.DISPROPORTION: _disproportion,
    FindingKind.OFFLOAD_DISPROPORTION: _offload_disproportion,
    FindingKind.RENT_DISPROPORTION: _rent_disproportion,
    FindingKind.SAVING: _saving,
    FindingKind.FEASIBLE_IF: _feasible_if,
    FindingKind.LIQUID_SMALL: lambda s, f: (
        f"run {s} fits only liquid-cooled servers, the smallest drawing {f['need_kw']:g} kW, and the "
        f"largest rack liquid loop carries {f['liquid_kw']:g} kW: raise liquid_kw"
    ),
    FindingKind.NO_FIT: _no_fit,
    FindingKind.NO_SERVER: lambda s, f: (
        f"run {s}: no allowed build offers {', or '.join(f['needs'])} with the host RAM and NVMe it needs"
    ),
    FindingKind.CONFLICT: _conflict,
    FindingKind.NO_CARD: lambda s, f: "no card in the catalogue is allowed",
    FindingKind.NO_PLAN: lambda s, f: (
        f"no plan found within the time limit of {f['seconds']:g} s; raise --time-limit"
    ),
    FindingKind.DEADLINE: _deadline,
    FindingKind.QUEUE_HEAVY: lambda s, f: (
        f"run {s}: no light way to train it fits its window (queue mode schedules jobs whose host RAM "
        "and NVMe fit their GPUs' share of a server), and every job at once has no plan either: "
        "no plan found; widen the window or lift the server limit"
    ),
    FindingKind.RULE: _rule,
    FindingKind.FAMILY: _family_words,
    FindingKind.FAMILY_REASON: _family_words,
}


def describe(kind: FindingKind, subject: str, figures: dict[str, Any]) -> str:
    """The sentence for a finding, from its kind, subject and figures."""
    return _WORDING[kind](subject, figures)
