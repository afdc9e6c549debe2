"""The GA's exact fitness scored on features computed once (`training.ga.FeatureSample`) plays
the moves, makes the draws and so gives the fitness of the move-by-move path
(`ValueKeptSample.value_kept` over `GenomeAgent.choose`), and trains the same bytes.

The reference here plays each sampled position from the game's own features, scoring and
breaking ties as the agent's docs say (the weighted features, a win now first, a loss now last,
a draw 0; ties drawn from the agent's generator only where there are several)."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde.agents.ga import FeatureWeights, GenomeAgent
from retrograde.games import make_game
from retrograde.training import train
from retrograde.training.ga import FeatureSample
from retrograde.training.measure import ValueKeptSample

GAMES = [("quixo", {"size": 3}), ("connect4", {"width": 4, "height": 4, "connect": 3})]


def reference_kept(game, sample: ValueKeptSample, weights: np.ndarray, rng: np.random.Generator) -> int:
    """How many of the sample's positions a feature-weights player drawing from `rng` keeps the value at."""
    kept = 0
    for position, keep in zip(sample.positions, sample.keep):
        moves, features, exact = game.features(position, None)
        weighted = features @ weights  # one product over the moves: row by row, the sums' last bits may differ
        scores = [np.inf if e > 0 else -np.inf if e < 0 else 0.0 if e == 0 else float(score)
                  for score, e in zip(weighted, exact)]
        best = [k for k, score in enumerate(scores) if score == max(scores)]
        kept += moves[best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]][0] in keep
    return kept


def genomes(count: int, genes: int, seed: int) -> list[np.ndarray]:
    """Random weights, and weights that tie many moves (zero, one feature, rounded to 0.5)."""
    rng = np.random.default_rng(seed)
    drawn = [rng.uniform(-1, 1, genes) for _ in range(count)]
    return [np.zeros(genes), np.eye(genes)[0], *(np.round(2 * w) / 2 for w in drawn[:3]), *drawn]


@pytest.mark.parametrize("name, params", GAMES)
def test_features_computed_once_give_the_move_by_move_fitness_and_draws(open_solved, name, params):
    game = make_game(name, params)
    sample = ValueKeptSample(open_solved(name, params), game, seed=5, size=400)
    genome = FeatureWeights(game)
    rows = FeatureSample.of(sample, genome)
    assert rows is not None and len(rows.rows) == len(sample.positions)
    tied = 0
    for k, weights in enumerate(genomes(12, len(genome.names), seed=len(name))):
        fast = GenomeAgent(game, seed=k, weights=weights, genome=genome)
        slow = GenomeAgent(game, seed=k, weights=weights, genome=genome)
        reference = np.random.default_rng(k)
        expected = reference_kept(game, sample, weights, reference) / len(sample.positions)
        assert rows.value_kept(fast) == sample.value_kept(slow) == expected
        # the same draws: each generator is where the reference's is
        assert fast.rng.bit_generator.state == slow.rng.bit_generator.state == reference.bit_generator.state
        tied += reference.bit_generator.state != np.random.default_rng(k).bit_generator.state
    assert tied >= 3  # ties were drawn for, not only clear best moves


class DrawingFeatures:
    """A game's features that draw from the player's generator at every seventh position."""

    def __init__(self, features):
        self.features = features
        self.names = features.names
        self.max_moves = features.max_moves
        self.calls = 0

    def __call__(self, position, rng):
        self.calls += 1
        if self.calls % 7 == 0:
            rng.random()
        return self.features(position, rng)


def test_features_that_draw_are_scored_move_by_move(open_solved):
    game = make_game("quixo", {"size": 3})
    sample = ValueKeptSample(open_solved("quixo", {"size": 3}), game, seed=5, size=200)
    genome = FeatureWeights(game)
    genome.features = DrawingFeatures(genome.features)
    assert FeatureSample.of(sample, genome) is None
    nim = make_game("nim", {"heaps": [1, 2, 3]})
    assert FeatureSample.of(ValueKeptSample(open_solved("nim", {"heaps": [1, 2, 3]}), nim, seed=5, size=50),
                            nim.genome) is None  # a game's own genome is not feature weights


def test_training_writes_the_bytes_of_the_move_by_move_fitness(solved, tmp_path, monkeypatch):
    spec, store = "ga:population=6,offspring=6,generations=3,sample=300", solved("quixo", {"size": 3})
    fast = train(spec, "quixo --size 3", tmp_path / "fast.json", seed=3, store=store)
    monkeypatch.setattr(FeatureSample, "of", classmethod(lambda cls, sample, genome: None))
    slow = train(spec, "quixo --size 3", tmp_path / "slow.json", seed=3, store=store)
    assert fast.read_bytes() == slow.read_bytes()
