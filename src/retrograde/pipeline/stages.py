"""The stages of a job: solve, verify, status (the plan stage is `pipeline.planning`). Each can
stop and be rerun.

The driver (this module) walks the plan, hands chunk tasks to an executor and
records each finished chunk in the store; rerunning a stage skips recorded
chunks, so an interrupted solve resumes where it stopped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrograde.data.durable import write_atomically
from retrograde.data.store import SOLVED, Store
from retrograde.data.upgrade import Verified
from retrograde.errors import DamagedStore
from retrograde.pipeline.estimate import Splits, in_one_task
from retrograde.pipeline.graph import Task, waits_for
from retrograde.pipeline.progress import Progress
from retrograde.pipeline.propagation import (finish_partition, first_level, group_bounds, next_level, propagate_group,
                                             solve_group)
from retrograde.pipeline.scratch import Scratch
from retrograde.pipeline.sizing import checkpoint_seconds
from retrograde.pipeline.tasks import settle_chunk, solve_chunk, verify_chunk

#: The tasks whose results are chunk summaries for the driver to record.
RECORDING = (solve_chunk, propagate_group, finish_partition, solve_group)


def solved_key(step) -> str:
    """The key of the barrier passed once every chunk of `step` is written."""
    return f"solved-{'-'.join(step.tiers)}"


def solve_tasks(store: Store, *, partitions: int = 1, worker_memory: int | None = None, workers: int = 1) -> list[Task]:
    """The tasks still to run, in dependency order, and a barrier per step for the steps reading it.

    A loop-free tier is one task per unrecorded chunk. A loopy group of at most
    `sizing.small_group_chunks()` chunks, not started yet and not split (`in_one_task`), is one
    task (`solve_group`): first passes as tasks of their own would each be a round trip to the
    driver and a scratch file written, synced and read back (4x4 Quixo: 246 tasks before, 81
    now, one a group). Another is one first-pass task per chunk without a scratch file, then its
    propagation: one task, or split level by level into partitions (`pipeline.propagation`): at
    least `partitions`, and as many as its partitions take to fit `worker_memory` on one of
    `workers` (`estimate.Splits`). A propagation resumed from a checkpoint keeps the
    partitions it was saved with. The split propagations of one wave run one after another:
    their workers hold every partition's state from the first level to the last, and two
    groups' partitions held at once did not fit where one group's did (5x5 Quixo, the 21-cube
    wave: 17.7 GB in the process, where each group's alone is 5.6 and 6.7 GB)."""
    ref, scratch = store.ref, Scratch(store)
    checkpoint_every = checkpoint_seconds()
    step_of = {name: step for step in store.plan.steps for name in step.tiers}
    barriers: dict[tuple[str, ...], str] = {}
    holding: dict[int, str] = {}  # wave -> the barrier of its last split propagation so far
    splits = Splits(store.plan, worker_memory=worker_memory, partitions=partitions, workers=workers, game=store.game)
    tasks: list[Task] = []
    for step in store.plan.steps:
        after = tuple(dict.fromkeys(barriers[step_of[child].tiers]
                                    for name in step.tiers for child in store.plan.tier(name).children
                                    if child not in step.tiers and step_of[child].tiers in barriers))
        if step.loopy:
            if all(store.record(name).status == SOLVED for name in step.tiers):
                for name in step.tiers:  # a run stopped while dropping the scratch
                    scratch.delete(name)
                continue
            keys = [f"propagate-{'-'.join(step.tiers)}"]
            size = sum(store.plan.tier(name).size for name in step.tiers)
            saved = scratch.checkpoint_level(step.tiers)
            parts = saved[0] if saved else len(group_bounds(store, step.tiers, splits.parts[step.tiers])) - 1
            settled = {(name, c): done for name in step.tiers for c, done in enumerate(scratch.settled_chunks(name))}
            first_pass = [Task(f"settle-{name}-{c}", settle_chunk, (ref, step.tiers, name, c), after,
                               store.plan.chunking(name).length(c))
                          for (name, c), done in settled.items() if not done]
            waits = after + tuple(task.key for task in first_pass)
            if in_one_task(store.plan, step.tiers, parts) and len(first_pass) == len(settled) and not saved:
                tasks.append(Task(keys[0], solve_group, (ref, step.tiers), after, size))
            elif parts == 1:
                tasks.extend(first_pass)
                tasks.append(Task(keys[0], propagate_group, (ref, step.tiers, checkpoint_every), waits, size))
            else:
                tasks.extend(first_pass)
                level, start = (saved[1], "checkpoint") if saved else (first_level(store.game), "first pass")
                waits += (holding[step.wave],) if step.wave in holding else ()
                holding[step.wave] = solved_key(step)
                tasks.append(Task(keys[0], next_level, (ref, step.tiers, parts, level, start, 0.0, checkpoint_every, 0,
                                                        None), waits, size, in_driver=True))
        else:
            (name,) = step.tiers
            chunks = [c for c, done in enumerate(store.record(name).chunks) if done is None]
            if not chunks:
                continue
            keys = [f"solve-{name}-{c}" for c in chunks]
            tasks.extend(Task(key, solve_chunk, (ref, name, c), after, store.plan.chunking(name).length(c))
                         for key, c in zip(keys, chunks))
        barriers[step.tiers] = solved_key(step)
        tasks.append(waits_for(barriers[step.tiers], keys))
    return tasks


def solve_stage(store: Store, executor, *, quiet: bool = False, partitions: int = 1,
                worker_memory: int | None = None) -> None:
    """Solve every step not yet solved; each step starts as soon as the steps it reads are done.

    The driver starts a new attempt (which fences out tasks an earlier, killed driver left
    running), records each chunk as its task reports it, drops a loopy group's scratch
    files once its values are recorded, and ends the attempt after the last task. Loopy
    groups' propagations are split as `solve_tasks` says, within `worker_memory` (None: what
    the executor's workers report) on each of the executor's workers.
    """
    progress = Progress("solve", store.plan.positions, quiet=quiet, done=positions_done(store))
    store.begin_attempt()
    loopy = {solved_key(step): step for step in store.plan.steps if step.loopy}
    limit = worker_memory or executor.worker_memory()
    tasks = solve_tasks(store, partitions=partitions, worker_memory=limit, workers=executor.worker_count())
    for task, result in executor.run(tasks):
        new: dict[str, list[dict[str, Any]]] = {}  # tier -> the summaries of chunks not yet recorded
        for summary in result if task.fn in RECORDING else ():
            if store.record(summary["tier"]).chunks[summary["chunk"]] is None:
                new.setdefault(summary["tier"], []).append(summary)
        for name, summaries in new.items():
            store.record_chunks(name, summaries)
            for summary in summaries:
                progress.advance(summary["positions"], f"tier {name}")
        if task.key in loopy:
            for name in loopy[task.key].tiers:
                Scratch(store).delete(name)
    store.end_attempt()
    progress.finish("done")


def positions_done(store: Store) -> int:
    """Positions in the store's recorded chunks."""
    return sum(tier_positions_done(store, tier.name) for tier in store.plan.tiers)


def tier_positions_done(store: Store, name: str) -> int:
    chunking = store.plan.chunking(name)
    return sum(chunking.length(c) for c, record in enumerate(store.record(name).chunks) if record is not None)


@dataclass
class VerifyResult:
    """Outcome of `verify`: positions checked, wrong ones (with a few examples), bad checksums,
    and damage that stopped a check (a document or chunk that cannot be read, records that
    disagree with the data), one line each naming the tier and chunk."""

    positions: int = 0
    wrong: int = 0
    bad_checksums: list[str] = field(default_factory=list)
    unsolved: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.wrong or self.bad_checksums or self.unsolved or self.damaged)

    @property
    def verdict(self) -> str:
        """"ok"; "failed" (damage found); "incomplete" (what could be checked is right, but
        some tiers are not solved yet)."""
        if self.wrong or self.bad_checksums or self.damaged:
            return "failed"
        return "incomplete" if self.unsolved else "ok"

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "verdict": self.verdict, "positions": self.positions, "wrong": self.wrong,
                "bad_checksums": self.bad_checksums, "damaged": self.damaged, "unsolved": self.unsolved,
                "examples": self.examples}


def verified(store: Store) -> Verified:
    """What `verify_stage` finds in `store`, a line a problem (the damage, the bad checksums, the
    wrong values shown), as `data.upgrade` asks before it binds a store's records: on local
    workers, in-process for a small store."""
    from retrograde.pipeline.executors import open_executor

    with open_executor(positions=store.plan.positions, kernels=True) as executor:
        result = verify_stage(store, executor, quiet=True)
    return Verified([*result.damaged, *(f"tier {where}: bad checksum" for where in result.bad_checksums),
                     *result.examples], result.unsolved)


def verify_stage(store: Store, executor, *, quiet: bool = False) -> VerifyResult:
    """Recompute every stored position from the rules and its children; check checksums,
    counts, every document and an unfinished solve's scratch files; a damaged tier's record
    leaves its chunks unchecked (it and the tiers reading it are reported, not checked)."""
    result = VerifyResult(damaged=Scratch(store).damage())
    done, damaged = set(), set()
    for tier in store.plan.tiers:
        try:
            if store.record(tier.name).status == SOLVED:
                done.add(tier.name)
        except DamagedStore as exc:
            damaged.add(tier.name)
            result.damaged.append(str(exc))
    ready = [tier for tier in store.plan.tiers if tier.name in done and set(tier.children) <= done]
    result.unsolved = [tier.name for tier in store.plan.tiers
                       if tier not in ready and tier.name not in damaged and not damaged & set(tier.children)]
    progress = Progress("verify", sum(tier.size for tier in ready), quiet=quiet)
    tasks = [Task(f"verify-{tier.name}-{chunk}", verify_chunk, (store.ref.read_only, tier.name, chunk))
             for tier in ready for chunk in range(store.plan.chunking(tier.name).count)]
    for task, report in executor.run(tasks):
        _, name, chunk = task.args
        result.positions += report["positions"]
        result.wrong += report["wrong"]
        result.examples.extend(report["examples"][: max(0, 10 - len(result.examples))])
        result.damaged.extend(line for line in report["damaged"] if line not in result.damaged)
        if not report["checksum_ok"]:
            result.bad_checksums.append(f"{name}/{chunk}")
        progress.advance(store.plan.chunking(name).length(chunk), f"tier {name}")
    progress.finish(result.verdict)
    result.bad_checksums.sort()
    result.damaged.sort()
    return result


def status(store: Store) -> dict[str, Any]:
    """The store's state as SPEC §3 `status --json` prints it."""
    tiers = []
    for tier in store.plan.tiers:
        record = store.record(tier.name)
        tiers.append({"name": tier.name, "size": tier.size, "status": record.status,
                      "chunks": len(record.chunks), "chunks_done": record.done,
                      "positions_done": tier_positions_done(store, tier.name),
                      "win": record.count("win"), "loss": record.count("loss"),
                      "draw": record.count("draw")})
    return {"game": store.plan.game, "params": store.plan.params, "complete": store.complete,
            "format": store.plan.format, "positions": store.plan.positions, "tiers": tiers}


def write_json(path: Path, data: Any) -> None:
    """Write JSON whole and on the disk (`durable.write_atomically`)."""
    text = json.dumps(data, indent=2) + "\n"
    write_atomically(path, lambda file: file.write(text.encode()))

