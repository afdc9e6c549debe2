"""The one game interface that solvers, agents, stores and the CLI share.

A game instance splits its positions into tiers (`games.tiers`). A tier is a numbered range
of indices 0..size-1; every move leads into one of the tier's declared child tiers. Each game
gives two views of its rules:

* plain Python (`parse`, `format`, `locate`, `position_at`, `moves`, `primitive`):
  readable, used for probing single positions, playing, and as the reference the
  kernels are tested against;
* a numba kernel behind `expand`, which turns a chunk of indices into terminal
  outcomes and child references (array work, no Python loop per position).

A game may fold symmetric positions together: a store then keeps one position per
symmetry class, its `representative`, and the kernels refer to children and parents by
their representatives' indices; every other index is a hole.

Beyond its rules, a game declares what the layers above need through hooks (`HOOKS`, below:
each required or optional, with its contract): the cost of a solve, its own search, its
compact rules for playouts, agents of its own, its genome and features, and the course reports'
presets. A hook's implementation lives in a module of the game's folder, imported when the hook
is first called; docs/GAMES.md walks through them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from typing import Any, ClassVar

import numpy as np

from retrograde.games.hooks import Costs, Encoding, Features, Figure, Genome, Picture, Policy, Sampling, Workflow
from retrograde.games.tiers import Tier

Position = Hashable

#: Child reference for "a child inside the loopy group", given without its index.
IN_GROUP = -2
#: Child reference for "a terminal child inside the loopy group, won by its side to move"
#: (a win at remoteness 0), given without its index.
WINNING_CHILD = -3
#: Child reference for "a terminal child inside the loopy group, lost by its side to move":
#: the position wins in one, and this is its row's only reference.
LOSING_CHILD = -4

#: One-ply classes of an index (`Game.one_ply_classes`): a hole; a position whose value the store
#: holds; a terminal win or loss (remoteness 0); a win in 1 (a move completes only the mover's
#: line); a loss in 1 (every move completes the opponent's line). A store in the "one-ply"
#: encoding holds no value for all but STORED (docs/STORE.md, format 4).
HOLE, STORED, TERMINAL_WIN, TERMINAL_LOSS, WIN_IN_1, LOSS_IN_1 = range(6)


@dataclass(frozen=True)
class Param:
    """One game option, described as data so the CLI and `games` can list it. `kind` is `bool`
    (a flag), `int`, or a function turning the option's text into its value."""

    name: str
    help: str
    kind: Callable[[str], Any] = bool
    required: bool = False
    metavar: str = "VALUE"
    #: False for an option that limits what a store holds, not the rules the game is played by.
    rule: bool = True
    #: The command-line flag when `--NAME` will not do (a Python keyword: quarto's `--from`).
    flag: str = ""

    @property
    def option(self) -> str:
        """The command-line flag: `flag`, else `--` and the name with dashes for underscores."""
        return self.flag or "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Expansion:
    """What a game's expand kernel returns for a chunk of one tier.

    `primitive[i]` is the terminal outcome of position start+i, 0 if it is not
    terminal, or `outcome.ILLEGAL` if the index holds no legal position.
    `children[i, j]` is a reference to the j-th child: the child's index plus the
    offset of its tier in the concatenation of the tier's child tiers (in a loopy group's
    first pass, IN_GROUP, WINNING_CHILD or LOSING_CHILD for children inside the group).
    A row's references end at its first -1 (or at the row's end); what follows is unused.
    """

    primitive: np.ndarray
    children: np.ndarray = field(repr=False)

    @classmethod
    def buffers(cls, rows: int, width: int, out: Expansion | None = None) -> Expansion:
        """Arrays for `rows` rows: views into `out` when given (reused across calls,
        which spares page faults on large chunks), else fresh arrays padded with -1."""
        if out is None:
            return cls(np.zeros(rows, dtype=np.int8), np.full((rows, width), -1, dtype=np.int64))
        return cls(out.primitive[:rows], out.children[:rows])


class Game(ABC):
    """A game instance: its parameters are fixed at construction and validated there."""

    name: ClassVar[str]
    summary: ClassVar[str]
    params_spec: ClassVar[tuple[Param, ...]] = ()
    notation: ClassVar[str]
    #: What the tier names mean, for `status`.
    tier_legend: ClassVar[str]
    #: Where tiers are many and each counts two things (Quixo's m{a}o{b}), what the sum of a
    #: tier's key counts: reports and plots group tiers by it. None: each tier stands alone.
    tier_group: ClassVar[str | None] = None
    #: True if `expand`, given a `group`, gives every terminal child inside the group by value
    #: (WINNING_CHILD, or LOSING_CHILD alone) instead of IN_GROUP: the loopy solver then need
    #: not propagate from terminal positions, whose parents took their values in the first
    #: pass (`check_game` holds a game to it).
    group_terminals_by_value: ClassVar[bool] = False
    #: True for a game that gives `one_ply_classes` and `one_ply_batch`: its stores leave out the
    #: values one ply of moves decides (the "one-ply" encoding of store format 4).
    one_ply: ClassVar[bool] = False
    #: Small instances (their `params`) that the self-tests solve and check (`check_game`,
    #: `check_hooks`, tests/test_hooks.py): a few thousand positions each.
    examples: ClassVar[tuple[dict[str, Any], ...]] = ()
    #: The game's own agents: agent name -> "module:Policy class" in the game's folder (`policy`).
    policies: ClassVar[dict[str, str]] = {}
    #: The course reports' players as their code played them: (agent name, report number) ->
    #: "module:Policy class"; the spec `AGENT:preset=NUMBER` plays it (`seed_player`).
    seed_players: ClassVar[dict[tuple[str, str], str]] = {}
    #: The course reports' training settings: (learner name, report number) -> the learner's
    #: option values (text) as that report trained; `train LEARNER:preset=NUMBER` takes them.
    learner_presets: ClassVar[dict[tuple[str, str], dict[str, str]]] = {}
    #: The genomes the course reports evolved, beside the game's own: report number ->
    #: "module:Genome class" (`train ga:genome=NUMBER`, and the `ga` agent of such an artifact).
    seed_genomes: ClassVar[dict[str, str]] = {}
    #: The named workflows of the game (`retrograde run`).
    workflows: ClassVar[tuple[Workflow, ...]] = ()
    #: The match results the course reports published for the game.
    figures: ClassVar[tuple[Figure, ...]] = ()

    @property
    @abstractmethod
    def params(self) -> dict[str, Any]:
        """Canonical, JSON-serialisable options identifying this instance."""

    @property
    def rules(self) -> dict[str, Any]:
        """The `params` that change how the game is played (not, e.g., how much of it a store holds)."""
        extent = {param.name for param in self.params_spec if not param.rule}
        return {key: value for key, value in self.params.items() if key not in extent}

    @property
    @abstractmethod
    def max_moves(self) -> int:
        """An upper bound on the number of moves from any position (kernel array width)."""

    @property
    def max_remoteness(self) -> int | None:
        """An upper bound on remoteness (plies to the end), or None if unknown in advance."""
        return None

    @abstractmethod
    def tiers(self) -> tuple[Tier, ...]:
        """Every tier, children before parents (the order they are solved in)."""

    # --- positions in SPEC notation -------------------------------------------------
    @abstractmethod
    def parse(self, text: str) -> Position:
        """Parse SPEC notation; raise `BadPosition` naming the problem."""

    @abstractmethod
    def format(self, position: Position) -> str:
        """Format a position in SPEC notation (parse(format(p)) == p)."""

    @property
    @abstractmethod
    def initial_position(self) -> Position:
        """The position a game of this instance starts from."""

    def render(self, position: Position) -> str:
        """A human-friendly picture of a position (the notation, unless a game draws a board)."""
        return self.format(position)

    def picture(self, position: Position) -> Picture:
        """The position drawn as a grid of cells (`hooks.Picture`), for the explorer's board; this
        default draws no board, only the notation as the caption."""
        return Picture(1, 1, (None,), caption=self.format(position))

    # --- rules (plain Python reference) ---------------------------------------------
    @abstractmethod
    def locate(self, position: Position) -> tuple[str, int]:
        """Return (tier name, index) of a legal position."""

    def locate_many(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Tier names (str array) and indices (int64 array) of many legal positions: `locate`
        for each, which games with large batches to probe override with array code."""
        located = [self.locate(position) for position in positions]
        return (np.array([name for name, _ in located], dtype=str),
                np.array([index for _, index in located], dtype=np.int64))

    def representative(self, position: Position) -> Position:
        """The member of the position's symmetry class that a store keeps (the one at the least
        index of its tier). Games that fold symmetric positions together override it (and
        `locate_stored`, `orbit_sizes`, and their kernels); the others keep every position."""
        return position

    def locate_stored(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Where a store keeps each position's value: `locate_many` of their representatives."""
        return self.locate_many([self.representative(position) for position in positions])

    def orbit_sizes(self, tier: Tier, start: int, stop: int, outcome: np.ndarray) -> np.ndarray | None:
        """How many positions each index start..stop-1 of `tier` stands for, given the chunk's
        solved `outcome`s: its symmetry class's size at a representative, 0 at a hole. None:
        every index stands for itself (a game that keeps every position)."""
        return None

    @abstractmethod
    def position_at(self, tier: Tier, index: int) -> Position | None:
        """The position at an index of a tier, or None if the index holds no legal position."""

    @abstractmethod
    def moves(self, position: Position) -> list[tuple[str, Position]]:
        """Every legal move as (move text, child position); empty at terminal positions."""

    @abstractmethod
    def primitive(self, position: Position) -> int:
        """The outcome code of a terminal position for the side to move, else 0."""

    def why_illegal(self, position: Position, text: str) -> str:
        """Why `text` (lower case, as `moves` writes moves) is not a legal move from `position`,
        in one line, for `play` to say before asking again. This generic reason shows the
        notation; games override it with precise ones and fall back to it."""
        if self.primitive(position):
            return "the game is over: there are no moves"
        return f"{text!r} is not a legal move here (notation: {self.notation})"

    def placement(self, move: str) -> str:
        """The part of `move` that says where to play, for reports that tell a bad placement from a
        bad choice of what to hand over (Quarto); the whole move in games that hand nothing over."""
        return move

    # --- kernels ----------------------------------------------------------------------
    @abstractmethod
    def expand(self, tier: Tier, start: int, stop: int, child_offsets: np.ndarray, *,
               group: tuple[str, ...] = (), out: Expansion | None = None) -> Expansion:
        """Terminal outcomes and child references of indices start..stop-1 of `tier`.

        `child_offsets[j]` is where `tier.children[j]` starts in the concatenated
        child arrays. Children in a tier of `group` (the loopy group being solved)
        may be given as `IN_GROUP` without their index, one a move: the loopy solver only
        counts them (or by value if terminal, see `group_terminals_by_value`), and `parents`
        gives the weights that take the count down.
        `out` (from `Expansion.buffers`) is filled instead of new arrays.
        """

    def parents(self, tier: Tier, indices: np.ndarray, group_offsets: dict[str, int], *,
                out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Loopy games only: for positions of `tier`, references to their parents inside the
        tier's loopy group (tiers solved together), each parent once, a row ending at its first
        -1; and each parent's weight: its moves into the position (what a win of the position
        takes off the parent's count of children inside the group, counted a move each by
        `expand`; more than 1 where several moves lead there, or the parent stands for a class
        of positions).

        `group_offsets[name]` is where each group tier starts in the group's concatenation;
        `out` (from `parents_buffers`) is filled instead of new arrays.
        """
        raise NotImplementedError(f"{self.name} has no loopy tiers")

    def expand_kernel(self, tier: Tier, group: tuple[str, ...]) -> tuple:
        """Loopy games only: `expand` of `tier` with `group` as a numba kernel of the signature
        `games.expand_kernel.EXPAND`, and the arrays it takes first: (kernel, params, table,
        lines, symmetry). The loopy first pass expands a whole chunk in one kernel call with it
        (a call a batch of rows, each taking the interpreter's lock back, kept two worker
        threads waiting on each other)."""
        raise NotImplementedError(f"{self.name} has no loopy tiers")

    def one_ply_classes(self, tier: Tier, start: int, stop: int, out: np.ndarray) -> np.ndarray:
        """`one_ply` games only: out[i] = the one-ply class (HOLE, STORED, TERMINAL_WIN, ...) of
        index start+i of `tier`, for a whole chunk (a numba kernel); returns `out[:stop - start]`."""
        raise NotImplementedError(f"{self.name} has no one-ply classes")

    def one_ply_batch(self, tier: Tier, indices: np.ndarray) -> np.ndarray:
        """`one_ply` games only: the one-ply classes of a few indices of `tier` (uint8), with
        numpy alone (no numba: what a probe needs)."""
        raise NotImplementedError(f"{self.name} has no one-ply classes")

    @staticmethod
    def parents_buffers(rows: int, width: int, out: tuple[np.ndarray, np.ndarray] | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
        """(references, weights) arrays for `parents`: int64 and int8, `rows` x `width`, not
        initialised (`parents` ends each row itself); views into `out` when given."""
        if out is None:
            return np.empty((rows, width), dtype=np.int64), np.empty((rows, width), dtype=np.int8)
        return out[0][:rows], out[1][:rows]

    # --- conveniences shared by all games -------------------------------------------
    def tier(self, name: str) -> Tier:
        """The tier called `name` (KeyError if the instance has none)."""
        return self._tiers_by_name[name]

    @cached_property
    def _tiers_by_name(self) -> dict[str, Tier]:
        return {tier.name: tier for tier in self.tiers()}

    def describe(self) -> str:
        """Game name and options as one would type them on the command line."""
        import shlex

        flags = {param.name: param.option for param in self.params_spec}
        parts = [self.name]
        for key, value in self.params.items():
            if value is None or value is False or value == 0:  # unset, off, or nothing left out
                continue
            flag = flags[key]
            if value is True:
                parts.append(flag)
            elif isinstance(value, (list, tuple)):
                parts.append(f"{flag} {','.join(map(str, value))}")
            else:
                parts.append(f"{flag} {shlex.quote(str(value))}")
        return " ".join(parts)

    # --- hooks: what the layers above need (see HOOKS) --------------------------------
    def costs(self) -> Costs:
        """What solving this instance costs (the estimate before a solve)."""
        return Costs()

    def search(self):
        """The game's alpha-beta search (`search.base.Search`), or None."""
        return None

    def playouts(self):
        """The game's compact-state rules for random playouts (`search.playouts.Playouts`), or None."""
        return None

    def genome(self) -> Genome | None:
        """The game's own GA genome, or None."""
        return None

    def features(self, genome: np.ndarray | None = None) -> Features | None:
        """The board features after each move, or None; `genome`: the weights of the features'
        `genome_option` where they have one (None: its default preset)."""
        return None

    def encoding(self) -> Encoding | None:
        """The position as a Q network's input and the moves as its outputs (`dqn`), or None."""
        return None

    def sampling(self) -> Sampling | None:
        """How `validate --game` samples positions of a game no store holds whole, or None
        (validated against a store)."""
        return None

    @classmethod
    def policy(cls, name: str) -> type[Policy] | None:
        """The class of the game's own agent `name` (`policies`), or None."""
        return _load(cls.policies.get(name))

    @classmethod
    def seed_player(cls, name: str, preset: str) -> type[Policy] | None:
        """The class playing agent `name` as course report `preset`'s code did (`seed_players`), or None."""
        return _load(cls.seed_players.get((name, preset)))

    def seed_genome(self, report: str) -> Genome | None:
        """The genome course report `report` evolved (`seed_genomes`), or None."""
        genome = _load(self.seed_genomes.get(report))
        return None if genome is None else genome(self)

    @classmethod
    def presets(cls, name: str) -> tuple[str, ...]:
        """The reports whose players agent `name` can play as (`seed_players`)."""
        return tuple(sorted(preset for agent, preset in cls.seed_players if agent == name))


def _load(where: str | None) -> type | None:
    """The class a "module:Class" text names (None for None)."""
    if where is None:
        return None
    module, _, attribute = where.partition(":")
    return getattr(import_module(module), attribute)


@dataclass(frozen=True)
class Hook:
    """One hook of the game interface: whether every game must give it, and what it must hold."""

    name: str
    required: bool
    contract: str


#: Every hook of `Game`, required or optional, with its preconditions and what it must
#: guarantee (GamesmanOne's habit); `check_game` and `check_hooks` hold games to them.
HOOKS: tuple[Hook, ...] = (
    Hook("name, summary, notation, tier_legend", True, "class texts: the registry name, one line for "
         "`retrograde games`, the position notation, and what the tier names mean"),
    Hook("tier_group", False, "what the sum of a tier's key counts, where reports group tiers by it "
         "(None: each tier stands alone)"),
    Hook("params_spec, params", True, "the options (`Param`) and the instance's canonical, JSON-serialisable "
         "values; make_game(name, params) rebuilds the instance"),
    Hook("examples", True, "small instances (params) the self-tests solve and check"),
    Hook("tiers", True, "every tier, children first; every child is a listed tier, the tier graph's "
         "strongly connected components are the loopy groups"),
    Hook("max_moves", True, "at least the moves of any position (kernel row width)"),
    Hook("parse, format, initial_position", True, "parse(format(p)) == p; parse raises BadPosition in one line"),
    Hook("locate, position_at", True, "inverse of each other on legal positions; position_at gives None at a hole"),
    Hook("moves, primitive", True, "a terminal position (primitive != 0) has no moves; every move leads into "
         "a declared child tier, to a legal position"),
    Hook("expand", True, "the kernel agrees with moves and primitive: ILLEGAL at holes, children by their "
         "representatives' references (IN_GROUP etc. inside a loopy group's first pass)"),
    Hook("parents, expand_kernel, group_terminals_by_value", False, "required where a tier is loopy: each parent "
         "inside the group once, weighed by its moves into the position's class; expand as a first-class kernel "
         "(games.expand_kernel.EXPAND) giving what expand gives in the group's first pass"),
    Hook("one_ply, one_ply_classes, one_ply_batch", False, "a game whose store leaves out what one ply decides: "
         "the class of each index (HOLE at holes, TERMINAL_WIN/LOSS where primitive says so, WIN_IN_1 where a move "
         "completes only the mover's line, LOSS_IN_1 where every move completes the opponent's, else STORED), the "
         "kernel over a chunk and the numpy batch equal"),
    Hook("representative, locate_stored, orbit_sizes", False, "a game folding symmetric positions: the "
         "representative is the class's member at the least index, the others are holes"),
    Hook("max_remoteness", False, "an upper bound on remoteness (the store's remoteness dtype)"),
    Hook("render, why_illegal, placement, locate_many", False, "a board picture, why a move is illegal, the "
         "part of a move that places (reports), array code for many positions"),
    Hook("picture", False, "the position as a grid of cells (hooks.Picture) for the explorer: the same size for "
         "every position of an instance, so that the cells a move changes are those that differ from its child's"),
    Hook("costs", False, "measured solve rate, stored bytes, position share, too-big hint (the estimate)"),
    Hook("search", False, "a search.base.Search: root_scores of every move in game.moves order; evals, default "
         "first; adaptive_depth and solve_scores optional (minimax, greedy)"),
    Hook("playouts", False, "a search.playouts.Playouts: terminal, children in game.moves order, a random child "
         "(mcts)"),
    Hook("policies", False, "agents of the game's own (`Policy` classes): expert rules, the reports' players"),
    Hook("seed_players", False, "the course reports' players as their code played them (`Policy` classes), "
         "by (agent name, report number): `AGENT:preset=NUMBER`; each summary says how it differs from AGENT"),
    Hook("learner_presets", False, "the course reports' training settings, by (learner name, report number): "
         "`LEARNER:preset=NUMBER` trains as that report did; each value an option the learner takes"),
    Hook("genome", False, "the game's own GA genome (the ga agent and trainer); without it, ga weighs features"),
    Hook("seed_genomes", False, "the genomes the course reports evolved, by report number: `train ga:genome=NUMBER` "
         "evolves one, and a ga artifact names it by its kind"),
    Hook("features", False, "board features after each move in [0, 1] with each ending move's value (ga "
         "weights, rl linear Q where no Q table fits)"),
    Hook("encoding", False, "a position as a Q network's input from the mover's view, each move one of a fixed "
         "set of network outputs (the dqn agent and trainer)"),
    Hook("sampling", False, "a game no store holds whole: tiers and baseline agents to sample positions from; "
         "its search must give solve_scores, and the game must build with its default options"),
    Hook("workflows, figures", False, "the course reports' presets: named workflows, published figures"),
)
