"""Tournaments: every ordered pairing of agents plays games from the start position and from
seeded random openings (the same openings for every pairing), in batches run as tasks. Game i
of a pairing and game i of its mirror (the same agents, seats swapped, the same start) form a
pair, the unit of the pair statistics (`pairs`). A sequential match (`play_sprt`) plays pairs
until a sequential probability ratio test decides.

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

from retrograde import outcome as oc
from retrograde.agents import build_agent, stream_name
from retrograde.agents.match import play_game
from retrograde.data.store import Store
from retrograde.errors import BadOption, BadPosition
from retrograde.games import Game, make_game
from retrograde.games.base import Position
from retrograde.pipeline.executors import InProcessExecutor, Task
from retrograde.pipeline.progress import Progress
from retrograde.pipeline.worker import WorkerState
from retrograde.validation.pairs import Sprt, pair_figures, pentanomial
from retrograde.validation.rating import wilson
from retrograde.validation.seeding import task_seed
from retrograde.validation.worker import worker_store

#: Games a task plays.
BATCH = 10
#: Ply cap of games that can go on for ever (Quixo), unless --max-plies says otherwise.
ENDLESS_MAX_PLIES = 200
#: Random plies of an opening: each opening draws its length from this range.
OPENING_PLIES = (2, 4)
#: Random lines in a row that may end the game before `random_openings` gives up.
OPENING_TRIES = 1000
#: Batches a seat that a sequential match plays at most in one round (rounds double up to it).
SPRT_ROUND_BATCHES = 8
INITIAL, OPENINGS = "initial", "openings"


def default_max_plies(game: Game) -> int:
    """Beyond any game's end where games end (remoteness bound), else `ENDLESS_MAX_PLIES`."""
    bound = game.max_remoteness
    return bound + 1 if bound is not None else ENDLESS_MAX_PLIES


def random_openings(game: Game, count: int, seed: int) -> list[Position]:
    """`count` positions reached by 2 to 4 uniformly random plies from the start, none of them
    over (a line that ends the game is drawn again); the same for every pairing.

    :raises BadOption: `OPENING_TRIES` lines in a row ended the game (a game too short for openings).
    """
    rng = np.random.default_rng(task_seed(seed, "openings"))
    openings: list[Position] = []
    tries = 0
    while len(openings) < count:
        if tries == OPENING_TRIES:
            raise BadOption(f"{game.describe()}: {OPENING_TRIES} random lines of {OPENING_PLIES[0]}-"
                            f"{OPENING_PLIES[1]} plies in a row ended the game; it is too short for openings")
        tries += 1
        position = game.initial_position
        for _ in range(int(rng.integers(OPENING_PLIES[0], OPENING_PLIES[1] + 1))):
            moves = game.moves(position)
            if not moves:
                break
            position = moves[int(rng.integers(len(moves)))][1]
        if not game.primitive(position):
            openings.append(position)
            tries = 0
    return openings


def stored_openings(store: Store, count: int, seed: int) -> list[Position]:
    """For a store that does not hold the start (`--down-to`): `count` seeded non-terminal
    positions drawn uniformly from its first tiers (those of the steps no other step leads into:
    a loopy group's tiers lead into each other). Every child of a stored tier is stored, so
    games from them stay inside the store.

    :raises BadOption: the first tiers hold no position where the game goes on."""
    game = store.game
    step_of = {name: k for k, step in enumerate(store.plan.steps) for name in step.tiers}
    led_into = {step_of[child] for tier in store.plan.tiers for child in tier.children
                if step_of[child] != step_of[tier.name]}
    found = []
    for tier in store.plan.tiers:
        if step_of[tier.name] not in led_into:
            codes, remoteness = store.read_tier(tier.name)
            live = np.flatnonzero((codes == oc.DRAW) | ((codes != oc.UNDECIDED) & (remoteness > 0)))
            found += [(tier.name, int(index)) for index in live]
    rng = np.random.default_rng(task_seed(seed, "stored-openings"))
    openings: list[Position] = []
    for k in rng.permutation(len(found)):
        position = game.position_at(game.tier(found[k][0]), found[k][1])
        if not game.primitive(position):
            openings.append(position)
            if len(openings) == count:
                return openings
    if not openings:
        raise BadOption(f"store {str(store.path)!r}: its first tiers hold no position where the game goes on")
    return [openings[int(i)] for i in rng.integers(len(openings), size=count)]  # fewer than asked: drawn again


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


def every_pairing(specs: Sequence[str], games: int, *, openings: bool, initial: bool = True) -> list[Pairing]:
    """Every ordered pair of agents (an agent against itself too: the seat's advantage), from
    the start position (unless `initial` is False: a store without it) and, if asked, from the openings."""
    starts = (INITIAL,) * initial + (OPENINGS,) * openings
    return [Pairing(first, second, start, games) for start in starts for first in specs for second in specs]


def mirrors(pairings: Sequence[Pairing]) -> list[int | None]:
    """Each pairing's mirror: the index of another pairing of the same two agents, seats
    swapped, from the same kind of start (each pairing in at most one mirror pair, in order);
    None for a pairing of an agent against itself in one seat (`every_pairing`'s) or alone."""
    found: list[int | None] = [None] * len(pairings)
    for p, pairing in enumerate(pairings):
        if found[p] is not None:
            continue
        for q in range(p + 1, len(pairings)):
            other = pairings[q]
            if found[q] is None and (other.first, other.second, other.start) == (pairing.second, pairing.first,
                                                                               pairing.start):
                found[p], found[q] = q, p
                break
    return found


def batch_count(pairing: Pairing) -> int:
    return math.ceil(pairing.games / BATCH)


def streams_of(pairings: Sequence[Pairing], game: Game) -> dict[str, str]:
    """The stream name of every agent in the pairings (an artifact read once)."""
    return {spec: stream_name(spec, game) for pairing in pairings for spec in (pairing.first, pairing.second)}


def batch_task(game: Game, store: Store | None, p: int, pairing: Pairing, batch: int, seed: int,
               streams: dict[str, str], openings: Sequence[Position], max_plies: int,
               start: Position | None = None) -> Task:
    """Batch `batch` of pairing `p` (games BATCH*batch on): a task seeded by the run's seed,
    the agents' `streams`, the start kind, the label and the batch; game i of an openings
    pairing starts at opening i."""
    begin = batch * BATCH
    count = min(BATCH, pairing.games - begin)
    starts = (tuple(openings[begin:begin + count]) if pairing.start == OPENINGS
              else (game.initial_position if start is None else start,) * count)
    seed_here = task_seed(seed, "games", streams[pairing.first], streams[pairing.second], pairing.start,
                          pairing.label, batch)
    return Task(f"games-{p}-{batch}", play_batch,
                (game.name, game.params, store.location if store is not None else None, pairing.first,
                 pairing.second, seed_here, starts, max_plies), cost=count)


def tournament_tasks(game: Game, store: Store | None, pairings: Sequence[Pairing], seed: int,
                     openings: Sequence[Position], max_plies: int,
                     start: Position | None = None) -> list[Task]:
    """Batches of `BATCH` games per pairing."""
    streams = streams_of(pairings, game)
    return [batch_task(game, store, p, pairing, batch, seed, streams, openings, max_plies, start)
            for p, pairing in enumerate(pairings) for batch in range(batch_count(pairing))]


def tally(pairing: Pairing, records: list[tuple[str, int]], max_plies: int,
          mirror: list[tuple[str, int]] | None = None) -> dict[str, Any]:
    """A pairing's SPEC §7 tournament entry, with the start kind, game lengths, capped games
    (counted among the draws) and, given its mirror's records, the pair statistics from
    `first`'s view (`pairs.pair_figures`; None without a mirror)."""
    wins = sum(result == "win" for result, _ in records)
    losses = sum(result == "loss" for result, _ in records)
    draws = len(records) - wins - losses
    lo, hi = wilson(wins, len(records))
    plies = [p for _, p in records]
    return {"first": pairing.first, "second": pairing.second, "start": pairing.start, "games": len(records),
            "first_wins": wins, "draws": draws, "second_wins": losses, "first_win_ci95": [lo, hi],
            "draw_ci95": list(wilson(draws, len(records))), "second_win_ci95": list(wilson(losses, len(records))),
            "capped": sum(result == "draw" and p >= max_plies for result, p in records),
            "mean_plies": round(float(np.mean(plies)), 2) if plies else None,
            **pair_figures([result for result, _ in records] if mirror is not None else None,
                           [result for result, _ in mirror] if mirror is not None else None)}


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
    records = [[record for batch in range(batch_count(pairing)) for record in done[f"games-{p}-{batch}"]]
               for p, pairing in enumerate(pairings)]
    return [tally(pairing, records[p], max_plies, None if q is None else records[q])
            for p, (pairing, q) in enumerate(zip(pairings, mirrors(pairings)))]


def check_games(games: int) -> None:
    if games < 1:
        raise BadOption(f"--games {games}: must be at least 1")


def _check_match(spec_a: str, spec_b: str, game: Game, *, games: int, seed: int, store: Store | None,
                 max_plies: int | None) -> int:
    """Every error of a match before any game; returns its ply cap."""
    check_games(games)
    if max_plies is not None and max_plies < 1:
        raise BadOption(f"--max-plies {max_plies}: must be at least 1")
    for spec in (spec_a, spec_b):
        build_agent(spec, game, seed=seed, store=store)
    return max_plies if max_plies is not None else default_max_plies(game)


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
    if start is not None and game.primitive(start):
        raise BadPosition(f"{game.format(start)!r}: the game is over there, no match can start from it")
    cap = _check_match(spec_a, spec_b, game, games=games, seed=seed, store=store, max_plies=max_plies)
    both = [Pairing(spec_a, spec_b, INITIAL, games, "A first"), Pairing(spec_b, spec_a, INITIAL, games, "B first")]
    entries = run_tournament(game, store, both, seed=seed, executor=executor or InProcessExecutor(),
                             max_plies=cap, start=start, quiet=quiet)
    return {"game": game.name, "params": game.params, "seed": seed, "max_plies": cap,
            "start": game.format(start if start is not None else game.initial_position), "tournaments": entries}


def play_sprt(spec_a: str, spec_b: str, game: Game, test: Sprt, *, pairs: int, seed: int, store: Store | None = None,
              max_plies: int | None = None, executor=None, quiet: bool = True) -> dict[str, Any]:
    """Pairs of games of A against B, pair i from seeded random opening i (A first, then B
    first), until `test` decides on the pairs so far or `pairs` pairs are played. Rounds of
    batches (1, 2, 4, ... up to `SPRT_ROUND_BATCHES` a seat) run on the executor; the test is
    read after each batch in batch order, so the verdict and the pairs counted depend on the
    seed alone, not on the workers (games a round played past the decision are not counted).
    Returns `play_match`'s object (its tournaments over the pairs counted, their start kind
    "openings") with "openings" (those played, in order) and "sprt": `Sprt.report`.

    :raises BadAgent: a spec is wrong, or an agent cannot play the game or needs a store.
    :raises BadOption: pairs or max_plies below 1, or a game too short for openings.
    """
    cap = _check_match(spec_a, spec_b, game, games=pairs, seed=seed, store=store, max_plies=max_plies)
    openings = random_openings(game, pairs, seed)
    both = [Pairing(spec_a, spec_b, OPENINGS, pairs, "A first"), Pairing(spec_b, spec_a, OPENINGS, pairs, "B first")]
    streams = streams_of(both, game)
    executor = executor or InProcessExecutor()
    progress = Progress("sprt", 2 * pairs, quiet=quiet, unit="games")
    records: tuple[list[tuple[str, int]], list[tuple[str, int]]] = ([], [])
    result, batch, size = "inconclusive", 0, 1
    while result == "inconclusive" and batch < batch_count(both[0]):
        batches = range(batch, min(batch + size, batch_count(both[0])))
        tasks = [batch_task(game, store, p, pairing, b, seed, streams, openings, cap)
                 for b in batches for p, pairing in enumerate(both)]
        done = {}
        for task, played in executor.run(tasks):
            done[task.key] = played
            progress.advance(len(played), f"{task.args[3]} vs {task.args[4]}")
        for b in batches:
            for p in (0, 1):
                records[p].extend(done[f"games-{p}-{b}"])
            verdict = test.verdict(test.llr(_counts(records)))
            if verdict is not None:
                result = verdict
                break
        batch, size = batches.stop, min(2 * size, SPRT_ROUND_BATCHES)
    progress.finish(result)
    return {"game": game.name, "params": game.params, "seed": seed, "max_plies": cap,
            "start": game.format(game.initial_position),
            "openings": [game.format(position) for position in openings[:len(records[0])]],
            "tournaments": [tally(both[0], records[0], cap, records[1]), tally(both[1], records[1], cap, records[0])],
            "sprt": test.report(_counts(records), result)}


def _counts(records: tuple[list[tuple[str, int]], list[tuple[str, int]]]) -> list[int]:
    """The pentanomial counts of A's pairs (A first, B first)."""
    return pentanomial([result for result, _ in records[0]], [result for result, _ in records[1]])
