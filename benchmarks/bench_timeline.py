"""Where the second core idles (issue 26): a task timeline of a solve in-process (`--workers 0`)
and on 2 worker threads (`--workers 2`), each in a fresh process, alternating, caches warm.

    python benchmarks/bench_timeline.py                          # 4x4 Quixo, 3 rounds
    python benchmarks/bench_timeline.py --size 5 --down-to 24 --repeat 1

Each run is this script started again (`--run KIND`) with every task a worker runs timed (its key,
thread, start, end and CPU time), from the moment the Python process started (`/proc/self/stat`).
Per kind, the medians of: the wall time, the serial start (process start to the first task), the
end (last task to exit), the tasks' wall and CPU time, the driver thread's CPU time, and how long
0, 1 or 2 threads were busy between the first task and the last. Then
the tasks' time by kind (the key's first word: chunk, first, propagate, ...), in-process against
threads: what a task costs more when two run at once (the GIL, the shared cache) is the
part of the speedup that no schedule can recover.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from common import print_options, report

WORKERS = {"in-process": "0", "threads": "2"}


def _process_start() -> float:
    """perf_counter() at this process's start (its start time in clock ticks since boot)."""
    ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return time.perf_counter() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))


def run(kind: str, game: list[str], store: Path) -> dict:
    """Solve once with the executors' tasks timed; the timeline's figures (as JSON)."""
    started = _process_start()
    from retrograde.cli import main
    from retrograde.pipeline import graph, stages

    events: list[tuple[str, str, float, float, float]] = []  # thread, key, start, end, CPU seconds
    pop = graph.TaskGraph.pop

    def timed_pop(graph):
        task = pop(graph)
        if task is None or task.in_driver:
            return task

        def fn(state, *args, _fn=task.fn, _key=task.key):
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return _fn(state, *args)
            finally:
                events.append((threading.current_thread().name, _key, start, time.perf_counter(),
                               time.thread_time() - cpu))
        fn.__wrapped__ = task.fn
        return replace(task, fn=fn)

    class Recording(tuple):
        """The tasks whose results the driver records, a timed task's function among them as its
        own (else the timed solve would skip recording its chunks, and time less than a solve)."""

        def __contains__(self, fn):
            return tuple.__contains__(self, getattr(fn, "__wrapped__", fn))

    graph.TaskGraph.pop = timed_pop
    stages.RECORDING = Recording(stages.RECORDING)
    try:
        main(["solve", *game, "--store", str(store), "--workers", WORKERS[kind], "--quiet"])
    except SystemExit as exit_:
        if exit_.code:
            raise
    finally:
        ended, driver_cpu = time.perf_counter(), time.thread_time()
    from retrograde.data.store import Store

    with Store.open(store) as solved:  # every chunk recorded, as a solve records it
        if not solved.complete:
            raise SystemExit(f"bench_timeline: the {kind} solve left chunks unrecorded")

    first, last = min(e[2] for e in events), max(e[3] for e in events)
    edges = sorted([(e[2], 1) for e in events] + [(e[3], -1) for e in events])
    busy_for = [0.0, 0.0, 0.0]  # seconds with 0, 1, 2 (or more) threads busy
    running, previous = 0, first
    for moment, step in edges:
        busy_for[min(running, 2)] += moment - previous
        running, previous = running + step, moment
    by_kind: dict[str, float] = {}
    for _, key, start, end, _ in events:
        by_kind[key.split("-")[0]] = by_kind.get(key.split("-")[0], 0.0) + end - start
    longest = sorted(((end - start, key) for _, key, start, end, _ in events), reverse=True)[:5]
    return {"wall": ended - started, "serial_start": first - started, "end": ended - last,
            "tasks": len(events), "busy": sum(e[3] - e[2] for e in events), "task_cpu": sum(e[4] for e in events),
            "driver_cpu": driver_cpu, "idle_both": busy_for[0], "one_busy": busy_for[1], "two_busy": busy_for[2],
            "by_kind": by_kind, "longest": longest}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--down-to", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cores", default=None, help="Pin every run to these cores (e.g. 0,1).")
    parser.add_argument("--run", choices=WORKERS, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    game = ["quixo", "--size", str(options.size)] + (["--down-to", str(options.down_to)] if options.down_to else [])
    if options.run:  # one timed solve, in this process
        print(json.dumps(run(options.run, game, options.store)))
        return
    print_options(options)
    if options.cores:
        os.sched_setaffinity(0, {int(core) for core in options.cores.split(",")})  # the runs inherit it
    runs: dict[str, list[dict]] = {kind: [] for kind in WORKERS}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(options.repeat + 1):  # round 0 warms the caches
            for kind in WORKERS:
                store = Path(tmp) / f"store-{round_}-{kind}.zarr"
                out = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--run", kind, "--store", str(store)],
                                     capture_output=True, text=True)
                if out.returncode != 0:
                    raise SystemExit(f"bench_timeline: the {kind} run failed:\n{out.stderr[-2000:]}")
                figures = json.loads(out.stdout.strip().splitlines()[-1])
                if round_:
                    runs[kind].append(figures)
                    print(f"  round {round_}: {kind} wall {figures['wall']:.2f} s, serial start "
                          f"{figures['serial_start']:.2f} s, tasks {figures['busy']:.2f} s busy ({figures['task_cpu']:.2f} "
                          f"s CPU), driver {figures['driver_cpu']:.2f} s CPU, one busy "
                          f"{figures['one_busy']:.2f} s, two busy {figures['two_busy']:.2f} s, end "
                          f"{figures['end']:.2f} s", flush=True)
    figures: dict = {}
    for kind, measured in runs.items():
        for key in ("wall", "serial_start", "end", "busy", "task_cpu", "driver_cpu", "idle_both", "one_busy",
                    "two_busy"):
            figures[f"{kind} {key} s"] = round(statistics.median(run[key] for run in measured), 3)
        kinds = sorted({name for run in measured for name in run["by_kind"]})
        figures[f"{kind} tasks by kind s"] = {
            name: round(statistics.median(run["by_kind"].get(name, 0.0) for run in measured), 3) for name in kinds}
        figures[f"{kind} longest tasks s"] = [[round(seconds, 3), key] for seconds, key in measured[0]["longest"]]
    figures["speedup"] = round(figures["in-process wall s"] / figures["threads wall s"], 3)
    figures["task time threads / in-process"] = round(figures["threads busy s"] / figures["in-process busy s"], 3)
    figures["task CPU threads / in-process"] = round(figures["threads task_cpu s"] / figures["in-process task_cpu s"], 3)
    report(f"task timeline, {' '.join(game)}", figures)


if __name__ == "__main__":
    main()
