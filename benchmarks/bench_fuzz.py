"""Fuzzing: every case of the hostile-input suite (issue 36, point 2: tests/hostile_cases.py, of
which tests/test_hostile.py runs a fixed stratified subset), then tests/test_fuzz.py's strategies
with more examples (issue 11, point 7); the figures "fuzz: hostile cases by outcome" and "fuzz:
examples run per command".

    python benchmarks/bench_fuzz.py                      # every hostile case, then 10 times the suite's examples
    python benchmarks/bench_fuzz.py --only hostile       # the hostile cases alone (16 minutes on 2 busy cores)
    python benchmarks/bench_fuzz.py --scale 3 --only probe,solve --seed 7

Each hostile case runs `python -m retrograde ...` as a real process in a folder of its own and
comes to one outcome (hostile_cases.OUTCOMES: refused cleanly, ok, traceback, hang, disk changed,
accepted, several lines, wrong status, wrong message); the script prints each case that neither
refused cleanly nor worked, with why and the defect it is known for, and the counts by outcome
and by subcommand.

Position parsers (every game's `parse` and move reader, `--heaps`, `--game`, Quarto roots),
agent specs (parsed, built, one move each) and each CLI command with random options run in
this process, as in the suite: every example must exit 0 or with a documented status, print
no traceback, say one error line, leave the stores and files it was given unchanged, and
write nothing on a usage error. A failure stops the run with hypothesis' smallest example.
Without --seed the examples are the suite's (derandomized), only more of them; a seed draws
others. Prints, per command, the examples run, their time and what they came to (exit
statuses; positions parsed or refused; agents built, refused, moved).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import print_options, report

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import hostile_cases  # noqa: E402 - the cases live with the tests
import test_fuzz  # noqa: E402 - the strategies live with the tests

HOSTILE = "hostile"


def run_hostile(root: Path) -> dict[str, object]:
    """Every hostile case; prints the ones that failed and returns the counts."""
    sandbox = hostile_cases.Sandbox.build(root)
    cases = hostile_cases.all_cases()
    by_outcome: Counter = Counter()
    by_command: dict[str, Counter] = {}
    started = time.perf_counter()
    for case in cases:
        verdict = hostile_cases.run_case(case, sandbox)
        by_outcome[verdict.outcome] += 1
        by_command.setdefault(case.command, Counter())[verdict.outcome] += 1
        if not verdict.passed:
            known = " (known defect)" if case.defect else ""
            print(f"  {verdict.outcome}{known}: {case.name}: {verdict.why[:300]}", flush=True)
    seconds = time.perf_counter() - started
    figures: dict[str, object] = {"hostile cases": len(cases), "hostile seconds": round(seconds, 1),
                                  "known defects": sum(1 for case in cases if case.defect)}
    figures.update({f"outcome: {name}": by_outcome[name] for name in hostile_cases.OUTCOMES})
    for command, counts in sorted(by_command.items()):
        figures[f"command {command}"] = ", ".join(f"{key} {count}" for key, count in sorted(counts.items()))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=10.0, help="examples: this many times the suite's")
    parser.add_argument("--only", default=None, help="comma-separated: " + ",".join([HOSTILE, *test_fuzz.BUDGET]))
    parser.add_argument("--seed", type=int, default=None, help="draw other examples than the suite's")
    options = parser.parse_args()
    names = options.only.split(",") if options.only else [HOSTILE, *test_fuzz.BUDGET]
    unknown = sorted(set(names) - {HOSTILE, *test_fuzz.BUDGET})
    if unknown:
        parser.error(f"--only: unknown {', '.join(unknown)}")
    print_options(options)
    figures: dict[str, object] = {}
    if HOSTILE in names:
        names.remove(HOSTILE)
        with tempfile.TemporaryDirectory() as folder:
            report("fuzz: hostile cases by outcome", run_hostile(Path(folder)))
    if not names:
        return
    with tempfile.TemporaryDirectory() as folder:
        sandbox = test_fuzz.Sandbox.build(Path(folder))
        for name in names:
            examples = max(1, round(test_fuzz.BUDGET[name] * options.scale))
            started = time.perf_counter()
            if name == "parse":
                outcomes = Counter()
                ran = test_fuzz.fuzz_parsers(examples, outcomes, seed=options.seed)
            elif name == "spec":
                ran = test_fuzz.fuzz_specs(sandbox, examples, seed=options.seed)
                outcomes = sandbox.outcomes["spec"]
            else:
                ran = test_fuzz.fuzz_cli(name, sandbox, examples, seed=options.seed)
                outcomes = sandbox.outcomes[name]
            seconds = time.perf_counter() - started
            figures[f"{name}: examples"] = ran
            figures[f"{name}: seconds"] = round(seconds, 1)
            figures[f"{name}: outcomes"] = ", ".join(f"{key} {count}" for key, count in sorted(outcomes.items()))
            print(f"  {name}: {ran} examples in {seconds:.1f} s ({dict(sorted(outcomes.items()))})", flush=True)
    figures["total examples"] = sum(value for key, value in figures.items() if key.endswith(": examples"))
    report("fuzz: examples run per command", figures)


if __name__ == "__main__":
    main()
