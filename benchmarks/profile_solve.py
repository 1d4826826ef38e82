"""`python -m benchmarks.profile_solve BID.yaml [--time-limit S]`: where one solve's time goes.

Prints the solver's own phase timings (wall; `Result.timings`: build, search, explain, verify), the
solve's CPU seconds (all threads, CP-SAT's workers each counted: the measure to compare on a loaded
machine) with the load average, the seconds of loading and validating the bid, of rendering the
JSON the CLI writes, and cProfile's functions by cumulative time (CP-SAT's own search shows as
`solve` of the OR-Tools wrapper). What benchmarks/profile.md reports was measured with this script.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
from pathlib import Path

from ftopt import SolveSettings, load_catalogue, solve
from ftopt.reading.workload_file import load_workload


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bid", type=Path)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--what-if", action="store_true", help="with what-if re-solves (the CLI's default)")
    parser.add_argument(
        "--no-cprofile", action="store_true", help="phase timings only (cProfile slows Python)"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    catalogue = load_catalogue()
    workload = load_workload(args.bid, catalogue)
    loaded = time.perf_counter() - started
    settings = SolveSettings(time_limit=args.time_limit, what_if=args.what_if)
    profile = cProfile.Profile()
    started, cpu = time.perf_counter(), time.process_time()
    if not args.no_cprofile:
        profile.enable()
    result = solve(workload, catalogue, settings)
    profile.disable()
    solved, cpu = time.perf_counter() - started, time.process_time() - cpu
    started = time.perf_counter()
    text = result.model_dump_json()
    rendered = time.perf_counter() - started
    t = result.timings
    print(
        f"{args.bid.name}: {result.status.value} price {result.price} bound {result.bound} gap {result.gap}"
    )
    print(
        f"load {loaded:.2f} s; solve {solved:.2f} s, {cpu:.2f} s CPU at a load of {os.getloadavg()[0]:.1f} "
        f"(build {t.build:.2f}, search {t.search:.2f}, "
        f"explain {t.explain:.2f}, verify {t.verify:.2f}); "
        f"result JSON {rendered:.2f} s, {len(text) / 1e6:.1f} MB"
    )
    if args.no_cprofile:
        return 0
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.top)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
