"""The `ga` agent: plays the genome `retrograde train ga` evolved.

A game with a GA genome of its own (its `genome` hook: Nim's rule weights, Quarto's piece and
cell rule) plays it as the game says. Any other game with board features (its `features` hook)
evolves one weight in [-1, 1] per feature: the agent wins at once if it can, never ends the
game with a loss unless every move does, and otherwise plays the move whose board maximises the
weighted features (one ply); a move ending in a draw scores 0. Ties are broken by `self.rng`.
A genome's options named like its genes give the genome without an artifact. An artifact may
hold a genome a course report evolved (`Course.genomes`: report 000's and 003's Nim
strategies), which its kind names; the agent then plays that report's player of it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from retrograde.agents.base import Player, best_index
from retrograde.data.artifact import load_artifact
from retrograde.errors import BadAgent
from retrograde.games.base import Game
from retrograde.games.capabilities import Features, Genome, GenomePlayer, course_of
from retrograde.spec import Option


class FeaturePlayer(GenomePlayer):
    """One ply over the game's board features: a win now, never a loss now while another move
    avoids it, else the best weighted features."""

    def __init__(self, features: Features, weights: np.ndarray):
        self.features = features
        self.weights = weights

    def choose(self, position, rng):
        moves, features, exact = self.features(position, rng)
        return moves[self.pick(features, *known_scores(exact), rng)]

    def pick(self, features: np.ndarray, known: np.ndarray, scores: np.ndarray, rng: np.random.Generator) -> int:
        """The index of the move played among moves with these `features`, those where `known` scored
        `scores` (`known_scores`), ties broken by `rng`: what `choose` plays, apart from the
        features, so that the GA's exact fitness can compute a sample's features once for all its
        genomes (`training.ga.FeatureSample`)."""
        weighted = features @ self.weights
        weighted[known] = scores
        return best_index(weighted, rng)


def known_scores(exact: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which moves, their scores) of the moves whose value the features know (`exact` not NaN): a
    win now scores inf, a loss now -inf, a draw 0, whatever the weights."""
    known = ~np.isnan(exact)
    return known, np.where(exact[known] > 0, np.inf, np.where(exact[known] < 0, -np.inf, 0.0))


class FeatureWeights(Genome):
    """The genome of a game without one of its own: a weight in [-1, 1] per board feature."""

    low, high = -1.0, 1.0

    def __init__(self, game: Game):
        super().__init__(game)
        #: The game's features, built once for all the genome's players (a GA builds hundreds).
        self.features = game.features
        self.names = tuple(self.features.names)
        self.kind = f"{game.name}-features"

    def player(self, weights, **options):
        return FeaturePlayer(self.features, weights)


def genome_of(game: Game, report: str | None = None) -> Genome | None:
    """The genome `ga` evolves for `game`: course report `report`'s (`Course.genomes`) if
    given, else the game's own, else feature weights, else None."""
    if report is not None:
        return course_of(game).genomes[report](game)
    own = game.genome
    if own is not None:
        return own
    return FeatureWeights(game) if game.features is not None else None


def genome_of_kind(game: Game, kind: str) -> Genome | None:
    """The genome of `game` an artifact names by its kind (the default one, or a report's)."""
    for genome in (genome_of(game), *(genome(game) for genome in course_of(game).genomes.values())):
        if genome is not None and genome.kind == kind:
            return genome
    return None


class GenomeAgent(Player):
    """Plays a genome's `weights` (the trainer's individuals, and `ga`'s artifact)."""

    name = "genome"

    def __init__(self, game: Game, *, seed: int, weights, store=None, genome: Genome | None = None, **options):
        super().__init__(game, seed=seed, store=store)
        genome = genome or genome_of(game)
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (len(genome.names),) or not np.all((weights >= genome.low) & (weights <= genome.high)):
            raise ValueError(f"a genome of {game.name} is {len(genome.names)} weights in "
                             f"[{genome.low:g}, {genome.high:g}]")
        self.weights = weights
        self.player = genome.player(weights, **options)

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        if genome_of(game) is None:
            return "the game gives no GA genome and no board features (train rl for it)"
        return None

    def choose(self, position):
        return self.player.choose(position, self.rng)

    def move_distribution(self, position):
        return self.player.distribution(position)


class GaAgent(GenomeAgent):
    name = "ga"
    summary = ("genetic-algorithm player trained with 'retrograde train ga': the game's own genome, or "
               "evolved weights of its board features (one ply)")
    options = (Option("params", "the .json artifact 'retrograde train ga' wrote", None, kind="file"),)

    @classmethod
    def options_for(cls, game):
        genome = genome_of(game)
        return cls.options + (genome.options if genome is not None else ())

    def __init__(self, game, *, seed: int, store=None, params: Path | None = None, **options):
        genome = genome_of(game)
        genes = {name: options.pop(name) for name in genome.names if name in options}
        given = [name for name, value in genes.items() if value is not None]
        direct = " and ".join(f"{name}=" for name in genes)
        if params is not None and given:
            raise BadAgent(f"ga: give params=FILE or {direct}, not both")
        if params is None and (not genes or len(given) < len(genes)):
            raise BadAgent("ga needs params=FILE (train one with retrograde train ga ...)" +
                           (f", or {direct}" if genes else ""))
        if params is None:
            metadata = {"genome": {"kind": genome.kind, "names": list(genome.names),
                                   "weights": [genes[name] for name in genome.names]}}
        else:
            metadata, _ = load_artifact(params, "ga", game)
        try:
            played = genome_of_kind(game, metadata["genome"]["kind"])
            if played is None:
                raise ValueError(f"{game.name} has no genome of kind {metadata['genome']['kind']!r}")
            if list(metadata["genome"]["names"]) != list(played.names):
                raise ValueError(f"genes {metadata['genome']['names']}, a {played.kind} genome has "
                                 f"{list(played.names)}")
            options = options if played.kind == genome.kind else {}  # a report's genome takes none
            super().__init__(game, seed=seed, weights=metadata["genome"]["weights"], store=store, genome=played,
                             **options)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadAgent(f"ga: params={params}: corrupt genome ({exc})") from None
        self.metadata = metadata
