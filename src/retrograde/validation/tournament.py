"""Tournaments: every ordered pairing of agents plays games from the start position and from
seeded random openings (the same openings for every pairing), in batches run as tasks.

A batch's agents are seeded from --seed, the pairing (its agents' stream names: an artifact by
its content, not its path), the start kind and the batch number, so results do not depend on
how many workers play them, in which order batches finish, or where the artifacts lie.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrograde.agents import build_agent, stream_name
from retrograde.agents.match import play_game
from retrograde.data.store import Store
from retrograde.errors import BadOption, BadPosition
from retrograde.games import Game, make_game
from retrograde.games.base import Position
from retrograde.pipeline.executors import InProcessExecutor, Task
from retrograde.pipeline.progress import Progress
from retrograde.pipeline.worker import WorkerState
from retrograde.validation.rating import wilson
from retrograde.validation.seeding import task_seed
from retrograde.validation.worker import worker_store

#: Games a task plays.
BATCH = 10
#: Ply cap of games that can go on for ever (Quixo), unless --max-plies says otherwise.
ENDLESS_MAX_PLIES = 200
#: Random plies of an opening: each opening draws its length from this range.
OPENING_PLIES = (2, 4)
INITIAL, OPENINGS = "initial", "openings"


def default_max_plies(game: Game) -> int:
    """Beyond any game's end where games end (remoteness bound), else `ENDLESS_MAX_PLIES`."""
    bound = game.max_remoteness
    return bound + 1 if bound is not None else ENDLESS_MAX_PLIES


def random_openings(game: Game, count: int, seed: int) -> list[Position]:
    """`count` positions reached by 2 to 4 uniformly random plies from the start, none of them
    over (a line that ends the game is drawn again); the same for every pairing."""
    rng = np.random.default_rng(task_seed(seed, "openings"))
    openings = []
    while len(openings) < count:
        position = game.initial_position
        for _ in range(int(rng.integers(OPENING_PLIES[0], OPENING_PLIES[1] + 1))):
            moves = game.moves(position)
            if not moves:
                break
            position = moves[int(rng.integers(len(moves)))][1]
        if not game.primitive(position):
            openings.append(position)
    return openings


def play_batch(worker: WorkerState, game_name: str, params: dict[str, Any], location: str | None, first: str,
               second: str, seed: int, starts: tuple[Position, ...], max_plies: int) -> list[tuple[str, int]]:
    """One task: games of `first` (moving first) against `second` from each start, as
    (result for first, plies). Both agents are built once for the batch, seeded from `seed`."""
    store = worker_store(worker, location) if location else None
    game = store.game if store is not None else make_game(game_name, params)
    agents = [build_agent(spec, game, seed=task_seed(seed, seat), store=store)
              for seat, spec in enumerate((first, second))]
    records = [play_game(*agents, start, max_plies=max_plies) for start in starts]
    return [(record.result, record.plies) for record in records]


@dataclass(frozen=True)
class Pairing:
    """Games of `first` (moving first) against `second` from one kind of start; `label` tells
    apart pairings of the same agents that must not play the same games (a match of an agent
    against itself)."""

    first: str
    second: str
    start: str
    games: int
    label: str = ""


def every_pairing(specs: Sequence[str], games: int, *, openings: bool) -> list[Pairing]:
    """Every ordered pair of agents (an agent against itself too: the seat's advantage), from
    the start position and, if asked, from the openings."""
    starts = (INITIAL, OPENINGS) if openings else (INITIAL,)
    return [Pairing(first, second, start, games) for start in starts for first in specs for second in specs]


def tournament_tasks(game: Game, store: Store | None, pairings: Sequence[Pairing], seed: int,
                     openings: Sequence[Position], max_plies: int,
                     start: Position | None = None) -> list[Task]:
    """Batches of `BATCH` games per pairing; game i of an openings pairing starts at opening i."""
    location = store.location if store is not None else None
    first_position = game.initial_position if start is None else start
    streams = {spec: stream_name(spec, game) for pairing in pairings for spec in (pairing.first, pairing.second)}
    tasks = []
    for p, pairing in enumerate(pairings):
        for batch, begin in enumerate(range(0, pairing.games, BATCH)):
            count = min(BATCH, pairing.games - begin)
            starts = (tuple(openings[begin:begin + count]) if pairing.start == OPENINGS
                      else (first_position,) * count)
            seed_here = task_seed(seed, "games", streams[pairing.first], streams[pairing.second], pairing.start,
                                  pairing.label, batch)
            tasks.append(Task(f"games-{p}-{batch}", play_batch,
                              (game.name, game.params, location, pairing.first, pairing.second, seed_here,
                               starts, max_plies), cost=count))
    return tasks


def tally(pairing: Pairing, records: list[tuple[str, int]], max_plies: int) -> dict[str, Any]:
    """A pairing's SPEC §7 tournament entry, with the start kind, game lengths and capped games."""
    wins = sum(result == "win" for result, _ in records)
    losses = sum(result == "loss" for result, _ in records)
    draws = len(records) - wins - losses
    lo, hi = wilson(wins, len(records))
    plies = [p for _, p in records]
    return {"first": pairing.first, "second": pairing.second, "start": pairing.start, "games": len(records),
            "first_wins": wins, "draws": draws, "second_wins": losses, "first_win_ci95": [lo, hi],
            "draw_ci95": list(wilson(draws, len(records))), "second_win_ci95": list(wilson(losses, len(records))),
            "capped": sum(result == "draw" and p >= max_plies for result, p in records),
            "mean_plies": round(float(np.mean(plies)), 2) if plies else None}


def run_tournament(game: Game, store: Store | None, pairings: Sequence[Pairing], *, seed: int, executor,
                   max_plies: int, openings: Sequence[Position] = (), start: Position | None = None,
                   quiet: bool = False) -> list[dict[str, Any]]:
    """Play every pairing; one entry per pairing, in their order."""
    tasks = tournament_tasks(game, store, pairings, seed, openings, max_plies, start)
    progress = Progress("tournament", sum(task.cost for task in tasks), quiet=quiet, unit="games")
    done: dict[str, list[tuple[str, int]]] = {}
    for task, records in executor.run(tasks):
        done[task.key] = records
        progress.advance(len(records), f"{task.args[3]} vs {task.args[4]}")
    progress.finish("done")
    entries = []
    for p, pairing in enumerate(pairings):
        records = [record for batch in range(math.ceil(pairing.games / BATCH))
                   for record in done[f"games-{p}-{batch}"]]
        entries.append(tally(pairing, records, max_plies))
    return entries


def check_games(games: int) -> None:
    if games < 1:
        raise BadOption(f"--games {games}: must be at least 1")


def play_match(spec_a: str, spec_b: str, game: Game, *, games: int, seed: int, store: Store | None = None,
               start: Position | None = None, max_plies: int | None = None, executor=None,
               quiet: bool = True) -> dict[str, Any]:
    """`games` games with A first and `games` with B first, from `start` (default: the game's
    start position). Returns {"game", "params", "seed", "max_plies", "start", "tournaments":
    [A first, B first]} with SPEC §7 tournament entries.

    :raises BadAgent: a spec is wrong, or an agent cannot play the game or needs a store.
    :raises BadOption: games or max_plies below 1.
    :raises BadPosition: `start` is a position where the game is over.
    """
    check_games(games)
    if max_plies is not None and max_plies < 1:
        raise BadOption(f"--max-plies {max_plies}: must be at least 1")
    if start is not None and game.primitive(start):
        raise BadPosition(f"{game.format(start)!r}: the game is over there, no match can start from it")
    for spec in (spec_a, spec_b):
        build_agent(spec, game, seed=seed, store=store)  # every error before any game
    cap = max_plies if max_plies is not None else default_max_plies(game)
    both = [Pairing(spec_a, spec_b, INITIAL, games, "A first"), Pairing(spec_b, spec_a, INITIAL, games, "B first")]
    entries = run_tournament(game, store, both, seed=seed, executor=executor or InProcessExecutor(),
                             max_plies=cap, start=start, quiet=quiet)
    return {"game": game.name, "params": game.params, "seed": seed, "max_plies": cap,
            "start": game.format(start if start is not None else game.initial_position), "tournaments": entries}
