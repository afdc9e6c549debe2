"""Nim: the rules (`game`: notation, tiers, ranking), numba kernels (`kernels`), the alpha-beta
search with the seeds' evaluations (`search`), compact rules for playouts (`playouts`), the
theory's expert and the reports' fixed rules (`players`), the GA genome (`genome`), what a solve
costs (`costs`), its explorer picture and reasons for illegal moves (`display`), and the course
reports' presets, players and genomes (`presets`, `reports`)."""

from retrograde.games.nim.game import Nim

GAME = Nim
