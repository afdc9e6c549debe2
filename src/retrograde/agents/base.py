"""The player interface: given a position, choose one legal move.

Every agent plays as a `Player`, built from its resolved spec (`ResolvedAgent.build`); a player
takes an explicit seed and draws all its randomness from `self.rng`, so the same seed gives the
same games. (The Python API's `retrograde.Agent` wraps one for positions given as text.)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from retrograde.games.base import Game, State
from retrograde.spec import Option


class Player(ABC):
    """A player of one game instance. Subclasses take their declared options (`options_for`) as
    keyword arguments of `__init__` (after `game`, `seed` and `store`)."""

    name: ClassVar[str] = "agent"
    summary: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    #: True if the agent reads a solved store (built only when one is given).
    needs_store: ClassVar[bool] = False
    #: True if the agent plays some positions perfectly by exact search (`exact_at` says which).
    searches_to_end: ClassVar[bool] = False

    def __init__(self, game: Game, *, seed: int, store=None):
        self.game = game
        self.seed = seed
        self.store = store
        self.rng = np.random.default_rng(seed)
        #: The spec this agent was built from (set by `ResolvedAgent.build`; its name in reports).
        self.spec = self.name

    @classmethod
    def options_for(cls, game: Game) -> tuple[Option, ...]:
        """The options the agent takes when it plays `game` (its own, and those the game adds)."""
        return cls.options

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        """Why this agent cannot play `game` (one phrase), or None if it can."""
        return None

    @abstractmethod
    def choose(self, position: State) -> tuple[str, State]:
        """Return (move text, child position) for a non-terminal position."""

    def choose_analysed(self, analysis) -> tuple[str, State]:
        """`choose` at `analysis.position` where the store's analysis of it is at hand (`data.probing.
        Analysis`: move quality reads one for every agent); an agent that reads the store chooses
        from it rather than read the position again."""
        return self.choose(analysis.position)

    def choose_scored(self, rows: np.ndarray, exact: np.ndarray) -> np.ndarray | None:
        """The move number (game.moves order) the agent chooses at each of many positions at once,
        drawing from `rng` as `choose` would position by position; or None where the agent has no
        such batch form (it then chooses one position at a time). The positions are the game's
        search's root states `rows` (`Search.rows_at`), `exact` every move's exact stored score at
        each (`Search.scores_many`: UNKNOWN past a position's moves)."""
        return None

    def kernel_agent(self) -> int | None:
        """The agent the game's kernels play whole games as (`search.base.LOOKUP`, ...), making the
        draws `choose` makes; None where they do not (it plays move by move)."""
        return None

    def new_game(self, seat: int | None) -> None:
        """A game starts in which the agent plays `seat` (0 moves first, 1; None: positions one by
        one). Agents that keep nothing between games ignore it; a user's agent is made anew."""

    def exact_at(self, position: State) -> bool:
        """Where `searches_to_end`: whether the agent plays `position` perfectly."""
        return False

    def move_distribution(self, position: State) -> list[tuple[float, State]] | None:
        """The chance of each child position `choose` moves to from a non-terminal `position`,
        as (probability, child) pairs summing to 1 (moves it never plays left out): what
        `validation.exact` needs to compute a pairing's rates exactly; None where the agent's
        draws cannot be enumerated (a search with random playouts, a user's code, a learner
        whose features draw). Agents that keep nothing between games and draw only from their
        own generator give theirs."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec} seed={self.seed}>"


class Forfeit(Exception):
    """A user's agent gave up a move (`agents.user`): it raised, kept answering illegal moves,
    did not answer within its move time, its process died, or it used memory past its limit.
    The game is lost by the side that forfeits, a measured position counts as lost at once, and
    the report counts forfeits by `reason` (one of `REASONS`); `detail` is one line saying what
    happened (the exception and where, the last illegal answer, ...)."""

    REASONS = ("exception", "illegal", "timeout", "died", "memory")

    def __init__(self, reason: str, detail: str):
        assert reason in self.REASONS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def best_index(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of the largest value, ties broken by `rng` (drawn from only when there is a tie)."""
    best = np.flatnonzero(values == values.max())
    return int(best[0]) if len(best) == 1 else int(best[rng.integers(len(best))])
