"""Training artifacts and checkpoints on disk: JSON or .npz, never pickle.

A `ga` artifact is a JSON document; an `rl` or `dqn` artifact an .npz of plain arrays whose JSON
metadata sits in a 0-d string array `metadata` (np.load(allow_pickle=False) reads both).
The metadata's learning curve (`CURVE`) has one point per checkpoint: the units trained so far
under the learner's unit (`UNITS`), the learner's figures for the block, and with a solved store
the share of value-keeping moves (`VALUE_KEPT`); `curve_point` writes a point, `measured_curve` reads them.
Files are written whole and flushed to the disk (`durable.write_atomically`), and .npz members
carry a fixed timestamp, so that the same training gives the same bytes.
"""

from __future__ import annotations

import json
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
    and byte-reproducibly (np.savez stamps members with the current time)."""
    members = {**arrays, "metadata": np.array(json.dumps(metadata, sort_keys=True))}

    def write(f) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, array in members.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with archive.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)

    write_atomically(target, write)


def read_metadata(path: Path) -> Any:
    """The metadata of an artifact or checkpoint, without its arrays: a .json file's document, an
    .npz's `metadata` member (ValueError and OSError on anything else)."""
    if path.suffix == ".json":
        return json.loads(path.read_text())
    try:
        with np.load(path, allow_pickle=False) as data:
            return json.loads(str(data["metadata"]))
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(str(exc)) from None


def load_npz(path: Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, metadata) of a file `save_npz` wrote (ValueError and OSError on anything else)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except zipfile.BadZipFile as exc:
        raise ValueError(str(exc)) from None
    if "metadata" not in arrays:
        raise ValueError("no metadata")
    return arrays, json.loads(str(arrays.pop("metadata")))


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
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "unreadable or corrupt"
        raise BadAgent(f"{where}: not a {learner} artifact ({reason})") from None
    if metadata.get("format") != FORMAT or metadata.get("learner") != learner:
        raise BadAgent(f"{where}: not a {learner} artifact (train one with retrograde train {learner} ...)")
    if metadata.get("version") != VERSION:
        raise BadAgent(f"{where}: artifact format version {metadata.get('version')}, this retrograde reads {VERSION}")
    if metadata.get("game") != game_identity(game):
        trained = metadata.get("game") or {}
        raise BadAgent(f"{where}: trained for {trained.get('name')} {trained.get('params')}, "
                       f"not {game.describe()}")
    return metadata, arrays
