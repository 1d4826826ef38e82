"""Hypothesis strategies: valid workloads drawn from the packaged catalogue, and their mutations.

Valid workloads are plain dicts (what a user's YAML file parses to), so that the same draw feeds
the solver (`Workload.model_validate`) and the command line (`yaml.safe_dump` to a file). They
stay small enough for CP-SAT to prove the optimum in well under a second: 1–4 runs, 1–3 copies
each, sequence lengths of 1,024 to 8,192 tokens, every catalogue model, method, optimiser and
offload, GPU counts, checkpoints kept (which drive the NVMe upgrades), feeds, inlet temperatures,
server positions and card or chassis restrictions.

Malformed workloads are a valid dict with exactly one mutation applied (a wrong type, an unknown
key, a missing field, a bad id, a number out of range, broken YAML, bytes that are not UTF-8, an
input beyond the size limit); each carries the field path the one-line error must name, or the
fragment of the message, so a test can check the message points at the right place.

Extreme workloads are valid but absurd: an inline model with every number anywhere within its
declared limit (read from the pydantic fields, so the strategy follows the contract).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from annotated_types import Ge, Gt, Le
from hypothesis import strategies as st
from pydantic import BaseModel

from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture, LinearAttention, VisionTower
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import GPU_COUNTS, Workload
from ftopt.reading.safe_yaml import MAX_INPUT_BYTES

CATALOGUE: Catalogue = load_catalogue()

MODELS: tuple[str, ...] = CATALOGUE.ids("models")
CARDS: tuple[str, ...] = CATALOGUE.ids("gpus")
#: Air-cooled chassis only: the drawn sites have no coolant supply, where a liquid-cooled one is never
#: placeable (tests/solver/cpsat/test_liquid.py covers those).
CHASSIS: tuple[str, ...] = tuple(c.id for c in CATALOGUE.chassis if c.cooling == "air")
#: Feeds from the smallest to the largest usable power: a later feed is a relaxation of an earlier one.
FEEDS: tuple[str, ...] = tuple(f.id for f in sorted(CATALOGUE.feeds, key=lambda f: (f.usable_w, f.id)))
SEQ_LENS = (1024, 2048, 4096, 8192)
INLETS = (18.0, 20.0, 25.0, 27.0, 30.0, 32.0, 35.0)
METHODS = ("full", "lora", "qlora")
OPTIMIZERS = ("auto", "adamw-32bit", "adamw-8bit")
OFFLOADS = ("none", "cpu", "auto")

# ------------------------------------------------------------------------------------------------
# Valid workloads
# ------------------------------------------------------------------------------------------------


def _subset(items: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    """A non-empty subset, in catalogue order."""
    return st.sets(st.sampled_from(items), min_size=1).map(lambda s: [i for i in items if i in s])


@st.composite
def run_dicts(draw: st.DrawFn, name: str = "r0", max_concurrent: int = 3) -> dict[str, Any]:
    """One valid run: catalogue model, method, optional settings, 1–`max_concurrent` copies."""
    method = draw(st.sampled_from(METHODS))
    model_id = draw(st.sampled_from(MODELS))
    run: dict[str, Any] = {
        "name": name,
        "model": inline_model(model_id) if draw(st.integers(0, 7)) == 7 else model_id,
        "method": method,
        "seq_len": draw(st.sampled_from(SEQ_LENS)),
        "concurrent": draw(st.integers(1, max(1, max_concurrent))),
    }
    if method == "full":
        optimizer = draw(st.sampled_from(OPTIMIZERS))
        offloads = ("none", "auto") if optimizer == "adamw-8bit" else OFFLOADS
        offload = draw(st.sampled_from(offloads))
        if optimizer != "auto" or draw(st.booleans()):
            run["optimizer"] = optimizer
        if offload != "none" or draw(st.booleans()):
            run["offload"] = offload
    else:
        if draw(st.booleans()):
            run["optimizer"] = draw(st.sampled_from(OPTIMIZERS))
        if draw(st.booleans()):
            run["lora_rank"] = draw(st.sampled_from((8, 16, 64)))
    if draw(st.integers(0, 3)) == 0:
        run["gpus"] = draw(st.sampled_from(GPU_COUNTS))
    if draw(st.booleans()):
        # 0 to 40 checkpoints: large counts of full fine-tunes need more NVMe than the base disk.
        run["keep_checkpoints"] = draw(st.sampled_from((0, 1, 3, 10, 40)))
    if draw(st.integers(0, 4)) == 0:
        run["micro_batch"] = 2
    if draw(st.integers(0, 4)) == 0:
        run["gradient_checkpointing"] = False
    return run


def inline_model(model_id: str) -> dict[str, Any]:
    """A catalogue model written out in the workload, as a user would describe their own."""
    architecture = CATALOGUE.model(model_id).architecture.model_dump(mode="json", exclude_defaults=True)
    return {"name": f"inline-{model_id}", "architecture": architecture}


@st.composite
def site_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """Feed, inlet temperature and (sometimes) a limit on server positions; big feeds more often."""
    site: dict[str, Any] = {
        "feed": draw(st.sampled_from(FEEDS[1:] * 2 + FEEDS)),
        "inlet_c": draw(st.sampled_from(INLETS)),
    }
    if draw(st.integers(0, 3)) == 0:
        site["max_servers"] = draw(st.integers(1, 4))
    return site


@st.composite
def hardware_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """No restriction half the time, else a subset of cards, of chassis, or both."""
    hardware: dict[str, Any] = {}
    kind = draw(st.integers(0, 5))
    if kind in (3, 5):
        hardware["gpus"] = draw(_subset(CARDS))
    if kind in (4, 5):
        hardware["chassis"] = draw(_subset(CHASSIS))
    return hardware


@st.composite
def workload_dicts(
    draw: st.DrawFn,
    min_runs: int = 1,
    max_runs: int = 4,
    max_copies: int | None = None,
    max_concurrent: int = 3,
) -> dict[str, Any]:
    """A valid workload file as a dict. `max_copies` bounds the copies of all runs together."""
    upper = max_runs if max_copies is None else min(max_runs, max_copies)
    count = draw(st.integers(min_runs, upper))
    runs: list[dict[str, Any]] = []
    used = 0
    for index in range(count):
        most = max_concurrent
        if max_copies is not None:
            most = min(most, max_copies - used - (count - index - 1))
        run = draw(run_dicts(name=f"run-{index}", max_concurrent=most))
        used += run["concurrent"]
        runs.append(run)
    workload: dict[str, Any] = {"runs": runs, "site": draw(site_dicts())}
    hardware = draw(hardware_dicts())
    if hardware:
        workload["hardware"] = hardware
    if draw(st.integers(0, 5)) == 0:
        workload["name"] = "bid"
    return workload


def workloads(**kwargs: Any) -> st.SearchStrategy[Workload]:
    """Validated `Workload` objects (see `workload_dicts` for the arguments)."""
    return workload_dicts(**kwargs).map(to_workload)


def to_workload(data: dict[str, Any]) -> Workload:
    """The model of a workload dict."""
    return Workload.model_validate(data)


def tiny_workload_dicts() -> st.SearchStrategy[dict[str, Any]]:
    """At most four copies in all: small enough for the brute-force reference."""
    return workload_dicts(max_runs=3, max_copies=4)


# ------------------------------------------------------------------------------------------------
# Relaxations of a site
# ------------------------------------------------------------------------------------------------


@st.composite
def relaxed_sites(draw: st.DrawFn, site: dict[str, Any]) -> dict[str, Any]:
    """The same site with at least one thing relaxed: a bigger feed, a cooler room, more positions."""
    relaxed = dict(site)
    changes = draw(st.sets(st.sampled_from(("feed", "inlet", "positions")), min_size=1))
    if "feed" in changes:
        at = FEEDS.index(site.get("feed", "400v-3p-16a"))
        relaxed["feed"] = draw(st.sampled_from(FEEDS[at:]))
    if "inlet" in changes:
        cooler = [t for t in INLETS if t <= site.get("inlet_c", 25.0)]
        relaxed["inlet_c"] = draw(st.sampled_from(cooler))
    if "positions" in changes and site.get("max_servers") is not None:
        more = draw(st.one_of(st.none(), st.integers(site["max_servers"], site["max_servers"] + 3)))
        if more is None:
            del relaxed["max_servers"]
        else:
            relaxed["max_servers"] = more
    return relaxed


# ------------------------------------------------------------------------------------------------
# Malformed workloads
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Malformed:
    """A broken workload file and what its error must say.

    `field` is the path the message must name (`runs[1].seq_len`: the reported path starts with it);
    `fragment` a piece of text the message must hold where no field applies (broken YAML). Both
    `None` for a mutation whose result may happen to stay valid (truncation): then only the form of
    the failure is checked.
    """

    kind: str  # the mutation's category, for hypothesis' statistics
    content: bytes
    field: str | None = None
    fragment: str | None = None


RUN_FIELDS = {
    "name": "str",
    "model": "str",
    "method": "enum",
    "optimizer": "enum",
    "offload": "enum",
    "lora_rank": "int",
    "seq_len": "int",
    "micro_batch": "int",
    "gradient_checkpointing": "bool",
    "concurrent": "int",
    "gpus": "gpus",
    "keep_checkpoints": "int",
}
SITE_FIELDS = {"feed": "str", "inlet_c": "float", "max_servers": "int"}
HARDWARE_FIELDS = {"gpus": "ids", "chassis": "ids"}
SIZING_FIELDS = {
    "states_only": "bool",
    "fp32_grad_buffer": "bool",
    "flash_attention": "bool",
    "mfu": "float",
    "cuda_context_gb": "float",
    "allocator_reserve": "float",
}
TOP_FIELDS = {"name", "site", "hardware", "runs", "sizing"}

# Values no lax pydantic coercion turns into the field's type (no bools for numbers: pydantic
# reads `true` as 1).
_word = st.from_regex(r"\A[a-z]{2,10}\Z").filter(
    lambda w: w not in {"yes", "no", "on", "off", "true", "false", "null", "none", "auto", "inf", "nan"}
)
_containers = st.one_of(
    st.lists(st.integers(0, 9), min_size=1, max_size=3),
    st.dictionaries(_word, st.integers(0, 9), min_size=1, max_size=2),
)
_WRONG: dict[str, st.SearchStrategy[Any]] = {
    "int": st.one_of(_word, _containers, st.sampled_from((1.5, 2.25, -0.5))),
    "float": st.one_of(_word, _containers),
    "str": st.one_of(st.integers(-5, 5000), st.sampled_from((1.5,)), _containers),
    "enum": st.one_of(st.integers(0, 9), _word, _containers),
    "bool": st.one_of(_word.map(lambda w: w + "x"), _containers, st.sampled_from((2, 0.5))),
    "gpus": st.one_of(_word, _containers, st.sampled_from((1.5,))),
    "ids": st.one_of(st.integers(0, 9), st.dictionaries(_word, st.integers(), min_size=1, max_size=1)),
    "mapping": st.one_of(st.integers(0, 9), _word, st.lists(st.integers(0, 9), min_size=1, max_size=2)),
}

_OUT_OF_RANGE: dict[str, st.SearchStrategy[Any]] = {
    "lora_rank": st.one_of(st.integers(-100, 0), st.integers(4097, 10**9)),
    "seq_len": st.one_of(st.integers(-100, 0), st.integers(1_048_577, 10**12)),
    "micro_batch": st.one_of(st.integers(-100, 0), st.integers(4097, 10**9)),
    "concurrent": st.one_of(st.integers(-100, 0), st.integers(100_001, 10**9)),
    "gpus": st.sampled_from((0, 3, 5, 6, 7, 16, 64, -1)),
    "keep_checkpoints": st.one_of(st.integers(-100, -1), st.integers(1001, 10**9)),
}
_SITE_OUT_OF_RANGE: dict[str, st.SearchStrategy[Any]] = {
    "inlet_c": st.one_of(
        st.floats(-1e9, -10.01), st.floats(60.01, 1e9), st.sampled_from((float("inf"), float("nan")))
    ),
    "max_servers": st.one_of(st.integers(-100, 0), st.integers(10_001, 10**9)),
}
_SIZING_OUT_OF_RANGE: dict[str, st.SearchStrategy[Any]] = {
    "mfu": st.one_of(st.floats(-10, 0), st.floats(1.01, 100), st.just(float("nan"))),
    "allocator_reserve": st.one_of(st.floats(-10, -0.01), st.floats(1.01, 100)),
    "cuda_context_gb": st.floats(-100, -0.01),
}

_BROKEN_YAML = (
    ("unclosed flow sequence", "\nextra: [1, 2\n"),
    ("unclosed quote", "\nextra: 'abc\n"),
    ("unclosed flow mapping", "\nextra: {a: 1\n"),
    ("tab indentation", "\nextra:\n\t- 1\n"),
    ("stray block end", "\n  - a\n b: ]\n"),
    ("bad alias", "\nextra: *nowhere\n"),
)


def dump(data: Any) -> str:
    """YAML text as a user would write it (block style, keys in insertion order)."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _not_in(known: set[str] | tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.from_regex(r"\A[a-z][a-z0-9_]{0,14}\Z").filter(lambda k: k not in known)


@st.composite
def _wrong_type(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    runs = data["runs"]
    where = draw(st.sampled_from(("run", "run", "run", "site", "sizing", "hardware", "top", "run-item")))
    if where == "run":
        i = draw(st.integers(0, len(runs) - 1))
        key = draw(st.sampled_from(sorted(RUN_FIELDS)))
        runs[i][key] = draw(_WRONG[RUN_FIELDS[key]])
        path = f"runs[{i}].{key}"
    elif where == "run-item":
        i = draw(st.integers(0, len(runs) - 1))
        runs[i] = draw(_WRONG["mapping"])
        path = f"runs[{i}]"
    elif where == "site":
        key = draw(st.sampled_from(sorted(SITE_FIELDS)))
        data.setdefault("site", {})[key] = draw(_WRONG[SITE_FIELDS[key]])
        path = f"site.{key}"
    elif where == "sizing":
        key = draw(st.sampled_from(sorted(SIZING_FIELDS)))
        data.setdefault("sizing", {})[key] = draw(_WRONG[SIZING_FIELDS[key]])
        path = f"sizing.{key}"
    elif where == "hardware":
        key = draw(st.sampled_from(sorted(HARDWARE_FIELDS)))
        if draw(st.booleans()):
            data.setdefault("hardware", {})[key] = draw(_WRONG["ids"])
            path = f"hardware.{key}"
        else:
            known = CARDS if key == "gpus" else CHASSIS
            ids = [*known[:1], draw(st.one_of(st.integers(0, 9), _containers))]
            data.setdefault("hardware", {})[key] = ids
            path = f"hardware.{key}[1]"
    else:
        key = draw(st.sampled_from(("site", "hardware", "sizing", "runs", "name")))
        data[key] = draw(_WRONG["str" if key == "name" else "mapping"])
        path = key
    return Malformed("wrong type", dump(data).encode(), field=path)


@st.composite
def _unknown_key(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    where = draw(st.sampled_from(("run", "site", "hardware", "sizing", "top")))
    known = {"run": RUN_FIELDS, "site": SITE_FIELDS, "hardware": HARDWARE_FIELDS, "sizing": SIZING_FIELDS}
    key = draw(_not_in(set(known.get(where, TOP_FIELDS))))
    value = draw(st.one_of(st.integers(0, 9), _word))
    if where == "run":
        i = draw(st.integers(0, len(data["runs"]) - 1))
        data["runs"][i][key] = value
        path = f"runs[{i}].{key}"
    elif where == "top":
        data[key] = value
        path = key
    else:
        data.setdefault(where, {})[key] = value
        path = f"{where}.{key}"
    return Malformed("unknown key", dump(data).encode(), field=path)


@st.composite
def _missing_field(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    if draw(st.integers(0, 4)) == 0:
        del data["runs"]
        path = "runs"
    else:
        i = draw(st.integers(0, len(data["runs"]) - 1))
        key = draw(st.sampled_from(("name", "model", "method")))
        del data["runs"][i][key]
        path = f"runs[{i}].{key}"
    return Malformed("missing field", dump(data).encode(), field=path)


@st.composite
def _bad_id(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    runs = data["runs"]
    choices = ["model", "feed", "card", "chassis", "name-pattern"] + (["duplicate"] if len(runs) > 1 else [])
    what = draw(st.sampled_from(choices))
    if what == "model":
        i = draw(st.integers(0, len(runs) - 1))
        runs[i]["model"] = draw(_not_in(MODELS).map(lambda s: s + "-9b"))
        path = f"runs[{i}].model"
    elif what == "feed":
        data.setdefault("site", {})["feed"] = draw(_not_in(FEEDS).map(lambda s: s + "-16a"))
        path = "site.feed"
    elif what in ("card", "chassis"):
        key, known = ("gpus", CARDS) if what == "card" else ("chassis", CHASSIS)
        ids = list(known[:2])
        at = draw(st.integers(0, len(ids)))
        ids.insert(at, draw(_not_in(known)))
        data.setdefault("hardware", {})[key] = ids
        path = f"hardware.{key}[{at}]"
    elif what == "name-pattern":
        i = draw(st.integers(0, len(runs) - 1))
        runs[i]["name"] = draw(st.sampled_from(("my run", "a/b", "ü", "x:y", "", "run#1", "tab\there")))
        path = f"runs[{i}].name"
    else:
        j = draw(st.integers(1, len(runs) - 1))
        i = draw(st.integers(0, j - 1))
        runs[j]["name"] = runs[i]["name"]
        path = f"runs[{j}].name"
    return Malformed(f"bad id: {what}", dump(data).encode(), field=path)


@st.composite
def _out_of_range(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    runs = data["runs"]
    where = draw(st.sampled_from(("run", "run", "site", "sizing", "empty", "cross")))
    if where == "run":
        i = draw(st.integers(0, len(runs) - 1))
        key = draw(st.sampled_from(sorted(_OUT_OF_RANGE)))
        runs[i][key] = draw(_OUT_OF_RANGE[key])
        path = f"runs[{i}].{key}"
    elif where == "site":
        key = draw(st.sampled_from(sorted(_SITE_OUT_OF_RANGE)))
        data.setdefault("site", {})[key] = draw(_SITE_OUT_OF_RANGE[key])
        path = f"site.{key}"
    elif where == "sizing":
        key = draw(st.sampled_from(sorted(_SIZING_OUT_OF_RANGE)))
        data.setdefault("sizing", {})[key] = draw(_SIZING_OUT_OF_RANGE[key])
        path = f"sizing.{key}"
    elif where == "empty":
        key = draw(st.sampled_from(("runs", "hardware.gpus", "hardware.chassis")))
        if key == "runs":
            data["runs"] = []
        else:
            data.setdefault("hardware", {})[key.split(".")[1]] = []
        path = key
    else:
        i = draw(st.integers(0, len(runs) - 1))
        if draw(st.booleans()):
            runs[i].update(method=draw(st.sampled_from(("lora", "qlora"))), offload="cpu")
            runs[i].pop("optimizer", None)
            path = f"runs[{i}].offload"
        else:
            runs[i].update(method="full", offload="cpu", optimizer="adamw-8bit")
            path = f"runs[{i}].optimizer"
    return Malformed(f"out of range: {where}", dump(data).encode(), field=path)


ARCHITECTURE_POSITIVE = (
    "layers",
    "hidden",
    "intermediate",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "experts",
)
ARCHITECTURE_REQUIRED = (*ARCHITECTURE_POSITIVE[:-1], "tied_embeddings")
ARCHITECTURE_FIELDS = {
    **dict.fromkeys((*ARCHITECTURE_POSITIVE, "experts_per_token", "mtp_layers", "extra_params"), "int"),
    **dict.fromkeys(("tied_embeddings", "qk_norm", "attention_output_gate"), "bool"),
}


def upper_bound(model: type[BaseModel], name: str) -> int:
    """The declared `le` of an integer field: the contract a value above it breaks."""
    return next(int(m.le) for m in model.model_fields[name].metadata if isinstance(m, Le))


def lower_bound(model: type[BaseModel], name: str) -> int:
    """The least value an integer field accepts (its `gt` + 1 or its `ge`)."""
    for m in model.model_fields[name].metadata:
        if isinstance(m, Gt):
            return int(m.gt) + 1
        if isinstance(m, Ge):
            return int(m.ge)
    return 0


@st.composite
def _inline_model(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    """A mutation inside an inline model (the run's model is written out first if it is an id)."""
    runs = data["runs"]
    i = draw(st.integers(0, len(runs) - 1))
    if isinstance(runs[i]["model"], str):
        runs[i]["model"] = inline_model(runs[i]["model"])
    model = runs[i]["model"]
    arch = model["architecture"]
    base = f"runs[{i}].model"
    kinds = ["wrong-type", "zero", "missing", "unknown", "experts", "name"]
    kind = draw(st.sampled_from([*kinds, "huge"]))
    if kind == "wrong-type":
        key = draw(st.sampled_from(sorted(ARCHITECTURE_FIELDS)))
        arch[key] = draw(_WRONG[ARCHITECTURE_FIELDS[key]])
        path = f"{base}.architecture.{key}"
    elif kind == "zero":
        key = draw(
            st.sampled_from((*ARCHITECTURE_POSITIVE, "experts_per_token", "mtp_layers", "extra_params"))
        )
        arch[key] = draw(st.integers(-1000, -1 if key in ("mtp_layers", "extra_params") else 0))
        path = f"{base}.architecture.{key}"
    elif kind == "missing":
        key = draw(st.sampled_from((*ARCHITECTURE_REQUIRED, "architecture", "name")))
        if key in ("architecture", "name"):
            del model[key]
            path = f"{base}.{key}"
        else:
            del arch[key]
            path = f"{base}.architecture.{key}"
    elif kind == "unknown":
        inside = draw(st.booleans())
        key = draw(_not_in(set(ARCHITECTURE_FIELDS) | {"linear_attention", "vision", "name", "architecture"}))
        (arch if inside else model)[key] = 1
        path = f"{base}.architecture.{key}" if inside else f"{base}.{key}"
    elif kind == "experts":
        arch["experts"] = draw(st.integers(1, 8))
        arch["experts_per_token"] = draw(st.integers(arch["experts"] + 1, 64))
        path = f"{base}.architecture"
    elif kind == "name":
        model["name"] = draw(st.one_of(st.just(""), st.integers(0, 9), _containers))
        path = f"{base}.name"
    else:
        # Beyond the declared limit: once these hung the sizing (a loop per layer) or overflowed it
        # (int to float); see tests/regressions/test_input_regressions.py.
        key = draw(st.sampled_from(ARCHITECTURE_POSITIVE))
        most = upper_bound(Architecture, key)
        arch[key] = draw(st.one_of(st.integers(most + 1, most * 10**6), st.just(10**400)))
        path = f"{base}.architecture.{key}"
    return Malformed(f"inline model: {kind}", dump(data).encode(), field=path)


@st.composite
def _broken_text(draw: st.DrawFn, data: dict[str, Any]) -> Malformed:
    text = dump(data)
    kind = draw(
        st.sampled_from(("yaml", "yaml", "utf8", "not-mapping", "python-tag", "deep", "huge", "truncated"))
    )
    if kind == "yaml":
        name, snippet = draw(st.sampled_from(_BROKEN_YAML))
        return Malformed(f"broken YAML: {name}", (text + snippet).encode(), fragment="not valid YAML")
    if kind == "utf8":
        raw = text.encode()
        at = draw(st.integers(0, len(raw)))
        bad = draw(st.sampled_from((b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80")))
        return Malformed("not UTF-8", raw[:at] + bad + raw[at:], fragment="expected UTF-8 text")
    if kind == "not-mapping":
        other = draw(
            st.sampled_from(("", "# only a comment\n", "- a\n- b\n", "42\n", "just text\n", "null\n"))
        )
        return Malformed("not a mapping", other.encode(), fragment="expected a mapping")
    if kind == "python-tag":
        return Malformed(
            "python object tag",
            (text + "extra: !!python/object/apply:os.system ['echo pwned']\n").encode(),
            fragment="not valid YAML",
        )
    if kind == "deep":
        depth = draw(st.integers(2_000, 20_000))
        return Malformed("deep nesting", ("extra: " + "[" * depth + "]" * depth + "\n" + text).encode())
    if kind == "huge":
        pad = MAX_INPUT_BYTES + 1 - len(text.encode())
        content = text.encode() + b"#" * max(pad, 1)
        return Malformed("beyond the size limit", content, fragment=f"at most {MAX_INPUT_BYTES:,} accepted")
    raw = text.encode()
    cut = draw(st.integers(0, max(0, len(raw) - 2)))
    return Malformed("truncated", raw[:cut])


@st.composite
def malformed_workloads(draw: st.DrawFn) -> Malformed:
    """A valid workload file with one mutation that makes it invalid (see `Malformed`)."""
    data = draw(workload_dicts())
    mutation = draw(
        st.sampled_from(
            (_wrong_type, _unknown_key, _missing_field, _bad_id, _out_of_range, _inline_model, _broken_text)
        )
    )
    return draw(mutation(data))


# ------------------------------------------------------------------------------------------------
# Extreme but valid inputs
# ------------------------------------------------------------------------------------------------


def _within(model: type[BaseModel], name: str) -> st.SearchStrategy[int]:
    """An integer the field accepts, its two ends often."""
    low, high = lower_bound(model, name), upper_bound(model, name)
    return st.one_of(st.sampled_from((low, high)), st.integers(low, high))


def _extreme(draw: st.DrawFn, model: type[BaseModel]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if info.annotation is int:
            if info.is_required() or draw(st.booleans()):
                fields[name] = draw(_within(model, name))
        elif info.annotation is bool and (info.is_required() or draw(st.booleans())):
            fields[name] = draw(st.booleans())
    return fields


@st.composite
def extreme_inline_workload_dicts(draw: st.DrawFn) -> dict[str, Any]:
    """One run of an inline model whose every number lies anywhere within its declared limits
    (often at an end), with run settings at their ends too: valid, however absurd."""
    arch = _extreme(draw, Architecture)
    arch["experts_per_token"] = min(arch.get("experts_per_token", 1), arch.get("experts", 1))
    if draw(st.booleans()):
        arch["linear_attention"] = _extreme(draw, LinearAttention)
    if draw(st.booleans()):
        arch["vision"] = _extreme(draw, VisionTower)
    method = draw(st.sampled_from(METHODS))
    run: dict[str, Any] = {
        "name": "extreme",
        "model": {"name": "extreme", "architecture": arch},
        "method": method,
        "seq_len": draw(st.sampled_from((1, 1024, 1_048_576))),
        "micro_batch": draw(st.sampled_from((1, 4096))),
        "keep_checkpoints": draw(st.sampled_from((0, 1000))),
        "concurrent": draw(st.integers(1, 3)),
    }
    if method != "full":
        run["lora_rank"] = draw(st.sampled_from((1, 4096)))
    else:
        run["optimizer"] = "auto"
        run["offload"] = "auto"
    return {"runs": [run], "site": draw(site_dicts())}
