"""The genetic algorithm behind `retrograde train ga`: the game's own genome (seed 001's Nim
rules, seed 002's Quarto rule), a genome a course report evolved (`genome=NUMBER`: seeds 000
and 003 on Nim), else weights of its board features (`agents.ga`).

Each generation breeds `offspring` children. A child is, with probability `mutant`, a mutant
of one parent (a new random genome, the parent with one gene flipped, or one gene moved a step),
else a crossover of two (each gene from either parent, their mean, or a one-point cut); parents are drawn uniformly (selection=plus)
or by tournament. Then each gene gets Gaussian noise with probability `mutation` (clipped to the
genome's range; with `decimals`, genes are rounded, as seed 002 kept one decimal). Survivors: (mu+lambda) with plus and tournament-plus, the best parent and the
best children with tournament. Fitness is measured once per individual. With fitness=matches
it is the win share (a draw counts half) over `games` seeded matches from the start position
against the opponent agents in turn (or, schedule=rising, the last of them with a chance that
rises over the generations, else the first), each met in both seats in turn (or the genome
always first, seats=first): against random it soon saturates (every genome wins), so it cannot tell genomes
apart. With fitness=exact (the default given --store) it is the share of a sample of the store's
positions, drawn once from the training seed apart from the learning curve's, where the
genome's move keeps the position's value; a genome of feature weights is scored there on the
positions' features, computed once for all the genomes (`FeatureSample`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from retrograde.agents.ga import FeatureWeights, GenomeAgent, genome_of, known_scores
from retrograde.agents.match import play_game
from retrograde.agents.registry import resolve_agents
from retrograde.data.artifact import save_json
from retrograde.errors import BadAgent
from retrograde.games.capabilities import course_of
from retrograde.pipeline.progress import Progress
from retrograde.spec import Option
from retrograde.training.learner import Learner
from retrograde.training.measure import ValueKeptSample

#: A match's result for the individual, and what it scores.
SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}
SWAPPED = {"win": "loss", "draw": "draw", "loss": "win"}
#: The exact fitness sample's stream (the learning curve's sample is another of the same seed).
FITNESS_STREAM = 0xF175
#: Memory of an individual besides three float64 copies of its genes at most (drawn or bred, kept,
#: stacked with the parents): a child's own array and its fitness as Python objects.
INDIVIDUAL_BYTES = 200
#: Memory of a position of the exact fitness's sample: the position, its value-keeping moves and
#: the draws that picked it (a cautious figure: a Nim position and a frozenset of 3 moves take 305).
SAMPLED_BYTES = 1_000
#: Memory of a feature sample's row besides 8 bytes a feature and 9 more a move (whether its value
#: is known, whether it keeps the value): three arrays', a list's and a tuple's headers (`FeatureSample`).
ROW_BYTES = 500


class FeatureSample:
    """The exact fitness's sample as feature weights see it: each position's move features, the
    scores of the moves whose value is known (`known_scores`), and which of its moves keep its
    value, computed once. Only the weights differ between genomes, so each is scored on these rows
    (`FeaturePlayer.pick`) without the game's moves and features at every position again: the same
    moves, the same draws, and so the same fitness as `ValueKeptSample.value_kept`."""

    def __init__(self, rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, list[bool]]]):
        self.rows = rows

    @classmethod
    def of(cls, sample: ValueKeptSample, genome) -> FeatureSample | None:
        """The sample's rows where `genome` is feature weights whose features draw nothing from the
        player's generator at its positions (features may, `Features.__call__`: a player's draws
        then depend on them, and genomes are scored position by position); else None."""
        if not isinstance(genome, FeatureWeights):
            return None
        probe = np.random.default_rng(0)
        state = probe.bit_generator.state
        rows = []
        for position, keep in zip(sample.positions, sample.keep):
            moves, features, exact = genome.features(position, probe)
            if probe.bit_generator.state != state:
                return None
            rows.append((features, *known_scores(exact), [move[0] in keep for move in moves]))
        return cls(rows)

    def value_kept(self, agent: GenomeAgent) -> float:
        """The share of the sample where `agent` (a player of feature weights) keeps the value."""
        pick, rng = agent.player.pick, agent.rng
        kept = sum(keeps[pick(features, known, scores, rng)] for features, known, scores, keeps in self.rows)
        return kept / len(self.rows)


class GaLearner(Learner):
    name = "ga"
    suffix = ".json"
    options = (
        Option("population", "individuals kept each generation (mu)", 20, low=2),
        Option("offspring", "children bred each generation (lambda)", 20, low=1),
        Option("generations", "generations to evolve", 20, low=1),
        Option("selection", "plus: uniform parents, the best mu of parents and children survive; "
                            "tournament: parents by tournament, children replace all but the best parent; "
                            "tournament-plus: parents by tournament, the best mu survive (seeds 000, 003)",
               "plus", kind="choice", choices=("plus", "tournament", "tournament-plus")),
        Option("tournament", "tournament size", 5, low=2),
        Option("crossover", "uniform: each gene from either parent; mean: their average (seed 000); onepoint: the "
                            "genes before a random cut from one parent, the rest from the other (seed 002)", "uniform",
               kind="choice", choices=("uniform", "mean", "onepoint")),
        Option("mutant", "chance that a child is a mutant of one parent instead of a crossover of two", 0.0,
               kind="float", low=0, high=1),
        Option("mutant_kind", "how a mutant differs from its parent: random: a new random genome (seed 000); "
                              "flip: one gene g becomes low + high - g (seed 003); step: one gene moves up or down "
                              "by sigma (seed 002)", "random", kind="choice", choices=("random", "flip", "step")),
        Option("mutation", "chance that a child's gene gets Gaussian noise", 0.15, kind="float", low=0, high=1),
        Option("sigma", "standard deviation of the Gaussian noise (mutant_kind=step: the step)", 0.2, kind="float",
               low=0, high=10),
        Option("decimals", "genes rounded to this many decimals (seed 002: 1); -1: not rounded", -1, low=-1, high=12),
        Option("games", "matches per fitness evaluation", 20, low=1),
        Option("schedule", "turns: the opponents in turn; rising: each match against the first or the last "
                           "opponent, the last with a chance rising from 0 at the first generation to 1 at the last "
                           "(seed 001's difficulty)", "turns", kind="choice", choices=("turns", "rising")),
        Option("seats", "the genome's seat in fitness matches: alternate (each opponent met in both), or first "
                        "(seed 000)", "alternate", kind="choice", choices=("alternate", "first")),
        Option("opponents", "opponent specs, comma-separated in parentheses, played in turn "
                            "(auto: the genome's, random unless the game says otherwise)", "auto", kind="text"),
        Option("plies", "ply cap of a match (a draw when reached)", 200, low=1),
        Option("fitness", "exact: the share of a sample of the store's positions where the genome keeps the "
                          "value; matches: the win share against the opponents; auto: exact given --store",
               "auto", kind="choice", choices=("auto", "exact", "matches")),
        Option("sample", "positions of the exact fitness's sample", 2000, low=1),
        Option("every", "generations between checkpoints (0: a tenth of them)", 0, low=0),
    )

    @classmethod
    def options_for(cls, game):
        if not course_of(game).genomes:
            return cls.options
        return cls.options + (Option("genome", "auto: the game's own (or feature weights); or the number of the "
                                               "course report whose genome to evolve", "auto", kind="choice",
                                     choices=("auto", *course_of(game).genomes)),)

    def __init__(self, game, settings: dict[str, Any], *, store=None, seed: int = 0):
        report = settings.get("genome", "auto")
        if report == "auto" and GenomeAgent.cannot_play(game):
            raise BadAgent(f"ga cannot learn {game.describe()}: {GenomeAgent.cannot_play(game)}")
        self.genome = genome_of(game, None if report == "auto" else report)
        if settings["opponents"] == "auto":
            settings["opponents"] = self.genome.opponents
        # a bad opponent is refused before anything is written
        self.opponents = [opponent for opponent, _ in resolve_agents(settings["opponents"], game, store)]
        settings["opponents"] = ",".join(opponent.spec for opponent in self.opponents)
        if settings["selection"] == "tournament" or settings["selection"] == "tournament-plus":
            if settings["tournament"] > settings["population"]:
                raise BadAgent("ga: tournament must not exceed population")
        if settings["selection"] == "tournament":
            if settings["offspring"] < settings["population"] - 1:
                raise BadAgent("ga: selection=tournament keeps the best parent and population-1 children: "
                               "give offspring >= population - 1")
        if settings["fitness"] == "auto":
            settings["fitness"] = "exact" if store is not None else "matches"
        if settings["fitness"] == "exact" and store is None:
            raise BadAgent("ga: fitness=exact measures genomes on a solved store: give --store STORE")
        super().__init__(game, settings, store=store, seed=seed)
        self.sample = (ValueKeptSample(store, game, seed, settings["sample"], stream=FITNESS_STREAM)
                       if settings["fitness"] == "exact" else None)
        self.rows = FeatureSample.of(self.sample, self.genome) if self.sample is not None else None
        self.names, self.low, self.high = self.genome.names, self.genome.low, self.genome.high
        self.population = np.empty((0, len(self.names)))
        self.fitness = np.empty(0)

    @property
    def total(self) -> int:
        return self.settings["generations"]

    def moves(self):
        settings = self.settings
        evaluations = settings["population"] + settings["generations"] * settings["offspring"]
        how = (f"(population + generations x offspring) x {{}}: ({settings['population']:,} + "
               f"{settings['generations']:,} x {settings['offspring']:,}) x {{}}")
        if settings["fitness"] == "exact":
            return evaluations * settings["sample"], how.format("sample", f"{settings['sample']:,}")
        plies = self.game_plies(settings["plies"])
        return (evaluations * settings["games"] * plies,
                how.format("games x plies", f"{settings['games']:,} x {plies:,}"))

    def memory(self):
        settings = self.settings
        individuals = settings["population"] + settings["offspring"]
        needed = individuals * (3 * 8 * len(self.genome.names) + INDIVIDUAL_BYTES)
        if settings["fitness"] != "exact":
            return needed, f"{individuals:,} individuals (population + offspring)"
        sampled = SAMPLED_BYTES
        if isinstance(self.genome, FeatureWeights):
            moves = self.genome.features.max_moves or self.game.max_moves
            sampled += ROW_BYTES + moves * (8 * len(self.genome.names) + 9)
        return (needed + settings["sample"] * sampled,
                f"{individuals:,} individuals (population + offspring) and a sample of {settings['sample']:,} "
                "positions")

    def _fitness(self, weights: np.ndarray, rng: np.random.Generator, generation: int) -> float:
        """The share of the sample where `weights` keep the value, or their win share (draws half)
        over the seeded matches (of `generation`, 0 for the first population)."""
        seed = int(rng.integers(2**62))
        player = GenomeAgent(self.game, seed=seed, weights=weights, genome=self.genome)
        if self.rows is not None:
            return self.rows.value_kept(player)
        if self.sample is not None:
            return self.sample.value_kept(player)
        start, plies = self.game.initial_position, self.settings["plies"]
        score = 0.0
        rounds = len(self.opponents)
        difficulty = generation / self.settings["generations"]
        for match in range(self.settings["games"]):
            if self.settings["schedule"] == "rising":
                resolved = self.opponents[-1] if rng.random() < difficulty else self.opponents[0]
            else:
                resolved = self.opponents[match % rounds]
            opponent = resolved.build(self.game, seed=seed + 1 + match, store=self.store)
            if self.settings["seats"] == "first" or (match // rounds) % 2 == 0:
                result = play_game(player, opponent, start, max_plies=plies).result
            else:
                result = SWAPPED[play_game(opponent, player, start, max_plies=plies).result]
            score += SCORE[result]
        return score / self.settings["games"]

    def _survive(self, genomes: np.ndarray, fitness: np.ndarray) -> None:
        """Keep the `population` fittest, fittest first (stable: earlier ones win ties)."""
        order = np.argsort(-fitness, kind="stable")[: self.settings["population"]]
        self.population, self.fitness = genomes[order], fitness[order]

    def start(self, rng):
        genomes = rng.uniform(self.low, self.high, (self.settings["population"], len(self.names)))
        if self.settings["decimals"] >= 0:
            genomes = np.round(genomes, self.settings["decimals"])
        self._survive(genomes, np.array([self._fitness(genome, rng, 0) for genome in genomes]))

    def _parent(self, rng: np.random.Generator) -> int:
        size = len(self.population)
        if self.settings["selection"] == "plus":
            return int(rng.integers(size))
        contenders = rng.choice(size, size=self.settings["tournament"], replace=False)
        return int(contenders[np.argmax(self.fitness[contenders])])

    def _mutant(self, rng: np.random.Generator) -> np.ndarray:
        """A mutant of one parent: a new random genome, or the parent with one gene flipped."""
        parent = self.population[self._parent(rng)]
        if self.settings["mutant_kind"] == "random":
            return rng.uniform(self.low, self.high, len(self.names))
        child = parent.copy()
        gene = int(rng.integers(len(child)))
        if self.settings["mutant_kind"] == "flip":
            child[gene] = self.low + self.high - child[gene]
        else:
            child[gene] = np.clip(child[gene] + self.settings["sigma"] * (1 if rng.random() < 0.5 else -1),
                                  self.low, self.high)
        return child

    def _crossover(self, rng: np.random.Generator) -> np.ndarray:
        first, second = self.population[self._parent(rng)], self.population[self._parent(rng)]
        genes = len(self.names)
        if self.settings["crossover"] == "mean":
            return (first + second) / 2
        if self.settings["crossover"] == "onepoint":
            cut = int(rng.integers(1, genes)) if genes > 1 else 1
            return np.concatenate([first[:cut], second[cut:]])
        return np.where(rng.random(genes) < 0.5, first, second)

    def _child(self, rng: np.random.Generator) -> np.ndarray:
        genes = len(self.names)
        mutant = self.settings["mutant"] and rng.random() < self.settings["mutant"]
        child = self._mutant(rng) if mutant else self._crossover(rng)
        if self.settings["mutation"]:
            mutated = rng.random(genes) < self.settings["mutation"]
            child = np.clip(child + mutated * rng.normal(0.0, self.settings["sigma"], genes), self.low, self.high)
        return child if self.settings["decimals"] < 0 else np.round(child, self.settings["decimals"])

    def run(self, start, stop, rng, progress: Progress):
        for generation in range(start, stop):
            children = np.array([self._child(rng) for _ in range(self.settings["offspring"])])
            fitness = np.array([self._fitness(child, rng, generation + 1) for child in children])
            kept = 1 if self.settings["selection"] == "tournament" else len(self.population)
            self._survive(np.vstack([self.population[:kept], children]), np.concatenate([self.fitness[:kept], fitness]))
            progress.advance(1, f"best fitness {self.fitness[0]:.3f}")
        return {"best_fitness": float(self.fitness[0]), "mean_fitness": float(self.fitness.mean())}

    def state(self):
        return {"population": self.population, "fitness": self.fitness}

    def restore(self, arrays):
        self.population, self.fitness = arrays["population"], arrays["fitness"]

    def player(self, seed):
        return GenomeAgent(self.game, seed=seed, weights=self.population[0], genome=self.genome)

    def write(self, out: Path, metadata):
        genome = {"kind": self.genome.kind, "names": list(self.names), "weights": self.population[0].tolist()}
        save_json(out, {**metadata, "genome": genome, "fitness": float(self.fitness[0])})
