"""What a solve keeps in the store's scratch folder while it solves loopy groups: each chunk's
first pass (a file a chunk), each propagation's checkpoints, and the messages partitions of a
split propagation send each other (`pipeline.propagation`).

    <store>/scratch/<tier>/<chunk>.npz                                 a chunk's first pass
    <store>/scratch/<group>/propagation-<part>-of-<parts>-level-<level>.npz   a partition's checkpoint
    <store>/scratch/<group>/level-<level>/<sender>-<receiver>.bin      messages of a level (frames)

(<group> is the group's first tier.) Files are written whole or not at all, and only while the
store's solve attempt is current (`Store.fence`); the driver deletes a group's files once its
chunks are recorded, and the scratch folder with the attempt (`Store.end_attempt`). Nothing is
written, read or deleted through a symbolic link in the store (`Store.inside`): a crafted
`scratch` link makes a solve stop in one line, not delete folders elsewhere.
"""

from __future__ import annotations

import shutil
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from retrograde.data import durable
from retrograde.data.artifact import write_npz
from retrograde.data.store import SCRATCH, Store
from retrograde.errors import DamagedStore
from retrograde.pipeline.sizing import FRAME_MESSAGES

#: How a first pass's and a checkpoint's `pending` counts a position's children inside its group:
#: a move each (`Game.parents` weighs each parent by its moves). Earlier versions counted a class
#: each; their scratch files are not read (a first pass is recomputed, a checkpoint dropped).
PENDING_COUNTS = "moves"

#: zlib's level for scratch files: the fastest (a scratch file lives minutes; its writing time
#: counts more than its last bytes).
SCRATCH_LEVEL = 1

#: A frame's header: its message count and its payload's bytes.
FRAME_HEADER = struct.Struct("<QQ")


class Scratch:
    """The scratch files of `store`'s loopy groups."""

    def __init__(self, store: Store):
        self.store = store

    def _scratch_folder(self, name: str) -> Path:
        """scratch/<name>, made if needed; the scratch folder itself is the attempt's (made and
        removed by the driver), and a task never brings it back."""
        folder = self.store.inside(SCRATCH, name)
        if not folder.is_dir():
            try:
                folder.mkdir()
            except FileExistsError:
                pass
            except FileNotFoundError:
                self.store.fence()
                raise
            durable.sync_folder(folder.parent)
        return folder

    def _scratch_file(self, name: str, chunk: int) -> Path:
        return self.store.inside(SCRATCH, name, f"{chunk}.npz")

    def settled_chunks(self, name: str) -> list[bool]:
        """Which chunks of a loopy tier have their first pass written (a file, renamed into place)."""
        return [self._scratch_file(name, c).is_file() for c in range(self.store.plan.chunking(name).count)]

    def write_first_pass(self, name: str, chunk: int, outcome: np.ndarray, remoteness: np.ndarray,
                         pending: np.ndarray) -> None:
        """Write a chunk's first pass: (outcome, remoteness, pending) of each index, and how many
        of its indices are positions of the propagation (`first_pass_positions`).

        :raises Superseded: the store's solve attempt is no longer current."""
        self.store.fence()
        self._scratch_folder(name)
        _save_atomically(self._scratch_file(name, chunk), outcome=outcome, remoteness=remoteness, pending=pending,
                         counts=np.array(PENDING_COUNTS), positions=np.int64(_positions(outcome, pending)))

    def first_pass_positions(self, name: str) -> np.ndarray:
        """How many positions each chunk's first pass gives the propagation (a row with a value or
        children in the group to wait for), from the files' small `positions` entry (counted from
        the arrays in a file written before it had one). A damaged file is removed (a rerun
        recomputes it), as `read_first_passes` does.

        :raises DamagedStore: a file cannot be read."""
        counts = []
        for chunk in range(self.store.plan.chunking(name).count):
            try:
                with np.load(self._scratch_file(name, chunk), allow_pickle=False) as data:
                    counts.append(int(data["positions"]) if "positions" in data.files else
                                  _positions(data["outcome"], data["pending"]))
            except Exception as exc:  # whatever numpy or zipfile raise on a damaged file
                error = self.store.damaged(f"tier {name} chunk {chunk}: its first-pass file {SCRATCH}/{name}/{chunk}.npz",
                                           exc)
                if not isinstance(error, DamagedStore):  # a file the user may not read
                    raise error from None
                self._scratch_file(name, chunk).unlink(missing_ok=True)
                raise DamagedStore(f"{error}; removed: rerun solve to recompute it") from None
        return np.array(counts, dtype=np.int64)

    def read_first_passes(self, name: str, chunks: Iterable[int] | None = None
                          ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """A loopy tier's first pass, chunk by chunk (all, or `chunks`): (start, outcome,
        remoteness, pending), so that a group's state is built without holding its files whole.
        A damaged file is removed (a rerun recomputes it) and stops the reading with DamagedStore."""
        chunking = self.store.plan.chunking(name)
        for chunk in range(chunking.count) if chunks is None else chunks:
            start, _ = chunking.bounds(chunk)
            try:
                arrays = self._first_pass(name, chunk)
            except DamagedStore as exc:
                self._scratch_file(name, chunk).unlink(missing_ok=True)  # a missing first pass is recomputed
                raise DamagedStore(f"{exc}; removed: rerun solve to recompute it") from None
            yield (start, *arrays)

    def _first_pass(self, name: str, chunk: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(outcome, remoteness, pending) of a chunk's first-pass file.

        :raises DamagedStore: it cannot be read, or its arrays are not the chunk's."""
        length = self.store.plan.chunking(name).length(chunk)
        try:  # an .npz is a zip: a changed byte fails its CRC or its structure
            with np.load(self._scratch_file(name, chunk), allow_pickle=False) as data:
                arrays = tuple(data[key] for key in ("outcome", "remoteness", "pending"))
                counts = _counts(data)
        except Exception as exc:  # whatever numpy or zipfile raise on a damaged file
            raise self.store.damaged(f"tier {name} chunk {chunk}: its first-pass file {SCRATCH}/{name}/{chunk}.npz",
                                     exc) from None
        if counts != PENDING_COUNTS:
            raise self.store.damaged(f"tier {name} chunk {chunk}: its first-pass file {SCRATCH}/{name}/{chunk}.npz",
                                     why="written by an earlier version, which counted children otherwise")
        if any(array.shape != (length,) for array in arrays):
            raise self.store.damaged(f"tier {name} chunk {chunk}: its first-pass file {SCRATCH}/{name}/{chunk}.npz",
                                     why="arrays of the wrong length")
        return arrays

    # A loopy group's propagation is split into `parts` partitions (1: one task); each saves its
    # state between two levels into propagation-<part>-of-<parts>-level-<level>.npz, and sends
    # the parents it reaches in other partitions through level-<level>/<sender>-<receiver>.bin.
    def _checkpoint_file(self, group: tuple[str, ...], parts: int, part: int, level: int) -> Path:
        return self.store.inside(SCRATCH, group[0], f"propagation-{part + 1}-of-{parts}-level-{level}.npz")

    def _checkpoint_files(self, group: tuple[str, ...]) -> dict[tuple[int, int, int], Path]:
        """(parts, part, level) -> file, of every checkpoint file of the group."""
        found = {}
        for file in self.store.inside(SCRATCH, group[0]).glob("propagation-*-of-*-level-*.npz"):
            fields = file.name[len("propagation-"):-len(".npz")].replace("-of-", " ").replace("-level-", " ").split()
            if len(fields) == 3 and all(field.isdigit() for field in fields):
                part, parts, level = (int(field) for field in fields)
                found[(parts, part - 1, level)] = file
        return found

    def checkpoint_level(self, group: tuple[str, ...]) -> tuple[int, int] | None:
        """(parts, level) of the group's latest checkpoint that every partition saved, if any."""
        files = self._checkpoint_files(group)
        complete = [(level, parts) for parts, _, level in files
                    if all((parts, part, level) in files for part in range(parts))]
        return (max(complete)[1], max(complete)[0]) if complete else None

    def write_checkpoint(self, group: tuple[str, ...], parts: int, part: int, level: int, highest: int,
                         outcome: np.ndarray, remoteness: np.ndarray, pending: np.ndarray, *,
                         span: tuple[int, int]) -> None:
        """Save one partition's propagation state as it stands before `level`; `span` is its
        range of the group's indices (lo, hi)."""
        self.store.fence()
        self._scratch_folder(group[0])
        _save_atomically(self._checkpoint_file(group, parts, part, level), group=np.array(group), level=level,
                         highest=highest, outcome=outcome, remoteness=remoteness, pending=pending,
                         counts=np.array(PENDING_COUNTS), span=np.array(span, dtype=np.int64))

    def read_checkpoint(self, group: tuple[str, ...], parts: int, part: int, level: int, *,
                        span: tuple[int, int] | None = None) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """(highest, outcome, remoteness, pending) of a partition's checkpoint (its arrays hold the
        partition's positions, numbered densely: `solvers.members`), saved for the range `span`
        (None: any range).

        :raises DamagedStore: it cannot be read, or it is not a checkpoint of this group, level and
            range."""
        file = self._checkpoint_file(group, parts, part, level)
        what = f"tier {group[0]}: the propagation checkpoint {file.relative_to(self.store.path)}"
        try:  # an .npz is a zip: a changed byte fails its CRC or its structure
            with np.load(file, allow_pickle=False) as data:
                state = (tuple(data["group"].tolist()), int(data["level"]), int(data["highest"]),
                         data["outcome"], data["remoteness"], data["pending"])
                counts = _counts(data)
                saved_span = tuple(data["span"].tolist()) if "span" in data.files else None
        except Exception as exc:  # whatever numpy or zipfile raise on a damaged file
            raise self.store.damaged(what, exc) from None
        if counts != PENDING_COUNTS:
            raise self.store.damaged(what, why="written by an earlier version, which counted children otherwise")
        if saved_span is None:
            raise self.store.damaged(what, why="written by an earlier version, which cut the group otherwise")
        if span is not None and saved_span != tuple(span):
            raise self.store.damaged(what, why=f"saved for indices {saved_span[0]:,}..{saved_span[1] - 1:,}, "
                                               f"not {span[0]:,}..{span[1] - 1:,}")
        size = sum(self.store.plan.tier(name).size for name in group)
        if state[:2] != (group, level) or any(array.ndim != 1 or array.shape != state[3].shape
                                              for array in state[3:]) or state[3].size > size:
            raise self.store.damaged(what, why="not this group's")
        return state[2:]

    def drop_checkpoints(self, group: tuple[str, ...], keep: tuple[int, int] | None = None) -> None:
        """Delete the group's checkpoint files but those of `keep` = (parts, level)."""
        for (parts, _, level), file in self._checkpoint_files(group).items():
            if (parts, level) != keep:
                file.unlink(missing_ok=True)

    def _messages_folder(self, group: tuple[str, ...], level: int) -> Path:
        return self.store.inside(SCRATCH, group[0], f"level-{level}")

    @contextmanager
    def message_writer(self, group: tuple[str, ...], level: int, sender: int) -> Iterator[Callable]:
        """`write(receiver, messages)`, appending to what partition `sender` sends partition
        `receiver` at `level`: the parents it reached in the receiver's positions, as int64
        messages (`pipeline.propagation.MESSAGE_INDEX`: group index, weight, whether the child
        lost). Their order does not matter, so they are kept up to `FRAME_MESSAGES` a receiver
        and written as frames (`_encode_frame`). The files are renamed into place when the block
        ends. Read back within the same solve attempt only (a resumed solve starts from a
        checkpoint), so not synced. Nothing is written where nothing is sent."""
        folder = self._messages_folder(group, level)
        files: dict[int, Any] = {}
        kept: dict[int, list[np.ndarray]] = {}
        counts: dict[int, int] = {}  # messages kept for each receiver

        def flush(receiver: int) -> None:
            if receiver not in files:
                if not files:
                    self.store.fence()
                    self._scratch_folder(group[0])
                    folder.mkdir(exist_ok=True)
                files[receiver] = durable.create_file(folder / f"{sender}-{receiver}.bin{durable.PARTIAL}",
                                                      exclusive=False)
            files[receiver].write(_encode_frame(np.concatenate(kept.pop(receiver))))
            counts[receiver] = 0

        def write(receiver: int, messages: np.ndarray) -> None:
            kept.setdefault(receiver, []).append(np.array(messages, dtype=np.int64))
            counts[receiver] = counts.get(receiver, 0) + messages.size
            if counts[receiver] >= FRAME_MESSAGES:
                flush(receiver)

        try:
            yield write
            for receiver in list(kept):
                flush(receiver)
        finally:
            for file in files.values():
                file.close()
        for receiver in files:
            target = folder / f"{sender}-{receiver}.bin"
            target.with_name(target.name + durable.PARTIAL).replace(target)

    def read_messages(self, group: tuple[str, ...], level: int, receiver: int, parts: int,
                      piece: int) -> Iterator[np.ndarray]:
        """What every other partition sent `receiver` at `level`, up to `piece` entries at a time.

        :raises DamagedStore: a file's frames cannot be decoded."""
        folder = self._messages_folder(group, level)
        for sender in range(parts):
            file = durable.inside(self.store.path, folder / f"{sender}-{receiver}.bin")
            if sender == receiver or not file.is_file():
                continue
            with open(file, "rb") as opened:
                while header := opened.read(FRAME_HEADER.size):
                    try:
                        count, size = FRAME_HEADER.unpack(header)
                        messages = _decode_frame(count, opened.read(size))
                    except (struct.error, zlib.error, ValueError) as exc:
                        raise self.store.damaged(f"tier {group[0]}: the messages file "
                                                 f"{file.relative_to(self.store.path)}", exc) from None
                    for start in range(0, messages.size, piece):
                        yield messages[start:start + piece]

    def drop_messages(self, group: tuple[str, ...], level: int | None = None) -> None:
        """Delete what partitions sent at `level` (None: at every level)."""
        folders = [self._messages_folder(group, level)] if level is not None else \
            (self.store.inside(SCRATCH, group[0], folder.name) for folder in
             self.store.inside(SCRATCH, group[0]).glob("level-*"))
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    def damage(self) -> list[str]:
        """One line for each first-pass file or propagation checkpoint of an unfinished solve
        that a rerun could not use (read only: `verify`); a rerun recomputes what they held."""
        found = []
        for step in self.store.plan.steps:
            if not step.loopy:
                continue
            for name in step.tiers:
                for chunk, present in enumerate(self.settled_chunks(name)):
                    if present:
                        try:
                            self._first_pass(name, chunk)
                        except DamagedStore as exc:
                            found.append(str(exc))
            for (parts, part, level) in sorted(self._checkpoint_files(step.tiers)):
                try:
                    self.read_checkpoint(step.tiers, parts, part, level)
                except DamagedStore as exc:
                    found.append(str(exc))
        return found

    def delete(self, name: str) -> None:
        """Drop a solved tier's first pass (driver only: no task writes there any more). The
        scratch folder itself goes at `end_attempt`: until then a worker may write another
        group's first pass into it at any moment (`Store.end_attempt`)."""
        shutil.rmtree(self.store.inside(SCRATCH, name), ignore_errors=True)


def _positions(outcome: np.ndarray, pending: np.ndarray) -> int:
    """A first pass's positions: rows with a value or children in the group to wait for (the
    others are holes; `Partition.load` keeps the same rows)."""
    return int(np.count_nonzero(outcome | pending))


def _counts(data) -> str | None:
    """How a scratch file's `pending` counts children (None: a file of a version before the mark)."""
    return str(data["counts"]) if "counts" in data.files else None


def _save_atomically(target: Path, **arrays: Any) -> None:
    """Write an .npz file whole or not at all, deflated at level 1: a first pass or checkpoint
    is long runs of the same few values (5x5 Quixo's first passes shrink about 50 times, at
    350 MB/s a core), so a deep solve's scratch takes gigabytes of disk, not the tens of
    gigabytes of 4 bytes a row."""
    write_npz(target, arrays, SCRATCH_LEVEL)


def _encode_frame(messages: np.ndarray) -> bytes:
    """A frame of messages (non-negative int64, in any order): header, then, deflated, the
    sorted messages' low bytes (weight and loss) and the differences of their parents (the
    first from 0) as 8 byte planes. Sorted parents lie close, so their differences fill the low
    planes only and the rest deflates to almost nothing: 1-2 bytes a message, not 8."""
    ordered = np.sort(messages)
    differences = np.diff(ordered >> 8, prepend=np.int64(0))
    planes = np.empty((9, ordered.size), dtype=np.uint8)
    planes[0] = ordered & 0xFF
    planes[1:] = differences.view(np.uint8).reshape(-1, 8).T
    payload = zlib.compress(planes.tobytes(), SCRATCH_LEVEL)
    return FRAME_HEADER.pack(ordered.size, len(payload)) + payload


def _decode_frame(count: int, payload: bytes) -> np.ndarray:
    """The messages of a frame, sorted (`_encode_frame`'s inverse).

    :raises ValueError, zlib.error: the payload is not a frame of `count` messages."""
    planes = np.frombuffer(zlib.decompress(payload), dtype=np.uint8).reshape(9, count)
    parents = np.cumsum(np.ascontiguousarray(planes[1:].T).view(np.int64).reshape(count))
    return (parents << 8) | planes[0]
