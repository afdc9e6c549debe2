"""A long 5x5 Quixo solve watched from outside (issue 34, point 4): wall time, the peak memory of
each process, the scratch folder's peak and the store's bytes, then `verify` on the store.

    python benchmarks/bench_quixo_deep.py --store /data/q5/store.zarr --down-to 21
    python benchmarks/bench_quixo_deep.py --store /data/q5/store.zarr --down-to 21   # again: resumes

The solve is the real CLI (`solve quixo --size 5 --down-to N`) on --workers workers. Every
--interval seconds the script reads each process of the solve's tree (psutil: resident memory,
named by its role: the driver, a worker, a nanny) and the bytes under the store's scratch folder;
it keeps each one's peak and prints a progress line every --every seconds. A stopped run (Ctrl-C,
a lost machine) resumes where it stopped when the script is run again with the same --store:
each run is a segment, appended to <store>.runs.json (and written there at each progress line,
so that a run killed outright keeps all but its last minutes), and the figures printed at the end are
those of all segments (wall times added, peaks the largest of any). Once the solve ends, `verify`
runs on the store, watched the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
from common import folder_bytes, print_options, report


def role(process: psutil.Process) -> str:
    """What a process of the solve's tree is: the driver, a dask worker or nanny, or another."""
    try:
        words = " ".join(process.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "gone"
    if "-m retrograde" in words:
        return "driver"
    if "spawn_main" in words or "multiprocessing" in words:
        return "worker"
    return process.name()


class Watch:
    """Samples a process tree's memory and a folder's bytes on a thread until `stop`."""

    def __init__(self, root: psutil.Process, scratch: Path, interval: float, every: float, started: float,
                 kept=lambda watch: None):
        self.root, self.scratch, self.interval, self.every, self.started = root, scratch, interval, every, started
        self.kept = kept  # called at each progress line: the segment so far is written down
        self.peaks: dict[str, int] = {}  # "<role> <pid>" -> peak resident bytes
        self.scratch_peak = 0
        self.least_free = shutil.disk_usage(scratch.parent.parent).free
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> tuple[int, int]:
        total = 0
        try:
            processes = [self.root, *self.root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return 0, 0
        for process in processes:
            try:
                rss = process.memory_info().rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            key = f"{role(process)} {process.pid}"
            self.peaks[key] = max(self.peaks.get(key, 0), rss)
            total += rss
        scratch = folder_bytes(self.scratch) if self.scratch.is_dir() else 0
        self.scratch_peak = max(self.scratch_peak, scratch)
        self.least_free = min(self.least_free, shutil.disk_usage(self.scratch.parent.parent).free)
        return total, scratch

    def _run(self) -> None:
        last = time.monotonic()
        while not self._done.wait(self.interval):
            try:
                total, scratch = self._sample()
            except OSError:  # a scratch file removed while it was summed: the next sample counts
                continue
            if time.monotonic() - last >= self.every:
                last = time.monotonic()
                print(f"  {time.strftime('%H:%M:%S')} {time.monotonic() - self.started:8.0f} s: "
                      f"{total / 2**30:6.2f} GiB resident, scratch {scratch / 1e9:6.2f} GB, "
                      f"disk free {self.least_free / 1e9:6.1f} GB", flush=True)
                self.kept(self)

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def watched(args: list[str], scratch: Path, options, log: Path, keep) -> dict:
    """Run `python -m retrograde ARGS` watched; its segment (wall, exit status, peaks), which
    `keep(segment)` writes down at each progress line too (code None: still running, or killed
    before it could say: a machine lost mid-segment loses at most --every seconds of it)."""
    started, at = time.monotonic(), time.strftime("%Y-%m-%d %H:%M")

    def segment(watch: Watch, code: int | None) -> dict:
        return {"command": args[0], "at": at, "workers": options.workers, "wall": time.monotonic() - started,
                "code": code,
                "peaks": dict(watch.peaks), "scratch_peak": watch.scratch_peak, "least_free": watch.least_free}

    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "retrograde", *args], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        watch = Watch(psutil.Process(proc.pid), scratch, options.interval, options.every, started,
                      lambda watching: keep(segment(watching, None)))
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    try:
        code = proc.wait()
    except KeyboardInterrupt:  # stop the solve as a user would; the segment is kept, the rerun resumes
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait()
    finally:
        watch.stop()
    return segment(watch, code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="the store (kept: a rerun resumes it)")
    parser.add_argument("--down-to", type=int, default=21)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-memory", default=None, help="passed to solve (default: the solve's own)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--every", type=float, default=300.0, help="seconds between progress lines")
    parser.add_argument("--no-verify", action="store_true")
    options = parser.parse_args()
    # Ctrl-C stops the solve as a user's would, even where a shell started this in the background
    # with SIGINT ignored (the solve then inherits the default, not the ignoring)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print_options(options)
    store = options.store.resolve()
    runs_file = store.with_name(store.name + ".runs.json")
    runs = json.loads(runs_file.read_text()) if runs_file.exists() else []
    log = store.with_name(store.name + ".log")
    solve = ["solve", "quixo", "--size", "5", "--down-to", str(options.down_to), "--store", str(store),
             "--workers", str(options.workers)]
    if options.worker_memory:
        solve += ["--worker-memory", options.worker_memory]
    steps = [("solve", solve)]
    if not options.no_verify:
        steps.append(("verify", ["verify", "--store", str(store), "--workers", str(options.workers)]))
    for name, args in steps:
        if any(run["command"] == name and run["code"] == 0 for run in runs):
            continue
        print(f"{name}: {' '.join(args)}", flush=True)
        runs.append(watched(args, store / "scratch", options, log,
                            lambda segment: runs_file.write_text(json.dumps([*runs, segment], indent=1))))
        runs_file.write_text(json.dumps(runs, indent=1))
        if runs[-1]["code"] != 0:
            raise SystemExit(f"{name} stopped with status {runs[-1]['code']} (see {log}); run again to resume")
    figures = {"positions": None}
    from retrograde.data.store import Store

    with Store.open(store) as opened:
        figures["positions"] = opened.plan.positions
    for name, _ in steps:
        mine = [run for run in runs if run["command"] == name]
        peaks: dict[str, int] = {}
        for run in mine:
            for key, value in run["peaks"].items():
                peaks[key] = max(peaks.get(key, 0), value)
        figures[f"{name} wall s"] = round(sum(run["wall"] for run in mine), 1)
        figures[f"{name} segments"] = len(mine)
        figures[f"{name} largest process MB"] = round(max(peaks.values(), default=0) / 2**20)
        figures[f"{name} processes' peaks MB"] = {key: round(value / 2**20) for key, value in sorted(peaks.items())}
        figures[f"{name} scratch peak GB"] = round(max(run["scratch_peak"] for run in mine) / 1e9, 2)
        figures[f"{name} least disk free GB"] = round(min(run["least_free"] for run in mine) / 1e9, 1)
    figures["store bytes"] = folder_bytes(store)
    report(f"5x5 Quixo --down-to {options.down_to}", figures)


if __name__ == "__main__":
    main()
