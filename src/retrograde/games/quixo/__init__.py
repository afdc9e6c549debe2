"""Quixo: the rules (`game`: notation, tiers, ranking), numba kernels (`kernels`: moves,
un-moves, expansion), the alpha-beta search with the seeds' evaluations (`search`), compact rules
for playouts (`playouts`), the board features the learners weigh (`features`), what a solve costs
(`costs`) and the reports' presets (`presets`)."""

from retrograde.games.quixo.game import Quixo

GAME = Quixo
