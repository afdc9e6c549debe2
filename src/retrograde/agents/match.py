"""Playing agents against each other: one game from a start position, or many whole games in the
game's kernels where both agents have a kernel form (`kernel_results`); a user's agent that gives
up a move (`Forfeit`) loses the game there, and the drivers that gather games say so on stderr
(`ForfeitNotices`)."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import TextIO

from tqdm import tqdm

from retrograde import outcome as oc
from retrograde.agents.base import Forfeit, Player
from retrograde.games.base import State
from retrograde.search.scores import LOOKUP, LOOKUP_BY_OUTCOME


@dataclass(frozen=True)
class Forfeited:
    """Who gave a game up and why: `seat` 0 (moved first) or 1, the `Forfeit`'s reason and
    one-line detail, and the position (as text) it was to move in."""

    seat: int
    reason: str
    detail: str
    position: str


@dataclass(frozen=True)
class GameRecord:
    """How a game ended: `result` for the agent that moved first ("win", "loss", "draw"),
    after `plies` moves; "draw" also when `max_plies` ran out (endless play), and a loss for
    the side that forfeits (`forfeit`, else None). `positions` are those the game went through,
    the start first and the last one reached last."""

    result: str
    plies: int
    moves: tuple[str, ...]
    positions: tuple[State, ...]
    forfeit: Forfeited | None = None


def play_game(first: Player, second: Player, start: State, *, max_plies: int) -> GameRecord:
    """Let `first` move from `start`, then alternate, until a terminal position, max_plies or a forfeit."""
    game = first.game
    position, moves, positions = start, [], [start]
    agents = (first, second)
    first.new_game(0)
    second.new_game(1)
    for ply in range(max_plies + 1):
        terminal = game.primitive(position)
        if terminal:
            mover_is_first = ply % 2 == 0
            if terminal == oc.DRAW:
                return GameRecord("draw", ply, tuple(moves), tuple(positions))
            won = (terminal == oc.WIN) == mover_is_first
            return GameRecord("win" if won else "loss", ply, tuple(moves), tuple(positions))
        if ply == max_plies:
            break
        try:
            move, position = agents[ply % 2].choose(position)
        except Forfeit as given_up:
            return GameRecord("loss" if ply % 2 == 0 else "win", ply, tuple(moves), tuple(positions),
                              Forfeited(ply % 2, given_up.reason, given_up.detail, game.format(position)))
        moves.append(move)
        positions.append(position)
    return GameRecord("draw", max_plies, tuple(moves), tuple(positions))


#: The first mover's result of a game by its outcome code.
RESULTS = {oc.WIN: "win", oc.DRAW: "draw", oc.LOSS: "loss"}


def kernel_results(first: Player, second: Player, starts: list[State], *, max_plies: int, scored=None
                   ) -> list[tuple[str, int]] | None:
    """(result, plies) of the games `play_game` plays from each start in turn, the same draws made
    from each agent's generator, all played in the game's kernels (`Search.play_many`); None
    where an agent has no kernel form (`Player.kernel_agent`), the game's search plays no whole
    game, or a lookup agent plays and `scored` (the store's `tablebase.StoredScores`, kept by
    the caller: its tablebase serves every batch) is None or cannot hold every tier."""
    kinds = (first.kernel_agent(), second.kernel_agent())
    if None in kinds:
        return None
    if LOOKUP in kinds or LOOKUP_BY_OUTCOME in kinds:
        if scored is None or not scored.holds(tier.name for tier in scored.store.plan.tiers):
            return None
        search = scored.search
    else:
        search = first.game.search
    results = None if search is None else search.play_many(starts, kinds, first.rng, second.rng, max_plies)
    return None if results is None else [(RESULTS[code], plies) for code, plies in results.tolist()]


def by_reason(counted: Counter[str]) -> dict[str, int]:
    """Forfeit counts by reason, in `Forfeit.REASONS` order, the reasons never given left out (the
    same bytes whatever order the forfeits were counted in)."""
    return {reason: counted[reason] for reason in Forfeit.REASONS if counted[reason]}


#: Forfeits of one agent for one reason that a driver shows a line each; later ones are only counted.
FORFEIT_LINES = 5


class ForfeitNotices:
    """One line on stderr per forfeit where a driver gathers results (move quality, tournaments):
    the first `FORFEIT_LINES` of each agent and reason, then one line saying the rest are counted
    in the report. Printed whether the run is quiet or not: they are the user's agent's errors,
    not progress."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream
        self.seen: Counter[tuple[str, str]] = Counter()

    def note(self, spec: str, reason: str, detail: str, position: str) -> None:
        """Agent `spec` forfeited for `reason` (`detail`) at `position` (text)."""
        self.seen[spec, reason] += 1
        count = self.seen[spec, reason]
        if count <= FORFEIT_LINES:
            line = f"agent {spec!r} forfeits ({reason}): {detail} at {position}"
        elif count == FORFEIT_LINES + 1:
            line = f"agent {spec!r}: further forfeits ({reason}) are not shown; the report counts them all"
        else:
            return
        tqdm.write(line, file=self.stream or sys.stderr)  # above a progress bar, if one is drawn
