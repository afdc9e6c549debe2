"""Reading positions' values back from a store: single values and full move analyses.

Plain Python and numpy only (no numba), so a probe starts fast. Positions are
grouped by tier so that a batch reads each zarr chunk once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as quoted  # a JSON string, as json.dumps writes it
from typing import Any, NamedTuple

import numpy as np

from retrograde import outcome as oc
from retrograde.data.store import Store
from retrograde.errors import MissingTierError, StoreError
from retrograde.games.base import State


class Value(NamedTuple):
    """A position's value for the side to move; remoteness is None for draws."""

    outcome: int
    remoteness: int | None

    @property
    def name(self) -> str:
        return oc.name(self.outcome)

    def __str__(self) -> str:
        return self.name if self.remoteness is None else f"{self.name} in {self.remoteness}"


class MoveValue(NamedTuple):
    move: str
    position: State
    value: Value  # for the side that makes the move, plies counted from before it


@dataclass(frozen=True)
class Analysis:
    position: State
    value: Value
    moves: tuple[MoveValue, ...]

    def to_json(self, game) -> dict[str, Any]:
        return {
            "game": game.name,
            "position": game.format(self.position),
            "value": self.value.name,
            "remoteness": self.value.remoteness,
            "moves": [{"move": m.move, "position": game.format(m.position), "value": m.value.name,
                       "remoteness": m.value.remoteness} for m in self.moves],
        }


def _stored(store: Store, positions: list[State]) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes and remoteness of legal positions, read tier by tier."""
    names, indices = store.game.locate_stored(positions)
    codes = np.zeros(len(positions), dtype=np.int8)
    remoteness = np.zeros(len(positions), dtype=np.int64)
    tiers, first, tier_of = np.unique(names, return_index=True, return_inverse=True)
    for t in np.argsort(first).tolist():  # tiers in order of appearance: a missing one is named
        slots = np.flatnonzero(tier_of == t)  # for the first position that needs it
        codes[slots], remoteness[slots] = store.read_values(str(tiers[t]), indices[slots])
    for slot in np.flatnonzero(codes == oc.UNDECIDED)[:1].tolist():
        raise StoreError(f"store {str(store.path)!r}: {store.game.format(positions[slot])!r} "
                         f"({names[slot]}[{indices[slot]}]) has no stored value")
    return codes, remoteness


def _as_values(codes: np.ndarray, remoteness: np.ndarray) -> list[Value]:
    return [Value(code, None if code == oc.DRAW else r) for code, r in zip(codes.tolist(), remoteness.tolist())]


#: A child's outcome code, seen by the side that moved into it.
_FLIPPED = np.array([oc.UNDECIDED, oc.WIN, oc.DRAW, oc.LOSS], dtype=np.int8)


def values(store: Store, positions: Iterable[State]) -> list[Value]:
    """Stored values of legal positions (MissingTierError if a tier is not solved)."""
    return _as_values(*_stored(store, list(positions)))


def _read_all(store: Store, positions: list[State]) -> tuple[list, np.ndarray, np.ndarray]:
    """(each position's moves, outcome codes, remoteness): the positions' values first, then
    those each move achieves (seen by the mover, plies counted from the position), in one
    batched read."""
    moves = [store.game.moves(position) for position in positions]
    codes, remoteness = _stored(store, positions + [child for position_moves in moves for _, child in position_moves])
    n = len(positions)
    codes[n:], remoteness[n:] = _FLIPPED[codes[n:]], remoteness[n:] + 1
    return moves, codes, remoteness


def analyse(store: Store, positions: Iterable[State]) -> list[Analysis]:
    """Each position's value and the value every legal move achieves, in one batched read."""
    positions = list(positions)
    moves, codes, remoteness = _read_all(store, positions)
    n = len(positions)
    own = _as_values(codes[:n], remoteness[:n])
    achieved = iter(_as_values(codes[n:], remoteness[n:]))
    return [
        Analysis(position, value, tuple(MoveValue(move, child, next(achieved)) for move, child in position_moves))
        for position, value, position_moves in zip(positions, own, moves)
    ]


def json_lines(store: Store, positions: Iterable[State]) -> list[str]:
    """`Analysis.to_json` of each position as a line of JSON, the same text `json.dumps` writes,
    built from the batch's arrays without an object a move (`probe --json` over many positions:
    about twice as fast as `analyse`, then `json.dumps`)."""
    game = store.game
    positions = list(positions)
    moves, codes, remoteness = _read_all(store, positions)
    value = {code: f'"value": "{name}", "remoteness": ' for code, name in oc.NAMES.items()}
    head = f'{{"game": {quoted(game.name)}, "position": '
    drawn = value[oc.DRAW] + "null}"
    lines, at = [], len(positions)
    for slot, (position, position_moves) in enumerate(zip(positions, moves)):
        code = int(codes[slot])
        parts = [head, quoted(game.format(position)), ", ", value[code],
                 "null" if code == oc.DRAW else str(int(remoteness[slot])), ', "moves": [']
        kids = []
        for move, child in position_moves:
            code = int(codes[at])
            kids.append(f'{{"move": {quoted(move)}, "position": {quoted(game.format(child))}, '
                        + (drawn if code == oc.DRAW else f"{value[code]}{int(remoteness[at])}}}"))
            at += 1
        parts += [", ".join(kids), "]}"]
        lines.append("".join(parts))
    return lines


def start_value(store: Store) -> tuple[Value | None, str | None]:
    """The value of the instance's start position, or None and why the store cannot say."""
    start = store.game.initial_position
    try:
        (value,) = values(store, [start])
    except MissingTierError:
        return None, f"its start position (tier {store.game.locate(start)[0]}) is not in this store"
    return value, None


def start_summary(store: Store) -> str:
    """Who wins the instance from its start position and how fast, as a phrase for a result line."""
    value, why = start_value(store)
    if value is None:
        return why
    if value.outcome == oc.DRAW:
        return "a draw with perfect play"
    plies = "1 ply" if value.remoteness == 1 else f"{value.remoteness} plies"
    return f"the first player {'wins' if value.outcome == oc.WIN else 'loses'} in {plies}"
