"""Report 004's Quixo player as its code played it (`minimax:preset=004`), beside our agent of
its prose (`minimax:adaptive=1,depth=4,eval=inline`).

Its `make_move` orders the moves by the longest own line each makes (`max_inline_pieces`: the
most own cubes in one row, column or diagonal), among equals those taking a blank cube first,
equal keys shuffled; then:

* a move that wins at once is played;
* while no move makes a line of two, a random move taking a corner cube (the corner opening);
* else every move is searched by alpha-beta to min(|C - O| + 1, O) plies, C and O the longest
  lines of the side to move and of the opponent: at most 4, as O is at most 4 before a win, and
  no cap of ours. A leaf scores C - O after the move (`eval=inline`), a decided position +inf
  or -inf whatever its depth, and the move played is the first of the best in the order
  above: the highest-ordered of the best-scored moves, at random among equal keys.

Ours takes the fastest win and delays a loss (scores by plies), draws among all best-scored
moves uniformly, and has no corner opening. Their code would raise where no corner cube is
left to take in the opening (an empty list drawn from); there the search plays.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Policy
from retrograde.games.quixo.moves import SOURCE
from retrograde.search.scores import WIN_SCORE

#: Scores beyond this are decided positions (+-(WIN_SCORE - plies)); the inline evaluation
#: stays within +-5.
DECIDED = WIN_SCORE // 2
#: The report's depth rule is bounded by its own terms (O <= 4 before a win): this cap never binds.
MOST_PLIES = 4


class Report004Minimax(Policy):
    name = "minimax"
    summary = ("report 004's MinMaxPlayer as its code played it: a winning move at once, a random corner cube "
               "while no move makes a line of two, else alpha-beta to min(|C - O| + 1, O) plies (at most 4) "
               "with leaves C - O, every win alike, the best move first in its order (longest own line, blank "
               "cubes first); ours (adaptive=1,depth=4,eval=inline) takes the fastest win and draws among ties")

    def __init__(self, game, rng):
        super().__init__(game, rng)
        self.search = game.search
        n = game.size
        self.corners = (1 << 0) | (1 << (n - 1)) | (1 << (n * (n - 1))) | (1 << (n * n - 1))

    def order_keys(self, position) -> tuple[list[tuple[int, int]], list[int]]:
        """Each move's key in the report's order, (longest own line after it, 1 if it took a blank
        cube), in `game.moves` order, and each move's source bit."""
        from retrograde.games.quixo.kernels import longest_line, play

        mover, opponent = self.game._masks(position)
        table = self.game.move_table
        keys, sources = [], []
        for k in range(table.shape[0]):
            source = int(table[k, SOURCE])
            if opponent & source:
                continue
            after = int(play(table, k, mover, opponent)[0])
            keys.append((int(longest_line(after, self.game.every_line)), 0 if mover & source else 1))
            sources.append(source)
        return keys, sources

    def choose(self, position):
        moves = self.game.moves(position)
        seed = int(self.rng.integers(1 << 63))
        at_once = self.search.root_scores(position, 1, "inline", seed=seed)
        if at_once.max() == WIN_SCORE - 1:
            return moves[int(np.argmax(at_once))]
        keys, sources = self.order_keys(position)
        corners = [i for i, source in enumerate(sources) if source & self.corners]
        if max(own for own, _ in keys) <= 1 and corners:
            return moves[corners[int(self.rng.integers(len(corners)))]]
        depth = self.search.adaptive_depth(position, MOST_PLIES)
        scores = self.search.root_scores(position, depth, "inline", seed=seed, exact=True)
        values = np.where(scores > DECIDED, DECIDED, np.where(scores < -DECIDED, -DECIDED, scores))
        best = np.flatnonzero(values == values.max())
        top = max(keys[i] for i in best)
        first = [i for i in best if keys[i] == top]
        return moves[first[int(self.rng.integers(len(first)))]]
