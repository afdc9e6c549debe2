"""The endgame agent (Quarto): perfect play once few cells are empty, minimax before.

With at most `empty` empty cells the agent searches to the end of the game (alpha-beta with
a transposition table, `QuartoSearch.solve_scores`) and plays the fastest win, else a draw,
else the slowest loss; above that it plays as `minimax` with its `depth` and `eval`. The
default of 9 empty cells keeps a move well under a second (BENCHMARKS.md).
"""

from __future__ import annotations

from retrograde.agents.minimax import MinimaxAgent, pick_best
from retrograde.agents.spec import Option


class EndgameAgent(MinimaxAgent):
    name = "endgame"
    summary = ("quarto: exact alpha-beta to the end (transposition table) with at most `empty` empty cells, "
               "minimax above")
    options = (
        Option("empty", "most empty cells for the exact search", 9, low=0, high=16),
        *(option for option in MinimaxAgent.options if option.name in ("depth", "eval")),
    )

    def __init__(self, game, *, seed: int, store=None, empty: int = 9, depth: int = 2, eval: str | None = None):
        super().__init__(game, seed=seed, store=store, depth=depth, eval=eval)
        self.empty = int(empty)

    @classmethod
    def cannot_play(cls, game):
        return None if game.name == "quarto" else "its exact endgame search is Quarto's"

    def exact_at(self, position) -> bool:
        """Whether the agent plays `position` by exact search (perfectly)."""
        cells, _ = position
        return cells.count(-1) <= self.empty

    def choose(self, position):
        if not self.exact_at(position):
            return super().choose(position)
        scores = self.search.solve_scores(position, seed=int(self.rng.integers(1 << 63)))
        self.nodes = self.search.nodes
        return self.game.moves(position)[pick_best(scores, self.rng)]
