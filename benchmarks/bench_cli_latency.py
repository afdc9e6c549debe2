"""How long the CLI takes to answer what needs no work (issue 34, point 2): `--help`, usage errors
and one-line refusals, each timed as a whole process (`python -m retrograde ...`), the median of
`--rounds` runs, with the CPU seconds the process used (user and system: on a shared machine,
the figure that depends least on what else runs). The goal is 0.5 s of wall time each on a
quiet machine; `python -c pass` is printed first, as the floor the interpreter itself sets.

    python benchmarks/bench_cli_latency.py              # every command, 5 rounds
    python benchmarks/bench_cli_latency.py --rounds 9
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from common import print_options

#: The commands timed: (what, arguments); "{tmp}" is a scratch folder with nothing in it.
COMMANDS = (
    ("top help", ["--help"]),
    ("games", ["games"]),
    ("agents", ["agents"]),
    ("solve help", ["solve", "--help"]),
    ("solve nim help", ["solve", "nim", "--help"]),
    ("run help", ["run", "--help"]),
    ("validate help", ["validate", "--help"]),
    ("unknown command", ["nosuch"]),
    ("solve unknown game", ["solve", "nosuch", "--store", "{tmp}/s"]),
    ("solve bad game option", ["solve", "nim", "--heaps", "x", "--store", "{tmp}/s"]),
    ("solve bad --workers", ["solve", "nim", "--heaps", "1,2", "--store", "{tmp}/s", "--workers", "-1"]),
    ("solve bad --worker-memory", ["solve", "nim", "--heaps", "1,2", "--store", "{tmp}/s",
                                   "--worker-memory", "lots"]),
    ("plan bad game option", ["plan", "nim", "--heaps", "x"]),
    ("run unknown workflow", ["run", "quixo5"]),
    ("run bad --workers", ["run", "tictactoe", "--workers", "-3", "--out", "{tmp}/rw"]),
    ("status, no store", ["status", "--store", "{tmp}/none"]),
    ("verify, no store", ["verify", "--store", "{tmp}/none"]),
    ("upgrade, no store", ["upgrade", "--store", "{tmp}/none"]),
    ("probe, no store", ["probe", "--store", "{tmp}/none", "1,2"]),
    ("analyze, no store", ["analyze", "--store", "{tmp}/none"]),
    ("play, no store", ["play", "--store", "{tmp}/none"]),
    ("explore, no store", ["explore", "--store", "{tmp}/none"]),
    ("validate, no store", ["validate", "--store", "{tmp}/none", "--out", "{tmp}/v"]),
    ("match, no store", ["match", "random", "random", "--store", "{tmp}/none"]),
    ("validate, no store nor game", ["validate", "--out", "{tmp}/v"]),
    ("validate bad --game", ["validate", "--game", "nim --heaps x", "--out", "{tmp}/v"]),
    ("match bad --game", ["match", "random", "random", "--game", "nim --heaps x"]),
    ("match unknown agent", ["match", "random", "nosuch", "--game", "nim --heaps 1,2"]),
    ("match bad --sprt", ["match", "random", "random", "--game", "nim --heaps 1,2", "--sprt", "x"]),
    ("validate unknown agent", ["validate", "--game", "tictactoe", "--agents", "nosuch", "--out", "{tmp}/v"]),
    ("train bad --game", ["train", "ga", "--game", "nosuch", "--out", "{tmp}/a.json"]),
    ("train unknown learner", ["train", "nosuch", "--game", "nim --heaps 1,2", "--out", "{tmp}/a.json"]),
    ("solve too big for this machine", ["solve", "quixo", "--size", "5", "--store", "{tmp}/big"]),
)


def timed(command: list[str]) -> tuple[float, float, int]:
    """Wall and CPU seconds of one whole process running `command`, and its exit status."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="runs of each command; the median is printed")
    args = parser.parse_args()
    print_options(args)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'':<32} {'wall':>7} {'cpu':>7}")
        for what, command in [("python -c pass", [sys.executable, "-c", "pass"]),
                              *((what, [sys.executable, "-m", "retrograde", *(word.replace("{tmp}", tmp)
                                                                              for word in words)])
                                for what, words in COMMANDS)]:
            runs = [timed(command) for _ in range(args.rounds)]
            wall, cpu = (statistics.median(run[k] for run in runs) for k in (0, 1))
            print(f"{what:<32} {wall:6.2f}s {cpu:6.2f}s  exit {runs[-1][2]}", flush=True)


if __name__ == "__main__":
    main()
