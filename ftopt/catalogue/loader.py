"""Loads the catalogue packaged under `ftopt/catalogue/data/` (one YAML file per kind of item).

Why packaged data and not code: figures and prices carry sources and go stale at their own pace;
a presales engineer updates a YAML file or overlays a price list without touching Python.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ftopt.catalogue.overlay import FAMILIES, apply_catalogue_dir, catalogue_files
from ftopt.catalogue.prices import apply_price_list
from ftopt.errors import InputError
from ftopt.model.hardware import ITEM_KINDS, Catalogue, CatalogueOrigin
from ftopt.reading.safe_yaml import read_yaml, validate

KINDS = (*ITEM_KINDS, "prices")
#: Kinds a catalogue directory may leave out: the speed data (stacks, speed constants) and the
#: fabric for multi-node plans, the planning memory margins, the interruption rates and the speed
#: model's spread. A directory written before they existed still loads.
OPTIONAL = ("stacks", "speed", "nics", "switches", "cables", "margins", "reliability", "spread")
#: Kinds a catalogue directory may leave out and then reads from the packaged data: the training
#: methods, which every sizing needs, the rollout constants and the cloud rates.
PACKAGED_DEFAULT = ("methods", "rollout", "cloud")


def data_dir() -> Path:
    """Where the packaged YAML files live."""
    return Path(str(resources.files("ftopt.catalogue") / "data"))


@lru_cache(maxsize=4)
def _load(directory: Path) -> Catalogue:
    parts: dict[str, object] = {}
    for kind in dict.fromkeys((*KINDS, "rules", *OPTIONAL, *PACKAGED_DEFAULT)):  # each once, in order
        path = directory / f"{kind}.yaml"
        if kind in PACKAGED_DEFAULT and not path.exists():
            path = data_dir() / f"{kind}.yaml"
        if kind in OPTIONAL and not path.exists():
            continue
        data, _ = read_yaml(path)
        parts[kind] = data
    parts["families"] = _family_files(directory)
    file = str(directory)
    try:
        return validate(Catalogue, parts, None, file)
    except InputError as exc:
        kind = exc.field.split("[")[0].split(".")[0]
        known = (*KINDS, *OPTIONAL, *PACKAGED_DEFAULT, "rules")
        path = directory / f"{kind}.yaml" if kind in known else directory
        if kind == FAMILIES:  # families.<name>.items[0].id → families/<name>.yaml, items[0].id
            name, _, rest = exc.field.removeprefix(f"{FAMILIES}.").partition(".")
            file_of = _family_dir(directory) / f"{name}.yaml"
            raise InputError(str(file_of), rest or exc.field, exc.expected) from None
        raise InputError(str(path), exc.field, exc.expected) from None


def _family_dir(directory: Path) -> Path:
    """Where the rule families' data files are: the directory's `families/`, else the packaged one
    (a catalogue directory written before families existed still loads with the packaged rules)."""
    own = directory / FAMILIES
    return own if own.is_dir() else data_dir() / FAMILIES


def _family_files(directory: Path) -> dict[str, object]:
    """Each rule family's data file by its name (`families/outlet.yaml` → `outlet`): the catalogue
    loads every one, and the family's module names its file (`Family.data`)."""
    return {path.stem: read_yaml(path)[0] for path in sorted(_family_dir(directory).glob("*.yaml"))}


def load_catalogue(
    prices: str | Path | None = None,
    directory: str | Path | None = None,
    overlay: str | Path | None = None,
) -> Catalogue:
    """The packaged catalogue (or a whole one in `directory`), with a vendor's catalogue directory
    `overlay` merged in by id (`--catalogue DIR`), then a user's price list laid over it."""
    catalogue = _load(Path(directory or data_dir()).resolve())
    if overlay is not None:
        catalogue = apply_catalogue_dir(catalogue, Path(overlay))
    catalogue = apply_price_list(catalogue, Path(prices)) if prices else catalogue
    if overlay is None and prices is None:
        return catalogue
    return catalogue.model_copy(update={"origin": origin_of(overlay, prices)})


def origin_of(overlay: str | Path | None, prices: str | Path | None) -> CatalogueOrigin:
    """The origin a quote names: the vendor's directory with a hash of its files, and the price list."""
    if overlay is None:
        return CatalogueOrigin(price_list=str(prices) if prices else None)
    files = catalogue_files(Path(overlay))
    digest = hashlib.sha256()
    for kind, path in sorted(files.items()):
        digest.update(kind.encode() + b"\0" + path.read_bytes() + b"\0")
    return CatalogueOrigin(
        kind="vendor",
        directory=str(overlay),
        content_hash=digest.hexdigest()[:12],
        vendor_prices="prices" in files,
        price_list=str(prices) if prices else None,
    )
