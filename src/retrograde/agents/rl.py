"""The `rl` agent: greedy play in Q values learned by `retrograde train rl` (seeds 000/001).

Q(position, move) comes from one of two models, chosen by the game:

* `TabularQ` (nim, tic-tac-toe, 3x3 Quixo): one row per indexed position (tier offset plus
  the index `game.locate` gives), one column per move in `game.moves` order;
* `LinearQ` (4x4 and 5x5 Quixo, too many positions for a table): a linear function of the
  board features after the move (`features`), plus a bias; a move that ends the game is
  worth its reward exactly (+1 a win, -1 a loss).

Rewards are from the mover's view: win +1, loss -1, draw 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents.base import Agent
from retrograde.games.quixo.features import QuixoFeatures, best_index
from retrograde.agents.spec import Option
from retrograde.errors import BadAgent
from retrograde.games.base import Game, Position
from retrograde.training.artifact import load_artifact

#: Reward for the side to move at a terminal position, by its outcome there.
REWARD = {oc.WIN: 1.0, oc.DRAW: 0.0, oc.LOSS: -1.0}
#: Tables above this many entries are refused (a Q table must fit in memory comfortably).
MAX_TABLE_ENTRIES = 50_000_000


class TabularQ:
    """Q values of every (indexed position, move) in one float32 array."""

    kind = "table"

    def __init__(self, game: Game, q: np.ndarray | None = None):
        self.game = game
        self.offsets: dict[str, int] = {}
        rows = 0
        for tier in game.tiers():
            self.offsets[tier.name] = rows
            rows += tier.size
        shape = (rows, game.max_moves)
        if q is not None and q.shape != shape:
            raise ValueError(f"Q table of shape {q.shape}, the game needs {shape}")
        self.q = np.zeros(shape, dtype=np.float32) if q is None else q.astype(np.float32)

    @staticmethod
    def refusal(game: Game) -> str | None:
        """Why a table does not fit `game` (None if it does)."""
        entries = sum(tier.size for tier in game.tiers()) * game.max_moves
        if entries > MAX_TABLE_ENTRIES:
            return f"a Q table would hold {entries:,} entries (at most {MAX_TABLE_ENTRIES:,})"
        return None

    def evaluate(self, position: Position) -> tuple[list, np.ndarray, Any]:
        """(moves, Q of each move, a handle for `update`) of a non-terminal position."""
        moves = self.game.moves(position)
        name, index = self.game.locate(position)
        row = self.offsets[name] + index
        return moves, self.q[row, :len(moves)].astype(np.float64), row

    def update(self, row: int, move: int, target: float, alpha: float) -> None:
        """Move Q(row, move) a step `alpha` toward `target`."""
        self.q[row, move] += alpha * (target - self.q[row, move])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"q": self.q}


class LinearQ:
    """Q(position, move) = weights . features(board after the move) + bias; exact at game ends."""

    kind = "linear"

    def __init__(self, game: Game, weights: np.ndarray | None = None):
        self.game = game
        self.features = QuixoFeatures(game)
        size = len(self.features.names) + 1
        if weights is not None and weights.shape != (size,):
            raise ValueError(f"{weights.shape} weights, the game's features need ({size},)")
        self.weights = np.zeros(size) if weights is None else weights.astype(np.float64)

    def evaluate(self, position: Position) -> tuple[list, np.ndarray, Any]:
        """(moves, Q of each move, a handle for `update`) of a non-terminal position."""
        features, result = self.features(position)
        x = np.hstack([features, np.ones((len(features), 1))])
        q = x @ self.weights
        ended = result != 0
        q[ended] = result[ended]
        return self.game.moves(position), q, (x, ended)

    def update(self, handle: Any, move: int, target: float, alpha: float) -> None:
        """A normalised gradient step (NLMS) of the move's Q toward `target`; a move that ends
        the game is known exactly and is not learned."""
        x, ended = handle
        if ended[move]:
            return
        row = x[move]
        self.weights += alpha * (target - row @ self.weights) * row / (row @ row)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"weights": self.weights}


def model_class(game: Game) -> type[TabularQ] | type[LinearQ]:
    """The Q model `game` is learned with: linear features for 4x4/5x5 Quixo, else a table."""
    return LinearQ if game.name == "quixo" and game.size >= 4 else TabularQ


class QAgent(Agent):
    """Plays greedily in a Q model (ties by `self.rng`): the trainer's player, and `rl`'s."""

    name = "q"

    def __init__(self, game: Game, *, seed: int, model: TabularQ | LinearQ, store=None):
        super().__init__(game, seed=seed, store=store)
        self.model = model

    def choose(self, position):
        moves, q, _ = self.model.evaluate(position)
        return moves[best_index(q, self.rng)]


class RlAgent(QAgent):
    name = "rl"
    summary = ("Q-learning (tabular, or linear in board features on 4x4/5x5 Quixo) trained with "
               "'retrograde train rl': the move of highest Q")
    options = (Option("params", "the .npz artifact 'retrograde train rl' wrote", None, kind="file"),)

    def __init__(self, game, *, seed: int, store=None, params: Path | None = None):
        if params is None:
            raise BadAgent("rl needs params=FILE (train one with retrograde train rl ...)")
        metadata, arrays = load_artifact(params, "rl", game)
        cls = model_class(game)
        try:
            model = cls(game, arrays[{"table": "q", "linear": "weights"}[cls.kind]])
        except (KeyError, ValueError) as exc:
            raise BadAgent(f"rl: params={params}: corrupt {cls.kind} Q artifact ({exc})") from None
        super().__init__(game, seed=seed, model=model, store=store)
        self.metadata = metadata
