"""Deep Q-learning behind `retrograde train dqn` (report 001, §5.3): the Q network of `agents.qnet`
learns against opponents in phases, from experience replay, with Adam steps that JAX computes
(optax: the extra `dqn`).

As report 001's text describes it: the network has N*N inputs, one hidden layer of 256 units and
4N outputs (`outputs=line`, each output the push its code gives it: `games.quixo.network_input`);
ours has one output per move instead (`outputs=move`, the default), so that every move can be
played; either is recorded in the artifact's settings. Training runs three equal phases, against random, against random and minimax
depth 2 (one drawn each episode), then against minimax depth 2 (`opponents`: `training.learner.Phases`);
moves are epsilon-greedy with seed 001's GLIE schedule, restarting with each phase; a game the
learner wins is worth +(200 - plies), a lost one -(200 - plies), anything else 0 (here divided by
200, which changes no choice and keeps Adam's steps in scale). What the report leaves open is an
option: the discount `gamma`, the learning rate, the replay size and batch, and the target
network, copied from the learner's every `sync` steps. The learner's seat alternates by episode.

After each of its moves the learner stores the transition (board, action, reward, next board of
its own, its legal actions there, whether the game ended) in the replay memory, and once that
holds a batch takes one Adam step on a batch drawn from it, toward
r + gamma * max Q_target(next board) over the legal actions (r alone at a game's end), with the
Huber loss. An episode that reaches the ply cap stops without a final transition.
Every draw comes from the stage's generator, and the network's, target's, optimizer's and replay
memory's arrays are the checkpoint, so that a resumed run gives the same bytes.

JAX works with the stop signals held (`agents.qnet.StopSignalsHeld`): a Ctrl-C that interrupted
its wait for a compilation crashed the exit (SIGSEGV). Setting the state up holds them, and an
episode's steps do, a held signal delivered between episodes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents.base import Player
from retrograde.agents.dqn import NetworkAgent
from retrograde.agents.qnet import (MOVE, WEIGHTS, QNetwork, StopSignalsHeld, forward, initial_weights, jax_modules,
                                    output_layer)
from retrograde.agents.rl import REWARD
from retrograde.data.artifact import save_npz
from retrograde.errors import BadAgent
from retrograde.pipeline.progress import Progress
from retrograde.spec import Option
from retrograde.training.learner import SELF, Learner, Phases, parse_phases, phase_text
from retrograde.training.rl import MOVER

#: Seed 001's opponents: three phases.
PHASES = "random;random,minimax:depth=2;minimax:depth=2"
#: Seed 001's reward: (REWARD_PLIES - plies) for a win, its negative for a loss (divided by REWARD_PLIES).
REWARD_PLIES = 200
#: Replay-memory arrays: (name, dtype); boards are (capacity, inputs), legal actions (capacity, actions).
MEMORY = (("board", np.float32), ("action", np.int32), ("reward", np.float32), ("next_board", np.float32),
          ("next_legal", np.bool_), ("done", np.bool_))


@cache
def _training_step(gamma: float, rate: float):
    """(optimizer, jitted step(weights, target, optimizer state, batch) -> (weights, optimizer state))."""
    jax, jnp, optax = jax_modules()
    optimizer = optax.adam(rate)
    q_values = forward()

    def loss(weights, target, board, action, reward, next_board, next_legal, done):
        q = q_values(weights, board)[jnp.arange(action.shape[0]), action]
        best_next = jnp.where(next_legal, q_values(target, next_board), -jnp.inf).max(axis=1)
        goal = reward + gamma * jnp.where(done, 0.0, best_next)
        return optax.huber_loss(q, jax.lax.stop_gradient(goal)).mean()

    @jax.jit
    def step(weights, target, state, batch):
        gradients = jax.grad(loss)(weights, target, *batch)
        updates, state = optimizer.update(gradients, state, weights)
        return optax.apply_updates(weights, updates), state

    return optimizer, step


class DqnLearner(Learner):
    name = "dqn"
    suffix = ".npz"
    options = (
        Option("episodes", "training games, split equally between the phases", 300_000, low=1),
        Option("opponents", "the phases' opponents: phases separated by ';', each a comma-separated list of "
                            "agent specs, one drawn each episode", PHASES, kind="text"),
        Option("hidden", "units of the hidden layer", 256, low=1, high=4096),
        Option("outputs", "the output layer: move, one output per move (ours), or one the game offers besides "
                          "(line: report 001's 4N pushes of a whole row or column, the only moves it plays)",
               MOVE, kind="text"),
        Option("gamma", "discount factor", 0.9, kind="float", low=0, high=1),
        Option("rate", "Adam's learning rate", 0.001, kind="float", low=0, high=1),
        Option("epsilon", "final exploration rate (GLIE: reached at 90% of the episodes)", 0.1,
               kind="float", low=0, high=0.99),
        Option("memory", "transitions the replay memory keeps", 10_000, low=1, high=10_000_000),
        Option("batch", "transitions of an Adam step", 64, low=1, high=4096),
        Option("sync", "Adam steps between copies of the weights into the target network (0: no target "
                       "network)", 1_000, low=0),
        Option("plies", "ply cap of an episode", 200, low=1, high=REWARD_PLIES),
        Option("every", "episodes between checkpoints (0: a tenth of them)", 0, low=0),
    )

    def __init__(self, game, settings: dict[str, Any], *, store=None, seed: int = 0):
        if game.network_input is None:
            raise BadAgent(f"dqn cannot learn {game.describe()}: {NetworkAgent.cannot_play(game)}")
        try:
            self.network_input = output_layer(game.network_input, settings["outputs"])
        except ValueError as exc:
            raise BadAgent(f"dqn cannot learn {game.describe()}: {exc}") from None
        jax_modules()
        phases = parse_phases(settings["opponents"], game, store)
        if any(SELF in phase for phase in phases):
            raise BadAgent("dqn learns against other agents: 'self' is not one of its opponents (its copy is)")
        settings["opponents"] = phase_text(phases)
        if settings["batch"] > settings["memory"]:
            raise BadAgent(f"dqn: batch={settings['batch']} is more than the memory={settings['memory']} transitions "
                           "it is drawn from (it would never learn)")
        super().__init__(game, settings, store=store, seed=seed)
        self.phases = Phases(phases, settings["episodes"], settings["epsilon"])
        self.optimizer, self.step = _training_step(settings["gamma"], settings["rate"])

    @property
    def total(self) -> int:
        return self.settings["episodes"]

    @property
    def work(self) -> int:
        return super().work * 30  # a network's forward pass and an Adam step a move, each dearer than a table's

    def memory(self):
        inputs, actions = self.network_input.inputs, self.network_input.actions
        transition = sum(np.dtype(dtype).itemsize * {"board": inputs, "next_board": inputs,
                                                       "next_legal": actions}.get(name, 1) for name, dtype in MEMORY)
        return (self.settings["memory"] * transition,
                f"a replay memory of {self.settings['memory']:,} transitions of {transition:,} bytes")

    def start(self, rng):
        weights = initial_weights(self.network_input.inputs, self.settings["hidden"], self.network_input.actions, rng)
        capacity, inputs, actions = self.settings["memory"], self.network_input.inputs, self.network_input.actions
        shapes = {"board": (capacity, inputs), "next_board": (capacity, inputs), "next_legal": (capacity, actions)}
        memory = {name: np.zeros(shapes.get(name, (capacity,)), dtype) for name, dtype in MEMORY}
        self._take_up(weights, weights, None, memory, np.zeros(3, np.int64))

    def _take_up(self, weights, target, optimizer_leaves, memory, counters) -> None:
        """Set the learner's state from arrays (a fresh start: no optimizer leaves); JAX compiles
        Adam's initial state and the arrays' conversions, with the stop signals held."""
        jax, jnp, _ = jax_modules()
        with StopSignalsHeld():
            self.network = QNetwork(self.network_input, weights)
            self.target = {name: jnp.asarray(target[name]) for name in WEIGHTS}
            state = self.optimizer.init(self.network.weights)
            if optimizer_leaves is not None:
                leaves, structure = jax.tree_util.tree_flatten(state)
                if len(optimizer_leaves) != len(leaves):
                    raise ValueError(f"{len(optimizer_leaves)} optimizer arrays, Adam keeps {len(leaves)}")
                state = jax.tree_util.tree_unflatten(structure, [jnp.asarray(leaf) for leaf in optimizer_leaves])
        self.optimizer_state = state
        self.memory = memory
        #: transitions stored so far, the next slot to write, Adam steps taken
        self.stored, self.cursor, self.steps = (int(count) for count in counters)

    def _remember(self, board, action, reward, next_board, next_actions, done) -> None:
        slot = self.cursor
        memory = self.memory
        memory["board"][slot], memory["action"][slot], memory["reward"][slot] = board, action, reward
        memory["next_board"][slot] = next_board
        memory["next_legal"][slot] = False
        memory["next_legal"][slot, next_actions] = True
        memory["done"][slot] = done
        self.cursor = (slot + 1) % self.settings["memory"]
        self.stored += 1

    def _learn(self, rng: np.random.Generator) -> None:
        """One Adam step on a batch drawn from the replay memory (once it holds a batch)."""
        filled, batch = min(self.stored, self.settings["memory"]), self.settings["batch"]
        if filled < batch:
            return
        picks = rng.integers(filled, size=batch)
        arrays = tuple(self.memory[name][picks] for name, _ in MEMORY)
        self.network.weights, self.optimizer_state = self.step(self.network.weights, self.target,
                                                               self.optimizer_state, arrays)
        self.steps += 1
        if self.settings["sync"] and self.steps % self.settings["sync"] == 0:
            self.target = dict(self.network.weights)

    def _choose(self, position, epsilon: float, rng: np.random.Generator):
        """(moves, board, actions, index of the move played): epsilon-greedy in the network's Q."""
        moves, board, actions = self.network_input(position)
        if rng.random() < epsilon:
            return moves, board, actions, int(rng.integers(len(moves)))
        q = self.network.q(board)[actions]
        return moves, board, actions, int(np.argmax(q))

    def _episode(self, opponent: Player, learner_first: bool, epsilon: float, rng: np.random.Generator) -> str:
        """One episode against `opponent`; returns the learner's result."""
        game = self.game
        position, pending = game.initial_position, None
        learner_moves = learner_first
        for ply in range(1, self.settings["plies"] + 1):
            scale = (REWARD_PLIES - ply) / REWARD_PLIES
            if learner_moves:
                moves, board, actions, pick = self._choose(position, epsilon, rng)
                if pending is not None:
                    self._remember(*pending, 0.0, board, actions, False)
                    self._learn(rng)
                position = moves[pick][1]
                ended = game.primitive(position)
                if ended:
                    reward = REWARD[MOVER[ended]]
                    self._remember(board, actions[pick], reward * scale, board, actions[:0], True)
                    self._learn(rng)
                    return oc.name(MOVER[ended])
                pending = (board, actions[pick])
            else:
                _, position = opponent.choose(position)
                ended = game.primitive(position)
                if ended:  # the learner is to move: the outcome is its own
                    if pending is not None:
                        self._remember(*pending, REWARD[ended] * scale, pending[0], actions[:0], True)
                        self._learn(rng)
                    return oc.name(ended)
            learner_moves = not learner_moves
        return "draw"

    def run(self, start, stop, rng, progress: Progress):
        pools = self.phases.build(self.game, rng, self.store, copy=self.player)
        results = {"win": 0, "draw": 0, "loss": 0}
        with StopSignalsHeld() as held:  # the Adam step compiles in the first episode that learns
            for episode in range(start, stop):
                opponent = self.phases.opponent(pools, episode, rng)
                results[self._episode(opponent, episode % 2 == 0, self.phases.epsilon(episode), rng)] += 1
                progress.advance(1)
                held.deliver()
        return {"epsilon": self.phases.epsilon(stop - 1),
                **{key: count / (stop - start) for key, count in results.items()}}

    def state(self):
        jax, _, _ = jax_modules()
        leaves = jax.tree_util.tree_leaves(self.optimizer_state)
        return {**self.network.arrays(), **{f"target_{name}": np.asarray(self.target[name]) for name in WEIGHTS},
                **{f"adam_{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)},
                **{f"memory_{name}": array for name, array in self.memory.items()},
                "counters": np.array([self.stored, self.cursor, self.steps], np.int64)}

    def restore(self, arrays):
        leaves = [arrays[f"adam_{i}"] for i in range(sum(name.startswith("adam_") for name in arrays))]
        self._take_up({name: arrays[name] for name in WEIGHTS}, {name: arrays[f"target_{name}"] for name in WEIGHTS},
                      leaves, {name: arrays[f"memory_{name}"].copy() for name, _ in MEMORY}, arrays["counters"])

    def player(self, seed):
        return NetworkAgent(self.game, seed=seed, network=self.network)

    def write(self, out: Path, metadata):
        shape = {"inputs": self.network_input.inputs, "hidden": self.network.hidden, "actions": self.network_input.actions}
        save_npz(out, self.network.arrays(), {**metadata, "model": "mlp", "network": shape})
