"""Whole-process timing: what a user waits for when typing `ftopt solve FILE`.

A library solve of a seed instance takes hundredths of a second; the process around it (Python
start-up, imports, loading the catalogue, writing JSON) takes most of the wall time a user sees, so
it has a target of its own.
"""

from __future__ import annotations

import compileall
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.suite import ROOT, Instance, relative


def ftopt_executable() -> str | None:
    """The `ftopt` console script next to this interpreter, or on PATH."""
    local = Path(sys.executable).parent / "ftopt"
    return str(local) if local.exists() else shutil.which("ftopt")


def compile_package() -> None:
    """Byte-compile ftopt's modules, as `pip install` does, before the process is timed.

    An editable install under PYTHONDONTWRITEBYTECODE would otherwise compile every ftopt module
    from source in every timed process, about 0.1 s no user pays.
    """
    import ftopt

    compileall.compile_dir(Path(ftopt.__file__).parent, quiet=1)


def _wall(command: list[str], timeout: float) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    return time.perf_counter() - started, done.returncode


def time_process(instance: Instance, repeats: int, time_limit: float) -> dict[str, Any]:
    """Wall times of `ftopt solve FILE --format json` and of importing the CLI alone, or why skipped."""
    exe = ftopt_executable()
    if exe is None:
        return {"skipped": "no `ftopt` console script found"}
    compile_package()
    command = [exe, "solve", relative(instance.path), "--format", "json", "--time-limit", f"{time_limit:g}"]
    solves = [_wall(command, time_limit + 120) for _ in range(repeats)]
    imports = [_wall([sys.executable, "-c", "import ftopt.cli.main"], 120)[0] for _ in range(repeats)]
    return {
        "instance": instance.name,
        "command": " ".join(["ftopt", *command[1:]]),
        "times": [t for t, _ in solves],
        "exit_codes": [code for _, code in solves],
        "import_times": imports,
        "median": statistics.median(t for t, _ in solves),
        "import_median": statistics.median(imports),
    }
