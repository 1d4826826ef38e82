"""When a command's time limit starts: the process's start when ftopt is the program, else the call.

Why: `--time-limit` bounds the whole command, and a command run as `ftopt ...` spends a second or
more on Python's start-up and imports before its own code runs (several on a loaded machine), which
the limit must count. The process's start is read from /proc (Linux) by the console script's entry
(`mark_program_start`). A command invoked inside a longer-lived process (a test's CliRunner, a
notebook) is timed from its call instead: that process's start says nothing of the command.
"""

from __future__ import annotations

import os
import time

_PROGRAM_STARTED: float | None = None


def process_started() -> float:
    """The process's start, in seconds since the epoch, from /proc (Linux); OSError elsewhere."""
    with open(f"/proc/{os.getpid()}/stat", encoding="ascii") as stat:
        ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/stat", encoding="ascii") as boot:
        booted = next(int(line.split()[1]) for line in boot if line.startswith("btime"))
    return booted + ticks / os.sysconf("SC_CLK_TCK")


def mark_program_start() -> None:
    """Remember the process's start as the start of the command it runs (the console script)."""
    global _PROGRAM_STARTED
    try:
        _PROGRAM_STARTED = process_started()
    except (OSError, ValueError, StopIteration, IndexError):
        _PROGRAM_STARTED = None


def command_started() -> float:
    """When this command's time limit started, seconds since the epoch: the program's start when the
    console script marked it, else now."""
    return _PROGRAM_STARTED if _PROGRAM_STARTED is not None else time.time()
