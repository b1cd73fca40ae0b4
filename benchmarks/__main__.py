"""``python -m benchmarks [--quick] [--only NAME ...] [--out PATH]``: run, print a table, write the run's
figures to ``RESULTS-<names>.md`` (git-ignored); ``RESULTS.md`` keeps the current figures, one section per
benchmark, copied from such a run by hand."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import BENCHMARKS
from benchmarks.common import Section, machine
from benchmarks.report import RESULTS, markdown, print_table, write_results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke test of the harness")
    parser.add_argument("--only", action="append", choices=BENCHMARKS, help="run only this (repeatable)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results file (default benchmarks/RESULTS-<names>.md; RESULTS-all.md for a full run)",
    )
    args = parser.parse_args(argv)
    if args.out is None:  # a run never overwrites RESULTS.md, the page of current figures
        named = (["quick"] if args.quick else []) + (args.only or ["all"])
        args.out = RESULTS.with_name(f"RESULTS-{'-'.join(named)}.md")
    names = args.only or list(BENCHMARKS)
    facts = machine()
    sections: list[Section] = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        started = time.perf_counter()
        print(f"running {name}{' (quick)' if args.quick else ''} ...", file=sys.stderr, flush=True)
        section: Section = module.run(quick=args.quick)
        section.seconds = time.perf_counter() - started
        sections.append(section)
    facts["load average at the end"] = machine()["load average (1/5/15 min)"]
    print_table(sections)
    command = (
        "python -m benchmarks"
        + (" --quick" if args.quick else "")
        + "".join(f" --only {n}" for n in names if args.only)
    )
    path = write_results(markdown(sections, facts, quick=args.quick, command=command), args.out)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
