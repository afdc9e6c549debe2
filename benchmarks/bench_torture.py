"""Crash torture (issue 11): SIGKILL at seeded random moments, rerun, and the final bytes must be
exactly those of an uninterrupted run.

    python benchmarks/bench_torture.py                    # all four parts (20-40 minutes on 2 cores)
    python benchmarks/bench_torture.py --only driver --kills 20 --seed 1
    python benchmarks/bench_torture.py --only worker --worker-kills 20
    python benchmarks/bench_torture.py --only train --only validate

Parts:
* driver: `retrograde solve quixo --size 4 --store S --workers 2 --quiet`, started in a process
  group of its own, with a propagation checkpoint every --checkpoint-seconds
  (RETROGRADE_CHECKPOINT_SECONDS); the whole group (driver, its LocalCluster's worker processes,
  the resource tracker) is SIGKILLed at a seeded moment, the same command is run again, and so on
  until --kills kills have landed, then the last run is left to finish. A run that finishes before
  its kill moment ends its chain (the store is compared, a fresh chain starts). Moments, by a
  seeded draw per run: most are uniform over what the run has left to do (estimated from an
  uninterrupted run's duration, the median of the reference and of any run from nothing that was
  never killed, and the positions already recorded); some fall in the start-up (before the first
  work the reference wrote to disk: imports, planning, the cluster's start); the others wait for an
  event first, then up to 0.25 s: the plan being written (its staging folder), a loopy group's new
  first-pass file, a propagation checkpoint being written or just written, the end of the work
  (the scratch folder removed, or the result line printed). (4x4 Quixo has no loop-free tier:
  every step is a loopy group, first passes then one propagation; the loop-free chunk tasks are
  killed in tests/test_resume.py's Nim solves.) Each chain's final store is compared, every file
  byte for byte, with a store solved uninterrupted with the same checkpoint interval; the store
  must open between runs. Resume overhead: the killed chains' summed run time minus as many
  uninterrupted runs.
* worker: the same solve, uninterrupted by the driver, while ONE worker process of its
  LocalCluster (a child of the driver started by multiprocessing's spawn; the nanny runs as an
  object inside the driver and restarts the worker) is SIGKILLed at seeded moments, about one every
  --worker-gap seconds, until --worker-kills kills have landed over as many fresh solves as it
  takes. A solve must carry on to the end, or stop with one line on stderr (no traceback) and then
  finish on a rerun; a run still going after --hang-seconds is a hang (a bug: the number of worker
  processes over time is printed). Final bytes as above. Each kill's victim age is printed: a
  young one was killed while it started (the cluster's start, or a restart by its nanny).
* train: `retrograde train --train-spec --game --train-game --out PATH --seed S` killed like the
  driver (events: a checkpoint being written, the artifact written); the final artifact and its
  folder (nothing else left: no checkpoint folder, no lock) must equal an uninterrupted run's.
* validate: `retrograde validate --store S --out DIR --agents ... --games N --seed S` killed the
  same way (no checkpoints: a rerun starts over); report.json, report.md and report.html must equal
  an uninterrupted run's (timings.json holds the wall-clock figures and is left out).

Everything runs in a fresh temporary folder (kept with --keep, or when a part fails); the numba
cache is warmed first. Prints the options, then per part the kills tried and landed, the chains
(runs) that ended byte-identical, the phases the kills landed in, wall times and the overhead.
Exit status 1 if any run ended differently or any bug was seen.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from common import kill_group, print_options, report, spawned_workers, start_group, tree_difference

PARTS = ("driver", "worker", "train", "validate")
#: A kill moment is uniform over [0, SPREAD x the run's estimated duration]: some runs finish first.
SPREAD = 1.15
#: Seconds between two looks at a running command (events, kill moments).
POLL = 0.01


# --- a chain of killed runs -------------------------------------------------------------------
@dataclass
class Target:
    """What a part runs and how it reads the state its runs leave: `progress` (0..1, work kept on
    disk), `events` (name -> whether it has happened in the current run; `arm` is called as a run
    starts), `phase` (what a kill hit, from the state before and after), `complete` (the output
    is whole), `compare` (None when the output equals the reference, else what differs), `keep`
    (move a failed chain's output aside for inspection)."""

    name: str
    args: list[str]
    env: dict[str, str]
    reference_seconds: float
    startup_seconds: float
    progress: Callable[[], float]
    snapshot: Callable[[], object]
    phase: Callable[[object, object], str]
    complete: Callable[[], bool]
    compare: Callable[[], str | None]
    reset: Callable[[], None]
    keep: Callable[[int], None]
    events: Callable[[float], dict[str, float]]
    arm: Callable[[Path], Callable[[], str | None]]


@dataclass
class Run:
    chain: int
    mode: str
    planned: float
    seconds: float = 0.0
    killed: bool = False
    rc: int | None = None
    phase: str = ""
    error: str = ""


@dataclass
class Tally:
    whole_runs: list[float]  # seconds of uninterrupted runs from nothing: the reference's, and chains never killed
    runs: list[Run] = field(default_factory=list)
    chains: list[dict] = field(default_factory=list)
    bugs: list[str] = field(default_factory=list)


def _stderr_tail(path: Path, lines: int = 6) -> str:
    text = path.read_text(errors="replace").strip().splitlines()
    return " | ".join(text[-lines:])


def kill_chain(target: Target, rng: random.Random, kills: int, logs: Path, hang_seconds: float) -> Tally:
    """Run `target` again and again, SIGKILLing its process group at seeded moments, until `kills`
    kills have landed (each chain is run to its end and compared); see the module's docstring."""
    tally = Tally([target.reference_seconds])
    landed, chain, chain_runs = 0, 0, []
    kinds: set[str] = set()  # the kinds of moments seen so far (event names)
    target.reset()
    while True:
        final = landed >= kills
        progress = target.progress()
        whole = statistics.median(tally.whole_runs)  # one uninterrupted run, as this shared machine runs now
        estimate = target.startup_seconds + (whole - target.startup_seconds) * (1 - progress)
        if final:
            mode, planned = "none (last run)", float("inf")
        else:
            weights = target.events(progress)
            modes = ["time", *weights]
            mode = rng.choices(modes, [1.0 - sum(weights.values()), *weights.values()])[0]
            # Every kind of moment is hit at least once: when the kills left are no more than the kinds
            # never landed yet, one of those that can happen now is drawn instead.
            kinds.update(name for name, weight in weights.items() if weight)
            missing = sorted(kinds - {run.mode for run in tally.runs if run.killed} - {"time"})
            applicable = [name for name in missing if weights.get(name)]
            if applicable and kills - landed <= 2 * len(missing):
                mode = rng.choice(applicable)
            planned = (rng.uniform(0, SPREAD * estimate) if mode == "time" else
                       rng.uniform(0, target.startup_seconds) if mode == "start-up" else rng.uniform(0, 0.25))
        before = target.snapshot()
        out, err = logs / f"run{len(tally.runs)}.out", logs / f"run{len(tally.runs)}.err"
        detect = target.arm(out)
        proc = start_group(target.args, stdout=out, stderr=err, env=target.env)
        began, seen = time.monotonic(), None
        run = Run(chain, mode, planned)
        try:
            while True:
                now = time.monotonic() - began
                if proc.poll() is not None:
                    break
                if mode in ("time", "start-up") and now >= planned:
                    break
                if mode not in ("time", "start-up", "none (last run)"):
                    try:
                        event = detect()
                    except OSError:  # a folder went while it was listed (the solve deletes scratch folders)
                        event = None
                    if seen is None and event == mode:
                        seen = now
                    if seen is not None and now - seen >= planned:
                        break
                if now > hang_seconds:
                    run.error = f"still running after {hang_seconds:.0f} s (a hang)"
                    break
                time.sleep(POLL)
        except BaseException:  # the benchmark itself stops: nothing it started may go on
            kill_group(proc)
            raise
        run.seconds = time.monotonic() - began
        run.killed = proc.poll() is None
        kill_group(proc)
        run.rc = proc.returncode
        tally.runs.append(run)
        chain_runs.append(run)
        if run.error:
            tally.bugs.append(f"{target.name} chain {chain} run {len(chain_runs)}: {run.error}; stderr: "
                              f"{_stderr_tail(err)}")
        if run.killed and not run.error:
            landed += 1
            try:
                run.phase = target.phase(before, target.snapshot())
            except Exception as exc:  # noqa: BLE001 - a store that cannot be opened after a kill is a finding
                run.phase = "unreadable"
                tally.bugs.append(f"{target.name} chain {chain}: after the kill at {run.seconds:.2f} s ({mode}) "
                                  f"the output cannot be read: {type(exc).__name__}: {exc}")
            continue
        if run.error:
            continue
        if run.rc == 0 and progress == 0:
            tally.whole_runs.append(run.seconds)  # a run from nothing never killed: one more sample
        if run.rc != 0:
            tally.bugs.append(f"{target.name} chain {chain} run {len(chain_runs)} ({mode}, not killed) exited "
                              f"{run.rc}: {_stderr_tail(err)}")
            tally.chains.append({"chain": chain, "runs": len(chain_runs), "identical": False,
                                 "difference": f"exit status {run.rc}"})
        else:
            difference = target.compare() if target.complete() else "the output is not complete"
            tally.chains.append({"chain": chain, "runs": len(chain_runs), "kills": sum(r.killed for r in chain_runs),
                                 "seconds": sum(r.seconds for r in chain_runs), "identical": difference is None,
                                 "difference": difference})
        print(f"  {target.name} chain {chain}: {json.dumps(tally.chains[-1])}", flush=True)
        if not tally.chains[-1]["identical"]:
            target.keep(chain)
        if final:
            return tally
        chain, chain_runs = chain + 1, []
        target.reset()


def chain_figures(target: Target, tally: Tally, kills_asked: int) -> dict:
    """The figures of a killed-chain part."""
    killed = [run for run in tally.runs if run.killed and not run.error]
    whole = [c for c in tally.chains if "seconds" in c and c["kills"]]
    uninterrupted = statistics.median(tally.whole_runs)
    overhead = sum(c["seconds"] for c in whole) - len(whole) * uninterrupted
    kills_in_whole = sum(c["kills"] for c in whole)
    return {
        "kills asked": kills_asked,
        "kills tried (runs with a kill moment)": sum(1 for run in tally.runs if run.mode != "none (last run)"),
        "kills landed (command still running)": len(killed),
        "kills landed mid-work (output not complete)": sum(1 for run in killed if not run.phase.startswith("after")),
        "chains (killed, rerun, finished)": len(tally.chains),
        "chains byte-identical to the reference": sum(1 for c in tally.chains if c["identical"]),
        "differences": [c["difference"] for c in tally.chains if not c["identical"]],
        "kill modes (landed)": dict(Counter(run.mode for run in killed)),
        "phases hit": dict(sorted(Counter(run.phase for run in killed).items())),
        "kill moments s (landed, sorted)": [round(run.seconds, 2) for run in sorted(killed, key=lambda r: r.seconds)],
        "kills (chain, mode, moment s, phase)": [(run.chain, run.mode, round(run.seconds, 2), run.phase) for run in killed],
        "uninterrupted run s (median of the reference and of chains never killed)": round(uninterrupted, 2),
        "uninterrupted runs s": [round(seconds, 2) for seconds in tally.whole_runs],
        "killed chains' summed run s": round(sum(c["seconds"] for c in whole), 2),
        "resume overhead s (killed chains' run time - chains x one uninterrupted run)": round(overhead, 2),
        "resume overhead s a kill": round(overhead / kills_in_whole, 2) if kills_in_whole else None,
        "bugs": tally.bugs,
    }


def timed(args: list[str], logs: Path, name: str, env: dict[str, str] | None = None,
          first_work: Callable[[], bool] | None = None) -> tuple[float, float]:
    """Run the command to its end (it must succeed): (wall seconds, seconds until `first_work`)."""
    out, err = logs / f"{name}.out", logs / f"{name}.err"
    proc = start_group(args, stdout=out, stderr=err, env=env)
    began, first = time.monotonic(), None
    try:
        while proc.poll() is None:
            try:
                if first is None and first_work is not None and first_work():
                    first = time.monotonic() - began
            except OSError:  # a folder went while it was listed
                pass
            time.sleep(0.05)
    finally:
        kill_group(proc)
    seconds = time.monotonic() - began
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {_stderr_tail(err)}")
    return seconds, first if first is not None else 0.0


# --- the store parts ------------------------------------------------------------------------
def store_state(store: Path) -> dict:
    """What a solve has on disk: positions recorded, first-pass files, checkpoints (with their mtimes)."""
    from retrograde.data.store import Store
    from retrograde.pipeline.stages import positions_done

    state = {"exists": (store / "zarr.json").is_file(),
             "staging": sorted(p.name for p in store.parent.glob(f".{store.name}.planning-*")),
             "first_pass": {str(p.relative_to(store)) for p in store.glob("scratch/*/[0-9]*.npz")},
             "checkpoints": {str(p.relative_to(store)): p.stat().st_mtime_ns
                             for p in store.glob("scratch/*/propagation-*.npz")},
             "newest": (0, ""), "done": 0, "positions": 1, "complete": False}
    for kind, pattern in (("first pass", "scratch/*/[0-9]*.npz"), ("checkpoint", "scratch/*/propagation-*.npz"),
                          ("chunk", "tiers/*/*/c/*")):
        for path in store.glob(pattern):
            state["newest"] = max(state["newest"], (path.stat().st_mtime_ns, kind))
    if state["exists"]:
        with Store.open(store) as opened:
            state.update(done=positions_done(opened), positions=opened.plan.positions, complete=opened.complete)
    return state


def solve_phase(before: dict, after: dict) -> str:
    """What the kill hit, from what the killed run left on disk beside what it started from: the
    kind of the last file this run wrote (a first pass, a checkpoint, a chunk), or nothing."""
    if not after["exists"]:  # a killed plan leaves its staging folder (the next run removes it)
        return ("plan: being written (a new staging folder)" if set(after["staging"]) - set(before["staging"])
                else "start-up: no store yet")
    if after["complete"]:
        return "after the work: every chunk recorded (final writes, shut-down)"
    if after["newest"] > before["newest"]:
        return {"first pass": "loopy first passes (the last file written: a first pass)",
                "checkpoint": "loopy propagation (the last file written: a checkpoint)",
                "chunk": "end of a propagation (the last file written: a chunk)"}[after["newest"][1]]
    if not before["exists"]:
        return "plan written, nothing solved yet"
    return "nothing new on disk (start-up, or work lost: a first pass or propagation cut short)"


def store_events(store: Path, out: Path) -> Callable[[], str | None]:
    """An event detector for one run of a solve (its stdout in `out`): the first event it sees."""
    stamps = {str(p): p.stat().st_mtime_ns for p in store.glob("scratch/*/propagation-*.npz")}
    first_pass = set(store.glob("scratch/*/[0-9]*.npz"))
    scratch_seen = [(store / "scratch").is_dir()]
    staging = set(store.parent.glob(f".{store.name}.planning-*"))  # left by a run killed while planning

    def detect() -> str | None:
        if not store.exists():
            return "planning" if set(store.parent.glob(f".{store.name}.planning-*")) - staging else None
        scratch = store / "scratch"
        if scratch.is_dir():
            scratch_seen[0] = True
            if any(scratch.glob("*/propagation-*.partial")):
                return "checkpoint"
            for path in scratch.glob("*/propagation-*.npz"):
                try:
                    if stamps.get(str(path)) != path.stat().st_mtime_ns:
                        return "checkpoint"
                except FileNotFoundError:
                    pass
            if any(path not in first_pass for path in scratch.glob("*/[0-9]*.npz")):
                return "first pass"
        elif scratch_seen[0]:
            return "end of the work"
        if out.exists() and out.stat().st_size:
            return "end of the work"
        return None

    return detect


def quixo_target(work: Path, options, reference: Path, seconds: float, startup: float, env: dict) -> Target:
    chain_dir = work / "chain"
    store = chain_dir / "q.zarr"
    args = ["solve", "quixo", "--size", str(options.size), "--store", str(store), "--workers",
            str(options.workers), "--quiet"]

    def reset():
        shutil.rmtree(chain_dir, ignore_errors=True)
        chain_dir.mkdir(parents=True)

    def progress() -> float:
        state = store_state(store)
        return state["done"] / state["positions"]

    def events(done: float) -> dict[str, float]:
        if not store.exists():  # a chain's first run (or a run after a kill before the plan was in place)
            return {"planning": 0.25, "start-up": 0.15, "end of the work": 0.05}
        return {"start-up": 0.1, "first pass": 0.2, "checkpoint": 0.2, "end of the work": 0.1}

    def compare() -> str | None:
        left = sorted(p.name for p in chain_dir.iterdir())
        if left != [store.name]:
            return f"left beside the store: {left}"
        return tree_difference(store, reference)

    def complete() -> bool:
        return store_state(store)["complete"]

    def keep(chain: int) -> None:
        chain_dir.rename(work / f"failed-chain{chain}")

    return Target("driver", args, env, seconds, startup, progress, lambda: store_state(store), solve_phase,
                  complete, compare, reset, keep, events, lambda stdout: store_events(store, stdout))


def worker_torture(work: Path, options, rng: random.Random, reference: Path, seconds: float, env: dict) -> dict:
    """Kill one worker process at a time during whole solves; see the module's docstring."""
    import psutil

    logs = work / "logs"
    logs.mkdir(parents=True)
    landed, tried, solves, kill_log, ages, bugs = 0, 0, [], [], [], []
    while landed < options.worker_kills:
        folder = work / f"solve{len(solves)}"
        folder.mkdir()
        store = folder / "q.zarr"
        args = ["solve", "quixo", "--size", str(options.size), "--store", str(store), "--workers",
                str(options.workers), "--quiet"]
        out, err = logs / f"solve{len(solves)}.out", logs / f"solve{len(solves)}.err"
        proc = start_group(args, stdout=out, stderr=err, env=env)
        began = time.monotonic()
        next_kill = rng.uniform(0.5, 1.5) * options.worker_gap
        kills_here, hung = [], False
        alive: list[tuple[float, int]] = []  # (moment, worker processes) whenever their number changes
        try:
            while proc.poll() is None:
                now = time.monotonic() - began
                count = len(spawned_workers(proc.pid))
                if not alive or alive[-1][1] != count:
                    alive.append((round(now, 1), count))
                if now > options.hang_seconds:
                    hung = True
                    break
                if now >= next_kill and landed < options.worker_kills:
                    tried += 1
                    workers = spawned_workers(proc.pid)
                    if workers:
                        victim = rng.choice(workers)
                        try:
                            age = time.time() - victim.create_time()
                            victim.send_signal(signal.SIGKILL)
                            landed += 1
                            kills_here.append(round(now, 2))
                            ages.append(round(age, 1))
                            try:
                                done = store_state(store)
                                kill_log.append(done["done"] / done["positions"])
                            except Exception:  # noqa: BLE001 - only a figure
                                pass
                        except psutil.Error:
                            pass
                    next_kill = now + rng.uniform(0.5, 1.5) * options.worker_gap
                time.sleep(0.02)
        except BaseException:  # the benchmark itself stops: nothing it started may go on
            kill_group(proc)
            raise
        wall = time.monotonic() - began
        kill_group(proc)
        rc = proc.returncode
        stderr = err.read_text(errors="replace")
        entry = {"solve": len(solves), "worker kills": len(kills_here), "kill moments s": kills_here,
                 "wall s": round(wall, 2), "exit": rc}
        if hung:
            entry["outcome"] = "hang"
            entry["worker processes over time (s, count)"] = alive
            try:
                done = store_state(store)
                entry["share recorded at the hang"] = round(done["done"] / done["positions"], 3)
            except Exception as exc:  # noqa: BLE001 - only a figure
                entry["share recorded at the hang"] = f"unreadable: {exc}"
            bugs.append(f"worker solve {len(solves)}: still running after {options.hang_seconds:.0f} s with "
                        f"{len(kills_here)} worker kills at {kills_here} (victims' ages "
                        f"{ages[len(ages) - len(kills_here):]} s); worker processes over time {alive}; "
                        f"stderr: {_stderr_tail(err)}")
        elif rc == 0:
            entry["outcome"] = "carried on"
        else:
            lines = [line for line in stderr.splitlines() if line.strip()]
            clean = ("Traceback" not in stderr and len(lines) == 1 and lines[0].startswith("retrograde: error:"))
            entry["outcome"] = "stopped with one line" if clean else "stopped with a traceback or several lines"
            entry["stderr"] = _stderr_tail(err, 12)
            if not clean:
                bugs.append(f"worker solve {len(solves)} (kills at {kills_here}) exited {rc}: {_stderr_tail(err, 12)}")
        if rc != 0 or hung:
            rerun_out, rerun_err = logs / f"solve{len(solves)}-rerun.out", logs / f"solve{len(solves)}-rerun.err"
            rerun = start_group(args, stdout=rerun_out, stderr=rerun_err, env=env)
            try:
                entry["rerun exit"] = rerun.wait(timeout=options.hang_seconds)
            except subprocess.TimeoutExpired:
                entry["rerun exit"] = "hang"
            kill_group(rerun)
            if entry["rerun exit"] != 0:
                bugs.append(f"worker solve {len(solves)}: the rerun exited {entry['rerun exit']}: "
                            f"{_stderr_tail(rerun_err)}")
        left = sorted(p.name for p in folder.iterdir())
        difference = (f"left beside the store: {left}" if left != ["q.zarr"] else
                      tree_difference(store, reference) if store.exists() else "no store")
        entry["identical"] = difference is None
        if difference:
            entry["difference"] = difference
        solves.append(entry)
        print(f"  worker solve {entry['solve']}: {json.dumps(entry)}", flush=True)
        if entry["identical"]:
            shutil.rmtree(folder)
    return {
        "worker kills asked": options.worker_kills,
        "worker kills tried": tried,
        "worker kills landed (a worker process SIGKILLed)": landed,
        "solves": len(solves),
        "solves that carried on to the end": sum(1 for s in solves if s["outcome"] == "carried on"),
        "solves that stopped with one line, then finished on a rerun":
            sum(1 for s in solves if s["outcome"] == "stopped with one line" and s.get("rerun exit") == 0),
        "solves byte-identical to the reference": sum(1 for s in solves if s["identical"]),
        "share of positions recorded at each kill": [round(f, 3) for f in kill_log],
        "age s of each worker process killed (young: killed while it started)": ages,
        "uninterrupted solve s": round(seconds, 2),
        "solves' wall s": [s["wall s"] for s in solves],
        "bugs": bugs,
    }


# --- training and validation ------------------------------------------------------------------
def train_target(work: Path, options, reference: Path, seconds: float, startup: float) -> Target:
    import numpy as np

    folder = work / "chain"
    out = folder / reference.name
    partial = out.with_name(out.name + ".partial")
    args = ["train", options.train_spec, "--game", options.train_game, "--out", str(out), "--seed",
            str(options.seed), "--quiet"]

    def reset():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)

    def checkpoint() -> tuple[int, int]:
        """(units done, units in all) of the run's checkpoint; (0, 1) without one."""
        try:
            with np.load(partial / "checkpoint.npz", allow_pickle=False) as data:
                metadata = json.loads(str(data["metadata"]))
        except (OSError, ValueError, KeyError):
            return 0, 1
        settings = metadata["run"]["settings"]
        return int(metadata["done"]), int(settings.get("episodes") or settings.get("generations") or 1)

    def snapshot():
        stamp = (partial / "checkpoint.npz").stat().st_mtime_ns if (partial / "checkpoint.npz").exists() else None
        return {"done": checkpoint()[0], "stamp": stamp, "artifact": out.exists()}

    def phase(before, after) -> str:
        if after["artifact"]:
            return "after the work: artifact written (clean-up)"
        if after["stamp"] != before["stamp"]:
            return "training, after a checkpoint of this run"
        return "nothing new on disk (start-up, or training before its first checkpoint)"

    def progress() -> float:
        if out.exists():  # killed after the artifact was written: the rerun only cleans up
            return 1.0
        done, total = checkpoint()
        return done / total

    def arm(_stdout: Path):
        stamp = snapshot()["stamp"]

        def detect() -> str | None:
            if out.exists():
                return "artifact written"
            if any(partial.glob("*.partial")):
                return "checkpoint"
            try:
                if (partial / "checkpoint.npz").stat().st_mtime_ns != stamp:
                    return "checkpoint"
            except FileNotFoundError:
                pass
            return None

        return detect

    def compare() -> str | None:
        return tree_difference(folder, reference.parent)

    def keep(chain: int) -> None:
        folder.rename(work / f"failed-chain{chain}")

    return Target("train", args, {}, seconds, startup, progress, snapshot, phase, out.exists, compare, reset, keep,
                  lambda done: {"checkpoint": 0.3, "artifact written": 0.1 if done > 0.8 else 0.0}, arm)


def validate_target(work: Path, options, store: Path, reference: Path, seconds: float, startup: float) -> Target:
    folder = work / "chain"
    out = folder / "report"
    args = ["validate", "--store", str(store), "--out", str(out), "--agents", options.validate_agents,
            "--games", str(options.validate_games), "--seed", str(options.seed), "--workers",
            str(options.validate_workers), "--quiet"]

    def reset():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)

    def snapshot():
        return {p.name: p.stat().st_mtime_ns for p in out.iterdir()} if out.is_dir() else {}

    def phase(before, after) -> str:
        written = {name for name, stamp in after.items() if before.get(name) != stamp}
        if {"report.json", "report.md", "report.html", "timings.json"} <= written:
            return "after the work: report written by this run (shut-down)"
        if written:
            return "writing the report"
        return "measuring (nothing written by this run)"

    def arm(_stdout: Path):
        return lambda: "report files appear" if out.is_dir() and any(out.iterdir()) else None

    def compare() -> str | None:
        left = sorted(p.name for p in folder.iterdir())
        if left != ["report"]:
            return f"left beside the report: {left}"
        return tree_difference(out, reference, ignore=("timings.json",))

    def keep(chain: int) -> None:
        folder.rename(work / f"failed-chain{chain}")

    return Target("validate", args, {}, seconds, startup, lambda: 0.0, snapshot, phase,
                  lambda: (out / "report.json").exists(), compare, reset, keep,
                  lambda done: {"report files appear": 0.15}, arm)


# --- main ---------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=PARTS, help="a part to run (repeat; default all)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments (and of train/validate)")
    parser.add_argument("--size", type=int, default=4, help="Quixo board size of the solves")
    parser.add_argument("--workers", type=int, default=2, help="solve --workers (a LocalCluster)")
    parser.add_argument("--checkpoint-seconds", type=float, default=1.0,
                        help="RETROGRADE_CHECKPOINT_SECONDS of every solve, the reference's included")
    parser.add_argument("--kills", type=int, default=20, help="driver kills to land")
    parser.add_argument("--worker-kills", type=int, default=20, help="worker process kills to land")
    parser.add_argument("--worker-gap", type=float, default=8.0, help="mean seconds between two worker kills")
    parser.add_argument("--train-kills", type=int, default=20)
    parser.add_argument("--train-spec", default="rl:episodes=20000,every=1000")
    parser.add_argument("--train-game", default="tictactoe")
    parser.add_argument("--validate-kills", type=int, default=20)
    parser.add_argument("--validate-agents", default="lookup,random,minimax:depth=2")
    parser.add_argument("--validate-games", type=int, default=20)
    parser.add_argument("--validate-workers", type=int, default=2)
    parser.add_argument("--hang-seconds", type=float, default=300.0,
                        help="a run still going after this is a hang (a bug)")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    options = parser.parse_args()
    parts = options.only or list(PARTS)
    print_options(options, parts=parts)
    work = options.keep or Path(tempfile.mkdtemp(prefix="retrograde-torture-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {"RETROGRADE_CHECKPOINT_SECONDS": str(options.checkpoint_seconds)}
    failed = False
    began = time.monotonic()
    # Warm the numba cache (a small solve): the runs measured are ordinary ones.
    (work / "logs").mkdir()
    timed(["solve", "quixo", "--size", "3", "--store", str(work / "warm.zarr"), "--workers", "0", "--quiet"],
          work / "logs", "warm")

    def rng(part: str) -> random.Random:  # each part's moments depend on the seed alone
        return random.Random(f"{options.seed}-{part}")

    if "driver" in parts or "worker" in parts:
        reference = work / "reference" / "q.zarr"
        reference.parent.mkdir()
        seconds, startup = timed(["solve", "quixo", "--size", str(options.size), "--store", str(reference),
                                  "--workers", str(options.workers), "--quiet"], work / "logs", "reference-solve",
                                 env=env, first_work=lambda: any(reference.glob("scratch/*/*.npz"))
                                 or any(reference.glob("tiers/*/*/c/*")))
        print(f"  reference solve: {seconds:.2f} s, first work on disk after {startup:.2f} s", flush=True)
    if "driver" in parts:
        part_began = time.monotonic()
        logs = work / "driver" / "logs"
        logs.mkdir(parents=True)
        target = quixo_target(work / "driver", options, reference, seconds, startup, env)
        tally = kill_chain(target, rng("driver"), options.kills, logs, options.hang_seconds)
        figures = {"command": f"RETROGRADE_CHECKPOINT_SECONDS={options.checkpoint_seconds} retrograde "
                              + " ".join(target.args), **chain_figures(target, tally, options.kills),
                   "part wall s": round(time.monotonic() - part_began, 1)}
        report("torture: driver (process group) SIGKILL during a Quixo solve", figures)
        failed |= bool(tally.bugs) or figures["chains byte-identical to the reference"] != len(tally.chains)
    if "worker" in parts:
        part_began = time.monotonic()
        figures = {"command": f"RETROGRADE_CHECKPOINT_SECONDS={options.checkpoint_seconds} retrograde solve quixo "
                              f"--size {options.size} --store S --workers {options.workers} --quiet",
                   **worker_torture(work / "worker", options, rng("worker"), reference, seconds, env),
                   "part wall s": round(time.monotonic() - part_began, 1)}
        report("torture: one worker process SIGKILLed during a Quixo solve", figures)
        failed |= bool(figures["bugs"]) or figures["solves byte-identical to the reference"] != figures["solves"]
    if "train" in parts:
        part_began = time.monotonic()
        base = work / "train"
        (base / "reference").mkdir(parents=True)
        (base / "logs").mkdir()
        suffix = ".json" if options.train_spec.startswith("ga") else ".npz"
        reference_out = base / "reference" / f"player{suffix}"
        partial = reference_out.with_name(reference_out.name + ".partial")
        seconds, startup = timed(["train", options.train_spec, "--game", options.train_game, "--out",
                                  str(reference_out), "--seed", str(options.seed), "--quiet"], base / "logs",
                                 "reference", first_work=partial.exists)
        print(f"  reference training: {seconds:.2f} s, first checkpoint after {startup:.2f} s", flush=True)
        target = train_target(base, options, reference_out, seconds, startup)
        tally = kill_chain(target, rng("train"), options.train_kills, base / "logs", options.hang_seconds)
        figures = {"command": "retrograde " + " ".join(target.args), **chain_figures(target, tally, options.train_kills),
                   "part wall s": round(time.monotonic() - part_began, 1)}
        report("torture: SIGKILL during training", figures)
        failed |= bool(tally.bugs) or figures["chains byte-identical to the reference"] != len(tally.chains)
    if "validate" in parts:
        part_began = time.monotonic()
        base = work / "validate"
        (base / "reference").mkdir(parents=True)
        (base / "logs").mkdir()
        store = base / "ttt.zarr"
        timed(["solve", "tictactoe", "--store", str(store), "--workers", "0", "--quiet"], base / "logs", "store")
        reference_out = base / "reference" / "report"
        seconds, _ = timed(["validate", "--store", str(store), "--out", str(reference_out), "--agents",
                            options.validate_agents, "--games", str(options.validate_games), "--seed",
                            str(options.seed), "--workers", str(options.validate_workers), "--quiet"],
                           base / "logs", "reference")
        print(f"  reference validate: {seconds:.2f} s", flush=True)
        target = validate_target(base, options, store, reference_out, seconds, 0.0)
        tally = kill_chain(target, rng("validate"), options.validate_kills, base / "logs", options.hang_seconds)
        figures = {"command": "retrograde " + " ".join(target.args),
                   **chain_figures(target, tally, options.validate_kills),
                   "part wall s": round(time.monotonic() - part_began, 1)}
        report("torture: SIGKILL during validate", figures)
        failed |= bool(tally.bugs) or figures["chains byte-identical to the reference"] != len(tally.chains)
    print(f"# total wall {time.monotonic() - began:.1f} s; work folder {work}"
          + (" (kept)" if options.keep or failed else " (removed)"))
    if not failed and not options.keep:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        raise SystemExit("torture: some run did not end byte-identical, or a bug was seen (listed above)")


if __name__ == "__main__":
    main()
