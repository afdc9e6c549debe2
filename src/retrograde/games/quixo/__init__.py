"""Quixo: the rules (`game`: notation, tiers, ranking), numba kernels (`kernels`: moves,
un-moves, expansion), the alpha-beta search with the seeds' evaluations (`search`), compact rules
for playouts (`playouts`), the board features the learners weigh (`features`), what a solve costs
(`costs`), the loopy solver's kernels (`loopy`), its symmetries (`symmetry`), the one-ply store
format (`one_ply`), its display (`display`), the Q network's input (`network_input`) and the
reports' presets (`presets`)."""

from retrograde.games.quixo.game import Quixo

GAME = Quixo
