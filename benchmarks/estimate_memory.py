"""Peak memory of `ftopt estimate` on a workload of many runs: `python -m benchmarks.estimate_memory`.

Issue 26 measured a 5,000-run workload growing past 3 GB while `ftopt estimate` held every run's
options before printing any. The command now makes and writes the options run by run
(`ftopt.model.estimate.iter_estimates`); the target is a peak resident set under 1 GB. On this
file's workload of 5,000 runs on two cards the JSON output peaked at 1,219 MB before that change
(/usr/bin/time -v, 2026-12-03) and at 85 MB after it. The workload
cycles through a few models, methods and sequence lengths on two cards; each format is run in a
child process and its peak RSS read from `resource.getrusage(RUSAGE_CHILDREN)` (Linux: kB).
Writes estimate-memory.md beside this file.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
TARGET_MB = 1024
MODELS = ("qwen3-8b", "llama-3.1-8b", "qwen3-32b", "llama-3.3-70b")
METHODS = ("lora", "qlora", "full")
SEQ_LENS = (2048, 4096, 8192)


def workload(runs: int) -> dict[str, object]:
    """`runs` runs over a few models, methods and sequence lengths (names unique)."""
    return {
        "name": f"estimate-{runs}-runs",
        "hardware": {"gpus": ["h200-nvl", "rtx-pro-6000-se"]},
        "runs": [
            {
                "name": f"r{i}",
                "model": MODELS[i % len(MODELS)],
                "method": METHODS[(i // len(MODELS)) % len(METHODS)],
                "seq_len": SEQ_LENS[(i // 12) % len(SEQ_LENS)],
                "train_tokens": 100_000_000,
            }
            for i in range(runs)
        ],
    }


def peak_mb(path: Path, fmt: str) -> tuple[float, float]:
    """(peak RSS in MB, seconds) of `ftopt estimate PATH --format FMT -o /dev/null` in a child."""
    code = "import sys; from ftopt.cli.main import cli; cli(sys.argv[1:])"
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code, "estimate", str(path), "--format", fmt, "-o", "/dev/null"], check=True
    )
    seconds = time.perf_counter() - started
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, seconds


def main(argv: list[str] | None = None) -> int:
    """Measure each format; exit 1 when a peak passes the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--out", type=Path, default=HERE / "estimate-memory.md")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "many-runs.yaml"
        path.write_text(yaml.safe_dump(workload(args.runs), sort_keys=False), encoding="utf-8")
        for fmt in ("json", "table"):
            # RUSAGE_CHILDREN keeps the largest child so far: json runs first, table may only raise it
            mb, seconds = peak_mb(path, fmt)
            verdict = "yes" if mb < TARGET_MB else "NO"
            rows.append(f"| {fmt} | {args.runs:,} | {mb:,.0f} | {seconds:,.0f} | {verdict} |")
    text = "\n".join(
        [
            "# Peak memory of `ftopt estimate` (python -m benchmarks.estimate_memory)",
            "",
            f"Target: peak resident set under {TARGET_MB:,} MB on a workload of {args.runs:,} runs.",
            "The table row's peak is the largest of both children so far (getrusage keeps the maximum).",
            "Seconds depend on the machine's load; the peak does not.",
            "",
            "| format | runs | peak RSS MB | seconds | under target |",
            "|---|---|---|---|---|",
            *rows,
            "",
        ]
    )
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0 if all("| yes |" in row for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
