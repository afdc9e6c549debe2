"""Tic-tac-toe: the rules (`game`: notation, tiers, ranking), numba kernels (`kernels`), the
alpha-beta search with the seeds' evaluation (`search`), compact rules for playouts
(`playouts`), the reports' magic-square expert (`players`), what a solve costs (`costs`), the
board's cells and lines (`cells`), its symmetries (`symmetry`), its display (`display`), the Q
network's input (`network_input`) and the reports' presets (`presets`)."""

from retrograde.games.tictactoe.game import TicTacToe

GAME = TicTacToe
