"""A loopy group's propagation (the second pass, `solvers.loopy`), in one task or split into
partitions that run level by level on several workers.

The group's indices (its tiers concatenated in order) are cut at chunk starts into `parts`
contiguous ranges; a `Partition` holds the state of its range's positions. At each level each
partition settles its positions at that level and propagates them to their parents: parents in
its own range at once, parents in another partition's range through message files in the
store's scratch folder, which their owner applies before its next level. A level's updates only
set values of later levels, and a parent's value after a level does not depend on the order its
children's reports arrive in (a parent takes a loss's win at level + 1 unless it wins faster; a
count of winning children reaches zero only if no child lost), so every split gives the bytes of
the single task.

With one partition, `propagate_group` runs every level in one task. With more, the driver runs
each level as one task per partition (`propagation_round`; a partition's state stays in its
worker process, `Task.affinity`, kept in the worker's state) and makes the next level's tasks
from their reports (`next_level`, in the driver), then each partition writes its chunks
(`finish_partition`).
Checkpoints: every partition saves its state at the same level, at most once per
`checkpoint_every` seconds; a rerun resumes from the latest level every partition saved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.data.store import Store, StoreRef
from retrograde.errors import DamagedStore, StoreError
from retrograde.games.capabilities import Loopy
from retrograde.jit import njit
from retrograde.outcome import LOSS
from retrograde.pipeline.graph import Task
from retrograde.pipeline.scratch import Scratch
from retrograde.pipeline.sizing import BATCH
from retrograde.pipeline.tasks import FAULTS, chunk_summary, describe_position, first_pass
from retrograde.pipeline.worker import WorkerState
from retrograde.solvers import loopy
from retrograde.solvers.kernels import OVERFLOW
from retrograde.solvers.members import Members


def first_level(game) -> int:
    """The first level to propagate: 1 where the game gives terminal children by value (their
    parents took their values in the first pass), else 0."""
    return 1 if game.loopy.group_terminals_by_value else 0


def group_bounds(store: Store, tier_names: tuple[str, ...], parts: int,
                 positions: np.ndarray | None = None) -> np.ndarray:
    """Where each of `parts` partitions of the group starts in its indices (and the group's size
    last): at chunk starts, a chunk at least a partition (fewer partitions where the group has
    fewer chunks), each cut where the chunks' `positions` (a count a chunk, in group order; None:
    their indices) come nearest to an equal share. Positions, not indices: a symmetry class is
    stored at its least index, so Quixo's positions crowd the low indices of a tier, and equal
    shares of the indices gave m10o11 + m11o10's four partitions 548, 10, 542 and 16 million
    positions (one worker thread did three quarters of the work)."""
    starts, lengths, size = [], [], 0
    for name in tier_names:
        chunking = store.plan.chunking(name)
        for chunk in range(chunking.count):
            first, stop = chunking.bounds(chunk)
            starts.append(size + first)
            lengths.append(stop - first)
        size += chunking.size
    weights = np.asarray(lengths if positions is None else positions, dtype=np.float64)
    before = np.cumsum(weights) - weights  # the weight of the chunks before each
    parts, cuts = max(1, min(parts, len(starts))), [0]
    for k in range(1, parts):  # the nearest cut after the last that leaves a chunk to each partition after it
        allowed = np.arange(cuts[-1] + 1, len(starts) - (parts - k) + 1)
        cuts.append(int(allowed[np.argmin(np.abs(before[allowed] - weights.sum() * k / parts))]))
    return np.array([starts[cut] for cut in cuts] + [size], dtype=np.int64)


def position_bounds(store: Store, tier_names: tuple[str, ...], parts: int) -> np.ndarray:
    """`group_bounds` at equal shares of the positions the group's first passes found."""
    scratch = Scratch(store)
    return group_bounds(store, tier_names, parts, np.concatenate([scratch.first_pass_positions(name)
                                                                  for name in tier_names]))


class Partition:
    """The propagation state of the group's positions in indices lo..hi-1 (partition `part` of
    `len(bounds) - 1`): outcome, remoteness and pending-children count of each position, numbered
    densely (`Members`). `level` is the next level to settle; `inbox` the level whose messages
    from other partitions are still to apply (None: none).

    Working memory: per position 1 byte of outcome, 1 of pending count and the remoteness dtype,
    2 bits an index of the range, a batch of parent references, and the messages of one batch."""

    def __init__(self, store: Store, tier_names: tuple[str, ...], bounds: np.ndarray, part: int):
        self.tier_names, self.bounds, self.part = tier_names, bounds, part
        self.parts = len(bounds) - 1
        self.lo, self.hi = int(bounds[part]), int(bounds[part + 1])
        self.attempt = store.attempt
        game = store.game
        self.tiers = [game.tier(name) for name in tier_names]
        self.offsets, start = {}, 0
        for tier in self.tiers:
            self.offsets[tier.name], start = start, start + tier.size
        self.members = Members(self.lo, self.hi)
        self.level = first_level(game)
        self.highest, self.inbox = 0, None
        self.outcome = self.remoteness = self.pending = np.zeros(0, dtype=np.uint8)

    def _spans(self):
        """(tier, first, stop group index) of each tier's part of the range."""
        for tier in self.tiers:
            first, stop = max(self.offsets[tier.name], self.lo), min(self.offsets[tier.name] + tier.size, self.hi)
            if first < stop:
                yield tier, first, stop

    def _chunks(self, store: Store, tier, first: int, stop: int) -> range:
        chunk_size = store.plan.chunking(tier.name).chunk_size
        base = self.offsets[tier.name]
        return range((first - base) // chunk_size, -(-(stop - base) // chunk_size))

    def load(self, store: Store, *, values: bool, first_passes: Callable | None = None) -> None:
        """Mark the range's positions from its chunks' first passes (a position is a row the
        first pass gave a value or children inside the group to wait for; a hole has neither),
        and with `values` take their (outcome, remoteness, pending) as the state. The first
        passes are read from the scratch files, or come from `first_passes(tier name, chunks)`
        (start, outcome, remoteness, pending of each chunk in turn)."""
        first_passes = first_passes or Scratch(store).read_first_passes
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for tier, first, stop in self._spans():
            for start, outcome, remoteness, pending in first_passes(tier.name, self._chunks(store, tier, first, stop)):
                held = (outcome != 0) | (pending != 0)
                self.members.mark(self.offsets[tier.name] + start, held)
                if values:
                    parts.append((outcome[held], remoteness[held], pending[held]))
        self.members.number()
        if values:
            dtype = np.dtype(store.plan.remoteness_dtype)
            empty = (np.zeros(0, np.uint8), np.zeros(0, dtype), np.zeros(0, np.uint8))
            self.outcome, self.remoteness, self.pending = (np.concatenate([part[k] for part in parts] + [empty[k]])
                                                           for k in range(3))
            settled = (self.outcome == oc.WIN) | (self.outcome == oc.LOSS)
            self.highest = int(self.remoteness[settled].max(initial=0))

    def resume(self, store: Store, level: int) -> str | None:
        """Take the state of the partition's checkpoint at `level`, once its positions are
        marked (`load`); what is wrong with the checkpoint (damaged, not this group's) if it
        cannot be used, else None."""
        try:
            self.highest, self.outcome, self.remoteness, self.pending = Scratch(store).read_checkpoint(
                self.tier_names, self.parts, self.part, level, span=(self.lo, self.hi))
        except DamagedStore as exc:
            return str(exc)
        if self.outcome.size != self.members.count:
            return (f"store {store.location!r}: tier {self.tier_names[0]}: the propagation checkpoint of partition "
                    f"{self.part + 1} of {self.parts} at level {level} holds {self.outcome.size:,} positions, the "
                    f"first passes {self.members.count:,}")
        self.level = level
        return None

    def save(self, store: Store) -> None:
        """Save the state before `level` (after the last level's messages are applied)."""
        assert self.inbox is None
        Scratch(store).write_checkpoint(self.tier_names, self.parts, self.part, self.level, self.highest, self.outcome,
                                        self.remoteness, self.pending, span=(self.lo, self.hi))

    def _describe(self, store: Store, dense: int) -> str:
        """A position by its dense number, as fault messages name it."""
        index = int(self.members.to_full(np.array([dense], dtype=np.int64))[0])
        tier = next(tier for tier in reversed(self.tiers) if self.offsets[tier.name] <= index)
        return describe_position(store, tier.name, index - self.offsets[tier.name])

    def _propagate(self, store: Store, level: int, settled: np.ndarray, parents: np.ndarray,
                   weights: np.ndarray) -> None:
        """Apply children settled at `level` to their parents in the range (group indices)."""
        self.members.to_dense(parents)
        self.highest = max(self.highest, loopy.propagate(level, settled, parents, weights, self.outcome,
                                                         self.remoteness, self.pending,
                                                         describe=lambda d: self._describe(store, d)))
        if self.highest > np.iinfo(self.remoteness.dtype).max:  # a backstop: the kernels stop before a value wraps
            raise StoreError(f"store {store.location!r}: {FAULTS[OVERFLOW]} in group {' '.join(self.tier_names)}")

    def receive(self, store: Store) -> None:
        """Apply what the other partitions sent at the inbox's level."""
        if self.inbox is None:
            return
        for messages in Scratch(store).read_messages(self.tier_names, self.inbox, self.part, self.parts,
                                            BATCH * store.game.max_moves):
            parents = (messages >> MESSAGE_INDEX).reshape(-1, 1)
            weights = ((messages >> 1) & MESSAGE_WEIGHT).astype(np.int8).reshape(-1, 1)
            settled = np.where(messages & 1, oc.LOSS, oc.WIN).astype(np.uint8)
            self._propagate(store, self.inbox, settled, parents, weights)
        self.inbox = None

    def send(self, store: Store) -> int:
        """Settle the range's positions at `level`: propagate to their parents here, and write
        the parents in other partitions to their owners. Returns the messages written."""
        assert self.inbox is None
        level, game = self.level, store.game
        buffers = Loopy.buffers(min(BATCH, max(self.members.count, 1)), game.max_moves)
        outbox = np.empty(buffers[0].size, dtype=np.int64)
        sent = 0
        with Scratch(store).message_writer(self.tier_names, level, self.part) as write:
            for tier, first, stop in self._spans():
                low, high = self.members.rank(first), self.members.rank(stop)
                found = loopy.settled_at(self.outcome, self.remoteness, level, low, high) + low
                for start in range(0, found.size, BATCH):
                    batch = found[start:start + BATCH]
                    parents, weights = game.loopy.parents(tier, self.members.to_full(batch) - self.offsets[tier.name],
                                                    self.offsets, out=buffers)
                    settled = self.outcome[batch]
                    if self.parts > 1:
                        messages = outbox[:_route(parents, weights, settled, self.lo, self.hi, outbox)]
                        owners = np.searchsorted(self.bounds, messages >> MESSAGE_INDEX, side="right") - 1
                        for owner in np.flatnonzero(np.bincount(owners, minlength=self.parts)).tolist():
                            write(owner, messages[owners == owner])
                        sent += messages.size
                    self._propagate(store, level, settled, parents, weights)
        self.level += 1
        self.inbox = level if self.parts > 1 else None
        return sent

    def finish(self, store: Store) -> list[dict[str, Any]]:
        """What is left undecided is a draw: write the range's chunks; their summaries."""
        loopy.finish_draws(self.outcome, self.remoteness, self.pending)
        summaries = []
        for tier, first, stop in self._spans():
            chunking = store.plan.chunking(tier.name)
            for chunk in self._chunks(store, tier, first, stop):
                start, end = chunking.bounds(chunk)
                base = self.offsets[tier.name]
                outcome, remoteness = self.members.scatter(base + start, base + end, self.outcome, self.remoteness)
                written = store.write_chunk(tier.name, chunk, outcome, remoteness)
                summaries.append(chunk_summary(store, tier.name, chunk, outcome, written))
        return summaries


#: A message to another partition: the parent's group index << MESSAGE_INDEX | its weight << 1 |
#: 1 if the child lost (a weight is at most the parent's count of moves inside its group, which
#: the first pass keeps within `loopy.COUNT`, 127).
MESSAGE_INDEX = 8
MESSAGE_WEIGHT = 0x7F


@njit
def _route(parents, weights, settled, lo, hi, outbox):
    """Keep in each row of `parents` (and `weights`) the parents inside lo..hi-1 (the row still
    ending at -1); write the others into `outbox` as messages. Returns how many."""
    n = 0
    for row in range(parents.shape[0]):
        kept = 0
        for j in range(parents.shape[1]):
            q = parents[row, j]
            if q < 0:
                break
            if lo <= q < hi:
                parents[row, kept] = q
                weights[row, kept] = weights[row, j]
                kept += 1
            else:
                outbox[n] = (q << MESSAGE_INDEX) | (np.int64(weights[row, j]) << 1) | (1 if settled[row] == LOSS else 0)
                n += 1
        if kept < parents.shape[1]:
            parents[row, kept] = -1
    return n


def propagate_group(worker: WorkerState, ref: StoreRef, tier_names: tuple[str, ...], checkpoint_every: float) -> list[dict[str, Any]]:
    """The whole propagation of a loopy group in one task, after every chunk's first pass:
    settle positions level by level (increasing remoteness); what is left is a draw. Writes
    every chunk of the group's tiers and returns their summaries.

    Once `checkpoint_every` seconds have passed since the last save, the state between two
    levels is saved to scratch; a rerun after a kill goes on from there (same bytes: the levels
    after a checkpoint depend on nothing else). A damaged checkpoint is dropped: the
    propagation starts again."""
    with ref.open() as store:
        scratch = Scratch(store)
        bounds, saved = group_bounds(store, tier_names, 1), scratch.checkpoint_level(tier_names)
        resumable = saved is not None and saved[0] == 1
        partition = Partition(store, tier_names, bounds, 0)
        partition.load(store, values=not resumable)
        if resumable and partition.resume(store, saved[1]):
            scratch.drop_checkpoints(tier_names)
            partition = Partition(store, tier_names, bounds, 0)
            partition.load(store, values=True)
        last = time.monotonic()
        while partition.level <= partition.highest:
            partition.send(store)
            if partition.level <= partition.highest and time.monotonic() - last >= checkpoint_every:
                partition.save(store)
                scratch.drop_checkpoints(tier_names, keep=(1, partition.level))
                last = time.monotonic()
        return partition.finish(store)


def solve_group(worker: WorkerState, ref: StoreRef, tier_names: tuple[str, ...]) -> list[dict[str, Any]]:
    """A small loopy group whole in one task: each chunk's first pass, in memory, then the
    propagation; writes every chunk of the group's tiers and returns their summaries. No scratch
    file and no checkpoint: a rerun after a kill does it all again (a small group's work is a
    task's round trip or two, which its three or more tasks and their scratch files cost)."""
    with ref.open() as store:
        partition = Partition(store, tier_names, group_bounds(store, tier_names, 1), 0)
        partition.load(store, values=True, first_passes=lambda name, chunks: (
            (store.plan.chunking(name).bounds(chunk)[0], *first_pass(worker, store, tier_names, name, chunk))
            for chunk in chunks))
        while partition.level <= partition.highest:
            partition.send(store)
        return partition.finish(store)


def _held(worker: WorkerState) -> dict[tuple[str, tuple[str, ...], int], Partition]:
    """The partitions the worker holds between the levels of a split propagation, by (store,
    group, partition); only the current solve attempt's are kept."""
    return worker.slot("partitions", dict)


def _partition(worker: WorkerState, store: Store, tier_names: tuple[str, ...], parts: int, part: int,
               level: int) -> Partition:
    """The partition's state the worker holds from the last level."""
    key, held = (store.location, tier_names, part), _held(worker)
    if key not in held or held[key].level != level:
        raise StoreError(f"store {store.location!r}: group {' '.join(tier_names)}: partition {part + 1} of "
                         f"{parts} lost its propagation state before level {level} (its worker restarted); "
                         "rerun solve to resume from the last checkpoint")
    return held[key]


def propagation_round(worker: WorkerState, ref: StoreRef, tier_names: tuple[str, ...], bounds: tuple[int, ...],
                      part: int, level: int, start: str, save: bool) -> dict[str, Any]:
    """One level of one partition of those `bounds` cut: its state from the last level ("held"),
    or built from the first passes ("first pass") or its checkpoint at `level` ("checkpoint");
    apply the last level's messages to it, save it if `save`, settle its positions at `level`.
    Reports its highest level set, the messages it sent, and (a checkpoint it could not use)
    `damaged`."""
    with ref.open() as store:
        held = _held(worker)
        for key in [key for key, partition in held.items() if partition.attempt != store.attempt]:
            del held[key]  # an earlier solve attempt's
        if start == "held":
            partition = _partition(worker, store, tier_names, len(bounds) - 1, part, level)
        else:
            held.pop((store.location, tier_names, part), None)
            partition = Partition(store, tier_names, np.array(bounds, dtype=np.int64), part)
            partition.load(store, values=start == "first pass")
            if start == "checkpoint" and (damage := partition.resume(store, level)):
                return {"damaged": damage}
            held[(store.location, tier_names, part)] = partition
        partition.receive(store)
        if save:
            partition.save(store)
        sent = partition.send(store)
        return {"highest": partition.highest, "sent": sent, "saved": save}


def finish_partition(worker: WorkerState, ref: StoreRef, tier_names: tuple[str, ...], parts: int, part: int,
                     level: int) -> list[dict[str, Any]]:
    """After the last level: apply its messages, write the partition's chunks; their summaries."""
    with ref.open() as store:
        partition = _partition(worker, store, tier_names, parts, part, level)
        partition.receive(store)
        summaries = partition.finish(store)
        del _held(worker)[(store.location, tier_names, part)]
        return summaries


def next_level(ref: StoreRef, tier_names: tuple[str, ...], parts: int, level: int, start: str, saved_at: float,
               checkpoint_every: float, serial: int, bounds: tuple[int, ...] | None, reports: list[Any]) -> list[Task]:
    """In the driver, once the partitions' last level is done (`reports`; those of the first
    passes before the first level): the tasks of level `level` of every partition and the next
    call of this, or (no position left to settle, no message left to apply) the tasks writing
    the partitions' chunks. A damaged checkpoint to start from starts the propagation again.
    `serial` counts the calls of a propagation, so that task keys stay unique where a damaged
    checkpoint made levels run again. The partitions' `bounds` are cut at the start (from the
    first passes: `position_bounds`) and kept to the end."""
    group = "-".join(tier_names)
    with ref.open() as store:
        scratch = Scratch(store)
        if any("damaged" in report for report in reports if isinstance(report, dict)):
            scratch.drop_checkpoints(tier_names)
            start, level = "first pass", first_level(store.game)
        if start != "held":  # what a stopped solve's partitions sent: never read
            scratch.drop_messages(tier_names)
            bounds = tuple(position_bounds(store, tier_names, parts).tolist())
        else:
            scratch.drop_messages(tier_names, level - 2)  # applied in the level before
            if reports[0]["saved"]:
                scratch.drop_checkpoints(tier_names, keep=(parts, level - 1))
            if level > max(report["highest"] for report in reports) and not sum(report["sent"] for report in reports):
                return [Task(f"finish-{group}-{part}-{serial}", finish_partition,
                             (ref, tier_names, parts, part, level), affinity=f"{group}-{part}")
                        for part in range(parts)]
    save = start == "held" and time.monotonic() - saved_at >= checkpoint_every
    rounds = [Task(f"propagate-{group}-{part}-level-{level}-{serial}", propagation_round,
                   (ref, tier_names, bounds, part, level, start, save), affinity=f"{group}-{part}")
              for part in range(parts)]
    following = (ref, tier_names, parts, level + 1, "held",
                 time.monotonic() if save or start != "held" else saved_at, checkpoint_every, serial + 1, bounds)
    return [*rounds, Task(f"next-{group}-level-{level + 1}-{serial}", next_level, following,
                          tuple(task.key for task in rounds), in_driver=True)]
