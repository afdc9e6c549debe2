"""The games retrograde can solve, by name: one folder a game behind `Game`, registered by its
line in `GAMES` below (docs/GAMES.md says how to add one), or by `register` for a game of the
user's own."""

from __future__ import annotations

from typing import Any

from retrograde.errors import BadOption
from retrograde.games import connect4, nim, quarto, quixo, tictactoe
from retrograde.games.base import Game, Param
from retrograde.games.tiers import Tier

#: The registered games by name: each game folder's Game class (`GAME`), one a line, in the order
#: `retrograde games` lists them.
GAMES: dict[str, type[Game]] = {game.name: game for game in (
    nim.GAME,
    tictactoe.GAME,
    quixo.GAME,
    quarto.GAME,
    connect4.GAME,
)}

__all__ = ["GAMES", "Game", "Param", "Tier", "example_games", "make_game", "parse_game", "register"]


def register(game: type[Game]) -> type[Game]:
    """Add a game class to `GAMES` under its `name` (a game of the user's own, or a test's);
    returns the class, so that it serves as a decorator."""
    if game.name in GAMES and GAMES[game.name] is not game:
        raise BadOption(f"a game called {game.name!r} is registered already")
    GAMES[game.name] = game
    return game


def example_games() -> dict[str, Game]:
    """The first example instance of every registered game, by name: what asks a question of the
    game rather than of an instance (its own agents, its course presets) asks it of this one."""
    return {name: game(**game.examples[0]) for name, game in GAMES.items()}


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


def parse_game(text: str) -> Game:
    """A game instance from the form `Game.describe` writes (the `--game` option of `train`
    and `match`): 'tictactoe', 'quixo --size 4', 'nim --heaps 1,3,5,7 --misere'."""
    import shlex

    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise BadOption(f"--game {text!r}: {exc}") from None
    if not words:
        raise BadOption(f"--game needs a game; known games: {', '.join(sorted(GAMES))}")
    name, words = words[0].lower(), words[1:]
    if name not in GAMES:
        raise BadOption(f"--game {text!r}: unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    declared = {param.option: param for param in GAMES[name].params_spec}
    params: dict[str, Any] = {}
    while words:
        flag = words.pop(0)
        param = declared.get(flag)
        if param is None:
            known = ", ".join(declared) or "none"
            raise BadOption(f"--game {text!r}: {name} has no option {flag} (options: {known})")
        if param.kind is bool:
            params[param.name] = True
            continue
        if not words:
            raise BadOption(f"--game {text!r}: {flag} needs a value")
        value = words.pop(0)
        try:
            params[param.name] = param.kind(value)
        except ValueError:
            raise BadOption(f"--game {text!r}: {flag} {value}: not a valid {param.metavar}") from None
    missing = [p.option for p in GAMES[name].params_spec if p.required and p.name not in params]
    if missing:
        raise BadOption(f"--game {text!r}: {name} needs {missing[0]}")
    return make_game(name, params)
