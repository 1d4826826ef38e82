"""A command's time limit starts at the process's start when ftopt is the program, else at the call."""

from __future__ import annotations

import subprocess
import sys
import time

from ftopt.cli import started


def test_inside_another_process_a_command_is_timed_from_its_call(monkeypatch) -> None:
    monkeypatch.setattr(started, "_PROGRAM_STARTED", None)
    before = time.time()
    assert before <= started.command_started() <= time.time()


def test_the_console_script_times_commands_from_the_process_start(monkeypatch) -> None:
    monkeypatch.setattr(started, "_PROGRAM_STARTED", None)
    started.mark_program_start()
    began = started.command_started()
    assert began == started.process_started() and began < time.time()  # this process began earlier
    code = "import time; from ftopt.cli import started; time.sleep(0.3); started.mark_program_start(); "
    code += "print(time.time() - started.command_started())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert float(out) >= 0.3  # the start-up before the mark counts
