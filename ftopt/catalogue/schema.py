"""The workload file's JSON Schema, with the method names the catalogue's registry spells.

Why here, beside the catalogue: the schema is pydantic's own view of the models the loader validates
with, so it cannot drift from what `ftopt solve` accepts, and its method names come from the
catalogue's registry. `ftopt schema` prints it for editors; the workbench builds its form from it.
"""

from __future__ import annotations

from typing import Any

from ftopt.catalogue.loader import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.methods import MethodRegistry
from ftopt.model.workload import Algorithm, Workload

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


#: Spellings the run model accepts before validation and rewrites (`dataset_tokens` × `epochs` is
#: `train_tokens`): pydantic's schema sees only the fields after the rewrite.
_RUN_ALIASES = {
    "dataset_tokens": {"type": "number", "exclusiveMinimum": 0, "description": "tokens in the data set"},
    "epochs": {"type": "number", "exclusiveMinimum": 0, "description": "passes over the data set"},
}


def method_fields(methods: MethodRegistry) -> dict[str, dict[str, Any]]:
    """`method` and `adapter` as the registry has them: a workload's `method` names a training method
    or a preference/RL algorithm (kept apart as `algorithm`), whose policy trains as its `adapter`."""
    trained = [(str(m.id), m.label) for m in methods.methods]
    algorithms = [(str(a.id), a.label) for a in methods.algorithms if a.id != Algorithm.SFT]
    adapters = [("none", "all weights")] + [(str(m.id), m.label) for m in methods.methods if not m.full]

    def words(pairs: list[tuple[str, str]]) -> str:
        return ", ".join(name if label == name else f"{name} ({label})" for name, label in pairs)

    return {
        "method": {
            "enum": [name for name, _ in trained + algorithms],
            "description": words(trained + algorithms),
        },
        "adapter": {
            "enum": [name for name, _ in adapters],
            "description": f"how a {', '.join(n for n, _ in algorithms)} policy trains: {words(adapters)}",
        },
    }


def policy_fields(catalogue: Catalogue) -> dict[str, Any]:
    """`site.policy` as the rule families' data files declare it: each field an id of its family's
    items or a number in its range, and no other key."""
    properties: dict[str, Any] = {}
    for name, (family, field) in catalogue.policy_fields().items():
        described = {"description": f"{field.description} (rule family {family})"}
        if field.kind == "id":
            properties[name] = {"enum": list(catalogue.families[family].ids), **described}
            continue
        bounds = {k: v for k, v in (("minimum", field.minimum), ("maximum", field.maximum)) if v is not None}
        properties[name] = {"type": "number", **bounds, **described}
    return {"type": "object", "properties": properties, "additionalProperties": False}


def workload_schema(
    methods: MethodRegistry | None = None, catalogue: Catalogue | None = None
) -> dict[str, Any]:
    """The workload's JSON Schema, titled, with its dialect named for validators; the method names
    and the site policies come from the packaged catalogue unless one is given."""
    schema = Workload.model_json_schema()
    catalogue = catalogue or load_catalogue()
    run = schema["$defs"]["Run"]["properties"]
    run.update(_RUN_ALIASES)
    run.update(method_fields(methods or catalogue.methods))
    site = schema["$defs"]["Site"]["properties"]
    described = {"description": site["policy"]["description"], "default": site["policy"].get("default", {})}
    site["policy"] = {"$ref": "#/$defs/Policy", **described}
    schema["$defs"]["Policy"] = {
        "title": "Policy",
        "description": "The site policies the rule families' data files declare "
        "(ftopt/catalogue/data/families/).",
        **policy_fields(catalogue),
    }
    customer = schema["$defs"]["QuoteDetails"]["properties"]["customer"]
    customer["anyOf"].insert(0, {"type": "string", "minLength": 1, "maxLength": 200})  # the name alone
    return {"$schema": SCHEMA_DIALECT, **schema, "title": "ftopt workload"}
