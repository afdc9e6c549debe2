"""The `rl` agent: greedy play in Q values learned by `retrograde train rl` (seeds 000/001).

Q(position, move) comes from one of two models, chosen by the game:

* `TabularQ` (nim, tic-tac-toe, 3x3 Quixo): one row per indexed position (tier offset plus
  the index `game.locate` gives), one column per move in `game.moves` order; the rows span every
  tier of the game's rules, also where the instance holds fewer (`quixo --down-to`: a store's
  extent, not the game's), so that play from the start finds its positions and one artifact
  serves every such instance;
* `LinearQ` (4x4 and 5x5 Quixo, too many positions for a table): a linear function of the
  board features after the move (`features`), plus a bias; a move that ends the game is
  worth its reward exactly (+1 a win, -1 a loss).
* `PlacementQ` (Quarto, seed 002's RL&GA player): Q of each placement, linear in the features
  of the board after it (`games.quarto.features`); the piece handed over is seed 002's GA rule's
  (genome `pieces`), so a position offers one move per empty cell.

A model's `evaluate` may draw from the player's generator (Quarto's piece rule does).

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
from retrograde.games import make_game
from retrograde.games.base import Game, Position, Tier
from retrograde.games.quarto.board import encode, move_of
from retrograde.games.quarto.features import FILLS, NO_RESULT, WINS, QuartoPlacements
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
        for tier in self.tiers(game):
            self.offsets[tier.name] = rows
            rows += tier.size
        shape = (rows, game.max_moves)
        if q is not None and q.shape != shape:
            raise ValueError(f"Q table of shape {q.shape}, the game needs {shape}")
        self.q = np.zeros(shape, dtype=np.float32) if q is None else q.astype(np.float32)

    @staticmethod
    def tiers(game: Game) -> tuple[Tier, ...]:
        """The tiers a table spans: every tier of the game `game`'s rules play, whatever part of it `game` holds."""
        return make_game(game.name, game.rules).tiers()

    @staticmethod
    def refusal(game: Game) -> str | None:
        """Why a table does not fit `game` (None if it does)."""
        entries = sum(tier.size for tier in TabularQ.tiers(game)) * game.max_moves
        if entries > MAX_TABLE_ENTRIES:
            return f"a Q table would hold {entries:,} entries (at most {MAX_TABLE_ENTRIES:,})"
        return None

    def evaluate(self, position: Position, rng: np.random.Generator | None = None) -> tuple[list, np.ndarray, Any]:
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
    #: The features the weights apply to: a callable class built from the game.
    features_class = QuixoFeatures

    def __init__(self, game: Game, weights: np.ndarray | None = None):
        self.game = game
        self.features = self.features_class(game)
        size = len(self.features.names) + 1
        if weights is not None and weights.shape != (size,):
            raise ValueError(f"{weights.shape} weights, the game's features need ({size},)")
        self.weights = np.zeros(size) if weights is None else weights.astype(np.float64)

    def evaluate(self, position: Position, rng: np.random.Generator | None = None) -> tuple[list, np.ndarray, Any]:
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


class PlacementQ(LinearQ):
    """Quarto: Q(position, cell) = weights . features(board after placing there) + bias, exact
    at game ends; the piece handed over after a placement is seed 002's GA rule's, drawn with
    the player's generator from the genome `pieces` (alpha, beta)."""

    kind = "placement"
    #: Seed 002's genome for its RL&GA player.
    SEED_GENOME = (0.1, 0.3)

    features_class = QuartoPlacements

    def __init__(self, game: Game, weights: np.ndarray | None = None, pieces=SEED_GENOME):
        super().__init__(game, weights)
        self.pieces = np.asarray(pieces, dtype=np.float64)
        if self.pieces.shape != (2,) or not np.all((self.pieces >= 0) & (self.pieces <= 1)):
            raise ValueError("the piece genome is (alpha, beta) in [0, 1]")

    def evaluate(self, position: Position, rng: np.random.Generator) -> tuple[list, np.ndarray, Any]:
        """(one move per placement, its Q, a handle for `update`); at the opening, the rule's
        handover alone: with nothing on the board every piece ties, so a random one."""
        encoded = encode(position)
        if encoded[2] < 0:
            moves = [move_of(position, -1, int(rng.integers(16)))]
            return moves, np.zeros(1), (np.zeros((1, len(self.weights))), np.ones(1, dtype=bool))
        features, cells, pieces, result = self.features(encoded, self.pieces[0], int(rng.integers(1 << 63)))
        x = np.hstack([features, np.ones((len(features), 1))])
        q = x @ self.weights
        ended = result != NO_RESULT
        q[result == WINS] = 1.0
        q[result == FILLS] = 0.0
        return [move_of(position, int(c), int(p)) for c, p in zip(cells, pieces)], q, (x, ended)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"weights": self.weights, "pieces": self.pieces}


def model_class(game: Game) -> type[TabularQ] | type[LinearQ]:
    """The Q model `game` is learned with: linear features for 4x4/5x5 Quixo, placements for
    Quarto, else a table."""
    if game.name == "quarto":
        return PlacementQ
    return LinearQ if game.name == "quixo" and game.size >= 4 else TabularQ


class QAgent(Agent):
    """Plays greedily in a Q model (ties by `self.rng`): the trainer's player, and `rl`'s."""

    name = "q"

    def __init__(self, game: Game, *, seed: int, model: TabularQ | LinearQ, store=None):
        super().__init__(game, seed=seed, store=store)
        self.model = model

    def choose(self, position):
        moves, q, _ = self.model.evaluate(position, self.rng)
        return moves[best_index(q, self.rng)]


class RlAgent(QAgent):
    name = "rl"
    summary = ("Q-learning (tabular, or linear in board features on 4x4/5x5 Quixo, in placement features "
               "with a GA piece rule on Quarto) trained with 'retrograde train rl': the move of highest Q")
    options = (Option("params", "the .npz artifact 'retrograde train rl' wrote", None, kind="file"),)

    def __init__(self, game, *, seed: int, store=None, params: Path | None = None):
        if params is None:
            raise BadAgent("rl needs params=FILE (train one with retrograde train rl ...)")
        metadata, arrays = load_artifact(params, "rl", game)
        cls = model_class(game)
        try:
            model = cls(game, **arrays)
        except (TypeError, ValueError) as exc:
            raise BadAgent(f"rl: params={params}: corrupt {cls.kind} Q artifact ({exc})") from None
        super().__init__(game, seed=seed, model=model, store=store)
        self.metadata = metadata
