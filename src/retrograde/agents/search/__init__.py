"""Alpha-beta search kernels and leaf evaluations per game, for the `minimax` and `greedy` agents.

`base` holds the shared score scale, move-ordering noise and iterative-search bookkeeping;
`tablebase` loads a solved store's tiers for probing inside search; each game's folder holds
its own search kernel and evaluations (`games/<game>/search.py`), imported when first needed.
"""

from __future__ import annotations

from importlib import import_module

from retrograde.games.base import Game

#: game name -> "module:Search class".
SEARCHES: dict[str, str] = {
    "nim": "retrograde.games.nim.search:NimSearch",
    "tictactoe": "retrograde.games.tictactoe.search:TicTacToeSearch",
    "quixo": "retrograde.games.quixo.search:QuixoSearch",
    "quarto": "retrograde.games.quarto.search:QuartoSearch",
}


def search_class(game: Game):
    """The `Search` subclass for `game`, or None if no search kernel plays it."""
    if game.name not in SEARCHES:
        return None
    module, _, name = SEARCHES[game.name].partition(":")
    return getattr(import_module(module), name)
