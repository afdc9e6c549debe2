"""What a game offers beyond its rules: its optional capabilities, and the types they hold.

A game's required part (`games.base.Game`) holds the rules and the tiers. Everything else is a
capability: one attribute of the game that returns an object, or None where the game lacks it
(`games.base.CAPABILITIES` lists each with its contract and its fallback). The objects' types:

* `Loopy`: solving tiers whose moves lead back into each other (the loopy solver's kernels);
* `Symmetry`: symmetric positions folded together (a store keeps one position a class);
* `OnePly`: the one-ply store format (values one ply of moves decides are left out);
* `Display`: how a person sees positions and moves (a text board, a `Picture` of cells, why a
  move is illegal); `Picture` and `Token`: a position drawn as a grid of cells;
* `Costs`: what solving the game costs, for the estimate made before a solve;
* `Policy`: a way of choosing moves the game offers as an agent of its own (its theory's
  strategy, the course reports' fixed rules, players built on its own search);
* `Genome`: the game's own genetic-algorithm genome (the `ga` agent and trainer);
* `Features`: board features after each move (the `ga` agent's weights where a game has no
  genome of its own, and the `rl` agent's linear Q where no table fits);
* `NetworkInput`: a position as a Q network's input, and its moves as the network's outputs
  (the `dqn` agent and trainer);
* `Sampling`: how positions are sampled where no store holds the game whole;
* `Course`: the course reports' presets: `Workflow`s (`retrograde run`), published `Figure`s
  with their agents as `AgentRef`s, the reports' players, training settings and genomes.

The game's search (`search.base.Search`) and playout rules (`search.playouts.Playouts`) are
capabilities too; their types live in `search`, beside the drivers that run them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from functools import cached_property
from collections.abc import Callable, Mapping
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
    propagation keeps positions only); `scratch_share`: the share of their 4 bytes a row that a
    loopy group's deflated scratch files take on disk (1: an upper bound); `message_bytes`: the
    bytes of messages a position of a split propagation has on disk at once, from the two levels
    kept (`pipeline.scratch`; the default: one undeflated message a level, not a bound: a position
    may reach a parent a move); `too_big_hint`: how to solve a smaller part of an instance too big
    for the machine, for the refusal ("" if none)."""

    solve_rate: float = 1_000.0
    stored_bytes_per_position: float | None = None
    position_share: float = 1.0
    scratch_share: float = 1.0
    message_bytes: float = 16.0
    too_big_hint: str = ""
    #: False for the defaults of a game that gives no costs: its estimates say they are unmeasured.
    measured: bool = True


#: What the estimate assumes of a game that gives no costs.
UNMEASURED = Costs(measured=False)


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
    #: Whether `choose` never draws from the generator (one move a position).
    deterministic: ClassVar[bool] = False

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

    def distribution(self, position) -> list[tuple[float, Any]] | None:
        """The chance of each child `choose` moves to from `position`, as (probability, child)
        pairs (`agents.base.Player.move_distribution`): its one move where it is `deterministic`;
        None where its draws cannot be enumerated."""
        return [(1.0, self.choose(position)[1])] if self.deterministic else None


class GenomePlayer(ABC):
    """A genome's weights at play."""

    @abstractmethod
    def choose(self, position, rng: np.random.Generator) -> tuple[str, Any]:
        """(move text, child position) played at a non-terminal position, drawing from `rng`."""

    #: Whether `choose` never draws from the generator (one move a position).
    deterministic: ClassVar[bool] = False

    def distribution(self, position) -> list[tuple[float, Any]] | None:
        """The chance of each child `choose` moves to (as `Policy.distribution`): its one move
        where it is `deterministic`; None where its draws cannot be enumerated."""
        return [(1.0, self.choose(position, None)[1])] if self.deterministic else None


def uniform(moves: list[tuple[str, Any]]) -> list[tuple[float, Any]]:
    """The distribution of a move drawn uniformly from `moves` ((text, child) pairs)."""
    return [(1 / len(moves), child) for _, child in moves]


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

    def with_genome(self, genome: np.ndarray | None) -> Features:
        """The features with the weights of their `genome_option` (None: its default preset);
        features without a genome option are themselves."""
        return self


class NetworkInput(ABC):
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
    #: The part of a move that says where to play (a module-level function), for the reports
    #: that tell a bad placement from a bad choice of what to hand over (Quarto); None: the
    #: whole move places.
    placement: Callable[[str], str] | None = None


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
    #: Why the report's agent cannot be compared: it was never printed and cannot be rebuilt
    #: (e.g. "a colleague's MCTS, not printed"); a figure with such an agent or opponent is
    #: "not comparable", whatever our stand-in plays.
    unprinted: str | None = None


#: A published rate: a share, a range (low, high) where the report gives one (over its runs),
#: or None where it gives none.
Rate = float | tuple[float, float] | None


@dataclass(frozen=True)
class Figure:
    """A match result a course report published: the instance (`params` as given, the game's
    other rule options off) or instances, the report's agent and opponent as our specs, the
    agent's seat ("first", "second", or "either": the report drew who started, or played each
    seat), its win/loss/draw rates (None where not given; a (low, high) range where it gives
    one), the number of games (None: not given), where it is printed, and notes."""

    params: dict[str, Any]
    agent: AgentRef
    opponent: AgentRef
    seat: str
    win: Rate
    loss: Rate
    draw: Rate
    games: int | None
    source: str
    notes: tuple[str, ...] = ()
    #: A figure over many instances, each played once with each agent first (report 003's mixed
    #: benchmark): their params; `params` then describes them in words.
    instances: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Unplayed:
    """A figure a course report published that `retrograde run seeds` does not play (a training
    curve's average, a fitness, a result over an agent nobody can rebuild): where it is printed
    (`source`, as `Figure.source`), what it says, in the report's numbers (`figure`), and why we
    do not play it (`why`). `run seeds` lists each, so that no published figure goes unmentioned."""

    source: str
    figure: str
    why: str


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



class Loopy(ABC):
    """Solving tiers whose moves lead back into each other (a loopy group: the tiers of a strongly
    connected component of the tier graph, solved together), as Quixo's do. A loopy group's
    first pass expands its chunks with `expand_kernel` and only counts the children inside the
    group; propagation then walks `parents` from every decided position.

    Absent: the game's tiers must not loop; `plan` and `solve` refuse one that does in one line."""

    #: True if `game.expand`, given a `group`, gives every terminal child inside the group by
    #: value (WINNING_CHILD, or LOSING_CHILD alone) instead of IN_GROUP: the solver then need
    #: not propagate from terminal positions, whose parents took their values in the first pass.
    group_terminals_by_value: ClassVar[bool] = False

    def __init__(self, game):
        self.game = game

    @abstractmethod
    def parents(self, tier, indices: np.ndarray, group_offsets: dict[str, int], *,
                out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For positions of `tier`, references to their parents inside the tier's loopy group,
        each parent once, a row ending at its first -1; and each parent's weight: its moves into
        the position (what a win of the position takes off the parent's count of children inside
        the group, counted a move each by `expand`; more than 1 where several moves lead there,
        or the parent stands for a class of positions).

        `group_offsets[name]` is where each group tier starts in the group's concatenation;
        `out` (from `buffers`) is filled instead of new arrays."""

    @abstractmethod
    def expand_kernel(self, tier, group: tuple[str, ...]) -> tuple:
        """`game.expand` of `tier` with `group` as a numba kernel of the signature
        `games.expand_kernel.EXPAND`, and the arrays it takes first: (kernel, params, table,
        lines, symmetry). The first pass expands a whole chunk in one kernel call with it (a
        call a batch of rows, each taking the interpreter's lock back, kept two worker threads
        waiting on each other)."""

    @staticmethod
    def buffers(rows: int, width: int, out: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """(references, weights) arrays for `parents`: int64 and int8, `rows` x `width`, not
        initialised (`parents` ends each row itself); views into `out` when given."""
        if out is None:
            return np.empty((rows, width), dtype=np.int64), np.empty((rows, width), dtype=np.int8)
        return out[0][:rows], out[1][:rows]


class Symmetry(ABC):
    """Symmetric positions folded together: a store keeps one position a symmetry class, its
    `representative` (the member at the least index of its tier), and the kernels refer to
    children by their representatives' indices; every other index is a hole.

    Absent: every position stands for itself (`Game.locate_stored` locates the position)."""

    def __init__(self, game):
        self.game = game

    @abstractmethod
    def representative(self, position):
        """The member of the position's symmetry class that a store keeps."""

    @abstractmethod
    def orbit_sizes(self, tier, start: int, stop: int, outcome: np.ndarray) -> np.ndarray:
        """How many positions each index start..stop-1 of `tier` stands for, given the chunk's
        solved `outcome`s: its class's size at a representative, 0 at a hole."""

    def orbit_sizes_at(self, tier, indices: np.ndarray, outcome: np.ndarray) -> np.ndarray:
        """`orbit_sizes` at the given indices of `tier` (a sample), `outcome` theirs: index by
        index here; a game with a kernel for it overrides this."""
        return np.concatenate([self.orbit_sizes(tier, index, index + 1, outcome[row:row + 1])
                               for row, index in enumerate(indices.tolist())] or [np.zeros(0, dtype=np.uint8)])

    def locate_stored(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Tier names (str array) and indices (int64 array) where a store keeps each position's
        value: its representative's; games with large batches to probe override it with array code."""
        return locate_each(self.game, [self.representative(position) for position in positions])


def locate_each(game, positions) -> tuple[np.ndarray, np.ndarray]:
    """`game.locate` of each position, as (tier names, indices) arrays."""
    located = [game.locate(position) for position in positions]
    return (np.array([name for name, _ in located], dtype=str),
            np.array([index for _, index in located], dtype=np.int64))


class OnePly(ABC):
    """The one-ply store format (store format 4, docs/STORE.md): the store leaves out the values
    one ply of moves decides. Each index has a one-ply class (`games.base.HOLE`, `STORED`,
    `TERMINAL_WIN`, `TERMINAL_LOSS`, `WIN_IN_1`: a move completes only the mover's line,
    `LOSS_IN_1`: every move completes the opponent's line); the store keeps values for STORED alone.

    Absent: the store keeps every position's value."""

    def __init__(self, game):
        self.game = game

    @abstractmethod
    def classes(self, tier, start: int, stop: int, out: np.ndarray) -> np.ndarray:
        """out[i] = the one-ply class of index start+i of `tier`, for a whole chunk (a numba
        kernel); returns `out[:stop - start]`."""

    @abstractmethod
    def batch(self, tier, indices: np.ndarray) -> np.ndarray:
        """The one-ply classes of a few indices of `tier` (uint8), with numpy alone (no numba:
        what a probe needs); equal to `classes` there."""


class Display:
    """How a person sees positions and moves (`play`, the API, the explorer). This base class is
    the fallback of a game without a display of its own (`display_of`): the notation as the
    board, a picture of no cells with the notation as its caption, and a generic reason for an
    illegal move. A game's display overrides what it draws better."""

    def __init__(self, game):
        self.game = game

    def render(self, position) -> str:
        """A human-friendly text picture of a position."""
        return self.game.format(position)

    def picture(self, position) -> Picture:
        """The position drawn as a grid of cells for the explorer's board: the same size for every
        position of an instance, so that the cells a move changes are those that differ from its
        child's picture."""
        return Picture(1, 1, (None,), caption=self.game.format(position))

    def why_illegal(self, position, text: str) -> str:
        """Why `text` (lower case, as `moves` writes moves) is not a legal move from `position`,
        in one line, for `play` to say before asking again (games give precise reasons and fall
        back to this one)."""
        if self.game.primitive(position):
            return "the game is over: there are no moves"
        return f"{text!r} is not a legal move here (notation: {self.game.notation})"


def display_of(game) -> Display:
    """The game's display, or the generic one (the notation as the board) where it has none."""
    return game.display or Display(game)


class Course:
    """The course reports' presets for a game (../shared/seeds/): named `workflows` (`retrograde
    run`), the match results they published (`figures`), their training settings
    (`learner_presets`: (learner name, report number) -> the learner's option values as text),
    and the classes behind their players and genomes and the course's game API (`api`), imported
    when first asked for.

    Absent: the game has no workflow, no published figure and no report's player, setting or
    genome (`AGENT:preset=NUMBER` and `train ga:genome=NUMBER` are refused in one line)."""

    workflows: ClassVar[tuple[Workflow, ...]] = ()
    figures: ClassVar[tuple[Figure, ...]] = ()
    #: The reports' other figures, which no match plays (`Unplayed`).
    unplayed: ClassVar[tuple[Unplayed, ...]] = ()
    learner_presets: ClassVar[Mapping[tuple[str, str], Mapping[str, str]]] = {}

    @cached_property
    def players(self) -> Mapping[tuple[str, str], type[Policy]]:
        """The reports' players as their code played them, by (agent name, report number): the
        spec `AGENT:preset=NUMBER` plays them; each summary says how it differs from AGENT."""
        return {}

    @cached_property
    def genomes(self) -> Mapping[str, type[Genome]]:
        """The genomes the reports evolved, by report number (`train ga:genome=NUMBER`, and the
        `ga` agent of such an artifact)."""
        return {}

    @cached_property
    def api(self):
        """The course's game API (a `games.course_api.CourseApi`: `python:...,api=course` plays a
        student's player written against it), or None where the course had none."""
        return None

    def presets(self, name: str) -> tuple[str, ...]:
        """The reports whose players agent `name` can play as."""
        return tuple(sorted(preset for agent, preset in self.players if agent == name))


def course_of(game) -> Course:
    """The game's course presets, or none (an empty `Course`) where it has none."""
    return game.course or Course()


def costs_of(game) -> Costs:
    """The game's measured costs, or the low defaults of an unmeasured game (`Costs.measured`)."""
    return game.costs or UNMEASURED
