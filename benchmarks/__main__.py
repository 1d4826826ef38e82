"""`python -m benchmarks [run options]`: measure (benchmarks/run.py), then report (benchmarks/report.py)."""

import sys

from benchmarks import report, run


def main(argv: list[str] | None = None) -> int:
    """Write results.json, then results.md and results.png from it."""
    args = run.parse(argv)
    code = run.main(argv)
    if code == 0:
        report.write(args.out, args.out.with_suffix(".md"))
    return code


sys.exit(main())
