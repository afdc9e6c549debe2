"""What the training stage asks of a learner (`ga`, `rl`, `dqn`), typing a learner spec's options
(with a course report's settings as defaults: `preset=NUMBER`), and what the Q-learners share:
phases of opponents and seed 001's GLIE exploration rate.

Settings are bounded before anything is drawn or allocated (`Learner.check_cost`): the moves a
training makes at most by `MAX_MOVES` (the time it implies), the memory its state takes up front
by the memory available, and its checkpoints' bytes by `MAX_CHECKPOINT_BYTES`.

A learner advances in units (generations, episodes) drawn from one numpy Generator that the
stage owns and checkpoints; its whole state between units is `state()` (plain arrays), so that
a resumed run continues exactly where the checkpoint was taken.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from retrograde.agents.base import Player
from retrograde.agents.registry import resolve_agents
from retrograde.agents.resolved import ResolvedAgent
from retrograde.data.artifact import UNITS
from retrograde.errors import BadAgent
from retrograde.games.base import Game
from retrograde.games.capabilities import course_of
from retrograde.pipeline.memory import available_memory
from retrograde.pipeline.progress import Progress
from retrograde.spec import AgentSpec, Option, parse_spec_list


#: The longest training started: a week, as for a solve (pipeline.estimate.MAX_SECONDS).
MAX_SECONDS = 7 * 24 * 3600
#: A ceiling on a learner's moves a second: the fastest measured, rl self-play on tic-tac-toe,
#: made 31,000 a second (rl on Nim 1,3,5,7: 9,900; ga matches on it: 12,800), on one core.
MOVES_PER_SECOND = 100_000
#: Moves a training may make at most: a week at that ceiling (60 billion).
MAX_MOVES = MAX_SECONDS * MOVES_PER_SECOND
#: A ceiling on the bytes of checkpoints written a second: save_npz deflated zeros at 248 MB/s
#: (random float32 at 14 MB/s).
CHECKPOINT_BYTES_PER_SECOND = 250_000_000
#: Checkpoint bytes a training may write at most: a week at that ceiling.
MAX_CHECKPOINT_BYTES = MAX_SECONDS * CHECKPOINT_BYTES_PER_SECOND


def count_text(count: int) -> str:
    """A count as a refusal shows it: 1,234 below a billion, else 3.2e+14."""
    return f"{count:,}" if count < 10**9 else f"{count:.1e}"


#: The option naming a course report whose training settings a learner takes (`Course.learner_presets`).
PRESET = "preset"


def typed_options(spec: AgentSpec, declared: tuple[Option, ...], game: Game | None = None) -> dict[str, Any]:
    """The spec's option values, typed and checked, with defaults for those not given: the
    settings of the course report `preset=NUMBER` names (of `game`), else the learner's own.
    A preset stays in the settings, the report it names beside them."""
    by_name = {option.name: option for option in declared}
    given = dict(spec.options)
    preset = given.pop(PRESET, None)
    defaults: dict[str, str] = {}
    if preset is not None:
        presets = course_of(game).learner_presets if game else {}
        offered = {report for learner, report in presets if learner == spec.name}
        if (spec.name, preset.lower()) not in presets:
            raise BadAgent(f"learner {spec.name!r} has no preset {preset!r} for {game.name if game else 'this game'}"
                           + (f": presets: {', '.join(sorted(offered))}" if offered else
                              ": it trains no course report's way here"))
        defaults = presets[(spec.name, preset.lower())]
    values = {}
    for key, text in {**defaults, **given}.items():
        if key not in by_name:
            raise BadAgent(f"learner spec {str(spec)!r}: {spec.name} has no option {key!r} "
                           f"(options: {', '.join([*by_name, PRESET])})")
        values[key] = by_name[key].convert(str(text), str(spec))
    settings = {option.name: values.get(option.name, option.default) for option in declared}
    return {**settings, PRESET: preset.lower()} if preset is not None else settings


#: In a list of opponents: the learner itself (self-play, learning from both seats), and a copy
#: of it (its current greedy policy in the other seat, learning nothing: seed 001's agent_strategy).
SELF, COPY = "self", "copy"


def parse_phases(text: str, game: Game, store) -> list[list[ResolvedAgent | str]]:
    """Training phases of opponents, as an option gives them: phases separated by ';', each a
    comma-separated pool of agent specs, or SELF and COPY (as those words). Each spec is resolved
    and built once for `game`, so that a bad opponent is refused before anything is written."""
    phases = []
    for phase in text.split(";"):
        if not phase.strip():
            raise BadAgent(f"opponents {text!r}: an empty phase (separate phases with ';', a phase's agents with ',')")
        phases.append([spec.name if spec.name in (SELF, COPY) and not spec.options else spec
                       for spec in parse_spec_list(phase)])
    resolved = (agent for agent, _ in resolve_agents([spec for phase in phases for spec in phase
                                                      if spec not in (SELF, COPY)], game, store))
    return [[spec if spec in (SELF, COPY) else next(resolved) for spec in phase] for phase in phases]


def phase_text(phases: list[list[ResolvedAgent | str]]) -> str:
    """The canonical text of `parse_phases`'s result."""
    return ";".join(",".join(spec if isinstance(spec, str) else spec.spec for spec in phase) for phase in phases)


class Phases:
    """Equal shares of a training's episodes, each against a pool of opponents (one drawn each
    episode); each phase is a training of its own for seed 001's GLIE exploration rate, which
    restarts with it."""

    def __init__(self, phases: list[list[ResolvedAgent | str]], episodes: int, final_epsilon: float, decay: float = 0.0):
        self.specs, self.episodes, self.final, self.decay = phases, episodes, final_epsilon, decay

    def bounds(self, episode: int) -> tuple[int, int, int]:
        """(phase, its first episode, its episodes) of episode k (0-based)."""
        count = len(self.specs)
        phase = episode * count // self.episodes
        start = -(-phase * self.episodes // count)
        stop = -(-(phase + 1) * self.episodes // count)
        return phase, start, stop - start

    def epsilon(self, episode: int) -> float:
        """The exploration rate of episode k: GLIE, or decay^k (never below the final rate), within its phase."""
        _, start, length = self.bounds(episode)
        if self.decay:
            return max(self.final, self.decay ** (episode - start))
        return glie(episode - start, length, self.final)

    def build(self, game, rng: np.random.Generator, store, copy) -> list[list[Player | None]]:
        """The phases' opponents as agents, seeded from `rng` (None: the learner itself; `copy(seed)`
        gives the learner's copy)."""
        def agent(spec: ResolvedAgent | str) -> Player | None:
            if spec == SELF:
                return None
            seed = int(rng.integers(2**62))
            return copy(seed) if spec == COPY else spec.build(game, seed=seed, store=store)

        return [[agent(spec) for spec in phase] for phase in self.specs]

    def opponent(self, pools: list[list[Player | None]], episode: int, rng: np.random.Generator) -> Player | None:
        """Episode k's opponent: one of its phase's pool, drawn from `rng` where the pool holds several."""
        pool = pools[self.bounds(episode)[0]]
        return pool[int(rng.integers(len(pool)))] if len(pool) > 1 else pool[0]


def glie(episode: int, episodes: int, final: float) -> float:
    """Seed 001's GLIE exploration rate of episode k (0-based) of `episodes`: b / (b + k), with b
    chosen so that it reaches `final` at 90% of the episodes, and never below `final` after."""
    b = 0.9 * episodes * final / (1 - final)
    return max(b / (b + episode), final) if b > 0 else final


class Learner(ABC):
    """A training algorithm for one game; `settings` are its typed options."""

    name: ClassVar[str]
    #: The artifact's file suffix.
    suffix: ClassVar[str]
    options: ClassVar[tuple[Option, ...]]

    @classmethod
    def options_for(cls, game: Game) -> tuple[Option, ...]:
        """The options the learner takes for `game` (its own, and those the game adds)."""
        return cls.options

    def __init__(self, game: Game, settings: dict[str, Any], *, store=None, seed: int = 0):
        self.game = game
        self.settings = settings
        self.store = store
        #: The training's seed, for what the learner draws once (not from the checkpointed generator).
        self.seed = seed
        self.check_cost()

    def game_plies(self, cap: int) -> int:
        """The longest game the learner plays under a ply cap: the cap, or the game's longest if shorter."""
        return min(cap, self.game.max_remoteness or cap)

    def moves(self) -> tuple[int, str]:
        """(moves the whole training makes at most, how the settings give that count): by default
        each unit is a game (an episode) of at most `plies` plies."""
        plies = self.game_plies(self.settings["plies"])
        return self.total * plies, f"{self.unit} x plies: {self.total:,} x {plies:,}"

    def memory(self) -> tuple[int, str]:
        """(bytes the learner's state takes up front, what holds them); none by default. Each
        checkpoint writes about as many."""
        return 0, ""

    @property
    def every(self) -> int:
        """Units between checkpoints: the `every` setting, or a tenth of the training."""
        return self.settings["every"] or math.ceil(self.total / 10)

    def check_cost(self) -> None:
        """Refuse, in one line naming the limit, settings whose moves exceed `MAX_MOVES` (a week at
        the fastest moves a second), whose state exceeds the memory available, or whose
        checkpoints exceed `MAX_CHECKPOINT_BYTES`: before anything is drawn, allocated or written."""
        moves, how = self.moves()
        if moves > MAX_MOVES:
            raise BadAgent(f"{self.name}: up to {count_text(moves)} moves ({how}), over the {count_text(MAX_MOVES)} a "
                           f"training may make (a week at {MOVES_PER_SECOND:,} moves a second)")
        needed, what = self.memory()
        available = available_memory()
        if needed > available:
            raise BadAgent(f"{self.name}: {what} would take {count_text(needed)} bytes, over the "
                           f"{count_text(available)} bytes of memory available")
        checkpoints = math.ceil(self.total / self.every)
        if checkpoints * needed > MAX_CHECKPOINT_BYTES:
            raise BadAgent(f"{self.name}: {checkpoints:,} checkpoints (every={self.every:,}) of {what}, "
                           f"{count_text(needed)} bytes each, over the {count_text(MAX_CHECKPOINT_BYTES)} bytes a "
                           f"training may write (a week at {CHECKPOINT_BYTES_PER_SECOND:,} a second): "
                           "give a larger every")

    @property
    def unit(self) -> str:
        """What one unit of training is (generations, episodes), for progress and the learning curve."""
        return UNITS[self.name]

    @property
    @abstractmethod
    def total(self) -> int:
        """Units in the whole training."""

    @property
    def work(self) -> int:
        """A rough measure of the whole training's work (the moves it makes at most, and more for a
        costlier move), to start the longest trainings first."""
        return self.moves()[0]

    @abstractmethod
    def start(self, rng: np.random.Generator) -> None:
        """Set up the initial state (a fresh run)."""

    @abstractmethod
    def run(self, start: int, stop: int, rng: np.random.Generator, progress: Progress) -> dict[str, float]:
        """Train units start..stop-1; return what the learning curve records for them."""

    @abstractmethod
    def state(self) -> dict[str, np.ndarray]:
        """The learner's whole state as arrays (a checkpoint)."""

    @abstractmethod
    def restore(self, arrays: dict[str, np.ndarray]) -> None:
        """Take up the state `state()` gave."""

    @abstractmethod
    def player(self, seed: int) -> Player:
        """An agent playing the learner's current best policy."""

    @abstractmethod
    def write(self, out: Path, metadata: dict[str, Any]) -> None:
        """Write the artifact (`metadata` is the stage's record: game, seed, settings, curve)."""
