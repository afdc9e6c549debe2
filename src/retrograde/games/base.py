"""The one game interface that solvers, agents, stores and the CLI share.

A game instance splits its positions into tiers. A tier is a numbered range of
indices 0..size-1; every move leads into one of the tier's declared child tiers.
Each game gives two views of its rules:

* plain Python (`parse`, `format`, `locate`, `position_at`, `moves`, `primitive`):
  readable, used for probing single positions, playing, and as the reference the
  kernels are tested against;
* a numba kernel behind `expand`, which turns a chunk of indices into terminal
  outcomes and child references (array work, no Python loop per position).

A game may fold symmetric positions together: a store then keeps one position per
symmetry class, its `representative`, and the kernels refer to children and parents by
their representatives' indices; every other index is a hole.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar
from collections.abc import Callable, Hashable, Sequence

import numpy as np

Position = Hashable

#: Child reference for "a child inside the loopy group", given without its index.
IN_GROUP = -2
#: Child reference for "a terminal child inside the loopy group, won by its side to move"
#: (a win at remoteness 0), given without its index.
WINNING_CHILD = -3
#: Child reference for "a terminal child inside the loopy group, lost by its side to move":
#: the position wins in one, and this is its row's only reference.
LOSING_CHILD = -4


@dataclass(frozen=True)
class Tier:
    """A class of positions solved as one unit of the plan.

    `children` names the tiers that this tier's moves lead into, in the order the
    expand kernel refers to them; a loopy tier lists itself (and its partners).
    `key` is what the game's kernel needs to identify the tier (plain integers).
    """

    name: str
    size: int
    children: tuple[str, ...]
    key: tuple[int, ...]


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
    #: True if `expand`, given a `group`, gives every terminal child inside the group by value
    #: (WINNING_CHILD, or LOSING_CHILD alone) instead of IN_GROUP: the loopy solver then need
    #: not propagate from terminal positions, whose parents took their values in the first
    #: pass (`check_game` holds a game to it).
    group_terminals_by_value: ClassVar[bool] = False
    #: Positions solved per second per core, measured (BENCHMARKS.md), for `pipeline.estimate`
    #: to say how long a solve takes before it starts. A game not measured yet keeps this low figure.
    solve_rate: float = 1_000.0
    #: Bytes a position takes in a finished store, measured after compression; None: the
    #: uncompressed size (2 bits of outcome and the remoteness dtype), an upper bound.
    stored_bytes_per_position: ClassVar[float | None] = None
    #: The share of a tier's indices that hold positions (for the estimate: a loopy group's
    #: propagation keeps positions only, `solvers.members`); below 1 where a game has holes.
    position_share: ClassVar[float] = 1.0
    #: How to solve a smaller part of an instance too big for the machine (for the refusal), or "".
    too_big_hint: ClassVar[str] = ""
    #: The tiers `validate --game` samples positions from, for a game no store holds whole
    #: (Quarto): each sampled position is solved by exact search. Empty: validated against a store.
    sampled_tiers: ClassVar[tuple[str, ...]] = ()

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
