"""What a game folder declares beyond its rules, for the layers above: the types its hooks
return (`games.base.HOOKS` lists the hooks, required or optional, with their contracts).

* `Costs`: what solving the game costs, for the estimate made before a solve;
* `Policy`: a way of choosing moves the game offers as an agent of its own (its theory's
  strategy, the course reports' fixed rules, players built on its own search);
* `Genome`: the game's own genetic-algorithm genome (the `ga` agent and trainer);
* `Features`: board features after each move (the `ga` agent's weights where a game has no
  genome of its own, and the `rl` agent's linear Q where no table fits);
* `Encoding`: a position as a Q network's input, and its moves as the network's outputs
  (the `dqn` agent and trainer);
* `Sampling`: how positions are sampled where no store holds the game whole;
* `Picture` and `Token`: a position drawn as a grid of cells (the explorer's board);
* `Workflow`, `Figure` and `AgentRef`: the course reports' presets (`retrograde run`, and the
  published figures a validation report sets beside ours).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np

from retrograde.spec import Option


@dataclass(frozen=True)
class Costs:
    """What solving an instance costs, measured (BENCHMARKS.md), for `pipeline.estimate`.

    `solve_rate`: indexed positions solved per second per core (a game not measured yet keeps
    the low default); `stored_bytes_per_position`: bytes an index takes in a finished store,
    after compression (None: the uncompressed size, an upper bound); `position_share`: the share
    of indices that hold positions (below 1 where a game leaves holes; a loopy group's
    propagation keeps positions only); `too_big_hint`: how to solve a smaller part of an
    instance too big for the machine, for the refusal ("" if none)."""

    solve_rate: float = 1_000.0
    stored_bytes_per_position: float | None = None
    position_share: float = 1.0
    too_big_hint: str = ""


class Policy(ABC):
    """A way of choosing moves that a game offers beside the generic agents; the agents layer
    names it, seeds it and builds it from a spec (`agents.registry`).

    `options` are the spec's options, given to `__init__` as keywords after the game and the
    random generator every choice draws from. `claim`: that the policy never gives a win away
    (Nim's theory), in words that follow its spec; `validate` checks that it keeps every win."""

    name: ClassVar[str]
    summary: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()
    claim: ClassVar[str | None] = None
    #: Whether the policy plays some positions perfectly, by exact search (`exact_at` says which).
    searches_to_end: ClassVar[bool] = False

    def __init__(self, game, rng: np.random.Generator):
        self.game = game
        self.rng = rng

    @abstractmethod
    def choose(self, position) -> tuple[str, Any]:
        """(move text, child position) for a non-terminal position."""

    def exact_at(self, position) -> bool:
        """Where `searches_to_end`: whether the policy plays `position` perfectly (fastest win, else
        a draw, else slowest loss), which sampled validation checks."""
        return False


class GenomePlayer(ABC):
    """A genome's weights at play."""

    @abstractmethod
    def choose(self, position, rng: np.random.Generator) -> tuple[str, Any]:
        """(move text, child position) played at a non-terminal position, drawing from `rng`."""


class Genome(ABC):
    """A game's own genetic-algorithm genome: `names` of its genes, each weight in [low, high].

    `kind` names it in the artifact; `opponents` are the agents fitness is measured against by
    default (a spec list); `options` are the `ga` agent's options beyond `params`, read by
    `weights_from` (a genome given in the spec instead of an artifact) and `player`."""

    names: ClassVar[tuple[str, ...]]
    low: ClassVar[float] = 0.0
    high: ClassVar[float] = 1.0
    kind: ClassVar[str]
    opponents: ClassVar[str] = "random"
    options: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, game):
        self.game = game

    def weights_from(self, options: dict[str, Any]) -> list[float] | None:
        """The weights the agent's `options` give instead of an artifact (None: they give none)."""
        return None

    @abstractmethod
    def player(self, weights: np.ndarray, **options) -> GenomePlayer:
        """A player of `weights` (with the agent's `options`)."""


class Features(ABC):
    """Board features after each move of a position, each scaled to [0, 1], and each move's
    known value where it ends the game.

    `kind` names the linear Q model in an `rl` artifact. A game's features may play part of the
    move themselves by a rule of the game's genome (Quarto hands its pieces over by its GA
    rule): `genome_option` then names the learner option that picks the genome (a preset of
    `genome_presets`, or a `ga` artifact of the game), and `arrays` holds it in the artifact."""

    names: tuple[str, ...]
    kind: ClassVar[str] = "linear"
    #: At most how many moves the features list at a position (None: the game's `max_moves`).
    max_moves: ClassVar[int | None] = None
    genome_option: ClassVar[Option | None] = None
    genome_presets: ClassVar[dict[str, tuple[float, ...]]] = {}

    @abstractmethod
    def __call__(self, position, rng: np.random.Generator) -> tuple[list, np.ndarray, np.ndarray]:
        """(moves, features[moves, len(names)], exact[moves]) of a non-terminal position: the
        moves as `game.moves` gives them (or as the features play them), and each move's value
        for the mover where the game ends with it (+1 a win, -1 a loss, 0 a draw; NaN where it
        goes on). May draw from `rng`."""

    def arrays(self) -> dict[str, np.ndarray]:
        """What an `rl` artifact keeps of the features beside the weights."""
        return {}


class Encoding(ABC):
    """A position as a Q network sees it (seed 001's deep Q-learning): `inputs` numbers
    describing the board from the mover's view, and one network output for each of a fixed
    set of `actions`, which every move of the game maps to."""

    inputs: int
    actions: int

    @abstractmethod
    def __call__(self, position) -> tuple[list, np.ndarray, np.ndarray]:
        """(moves, x[inputs] float32, the action of each move) of a non-terminal position, the
        moves in `game.moves` order."""


@dataclass(frozen=True)
class Sampling:
    """Validation without a store (a game no store holds whole): positions met in games between
    the `baselines` (agent specs), in `tiers`, each solved by the game's exact search."""

    tiers: tuple[str, ...]
    baselines: tuple[str, ...]


@dataclass(frozen=True)
class Workflow:
    """A named end-to-end workflow (`retrograde run NAME`) on the instance of `params`: `train`
    holds (learner spec, artifact file) pairs, `agents` the specs validated ("{folder}" stands
    for the workflow's folder, where the artifacts are), with `games` games per pairing and seat.
    With `solves` false (a game no store holds whole) nothing is solved: validation measures
    `positions` positions sampled as the game's `Sampling` says."""

    name: str
    description: str
    params: dict[str, Any] = field(default_factory=dict)
    train: tuple[tuple[str, str], ...] = ()
    agents: tuple[str, ...] = ()
    games: int = 0
    solves: bool = True
    positions: int | None = None


@dataclass(frozen=True)
class AgentRef:
    """One of the course reports' agents as our spec: the agent `name` with `options` holding
    (given, or by default); a trained agent names the `learner` spec that trains its artifact as
    the report trained it (its `params`, which `retrograde run seeds` trains and fills in), and an
    agent whose code the report's prose misnames names our agent of that prose as `text`."""

    label: str
    name: str
    options: tuple[tuple[str, str], ...] = ()
    learner: str | None = None
    #: Our spec of the agent as the report's text names it, where its code played otherwise
    #: (`retrograde run seeds` plays both, to show what the difference does).
    text: str | None = None


@dataclass(frozen=True)
class Figure:
    """A match result a course report published: the instance (`params` as given, the game's
    other rule options off) or instances, the report's agent and opponent as our specs, the
    agent's seat ("first", "second", or "either": the report drew who started, or played each
    seat), its win/loss/draw rates (None where not given), the number of games, where it is
    printed, and notes."""

    params: dict[str, Any]
    agent: AgentRef
    opponent: AgentRef
    seat: str
    win: float
    loss: float | None
    draw: float | None
    games: int | None
    source: str
    notes: tuple[str, ...] = ()
    #: A figure over many instances, each played once with each agent first (report 003's mixed
    #: benchmark): their params; `params` then describes them in words.
    instances: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Token:
    """A piece drawn in a cell of a `Picture`: its `shape` ("cross", "ring", "disc" or "square"),
    its `colour` by role ("x" and "o": the two sides' marks; "dark" and "light": a piece's colour;
    "token": a counter), its `size` as a share of the cell, whether it is `hollow`, and a `label`
    written on it (Quarto's piece number)."""

    shape: str
    colour: str
    size: float = 0.7
    hollow: bool = False
    label: str = ""


#: The x and o marks of tic-tac-toe and Quixo.
MARKS = {"x": Token("cross", "x"), "o": Token("ring", "o")}


@dataclass(frozen=True)
class Picture:
    """A position drawn as a grid of cells, for the explorer: one generic description, so that one
    page draws every game. `cells` row by row from the top, each a `Token` or None (empty); the
    rows' and columns' labels as the move notation names them; the board's `style` ("grid": lines
    between cells; "cubes": every cell a cube's face, Quixo; "slots": holes in a frame, Connect
    Four; "rows": counters in rows, Nim); a `caption` (whose move); the side to move and the other
    as the notation names them (`mover`, `other`: "x", "o"; "" where a position does not say); and
    the pieces shown beside the board (`aside`, under `aside_label`: Quarto's piece in hand).

    A move's cells are those whose token differs between the position's picture and its child's,
    so every position of a game instance has a picture of the same size."""

    rows: int
    cols: int
    cells: tuple[Token | None, ...]
    style: str = "grid"
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    caption: str = ""
    mover: str = ""
    other: str = ""
    aside: tuple[Token, ...] = ()
    aside_label: str = ""

    @classmethod
    def of_marks(cls, rows: list[str], mover: str, *, tokens: dict[str, Token] = MARKS, **options) -> Picture:
        """A board of x and o marks from the notation's rows (`["x.o", ...]`, "." empty), the
        marks drawn as `tokens`, `mover` ("x" or "o") to move."""
        cells = tuple(tokens.get(char) for row in rows for char in row)
        return cls(len(rows), len(rows[0]), cells, caption=f"{mover} to move", mover=mover,
                   other="o" if mover == "x" else "x", **options)

    def to_json(self) -> dict[str, Any]:
        """The picture as the explorer's page reads it (tokens as objects, None as null)."""
        return asdict(self)

