"""The `ga` agent: plays the genome `retrograde train ga` evolved (seed 001's Nim genome; feature
weights for Quixo).

* Nim (seed 001): six weights in [0, 1], [random heap, fattest heap, random take, odd take,
  prime take, leave one]. Each move draws a heap rule, then a take rule, each with probability
  proportional to its weights (uniform if they are all 0): random heap / the fattest heap;
  take a random count, a random odd count, a random prime count (1 if none fits), or leave
  one object in the heap (all of a one-object heap; as close as --max-take allows).
* Quixo: one weight in [-1, 1] per board feature (`features`); the agent wins at once if it
  can, never completes the opponent's line unless every move does, and otherwise plays the
  move whose board maximises the weighted features (one ply). Ties are broken by `self.rng`.
* Quarto (seed 002): (alpha, beta) in [0, 1], its piece and placement rule
  (`games.quarto.heuristics`); `minimax=D` plays its GA+minimax hybrid: pieces the opponent
  cannot win with at once, and with fewer than 8 empty cells a forced win found in D plies.
  Without params, `alpha=` and `beta=` give a genome directly (the report's 0.1 and 0.2).

Tic-tac-toe has no GA player in the seeds (they learn it with Q-learning): `ga` declines it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from retrograde.agents.base import Agent
from retrograde.games.quixo.features import LOSS_NOW, WIN_NOW, QuixoFeatures, best_index, feature_names
from retrograde.agents.spec import Option
from retrograde.errors import BadAgent
from retrograde.games.base import Game, Position
from retrograde.games.quarto.heuristics import GaRules
from retrograde.training.artifact import load_artifact

NIM_RULES = ("random_heap", "fattest_heap", "random_take", "odd_take", "prime_take", "leave_one")
QUARTO_GENES = ("alpha", "beta")


def genome_layout(game: Game) -> tuple[tuple[str, ...], float, float]:
    """(gene names, lowest weight, highest weight) of `game`'s genome."""
    if game.name == "nim":
        return NIM_RULES, 0.0, 1.0
    if game.name == "quarto":
        return QUARTO_GENES, 0.0, 1.0
    return feature_names(game.size), -1.0, 1.0


def _draw(weights: np.ndarray, rng: np.random.Generator) -> int:
    """A rule drawn with probability proportional to its weight (uniform if all are 0)."""
    total = weights.sum()
    if total <= 0:
        return int(rng.integers(len(weights)))
    return min(int(np.searchsorted(np.cumsum(weights), rng.random() * total, side="right")), len(weights) - 1)


def _primes_upto(limit: int) -> list[int]:
    return [p for p in range(2, limit + 1) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


class NimRules:
    """Seed 001's rule genome: a heap rule and a take rule, drawn by their weights each move."""

    def __init__(self, game: Game, weights: np.ndarray):
        self.game = game
        self.weights = weights

    def take(self, heaps: Position, rng: np.random.Generator) -> tuple[int, int]:
        """(heap, count) the rules choose (heap 0-based)."""
        filled = [i for i, h in enumerate(heaps) if h]
        if _draw(self.weights[:2], rng) == 0:
            heap = filled[int(rng.integers(len(filled)))]
        else:
            fattest = [i for i in filled if heaps[i] == max(heaps)]
            heap = fattest[int(rng.integers(len(fattest)))] if len(fattest) > 1 else fattest[0]
        size = heaps[heap]
        limit = size if self.game.max_take is None else min(size, self.game.max_take)
        rule = _draw(self.weights[2:], rng)
        if rule == 3:  # leave one
            return heap, size if size == 1 else min(size - 1, limit)
        counts = (list(range(1, limit + 1)), list(range(1, limit + 1, 2)), _primes_upto(limit) or [1])[rule]
        return heap, counts[int(rng.integers(len(counts)))]

    def pick(self, position: Position, moves: list, rng: np.random.Generator) -> int:
        heap, count = self.take(position, rng)
        return [text for text, _ in moves].index(f"{heap + 1}-{count}")


class FeatureWeights:
    """Quixo: win now if possible, else the best weighted features after the move, avoiding
    moves that complete the opponent's line."""

    def __init__(self, game: Game, weights: np.ndarray):
        self.features = QuixoFeatures(game)
        self.weights = weights

    def pick(self, position: Position, moves: list, rng: np.random.Generator) -> int:
        features, result = self.features(position)
        scores = features @ self.weights
        scores[result == WIN_NOW] = np.inf
        scores[result == LOSS_NOW] = -np.inf
        return best_index(scores, rng)


class GenomeAgent(Agent):
    """Plays a genome (the trainer's individuals, and `ga`'s artifact)."""

    name = "genome"

    def __init__(self, game: Game, *, seed: int, weights, store=None, minimax: int = 0):
        super().__init__(game, seed=seed, store=store)
        names, low, high = genome_layout(game)
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (len(names),) or not np.all((weights >= low) & (weights <= high)):
            raise ValueError(f"a genome of {game.name} is {len(names)} weights in [{low:g}, {high:g}]")
        self.weights = weights
        if game.name == "nim":
            self.player = NimRules(game, weights)
        elif game.name == "quarto":
            self.player = GaRules(game, weights, minimax)
        else:
            self.player = FeatureWeights(game, weights)

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        if game.name == "tictactoe":
            return "the seeds evolve no tic-tac-toe player (train rl for it)"
        return None

    def choose(self, position):
        moves = self.game.moves(position)
        return moves[self.player.pick(position, moves, self.rng)]


class GaAgent(GenomeAgent):
    name = "ga"
    summary = ("genetic-algorithm player trained with 'retrograde train ga': seed 001's rule genome "
               "for Nim, evolved feature weights (one ply) for Quixo, seed 002's (alpha, beta) rule for Quarto")
    options = (
        Option("params", "the .json artifact 'retrograde train ga' wrote", None, kind="file"),
        Option("alpha", "quarto, instead of params: chance of handing over the piece most like the board's",
               None, kind="float", low=0, high=1),
        Option("beta", "quarto, instead of params: chance of placing beside two pieces rather than fewer",
               None, kind="float", low=0, high=1),
        Option("minimax", "quarto: seed 002's GA+minimax hybrid searching D plies for a forced win "
                          "below 8 empty cells (0: the plain rule)", 0, low=0, high=16),
    )

    def __init__(self, game, *, seed: int, store=None, params: Path | None = None, alpha: float | None = None,
                 beta: float | None = None, minimax: int = 0):
        direct = alpha is not None or beta is not None
        if game.name != "quarto" and (direct or minimax):
            raise BadAgent(f"ga: alpha=, beta= and minimax= are seed 002's Quarto genome; {game.name} has none")
        if params is not None and direct:
            raise BadAgent("ga: give params=FILE or alpha= and beta=, not both")
        if params is None and (alpha is None or beta is None):
            raise BadAgent("ga needs params=FILE (train one with retrograde train ga ...)" +
                           (", or alpha= and beta=" if game.name == "quarto" else ""))
        if params is None:
            metadata = {"genome": {"kind": "quarto-rule", "names": ["alpha", "beta"], "weights": [alpha, beta]}}
        else:
            metadata, _ = load_artifact(params, "ga", game)
        try:
            super().__init__(game, seed=seed, weights=metadata["genome"]["weights"], store=store, minimax=minimax)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadAgent(f"ga: params={params}: corrupt genome ({exc})") from None
        self.metadata = metadata
