"""Training artifacts and checkpoints on disk: JSON or .npz, never pickle.

A `ga` artifact is a JSON document; an `rl` or `dqn` artifact an .npz of plain arrays whose JSON
metadata sits in a 0-d string array `metadata` (np.load(allow_pickle=False) reads both).
The metadata's learning curve (`CURVE`) has one point per checkpoint: the units trained so far
under the learner's unit (`UNITS`), the learner's figures for the block, and with a solved store
the share of value-keeping moves (`VALUE_KEPT`); `curve_point` writes a point, `measured_curve` reads them.
Files are written whole and flushed to the disk (`durable.write_atomically`), and .npz members
carry a fixed timestamp, so that the same training gives the same bytes.

Reading trusts nothing: an .npz member's header is read before its array, and the array it claims
must be the member's own bytes, which deflate bounds by the file's size (`DEFLATE_RATIO`), so that
no header makes a load allocate more; arrays must be numbers (finite), booleans or text, and the
metadata's fields of the right types (`check_fields`).
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from retrograde.data.durable import write_atomically
from retrograde.errors import BadAgent
from retrograde.games.base import Game

FORMAT = "retrograde-training"
VERSION = 1
#: The metadata key of the learning curve.
CURVE = "learning_curve"
#: What each learner's training counts: the key of a curve point's units trained so far.
UNITS = {"ga": "generations", "rl": "episodes", "dqn": "episodes"}
#: The key of a curve point's share of value-keeping moves (only where a store measured it).
VALUE_KEPT = "value_kept"
#: Deflate writes at most 1,032 bytes from one (its longest match, 258 bytes, in about two bits):
#: the most an .npz member of a given compressed size may hold.
DEFLATE_RATIO = 1032
#: Kinds of arrays an artifact or checkpoint holds: floats, integers, booleans and text.
ARRAY_KINDS = "fiubU"


def game_identity(game: Game) -> dict[str, Any]:
    """The game an artifact plays, as recorded in it: name and the parameters of its rules."""
    return json.loads(json.dumps({"name": game.name, "params": game.rules}))


def curve_point(learner: str, done: int, figures: dict[str, float], value_kept: float | None) -> dict[str, float]:
    """A learning-curve point: `done` units trained, the learner's `figures` for the block, and the
    value kept measured on a store (None: not measured)."""
    point = {UNITS[learner]: done, **figures}
    if value_kept is not None:
        point[VALUE_KEPT] = value_kept
    return point


def measured_curve(metadata: Any) -> list[tuple[float, float]]:
    """(units trained, value kept) of each point of an artifact's learning curve that a store measured;
    ValueError, KeyError or TypeError if `metadata` is not a training artifact's."""
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise ValueError("not a training artifact")
    unit = UNITS[metadata["learner"]]
    return [(float(point[unit]), float(point[VALUE_KEPT])) for point in metadata[CURVE] if VALUE_KEPT in point]


def save_json(target: Path, document: dict[str, Any]) -> None:
    """Write `document` as indented JSON, atomically."""
    text = json.dumps(document, indent=1, sort_keys=True) + "\n"
    write_atomically(target, lambda f: f.write(text.encode()))


def save_npz(target: Path, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> None:
    """Write `arrays` and `metadata` (as JSON in the member `metadata`) as a deflated .npz, atomically
    and byte-reproducibly."""
    write_npz(target, {**arrays, "metadata": np.array(json.dumps(metadata, sort_keys=True))})


def write_npz(target: Path, arrays: dict[str, Any], level: int | None = None) -> None:
    """Write `arrays` as an .npz deflated at zlib's `level` (None: its default), whole or not at
    all, on the disk when this returns, never a pickle, byte-reproducibly (np.savez stamps
    members with the current time). `np.load` reads it."""
    def write(f) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
            for name, array in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with archive.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)

    write_atomically(target, write)


def _checked_members(archive: zipfile.ZipFile, size: int) -> None:
    """Read every member's .npy header of an open .npz of `size` bytes on disk, before any array:
    ValueError unless each is a stored or deflated .npy of plain values whose header claims exactly
    the bytes the member holds, and the members' compressed bytes fit the file (so that no header
    or directory entry makes a load allocate more than deflate can give from the file)."""
    infos = archive.infolist()
    if sum(info.compress_size for info in infos) > size:
        raise ValueError("its members claim more bytes than the file holds")
    for info in infos:
        name = info.filename
        ratio = {zipfile.ZIP_STORED: 1, zipfile.ZIP_DEFLATED: DEFLATE_RATIO}.get(info.compress_type)
        if not name.endswith(".npy") or ratio is None:
            raise ValueError(f"member {name!r} is not a stored or deflated .npy array")
        if info.file_size > info.compress_size * ratio:
            raise ValueError(f"member {name!r} claims {info.file_size:,} bytes from {info.compress_size:,}")
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"member {name!r}: .npy format version {version}")
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(member)
            header = member.tell()
        if dtype.hasobject:
            raise ValueError(f"member {name!r} holds Python objects, which allow_pickle=False never reads")
        claimed = math.prod(shape) * dtype.itemsize
        if claimed != info.file_size - header:
            raise ValueError(f"member {name!r}: its header claims {shape} of {dtype} ({claimed:,} bytes), "
                             f"it holds {info.file_size - header:,}")


def _read_npz(path: Path, names: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """The arrays of an .npz (only `names`, where given), its members checked first
    (`_checked_members`); ValueError and OSError on anything else."""
    try:
        with open(path, "rb") as f, zipfile.ZipFile(f) as archive:
            _checked_members(archive, os.fstat(f.fileno()).st_size)
            f.seek(0)
            with np.load(f, allow_pickle=False) as data:
                return {name: data[name] for name in (data.files if names is None else names)}
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(str(exc)) from None


def read_metadata(path: Path) -> Any:
    """The metadata of an artifact or checkpoint, without its arrays: a .json file's document, an
    .npz's `metadata` member (ValueError and OSError on anything else)."""
    if path.suffix == ".json":
        return json.loads(path.read_text())
    return json.loads(str(_read_npz(path, ("metadata",))["metadata"]))


def load_npz(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, metadata) of a file `save_npz` wrote (ValueError and OSError on anything else)."""
    arrays = _read_npz(path)
    if "metadata" not in arrays:
        raise ValueError("no metadata")
    return arrays, json.loads(str(arrays.pop("metadata")))


def _number(value: Any) -> bool:
    """Whether a JSON value is a finite number (not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def finite_floats(name: str, array: np.ndarray) -> np.ndarray:
    """`array` if it holds finite floats, else ValueError naming it (Q values, weights)."""
    if array.dtype.kind != "f":
        raise ValueError(f"array {name!r} holds {array.dtype}, not floats")
    if not np.isfinite(array).all():
        raise ValueError(f"array {name!r} holds values that are not finite (NaN or infinite)")
    return array


def check_fields(learner: str, metadata: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """ValueError naming the first field of an artifact that is missing, of the wrong type or
    shape, not finite or out of range: the fields every artifact has (seed, settings, learning
    curve), the genome and fitness of a `ga` one, the model of an `rl` or `dqn` one (an rl model's
    feature names, a dqn network's sizes), and every array."""
    if not isinstance(metadata.get("seed"), int) or isinstance(metadata["seed"], bool) or metadata["seed"] < 0:
        raise ValueError(f"seed {metadata.get('seed')!r} is not a whole number from 0")
    if not isinstance(metadata.get("settings"), dict):
        raise ValueError("no settings")
    curve = metadata.get(CURVE)
    if not isinstance(curve, list) or not all(isinstance(point, dict) and isinstance(point.get(UNITS[learner]), int)
                                              and point[UNITS[learner]] >= 0
                                              and all(_number(value) for value in point.values()) for point in curve):
        raise ValueError(f"{CURVE} is not a list of points of finite numbers counting {UNITS[learner]}")
    if not all(0 <= point.get(VALUE_KEPT, 0) <= 1 for point in curve):
        raise ValueError(f"a {VALUE_KEPT} of {CURVE} is not a share from 0 to 1")
    if learner == "ga":
        genome = metadata.get("genome")
        if not isinstance(genome, dict) or not isinstance(genome.get("kind"), str) \
                or not isinstance(genome.get("names"), list) or not all(isinstance(n, str) for n in genome["names"]) \
                or not isinstance(genome.get("weights"), list) or not all(_number(w) for w in genome["weights"]) \
                or len(genome["weights"]) != len(genome["names"]):
            raise ValueError("genome is not a kind, names and as many finite weights")
        if not _number(metadata.get("fitness")) or not 0 <= metadata["fitness"] <= 1:
            raise ValueError(f"fitness {metadata.get('fitness')!r} is not a share from 0 to 1")
    elif not isinstance(metadata.get("model"), str):
        raise ValueError("no model named")
    if "features" in metadata and not (isinstance(metadata["features"], list)
                                       and all(isinstance(name, str) for name in metadata["features"])):
        raise ValueError("features is not a list of names")
    network = metadata.get("network")
    if learner == "dqn" and not (isinstance(network, dict) and set(network) == {"inputs", "hidden", "actions"}
                                 and all(_number(size) and isinstance(size, int) and size >= 1
                                         for size in network.values())):
        raise ValueError("network is not its inputs, hidden units and actions")
    for name, array in arrays.items():
        if array.dtype.kind not in ARRAY_KINDS:
            raise ValueError(f"array {name!r} holds {array.dtype}, not numbers, booleans or text")
        if array.dtype.kind == "f":
            finite_floats(name, array)


def load_artifact(path: Path, learner: str, game: Game) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(metadata, arrays) of a `learner` artifact for `game`; BadAgent in one line if the file is
    unreadable, corrupt, another learner's or another game's."""
    where = f"{learner}: params={path}"
    try:
        if learner == "ga":
            metadata, arrays = json.loads(Path(path).read_text()), {}
        else:
            arrays, metadata = load_npz(Path(path))
        if not isinstance(metadata, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError, EOFError) as exc:  # JSON and zip errors are ValueErrors
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else \
            f"unreadable or corrupt: {' '.join(str(exc).split())}" if str(exc) else "unreadable or corrupt"
        raise BadAgent(f"{where}: not a {learner} artifact ({reason})") from None
    if metadata.get("format") != FORMAT or metadata.get("learner") != learner:
        raise BadAgent(f"{where}: not a {learner} artifact (train one with retrograde train {learner} ...)")
    if metadata.get("version") != VERSION:
        raise BadAgent(f"{where}: artifact format version {metadata.get('version')}, this retrograde reads {VERSION}")
    if metadata.get("game") != game_identity(game):
        trained = metadata.get("game") if isinstance(metadata.get("game"), dict) else {}
        raise BadAgent(f"{where}: trained for {trained.get('name')} {trained.get('params')}, "
                       f"not {game.describe()}")
    try:
        check_fields(learner, metadata, arrays)
    except ValueError as exc:
        raise BadAgent(f"{where}: corrupt {learner} artifact ({exc})") from None
    return metadata, arrays
