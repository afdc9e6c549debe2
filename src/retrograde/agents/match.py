"""Playing agents against each other: one game from a start position."""

from __future__ import annotations

from dataclasses import dataclass

from retrograde import outcome as oc
from retrograde.agents.base import Player
from retrograde.games.base import State


@dataclass(frozen=True)
class GameRecord:
    """How a game ended: `result` for the agent that moved first ("win", "loss", "draw"),
    after `plies` moves; "draw" also when `max_plies` ran out (endless play). `positions` are
    those the game went through, the start first and the last one reached last."""

    result: str
    plies: int
    moves: tuple[str, ...]
    positions: tuple[State, ...]


def play_game(first: Player, second: Player, start: State, *, max_plies: int) -> GameRecord:
    """Let `first` move from `start`, then alternate, until a terminal position or max_plies."""
    game = first.game
    position, moves, positions = start, [], [start]
    agents = (first, second)
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
        move, position = agents[ply % 2].choose(position)
        moves.append(move)
        positions.append(position)
    return GameRecord("draw", max_plies, tuple(moves), tuple(positions))
