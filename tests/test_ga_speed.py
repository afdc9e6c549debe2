"""Agents made faster without a move changed (issue 34): the GA's exact fitness scored on
features computed once (`training.ga.FeatureSample`) plays the moves, makes the draws and so gives
the fitness of the move-by-move path (`ValueKeptSample.value_kept` over `GenomeAgent.choose`), and
trains the same bytes; mcts's playout kernels resolved once (`mcts_kernels.Resolved`) search as
the jitted functions numba looks up at every call do.

The reference here plays each sampled position from the game's own features, scoring and
breaking ties as the agent's docs say (the weighted features, a win now first, a loss now last,
a draw 0; ties drawn from the agent's generator only where there are several)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from retrograde.agents.ga import FeatureWeights, GenomeAgent
from retrograde.agents.mcts_kernels import resolved, uct_visits
from retrograde.games import make_game
from retrograde.training import train
from retrograde.training.ga import FeatureSample
from retrograde.search.playouts import playouts_of
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


def walk(game, count: int, seed: int) -> list:
    """`count` non-terminal positions of seeded random games."""
    rng, positions, position = np.random.default_rng(seed), [], game.initial_position
    while len(positions) < count:
        if game.primitive(position):
            position = game.initial_position
        positions.append(position)
        moves = game.moves(position)
        position = moves[rng.integers(len(moves))][1]
    return positions


@pytest.mark.parametrize("name, params", [("quixo", {"size": 4}), ("connect4", {"width": 5, "height": 4}),
                                          ("quarto", {})])  # quarto: the generic playouts, in Python
def test_resolved_playout_kernels_search_as_the_jitted_ones(name, params):
    game = make_game(name, params)
    playouts = playouts_of(game)
    given = [playouts.kernels, resolved(playouts)]
    if game.playouts is not None:  # a copy in another process resolves them anew (the generic ones are
        given.append(pickle.loads(pickle.dumps(given[1])))  # closures, which are never copied)
    for k, position in enumerate(walk(game, 12 if game.playouts is None else 60, seed=7)):
        visits = []
        for kernels in given:
            a, b = playouts.encode(position)
            visits.append(uct_visits(*kernels, a, b, 200, 1.4, 60, game.max_moves, k).tolist())
        assert all(found == visits[0] for found in visits) and sum(visits[0]) == 200
