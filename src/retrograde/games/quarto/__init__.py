"""Quarto, solved exactly below a given position: the rules (`game`: notation, tiers, ranking),
numba kernels (`kernels`) over nibble boards (`board`), the alpha-beta search with its
evaluations and exact endgame search (`search`), the reports' policies (`heuristics`: the GA's
piece and cell rule, the look-ahead GA), the agents built on them (`players`), the GA genome
(`genome`), the placement features of the Q-learner (`features`), its symmetries (`symmetry`),
what a solve costs (`costs`), its display (`display`) and the reports' presets and sampling
(`presets`)."""

from retrograde.games.quarto.game import Quarto

GAME = Quarto
