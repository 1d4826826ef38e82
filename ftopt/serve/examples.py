"""The bundled examples a new bid may start from, read from package data by a fixed list of names.

Why a fixed list: a request names an example, and that name is looked up in this list, never joined
to a path, so no request reaches the file system. The files are the repository's `examples/*.yaml`
(packaged through the `ftopt/serve/examples` link, one copy of each file).
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def bundled() -> dict[str, str]:
    """Each bundled example's name (its file name without `.yaml`) and text, sorted by name."""
    folder = resources.files("ftopt.serve").joinpath("examples")
    found = {
        entry.name.removesuffix(".yaml"): entry.read_text(encoding="utf-8")
        for entry in folder.iterdir()
        if entry.name.endswith(".yaml") and entry.is_file()
    }
    return dict(sorted(found.items()))


def example(name: str) -> str | None:
    """The text of the bundled example called `name`, or None."""
    return bundled().get(name)
