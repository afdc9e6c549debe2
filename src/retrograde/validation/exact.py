"""A pairing's exact win, draw and loss rates where the game is small and both agents' draws can
be enumerated (issue 35 point 2): not sampled, but the expected rates of the games `match`
plays, by dynamic programming over positions.

`exact_rates(game, agent, opponent, seat, instances=(), *, store=None, limit=LIMIT)` returns the
agent's expected {"win", "draw", "loss"} (from its view, summing to 1) when it plays `opponent`
from the start position in `seat`: "first", "second", or "either" (the mean of both seats). With
`instances` (a figure over many instances: `Figure.instances`, report 003's mixed benchmark)
`game` may be the game's name; the rates are the mean over the instances (each `make_game(name,
params)`) of the seat's rates. `agent` and `opponent` are what `workflows.course` plays a row
with: a spec (text, or an `AgentSpec` whose artifact path is an option value), resolved for
each instance; or, for one instance, a `ResolvedAgent` or a `Player` already built for `game`.
`store`: the solved store of `game` for agents that read one.

How: the value of a position with a side to move is the first mover's (win, draw, loss) chance
from there: a terminal position's by its outcome, any other's the mean of its children's values
weighted by the mover's `Player.move_distribution` (the chance of each child its `choose` moves
to), memoised over (position, side to move). It returns None where some agent's draws cannot
be enumerated (its `move_distribution` is None at a position the pairing reaches), where a
position repeats on a line (a game with cycles: the rates are a Markov chain's, not a DP's), or
where the walk meets more than `limit` (position, side) pairs (some 300 bytes and 30 us to 1 ms
a pair: Nim 1,3,5,7,9 against a random player, 7,680 pairs, is within the default, 1,3,...,11
past it; report 003's mixed figures give up within 2 to 8 s each), or at once where an instance
has more positions than `limit` (its walk would most likely give up there, after seconds); the
caller then samples.
"""

from __future__ import annotations

from typing import Any

from retrograde import outcome as oc
from retrograde.agents import resolve_agent
from retrograde.agents.base import Player
from retrograde.games import make_game
from retrograde.games.base import Game
from retrograde.validation.course import OUTCOMES  # the rates' names, in the order of the tuples below

#: The most (position, side to move) pairs one instance's DP values before it gives up (None).
LIMIT = 20_000
SEATS = ("first", "second", "either")


def exact_rates(game: Game | str, agent: Any, opponent: Any, seat: str, instances: tuple[dict, ...] = (), *,
                store=None, limit: int = LIMIT) -> dict[str, float] | None:
    """The agent's exact {"win", "draw", "loss"} rates against `opponent` in `seat` (see the
    module docstring), or None where they cannot be computed exactly here."""
    if seat not in SEATS:
        raise ValueError(f"seat {seat!r}: one of {', '.join(SEATS)}")
    if not instances:
        rates = _seat_rates(game, agent, opponent, seat, store, limit)
        return None if rates is None else dict(zip(OUTCOMES, rates))
    name = game if isinstance(game, str) else game.name
    games = sorted((make_game(name, params) for params in instances), key=_positions, reverse=True)
    total = [0.0, 0.0, 0.0]
    for each in games:  # the largest first: one past the limit is found before the small ones are valued
        rates = _seat_rates(each, agent, opponent, seat, None, limit)
        if rates is None:
            return None
        total = [sum_ + rate for sum_, rate in zip(total, rates)]
    return {outcome: value / len(instances) for outcome, value in zip(OUTCOMES, total)}


def _positions(game: Game) -> int:
    """How many positions the instance has (its tiers' sizes)."""
    return sum(tier.size for tier in game.tiers())


def _player(spec: Any, game: Game, store) -> Player:
    """The playing agent of `spec` for `game` (a `Player` given is used as it is)."""
    if isinstance(spec, Player):
        return spec
    resolved = spec if hasattr(spec, "build") else resolve_agent(spec, game)
    return resolved.build(game, seed=0, store=store)


def _seat_rates(game: Game, agent: Any, opponent: Any, seat: str, store, limit: int
                ) -> tuple[float, float, float] | None:
    """The agent's (win, draw, loss) in `seat` on one instance, or None."""
    if _positions(game) > limit:
        return None
    ours, theirs = _player(agent, game, store), _player(opponent, game, store)
    found = []
    if seat in ("first", "either"):
        first = first_mover_rates(game, ours, theirs, limit)
        if first is None:
            return None
        found.append(first)
    if seat in ("second", "either"):
        second = first_mover_rates(game, theirs, ours, limit)
        if second is None:
            return None
        found.append(second[::-1])  # the first mover's loss is the agent's win
    return tuple(sum(values) / len(found) for values in zip(*found))


def _terminal(code: int, mover: int) -> tuple[float, float, float]:
    """The first mover's (win, draw, loss) at a terminal position of outcome `code` for `mover`."""
    if code == oc.DRAW:
        return 0.0, 1.0, 0.0
    return (1.0, 0.0, 0.0) if (code == oc.WIN) == (mover == 0) else (0.0, 0.0, 1.0)


def first_mover_rates(game: Game, first: Player, second: Player, limit: int = LIMIT
                      ) -> tuple[float, float, float] | None:
    """The first mover's exact (win, draw, loss) chances when `first` moves from the start
    position and `second` answers, by a depth-first walk over (position, side to move) that
    values each pair once its children are valued; None as `exact_rates` says."""
    players = (first, second)
    values: dict[tuple[Any, int], tuple[float, float, float]] = {}
    open_pairs: set[tuple[Any, int]] = set()  # expanded, their children not all valued: the line
    found = {(game.initial_position, 0)}  # every pair met: past `limit`, give up before valuing them
    stack: list[tuple[Any, int, list | None]] = [(game.initial_position, 0, None)]
    while stack:
        position, mover, children = stack[-1]
        key = (position, mover)
        if children is None:
            if key in values:
                stack.pop()
                continue
            code = game.primitive(position)
            if code:
                values[key] = _terminal(code, mover)
                stack.pop()
                continue
            children = players[mover].move_distribution(position)
            if children is None:
                return None
            stack[-1] = (position, mover, children)
            open_pairs.add(key)
            for _, child in children:
                if (child, 1 - mover) in open_pairs:
                    return None  # the line comes back to a position: a game with cycles
                if (child, 1 - mover) not in values:
                    stack.append((child, 1 - mover, None))
                    found.add((child, 1 - mover))
            if len(found) > limit:
                return None
            continue
        stack.pop()
        open_pairs.discard(key)
        win = draw = loss = 0.0
        for chance, child in children:
            child_win, child_draw, child_loss = values[child, 1 - mover]
            win, draw, loss = win + chance * child_win, draw + chance * child_draw, loss + chance * child_loss
        values[key] = win, draw, loss
    return values[game.initial_position, 0]
