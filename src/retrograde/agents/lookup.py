"""The lookup agent: perfect play read from a solved store, no search.

It plays the fastest win, else keeps a draw, else the slowest loss; ties are
broken at random (seeded). Remoteness is what stops it circling in won
positions of games with cycles.
"""

from __future__ import annotations

from collections.abc import Iterable

from retrograde import outcome as oc
from retrograde.agents.base import Agent
from retrograde.data.probing import MoveValue, analyse
from retrograde.data.store import Store


def preference(move: MoveValue) -> tuple[int, int]:
    """Sort key: smaller is better for the mover."""
    value = move.value
    if value.outcome == oc.WIN:
        return (0, value.remoteness)
    if value.outcome == oc.DRAW:
        return (1, 0)
    return (2, -value.remoteness)


def optimal_moves(moves: Iterable[MoveValue]) -> list[MoveValue]:
    """Every move that is optimal by (outcome, remoteness); none at a terminal position."""
    moves = list(moves)
    best = min(map(preference, moves), default=None)
    return [move for move in moves if preference(move) == best]


class LookupAgent(Agent):
    name = "lookup"

    def __init__(self, store: Store, *, seed: int):
        super().__init__(store.game, seed=seed)
        self.store = store

    def best_moves(self, position) -> list[MoveValue]:
        """Every move that is optimal by (outcome, remoteness)."""
        return optimal_moves(analyse(self.store, [position])[0].moves)

    def choose(self, position):
        best = self.best_moves(position)
        pick = best[int(self.rng.integers(len(best)))]
        return pick.move, pick.position
