"""The lookup agent: perfect play read from a solved store, no search.

It plays the fastest win, else keeps a draw, else the slowest loss; ties are
broken at random (seeded). Remoteness is what stops it circling in won
positions of games with cycles: `remoteness=0` plays by win/draw/loss alone
(any winning move), as seed 001's solved Quixo agent did, to show how often
that stalls a won game.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from retrograde import outcome as oc
from retrograde.agents.base import Player
from retrograde.search.scores import LOOKUP, LOOKUP_BY_OUTCOME, UNKNOWN, pick_best_rows
from retrograde.spec import Option

if TYPE_CHECKING:  # the store's modules (zarr) are imported where a store is read, not where agents are listed
    from retrograde.data.probing import Analysis, MoveValue
    from retrograde.data.store import Store


def preference(move: MoveValue, remoteness: bool = True) -> tuple[int, int]:
    """Sort key: smaller is better for the mover (by outcome alone if not `remoteness`)."""
    value = move.value
    if value.outcome == oc.WIN:
        return (0, value.remoteness if remoteness else 0)
    if value.outcome == oc.DRAW:
        return (1, 0)
    return (2, -value.remoteness if remoteness else 0)


def optimal_moves(moves: Iterable[MoveValue], remoteness: bool = True) -> list[MoveValue]:
    """Every move that is optimal by (outcome, remoteness), or by outcome alone if not
    `remoteness`; none at a terminal position."""
    moves = list(moves)
    best = min((preference(move, remoteness) for move in moves), default=None)
    return [move for move in moves if preference(move, remoteness) == best]


def perfect_line(store: Store, position, max_plies: int) -> tuple[list[tuple[str, object, object]], str]:
    """The lookup agent's line from `position` with ties to the first move as the game lists them:
    ([(move, position after it, its value for the side to move there)], why it ends: "terminal",
    "repetition" (a position met before: a drawn line of a game with cycles) or "max-plies")."""
    from retrograde.data.probing import analyse

    line, seen = [], {position}
    analysis = analyse(store, [position])[0]
    while analysis.moves and len(line) < max_plies:
        best = optimal_moves(analysis.moves)[0]
        analysis = analyse(store, [best.position])[0]  # the position after the move: its value, its moves
        line.append((best.move, best.position, analysis.value))
        if best.position in seen:
            return line, "repetition"
        seen.add(best.position)
    return line, "max-plies" if analysis.moves else "terminal"


class LookupAgent(Player):
    name = "lookup"
    summary = "perfect play read from the store: fastest win, else a draw, else slowest loss"
    needs_store = True
    options = (Option("fallback", "agent for positions whose tier the store does not hold "
                      "(e.g. 5x5 solved --down-to N); without one such a position is an error",
                      None, kind="agent"),
               Option("remoteness", "1: fastest win, slowest loss; 0: by win/draw/loss alone, any "
                                    "winning move (seed 001's solved agent: it can circle in won positions)",
                      1, low=0, high=1))

    def __init__(self, game, *, seed: int, store: Store, fallback: Player | None = None, remoteness: int = 1):
        super().__init__(game, seed=seed, store=store)
        self.fallback = fallback
        self.remoteness = bool(remoteness)

    @cached_property
    def _solved(self) -> set[str]:
        """The store's solved tiers (read where a fallback is given: `holds`)."""
        from retrograde.data.store import SOLVED

        return {tier.name for tier in self.store.plan.tiers if self.store.record(tier.name).status == SOLVED}

    def best_moves(self, position, analysis: Analysis | None = None) -> list[MoveValue]:
        """Every move that is optimal by (outcome, remoteness), or by outcome alone; from
        `analysis` where the position's is at hand, else from the store."""
        if analysis is None:
            from retrograde.data.probing import analyse

            analysis = analyse(self.store, [position])[0]
        return optimal_moves(analysis.moves, self.remoteness)

    def holds(self, position) -> bool:
        """Whether the store values `position` and every child (all lie in solved tiers)."""
        tier, _ = self.game.locate(position)
        return tier in self._solved and all(self.game.locate(child)[0] in self._solved
                                            for _, child in self.game.moves(position))

    def choose(self, position, analysis: Analysis | None = None):
        if self.fallback is not None and not self.holds(position):
            return self.fallback.choose(position)
        best = self.best_moves(position, analysis)
        pick = best[int(self.rng.integers(len(best)))]
        return pick.move, pick.position

    def choose_analysed(self, analysis: Analysis):
        return self.choose(analysis.position, analysis)

    def move_distribution(self, position):
        """Each best move equally likely, as `choose` draws them (the fallback's where it plays)."""
        if self.fallback is not None and not self.holds(position):
            return self.fallback.move_distribution(position)
        best = self.best_moves(position)
        return [(1 / len(best), move.position) for move in best]

    def kernel_agent(self):
        return LOOKUP if self.remoteness else LOOKUP_BY_OUTCOME

    def choose_scored(self, rows, exact):
        """`choose` at many positions: a best exact score (its outcome alone without `remoteness`:
        the order of scores is `preference`'s), ties drawn as `choose` draws them."""
        return pick_best_rows(exact if self.remoteness else np.where(exact == UNKNOWN, UNKNOWN, np.sign(exact)),
                              self.rng)
