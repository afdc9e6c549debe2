"""Q-learning behind `retrograde train rl` (seeds 000/001): tabular where the game fits a table,
else linear in the game's board features (`agents.rl`); where the features play part of the move
by a genome of the game's (Quarto hands its pieces over by seed 002's GA rule), the learner takes
the features' genome option: a preset of the game's, or a ga artifact of the game.

Moves are epsilon-greedy with seed 001's GLIE schedule eps_k = b / (b + k), b chosen so that
eps reaches the final `epsilon` at 90% of the episodes, then kept. Rewards are win +1, loss -1,
draw 0 for every game (seed 001 used 10/-10/3 on tic-tac-toe; a draw worth 0 keeps Q on the
game's value scale, which the learning curve measures). The update is
Q(s, a) += alpha * (target - Q(s, a)):

* opponent=self: one Q for both sides (positions are from the mover's view); the target of a
  move is its reward if it ends the game, else -gamma * max Q of the opponent's position;
* opponent=SPEC: the learner plays one seat (alternating by episode) against that agent; the
  target is the reward if the game ends before the learner moves again, else
  gamma * max Q of the learner's next position.

An episode that reaches the ply cap stops without a final update (endless Quixo play).
Each learning-curve point records the block's final epsilon and the shares of episodes won,
drawn and lost by the learner (with self-play: by the first player).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from retrograde.agents.base import Agent, best_index
from retrograde.agents.registry import build_agent
from retrograde.agents.rl import REWARD, LinearQ, QAgent, TabularQ, load_model, model_class
from retrograde.data.artifact import load_artifact, save_npz
from retrograde.errors import BadAgent
from retrograde.pipeline.progress import Progress
from retrograde.spec import Option, parse_spec
from retrograde.training.learner import Learner


class RlLearner(Learner):
    name = "rl"
    suffix = ".npz"
    options = (
        Option("episodes", "training games", 20_000, low=1),
        Option("alpha", "learning rate", 0.1, kind="float", low=0, high=1),
        Option("gamma", "discount factor", 0.9, kind="float", low=0, high=1),
        Option("epsilon", "final exploration rate (GLIE: reached at 90% of the episodes)", 0.1,
               kind="float", low=0, high=0.99),
        Option("opponent", "self (self-play) or the spec of the agent to learn against", "self", kind="text"),
        Option("plies", "ply cap of an episode", 200, low=1),
        Option("every", "episodes between checkpoints (0: a tenth of them)", 0, low=0),
    )

    @classmethod
    def options_for(cls, game):
        features = game.features() if model_class(game) is LinearQ else None
        option = features.genome_option if features is not None else None
        return cls.options + ((option,) if option is not None else ())

    def __init__(self, game, settings: dict[str, Any], *, store=None, seed: int = 0):
        self.model_class = model_class(game)
        if self.model_class is None:
            raise BadAgent(f"rl cannot learn {game.describe()}: {QAgent.cannot_play(game)}")
        self.opponent = None if settings["opponent"].lower() == "self" else parse_spec(settings["opponent"])
        if self.opponent is not None:  # a bad opponent is refused before anything is written
            build_agent(self.opponent, game, seed=0, store=store)
        settings["opponent"] = str(self.opponent or "self")
        self.model_options = _genome_of_features(game, settings)
        super().__init__(game, settings, store=store, seed=seed)
        final, episodes = settings["epsilon"], settings["episodes"]
        self.b = 0.9 * episodes * final / (1 - final)
        self.model: TabularQ | LinearQ = self.model_class(game, **self.model_options)

    @property
    def total(self) -> int:
        return self.settings["episodes"]

    def epsilon(self, episode: int) -> float:
        """GLIE exploration rate of episode k (0-based): b / (b + k), never below the final one."""
        final = self.settings["epsilon"]
        return max(self.b / (self.b + episode), final) if self.b > 0 else final

    def _move(self, q: np.ndarray, epsilon: float, rng: np.random.Generator) -> int:
        """Epsilon-greedy: a random move with probability epsilon, else the best (ties at random)."""
        if rng.random() < epsilon:
            return int(rng.integers(len(q)))
        return best_index(q, rng)

    def _self_play(self, epsilon: float, rng: np.random.Generator) -> str:
        """One self-play episode; returns the first player's result."""
        game, model = self.game, self.model
        alpha, gamma = self.settings["alpha"], self.settings["gamma"]
        position, pending = game.initial_position, None
        for ply in range(self.settings["plies"]):
            moves, q, handle = model.evaluate(position, rng)
            if pending is not None:
                model.update(*pending, -gamma * q.max(), alpha)
            move = self._move(q, epsilon, rng)
            position = moves[move][1]
            ended = game.primitive(position)
            if ended:
                reward = -REWARD[ended]  # the position's side to move is the other player
                model.update(handle, move, reward, alpha)
                first_moved_last = ply % 2 == 0
                return _result(reward if first_moved_last else -reward)
            pending = (handle, move)
        return "draw"

    def _against(self, opponent: Agent, learner_first: bool, epsilon: float, rng: np.random.Generator) -> str:
        """One episode against `opponent`; returns the learner's result."""
        game, model = self.game, self.model
        alpha, gamma = self.settings["alpha"], self.settings["gamma"]
        position, pending = game.initial_position, None
        learner_moves = learner_first
        for _ in range(self.settings["plies"]):
            if learner_moves:
                moves, q, handle = model.evaluate(position, rng)
                if pending is not None:
                    model.update(*pending, gamma * q.max(), alpha)
                move = self._move(q, epsilon, rng)
                position = moves[move][1]
                ended = game.primitive(position)
                if ended:
                    model.update(handle, move, -REWARD[ended], alpha)
                    return _result(-REWARD[ended])
                pending = (handle, move)
            else:
                _, position = opponent.choose(position)
                ended = game.primitive(position)
                if ended:  # the learner is to move: the outcome is its own
                    if pending is not None:
                        model.update(*pending, REWARD[ended], alpha)
                    return _result(REWARD[ended])
            learner_moves = not learner_moves
        return "draw"

    def start(self, rng):
        self.model = self.model_class(self.game, **self.model_options)

    def run(self, start, stop, rng, progress: Progress):
        opponent = (None if self.opponent is None else
                    build_agent(self.opponent, self.game, seed=int(rng.integers(2**62)), store=self.store))
        results = {"win": 0, "draw": 0, "loss": 0}
        for episode in range(start, stop):
            epsilon = self.epsilon(episode)
            if opponent is None:
                results[self._self_play(epsilon, rng)] += 1
            else:
                results[self._against(opponent, episode % 2 == 0, epsilon, rng)] += 1
            progress.advance(1)
        return {"epsilon": self.epsilon(stop - 1), **{key: count / (stop - start) for key, count in results.items()}}

    def state(self):
        return self.model.arrays()

    def restore(self, arrays):
        self.model = load_model(self.game, arrays)

    def player(self, seed):
        return QAgent(self.game, seed=seed, model=self.model)

    def write(self, out: Path, metadata):
        extra: dict[str, Any] = {"model": self.model.kind}
        if isinstance(self.model, LinearQ):
            extra["features"] = [*self.model.features.names, "bias"]
        save_npz(out, self.model.arrays(), {**metadata, **extra})


def _genome_of_features(game, settings: dict[str, Any]) -> dict[str, Any]:
    """The linear model's `genome`, from the setting of its features' genome option: a preset of
    the features, or a ga artifact of the game ({} where the features have no such option)."""
    features = game.features() if model_class(game) is LinearQ else None
    option = features.genome_option if features is not None else None
    if option is None:
        return {}
    value = settings[option.name]
    if value in features.genome_presets:
        return {"genome": features.genome_presets[value]}
    metadata, _ = load_artifact(Path(value), "ga", game)
    try:
        return {"genome": tuple(float(gene) for gene in metadata["genome"]["weights"])}
    except (KeyError, TypeError, ValueError) as exc:
        raise BadAgent(f"rl: {option.name}={value}: corrupt genome ({exc})") from None


def _result(reward: float) -> str:
    return "win" if reward > 0 else "loss" if reward < 0 else "draw"
