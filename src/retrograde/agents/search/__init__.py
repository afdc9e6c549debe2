"""Alpha-beta search kernels and leaf evaluations per game, for the `minimax` and `greedy` agents.

`base` holds the shared score scale, move-ordering noise and iterative-search bookkeeping;
`tablebase` loads a solved store's tiers for probing inside search; one module a game
(`nim`, `tictactoe`, `quixo`) holds its kernel and evaluations. Game modules are imported
when first needed.
"""

from __future__ import annotations

from importlib import import_module

from retrograde.games.base import Game

#: game name -> "module:Search class".
SEARCHES: dict[str, str] = {
    "nim": "retrograde.agents.search.nim:NimSearch",
    "tictactoe": "retrograde.agents.search.tictactoe:TicTacToeSearch",
    "quixo": "retrograde.agents.search.quixo:QuixoSearch",
}


def search_class(game: Game):
    """The `Search` subclass for `game`, or None if no search kernel plays it."""
    if game.name not in SEARCHES:
        return None
    module, _, name = SEARCHES[game.name].partition(":")
    return getattr(import_module(module), name)
