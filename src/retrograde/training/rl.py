"""Q-learning behind `retrograde train rl` (seeds 000/001): tabular where the game fits a table,
else linear in the game's board features (`agents.rl`); where the features play part of the move
by a genome of the game's (Quarto hands its pieces over by seed 002's GA rule), the learner takes
the features' genome option: a preset of the game's, or a ga artifact of the game.

Moves are epsilon-greedy with seed 001's GLIE schedule eps_k = b / (b + k), b chosen so that
eps reaches the final `epsilon` at 90% of a phase's episodes, then kept (or, with `decay`, seed
002's eps_k = max(epsilon, decay^k)). `model=sparse` learns a table of the positions met
(`agents.rl.SparseQ`: seed 002's dictionary). Rewards are, by default,
win +1, loss -1, draw 0 (`rewards`: seed 001 used 10/-10/3 on tic-tac-toe, which only a Q table
takes: a linear model knows a game's end exactly on the +1/-1/0 scale). The update is
Q(s, a) += alpha * (target - Q(s, a)).

`opponent` gives the training's phases (`training.learner.Phases`): equal shares of the
episodes, each against a pool of agents, one drawn each episode; `self` is the learner itself,
`copy` its current greedy policy in the other seat, which learns nothing (seed 001's agent_strategy):

* against itself: one Q for both sides (positions are from the mover's view); the target of a
  move is its reward if it ends the game, else -gamma * max Q of the opponent's position
  (which assumes a zero-sum reward: rewards with a draw not 0 learn only against other agents);
* against an agent: the learner plays one seat (`first`: alternating by episode, or drawn) against
  it; the target is the reward if the game ends before the learner moves again, else
  gamma * max Q of the learner's next position.

An episode that reaches the ply cap stops without a final update (endless Quixo play).
Each learning-curve point records the block's final epsilon and the shares of episodes won,
drawn and lost by the learner (in self-play: by the first player).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents.base import Player, best_index
from retrograde.agents.rl import LinearQ, QAgent, SparseQ, TabularQ, load_model, model_class
from retrograde.data.artifact import load_artifact, save_npz
from retrograde.errors import BadAgent
from retrograde.pipeline.progress import Progress
from retrograde.spec import Option
from retrograde.training.learner import Learner, Phases, parse_phases, phase_text

#: The outcome for the side that made the move reaching a terminal position, by that position's
#: outcome (for its side to move).
MOVER = {oc.WIN: oc.LOSS, oc.LOSS: oc.WIN, oc.DRAW: oc.DRAW}
#: The largest reward either way: a Q value is a discounted mean of rewards, and an update takes
#: the difference of a target and a Q value, which must stay within float32 (3.4e38).
MAX_REWARD = float(np.finfo(np.float32).max) / 2


class RlLearner(Learner):
    name = "rl"
    suffix = ".npz"
    options = (
        Option("episodes", "training games, split equally between the phases", 20_000, low=1),
        Option("alpha", "learning rate", 0.1, kind="float", low=0, high=1),
        Option("gamma", "discount factor", 0.9, kind="float", low=0, high=1),
        Option("epsilon", "final exploration rate (GLIE: reached at 90% of each phase's episodes)", 0.1,
               kind="float", low=0, high=0.99),
        Option("opponent", "self (self-play), the spec of the agent to learn against, or phases separated by ';', "
                           "each a comma-separated pool of specs (self among them), one drawn each episode",
               "self", kind="text"),
        Option("rewards", "win/loss/draw rewards of the learner (other than 1/-1/0: Q tables only)", "1/-1/0",
               kind="text"),
        Option("first", "the learner's seat against an agent: alternate by episode, random, always first, or "
                        "never (seed 002)", "alternate", kind="choice", choices=("alternate", "random", "always", "never")),
        Option("decay", "0: GLIE; else epsilon_k = max(epsilon, decay^k), decaying from 1 (seed 002: 0.9995)", 0.0,
               kind="float", low=0, high=0.999999),
        Option("model", "auto: a Q table where one fits, else linear in the board features; sparse: a table of "
                        "the positions met (seed 002)", "auto", kind="choice", choices=("auto", "sparse")),
        Option("plies", "ply cap of an episode", 200, low=1),
        Option("every", "episodes between checkpoints (0: a tenth of them)", 0, low=0),
    )

    @classmethod
    def options_for(cls, game):
        features = game.features if model_class(game) is LinearQ else None
        option = features.genome_option if features is not None else None
        return cls.options + ((option,) if option is not None else ())

    def __init__(self, game, settings: dict[str, Any], *, store=None, seed: int = 0):
        self.model_class = SparseQ if settings["model"] == "sparse" else model_class(game)
        if self.model_class is None:
            raise BadAgent(f"rl cannot learn {game.describe()}: {QAgent.cannot_play(game)}")
        phases = parse_phases(settings["opponent"], game, store)
        settings["opponent"] = phase_text(phases)
        self.rewards = _rewards(settings["rewards"])
        settings["rewards"] = "/".join(f"{reward:g}" for reward in self.rewards.values())
        if self.model_class is LinearQ and tuple(self.rewards.values()) != (1.0, -1.0, 0.0):
            raise BadAgent(f"rl: rewards={settings['rewards']}: a linear Q model learns on the game's "
                           "+1/-1/0 scale; other rewards need a Q table")
        self.model_options = _genome_of_features(game, settings)
        super().__init__(game, settings, store=store, seed=seed)
        self.phases = Phases(phases, settings["episodes"], settings["epsilon"], settings["decay"])
        self.model: TabularQ | LinearQ | SparseQ = self.model_class(game, **self.model_options)

    @property
    def total(self) -> int:
        return self.settings["episodes"]

    def memory(self):
        if self.model_class is TabularQ:
            entries = TabularQ.entries(self.game)
            return 4 * entries, f"a Q table of {entries:,} float32 values"
        if self.model_class is SparseQ:  # a row for each position met: one a move at most
            rows = min(self.moves()[0], TabularQ.rows(self.game))
            return rows * SparseQ.row_bytes(self.game), f"a sparse Q table of up to {rows:,} positions met"
        return 0, ""

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
                model.update(handle, move, self.rewards[MOVER[ended]], alpha)
                first_moved_last = ply % 2 == 0
                return oc.name(MOVER[ended] if first_moved_last else ended)
            pending = (handle, move)
        return "draw"

    def _against(self, opponent: Player, learner_first: bool, epsilon: float, rng: np.random.Generator) -> str:
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
                    model.update(handle, move, self.rewards[MOVER[ended]], alpha)
                    return oc.name(MOVER[ended])
                pending = (handle, move)
            else:
                _, position = opponent.choose(position)
                ended = game.primitive(position)
                if ended:  # the learner is to move: the outcome is its own
                    if pending is not None:
                        model.update(*pending, self.rewards[ended], alpha)
                    return oc.name(ended)
            learner_moves = not learner_moves
        return "draw"

    def start(self, rng):
        self.model = self.model_class(self.game, **self.model_options)

    def run(self, start, stop, rng, progress: Progress):
        pools = self.phases.build(self.game, rng, self.store, copy=self.player)
        results = {"win": 0, "draw": 0, "loss": 0}
        for episode in range(start, stop):
            epsilon = self.phases.epsilon(episode)
            opponent = self.phases.opponent(pools, episode, rng)
            if opponent is None:
                results[self._self_play(epsilon, rng)] += 1
            else:
                seat = self.settings["first"]
                first = (episode % 2 == 0 if seat == "alternate" else bool(rng.integers(2)) if seat == "random"
                         else seat == "always")
                results[self._against(opponent, first, epsilon, rng)] += 1
            progress.advance(1)
        return {"epsilon": self.phases.epsilon(stop - 1),
                **{key: count / (stop - start) for key, count in results.items()}}

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
    """The `genome` of a model playing by the features (linear, sparse), from the setting of their
    genome option: a preset of the features, or a ga artifact of the game ({} where the learner
    takes no such option)."""
    features = game.features
    option = features.genome_option if features is not None else None
    if option is None or option.name not in settings:
        return {}
    value = settings[option.name]
    if value in features.genome_presets:
        return {"genome": features.genome_presets[value]}
    metadata, _ = load_artifact(Path(value), "ga", game)
    try:
        return {"genome": tuple(float(gene) for gene in metadata["genome"]["weights"])}
    except (KeyError, TypeError, ValueError) as exc:
        raise BadAgent(f"rl: {option.name}={value}: corrupt genome ({exc})") from None


def _rewards(text: str) -> dict[int, float]:
    """The learner's reward by its outcome, from WIN/LOSS/DRAW text (BadAgent in one line)."""
    try:
        win, loss, draw = (float(part) for part in text.split("/"))
    except ValueError:
        raise BadAgent(f"rl: rewards={text}: give three numbers WIN/LOSS/DRAW, e.g. 10/-10/3") from None
    if not all(np.isfinite((win, loss, draw))) or not loss <= draw <= win or win <= loss:
        raise BadAgent(f"rl: rewards={text}: a win must be worth more than a loss, a draw between them")
    if max(abs(win), abs(loss)) > MAX_REWARD:
        raise BadAgent(f"rl: rewards={text}: at most {MAX_REWARD:.1e} either way (Q values are float32, and an "
                       "update takes the difference of two)")
    return {oc.WIN: win, oc.LOSS: loss, oc.DRAW: draw}
