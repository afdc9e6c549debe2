"""The lookahead agent (Quarto): seed 000's genetic algorithm, evolved afresh at every move.

A genome holds four pieces and four cells (the piece to place, the piece handed over, and the
next two predicted); its fitness rewards immediate wins and pieces that could win, and
punishes handing those over (`games.quarto.heuristics` has the details). One run chooses the
cell, a second, on the new board, the piece handed over. The report's sizes are the defaults.
"""

from __future__ import annotations

import numpy as np

from retrograde.agents.base import Agent
from retrograde.agents.spec import Option
from retrograde.games.quarto.board import encode, line_tables, move_of
from retrograde.games.quarto.heuristics import lookahead_move


class LookaheadAgent(Agent):
    name = "lookahead"
    summary = "quarto: seed 000's look-ahead genetic algorithm (4 pieces and 4 cells ahead), evolved at every move"
    options = (
        Option("population", "genomes kept each generation", 512, low=2),
        Option("generations", "generations per move", 40, low=0),
        Option("offspring", "breeding rounds per generation (a mutant and a cross each, by chance)", 100, low=1),
    )

    def __init__(self, game, *, seed: int, store=None, population: int = 512, generations: int = 40,
                 offspring: int = 100):
        super().__init__(game, seed=seed, store=store)
        self.sizes = (int(population), int(generations), int(offspring))
        self.lines, self.through = line_tables(game.squares)

    @classmethod
    def cannot_play(cls, game):
        return None if game.name == "quarto" else "seed 000's look-ahead genome is for Quarto"

    def choose(self, position):
        board, occupied, hand, _ = encode(position)
        state = np.full(1, self.rng.integers(1 << 63), dtype=np.uint64)
        cell, piece = lookahead_move(board, occupied, hand, *self.sizes, self.lines, self.through, state)
        return move_of(position, int(cell), int(piece))
