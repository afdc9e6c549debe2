"""Quarto's genetic-algorithm genome (seed 002): (alpha, beta) in [0, 1], the piece and cell rule
of `heuristics` (hand over the piece most (alpha) or least like the board's; place to win, else to
fill a three-piece line, else beside two pieces (beta) or fewer). With the agent's `minimax=D` it
plays seed 002's GA+minimax hybrid: pieces the opponent cannot win with at once, and with fewer
than 8 empty cells a forced win, if a D-ply search finds one. `alpha=` and `beta=` give a genome
without an artifact (the report's 0.1 and 0.2). `ga:preset=002` plays the rule as the report's code
placed (`Report002Ga`), and `train ga:preset=002` evolves that one (`Report002Rule`)."""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Genome, GenomePlayer, Policy
from retrograde.games.quarto.board import encode, line_tables, move_of
from retrograde.games.quarto.heuristics import ga_move
from retrograde.games.quarto.search import DECIDED, QuartoSearch
from retrograde.spec import Option


class RulePlayer(GenomePlayer):
    """Seed 002's player of the genome (alpha, beta); with `minimax` D > 0 its GA+minimax hybrid;
    `win_first`: a winning placement before all (ours), else as the report's code placed."""

    def __init__(self, game, genome, minimax: int = 0, win_first: bool = True):
        self.game = game
        self.win_first = win_first
        self.alpha, self.beta = (float(gene) for gene in genome)
        self.depth = int(minimax)
        self.lines, self.through = line_tables(game.squares)
        self.search = QuartoSearch(game) if self.depth else None

    def choose(self, position, rng: np.random.Generator):
        seed = int(rng.integers(1 << 63))
        if self.search is not None and position[0].count(-1) < 8:
            scores = self.search.root_scores(position, self.depth, "zero", seed=seed)
            if scores.max() > DECIDED:
                winning = np.flatnonzero(scores == scores.max())
                return self.game.moves(position)[int(winning[rng.integers(len(winning))])]
        board, occupied, hand, used = encode(position)
        cell, piece = ga_move(board, occupied, hand, used, self.alpha, self.beta, self.depth > 0, self.win_first,
                              self.lines, self.through, np.full(1, seed, dtype=np.uint64))
        return move_of(position, int(cell), int(piece))


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
    """The genome as report 002's code played it: a cell closing a diagonal, else a row or column,
    whether it wins or not (ours places a win first); `train ga:preset=002` evolves it."""

    kind = "quarto-rule-002"
    options = ()

    def player(self, weights, minimax: int = 0, **genes):
        return RulePlayer(self.game, weights, minimax, win_first=False)


class Report002Ga(Policy):
    name = "ga"
    summary = ("report 002's GA agent (and with minimax=D its GA+minimax hybrid) as its code placed: a cell "
               "closing a diagonal first, else a row or column, whether it wins or not (ours: a win first)")
    options = tuple(Option(option.name, option.help.replace("instead of params: ", ""), default, kind=option.kind,
                           low=option.low, high=option.high)
                    for option, default in zip(PieceAndCellRule.options, (0.1, 0.2, 0)))

    def __init__(self, game, rng, *, alpha: float, beta: float, minimax: int):
        super().__init__(game, rng)
        self.player = RulePlayer(game, (alpha, beta), minimax, win_first=False)

    def choose(self, position):
        return self.player.choose(position, self.rng)
