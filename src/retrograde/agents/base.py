"""The agent interface: given a position, choose one legal move."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from retrograde.games.base import Game, Position


class Agent(ABC):
    """A player of one game instance. Randomness comes only from `seed`."""

    name: str = "agent"

    def __init__(self, game: Game, *, seed: int):
        self.game = game
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def choose(self, position: Position) -> tuple[str, Position]:
        """Return (move text, child position) for a non-terminal position."""
