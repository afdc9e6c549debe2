"""The Q network of seed 001's deep Q-learning (`dqn`): the board's inputs (`NetworkInput`), one
hidden layer of ReLU units, one output per action. JAX computes it (and, in training, its
gradients); JAX is the optional extra `dqn`, imported only when a network is built.

The weights are four float32 arrays, `WEIGHTS`, kept as they are in .npz artifacts.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from retrograde.data.artifact import finite_floats
from retrograde.errors import BadAgent

#: How to install what the network needs.
EXTRA = "pip install 'retrograde[dqn]'"
#: The weight arrays: input->hidden matrix and biases, hidden->output matrix and biases.
WEIGHTS = ("w1", "b1", "w2", "b2")


def jax_modules():
    """(jax, jax.numpy, optax); BadAgent in one line, saying how to install them, if missing."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as exc:
        raise BadAgent(f"dqn needs JAX, which is not installed ({exc.name}): {EXTRA}") from None
    return jax, jnp, optax


@cache
def forward():
    """The network as a jitted function of (weights, boards[n, inputs]) -> Q[n, actions]."""
    jax, jnp, _ = jax_modules()

    def q_values(weights, boards):
        hidden = jnp.maximum(boards @ weights["w1"] + weights["b1"], 0.0)
        return hidden @ weights["w2"] + weights["b2"]

    return jax.jit(q_values)


def initial_weights(inputs: int, hidden: int, actions: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Glorot-uniform weights and zero biases, drawn from `rng`."""
    def glorot(fan_in: int, fan_out: int) -> np.ndarray:
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, size=(fan_in, fan_out)).astype(np.float32)

    return {"w1": glorot(inputs, hidden), "b1": np.zeros(hidden, np.float32),
            "w2": glorot(hidden, actions), "b2": np.zeros(actions, np.float32)}


class QNetwork:
    """A network's weights, checked against the game's network input, and its Q values of a board."""

    def __init__(self, network_input, weights: dict[str, np.ndarray]):
        _, jnp, _ = jax_modules()
        if set(weights) != set(WEIGHTS):
            raise ValueError(f"arrays {sorted(weights)}, a Q network holds {list(WEIGHTS)}")
        hidden = np.shape(weights["b1"])[0] if np.ndim(weights["b1"]) == 1 else -1
        shapes = {"w1": (network_input.inputs, hidden), "b1": (hidden,), "w2": (hidden, network_input.actions),
                  "b2": (network_input.actions,)}
        for name, shape in shapes.items():
            if np.shape(weights[name]) != shape or hidden < 1:
                raise ValueError(f"{name} of shape {np.shape(weights[name])}, the game's network needs {shape}")
            finite_floats(name, np.asarray(weights[name]))
        self.network_input = network_input
        self.hidden = hidden
        self.weights = {name: jnp.asarray(weights[name], dtype=jnp.float32) for name in WEIGHTS}

    def q(self, board: np.ndarray) -> np.ndarray:
        """Q of every action of one board (float64)."""
        return np.asarray(forward()(self.weights, board[None]), dtype=np.float64)[0]

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.asarray(self.weights[name]) for name in WEIGHTS}
