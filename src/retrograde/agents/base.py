"""The agent interface: given a position, choose one legal move.

Every agent is built from a spec (`registry.build_agent`), takes an explicit seed and
draws all its randomness from `self.rng`, so the same seed gives the same games.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from retrograde.agents.spec import Option
from retrograde.games.base import Game, Position


class Agent(ABC):
    """A player of one game instance. Subclasses take their declared `options` as keyword
    arguments of `__init__` (after `game`, `seed` and `store`)."""

    name: ClassVar[str] = "agent"
    summary: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    #: True if the agent reads a solved store (built only when one is given).
    needs_store: ClassVar[bool] = False

    def __init__(self, game: Game, *, seed: int, store=None):
        self.game = game
        self.seed = seed
        self.store = store
        self.rng = np.random.default_rng(seed)
        #: The spec this agent was built from (set by `build_agent`; its name in reports).
        self.spec = self.name

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        """Why this agent cannot play `game` (one phrase), or None if it can."""
        return None

    @abstractmethod
    def choose(self, position: Position) -> tuple[str, Position]:
        """Return (move text, child position) for a non-terminal position."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec} seed={self.seed}>"
