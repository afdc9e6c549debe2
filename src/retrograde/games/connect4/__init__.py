"""Connect Four on small boards: the rules (`game`: notation, tiers, ranking, reachability),
numba kernels (`kernels`), the alpha-beta search with its threat-counting evaluation (`search`),
compact rules for playouts (`playouts`), the board features the learners weigh (`features`),
what a solve costs (`costs`), its mirror images folded (`symmetry`), its display (`display`)
and its workflow (`presets`). docs/GAMES.md walks through it as the
worked example of adding a game."""

from retrograde.games.connect4.game import Connect4

GAME = Connect4
