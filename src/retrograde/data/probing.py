"""Reading positions' values back from a store: single values and full move analyses.

Plain Python and numpy only (no numba), so a probe starts fast. Positions are
grouped by tier so that a batch reads each zarr chunk once.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, NamedTuple
from collections.abc import Iterable

import numpy as np

from retrograde import outcome as oc
from retrograde.data.store import Store
from retrograde.errors import StoreError
from retrograde.games.base import Position


class Value(NamedTuple):
    """A position's value for the side to move; remoteness is None for draws."""

    outcome: int
    remoteness: int | None

    @property
    def name(self) -> str:
        return oc.name(self.outcome)

    def after_move(self) -> Value:
        """The value a move into a position of this value achieves for the mover."""
        flipped = {oc.WIN: oc.LOSS, oc.LOSS: oc.WIN, oc.DRAW: oc.DRAW}[self.outcome]
        return Value(flipped, None if self.remoteness is None else self.remoteness + 1)

    def __str__(self) -> str:
        return self.name if self.remoteness is None else f"{self.name} in {self.remoteness}"


@dataclass(frozen=True)
class MoveValue:
    move: str
    position: Position
    value: Value  # for the side that makes the move, plies counted from before it


@dataclass(frozen=True)
class Analysis:
    position: Position
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


def values(store: Store, positions: Iterable[Position]) -> list[Value]:
    """Stored values of legal positions (MissingTierError if a tier is not solved)."""
    positions = list(positions)
    by_tier: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for slot, position in enumerate(positions):
        tier, index = store.game.locate(position)
        by_tier[tier].append((slot, index))
    result: list[Value | None] = [None] * len(positions)
    for tier, entries in by_tier.items():
        indices = np.array([index for _, index in entries], dtype=np.int64)
        codes, remoteness = store.read_values(tier, indices)
        for (slot, index), code, r in zip(entries, codes.tolist(), remoteness.tolist()):
            if code == oc.UNDECIDED:
                raise StoreError(f"store {str(store.path)!r}: {store.game.format(positions[slot])!r} "
                                 f"({tier}[{index}]) has no stored value")
            result[slot] = Value(code, None if code == oc.DRAW else r)
    return result  # type: ignore[return-value]


def analyse(store: Store, positions: Iterable[Position]) -> list[Analysis]:
    """Each position's value and the value every legal move achieves, in one batched read."""
    positions = list(positions)
    moves = [store.game.moves(position) for position in positions]
    flat = positions + [child for position_moves in moves for _, child in position_moves]
    found = values(store, flat)
    own, children = found[: len(positions)], iter(found[len(positions):])
    return [
        Analysis(position, value,
                 tuple(MoveValue(move, child, next(children).after_move()) for move, child in position_moves))
        for position, value, position_moves in zip(positions, own, moves)
    ]
