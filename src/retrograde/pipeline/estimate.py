"""What a solve will take, from its plan alone, and a refusal when this machine cannot do it.

`estimate` gives the positions, the finished store's size on disk plus the scratch files
of loopy groups while they are solved, the memory of one worker process at its largest
task (named), and the time at the game's measured `solve_rate`. `check_fits` compares
that with the free disk at the store, the memory available and `MAX_SECONDS`, and refuses
in one line that says what does not fit and how to go on anyway (issue 8: a full 5x5
Quixo solve used to start silently, 847 billion positions). The byte counts follow the
tasks' arrays (pipeline/tasks.py, docs/SCALING.md); the constants below are measured.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrograde.data.plan import Plan
from retrograde.errors import BadOption
from retrograde.games import make_game
from retrograde.games.capabilities import costs_of
from retrograde.pipeline.executors import worker_processes
from retrograde.pipeline.memory import available_memory, human_bytes
from retrograde.pipeline.progress import clock
from retrograde.pipeline.sizing import BATCH, FRAME_MESSAGES, KEPT_VALUES_BYTES, small_group_chunks, values_bytes

#: Longest estimated solve started without --force (seconds): a week.
MAX_SECONDS = 7 * 24 * 3600
#: A worker process before its task: interpreter, numpy, numba kernels, zarr, dask. In-process
#: solves of tic-tac-toe, Nim 1,3,5,7 and 3x3 Quixo, whose tasks are tiny, peak at 160-195 MB RSS.
PROCESS_BYTES = 200_000_000
#: A loopy group's propagation beyond its state, per position: the first-pass values gathered
#: chunk by chunk, then joined (a second copy of the state), a level's index lists and heap not
#: given back. Measured in all (BENCHMARKS.md, issue 12): 2,318 MB for --down-to 23 (811,246,800
#: indices, about 101.7 million positions) and 579 MB for --down-to 24, 18.5-19 bytes a position
#: with the 4 of state, the 2 bits an index numbering them and PROCESS_BYTES.
PROPAGATION_EXTRA_BYTES = 15
#: Store files besides the values: a tier's three zarr.json files and its entry in the plan
#: (1,870-1,950 bytes a tier in the Nim, tic-tac-toe, 3x3 and 4x4 Quixo stores), and a chunk's
#: record in its tier's attributes (about 130 bytes) with the codec headers of its two files.
TIER_FILE_BYTES = 2_000
CHUNK_FILE_BYTES = 200


@dataclass(frozen=True)
class Estimate:
    """What solving a plan takes: `disk_bytes` of finished store plus `scratch_bytes` while
    solving, `peak_bytes` in one worker process (during `peak_task`), `seconds` on `workers`
    processes for the `to_solve` positions left of `positions`."""

    game: str
    positions: int
    to_solve: int
    disk_bytes: int
    scratch_bytes: int
    peak_bytes: int
    peak_task: str
    seconds: float
    workers: int
    #: The game's way to solve less (`Costs.too_big_hint`), for a refusal.
    hint: str = ""
    #: False where the game gives no measured costs: time and disk are guesses from low defaults.
    measured: bool = True

    @property
    def disk_needed(self) -> int:
        """Free disk the rest of the solve takes: the store's part still to write and the scratch."""
        return math.ceil(self.disk_bytes * self.to_solve / max(self.positions, 1)) + self.scratch_bytes

    @property
    def memory_needed(self) -> int:
        """Memory of every worker process at its peak at once."""
        return self.peak_bytes * self.workers

    @property
    def on_workers(self) -> str:
        """The time, 'about h:mm:ss on N workers' (at least a second: a solve never takes less), and
        that it is unmeasured where the game gives no costs."""
        unmeasured = " (unmeasured: the game gives no costs)" if not self.measured else ""
        return f"about {clock(max(self.seconds, 1))} on {self.workers} worker{'s' * (self.workers != 1)}{unmeasured}"

    def describe(self) -> str:
        """One line for a person about to start the solve."""
        left = "" if self.to_solve == self.positions else f" ({self.to_solve:,} still to solve)"
        scratch = f" (+ {human_bytes(self.scratch_bytes)} scratch while solving)" if self.scratch_bytes else ""
        return (f"{self.positions:,} positions{left}; about {human_bytes(self.disk_bytes)} on disk{scratch}, "
                f"peak {human_bytes(self.peak_bytes)} per worker ({self.peak_task}), {self.on_workers}")


def _propagation_bytes(size: int, share: float, value: int, max_moves: int, parts: int) -> int:
    """Peak of one of `parts` partitions of a loopy group of `size` indices, beyond
    PROCESS_BYTES: 2 bits an index of its range to number its positions (solvers.members);
    outcome, remoteness and pending count of each position, temporaries; a batch of parent
    references, the messages routed from it and one piece of messages read; split, the frames
    of messages it keeps for the other partitions and one being encoded or decoded (3 arrays)."""
    positions = math.ceil(size * share / parts)
    return size // parts // 4 + positions * (value + 1 + PROPAGATION_EXTRA_BYTES) + \
        min(BATCH, positions) * 8 * max_moves * (1 if parts == 1 else 3) + \
        (0 if parts == 1 else (parts + 2) * FRAME_MESSAGES * 8)


def _held_bytes(size: int, share: float, value: int, parts: int) -> int:
    """What one of `parts` partitions of a loopy group of `size` indices keeps between levels:
    2 bits an index of its range, and outcome, remoteness and pending count of each position."""
    return size // parts // 4 + math.ceil(size * share / parts) * (value + 1)


def _held_a_worker(parts: int, workers: int) -> int:
    """Partitions of a split propagation each worker holds between levels: partitions go to the
    worker with the fewest (`Task.affinity`), so at most ceil(parts / workers)."""
    return -(-parts // workers)


class Splits:
    """How many partitions each loopy group's propagation is split into, on `workers` workers
    that may each use `worker_memory` bytes (None: no limit): at least `partitions` (never more
    than the group has chunks), and the fewest whose peak fits, a multiple of the workers when
    more than asked (3 partitions on 2 workers leave one worker twice the other's work).

    A split propagation's workers hold its partitions from its first level to its last, and the
    other tasks of its wave run beside them (`pipeline.stages` propagates a wave's split groups
    one at a time). So an unsplit propagation fits only beside the most that a worker holds of
    the wave's split groups, and is split where it does not. More partitions shrink what a
    level's task works with, not what the workers hold in all: where no split fits, the one with
    the least peak is taken, and the estimate's peak says it does not fit. `game`: the plan's
    game, if the caller has it already."""

    def __init__(self, plan: Plan, *, worker_memory: int | None = None, partitions: int = 1, workers: int = 1,
                 game=None):
        game = game or make_game(plan.game, plan.params)
        self.plan, self.workers, self.max_moves = plan, max(workers, 1), game.max_moves
        self.value = 1 + np.dtype(plan.remoteness_dtype).itemsize
        self.share = costs_of(game).position_share
        self.parts: dict[tuple[str, ...], int] = {}
        self._held: dict[tuple[str, ...], int] = {}  # split group -> bytes a worker holds of it
        for steps in plan.waves():
            groups = [step.tiers for step in steps if step.loopy]
            while True:  # the split groups only grow, and with them what the others run beside
                parts = {tiers: self._fewest(tiers, worker_memory, partitions, self.beside(tiers, groups)[0])
                         for tiers in groups}
                changed = parts != {tiers: self.parts.get(tiers) for tiers in groups}
                self.parts.update(parts)
                self._held.update((tiers, _held_a_worker(split, self.workers) * _held_bytes(
                    self.size(tiers), self.share, self.value, split)) for tiers, split in parts.items() if split > 1)
                if not changed:
                    break

    def size(self, tiers: tuple[str, ...]) -> int:
        """The group's indices."""
        return sum(self.plan.tier(name).size for name in tiers)

    def peak(self, tiers: tuple[str, ...], parts: int) -> int:
        """A worker's peak in the group's propagation in `parts`, beyond PROCESS_BYTES (and
        beyond what it holds of another group, unsplit): the partition it runs and the others it
        holds meanwhile."""
        size = self.size(tiers)
        return _propagation_bytes(size, self.share, self.value, self.max_moves, parts) + \
            (_held_a_worker(parts, self.workers) - 1) * _held_bytes(size, self.share, self.value, parts)

    def beside(self, tiers: tuple[str, ...], wave: list[tuple[str, ...]]) -> tuple[int, tuple[str, ...]]:
        """The most a worker holds of another split group of the group's `wave`, and that group."""
        return max(((self._held[other], other) for other in wave if other != tiers and other in self._held),
                   default=(0, ()))

    def _fewest(self, tiers: tuple[str, ...], worker_memory: int | None, partitions: int, beside: int) -> int:
        chunks = sum(self.plan.chunking(name).count for name in tiers)
        least, first = None, max(1, min(partitions, chunks))
        for parts in (parts for parts in range(first, chunks + 1) if parts == first or parts % self.workers == 0):
            peak = PROCESS_BYTES + self.peak(tiers, parts) + (beside if parts == 1 else 0)
            if worker_memory is None or peak <= worker_memory:
                return parts
            if least is None or peak < least[0]:
                least = (peak, parts)
            elif parts >= 2 * least[1] + self.workers:  # past the least: the messages' frames grow with parts
                break
        return least[1]


def in_one_task(plan: Plan, tiers: tuple[str, ...], parts: int) -> bool:
    """Whether a loopy group propagated in `parts` partitions is solved in one task, first passes
    in memory (`pipeline.propagation.solve_group`), when nothing of it is done yet."""
    return parts == 1 and sum(plan.chunking(name).count for name in tiers) <= small_group_chunks()


def _tasks(plan: Plan, splits: Splits) -> Iterator[tuple[int, str]]:
    """(bytes, what) of each step's largest task of each kind, beyond PROCESS_BYTES: the arrays
    of pipeline/tasks.py and pipeline/propagation.py, with `splits.value` bytes (outcome code and
    remoteness) a position, `splits.share` of the indices positions (`Costs.position_share`) and
    loopy groups' propagations split as `splits` says. A task of a wave with a split group counts
    the most a worker holds of another split group of its wave (`Splits`)."""
    value, share, max_moves = splits.value, splits.share, splits.max_moves
    expansion_row = 1 + 8 * max_moves  # terminal code + child references (Expansion.buffers)
    waves = {step.tiers: [other.tiers for other in wave if other.loopy] for wave in plan.waves() for step in wave}

    def beside(step) -> tuple[int, str]:
        """What a worker holds of another split group of the step's wave, and its words."""
        most, group = splits.beside(step.tiers, waves[step.tiers])
        return most, f", beside {' '.join(group)} held" if most else ""

    def values(names) -> int:
        return values_bytes(sum(plan.tier(name).size for name in names), share, value)

    sets = [values(tier.children if not step.loopy else [c for c in tier.children if c not in step.tiers])
            for step in plan.steps for tier in map(plan.tier, step.tiers)]
    largest = max(sets, default=0)

    def read(names) -> int:
        """A task's child-tier values (tasks.ChildValues), with those kept from earlier tasks
        (tasks.solved_values): the set alone if it is over KEPT_VALUES_BYTES, else at most that
        much in all, and never more than one other set; plus one chunk read."""
        need = values(names)
        chunk = max((min(plan.chunking(name).chunk_size, plan.tier(name).size) * (value + 1) for name in names),
                    default=0)
        return min(max(need, KEPT_VALUES_BYTES), need + largest) + chunk

    for step in plan.steps:
        extra, words = beside(step)
        if not step.loopy:  # solve_chunk: child tiers whole, the chunk expanded, its outputs and faults
            tier = plan.tier(step.tiers[0])
            rows = min(plan.chunking(tier.name).chunk_size, tier.size)
            yield extra + read(tier.children) + rows * (expansion_row + value + 1), f"chunk of {tier.name}{words}"
            continue
        split = splits.parts[step.tiers]
        propagation = splits.peak(step.tiers, split)
        first_passes = []
        for name in step.tiers:  # settle_chunk: the tiers led out to whole, the chunk's state, a batch
            tier = plan.tier(name)
            rows = min(plan.chunking(name).chunk_size, tier.size)
            outside = [child for child in tier.children if child not in step.tiers]
            first_passes.append((extra + read(outside) + rows * (value + 1) + min(BATCH, rows) * expansion_row,
                                 f"first pass of {name}{words}"))
        if in_one_task(plan, step.tiers, split):  # the first passes in turn while the state fills
            yield propagation + max(first_passes)[0], f"group {' '.join(step.tiers)} in one task{words}"
            continue
        kept = _held_a_worker(split, splits.workers)
        yield propagation + (0 if split > 1 else extra), f"propagation of {' '.join(step.tiers)}" + (
            f", 1 of {split} partitions" + f" ({kept} held a worker)" * (kept > 1) if split > 1 else words)
        yield from first_passes


def task_peaks(plan: Plan, *, worker_memory: int | None = None, partitions: int = 1,
               workers: int = 1) -> list[tuple[int, str]]:
    """(peak bytes of one of `workers` worker processes, what) of each step's largest task of
    each kind, in solve order, each loopy group's propagation split as `Splits` says: what
    `retrograde plan` lists before anything runs."""
    return _peaks(plan, Splits(plan, worker_memory=worker_memory, partitions=partitions, workers=workers))


def _peaks(plan: Plan, splits: Splits) -> list[tuple[int, str]]:
    return [(PROCESS_BYTES + peak, task) for peak, task in _tasks(plan, splits)]


def estimate(plan: Plan, *, workers: int | None, done_positions: int = 0, worker_memory: int | None = None,
             partitions: int = 1) -> Estimate:
    """Estimate solving `plan` with --workers `workers` (None: as `open_executor` picks), of
    which `done_positions` are solved already (a resumed store), loopy groups' propagations
    split as `Splits` says."""
    game = make_game(plan.game, plan.params)
    costs = costs_of(game)
    processes = worker_processes(workers, plan.positions)
    remoteness = np.dtype(plan.remoteness_dtype).itemsize
    value = 1 + remoteness  # bytes of outcome code and remoteness a position, while solving
    per_position = costs.stored_bytes_per_position or 0.25 + remoteness  # uncompressed: 2 bits of outcome
    disk = (plan.positions * per_position + len(plan.tiers) * TIER_FILE_BYTES
            + sum(plan.chunking(tier.name).count for tier in plan.tiers) * CHUNK_FILE_BYTES)
    # A group being solved has first-pass files of every index and a propagation checkpoint of
    # its positions, each holding outcome, remoteness and pending count, deflated to the game's
    # `scratch_share` (not one solved in one task: `in_one_task`); a split one has its partitions'
    # messages too, `message_bytes` a position. Groups of one wave do not read each other, so up
    # to one a worker are solved at once: the largest of one wave.
    splits = Splits(plan, worker_memory=worker_memory, partitions=partitions, workers=processes, game=game)
    waves: dict[int, list[tuple[int, int]]] = {}
    for step in plan.steps:
        parts = step.loopy and splits.parts[step.tiers]
        if step.loopy and not in_one_task(plan, step.tiers, parts):
            size = splits.size(step.tiers)
            files = (1 + costs.position_share) * (value + 1) * size * costs.scratch_share
            messages = costs.message_bytes * costs.position_share * size if parts > 1 else 0
            waves.setdefault(step.wave, []).append((math.ceil(files + messages), size))
    scratch = max((sum(sorted((bytes_ for bytes_, _ in groups), reverse=True)[:processes])
                   for groups in waves.values()), default=0)
    peak, task = max(_peaks(plan, splits))
    to_solve = max(plan.positions - done_positions, 0)
    return Estimate(game.describe(), plan.positions, to_solve, math.ceil(disk), scratch, peak,
                    task, to_solve / (costs.solve_rate * processes), processes, costs.too_big_hint, costs.measured)


@dataclass(frozen=True)
class Machine:
    """What a machine offers a solve: `memory` available (bytes) and `disk` free at `folder`."""

    memory: int
    disk: int
    folder: str


def this_machine(store_path: str | os.PathLike) -> Machine:
    """This machine, with the free disk of the store's folder (its nearest existing one)."""
    folder = Path(store_path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return Machine(available_memory(), shutil.disk_usage(folder).free, str(folder))


def _listed(items: list[str], last: str) -> str:
    """'a', 'a and b', 'a, b and c' (with `last` for 'and')."""
    return f"{', '.join(items[:-1])} {last} {items[-1]}" if len(items) > 1 else items[0]


def check_fits(estimate: Estimate, *, store_path: str | os.PathLike, force: bool = False,
               machine: Machine | None = None, max_seconds: float = MAX_SECONDS) -> None:
    """Refuse a solve over this machine's free disk (at `store_path`), available memory (every
    worker at its peak) or `max_seconds`; `force` skips the check. `machine` replaces this one.

    :raises BadOption: one line: what does not fit, by how much, and how to go on anyway.
    """
    if force:
        return
    machine = machine or this_machine(store_path)
    over = []
    if estimate.disk_needed > machine.disk:
        over.append(f"about {human_bytes(estimate.disk_needed)} of disk "
                    f"({human_bytes(machine.disk)} free at {machine.folder!r})")
    if estimate.memory_needed > machine.memory:
        each = f" per worker x {estimate.workers} workers" if estimate.workers > 1 else ""
        over.append(f"{human_bytes(estimate.peak_bytes)} of memory{each} "
                    f"({estimate.peak_task}; {human_bytes(machine.memory)} available)")
    if estimate.seconds > max_seconds:
        over.append(f"{estimate.on_workers} (over the {clock(max_seconds)} allowed)")
    if not over:
        return
    ways = [estimate.hint] if estimate.hint else []
    fitting = machine.memory // estimate.peak_bytes
    if estimate.memory_needed > machine.memory and 1 <= fitting < estimate.workers:
        ways.append(f"use --workers {fitting}")
    ways.append("pass --force to start anyway")
    left = "" if estimate.to_solve == estimate.positions else " still to solve"
    raise BadOption(f"{estimate.game}: {estimate.to_solve:,} positions{left} need {_listed(over, 'and')}; "
                    f"{_listed(ways, 'or')}")
