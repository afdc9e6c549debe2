"""Quarto's genetic-algorithm genome (seed 002): (alpha, beta) in [0, 1], the piece and cell rule
of `heuristics` (hand over a piece like the board's (alpha) or unlike it, place to win, else to
fill a three-piece line, else beside two pieces (beta) or fewer). With the agent's `minimax=D` it
plays seed 002's GA+minimax hybrid. `alpha=` and `beta=` give a genome without an artifact (the
report's 0.1 and 0.2).

Two versions, each its own agent:

* ours (`ga:...`), of the report's prose: the piece most or least like the board's (a
  correlation sum), a win placed first; the hybrid hands over only pieces the opponent cannot
  win with at once, and with fewer than 8 empty cells plays a forced win if a D-ply search
  finds one.
* the report's code as printed (`ga:preset=002,...`, `Report002Ga`; `train ga:preset=002`
  evolves it, `Report002Rule`): its piece rule of combinations of the most or least frequent
  attribute values (`heuristics.printed_piece`), a three-piece line closed before a win is
  looked for. Its hybrid's `place_piece`, whenever a row, column or diagonal holds three
  pieces, searches every placement D plies deep (1 with 8 or more empty cells) and plays the
  best that does not lose, winning or not: its test `score != -inf or score != -1` is always
  true, so the GA's placement never plays there. Its `minmax` after a placement is not
  printed; we read its depth D as the opponent's next D placements, so D + 1 of our plies
  (a placement and a handover each), scored by what is decided alone (every win alike, every
  loss alike), the first cell in its order (rows from the top, cells from the left) among the
  best; where every placement loses (their code then draws from an empty list) the first.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Genome, GenomePlayer, Policy
from retrograde.games.quarto.board import encode, line_tables, move_of
from retrograde.games.quarto.cells import CELL_NAMES, board_lines
from retrograde.games.quarto.heuristics import ga_move, placed_then_handed
from retrograde.games.quarto.search import DECIDED, QuartoSearch
from retrograde.spec import Option

#: Empty cells from which the hybrids search D plies (below), not 1 (report 002's `holes < 8`).
DEEP_BELOW = 8
#: The report's lines: rows, columns and the two diagonals (its game has no 2x2 squares).
LINES = board_lines(False)


class RulePlayer(GenomePlayer):
    """Seed 002's player of the genome (alpha, beta); with `minimax` D > 0 its GA+minimax hybrid;
    `printed`: as the report's code played (see the module docstring), else ours."""

    def __init__(self, game, genome, minimax: int = 0, printed: bool = False):
        self.game = game
        self.printed = printed
        self.alpha, self.beta = (float(gene) for gene in genome)
        self.depth = int(minimax)
        self.lines, self.through = line_tables(game.squares)
        self.search = QuartoSearch(game) if self.depth else None

    def choose(self, position, rng: np.random.Generator):
        seed = int(rng.integers(1 << 63))
        state = np.full(1, seed, dtype=np.uint64)
        board, occupied, hand, used = encode(position)
        if self.search is not None and self.printed and hand >= 0 and self.three_in_a_line(position):
            cell = self.searched_cell(position, seed)
            piece = placed_then_handed(board, occupied, hand, used, cell, self.alpha, True, True, self.lines,
                                       self.through, state)
            return move_of(position, cell, int(piece))
        if self.search is not None and not self.printed and position[0].count(-1) < DEEP_BELOW:
            scores = self.search.root_scores(position, self.depth, "zero", seed=seed)
            if scores.max() > DECIDED:
                winning = np.flatnonzero(scores == scores.max())
                return self.game.moves(position)[int(winning[rng.integers(len(winning))])]
        cell, piece = ga_move(board, occupied, hand, used, self.alpha, self.beta, self.depth > 0, self.printed,
                              self.lines, self.through, state)
        return move_of(position, int(cell), int(piece))

    @staticmethod
    def three_in_a_line(position) -> bool:
        """Whether a row, column or diagonal has one empty cell (the report's "risk 4")."""
        cells, _ = position
        return any(sum(cells[cell] < 0 for cell in line) == 1 for line in LINES)

    def searched_cell(self, position, seed: int) -> int:
        """The report's hybrid placement: the first cell of the best outcome its search sees."""
        depth = (self.depth if position[0].count(-1) < DEEP_BELOW else 1) + 1
        scores = self.search.root_scores(position, depth, "zero", seed=seed, exact=True)
        outcome = {}  # cell -> the best of its moves: 1 a win, 0 undecided, -1 a loss
        for (text, _), score in zip(self.game.moves(position), scores):
            cell = CELL_NAMES[text.partition(":")[0]]
            outcome[cell] = max(outcome.get(cell, -1), int(score > DECIDED) - int(score < -DECIDED))
        best = max(outcome.values())
        return min(cell for cell, value in outcome.items() if value == best)


class PieceAndCellRule(Genome):
    names = ("alpha", "beta")
    kind = "quarto-rule"
    options = (
        Option("alpha", "instead of params: chance of handing over the piece most like the board's",
               None, kind="float", low=0, high=1),
        Option("beta", "instead of params: chance of placing beside two pieces rather than fewer",
               None, kind="float", low=0, high=1),
        Option("minimax", "seed 002's GA+minimax hybrid searching D plies for a forced win below 8 empty "
                          "cells (0: the plain rule)", 0, low=0, high=16),
    )

    def player(self, weights, minimax: int = 0, **genes):
        return RulePlayer(self.game, weights, minimax)


class Report002Rule(PieceAndCellRule):
    """The genome as report 002's code played it (see the module docstring); `train ga:preset=002`
    evolves it."""

    kind = "quarto-rule-002"
    options = ()

    def player(self, weights, minimax: int = 0, **genes):
        return RulePlayer(self.game, weights, minimax, printed=True)


class Report002Ga(Policy):
    name = "ga"
    summary = ("report 002's GA agent (and with minimax=D its GA+minimax hybrid) as its code played: the piece "
               "from combinations of the most or least frequent attribute values, a cell closing a diagonal "
               "first, else a row or column, whether it wins or not; the hybrid, with a line of three pieces, "
               "the first placement of the best a D-ply search (1 with 8 or more empty cells) sees, winning or "
               "not (ours: the piece most or least like the board's, a win first, a search for a forced win "
               "below 8 empty cells)")
    options = (Option("alpha", "chance of handing over a piece of the most frequent attribute values", 0.1,
                      kind="float", low=0, high=1),
               Option("beta", "chance of placing beside two pieces rather than fewer", 0.2, kind="float", low=0,
                      high=1),
               Option("minimax", "the GA+minimax hybrid's depth D (0: the plain GA)", 0, low=0, high=16))

    def __init__(self, game, rng, *, alpha: float, beta: float, minimax: int):
        super().__init__(game, rng)
        self.player = RulePlayer(game, (alpha, beta), minimax, printed=True)

    def choose(self, position):
        return self.player.choose(position, self.rng)
