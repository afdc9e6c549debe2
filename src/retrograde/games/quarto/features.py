"""Features of Quarto placements: what the `rl` agent's linear Q weighs (seed 002's Q-learned
placement, with its GA rule handing the piece over).

For each empty cell, the board after placing the piece in hand there, from the placer's view
before it hands a piece over, with R the pieces it may hand over and D the board's deadly
pieces (`board`), each scaled to [0, 1]:

* live lines (three pieces sharing an attribute value, one cell empty), / lines;
* safe pieces |R minus D| / 15, deadly pieces |R and D| / 15;
* whether the number of safe pieces is odd, whether there is none (a winner must be handed);
* open pairs: lines of two pieces sharing an attribute value and two empty cells, / lines;
* lines the placement blocked (they were live, it filled their empty cell without a win),
  / lines through the cell;
* empty cells left / 16.

Each placement also gets its result (a win, the board filled: a draw, or neither) and the piece
seed 002's GA+minimax rule hands over after it (`heuristics.hand_over`: over the safe pieces, or
all if none is safe); a placement that ends the game hands none. The genome `pieces` is (alpha,
beta) of our rule (a ga artifact's), or (alpha, beta, 1) of the report's printed piece rule (its
preset `seed002`: its RL agent handed pieces over by "the same function" as its GA).
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Features
from retrograde.games.quarto.board import (FULL, completes, deadly, encode, line_summary, line_tables, line_threat,
                                           move_of, place)
from retrograde.games.quarto.heuristics import hand_over
from retrograde.games.ranking_kernels import popcount
from retrograde.jit import njit
from retrograde.spec import Option

NAMES = ("live_lines", "safe_pieces", "deadly_pieces", "safe_odd", "no_safe_piece", "open_pairs", "blocked",
         "empty_cells")
#: The result of a placement for the placer.
NO_RESULT, WINS, FILLS = range(3)


@njit
def _open_pair(board, occupied, line):
    """Whether `line` holds two pieces sharing an attribute value and two empty cells."""
    count, common, lacking = line_summary(board, occupied, line)
    return count == 2 and (common | lacking) != 0


@njit
def placements(board, occupied, hand, used, alpha, printed, lines, through, state, features, cells, pieces, result):
    """Fill features[j], cells[j], pieces[j], result[j] for the j-th empty cell; return how many
    (`printed`: the report's piece rule, else ours)."""
    left = ~used & FULL
    n = lines.shape[0]
    j = 0
    for cell in range(16):
        if occupied >> cell & 1:
            continue
        cells[j] = cell
        pieces[j] = -1
        features[j, :] = 0.0
        if completes(board, occupied, cell, hand, lines, through):
            result[j] = WINS
        elif popcount(occupied) == 15:
            result[j] = FILLS
        else:
            result[j] = NO_RESULT
            after, filled = place(board, occupied, cell, hand)
            threats = deadly(after, filled, lines)
            safe = left & ~threats
            live = pairs = 0
            for i in range(n):
                live += line_threat(after, filled, lines[i]) != 0
                pairs += _open_pair(after, filled, lines[i])
            blocked = crossing = 0
            for k in range(through.shape[1]):
                i = through[cell, k]
                if i < 0:
                    break
                crossing += 1
                blocked += line_threat(board, occupied, lines[i]) != 0
            features[j, 0] = live / n
            features[j, 1] = popcount(safe) / 15.0
            features[j, 2] = popcount(left & threats) / 15.0
            features[j, 3] = popcount(safe) % 2
            features[j, 4] = 1.0 if safe == 0 else 0.0
            features[j, 5] = pairs / n
            features[j, 6] = blocked / crossing
            features[j, 7] = (15 - popcount(occupied)) / 16.0
            pieces[j] = hand_over(after, filled, safe if safe else left, alpha, False, printed, lines, state)
        j += 1
    return j


class QuartoPlacements(Features):
    """The placements of a Quarto position, each with its features, its result and the piece seed
    002's GA rule hands over after it (genome `pieces`: (alpha, beta), whose alpha the piece rule
    reads, and 1 after them for the report's printed rule): one move per empty cell."""

    kind = "placement"
    max_moves = 16
    genome_option = Option("pieces", "the ga artifact (.json) whose (alpha, beta) rule hands the pieces over; "
                                     "seed002: the report's genome (0.1, 0.3) by its printed piece rule", "seed002",
                           kind="text")
    genome_presets = {"seed002": (0.1, 0.3, 1.0)}

    def __init__(self, game, pieces=None):
        self.game = game
        self.names = NAMES
        self.pieces = np.asarray(self.genome_presets["seed002"] if pieces is None else pieces, dtype=np.float64)
        if self.pieces.shape not in ((2,), (3,)) or not np.all((self.pieces >= 0) & (self.pieces <= 1)):
            raise ValueError("the piece genome is (alpha, beta) in [0, 1], and 1 after them for the report's "
                             "printed rule")
        self.lines, self.through = line_tables(game.squares)
        self._features = np.zeros((16, len(NAMES)), dtype=np.float64)
        self._cells = np.zeros(16, dtype=np.int64)
        self._pieces = np.zeros(16, dtype=np.int64)
        self._result = np.zeros(16, dtype=np.int64)

    def __call__(self, position, rng):
        """At the opening, the rule's handover alone (a move not learned: its value counts as
        known): ours ties every piece on the empty board, so a random one (drawn as it always was,
        so that our artifacts keep their bytes); the printed rule's is the sum of its first four
        attribute values."""
        encoded = encode(position)
        printed = bool(self.pieces[2:].any())
        if encoded[2] < 0 and not printed:
            return [move_of(position, -1, int(rng.integers(16)))], np.zeros((1, len(NAMES))), np.zeros(1)
        state = np.full(1, int(rng.integers(1 << 63)), dtype=np.uint64)
        if encoded[2] < 0:
            piece = hand_over(encoded[0], encoded[1], FULL, self.pieces[0], False, printed, self.lines, state)
            return [move_of(position, -1, int(piece))], np.zeros((1, len(NAMES))), np.zeros(1)
        count = placements(*encoded, self.pieces[0], printed, self.lines, self.through, state,
                           self._features, self._cells, self._pieces, self._result)
        result = self._result[:count]
        moves = [move_of(position, int(cell), int(piece)) for cell, piece in zip(self._cells[:count], self._pieces[:count])]
        return moves, self._features[:count].copy(), np.where(result == WINS, 1.0, np.where(result == FILLS, 0.0, np.nan))

    def arrays(self):
        return {"pieces": self.pieces}

    def with_genome(self, genome):
        return QuartoPlacements(self.game, genome)
