"""`Position`: a position of one game instance as users see it, in the Python API and in their
own agents (docs/agents.md): its notation as `str`, its legal moves, the position a move leads
to, and its board as an array."""

from __future__ import annotations

from typing import Any

import numpy as np

from retrograde.errors import BadPosition
from retrograde.games.base import Game
from retrograde.games.capabilities import display_of


class Position:
    """A position of one game instance: its notation as `str`, its tier and index in a store.

    `state` is the game's internal form (bit masks, heap tuples); positions are equal
    when they are the same state of the same game instance.
    """

    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: Any):
        self.game = game
        self.state = state

    def __str__(self) -> str:
        return self.game.format(self.state)

    def __repr__(self) -> str:
        return f"Position({str(self)!r}, game={self.game.name!r})"

    def _key(self) -> tuple[str, Any]:
        return self.game.describe(), self.state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def render(self) -> str:
        """A picture of the board (or the notation, for games without one)."""
        return display_of(self.game).render(self.state)

    @property
    def tier(self) -> str:
        """Name of the tier that holds the position."""
        return self.game.locate(self.state)[0]

    @property
    def index(self) -> int:
        """Where a store keeps the position's value within its tier (docs/STORE.md gives the
        formulas): in a game that keeps one position per symmetry class (tic-tac-toe, Quixo),
        the index of its class's representative, which `position_at` gives back."""
        return int(self.game.locate_stored([self.state])[1][0])

    # --- what a user's agent reads ----------------------------------------------------------
    @property
    def moves(self) -> list[str]:
        """The legal moves, in the game's notation (none where the game is over)."""
        return [move for move, _ in self.game.moves(self.state)] if not self.over else []

    @property
    def over(self) -> bool:
        """Whether the game is over here."""
        return bool(self.game.primitive(self.state))

    def play(self, move: str) -> Position:
        """The position `move` (the game's notation, any case) leads to.

        :raises BadPosition: `move` is not a legal move here."""
        wanted = str(move).strip().lower()
        for text, child in self.game.moves(self.state) if not self.over else ():
            if text.lower() == wanted:
                return Position(self.game, child)
        raise BadPosition(f"{move!r} is not a legal move in {str(self)!r}")

    @property
    def board(self) -> np.ndarray | tuple[int, ...]:
        """The board read from the notation: for a game written as rows joined by '/' (tic-tac-toe,
        Quixo, Quarto, Connect Four), a 2-D array of the rows' cell characters (top row first);
        for one written as comma-separated numbers (Nim), the tuple of them; else the notation's
        first word as an array of its characters."""
        text = str(self).split(" ")[0]
        if "/" in text:
            return np.array([list(row) for row in text.split("/")])
        if text.replace(",", "").isdigit():
            return tuple(int(item) for item in text.split(","))
        return np.array(list(text))
