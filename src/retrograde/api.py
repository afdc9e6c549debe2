"""The Python API: read-only access to a solved store, and agents built from specs, matches,
training and validation reports over it.

Positions are given in the game's notation (or as `Position` objects) and come back
as `Position` objects; values are words ("win", "loss", "draw") from the side to
move's view, remoteness is plies to the end (None for draws), as `probe --json`
prints them. Nothing here writes to a store.

    >>> import retrograde
    >>> with retrograde.open_store("ttt.zarr") as store:
    ...     store.probe("xx./oo./... x").value
    'win'
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from retrograde.agents.lookup import optimal_moves
from retrograde.data import probing
from retrograde.data import store as stores
from retrograde.errors import BadOption, BadPosition, MissingTierError, StoreError
from retrograde.games import Game
from retrograde.games.position import Position

__all__ = ["Agent", "MissingTierError", "MoveResult", "Position", "ProbeResult", "SolvedStore", "TierInfo",
           "TierValues", "ValueResult", "agent", "explore", "match", "open_store", "solve", "train", "validate"]


def _position(game: Game, given: str | Position, holder: str) -> Position:
    """`given` (text in the game's notation, or a `Position`) as a Position of `game`; `holder`
    says in errors what holds the game ("store '...' holds").

    :raises BadPosition: the text is not a legal position of `game`, or a `Position` of another
        game is given."""
    if isinstance(given, Position):
        if given.game.describe() != game.describe():
            raise BadPosition(f"{given!r} is a position of {given.game.describe()!r}, {holder} {game.describe()!r}")
        return given
    if not isinstance(given, str):
        raise BadPosition(f"{given!r}: give a position as text in the game's notation or a Position")
    return Position(game, game.parse(given))


class ValueResult(NamedTuple):
    """A position's value for the side to move; remoteness is None for draws."""

    position: Position
    value: str
    remoteness: int | None


class MoveResult(NamedTuple):
    """A move and what it achieves for the side making it, in plies from before the move."""

    move: str
    position: Position
    value: str
    remoteness: int | None


@dataclass(frozen=True)
class ProbeResult:
    """A position's value and every legal move's (none at a terminal position).

    `best_moves` are the moves the lookup agent chooses among: the fastest win, else
    a draw, else the slowest loss.
    """

    position: Position
    value: str
    remoteness: int | None
    moves: tuple[MoveResult, ...]
    best_moves: tuple[MoveResult, ...]


class TierInfo(NamedTuple):
    """What the store records about a tier; the counts cover its solved chunks."""

    name: str
    size: int
    status: str
    win: int
    loss: int
    draw: int


class TierValues(NamedTuple):
    """A solved tier's values, one entry per index: `outcome` codes (0 no position,
    1 loss, 2 draw, 3 win; see `retrograde.outcome`) and `remoteness` (0 for draws)."""

    name: str
    outcome: np.ndarray
    remoteness: np.ndarray


class SolvedStore:
    """A store opened read-only for probing. Use `open_store`; close it (or use `with`)."""

    def __init__(self, store: stores.Store):
        self._store: stores.Store | None = store
        self.path: Path = store.path
        self.game: Game = store.game

    # --- lifecycle --------------------------------------------------------------------
    def close(self) -> None:
        """Drop cached data; safe to call twice. The store cannot be read afterwards."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> SolvedStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        closed = " (closed)" if self._store is None else ""
        return f"<SolvedStore {str(self.path)!r} {self.game.describe()}{closed}>"

    @property
    def _opened(self) -> stores.Store:
        if self._store is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        return self._store

    # --- positions --------------------------------------------------------------------
    def position(self, text: str | Position) -> Position:
        """The position written `text` in the game's notation.

        :raises BadPosition: the text is not a legal position of this game instance,
            or a `Position` of another game is given.
        """
        return _position(self.game, text, f"store {str(self.path)!r} holds")

    @property
    def initial_position(self) -> Position:
        """The position a game of this instance starts from."""
        return Position(self.game, self.game.initial_position)

    def position_at(self, tier: str, index: int) -> Position | None:
        """The position at an index of a tier (None where the index holds no position, or holds
        a board whose symmetry class is kept at another index). Quixo stores positions from the
        mover's view: they come back with x to move.

        :raises MissingTierError: the store has no such tier.
        :raises IndexError: the index is outside the tier.
        """
        try:
            tier_spec = self._opened.plan.tier(tier)
        except KeyError:
            raise MissingTierError(f"store {str(self.path)!r}: tier {tier!r} is not part of this store "
                                   f"({self.game.describe()})") from None
        if not 0 <= index < tier_spec.size:
            raise IndexError(f"store {str(self.path)!r}: index {index} is outside tier {tier} "
                             f"(size {tier_spec.size})")
        state = self.game.position_at(self.game.tier(tier), int(index))
        if state is None or int(self.game.locate_stored([state])[1][0]) != index:
            return None  # no position, or a symmetric board whose class is kept at another index
        return Position(self.game, state)

    # --- values -----------------------------------------------------------------------
    def probe(self, position: str | Position) -> ProbeResult:
        """The value of `position` and of every legal move from it.

        :raises BadPosition: the position is not one of this game instance.
        :raises MissingTierError: its tier, or a tier its moves lead into, is not solved.
        """
        position = self.position(position)
        try:
            (analysis,) = probing.analyse(self._opened, [position.state])
        except MissingTierError as exc:
            raise MissingTierError(f"position {str(position)!r}: {exc}") from None
        return ProbeResult(position, analysis.value.name, analysis.value.remoteness,
                           tuple(map(self._move, analysis.moves)),
                           tuple(map(self._move, optimal_moves(analysis.moves))))

    def get(self, position: str | Position, default: Any = None) -> ProbeResult | Any:
        """Like `probe`, but `default` where a tier it needs is not solved.

        :raises BadPosition: the position is not one of this game instance.
        """
        parsed = self.position(position)
        try:
            return self.probe(parsed)
        except MissingTierError:
            return default

    def best_moves(self, position: str | Position) -> tuple[MoveResult, ...]:
        """The moves perfect play chooses among (see `ProbeResult.best_moves`)."""
        return self.probe(position).best_moves

    def values(self, positions: Iterable[str | Position]) -> list[ValueResult]:
        """Values of many positions, read tier by tier (each chunk decoded once).

        :raises BadPosition: a position is not one of this game instance (the error names it).
        :raises MissingTierError: a position's tier is not solved.
        """
        parsed = [self.position(position) for position in positions]
        found = probing.values(self._opened, [position.state for position in parsed])
        return [ValueResult(position, value.name, value.remoteness) for position, value in zip(parsed, found)]

    # --- tiers ------------------------------------------------------------------------
    @property
    def tiers(self) -> dict[str, TierInfo]:
        """Every tier of the store by name, in solve order (children first)."""
        store = self._opened
        result = {}
        for plan in store.plan.tiers:
            record = store.record(plan.name)
            result[plan.name] = TierInfo(plan.name, plan.size, record.status,
                                         *(record.count(key) for key in ("win", "loss", "draw")))
        return result

    def tier(self, name: str) -> TierValues:
        """The outcome codes and remoteness of every index of a solved tier, as numpy arrays.

        :raises MissingTierError: the store has no such tier, or it is not solved.
        """
        store = self._opened
        store.require_solved(name)
        outcome, remoteness = store.read_tier(name)
        return TierValues(name, outcome, remoteness)

    # --- helpers ----------------------------------------------------------------------
    def _move(self, move: probing.MoveValue) -> MoveResult:
        return MoveResult(move.move, Position(self.game, move.position), move.value.name, move.value.remoteness)


def open_store(path: str | os.PathLike) -> SolvedStore:
    """Open a solved (or partly solved) store read-only.

    :raises StoreError: no store at `path`, not a retrograde store, or another format.
    """
    return SolvedStore(stores.Store.open(path, mode="r"))


def solve(game: Game | str, path: str | os.PathLike, *, workers: int | None = 0, chunk_size: int | None = None,
          quiet: bool = True) -> SolvedStore:
    """Solve `game` (a Game, or its name and options as on the command line) into the store at
    `path` through the one solve entry `retrograde solve` takes (`pipeline.solve`): a partial solve
    of the same instance is resumed, a solved store left as it is, a solve that will not fit this
    machine refused before anything is written (BadOption). Returns the store, opened read-only.
    `workers=0` solves in this process, None as the CLI decides, N on N worker threads."""
    from retrograde.games import parse_game
    from retrograde.pipeline.solve import SolveOptions
    from retrograde.pipeline.solve import solve as solve_stage

    instance = parse_game(game) if isinstance(game, str) else game
    with solve_stage(instance, path, SolveOptions(workers=workers, chunk_size=chunk_size, quiet=quiet)):
        pass
    return open_store(path)


# --- agents, matches, training, validation ---------------------------------------------------
def _instance(game: Game | str | None, store: SolvedStore | None) -> tuple[Game, stores.Store | None]:
    """The game instance (from `store`, else from `game`: a Game or its command-line text) and
    the raw store agents read."""
    from retrograde.games import parse_game

    if store is not None:
        return store.game, store._opened
    if game is None:
        raise BadOption("give a store or a game (its name and options as on the command line)")
    return (parse_game(game) if isinstance(game, str) else game), None


class Agent:
    """A player built by `agent`: it chooses a move in a position given as `SolvedStore.probe`
    takes one (text in the game's notation, or a `Position`).

        >>> lookup = retrograde.agent("lookup", store=ttt, seed=1)
        >>> lookup.choose("xx./oo./... x")
        ('c1', Position('xxx/oo./... o', game='tictactoe'))
    """

    def __init__(self, player, game: Game):
        self._player = player
        self.game = game

    @property
    def spec(self) -> str:
        """The spec the agent was built from."""
        return self._player.spec

    def __repr__(self) -> str:
        return f"<Agent {self.spec} for {self.game.describe()}>"

    def choose(self, position: str | Position | Any) -> tuple[str, Position] | tuple[str, Any]:
        """The move the agent plays in `position` and the `Position` it leads to. Given the
        game's internal state (`Position.state`, the form earlier versions took), it returns
        (move, next state) as they did.

        :raises BadPosition: the text is not a position of the game, a `Position` of another
            game is given, or the game is over there (no move to choose).
        """
        if not isinstance(position, (str, Position)):
            return self._player.choose(position)
        position = _position(self.game, position, f"agent {self.spec!r} plays")
        if self.game.primitive(position.state):
            raise BadPosition(f"{str(position)!r}: the game is over, there is no move to choose")
        move, state = self._player.choose(position.state)
        return move, Position(self.game, state)


#: An agent as the API takes one: a spec (`NAME[:key=value,...]`, as on the command line), or the
#: user's own object: a callable `f(position)` or an object with `choose(position)`, given a
#: `Position` and answering a move in the game's notation (docs/agents.md).
AgentLike = Any


def agent(spec: AgentLike, *, store: SolvedStore | None = None, game: Game | str | None = None,
          seed: int = 0) -> Agent:
    """The agent `spec` names (or the user's object, `AgentLike`) for the store's game, or for
    `game` without a store: `agent(...).choose("x../.o./... x")` returns (move, Position);
    `match` below plays whole games.

    :raises BadAgent: unknown agent or option, a bad value, or an agent that needs a store.
    """
    from retrograde.agents import build_agent

    instance, raw = _instance(game, store)
    return Agent(build_agent(spec, instance, seed=seed, store=raw), instance)


def match(first: AgentLike, second: AgentLike, *, store: SolvedStore | None = None, game: Game | str | None = None,
          games: int = 100, seed: int = 0, start: str | Position | None = None,
          max_plies: int | None = None, move_time: float | None = None) -> list[dict[str, Any]]:
    """`games` games with `first` moving first and `games` with `second` moving first (in this
    process; each a spec or the user's object, `AgentLike`); returns the two SPEC §7 tournament
    entries (first_wins, draws, second_wins, first_win_ci95, forfeits, ...), the seat `first`
    moved first in before the other. `move_time`: seconds a user's agent may take over a move
    (default 10; a spec's own move_time wins)."""
    from retrograde.validation import play_match

    instance, raw = _instance(game, store)
    state = None
    if start is not None:
        state = start.state if isinstance(start, Position) else instance.parse(start)
    return play_match(first, second, instance, games=games, seed=seed, store=raw, start=state,
                      max_plies=max_plies, agent_defaults=_limits(move_time))["tournaments"]


def _limits(move_time: float | None) -> dict[str, Any] | None:
    """The users' agents' defaults the API's `move_time` gives (`registry.resolve_agent`)."""
    return None if move_time is None else {"move_time": float(move_time)}


def train(spec: str, game: Game | str, out: str | os.PathLike, *, seed: int = 0,
          store: SolvedStore | str | os.PathLike | None = None, quiet: bool = True) -> Path:
    """Train a `ga` or `rl` player (`spec` names the learner and its settings) into the artifact
    `out` (.json for ga, .npz for rl), resuming a stopped run; with a store of the same game the
    artifact keeps the exact learning curve. Returns `out`."""
    from retrograde.training import train as train_stage

    raw = store._opened if isinstance(store, SolvedStore) else store
    return train_stage(spec, game, out, seed=seed, store=raw, quiet=quiet)


def validate(store: SolvedStore | str | os.PathLike | None, out: str | os.PathLike,
             agents: str | list[AgentLike] | None = None, *, game: Game | str | None = None,
             tiers: tuple[str, ...] | None = None, games: int = 100, positions: int | None = None, seed: int = 0,
             workers: int | None = 0, quiet: bool = True, baselines: bool = True,
             move_time: float | None = None) -> dict[str, Any]:
    """Measure agents against the store (exact move quality, tournaments, ratings) and write
    report.json, report.md and report.html into `out`; returns the report (SPEC §7). With
    `store` None and a `game` no store holds whole, move quality is measured on positions sampled
    from baseline games in `tiers` (default: those the game's `sampling` hook names) and solved by
    exact search. `agents`: specs, or the user's objects among them (`AgentLike`; where only
    users' agents are named the baselines follow them, unless `baselines` is False);
    `move_time`: seconds a user's agent may take over a move (default 10).
    `workers=0` runs in this process, None as the CLI decides, N on a local cluster; with a
    user's object among the agents, in this process (an object does not travel to workers)."""
    from retrograde.validation import validate as validate_stage

    if store is None:
        instance, raw = _instance(game, None)
    else:
        instance, raw = None, store._opened if isinstance(store, SolvedStore) else store
    if agents is not None and not isinstance(agents, str) and not all(isinstance(a, str) for a in agents):
        workers = 0
    return validate_stage(raw, out, agents, game=instance, tiers=tiers, games=games, positions=positions, seed=seed,
                          workers=workers, quiet=quiet, baselines=baselines, agent_defaults=_limits(move_time))


def explore(store: SolvedStore, agents: str | list[AgentLike] | None = None, *, port: int = 8000,
            host: str = "127.0.0.1") -> None:
    """Serve the web explorer of `store` (as `retrograde explore`) until Ctrl-C, its page playing
    against `agents` (specs, or the user's objects: `AgentLike`)."""
    from retrograde.explorer.server import serve

    serve(store._opened, host=host, port=port, agent_specs=agents, say=print)
