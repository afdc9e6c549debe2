"""The Q network of `dqn`, after report 001's deep Q-learning: the board's inputs (`NetworkInput`),
one hidden layer of ReLU units (the report's text; its code has two), one output per action of an
output layer (`output_layer`): every game's `move`, one output per move (ours), or one a game's
input offers besides (Quixo's `line`: report 001's 4N outputs). JAX computes it (and, in training,
its gradients); JAX is the optional extra `dqn`, imported only when a network is built.

The weights are four float32 arrays, `WEIGHTS`, kept as they are in .npz artifacts.

jaxlib lets Ctrl-C interrupt its wait for a compilation, which goes on in XLA's threads; the
command's exit then tore the runtime down under them (SIGSEGV after the "interrupted" line,
issue 36 item 9), and a Ctrl-C raised in Python code that jaxlib's import calls aborted the
process (SIGABRT). So JAX is imported and compiles with the stop signals held
(`StopSignalsHeld`): a network compiles its forward pass when it is made, and training holds
them around its steps, delivering a held signal between episodes.
"""

from __future__ import annotations

import signal
import threading
from functools import cache

import numpy as np

from retrograde.data.artifact import finite_floats
from retrograde.errors import BadAgent

#: How to install what the network needs.
EXTRA = "pip install 'retrograde[dqn]'"
#: The weight arrays: input->hidden matrix and biases, hidden->output matrix and biases.
WEIGHTS = ("w1", "b1", "w2", "b2")
#: The output layer every game's network input has: one output per move.
MOVE = "move"


#: The signals a command stops on (exits.py's handlers unwind it): held while JAX works.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopSignalsHeld:
    """A block in which the stop signals whose handlers are Python's only are recorded; `deliver`
    (at a point where stopping is safe) and the block's end raise the first again, to the handler
    it had (Ctrl-C: KeyboardInterrupt). Outside the main thread, where Python runs no handler,
    nothing is held. Blocks nest: an inner one delivers to the outer."""

    def __enter__(self) -> StopSignalsHeld:
        self.arrived: list[int] = []
        self.saved: dict[int, object] = {}
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                if callable(signal.getsignal(signum)):
                    self.saved[signum] = signal.signal(signum, self._record)
        return self

    def _record(self, signum: int, frame) -> None:
        self.arrived.append(signum)

    def deliver(self) -> None:
        """Raise a held signal now, to the handler it had before the block (which ends the holding)."""
        if self.arrived:
            self.__exit__()

    def __exit__(self, *exc) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)
        self.saved = {}
        if self.arrived:
            signum, self.arrived = self.arrived[0], []
            signal.raise_signal(signum)


def jax_modules():
    """(jax, jax.numpy, optax), imported with the stop signals held (a Ctrl-C raised inside jaxlib's
    initialisation aborted the process: SIGABRT); BadAgent in one line, saying how to install
    them, if missing."""
    try:
        with StopSignalsHeld():
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


def output_layer(network_input, name: str):
    """The game's network input with the output layer `name`: `MOVE`, or one its `layers` (a
    mapping name -> network input, where a game offers more than one) names; ValueError in one
    line, naming the layers it has, for another."""
    layers = getattr(network_input, "layers", {MOVE: network_input})
    if not isinstance(name, str) or name not in layers:
        raise ValueError(f"outputs={name!r}: the game's network has the output layers {', '.join(layers)}")
    return layers[name]


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
        with StopSignalsHeld():  # the arrays' transfer and the forward pass compile
            self.weights = {name: jnp.asarray(weights[name], dtype=jnp.float32) for name in WEIGHTS}
            self.q(np.zeros(network_input.inputs, np.float32))

    def q(self, board: np.ndarray) -> np.ndarray:
        """Q of every action of one board (float64)."""
        return np.asarray(forward()(self.weights, board[None]), dtype=np.float64)[0]

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.asarray(self.weights[name]) for name in WEIGHTS}
