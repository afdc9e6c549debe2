"""One zarr v3 group per solved game instance (layout in docs/STORE.md).

    <store>/zarr.json                    attrs["retrograde"] = the plan (game, params, format, tiers)
    <store>/tiers/<tier>/zarr.json       attrs: status, W/L/D counts, checksum, per-chunk records
    <store>/tiers/<tier>/outcome         uint8, 2-bit packed outcome codes (4 positions a byte)
    <store>/tiers/<tier>/remoteness      plan.remoteness_dtype, plies to the end (0 for draws)

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
import uuid
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
from zarr.storage import LocalStore, MemoryStore

from retrograde.data import packing
from retrograde.errors import DamagedStore, MissingTierError, StoreError
from retrograde.games import Game, make_game
from retrograde.pipeline.plan import FORMAT_VERSION, Plan, TierPlan, make_plan

ATTR = "retrograde"
#: Plan documents found whole in this process, by (path, inode, mtime, size): `Store._check_plan`.
_CHECKED_PLANS: set[tuple[str, int, int, int]] = set()
PENDING, PARTIAL, SOLVED = "pending", "partial", "solved"
#: Folder (outside the zarr hierarchy) for first-pass files of loopy groups being solved.
SCRATCH = "scratch"
#: Packed outcomes are strongly correlated along the index: plain zstd does well (4x4 Quixo:
#: 10.8 MB packed -> 1.5 MB).
OUTCOME_CODECS = (ZstdCodec(level=5),)


def remoteness_codecs(dtype: np.dtype) -> tuple:
    """Byte-shuffled zstd: the high bytes of remoteness are almost all zero (4x4 Quixo:
    86 MB of uint16 -> 6.2 MB; plain zstd 8.9 MB, bit-shuffled 6.8 MB). Level 4 in 1 MiB
    blocks compresses as well as level 5 in blosc's default blocks, in half the time."""
    return (BloscCodec(cname="zstd", clevel=4, shuffle="shuffle", typesize=dtype.itemsize, blocksize=1 << 20),)


def chunk_checksum(packed_outcome: np.ndarray, remoteness: np.ndarray) -> str:
    """Checksum of one chunk's stored bytes (packed outcomes, then little-endian remoteness)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.ascontiguousarray(packed_outcome, dtype=np.uint8).tobytes())
    digest.update(np.ascontiguousarray(remoteness).astype(remoteness.dtype.newbyteorder("<")).tobytes())
    return digest.hexdigest()


def tier_checksum(chunk_checksums: list[str]) -> str:
    return hashlib.blake2b("".join(chunk_checksums).encode(), digest_size=16).hexdigest()


@dataclass
class TierRecord:
    """What the store says about one tier: per-chunk records and the sums over them."""

    plan: TierPlan
    chunks: list[dict[str, Any] | None]

    @property
    def done(self) -> int:
        return sum(record is not None for record in self.chunks)

    @property
    def status(self) -> str:
        done = self.done
        return SOLVED if done == self.plan.n_chunks else PARTIAL if done else PENDING

    def count(self, key: str) -> int:
        return sum(record[key] for record in self.chunks if record is not None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "chunks": self.chunks}
        if self.status == SOLVED:
            data.update({key: self.count(key) for key in ("win", "loss", "draw")})
            data["checksum"] = tier_checksum([record["checksum"] for record in self.chunks])
        return data


class Store:
    """An opened store. Use `open_store` / `create_store`; close it (or use `with`)."""

    #: Decoded chunks kept for `read_values` (bytes).
    cache_bytes = 256 * 2**20

    def __init__(self, path: Path, group: zarr.Group, *, writable: bool):
        self.path = path
        self._group = group
        self.writable = writable
        meta = group.attrs.get(ATTR)
        if not isinstance(meta, dict) or "plan" not in meta:
            raise StoreError(f"{str(path)!r} is not a retrograde store")
        if meta["plan"].get("format") != FORMAT_VERSION:
            raise StoreError(f"store {str(path)!r} has format {meta['plan'].get('format')!r}; "
                             f"this version reads format {FORMAT_VERSION}")
        try:
            self.plan = Plan.from_json(meta["plan"])
            self.game: Game = make_game(self.plan.game, self.plan.params)
        except (KeyError, TypeError, ValueError) as exc:
            raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is unreadable ({type(exc).__name__}: "
                               f"{exc}); was it damaged, or edited by hand?") from None
        self._check_plan()
        self._tier_names = {tier.name for tier in self.plan.tiers}
        self._records: dict[str, TierRecord] = {}
        self._opened: dict[str, tuple[zarr.Array, zarr.Array]] = {}
        self._chunk_cache: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        self._cached_bytes = 0

    # --- lifecycle ------------------------------------------------------------------
    def close(self) -> None:
        self._records.clear()
        self._opened.clear()
        self._chunk_cache.clear()
        self._cached_bytes = 0

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {str(self.path)!r} {self.game.describe()}>"

    # --- metadata ---------------------------------------------------------------------
    def damaged(self, what: str, exc: BaseException | None = None) -> DamagedStore:
        """The error for a part of the store that cannot be read or disagrees with the plan."""
        why = "" if exc is None else f" ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        return DamagedStore(f"store {str(self.path)!r}: {what} is damaged{why}")

    def _check_plan(self) -> None:
        """The plan must be the one its game makes, and the root documents byte for byte what
        zarr writes for it; checked once per process for an unchanged plan document (every
        chunk task opens the store)."""
        stat = (self.path / "zarr.json").stat()
        stamp = (str(self.path.resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if stamp in _CHECKED_PLANS:
            return
        if make_plan(self.game, chunk_size=self.plan.chunk_size) != self.plan:
            raise DamagedStore(f"store {str(self.path)!r}: its plan (zarr.json) is not the plan of the game it "
                               f"names ({self.game.describe()}); was it damaged, or edited by hand?")
        self._check_document("", _document(GroupMetadata(attributes={ATTR: {"plan": self.plan.to_json()}})),
                             "its plan (zarr.json)")
        self._check_document("tiers", _document(GroupMetadata()), "the document tiers/zarr.json")
        _CHECKED_PLANS.add(stamp)

    def _check_document(self, node: str, expected: bytes, what: str) -> None:
        """The document of `node` must hold exactly the `expected` bytes (what zarr writes for
        its metadata): any changed byte, even one that still parses to the same values, is damage."""
        try:
            stored = (self.path / node / "zarr.json").read_bytes()
        except OSError as exc:
            raise self.damaged(what, exc) from None
        if stored != expected:
            raise self.damaged(what)

    def tier_group(self, name: str) -> zarr.Group:
        try:
            return self._group[f"tiers/{name}"]
        except Exception as exc:  # whatever zarr, json or the codecs raise on a damaged document
            raise self.damaged(f"tier {name}: its document tiers/{name}/zarr.json", exc) from None

    def record(self, name: str) -> TierRecord:
        """The tier's chunk records as last written by the driver (the document read once, so a
        reader never mixes two versions of it while a solve writes it).

        :raises DamagedStore: the document is unreadable, malformed, or not byte for byte what
            its records make."""
        if name not in self._records:
            plan = self.plan.tier(name)
            document = f"tier {name}: its document tiers/{name}/zarr.json"
            try:
                stored = (self.path / "tiers" / name / "zarr.json").read_bytes()
                chunks = json.loads(stored)["attributes"]["chunks"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise self.damaged(document, exc) from None
            if not (isinstance(chunks, list) and len(chunks) == plan.n_chunks
                    and all(chunk is None or _is_chunk_record(chunk) for chunk in chunks)):
                raise self.damaged(f"tier {name}: the chunk record list in tiers/{name}/zarr.json")
            record = TierRecord(plan, chunks)
            if stored != _document(GroupMetadata(attributes=record.to_json())):
                raise self.damaged(f"tier {name}: the status, counts or checksum in tiers/{name}/zarr.json")
            self._records[name] = record
        return self._records[name]

    def record_chunk(self, name: str, chunk: int, summary: dict[str, Any]) -> None:
        """Mark a chunk done (driver only; its data must already be written)."""
        record = self.record(name)
        record.chunks[chunk] = {key: summary[key] for key in ("win", "loss", "draw", "checksum")}
        self.tier_group(name).attrs.put(record.to_json())

    # --- scratch: a loopy group's first pass (a file a chunk) and propagation checkpoint ---
    def _scratch_file(self, name: str, chunk: int) -> Path:
        return self.path / SCRATCH / name / f"{chunk}.npz"

    def settled_chunks(self, name: str) -> list[bool]:
        """Which chunks of a loopy tier have their first pass written (a file, renamed into place)."""
        return [self._scratch_file(name, c).is_file() for c in range(self.plan.tier(name).n_chunks)]

    def write_scratch(self, name: str, chunk: int, outcome: np.ndarray, remoteness: np.ndarray,
                      pending: np.ndarray) -> None:
        _save_atomically(self._scratch_file(name, chunk), outcome=outcome, remoteness=remoteness, pending=pending)

    def read_scratch(self, name: str, outcome: np.ndarray, remoteness: np.ndarray, pending: np.ndarray) -> None:
        """Load a loopy tier's first pass into the given arrays (the tier's slice of a group's
        state), chunk by chunk, so that loading needs no second copy of the group."""
        plan = self.plan.tier(name)
        for chunk in range(plan.n_chunks):
            start, stop = plan.chunk_bounds(chunk)
            path = self._scratch_file(name, chunk)
            try:  # an .npz is a zip: a changed byte fails its CRC or its structure
                with np.load(path) as data:
                    outcome[start:stop] = data["outcome"]
                    remoteness[start:stop] = data["remoteness"]
                    pending[start:stop] = data["pending"]
            except Exception as exc:  # whatever numpy or zipfile raise on a damaged file
                path.unlink(missing_ok=True)  # a first pass is recomputed when its file is missing
                raise self.damaged(f"tier {name} chunk {chunk}: its first-pass file {SCRATCH}/{name}/{chunk}.npz "
                                   "(removed: rerun solve to recompute it)", exc) from None

    def _checkpoint_file(self, group: tuple[str, ...]) -> Path:
        return self.path / SCRATCH / group[0] / "propagation.npz"

    def write_checkpoint(self, group: tuple[str, ...], level: int, highest: int, outcome: np.ndarray,
                         remoteness: np.ndarray, pending: np.ndarray) -> None:
        """Save a loopy group's propagation state as it stands before `level` (replacing the last)."""
        _save_atomically(self._checkpoint_file(group), group=np.array(group), level=level, highest=highest,
                         outcome=outcome, remoteness=remoteness, pending=pending)

    def read_checkpoint(self, group: tuple[str, ...]) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray] | None:
        """(level, highest, outcome, remoteness, pending) of the group's last checkpoint, if any; a
        damaged one (or one of another group) is dropped, and the propagation starts again."""
        target = self._checkpoint_file(group)
        if not target.is_file():
            return None
        size = sum(self.plan.tier(name).size for name in group)
        try:  # an .npz is a zip: a changed byte fails its CRC or its structure
            with np.load(target) as data:
                state = (tuple(data["group"].tolist()), int(data["level"]), int(data["highest"]),
                         data["outcome"], data["remoteness"], data["pending"])
        except Exception:  # whatever numpy or zipfile raise on a damaged file: start over
            state = None
        if state is None or state[0] != group or any(len(array) != size for array in state[3:]):
            target.unlink(missing_ok=True)  # damaged or another group's: propagation starts again
            return None
        return state[1:]

    def delete_scratch(self, name: str) -> None:
        """Drop a solved tier's first pass (driver only: no task writes there any more)."""
        shutil.rmtree(self.path / SCRATCH / name, ignore_errors=True)

    def remove_scratch_folder(self) -> None:
        """Remove the emptied scratch folder, leaving the store as if solved in one go. Driver
        only, once no task runs: until then a worker may write another group's first pass
        into it at any moment (checking it empty, then removing it, raced with such a write)."""
        try:
            (self.path / SCRATCH).rmdir()
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTEMPTY):  # not there, or a stale writer's
                raise

    def remove_partial_writes(self) -> None:
        """Delete temporary files a killed writer left (zarr writes `*.partial` files and
        renames them into place). Only the driver calls this, before any task runs:
        a running writer's temporary file must not be touched."""
        for leftover in self.path.rglob("*.partial"):
            leftover.unlink(missing_ok=True)

    @property
    def location(self) -> str:
        """The absolute path, as tasks on other processes (or machines) must open it."""
        return str(self.path.absolute())

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
    def _arrays(self, name: str) -> tuple[zarr.Array, zarr.Array]:
        """The tier's arrays, opened once (opening reads their metadata from disk, which must be
        what the plan says)."""
        if name not in self._opened:
            group = self.tier_group(name)
            tier = self.plan.tier(name)
            expected = _array_documents(self.plan.remoteness_dtype, tier.size, tier.chunk_size)
            arrays = []
            for key in ("outcome", "remoteness"):
                self._check_document(f"tiers/{name}/{key}", expected[key],
                                     f"tier {name}: its document tiers/{name}/{key}/zarr.json")
                arrays.append(group[key])
            self._opened[name] = (arrays[0], arrays[1])
        return self._opened[name]

    def write_chunk(self, name: str, chunk: int, outcome: np.ndarray, remoteness: np.ndarray) -> str:
        """Write one chunk's values; returns its checksum. Chunk tasks call this."""
        if not self.writable:
            raise StoreError(f"store {str(self.path)!r} is open read-only")
        start, stop = self.plan.tier(name).chunk_bounds(chunk)
        packed = packing.pack(outcome)
        outcome_array, remoteness_array = self._arrays(name)
        outcome_array[start // 4: start // 4 + packed.size] = packed
        remoteness_array[start:stop] = remoteness
        return chunk_checksum(packed, remoteness)

    def read_chunk_raw(self, name: str, chunk: int) -> tuple[np.ndarray, np.ndarray]:
        """A chunk's stored packed outcome bytes and remoteness, as on disk.

        :raises DamagedStore: a stored chunk cannot be decoded."""
        start, stop = self.plan.tier(name).chunk_bounds(chunk)
        outcome_array, remoteness_array = self._arrays(name)
        try:
            return (outcome_array[start // 4: packing.packed_length(stop)],
                    remoteness_array[start:stop])
        except Exception as exc:  # whatever the codecs raise on damaged bytes
            raise self.damaged(f"tier {name} chunk {chunk}: its data", exc) from None

    def read_tier(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Unpacked outcome codes and remoteness of a whole tier.

        :raises DamagedStore: a stored chunk cannot be decoded (the first such is named)."""
        outcome_array, remoteness_array = self._arrays(name)
        try:
            return packing.unpack(outcome_array[:], self.plan.tier(name).size), remoteness_array[:]
        except Exception:  # whatever the codecs raise on damaged bytes: find the chunk
            for chunk in range(self.plan.tier(name).n_chunks):
                self.read_chunk_raw(name, chunk)
            raise

    def read_values(self, name: str, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Outcome codes and remoteness at arbitrary indices of a solved tier.

        Whole chunks are decoded once and kept (least recently used first out, up to
        `cache_bytes`), so probes and lookup agents pay the decompression once a chunk.
        """
        self.require_solved(name)
        indices = np.asarray(indices, dtype=np.int64)
        plan = self.plan.tier(name)
        outcome = np.empty(indices.size, dtype=np.uint8)
        remoteness = np.empty(indices.size, dtype=np.dtype(self.plan.remoteness_dtype))
        chunks = indices // plan.chunk_size
        for chunk in np.unique(chunks).tolist():
            rows = np.flatnonzero(chunks == chunk)
            packed, values = self._cached_chunk(name, chunk)
            local = indices[rows] - chunk * plan.chunk_size
            outcome[rows] = packing.unpack_at(packed[local // 4], local)
            remoteness[rows] = values[local]
        return outcome, remoteness

    def _cached_chunk(self, name: str, chunk: int) -> tuple[np.ndarray, np.ndarray]:
        key = (name, chunk)
        if key in self._chunk_cache:
            self._chunk_cache[key] = self._chunk_cache.pop(key)  # most recently used last
            return self._chunk_cache[key]
        data = self.read_chunk_raw(name, chunk)
        self._chunk_cache[key] = data
        self._cached_bytes += data[0].nbytes + data[1].nbytes
        while self._cached_bytes > self.cache_bytes and len(self._chunk_cache) > 1:
            oldest = next(iter(self._chunk_cache))
            dropped = self._chunk_cache.pop(oldest)
            self._cached_bytes -= dropped[0].nbytes + dropped[1].nbytes
        return data

    def read_children(self, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Concatenated values of the given tiers and each one's offset in the concatenation."""
        offsets = np.zeros(len(names), dtype=np.int64)
        outcomes, remotenesses, total = [], [], 0
        for j, name in enumerate(names):
            offsets[j] = total
            codes, remoteness = self.read_tier(name)
            outcomes.append(codes)
            remotenesses.append(remoteness)
            total += codes.size
        dtype = np.dtype(self.plan.remoteness_dtype)
        if not names:
            return np.zeros(0, np.uint8), np.zeros(0, dtype), offsets
        return np.concatenate(outcomes), np.concatenate(remotenesses), offsets


def _open_group(path: Path, *, writable: bool) -> zarr.Group:
    if not path.exists():
        raise StoreError(f"no store at {str(path)!r}")
    if not (path / "zarr.json").is_file():
        raise StoreError(f"{str(path)!r} is not a retrograde store (no zarr.json)")
    try:
        return zarr.open_group(store=LocalStore(path, read_only=not writable), mode="r+" if writable else "r")
    except OSError as exc:
        raise StoreError(f"{str(path)!r} cannot be read ({exc})") from None
    except Exception as exc:  # whatever zarr or json raise on a damaged document
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is damaged ({type(exc).__name__}: "
                           f"{first})") from None


def open_store(path: str | os.PathLike, *, mode: str = "r") -> Store:
    """Open an existing store, read-only ("r") or for solving ("r+").

    :raises StoreError: no store, not a retrograde store, or another format.
    """
    path = Path(path)
    writable = mode == "r+"
    return Store(path, _open_group(path, writable=writable), writable=writable)


def _save_atomically(target: Path, **arrays: Any) -> None:
    """Write an .npz file under a temporary name and rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.stem}.{uuid.uuid4().hex}.partial")
    with open(partial, "wb") as f:
        np.savez(f, **arrays)
    os.replace(partial, target)


def _document(metadata: GroupMetadata | ArrayV3Metadata) -> bytes:
    """The bytes zarr writes as the document (zarr.json) of a node with this metadata."""
    return metadata.to_buffer_dict(default_buffer_prototype())["zarr.json"].to_bytes()


def _is_chunk_record(record: Any) -> bool:
    """A chunk record as `record_chunk` writes it: counts and a 32-hex-digit checksum."""
    return (isinstance(record, dict) and set(record) == {"win", "loss", "draw", "checksum"}
            and all(type(record[key]) is int and record[key] >= 0 for key in ("win", "loss", "draw"))
            and isinstance(record["checksum"], str) and len(record["checksum"]) == 32
            and all(c in "0123456789abcdef" for c in record["checksum"]))


@lru_cache(maxsize=8)
def _array_templates(dtype_name: str) -> tuple[ArrayV3Metadata, ArrayV3Metadata]:
    """Metadata of a one-element outcome and remoteness array, to be shaped per tier."""
    dtype = np.dtype(dtype_name)
    scratch = MemoryStore()
    outcome = zarr.create_array(scratch, name="outcome", shape=(1,), dtype="uint8", fill_value=0,
                                compressors=OUTCOME_CODECS).metadata
    remoteness = zarr.create_array(scratch, name="remoteness", shape=(1,), dtype=dtype, fill_value=0,
                                   compressors=remoteness_codecs(dtype)).metadata
    return outcome, remoteness


def _array_metadata(dtype_name: str, size: int, chunk_size: int) -> dict[str, ArrayV3Metadata]:
    """The metadata of a tier's outcome and remoteness arrays, as the plan makes them."""
    outcome, remoteness = _array_templates(dtype_name)
    return {"outcome": replace(outcome, shape=(packing.packed_length(size),),
                               chunk_grid=RegularChunkGrid(chunk_shape=(chunk_size // 4,))),
            "remoteness": replace(remoteness, shape=(size,), chunk_grid=RegularChunkGrid(chunk_shape=(chunk_size,)))}


@lru_cache(maxsize=4096)
def _array_documents(dtype_name: str, size: int, chunk_size: int) -> dict[str, bytes]:
    """The documents of a tier's arrays (kept: every store opened in a process checks them)."""
    return {key: _document(metadata) for key, metadata in _array_metadata(dtype_name, size, chunk_size).items()}



def _hierarchy(plan: Plan) -> dict[str, GroupMetadata | ArrayV3Metadata]:
    """Metadata of every node of an empty store for `plan`, written concurrently by
    `zarr.create_hierarchy` (node by node, a 4x4 Quixo store took 2.6 s to plan)."""
    nodes: dict[str, GroupMetadata | ArrayV3Metadata] = {
        "": GroupMetadata(attributes={ATTR: {"plan": plan.to_json()}}),
        "tiers": GroupMetadata(),
    }
    for tier in plan.tiers:
        prefix = f"tiers/{tier.name}"
        nodes[prefix] = GroupMetadata(attributes=TierRecord(tier, [None] * tier.n_chunks).to_json())
        for key, metadata in _array_metadata(plan.remoteness_dtype, tier.size, tier.chunk_size).items():
            nodes[f"{prefix}/{key}"] = metadata
    return nodes


def create_store(path: str | os.PathLike, plan: Plan) -> Store:
    """Create an empty store for `plan` at `path` (which must not exist or be an empty folder).

    Built in a temporary sibling folder and renamed into place, so an
    interrupted creation leaves no store behind (rerunning creates it again).
    """
    path = Path(path)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise StoreError(f"{str(path)!r} exists and is not a retrograde store")
    if not path.parent.is_dir():
        raise StoreError(f"cannot create store {str(path)!r}: folder {str(path.parent)!r} does not exist")
    for stale in path.parent.glob(f".{path.name}.planning-*"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = path.parent / f".{path.name}.planning-{uuid.uuid4().hex}"
    list(zarr.create_hierarchy(store=LocalStore(staging), nodes=_hierarchy(plan)))
    if path.exists():
        path.rmdir()
    os.rename(staging, path)
    return open_store(path, mode="r+")
