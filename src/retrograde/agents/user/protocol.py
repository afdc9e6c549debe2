"""The engine line protocol (docs/engine.md), version 1: UTF-8 lines, retrograde writes the
engine's stdin and reads its stdout; the engine's stderr goes to the agent's log.

    retrograde -> engine        engine -> retrograde
    retrograde 1                id NAME VERSION
    game NAME PARAMS_JSON       ready | refuse TEXT
    new SEED SEAT               ready            (the players made: they may load for a while)
    position POSITION           move MOVE | forfeit REASON TEXT
    quit                        (exits)

SEAT is 0 (moves first), 1, or - (any seat: positions measured one by one). An illegal MOVE is
answered by the same `position` line again, up to the agent's tries. REASON is exception,
illegal or memory (`agents.base.Forfeit.REASONS`).
"""

from __future__ import annotations

import json
from typing import Any

VERSION = 1
HELLO = f"retrograde {VERSION}"
#: The forfeit reasons an engine may give itself (the harness adds timeout and died).
ENGINE_REASONS = ("exception", "illegal", "memory")
#: The seat sent where any seat may be asked (move quality).
ANY_SEAT = "-"


def game_line(name: str, params: dict[str, Any]) -> str:
    return f"game {name} {json.dumps(params, sort_keys=True)}"


def new_line(seed: int, seat: int | None) -> str:
    return f"new {seed} {ANY_SEAT if seat is None else seat}"


def split(line: str) -> tuple[str, str]:
    """(the message's first word, the rest of the line)."""
    word, _, rest = line.strip().partition(" ")
    return word, rest.strip()


def parse_game(rest: str) -> tuple[str, dict[str, Any]]:
    name, _, params = rest.partition(" ")
    return name, json.loads(params) if params.strip() else {}


def parse_new(rest: str) -> tuple[int, int | None]:
    seed, _, seat = rest.partition(" ")
    return int(seed), None if seat.strip() in ("", ANY_SEAT) else int(seat)


def parse_forfeit(rest: str) -> tuple[str, str]:
    """(reason, detail) of a `forfeit` answer; an unknown reason counts as an exception."""
    reason, _, detail = rest.partition(" ")
    return (reason, detail) if reason in ENGINE_REASONS else ("exception", rest)
