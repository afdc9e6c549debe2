"""What the training stage asks of a learner (`ga`, `rl`), and typing a learner spec's options.

A learner advances in units (generations, episodes) drawn from one numpy Generator that the
stage owns and checkpoints; its whole state between units is `state()` (plain arrays), so that
a resumed run continues exactly where the checkpoint was taken.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from retrograde.agents.base import Agent
from retrograde.data.artifact import UNITS
from retrograde.errors import BadAgent
from retrograde.games.base import Game
from retrograde.pipeline.progress import Progress
from retrograde.spec import AgentSpec, Option


def typed_options(spec: AgentSpec, declared: tuple[Option, ...]) -> dict[str, Any]:
    """The spec's option values, typed and checked, with defaults for those not given."""
    by_name = {option.name: option for option in declared}
    values = {}
    for key, text in spec.options:
        if key not in by_name:
            raise BadAgent(f"learner spec {str(spec)!r}: {spec.name} has no option {key!r} "
                           f"(options: {', '.join(by_name)})")
        values[key] = by_name[key].convert(str(text), str(spec))
    return {option.name: values.get(option.name, option.default) for option in declared}


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

    @property
    def unit(self) -> str:
        """What one unit of training is (generations, episodes), for progress and the learning curve."""
        return UNITS[self.name]

    @property
    @abstractmethod
    def total(self) -> int:
        """Units in the whole training."""

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
    def player(self, seed: int) -> Agent:
        """An agent playing the learner's current best policy."""

    @abstractmethod
    def write(self, out: Path, metadata: dict[str, Any]) -> None:
        """Write the artifact (`metadata` is the stage's record: game, seed, settings, curve)."""
