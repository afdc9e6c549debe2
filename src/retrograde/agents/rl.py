"""The `rl` agent: greedy play in Q values learned by `retrograde train rl` (seeds 000/001).

Q(position, move) comes from one of three models:

* `TabularQ`, where the game fits a table (at most `MAX_TABLE_ENTRIES` entries): one row per
  indexed position (tier offset plus the index `game.locate` gives), one column per move in
  `game.moves` order; the rows span every tier of the game's rules, also where the instance
  holds fewer (a store's extent, not the game's), so that play from the start finds its
  positions and one artifact serves every such instance;
* `LinearQ`, where no table fits and the game gives board features (its `features` capability): a
  linear function of the features after the move, plus a bias; a move that ends the game is
  worth its value exactly (+1 a win, -1 a loss, 0 a draw). The features may play part of the
  move by a genome of the game's (Quarto hands its pieces over by its GA rule), which the
  artifact keeps beside the weights;
* `SparseQ`, on request (`train rl:model=sparse`): a table of the positions met in training
  only, as seed 002 kept its Q values in a dictionary of states; a position never met plays a
  random move of the learned kind (seed 002's random free cell). Its moves are those the
  features list where the game has features (Quarto: placements, pieces by the GA rule), else
  `game.moves`.

A model's `evaluate` may draw from the player's generator (features may).
Rewards are from the mover's view: win +1, loss -1, draw 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents.base import Player, best_index
from retrograde.data.artifact import finite_floats, load_artifact
from retrograde.errors import BadAgent
from retrograde.games import make_game
from retrograde.games.base import Game, State, Tier
from retrograde.spec import Option

#: Reward for the side to move at a terminal position, by its outcome there.
REWARD = {oc.WIN: 1.0, oc.DRAW: 0.0, oc.LOSS: -1.0}
#: Tables above this many entries are refused (a Q table must fit in memory comfortably).
MAX_TABLE_ENTRIES = 50_000_000
#: Memory of a sparse table's key at most: a position's notation (tens of characters) as a str in
#: a dictionary (about 150 bytes) and as 4-byte characters in the saved keys array.
KEY_BYTES = 300


class TabularQ:
    """Q values of every (indexed position, move) in one float32 array."""

    kind = "table"

    def __init__(self, game: Game, q: np.ndarray | None = None):
        self.game = game
        self.offsets: dict[str, int] = {}
        rows = 0
        for tier in self.tiers(game):
            self.offsets[tier.name] = rows
            rows += tier.size
        shape = (rows, game.max_moves)
        if q is not None and q.shape != shape:
            raise ValueError(f"Q table of shape {q.shape}, the game needs {shape}")
        self.q = np.zeros(shape, dtype=np.float32) if q is None else finite_floats("q", q).astype(np.float32)

    @classmethod
    def from_arrays(cls, game: Game, arrays: dict[str, np.ndarray]) -> TabularQ:
        """The table an artifact's (or checkpoint's) arrays hold: `q` and nothing else."""
        if set(arrays) != {"q"}:
            raise ValueError(f"arrays {sorted(arrays)}, a Q table holds ['q']")
        return cls(game, arrays["q"])

    @staticmethod
    def tiers(game: Game) -> tuple[Tier, ...]:
        """The tiers a table spans: every tier of the game `game`'s rules play, whatever part of it `game` holds."""
        return make_game(game.name, game.rules).tiers()

    @staticmethod
    def rows(game: Game) -> int:
        """Rows of the table of `game`: a row per indexed position of its rules."""
        return sum(tier.size for tier in TabularQ.tiers(game))

    @staticmethod
    def entries(game: Game) -> int:
        """Q values in the table of `game`: a row per position of its rules, a column per move."""
        return TabularQ.rows(game) * game.max_moves

    @staticmethod
    def refusal(game: Game) -> str | None:
        """Why a table does not fit `game` (None if it does)."""
        entries = TabularQ.entries(game)
        if entries > MAX_TABLE_ENTRIES:
            return f"a Q table would hold {entries:,} entries (at most {MAX_TABLE_ENTRIES:,})"
        return None

    def evaluate(self, position: State, rng: np.random.Generator | None = None) -> tuple[list, np.ndarray, Any]:
        """(moves, Q of each move, a handle for `update`) of a non-terminal position."""
        moves = self.game.moves(position)
        name, index = self.game.locate(position)
        row = self.offsets[name] + index
        return moves, self.q[row, :len(moves)].astype(np.float64), row

    def update(self, row: int, move: int, target: float, alpha: float) -> None:
        """Move Q(row, move) a step `alpha` toward `target`."""
        self.q[row, move] += alpha * (target - self.q[row, move])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"q": self.q}


class LinearQ:
    """Q(position, move) = weights . features(board after the move) + bias; exact at game ends.
    `genome`: the weights of the features' genome option (None: its default preset)."""

    def __init__(self, game: Game, weights: np.ndarray | None = None, genome: np.ndarray | None = None):
        self.game = game
        self.features = game.features.with_genome(genome)
        self.kind = self.features.kind
        size = len(self.features.names) + 1
        if weights is not None and weights.shape != (size,):
            raise ValueError(f"{weights.shape} weights, the game's features need ({size},)")
        self.weights = np.zeros(size) if weights is None else finite_floats("weights", weights).astype(np.float64)

    @classmethod
    def from_arrays(cls, game: Game, arrays: dict[str, np.ndarray]) -> LinearQ:
        """The model an artifact's (or checkpoint's) arrays hold: weights and the features' genome."""
        option = game.features.genome_option
        known = {"weights"} | ({option.name} if option is not None else set())
        if set(arrays) != known:
            raise ValueError(f"arrays {sorted(arrays)}, a linear Q model of {game.name} holds {sorted(known)}")
        return cls(game, arrays["weights"], arrays[option.name] if option is not None else None)

    def evaluate(self, position: State, rng: np.random.Generator | None = None) -> tuple[list, np.ndarray, Any]:
        """(moves, Q of each move, a handle for `update`) of a non-terminal position."""
        moves, features, exact = self.features(position, rng)
        x = np.hstack([features, np.ones((len(features), 1))])
        q = x @ self.weights
        ended = ~np.isnan(exact)
        q[ended] = exact[ended]
        return moves, q, (x, ended)

    def update(self, handle: Any, move: int, target: float, alpha: float) -> None:
        """A normalised gradient step (NLMS) of the move's Q toward `target`; a move that ends
        the game is known exactly and is not learned."""
        x, ended = handle
        if ended[move]:
            return
        row = x[move]
        self.weights += alpha * (target - row @ self.weights) * row / (row @ row)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"weights": self.weights, **self.features.arrays()}


class SparseQ:
    """Q values of the positions met, one float32 row each (keys: the positions' notation)."""

    kind = "sparse"

    def __init__(self, game: Game, keys: np.ndarray | None = None, q: np.ndarray | None = None,
                 genome: np.ndarray | None = None):
        self.game = game
        self.features = game.features.with_genome(genome) if game.features is not None else None
        if keys is not None and (keys.dtype.kind != "U" or keys.ndim != 1 or len(np.unique(keys)) != len(keys)):
            raise ValueError(f"keys of {keys.dtype} and shape {keys.shape}, a sparse Q table keys its rows by "
                             "distinct positions")
        keys = [] if keys is None else keys.tolist()
        self.rows = {key: row for row, key in enumerate(keys)}
        width = self.width(game)
        self.q = np.zeros((max(len(keys), 1024), width), np.float32)
        if q is not None:
            if q.shape != (len(keys), width):
                raise ValueError(f"Q rows of shape {q.shape}, {len(keys)} positions of {width} moves need "
                                 f"{(len(keys), width)}")
            self.q[:len(keys)] = finite_floats("q", q)

    @staticmethod
    def width(game: Game) -> int:
        """Q values a row holds: as many as the moves the features list at most, else the game's."""
        return (game.features.max_moves if game.features is not None else None) or game.max_moves

    @staticmethod
    def row_bytes(game: Game) -> int:
        """Memory of a row at most: its float32 values twice (the table doubles as it grows) and its
        key, the position's notation, in the rows' dictionary and the saved keys (`KEY_BYTES`)."""
        return 2 * 4 * SparseQ.width(game) + KEY_BYTES

    @classmethod
    def from_arrays(cls, game: Game, arrays: dict[str, np.ndarray]) -> SparseQ:
        option = game.features.genome_option if game.features is not None else None
        known = {"keys", "q"} | ({option.name} if option is not None else set())
        if set(arrays) != known:
            raise ValueError(f"arrays {sorted(arrays)}, a sparse Q table of {game.name} holds {sorted(known)}")
        return cls(game, arrays["keys"], arrays["q"], arrays[option.name] if option is not None else None)

    def evaluate(self, position: State, rng: np.random.Generator | None = None) -> tuple[list, np.ndarray, Any]:
        """(moves, Q of each move: 0 where the position was never met, a handle for `update`)."""
        moves = self.features(position, rng)[0] if self.features is not None else self.game.moves(position)
        key = self.game.format(position)
        row = self.rows.get(key)
        q = self.q[row, :len(moves)].astype(np.float64) if row is not None else np.zeros(len(moves))
        return moves, q, key

    def update(self, key: str, move: int, target: float, alpha: float) -> None:
        """Move Q(position, move) a step `alpha` toward `target` (a new row for a position first met)."""
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = len(self.rows)
            if row == len(self.q):
                self.q = np.vstack([self.q, np.zeros_like(self.q)])
        self.q[row, move] += alpha * (target - self.q[row, move])

    def arrays(self) -> dict[str, np.ndarray]:
        extra = self.features.arrays() if self.features is not None else {}
        return {"keys": np.array(list(self.rows), dtype=str), "q": self.q[:len(self.rows)], **extra}


def model_class(game: Game) -> type[TabularQ] | type[LinearQ] | None:
    """The Q model `game` is learned with: a table where one fits, else linear in its board
    features; None where neither does."""
    if TabularQ.refusal(game) is None:
        return TabularQ
    return LinearQ if game.features is not None else None


def model_kind(game: Game) -> str:
    """What an `rl` artifact of `game` calls its model by default: "table", or the features' kind."""
    return TabularQ.kind if model_class(game) is TabularQ else game.features.kind


def load_model(game: Game, arrays: dict[str, np.ndarray]) -> TabularQ | LinearQ | SparseQ:
    """The Q model of `game` that an artifact's (or checkpoint's) arrays hold: a sparse table where
    they hold keys, else the game's default model (ValueError, TypeError or KeyError if they are
    not one)."""
    return (SparseQ if "keys" in arrays else model_class(game)).from_arrays(game, arrays)


class QAgent(Player):
    """Plays greedily in a Q model (ties by `self.rng`): the trainer's player, and `rl`'s."""

    name = "q"

    def __init__(self, game: Game, *, seed: int, model: TabularQ | LinearQ | SparseQ, store=None):
        super().__init__(game, seed=seed, store=store)
        self.model = model

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        if model_class(game) is None:
            return f"{TabularQ.refusal(game)}, and the game gives no board features"
        return None

    def choose(self, position):
        moves, q, _ = self.model.evaluate(position, self.rng)
        return moves[best_index(q, self.rng)]


class RlAgent(QAgent):
    name = "rl"
    summary = ("Q-learning (a table where the game fits one, else linear in its board features) trained "
               "with 'retrograde train rl': the move of highest Q")
    options = (Option("params", "the .npz artifact 'retrograde train rl' wrote", None, kind="file"),)

    def __init__(self, game, *, seed: int, store=None, params: Path | None = None):
        if params is None:
            raise BadAgent("rl needs params=FILE (train one with retrograde train rl ...)")
        metadata, model = _loaded(game, Path(params))
        super().__init__(game, seed=seed, model=model, store=store)
        self.metadata = metadata


#: Models read from artifacts in this process, by file and game: a tournament builds an agent for
#: every batch of games, and a sparse table of half a million positions takes a second to read.
#: Agents only read their model, so they share it.
_LOADED: dict[tuple, tuple[dict[str, Any], TabularQ | LinearQ | SparseQ]] = {}


def _loaded(game: Game, params: Path) -> tuple[dict[str, Any], TabularQ | LinearQ | SparseQ]:
    """(metadata, model) of the artifact `params` for `game`, read once a process while the file
    stays the same (BadAgent in one line if it is not an rl artifact of the game)."""
    try:
        stat = params.stat()
        key = (str(params.resolve()), stat.st_size, stat.st_mtime_ns, game.describe())
    except OSError:
        key = None
    if key in _LOADED:
        return _LOADED[key]
    metadata, arrays = load_artifact(params, "rl", game)
    try:
        model = load_model(game, arrays)
    except (TypeError, ValueError, KeyError) as exc:
        raise BadAgent(f"rl: params={params}: corrupt {metadata.get('model', model_kind(game))} Q artifact "
                       f"({exc})") from None
    if key is not None:
        while len(_LOADED) >= 4:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = metadata, model
    return metadata, model
