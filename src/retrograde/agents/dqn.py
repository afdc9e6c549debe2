"""The `dqn` agent: greedy play in the Q values of a network trained with `retrograde train
dqn` (after report 001's deep Q-learning, `agents.qnet`): the legal move of highest Q among the
moves its output layer names (the artifact's `outputs` setting; `move` where an artifact from
before the setting has none)."""

from __future__ import annotations

from pathlib import Path

from retrograde.agents.base import Player, best_index
from retrograde.agents.qnet import MOVE, QNetwork, jax_modules, output_layer
from retrograde.data.artifact import load_artifact
from retrograde.errors import BadAgent
from retrograde.games.base import Game
from retrograde.spec import Option


class NetworkAgent(Player):
    """Plays the legal move of highest Q in a network (ties by `self.rng`): the trainer's player, and `dqn`'s."""

    name = "q-network"

    def __init__(self, game: Game, *, seed: int, network: QNetwork, store=None):
        super().__init__(game, seed=seed, store=store)
        self.network = network

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        if game.network_input is None:
            return "the game gives no input of its positions for a Q network (its `network_input` capability)"
        return None

    def choose(self, position):
        moves, board, actions = self.network.network_input(position)
        return moves[best_index(self.network.q(board)[actions], self.rng)]


class DqnAgent(NetworkAgent):
    name = "dqn"
    summary = ("deep Q-learning (after report 001: board in, one ReLU hidden layer, one Q per move out, or with "
               "outputs=line report 001's 4N pushes of a whole row or column; JAX, the extra [dqn]) trained with "
               "'retrograde train dqn': the legal move of highest Q among those its outputs name")
    options = (Option("params", "the .npz artifact 'retrograde train dqn' wrote", None, kind="file"),)

    def __init__(self, game, *, seed: int, store=None, params: Path | None = None):
        if params is None:
            raise BadAgent("dqn needs params=FILE (train one with retrograde train dqn ...)")
        metadata, arrays = load_artifact(params, "dqn", game)
        jax_modules()
        try:
            network = QNetwork(output_layer(game.network_input, metadata["settings"].get("outputs", MOVE)), arrays)
            if metadata["model"] != "mlp":
                raise ValueError(f"its model is {metadata['model']!r}, not the mlp a dqn plays")
            made = {"inputs": arrays["w1"].shape[0], "hidden": arrays["w1"].shape[1], "actions": arrays["w2"].shape[1]}
            if metadata["network"] != made:
                raise ValueError(f"its metadata says a network of {metadata['network']}, its weights make {made}")
        except ValueError as exc:
            raise BadAgent(f"dqn: params={params}: corrupt Q network artifact ({exc})") from None
        super().__init__(game, seed=seed, network=network, store=store)
        self.metadata = metadata
