"""One zarr v3 group per solved game instance (layout in docs/STORE.md).

    <store>/zarr.json                    attrs["retrograde"] = the plan (game, params, format, tiers)
    <store>/tiers/<tier>/zarr.json       attrs: the tier's name and place, status, W/L/D counts, checksum,
                                         per-chunk records
    <store>/tiers/<tier>/outcome         uint8, 2-bit packed outcome codes (4 positions a byte)
    <store>/tiers/<tier>/remoteness      plan.remoteness_dtype, plies to the end (0 for draws)
    <store>/tiers/<tier>/half            "one-ply" encoding only: uint8 a chunk, 0 where s is not halved

In the "one-ply" encoding (`data.encoding`) the arrays hold codes and s, not values: every
reader here decodes them (the game's one-ply classes), so what it returns, the checksums and
the counts are the values, as in a plain store.

Chunk tasks write array chunks (each zarr chunk is written whole, atomically);
only the driver writes attributes, after a chunk's data is on disk, so a chunk
record always describes bytes that exist. A store is created complete in a
temporary folder and renamed into place, so a half-planned store never appears.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import socket
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import zarr
from zarr.codecs import BloscCodec, ZstdCodec
from zarr.core.buffer import default_buffer_prototype
from zarr.core.chunk_grids import RegularChunkGrid
from zarr.core.group import GroupMetadata
from zarr.core.metadata import ArrayV3Metadata
from zarr.storage import MemoryStore

from retrograde.data import durable, encoding, packing
from retrograde.data.chunks import ChunkCodec
from retrograde.data.locate import root_document
from retrograde.data.lock import missing_folder
from retrograde.data.plan import FORMAT_VERSION, ONE_PLY, Plan, make_plan
from retrograde.errors import DamagedStore, MissingTierError, StoreError, Superseded
from retrograde.games import Game, make_game

ATTR = "retrograde"
PENDING, PARTIAL, SOLVED = "pending", "partial", "solved"
#: What a chunk's record holds: its W/L/D counts, the checksum of its values and the digest of
#: its files as stored.
CHUNK_RECORD = ("win", "loss", "draw", "checksum", "stored")
#: Folder (outside the zarr hierarchy) a solve works in: its attempt, and what the pipeline keeps
#: of loopy groups being solved (`pipeline.scratch`). Gone once the store is solved.
SCRATCH = "scratch"
#: The file in SCRATCH naming the solve attempt now writing (tasks of another attempt publish nothing).
ATTEMPT = "attempt"
#: The two arrays of a tier, in the order their chunk files enter a chunk's `stored` digest.
ARRAYS = ("outcome", "remoteness")
#: The third array of a tier in the "one-ply" encoding: a chunk's `half` flag, one byte a chunk,
#: 1 (the fill value, no file) where its s is the half remoteness.
HALF = "half"
#: Packed outcomes are strongly correlated along the index: plain zstd does well. Level 5: 4x4
#: Quixo's one-ply codes 153,529 B (level 9: 148,924 B, level 15: 142,096 B for 0.4 s more a solve).
OUTCOME_CODECS = (ZstdCodec(level=5),)


def remoteness_codecs(dtype: np.dtype) -> tuple:
    """Byte-shuffled zstd: the high bytes of remoteness are almost all zero (bit shuffle does
    worse), in 1 MiB blocks. Level 5: 4x4 Quixo's one-ply s 605 kB (level 4: 615 kB; level 8:
    588 kB for 0.4 s more CPU a solve with level 15 codes)."""
    return (BloscCodec(cname="zstd", clevel=5, shuffle="shuffle", typesize=dtype.itemsize, blocksize=1 << 20),)


def chunk_checksum(packed_outcome: np.ndarray, remoteness: np.ndarray) -> str:
    """Checksum of one chunk's stored bytes (packed outcomes, then little-endian remoteness)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.ascontiguousarray(packed_outcome, dtype=np.uint8).tobytes())
    digest.update(np.ascontiguousarray(remoteness).astype(remoteness.dtype.newbyteorder("<")).tobytes())
    return digest.hexdigest()


def stored_digest(files: list[bytes | None]) -> str:
    """Digest of a chunk's files as stored (compressed; None for a file zarr leaves out because
    it holds only the fill value): any changed byte shows, even one the codecs ignore."""
    digest = hashlib.blake2b(digest_size=16)
    for content in files:
        digest.update(b"-" if content is None else len(content).to_bytes(8, "little") + content)
    return digest.hexdigest()


def tier_checksum(chunk_checksums: list[str], tier: str | None = None, place: int | None = None) -> str:
    """Checksum of a solved tier: over its name and place in the plan (a record that holds them,
    `TierRecord`), then its chunks' checksums."""
    bound = "" if tier is None else f"{tier}\n{place}\n"
    return hashlib.blake2b((bound + "".join(chunk_checksums)).encode(), digest_size=16).hexdigest()


@dataclass
class TierRecord:
    """What the store says about one tier: a record per chunk (None: not solved yet), the sums
    over them, and the `tier` it belongs to, by name and `place` in the plan, so that a tier
    folder swapped, renamed or copied to another tier's name is refused when its record is read
    (None: a record written before records named their tier)."""

    chunks: list[dict[str, Any] | None]
    tier: str | None = None
    place: int | None = None

    @property
    def done(self) -> int:
        return sum(record is not None for record in self.chunks)

    @property
    def status(self) -> str:
        done = self.done
        return SOLVED if done == len(self.chunks) else PARTIAL if done else PENDING

    def count(self, key: str) -> int:
        return sum(record[key] for record in self.chunks if record is not None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {} if self.tier is None else {"tier": self.tier, "place": self.place}
        data.update(status=self.status, chunks=self.chunks)
        if self.status == SOLVED:
            data.update({key: self.count(key) for key in ("win", "loss", "draw")})
            data["checksum"] = tier_checksum([record["checksum"] for record in self.chunks], self.tier, self.place)
        return data


@dataclass(frozen=True)
class StoreRef:
    """A store as a solve's tasks open it, wherever they run: its absolute `location`, the solve
    `attempt` they write for (None: tasks that only read, verify's) and `plan`, the digest of the
    plan their driver solves (its root document). A task opens that plan from what its process
    holds (`Store.open`) or is refused: the store was planned again since."""

    location: str
    attempt: str | None
    plan: str

    def open(self) -> Store:
        """The store, for writing if this ref writes for an attempt.

        :raises Superseded: the store no longer holds this ref's plan."""
        return Store.open(self.location, mode="r" if self.attempt is None else "r+", attempt=self.attempt,
                          plan=self.plan)

    @property
    def read_only(self) -> StoreRef:
        """The same store for tasks that only read it."""
        return replace(self, attempt=None)


class Store:
    """An opened store. Use `Store.open` / `Store.create`; close it (or use `with`)."""

    #: Decoded chunks kept for `read_values` (bytes).
    cache_bytes = 256 * 2**20
    #: One-ply classes of chunks kept (bytes, one an index): `ChildValues` reads each child chunk
    #: twice (its outcomes, then its values), and the classes cost as much as the rest of a read
    #: (4x4 Quixo in-process: 1.2 s of a solve without this, 0.6 s with it).
    classes_cache_bytes = 64 * 2**20

    def __init__(self, path: Path, plan: Plan, game: Game, plan_digest: str, *, writable: bool,
                 attempt: str | None = None):
        self.path = path
        #: The digest of the store's root document, which holds its plan (`StoreRef.plan`).
        self.plan_digest = plan_digest
        self.writable = writable
        #: The solve attempt this store writes for (see `begin_attempt`); None: no fence.
        self.attempt = attempt
        self.plan, self.game = plan, game
        self._check_document("tiers", _tiers_document(), "the document tiers/zarr.json")
        self.fence()  # a task of a stale attempt stops before it works, not only before it writes
        self._tier_names = {tier.name for tier in self.plan.tiers}
        #: The tier's arrays, in the order their chunk files enter a chunk's `stored` digest.
        self.arrays = (*ARRAYS, HALF) if self.one_ply else ARRAYS
        self._records: dict[str, TierRecord] = {}
        self._checked_arrays: set[str] = set()
        self._chunk_cache: dict[tuple[str, int], tuple[np.ndarray, ...]] = {}
        self._cached_bytes = 0
        self._classes_cache: dict[tuple[str, int], np.ndarray] = {}
        self._unflushed = durable.Deferred()  # chunk files written, flushed at close

    # --- lifecycle ------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike, *, mode: str = "r", attempt: str | None = None,
             plan: str | None = None) -> Store:
        """Open an existing store, read-only ("r") or for solving ("r+"); a solve task passes
        its driver's `attempt` (see `begin_attempt`) and the digest of its `plan` (`StoreRef`).

        :raises StoreError: no store, not a retrograde store, or another format; DamagedStore: its
            root documents are not byte for byte those of the plan they name; Superseded: the
            store holds another plan than `plan`.
        """
        path = Path(path)
        held_plan, game, digest = _plan_and_game(path, root_document(path))
        if plan is not None and digest != plan:
            raise Superseded(f"store {str(path)!r}: it was planned again since this task's solve began; "
                             "its results are dropped")
        return cls(path, held_plan, game, digest, writable=mode == "r+", attempt=attempt)

    @classmethod
    def create(cls, path: str | os.PathLike, plan: Plan, game: Game | None = None) -> Store:
        """Create an empty store for `plan` at `path` (which must not exist or be an empty folder);
        `game`, where given, is the game `plan` was made from (`make_plan(game)`): the process then
        holds the plan as the store's, and opening the store never builds it again.

        Built in a temporary sibling folder and renamed into place, so an
        interrupted creation leaves no store behind (rerunning creates it again).
        """
        path = Path(path)
        if path.is_symlink() and not path.exists():  # renamed onto, the link would be replaced, not followed
            raise StoreError(f"{str(path)!r} is a link to nothing: give the store's own path")
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise StoreError(f"{str(path)!r} exists and is not a retrograde store")
        if why := missing_folder(path, "store"):
            raise StoreError(why)
        host, prefix = socket.gethostname(), f".{path.name}.planning-"
        for stale in path.parent.iterdir():  # by prefix: the store's name is no glob pattern ('q*', '[a]')
            if stale.name.startswith(prefix) and _abandoned(stale.name[len(prefix):].rsplit("-", 2), host):
                shutil.rmtree(stale, ignore_errors=True)
        staging = path.parent / f"{prefix}{host}-{os.getpid()}-{uuid.uuid4().hex}"
        try:
            durable.write_tree(staging, _hierarchy(plan))
        except BaseException:  # a full disk, a kill: leave nothing (the staging folder takes room)
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if path.exists():
            path.rmdir()
        os.rename(staging, path)
        durable.sync_folder(path.parent)
        if game is not None:
            _hold_plan(_plan_digest(_plan_document(plan)), plan, game)
        return cls.open(path, mode="r+")

    def close(self) -> None:
        """Flush the chunk files written (before a task returns, so before its driver records them)."""
        self._unflushed.flush()
        self._records.clear()
        self._checked_arrays.clear()
        self._chunk_cache.clear()
        self._cached_bytes = 0
        self._classes_cache.clear()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {str(self.path)!r} {self.game.describe()}>"

    # --- metadata ---------------------------------------------------------------------
    def damaged(self, what: str, exc: BaseException | None = None, why: str = "") -> Exception:
        """The error for a part of the store that cannot be read or disagrees with the plan (a
        file the user may not read is no damage: its PermissionError is returned as it is)."""
        if isinstance(exc, PermissionError):
            return exc
        if exc is not None:
            why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        return DamagedStore(f"store {str(self.path)!r}: {what} is damaged" + (f" ({why})" if why else ""))

    def _check_document(self, node: str, expected: bytes, what: str) -> None:
        """The document of `node` must hold exactly the `expected` bytes (what zarr writes for
        its metadata): any changed byte, even one that still parses to the same values, is damage."""
        try:
            stored = durable.read_inside(self.path, self.path / node / "zarr.json")
        except OSError as exc:
            raise self.damaged(what, exc) from None
        if stored != expected:
            raise self.damaged(what)

    def record(self, name: str) -> TierRecord:
        """The tier's chunk records as last written by the driver (the document read once, so a
        reader never mixes two versions of it while a solve writes it).

        :raises DamagedStore: the document is unreadable, malformed, the record of another tier
            (by name or place in the plan), or not byte for byte what its records make;
            StoreError: a record that names no tier (`unbound`)."""
        if name not in self._records:
            record, bound = self._read_record(name)
            if not bound:
                raise StoreError(f"store {str(self.path)!r}: its tier records predate their binding to their "
                                 f"tiers' names (written by retrograde before records named their tier, so a "
                                 f"swapped tier folder would go unseen): run `retrograde upgrade --store "
                                 f"{self.path}`, which verifies every tier and binds its record")
            self._records[name] = record
        return self._records[name]

    def _read_record(self, name: str) -> tuple[TierRecord, bool]:
        """The tier's record, bound to it, and whether its document names it (False: a record
        written before records named their tier, whose checksum covers the chunks alone).

        :raises DamagedStore: as `record`."""
        document = f"tier {name}: its document tiers/{name}/zarr.json"
        try:
            stored = durable.read_inside(self.path, self.path / "tiers" / name / "zarr.json")
            attributes = json.loads(stored)["attributes"]
            chunks = attributes["chunks"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise self.damaged(document, exc) from None
        if not (isinstance(chunks, list) and len(chunks) == self.plan.chunking(name).count
                and all(chunk is None or _is_chunk_record(chunk) for chunk in chunks)):
            raise self.damaged(f"tier {name}: the chunk record list in tiers/{name}/zarr.json")
        place = self.plan.place(name)
        held = attributes.get("tier"), attributes.get("place")  # (None, None): written before records named it
        bound = held != (None, None)
        if bound and held != (name, place):
            raise self.damaged(document, why=f"it is the record of tier {held[0]!r} at place {held[1]!r} of "
                                             f"the plan, not of {name} at place {place}: were tier folders "
                                             "swapped, renamed or copied?")
        if not _is_record_document(stored, *((name, place) if bound else (None, None))):
            raise self.damaged(f"tier {name}: the status, counts or checksum in tiers/{name}/zarr.json")
        return TierRecord(chunks, name, place), bound

    def unbound(self) -> list[str]:
        """The tiers whose records name no tier (written before records named their tier), in
        plan order: what `retrograde upgrade` binds once `verify` finds their values right.

        :raises DamagedStore: as `record`."""
        return [tier.name for tier in self.plan.tiers if not self._read_record(tier.name)[1]]

    def bind(self, name: str) -> None:
        """Write tier `name`'s record again, naming its tier and place (`unbound`): done by
        `retrograde upgrade` on a copy of the store it verifies before it takes its place."""
        self._require_writable()
        self._records[name] = self._read_record(name)[0]
        self.record_chunks(name, [])

    def record_chunks(self, name: str, summaries: Iterable[dict[str, Any]]) -> None:
        """Mark chunks of tier `name` done, from their tasks' summaries, in one write of the tier's
        document (which holds every chunk's record: one write a chunk would cost the square of
        a tier's chunks). Driver only; their data must already be written."""
        self._require_writable()
        record = self.record(name)
        for summary in summaries:
            record.chunks[summary["chunk"]] = {key: summary[key] for key in CHUNK_RECORD}
        document = _record_document(record)
        durable.write_atomically(self.inside("tiers", name, "zarr.json"), lambda file: file.write(document))

    def deepen(self, plan: Plan) -> Store:
        """This store with `plan`, which `extends` its own: the new tiers are added, unsolved,
        and every solved tier is kept as it is. The result is the store `Store.create(plan)`
        would make and a solve would fill up to where this one is (driver only, under the
        writer lock).

        New tiers are written first, the plan last: a kill in between leaves the old store,
        with folders of tiers it does not list, which the next deepening replaces."""
        if not (self.writable and plan.extends(self.plan)):
            raise StoreError(f"store {str(self.path)!r} cannot be deepened to {make_game(plan.game, plan.params).describe()}")
        for folder in self.inside("tiers").iterdir():
            # a folder left by an interrupted deepening (a link there is refused, never followed)
            if folder.name not in self._tier_names and self.inside("tiers", folder.name).is_dir():
                shutil.rmtree(folder)
        durable.write_tree(self.path, {name: document for name, document in _hierarchy(plan).items()
                                       if name.count("/") > 1 and name.split("/")[1] not in self._tier_names})
        root = _plan_document(plan)
        durable.write_atomically(self.path / "zarr.json", lambda file: file.write(root))
        self.close()
        return Store.open(self.path, mode="r+")

    # --- attempts: which solve may write --------------------------------------------------
    def begin_attempt(self) -> str:
        """Make this store's writes those of a new solve attempt (driver only, before any task).

        Its id goes into scratch/attempt; a task checks that file before it writes, so a task
        of an earlier attempt, still running on a cluster after its driver was killed, writes
        nothing from now on. Then temporary files killed writers left are removed."""
        durable.make_folder(self.inside(SCRATCH))
        for entry in (self.path / SCRATCH).iterdir():  # a link there stops the solve before it writes
            self.inside(SCRATCH, entry.name)
        self.attempt = uuid.uuid4().hex
        durable.write_atomically(self.inside(SCRATCH, ATTEMPT), lambda file: file.write(self.attempt.encode()))
        self.remove_partial_writes()
        return self.attempt

    def end_attempt(self) -> None:
        """After the last task (driver only): remove temporary files of writers killed during
        the solve, then the attempt and the emptied scratch folder, leaving the store as if
        solved in one go; a late task of this attempt then writes nothing."""
        self.remove_partial_writes()
        self.inside(SCRATCH, ATTEMPT).unlink(missing_ok=True)
        try:
            (self.path / SCRATCH).rmdir()
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTEMPTY):  # not there, or a stale writer's
                raise
        durable.sync_folder(self.path)

    def inside(self, *parts: str) -> Path:
        """The path `parts` name in the store, refused if it runs through a symbolic link: a
        crafted store never makes a solve write or delete outside it (`durable.inside`).

        :raises StoreError: naming the link."""
        return durable.inside(self.path, self.path.joinpath(*parts))

    def _require_writable(self) -> None:
        if not self.writable:
            raise StoreError(f"store {str(self.path)!r} is open read-only")

    def fence(self) -> None:
        """:raises Superseded: this store writes for an attempt that is no longer the current one."""
        if self.attempt is None:
            return
        try:
            current = durable.read_inside(self.path, self.path / SCRATCH / ATTEMPT).decode()
        except (FileNotFoundError, NotADirectoryError):
            current = None
        if current != self.attempt:
            raise Superseded(f"store {str(self.path)!r}: another solve took over the store (this task's solve "
                             f"attempt {self.attempt[:8]} is {'over' if current is None else 'stopped'}); "
                             "its results are dropped")

    def remove_partial_writes(self) -> None:
        """Delete temporary files killed writers left (every write goes to a `*.partial` file
        renamed into place). Driver only, when no task of its attempt runs: a task of an
        earlier attempt that loses its temporary file fails, which fences it too."""
        for leftover in self.path.rglob(f"*{durable.PARTIAL}"):  # never descends into a linked folder
            leftover.unlink(missing_ok=True)

    @property
    def one_ply(self) -> bool:
        """Whether the arrays hold the "one-ply" encoding (`data.encoding`), not the values."""
        return self.plan.encoding == ONE_PLY

    @property
    def location(self) -> str:
        """The absolute path, as tasks on other processes (or machines) must open it."""
        return str(self.path.absolute())

    @property
    def ref(self) -> StoreRef:
        """How this store's tasks open it: its location, its solve attempt and its plan's digest."""
        return StoreRef(self.location, self.attempt, self.plan_digest)

    @property
    def complete(self) -> bool:
        return all(self.record(t.name).status == SOLVED for t in self.plan.tiers)

    def require_solved(self, name: str) -> None:
        """:raises MissingTierError: naming the tier, if it is not in the plan or not solved."""
        if name not in self._tier_names:
            raise MissingTierError(f"store {str(self.path)!r}: tier {name} is not part of this store "
                                   f"({self.game.describe()})")
        if self.record(name).status != SOLVED:
            raise MissingTierError(f"store {str(self.path)!r}: tier {name} is not solved yet "
                                   f"({self.record(name).status}); run solve to finish it")

    # --- array data -------------------------------------------------------------------
    def _codecs(self, name: str) -> tuple[ChunkCodec, ...]:
        """The codecs of the tier's chunks, one for each of `arrays`; its array documents are
        checked once (they must be what the plan makes)."""
        tier = self.plan.chunking(name)
        if name not in self._checked_arrays:
            expected = _array_documents(self.plan.remoteness_dtype, tier.size, tier.chunk_size, self.one_ply)
            for key in self.arrays:
                self._check_document(f"tiers/{name}/{key}", expected[key],
                                     f"tier {name}: its document tiers/{name}/{key}/zarr.json")
            self._checked_arrays.add(name)
        return _chunk_codecs(self.plan.remoteness_dtype, tier.size, tier.chunk_size, self.one_ply)

    def _chunk_file(self, name: str, array: str, chunk: int) -> Path:
        return self.path / "tiers" / name / array / "c" / str(chunk)

    def write_chunk(self, name: str, chunk: int, outcome: np.ndarray, remoteness: np.ndarray) -> dict[str, str]:
        """Write one chunk's values (whole once this returns, on the disk once the store is closed:
        the files of a task's chunks are flushed together, `durable.Deferred`); returns the
        `checksum` of its values and the `stored` digest of its files for its record. Chunk tasks
        call this, in a `with` block that closes the store before they return.

        :raises Superseded: the store's solve attempt is no longer current."""
        self._require_writable()
        self.fence()
        packed = packing.pack(outcome)
        if self.one_ply:
            from retrograde.data.encoding_kernels import encode_packed

            codes, s = np.zeros(packing.packed_length(outcome.size), dtype=np.uint8), np.empty_like(remoteness)
            half = encode_packed(outcome, remoteness, codes, s)
            arrays = (codes, s, np.array([half], dtype=np.uint8))
        else:
            arrays = (packed, remoteness)
        files = [codec.encode(values) for codec, values in zip(self._codecs(name), arrays)]
        for array, content in zip(self.arrays, files):
            target = durable.inside(self.path, self._chunk_file(name, array, chunk))
            if content is None:  # only the fill value: no file (as zarr does it)
                self._unflushed.remove(target)
            else:
                self._unflushed.write(target, content)
        return {"checksum": chunk_checksum(packed, remoteness), "stored": stored_digest(files)}

    def _chunk_files(self, name: str, chunk: int) -> list[bytes | None]:
        """The bytes of a chunk's files as stored (None where there is none)."""
        files = []
        for array in self.arrays:
            try:
                files.append(durable.read_inside(self.path, self._chunk_file(name, array, chunk)))
            except FileNotFoundError:
                files.append(None)
            except OSError as exc:
                raise self.damaged(f"tier {name} chunk {chunk}: its file {array}/c/{chunk}", exc) from None
        return files

    def check_stored(self, name: str, chunk: int, files: list[bytes | None] | None = None) -> None:
        """A recorded chunk's files (`files`, if read already) must be byte for byte those its
        record's digest describes.

        :raises DamagedStore: naming the tier and chunk."""
        record = self.record(name).chunks[chunk]
        if record is not None and stored_digest(files or self._chunk_files(name, chunk)) != record["stored"]:
            raise self.damaged(f"tier {name} chunk {chunk}: its data", why="its files are not the ones recorded")

    def read_chunk_raw(self, name: str, chunk: int, *, checked: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """A chunk's values: packed outcome bytes and remoteness (decoded from the "one-ply"
        encoding); `checked=False` leaves the stored digest to the caller (verify, which then
        checks the values too).

        :raises DamagedStore: a recorded chunk's files are not those recorded, or a stored chunk
            cannot be decoded."""
        return self._read_chunk(name, chunk, checked=checked, remoteness=True)

    def read_chunk_outcome(self, name: str, chunk: int) -> np.ndarray:
        """A chunk's packed outcome bytes, its files checked as `read_chunk_raw` does.

        :raises DamagedStore: as `read_chunk_raw`."""
        return self._read_chunk(name, chunk, checked=True, remoteness=False)[0]

    def read_chunk_stored(self, name: str, chunk: int, *, checked: bool = True, remoteness: bool = True
                          ) -> tuple[np.ndarray | None, ...]:
        """A chunk's arrays as stored, one for each of `arrays` (outcome bytes still packed; the
        remoteness array None unless asked for).

        :raises DamagedStore: as `read_chunk_raw`."""
        start, stop = self.plan.chunking(name).bounds(chunk)
        files = self._chunk_files(name, chunk)
        if checked:
            self.check_stored(name, chunk, files)
        lengths = (packing.packed_length(stop - start), stop - start if remoteness else None, 1)
        try:
            return tuple(None if n is None else codec.decode(content, n)
                         for codec, content, n in zip(self._codecs(name), files, lengths))
        except Exception as exc:  # whatever the codecs raise on damaged bytes
            raise self.damaged(f"tier {name} chunk {chunk}: its data", exc) from None

    def _read_chunk(self, name: str, chunk: int, *, checked: bool, remoteness: bool) -> tuple[np.ndarray, ...]:
        """The chunk's packed outcome bytes, and its remoteness if asked (see `read_chunk_raw`)."""
        stored = self.read_chunk_stored(name, chunk, checked=checked, remoteness=remoteness)
        if not self.one_ply:
            return stored if remoteness else stored[:1]
        from retrograde.data.encoding_kernels import decode_packed

        classes = self._classes(name, chunk)
        packed = np.zeros(stored[0].size, dtype=np.uint8)
        values = np.empty(classes.size, dtype=np.dtype(self.plan.remoteness_dtype))
        s = stored[1] if remoteness else values  # outcomes only: no s to read, the values left unread
        decode_packed(classes, stored[0], s, bool(stored[2][0]), packed, values)
        return (packed, *((values,) if remoteness else ()))

    def _classes(self, name: str, chunk: int) -> np.ndarray:
        """The one-ply classes of a chunk's indices (the game's kernel), the latest kept up to
        `classes_cache_bytes`."""
        key = (name, chunk)
        if key not in self._classes_cache:
            start, stop = self.plan.chunking(name).bounds(chunk)
            classes = self.game.one_ply.classes(self.plan.tier(name), start, stop, np.empty(stop - start, np.uint8))
            while self._classes_cache and (sum(kept.nbytes for kept in self._classes_cache.values()) + classes.nbytes
                                           > self.classes_cache_bytes):
                self._classes_cache.pop(next(iter(self._classes_cache)))
            if classes.nbytes <= self.classes_cache_bytes:
                self._classes_cache[key] = classes
            return classes
        return self._classes_cache[key]

    def read_tier(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Unpacked outcome codes and remoteness of a whole tier.

        :raises DamagedStore: a recorded chunk's files are not those recorded, or a stored chunk
            cannot be decoded (the first such is named)."""
        chunking = self.plan.chunking(name)
        outcome = np.empty(chunking.size, dtype=np.uint8)
        remoteness = np.empty(chunking.size, dtype=np.dtype(self.plan.remoteness_dtype))
        for chunk in range(chunking.count):
            start, stop = chunking.bounds(chunk)
            packed, values = self._read_chunk(name, chunk, checked=True, remoteness=True)
            outcome[start:stop], remoteness[start:stop] = packing.unpack(packed, stop - start), values
        return outcome, remoteness

    def read_values(self, name: str, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Outcome codes and remoteness at arbitrary indices of a solved tier.

        Whole chunks are decoded once and kept (least recently used first out, up to
        `cache_bytes`), so probes and lookup agents pay the decompression once a chunk.
        """
        self.require_solved(name)
        indices = np.asarray(indices, dtype=np.int64)
        chunk_size = self.plan.chunking(name).chunk_size
        outcome = np.empty(indices.size, dtype=np.uint8)
        remoteness = np.empty(indices.size, dtype=np.dtype(self.plan.remoteness_dtype))
        chunks = indices // chunk_size
        for chunk in np.unique(chunks).tolist():
            rows = np.flatnonzero(chunks == chunk)
            packed, values, *half = self._cached_chunk(name, chunk)
            local = indices[rows] - chunk * chunk_size
            outcome[rows] = packing.unpack_at(packed[local // 4], local)
            remoteness[rows] = values[local]
            if half:  # the "one-ply" encoding: the indices' classes with numpy alone (no numba)
                classes = self.game.one_ply.batch(self.plan.tier(name), indices[rows])
                outcome[rows], remoteness[rows] = encoding.decode(classes, outcome[rows], remoteness[rows],
                                                                  bool(half[0][0]))
        return outcome, remoteness

    def _cached_chunk(self, name: str, chunk: int) -> tuple[np.ndarray, ...]:
        """The chunk's arrays as stored (`read_chunk_stored`), kept for `read_values`."""
        key = (name, chunk)
        if key in self._chunk_cache:
            self._chunk_cache[key] = self._chunk_cache.pop(key)  # most recently used last
            return self._chunk_cache[key]
        data = self.read_chunk_stored(name, chunk)
        if self.one_ply and data[1].size and data[1].max() <= 255:  # s in a byte: twice the chunks kept
            data = (data[0], data[1].astype(np.uint8), data[2])
        self._chunk_cache[key] = data
        self._cached_bytes += sum(array.nbytes for array in data)
        while self._cached_bytes > self.cache_bytes and len(self._chunk_cache) > 1:
            oldest = next(iter(self._chunk_cache))
            dropped = self._chunk_cache.pop(oldest)
            self._cached_bytes -= sum(array.nbytes for array in dropped)
        return data


#: Plans (with their games) this process holds, by the digest of their root document: the last
#: `PLANS_HELD` read or created (`_plan_and_game`).
_PLANS: OrderedDict[str, tuple[Plan, Game]] = OrderedDict()
PLANS_HELD = 8


def _plan_digest(document: bytes) -> str:
    """The digest of a store's root document: its plan's, for `StoreRef.plan`."""
    return hashlib.blake2b(document, digest_size=16).hexdigest()


def _hold_plan(digest: str, plan: Plan, game: Game) -> None:
    _PLANS[digest] = plan, game
    while len(_PLANS) > PLANS_HELD:
        _PLANS.popitem(last=False)


def _plan_and_game(path: Path, document: bytes) -> tuple[Plan, Game, str]:
    """The plan and game of the store at `path` whose root document (zarr.json) holds `document`,
    and the document's digest. Held to the document once per process (`_checked_plan`) and kept
    (every task opens its store, and a game lists its tiers anew when built; neither is ever
    changed)."""
    digest = _plan_digest(document)
    held = _PLANS.get(digest)
    if held is None:
        held = _checked_plan(path, document)
        _hold_plan(digest, *held)
    return *held, digest


def _checked_plan(path: Path, document: bytes) -> tuple[Plan, Game]:
    """The plan and game of the store at `path` whose root document holds `document`, held to
    it: the plan must be the one its game makes, and the document byte for byte what zarr writes
    for it."""
    meta = _attributes(path, document)
    if not isinstance(meta, dict) or "plan" not in meta:
        raise StoreError(f"{str(path)!r} is not a retrograde store")
    stored = meta["plan"]
    if not isinstance(stored, dict):
        raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is damaged (attributes.{ATTR}.plan is "
                           f"{type(stored).__name__}, not an object); was it edited by hand?")
    if stored.get("format") != FORMAT_VERSION:
        how = ("`retrograde upgrade --store` converts it" if stored.get("format") == FORMAT_VERSION - 1
               else "solve the game again into a new store")
        raise StoreError(f"store {str(path)!r} has format {stored.get('format')!r}; this version reads "
                         f"format {FORMAT_VERSION} only: {how}")
    try:
        missing = [key for key in ("game", "params", "chunk_size", "remoteness_dtype", "tiers", "steps", "encoding",
                                   "format")
                   if key not in stored]
        if missing:
            raise KeyError(missing[0])
        game = make_game(stored["game"], stored["params"])
        plan = make_plan(game, chunk_size=stored["chunk_size"])
    except (KeyError, TypeError, ValueError) as exc:
        raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is unreadable ({type(exc).__name__}: "
                           f"{exc}); was it damaged, or edited by hand?") from None
    if plan.to_json() != stored:
        raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is not the plan of the game it "
                           f"names ({game.describe()}); was it damaged, or edited by hand?")
    if document != _plan_document(plan):
        raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is damaged")
    return plan, game


def _attributes(path: Path, document: bytes) -> Any:
    """What the root `document` of the store at `path` holds under ATTR (None: nothing), read as JSON."""
    try:
        parsed = json.loads(document)
    except ValueError as exc:
        raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is damaged ({type(exc).__name__}: "
                           f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
    attributes = parsed.get("attributes") if isinstance(parsed, dict) else None
    return attributes.get(ATTR) if isinstance(attributes, dict) else None


def _plan_attributes(path: Path) -> Any:
    """What the store's root document holds under ATTR (None: nothing), not yet held to a plan."""
    return _attributes(path, root_document(path))


def _document(metadata: GroupMetadata | ArrayV3Metadata) -> bytes:
    """The bytes zarr writes as the document (zarr.json) of a node with this metadata."""
    return metadata.to_buffer_dict(default_buffer_prototype())["zarr.json"].to_bytes()


def _plan_document(plan: Plan) -> bytes:
    """The store's root document (zarr.json) for `plan`."""
    return _document(GroupMetadata(attributes={ATTR: {"plan": plan.to_json()}}))


def _record_document(record: TierRecord) -> bytes:
    """A tier's document (tiers/NAME/zarr.json) holding `record`."""
    return _document(GroupMetadata(attributes=record.to_json()))


@lru_cache(maxsize=64)
def _is_record_document(stored: bytes, tier: str | None, place: int | None) -> bool:
    """Whether `stored`, a tier's document whose chunk records are whole, is byte for byte what
    `Store.record_chunks` writes for them as the record of `tier` at `place` (None: a record that
    names no tier). Asked once per process and document: every task opens its store, and reads
    the records of each tier it reads."""
    record = TierRecord(json.loads(stored)["attributes"]["chunks"], tier, place)
    return stored == _record_document(record)


@lru_cache(maxsize=1)
def _tiers_document() -> bytes:
    """The document of a store's `tiers` group (tiers/zarr.json): an empty group's."""
    return _document(GroupMetadata())


def _is_chunk_record(record: Any) -> bool:
    """A chunk record as `record_chunks` writes it: counts and two 32-hex-digit digests."""
    return (isinstance(record, dict) and set(record) == set(CHUNK_RECORD)
            and all(type(record[key]) is int and record[key] >= 0 for key in ("win", "loss", "draw"))
            and all(isinstance(record[key], str) and len(record[key]) == 32
                    and all(c in "0123456789abcdef" for c in record[key]) for key in ("checksum", "stored")))


@lru_cache(maxsize=8)
def _array_templates(dtype_name: str) -> tuple[ArrayV3Metadata, ArrayV3Metadata, ArrayV3Metadata]:
    """Metadata of a one-element outcome, remoteness and half array, to be shaped per tier."""
    dtype = np.dtype(dtype_name)
    scratch = MemoryStore()
    outcome = zarr.create_array(scratch, name="outcome", shape=(1,), dtype="uint8", fill_value=0,
                                compressors=OUTCOME_CODECS).metadata
    remoteness = zarr.create_array(scratch, name="remoteness", shape=(1,), dtype=dtype, fill_value=0,
                                   compressors=remoteness_codecs(dtype)).metadata
    half = zarr.create_array(scratch, name=HALF, shape=(1,), dtype="uint8", fill_value=1, compressors=None).metadata
    return outcome, remoteness, half


def _array_metadata(dtype_name: str, size: int, chunk_size: int, one_ply: bool) -> dict[str, ArrayV3Metadata]:
    """The metadata of a tier's arrays, as the plan makes them."""
    outcome, remoteness, half = _array_templates(dtype_name)
    arrays = {"outcome": replace(outcome, shape=(packing.packed_length(size),),
                                 chunk_grid=RegularChunkGrid(chunk_shape=(chunk_size // 4,))),
              "remoteness": replace(remoteness, shape=(size,), chunk_grid=RegularChunkGrid(chunk_shape=(chunk_size,)))}
    if one_ply:
        arrays[HALF] = replace(half, shape=(-(-size // chunk_size),))
    return arrays


@lru_cache(maxsize=4096)
def _chunk_codecs(dtype_name: str, size: int, chunk_size: int, one_ply: bool) -> tuple[ChunkCodec, ...]:
    return tuple(ChunkCodec(metadata) for metadata in _array_metadata(dtype_name, size, chunk_size, one_ply).values())


@lru_cache(maxsize=4096)
def _array_documents(dtype_name: str, size: int, chunk_size: int, one_ply: bool) -> dict[str, bytes]:
    """The documents of a tier's arrays (kept: every store opened in a process checks them)."""
    return {key: _document(metadata)
            for key, metadata in _array_metadata(dtype_name, size, chunk_size, one_ply).items()}



def _hierarchy(plan: Plan) -> dict[str, bytes]:
    """The documents of an empty store for `plan`, by path in the store: those zarr writes for its
    nodes (`_document`), and nothing else."""
    documents = {"zarr.json": _plan_document(plan),
                 "tiers/zarr.json": _tiers_document()}
    for place, tier in enumerate(plan.tiers):
        prefix = f"tiers/{tier.name}"
        chunking = plan.chunking(tier.name)
        documents[f"{prefix}/zarr.json"] = _record_document(TierRecord([None] * chunking.count, tier.name, place))
        for key, document in _array_documents(plan.remoteness_dtype, chunking.size, chunking.chunk_size,
                                              plan.encoding == ONE_PLY).items():
            documents[f"{prefix}/{key}/zarr.json"] = document
    return documents


def _abandoned(owner: list[str], host: str) -> bool:
    """Whether a staging folder's creator, (host, pid, id) from its name, is a process of this
    host that has ended: only then is the folder left over (another run may be planning)."""
    if len(owner) != 3 or owner[0] != host or not owner[1].isdigit():
        return False
    try:
        os.kill(int(owner[1]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
