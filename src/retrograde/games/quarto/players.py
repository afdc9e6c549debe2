"""Quarto's own agents.

* `endgame`: perfect play once few cells are empty, minimax before. With at most `empty` empty
  cells it searches to the end of the game (alpha-beta with a transposition table,
  `QuartoSearch.solve_scores`) and plays the fastest win, else a draw, else the slowest loss;
  above that it plays as `minimax` with its `depth` and `eval`. The default of 9 empty cells
  keeps a move well under a second (BENCHMARKS.md).
* `lookahead`: seed 000's genetic algorithm, evolved afresh at every move. A genome holds four
  pieces and four cells (the piece to place, the piece handed over, and the next two
  predicted); its fitness rewards immediate wins and pieces that could win, and punishes
  handing those over (`heuristics` has the details). One run chooses the cell, a second, on the
  new board, the piece handed over. The report's sizes are the defaults. `lookahead:preset=000`
  (`Report000Lookahead`) plays it as the report's code ran: parents by a roulette over the raw
  fitness, no fresh genomes for a losing population, no idle gene when handing over;
  plain `lookahead` is ours, with the fresh genomes its text describes.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Policy
from retrograde.search.scores import pick_best
from retrograde.spec import Option

#: `QuartoSearch.evals` (its leaf evaluations, the default first), here too so that the agents'
#: options are listed without the search's numba kernels; tests/test_cli_imports.py holds them equal.
EVALS = ("threats", "parity", "zero")


class Endgame(Policy):
    name = "endgame"
    summary = "exact alpha-beta to the end (transposition table) with at most `empty` empty cells, minimax above"
    searches_to_end = True
    options = (
        Option("empty", "most empty cells for the exact search", 9, low=0, high=16),
        Option("depth", "plies searched above that", 2, low=1, high=16),
        Option("eval", "leaf evaluation above that (default threats)", None, kind="choice",
               choices=EVALS),
    )

    def __init__(self, game, rng, *, empty: int = 9, depth: int = 2, eval: str | None = None):
        super().__init__(game, rng)
        self.empty, self.depth = int(empty), int(depth)
        from retrograde.games.quarto.search import QuartoSearch  # numba: once the agent is built

        self.search = QuartoSearch(game)
        self.evaluation = eval or self.search.evals[0]

    def exact_at(self, position) -> bool:
        cells, _ = position
        return cells.count(-1) <= self.empty

    def choose(self, position):
        moves = self.game.moves(position)
        if not self.exact_at(position):
            return moves[self.search.best_move(position, self.depth, self.evaluation, self.rng)]
        scores = self.search.solve_scores(position, seed=int(self.rng.integers(1 << 63)))
        return moves[pick_best(scores, self.rng)]


class Lookahead(Policy):
    name = "lookahead"
    summary = "seed 000's look-ahead genetic algorithm (4 pieces and 4 cells ahead), evolved at every move"
    options = (
        Option("population", "genomes kept each generation", 512, low=2),
        Option("generations", "generations per move", 40, low=0),
        Option("offspring", "breeding rounds per generation (a mutant and a cross each, by chance)", 100, low=1),
    )
    #: As the report's code ran (`heuristics`' `printed`), else ours.
    printed = False

    def __init__(self, game, rng, *, population: int = 512, generations: int = 40, offspring: int = 100):
        super().__init__(game, rng)
        self.sizes = (int(population), int(generations), int(offspring))
        from retrograde.games.quarto.board import line_tables  # numba: once the agent is built

        self.lines, self.through = line_tables(game.squares)

    def choose(self, position):
        from retrograde.games.quarto.board import encode, move_of
        from retrograde.games.quarto.heuristics import lookahead_move

        board, occupied, hand, _ = encode(position)
        state = np.full(1, self.rng.integers(1 << 63), dtype=np.uint64)
        cell, piece = lookahead_move(board, occupied, hand, *self.sizes, self.printed, self.lines, self.through,
                                     state)
        return move_of(position, int(cell), int(piece))


class Report000Lookahead(Lookahead):
    summary = ("report 000's look-ahead GA as its code ran: parents by a roulette over the raw fitness (a "
               "tournament of 5 only when it sums to 0), the fresh genomes for a losing population dropped, "
               "as many genes as pieces left when handing over (ours: a roulette over the positive fitness, "
               "the fresh genomes kept, one gene more when handing over)")
    printed = True
