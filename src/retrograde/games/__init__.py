"""The games retrograde can solve, by name. Each game is one module behind `Game`."""

from __future__ import annotations

from typing import Any

from retrograde.errors import BadOption
from retrograde.games.base import Game, Param, Tier
from retrograde.games.nim import Nim
from retrograde.games.quixo import Quixo
from retrograde.games.tictactoe import TicTacToe

GAMES: dict[str, type[Game]] = {cls.name: cls for cls in (Nim, TicTacToe, Quixo)}

__all__ = ["GAMES", "Game", "Param", "Tier", "make_game"]


def make_game(name: str, params: dict[str, Any] | None = None) -> Game:
    """Build a game instance from its name and options (BadOption if either is wrong)."""
    try:
        cls = GAMES[name]
    except KeyError:
        raise BadOption(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None
    try:
        return cls(**(params or {}))
    except TypeError as exc:
        raise BadOption(f"{name}: bad options {params!r} ({exc})") from None
