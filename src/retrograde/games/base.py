"""The one game interface that solvers, agents, stores and the CLI share.

A game instance splits its positions into tiers (`games.tiers`). A tier is a numbered range
of indices 0..size-1; every move leads into one of the tier's declared child tiers. Each game
gives two views of its rules:

* plain Python (`parse`, `format`, `locate`, `position_at`, `moves`, `primitive`):
  readable, used for probing single positions, playing, and as the reference the
  kernels are tested against;
* a numba kernel behind `expand`, which turns a chunk of indices into terminal
  outcomes and child references (array work, no Python loop per position).

That is the required part (`REQUIRED`, below). Everything else a game may offer is a
capability (`CAPABILITIES`): one attribute that returns an object, or None where the game lacks
it, each with the fallback the layers above use then (`games.capabilities`): loopy tiers,
symmetry, the one-ply store format, a display, its costs, its search and playout rules, its own
agents, genome, features and network input, sampling without a store, and the course reports'
presets. A game with the required part alone solves, probes, plays and validates with the
generic agents; docs/GAMES.md walks through both parts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from retrograde.errors import BadPosition
from retrograde.games.capabilities import (Costs, Course, Display, Features, Genome, Loopy, NetworkInput, OnePly,
                                           Policy, Sampling, Symmetry, locate_each)
from retrograde.games.tiers import Tier

#: A game's own value for a position: what `parse` gives, `moves` takes and `format` writes (hashable;
#: the Python API's `retrograde.Position` wraps one with its game).
State = Hashable

#: Child reference for "a child inside the loopy group", given without its index.
IN_GROUP = -2
#: Child reference for "a terminal child inside the loopy group, won by its side to move"
#: (a win at remoteness 0), given without its index.
WINNING_CHILD = -3
#: Child reference for "a terminal child inside the loopy group, lost by its side to move":
#: the position wins in one, and this is its row's only reference.
LOSING_CHILD = -4

#: One-ply classes of an index (`capabilities.OnePly`): a hole; a position whose value the store
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
    """A game instance: its parameters are fixed at construction and validated there.

    The required part: the class texts (`name`, `summary`, `notation`, `tier_legend`), the
    options (`params_spec`, `params`, `examples`), the tiers (`tiers`, `max_moves`), the notation
    (`parse`, `format`, `initial_position`), the rules (`locate`, `position_at`, `moves`,
    `primitive`) and the kernel (`expand`). The capabilities below are None unless a game gives
    them; the conveniences at the end are shared by all games and never overridden."""

    name: ClassVar[str]
    summary: ClassVar[str]
    params_spec: ClassVar[tuple[Param, ...]] = ()
    notation: ClassVar[str]
    #: What the tier names mean, for `status`.
    tier_legend: ClassVar[str]
    #: Small instances (their `params`) that the self-tests solve and check (`check_game`,
    #: `check_capabilities`, tests/test_capabilities.py): a few thousand positions each.
    examples: ClassVar[tuple[dict[str, Any], ...]] = ()

    @property
    @abstractmethod
    def params(self) -> dict[str, Any]:
        """Canonical, JSON-serialisable options identifying this instance."""

    @property
    @abstractmethod
    def max_moves(self) -> int:
        """An upper bound on the number of moves from any position (kernel array width)."""

    @abstractmethod
    def tiers(self) -> tuple[Tier, ...]:
        """Every tier, children before parents (the order they are solved in)."""

    # --- positions in SPEC notation -------------------------------------------------
    @abstractmethod
    def parse(self, text: str) -> State:
        """Parse SPEC notation; raise `BadPosition` naming the problem."""

    @abstractmethod
    def format(self, position: State) -> str:
        """Format a position in SPEC notation (parse(format(p)) == p)."""

    @property
    @abstractmethod
    def initial_position(self) -> State:
        """The position a game of this instance starts from."""

    # --- rules (plain Python reference) ---------------------------------------------
    @abstractmethod
    def locate(self, position: State) -> tuple[str, int]:
        """Return (tier name, index) of a legal position."""

    @abstractmethod
    def position_at(self, tier: Tier, index: int) -> State | None:
        """The position at an index of a tier, or None if the index holds no legal position."""

    @abstractmethod
    def moves(self, position: State) -> list[tuple[str, State]]:
        """Every legal move as (move text, child position); empty at terminal positions."""

    @abstractmethod
    def primitive(self, position: State) -> int:
        """The outcome code of a terminal position for the side to move, else 0."""

    # --- kernel -----------------------------------------------------------------------
    @abstractmethod
    def expand(self, tier: Tier, start: int, stop: int, child_offsets: np.ndarray, *,
               group: tuple[str, ...] = (), out: Expansion | None = None) -> Expansion:
        """Terminal outcomes and child references of indices start..stop-1 of `tier`.

        `child_offsets[j]` is where `tier.children[j]` starts in the concatenated
        child arrays. Children in a tier of `group` (the loopy group being solved)
        may be given as `IN_GROUP` without their index, one a move: the loopy solver only
        counts them (or by value if terminal, see `Loopy.group_terminals_by_value`), and
        `Loopy.parents` gives the weights that take the count down.
        `out` (from `Expansion.buffers`) is filled instead of new arrays.
        """

    # --- many positions at once (probes over stdin) --------------------------------------
    # A *batch* is the game's form of many positions: here a list of states, each hook the rule
    # above applied to each; a game with array forms of its positions overrides all five
    # together, so that a probe of many positions runs without a Python loop per position.
    def batch_of(self, positions: Sequence[State]) -> Any:
        """These positions as a batch."""
        return list(positions)

    def parse_many(self, texts: Sequence[str]) -> tuple[Any, list[tuple[int, BadPosition]]]:
        """The batch of the texts that parse, in order, and (slot, error) of each that does not."""
        return parse_each(self, texts)

    def format_many(self, batch) -> np.ndarray:
        """`format` of each position of a batch, as a numpy array of str (or of ASCII bytes)."""
        return np.array([self.format(position) for position in batch], dtype=str)

    def children_many(self, batch) -> tuple[np.ndarray, np.ndarray, Any]:
        """Each position's move count (int64), every move's text (a numpy array of str, or of
        ASCII bytes) and every child (a batch): positions one after another, a position's moves
        in `moves` order."""
        moves = [self.moves(position) for position in batch]
        return (np.array([len(position_moves) for position_moves in moves], dtype=np.int64),
                np.array([move for position_moves in moves for move, _ in position_moves], dtype=str),
                self.batch_of([child for position_moves in moves for _, child in position_moves]))

    def locate_stored_many(self, batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`locate_stored` of each position of a batch: tier names, each position's tier as a
        number among them (int64), and its index."""
        return numbered_tiers(*self.locate_stored(batch))

    # --- optional facts: None where unknown --------------------------------------------
    #: An upper bound on remoteness (plies to the end), or None if unknown in advance (the
    #: store's remoteness dtype, the longest game a match lets run).
    max_remoteness: int | None = None
    #: Where tiers are many and each counts two things (Quixo's m{a}o{b}), what the sum of a
    #: tier's key counts: reports and plots group tiers by it. None: each tier stands alone.
    tier_group: ClassVar[str | None] = None

    # --- capabilities: an object, or None where the game lacks it (CAPABILITIES) ---------
    @property
    def loopy(self) -> Loopy | None:
        """The loopy solver's kernels (`capabilities.Loopy`)."""
        return None

    @property
    def symmetry(self) -> Symmetry | None:
        """Symmetric positions folded together (`capabilities.Symmetry`)."""
        return None

    @property
    def one_ply(self) -> OnePly | None:
        """The one-ply store format (`capabilities.OnePly`)."""
        return None

    @property
    def display(self) -> Display | None:
        """A text board, a picture of cells and why a move is illegal (`capabilities.Display`)."""
        return None

    @property
    def costs(self) -> Costs | None:
        """What solving this instance costs, measured (the estimate before a solve)."""
        return None

    @property
    def search(self):
        """The game's alpha-beta search (`search.base.Search`)."""
        return None

    @property
    def playouts(self):
        """The game's compact-state rules for random playouts (`search.playouts.Playouts`)."""
        return None

    @property
    def policies(self) -> dict[str, type[Policy]] | None:
        """The game's own agents: agent name -> `Policy` class."""
        return None

    @property
    def genome(self) -> Genome | None:
        """The game's own GA genome."""
        return None

    @property
    def features(self) -> Features | None:
        """The board features after each move (with their genome's default preset)."""
        return None

    @property
    def network_input(self) -> NetworkInput | None:
        """The position as a Q network's input and the moves as its outputs (`dqn`)."""
        return None

    @property
    def sampling(self) -> Sampling | None:
        """How `validate --game` samples positions of a game no store holds whole."""
        return None

    @property
    def course(self) -> Course | None:
        """The course reports' presets (`capabilities.Course`)."""
        return None

    # --- conveniences shared by all games (never overridden) ---------------------------
    @property
    def rules(self) -> dict[str, Any]:
        """The `params` that change how the game is played (not, e.g., how much of it a store holds)."""
        extent = {param.name for param in self.params_spec if not param.rule}
        return {key: value for key, value in self.params.items() if key not in extent}

    def tier(self, name: str) -> Tier:
        """The tier called `name` (KeyError if the instance has none)."""
        return self._tiers_by_name[name]

    @cached_property
    def _tiers_by_name(self) -> dict[str, Tier]:
        return {tier.name: tier for tier in self.tiers()}

    def locate_stored(self, positions: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        """Tier names (str array) and indices (int64 array) where a store keeps each position's
        value: its representative's where the game folds symmetric positions, else its own."""
        symmetry = self.symmetry
        return locate_each(self, positions) if symmetry is None else symmetry.locate_stored(positions)

    def orbit_sizes(self, tier: Tier, start: int, stop: int, outcome: np.ndarray) -> np.ndarray | None:
        """How many positions each index start..stop-1 of `tier` stands for (`Symmetry.orbit_sizes`);
        None where every index stands for itself."""
        symmetry = self.symmetry
        return None if symmetry is None else symmetry.orbit_sizes(tier, start, stop, outcome)

    def orbit_sizes_at(self, tier: Tier, indices: np.ndarray, outcome: np.ndarray) -> np.ndarray | None:
        """`orbit_sizes` at the given indices of `tier`, `outcome` theirs (`Symmetry.orbit_sizes_at`);
        None where every index stands for itself."""
        symmetry = self.symmetry
        return None if symmetry is None else symmetry.orbit_sizes_at(tier, indices, outcome)

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


def parse_each(game: Game, texts: Sequence[str]) -> tuple[list[State], list[tuple[int, BadPosition]]]:
    """`game.parse` of each text: the states of those that parse, and (slot, error) of the others."""
    states, bad = [], []
    for slot, text in enumerate(texts):
        try:
            states.append(game.parse(text))
        except BadPosition as exc:
            bad.append((slot, exc))
    return states, bad


def numbered_tiers(names: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tier names, indices) as `locate_stored_many` gives them: each distinct name once, and a
    number a position for its name."""
    tiers, tier_of = np.unique(names, return_inverse=True)
    return tiers, tier_of.reshape(-1).astype(np.int64), indices


@dataclass(frozen=True)
class Part:
    """One name (or a few names) of the game interface with what it must hold: a required one,
    or a capability with its fallback where a game lacks it."""

    names: str
    contract: str
    #: What the layers above do where a game lacks the capability ("" for a required name).
    fallback: str = ""


#: The required part: what every game gives (`check_game` holds games to it).
REQUIRED: tuple[Part, ...] = (
    Part("name, summary, notation, tier_legend", "class texts: the registry name, one line for `retrograde games`, "
         "the position notation, and what the tier names mean"),
    Part("params_spec, params", "the options (`Param`) and the instance's canonical, JSON-serialisable values; "
         "make_game(name, params) rebuilds the instance"),
    Part("examples", "small instances (params) the self-tests solve and check"),
    Part("tiers", "every tier, children first; every child is a listed tier, the tier graph's strongly connected "
         "components are the loopy groups"),
    Part("max_moves", "at least the moves of any position (kernel row width)"),
    Part("parse, format, initial_position", "parse(format(p)) == p; parse raises BadPosition in one line"),
    Part("locate, position_at", "inverse of each other on legal positions; position_at gives None at a hole"),
    Part("moves, primitive", "a terminal position (primitive != 0) has no moves; every move leads into a declared "
         "child tier, to a legal position"),
    Part("expand", "the kernel agrees with moves and primitive: ILLEGAL at holes, children by their representatives' "
         "references (IN_GROUP etc. inside a loopy group's first pass)"),
)

#: The capabilities, each one attribute of the game (`check_capabilities` holds games to them).
CAPABILITIES: tuple[Part, ...] = (
    Part("loopy", "Loopy: each parent inside the group once, weighed by its moves into the position's class; "
         "expand_kernel (games.expand_kernel.EXPAND) gives what expand gives in the group's first pass",
         "the tiers must not loop: plan and solve refuse a loopy group in one line"),
    Part("symmetry", "Symmetry: the representative is the class's member at the least index, the others are "
         "holes; orbit_sizes counts each class", "every position stands for itself"),
    Part("one_ply", "OnePly: the class of each index (HOLE at holes, TERMINAL_WIN/LOSS where primitive says so, "
         "WIN_IN_1 where a move completes only the mover's line, LOSS_IN_1 where every move completes the "
         "opponent's, else STORED); the chunk kernel and the numpy batch equal", "the store keeps every value"),
    Part("display", "Display: a text board, a picture of cells (the same size for every position of an "
         "instance), why a move is illegal", "the notation as the board (`display_of`)"),
    Part("costs", "Costs: measured solve rate, stored bytes, position share, too-big hint",
         "the estimate uses low defaults and says it is unmeasured"),
    Part("search", "search.base.Search: root_scores of every move in game.moves order; evals, default first; "
         "adaptive_depth and solve_scores optional", "minimax and greedy refuse the game in one line"),
    Part("playouts", "search.playouts.Playouts: terminal, children in game.moves order, a random child",
         "mcts plays out with the generic rules built from moves and primitive (`search.playouts.playouts_of`)"),
    Part("policies", "agent name -> Policy class: agents of the game's own (expert rules, search-based players)",
         "only the generic agents play it"),
    Part("genome", "Genome: the game's own GA genome (the ga agent and trainer)", "ga weighs the features"),
    Part("features", "Features: board features after each move in [0, 1] with each ending move's value",
         "ga needs a genome, rl keeps a Q table (or refuses where none fits)"),
    Part("network_input", "NetworkInput: a position as a Q network's input from the mover's view, each move one "
         "of a fixed set of outputs", "dqn refuses the game in one line"),
    Part("sampling", "Sampling: tiers and baseline agents to sample positions from (a game no store holds "
         "whole); its search must give solve_scores, the game must build with its default options",
         "validate needs a solved store"),
    Part("course", "Course: the course reports' workflows, published figures, players (`AGENT:preset=NUMBER`), "
         "training settings (`LEARNER:preset=NUMBER`) and genomes (`train ga:genome=NUMBER`)",
         "no workflow, figure or preset"),
)
