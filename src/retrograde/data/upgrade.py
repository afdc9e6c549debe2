"""`retrograde upgrade --store S`: convert a format-3 store to format 4 in place, atomically,
resumably and verified (docs/STORE.md, "Upgrading a format-3 store"); or bind the tier records
of a format-4 store written before records named their tier, once verify finds its values
right (`bind`).

Under the store's writer lock, a format-4 store for the same plan is built beside it as
`.<name>.upgrading-<host>-<pid>-<id>` (`Store.create`: null chunk records, the resume points).
Each chunk the old store records is read (its stored digest checked), written in format 4 and
recorded once its checksum, over the decoded values, equals the old record's. Then every
converted chunk is read back and checked (the checksum again, and, in the "one-ply" encoding,
that its arrays are exactly the encoding of their values), and the two folders are swapped: S -> `.<name>.format3-<id>`,
the new one -> S, the folder flushed, the old one deleted. An error (damage in the old store,
a full disk, a bug) deletes the staging folder; after a kill or Ctrl-C, a rerun adopts the
staging folder of an ended process of this host and goes on; a kill between the two renames
leaves no S but both folders, and the next run finishes the swap. Folders beside S are found by
name prefix, never by a pattern made of S's name. Unsolved chunks stay unsolved (`solve` finishes
the store in format 4); a solve's scratch files are not kept (a solve redoes that work).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from zarr.core.metadata import ArrayV3Metadata

from retrograde.data import durable, encoding, packing
from retrograde.data.chunks import ChunkCodec
from retrograde.data.locate import beside, find_upgradable, set_aside
from retrograde.data.lock import writer_lock
from retrograde.data.plan import FORMAT_VERSION, make_plan
from retrograde.data.store import (ARRAYS, Store, _abandoned, _is_chunk_record, _plan_attributes, chunk_checksum,
                                   stored_digest)
from retrograde.errors import DamagedStore, StoreError
from retrograde.games import make_game

#: The format converted from.
OLD_FORMAT = FORMAT_VERSION - 1


def old_codecs(array: str, itemsize: int) -> list[dict]:
    """The compressors format 3's documents name for an array of `itemsize`-byte values."""
    if array == "outcome":
        return [{"name": "zstd", "configuration": {"level": 5, "checksum": False}}]
    return [{"name": "blosc", "configuration": {"typesize": itemsize, "cname": "zstd", "clevel": 4,
                                                "shuffle": "shuffle", "blocksize": 1 << 20}}]


def upgrade(store_path: str | os.PathLike, verify: Callable[[Store], Verified] | None = None) -> str:
    """Convert the format-3 store at `store_path` to format 4, or bind the tier records of a
    format-4 store written before records named their tier (`bind`, which `verify` checks), or
    finish an interrupted upgrade; returns what was done, in one line.

    :raises StoreError: no store, another format than 3 or 4, a damaged one, or one whose
        tiers' values verify finds wrong (nothing changed)."""
    path = Path(store_path)
    find_upgradable(path)
    with writer_lock(path):
        if not path.exists():  # killed between the two renames: the new store is complete
            staging = _staging(path, finished=True)
            if staging is None:
                raise StoreError(f"no store at {str(path)!r} (only {str(set_aside(path)[0])!r}, a format-"
                                 f"{OLD_FORMAT} store an upgrade set aside: rename it back to {path.name!r})")
            _swap(path, staging, set_aside(path)[0])
            return f"{path}: the interrupted upgrade to format {FORMAT_VERSION} is finished"
        plan = _plan_attributes(path)
        if not isinstance(plan, dict) or not isinstance(plan.get("plan"), dict):
            raise StoreError(f"{str(path)!r} is not a retrograde store")
        version = plan["plan"].get("format")
        if version == FORMAT_VERSION:
            for old in set_aside(path):  # killed after the second rename: the old copy is left over
                shutil.rmtree(old)
            return bind(path, verify)
        if version != OLD_FORMAT:
            raise StoreError(f"store {str(path)!r} has format {version!r}: upgrade converts format {OLD_FORMAT} "
                             f"only (solve the game again into a new store)")
        old = OldStore(path, plan["plan"])
        for tier in old.plan.tiers:  # every document readable before anything is written
            old.records(tier.name)
            old.codecs(tier.name)
        staging = _staging(path, finished=False) or _create_staging(path, old)
        try:
            converted = convert(old, staging)
            check(old, staging)
        except Exception:  # damage found (a rerun would find it again) or a failure: no staging folder is kept
            shutil.rmtree(staging)
            raise
        _swap(path, staging, path.parent / f".{path.name}.format3-{staging.name.rsplit('-', 1)[-1]}")
    return f"{path}: upgraded to format {FORMAT_VERSION}: {converted:,} chunks converted and checked"


class Verified(NamedTuple):
    """What `verify` found in a store (`pipeline.stages.verify_stage`'s result, told in lines)."""

    #: Each wrong value, bad checksum or damaged part, one line each (none: all right).
    problems: list[str]
    #: The tiers it could not check (not solved yet).
    unchecked: list[str]


def bind(path: Path, verify: Callable[[Store], Verified] | None) -> str:
    """Bind every tier record of the format-4 store at `path` to its tier (`Store.bind`), under
    its writer lock, once `verify` finds every value right: in a copy beside it,
    `.<name>.upgrading-<host>-<pid>-<id>` (chunk files hard-linked: a chunk file is never
    changed in place), whose records are bound, then verified (a swapped tier's values are
    not its tier's), then swapped in as a format-3 conversion is (S -> `.<name>.unbound-<id>`).
    A kill leaves S as it was (the copy of an ended process is deleted by the next run) or,
    between the renames, both folders, which the next run swaps.

    :raises StoreError: verify finds a problem (naming it; nothing changed)."""
    with Store.open(path) as store:
        unbound = store.unbound()
    if not unbound:
        return f"{path}: already format {FORMAT_VERSION}; nothing to do"
    if verify is None:
        raise StoreError(f"store {str(path)!r}: binding its tier records needs verify, which this caller of upgrade "
                         "does not give (a bug)")
    prefix = f".{path.name}.upgrading-"
    for folder in beside(path, prefix):  # an ended process's copy: binding starts again
        if _abandoned(folder.name[len(prefix):].rsplit("-", 2), socket.gethostname()):
            shutil.rmtree(durable.inside(path.parent, folder))
    staging = path.parent / f"{prefix}{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex}"
    try:
        shutil.copytree(path, staging, symlinks=True, copy_function=_link)
        with Store.open(staging, mode="r+") as copy:
            for name in unbound:
                copy.bind(name)
        durable.flush_all([staging, *(folder for folder in staging.rglob("*") if folder.is_dir())])
        with Store.open(staging) as copy:
            found = verify(copy)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if found.problems:
        shutil.rmtree(staging)
        raise StoreError(f"store {str(path)!r}: its tier records stay unbound: verify finds {len(found.problems):,} "
                         f"problems in its values, the first: {found.problems[0]} (were tier folders swapped, "
                         "renamed or copied? nothing was changed)")
    _swap(path, staging, path.parent / f".{path.name}.unbound-{staging.name.rsplit('-', 1)[-1]}")
    unchecked = f" ({len(found.unchecked)} unsolved tiers bound unchecked)" if found.unchecked else ""
    return f"{path}: verified and bound {len(unbound):,} tier records to their tiers{unchecked}"


def _link(source: str, target: str) -> None:
    """A file of the store in its copy: the same file, hard-linked, where the file system can."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


class OldStore:
    """A format-3 store, read chunk by chunk (its plan, records and stored digests checked)."""

    def __init__(self, path: Path, stored_plan: dict):
        self.path = path
        try:
            self.game = make_game(stored_plan["game"], stored_plan["params"])
            self.plan = make_plan(self.game, chunk_size=stored_plan["chunk_size"])
        except Exception as exc:  # a plan a game cannot be made from
            raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is unreadable ({type(exc).__name__}: "
                               f"{exc})") from None
        expected = {**self.plan.to_json(), "format": OLD_FORMAT}
        del expected["encoding"]
        if stored_plan != expected:
            raise DamagedStore(f"store {str(path)!r}: its plan (zarr.json) is not the format-{OLD_FORMAT} plan of "
                               f"the game it names ({self.game.describe()}); was it damaged, or edited by hand?")

    def _document(self, *parts: str) -> dict:
        try:
            return json.loads(durable.read_inside(self.path, self.path.joinpath(*parts, "zarr.json")))
        except (OSError, ValueError) as exc:
            raise DamagedStore(f"store {str(self.path)!r}: its document {'/'.join(parts)}/zarr.json is damaged "
                               f"({type(exc).__name__})") from None

    def records(self, name: str) -> list[dict | None]:
        """The tier's chunk records."""
        chunks = self._document("tiers", name).get("attributes", {}).get("chunks")
        if not (isinstance(chunks, list) and len(chunks) == self.plan.chunking(name).count
                and all(chunk is None or _is_chunk_record(chunk) for chunk in chunks)):
            raise DamagedStore(f"store {str(self.path)!r}: tier {name}: the chunk record list in "
                               f"tiers/{name}/zarr.json is damaged")
        return chunks

    def codecs(self, name: str) -> list[ChunkCodec]:
        """The tier's outcome and remoteness codecs, from its documents (which must name format 3's)."""
        codecs = []
        for array in ARRAYS:
            document = self._document("tiers", name, array)
            named = [codec for codec in document.get("codecs", []) if codec.get("name") != "bytes"]
            itemsize = np.dtype("uint8" if array == "outcome" else self.plan.remoteness_dtype).itemsize
            if named != old_codecs(array, itemsize):
                raise DamagedStore(f"store {str(self.path)!r}: tier {name}: tiers/{name}/{array}/zarr.json does "
                                   f"not name format {OLD_FORMAT}'s codecs")
            codecs.append(ChunkCodec(ArrayV3Metadata.from_dict(document)))
        return codecs

    def read_chunk(self, name: str, chunk: int, record: dict, codecs: list[ChunkCodec]) -> tuple[np.ndarray, ...]:
        """Unpacked outcome codes and remoteness of a recorded chunk.

        :raises DamagedStore: its files are not those recorded, or do not decode to its checksum."""
        start, stop = self.plan.chunking(name).bounds(chunk)
        files = []
        for array in ARRAYS:
            try:
                files.append(durable.read_inside(self.path, self.path / "tiers" / name / array / "c" / str(chunk)))
            except FileNotFoundError:
                files.append(None)
        where = f"store {str(self.path)!r}: tier {name} chunk {chunk}"
        if stored_digest(files) != record["stored"]:
            raise DamagedStore(f"{where}: its data is damaged (its files are not the ones recorded)")
        try:
            packed = codecs[0].decode(files[0], packing.packed_length(stop - start))
            remoteness = codecs[1].decode(files[1], stop - start)
        except Exception as exc:  # whatever the codecs raise on damaged bytes
            raise DamagedStore(f"{where}: its data cannot be decoded ({type(exc).__name__})") from None
        if chunk_checksum(packed, remoteness) != record["checksum"]:
            raise DamagedStore(f"{where}: its data does not match its recorded checksum")
        return packing.unpack(packed, stop - start), remoteness


def convert(old: OldStore, staging: Path) -> int:
    """Write and record, in the format-4 store at `staging`, every chunk the old store records
    and it does not yet; returns how many chunks are converted in all."""
    converted = 0
    for tier in old.plan.tiers:
        records = old.records(tier.name)
        with Store.open(staging) as new:
            todo = [chunk for chunk, record in enumerate(records)
                    if record is not None and new.record(tier.name).chunks[chunk] is None]
        if todo:
            codecs = old.codecs(tier.name)
            summaries = []
            with Store.open(staging, mode="r+") as new:  # the files are flushed when it closes
                for chunk in todo:
                    written = new.write_chunk(tier.name, chunk, *old.read_chunk(tier.name, chunk, records[chunk],
                                                                                 codecs))
                    if written["checksum"] != records[chunk]["checksum"]:
                        raise StoreError(f"store {str(old.path)!r}: tier {tier.name} chunk {chunk} converted to "
                                         "other values (a bug: nothing was changed in the store)")
                    summaries.append({**records[chunk], **written, "chunk": chunk})
            with Store.open(staging, mode="r+") as new:
                new.record_chunks(tier.name, summaries)
        converted += sum(record is not None for record in records)
    return converted


def check(old: OldStore, staging: Path) -> None:
    """Every chunk of the format-4 store records what the old one does, reads back to the old
    checksum and counts, and (in the "one-ply" encoding) its arrays are exactly the encoding of
    its values.

    :raises StoreError: naming the first chunk that is not."""
    with Store.open(staging) as new:
        for tier in old.plan.tiers:
            for chunk, record in enumerate(old.records(tier.name)):
                mine = new.record(tier.name).chunks[chunk]
                where = f"store {str(staging)!r}: tier {tier.name} chunk {chunk}"
                if (mine is None) != (record is None) or (record is not None and any(
                        mine[key] != record[key] for key in ("win", "loss", "draw", "checksum"))):
                    raise StoreError(f"{where}: its record differs from the format-{OLD_FORMAT} store's")
                if record is None:
                    continue
                packed, remoteness = new.read_chunk_raw(tier.name, chunk)
                if chunk_checksum(packed, remoteness) != record["checksum"] or new.one_ply and encoding.differs(
                        new.read_chunk_stored(tier.name, chunk), packing.unpack(packed, remoteness.size),
                        remoteness).any():  # a plain store's arrays are its values: the checksum covers them
                    raise StoreError(f"{where}: it does not read back as converted")


def _staging(path: Path, *, finished: bool) -> Path | None:
    """The staging folder to go on with: with `finished`, one whose old store was set aside (the
    swap's first rename done); else one an ended process of this host left."""
    prefix = f".{path.name}.upgrading-"
    for folder in beside(path, prefix):
        durable.inside(path.parent, folder)  # a planted link would have the conversion write through it
        owner = folder.name[len(prefix):].rsplit("-", 2)
        if finished and any(old.name.endswith(f"-{owner[-1]}") for old in set_aside(path)):
            return folder
        if not finished and _abandoned(owner, socket.gethostname()) and (folder / "zarr.json").is_file():
            return folder
    return None


def _create_staging(path: Path, old: OldStore) -> Path:
    staging = path.parent / f".{path.name}.upgrading-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex}"
    Store.create(staging, old.plan).close()
    return staging


def _rename(source: Path, target: Path) -> None:
    os.rename(source, target)


def _swap(path: Path, staging: Path, old: Path) -> None:
    """S -> old (unless done), staging -> S, the parent flushed, then the old folder deleted."""
    if path.exists():
        _rename(path, old)
        durable.sync_folder(path.parent)
    _rename(staging, path)
    durable.sync_folder(path.parent)
    shutil.rmtree(old)
    durable.sync_folder(path.parent)
