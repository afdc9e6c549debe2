"""Tournaments: every ordered pairing of agents plays games from the start position and from
seeded random openings (the same openings for every pairing), in batches run as tasks. Game i
of a pairing and game i of its mirror (the same agents, seats swapped, the same start) form a
pair, the unit of the pair statistics (`pairs`). A sequential match (`play_sprt`) plays pairs
until a sequential probability ratio test decides.

A batch's agents are seeded from --seed, the pairing (its agents' stream names: an artifact by
its content, not its path), the start kind and the batch number, so results do not depend on
how many workers play them, in which order batches finish, or where the artifacts lie.

Batches are made as the executor asks for them (batch b of every pairing, then batch b+1), their
openings drawn as they are needed, and their games counted as they finish: a tournament holds
the batches in flight, not its games, so `MAX_GAMES` bounds a pairing's games, not memory.
The openings played are counted, not listed (`OpeningCount`): an output's size does not grow
with the games either.

A user's agent that gives up a move (`agents.base.Forfeit`) loses that game; the entries count
each seat's forfeits by reason, and the driver says so on stderr as they arrive.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any, NamedTuple

import numpy as np

from retrograde import outcome as oc
from retrograde.agents import ResolvedAgent, resolve_agent
from retrograde.agents.match import Forfeited, ForfeitNotices, by_reason, kernel_results, play_game
from retrograde.data.store import Store
from retrograde.errors import BadOption, BadPosition
from retrograde.games import Game, make_game
from retrograde.games.base import State
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.graph import Task
from retrograde.pipeline.progress import Progress
from retrograde.pipeline.worker import WorkerState
from retrograde.validation.pairs import CELLS, Sprt, pair_figures, pentanomial
from retrograde.validation.rating import wilson
from retrograde.validation.seeding import task_seed
from retrograde.validation.worker import worker_scores, worker_store

#: Games a task plays.
BATCH = 10
#: Games a pairing plays at most (--games; --sprt: pairs): 10^7 a seat between random tic-tac-toe
#: players take about 20 minutes. Neither memory nor an output's size grows with it.
MAX_GAMES = 10_000_000
#: Openings an output names with their counts, the most played first (`OpeningCount`).
OPENINGS_LISTED = 20
#: Indices drawn at once where a store's openings are drawn again (`stored_openings`).
DRAWS = 4096
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


def random_openings(game: Game, count: int, seed: int) -> Iterator[State]:
    """`count` positions reached by 2 to 4 uniformly random plies from the start, none of them
    over (a line that ends the game is drawn again), each drawn when it is needed (the first at
    once); the same for every pairing.

    :raises BadOption: `OPENING_TRIES` lines in a row ended the game (a game too short for openings).
    """
    return _first_drawn(islice(_random_lines(game, seed), count))


def _first_drawn(openings: Iterator[State]) -> Iterator[State]:
    """`openings` with the first drawn now: a game or store that gives none is refused before any game."""
    first = next(openings, None)
    return chain(() if first is None else (first,), openings)


def _random_lines(game: Game, seed: int) -> Iterator[State]:
    """`random_openings` without end."""
    rng = np.random.default_rng(task_seed(seed, "openings"))
    tries = 0
    while True:
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
            yield position
            tries = 0


class OpeningCount:
    """The openings played, as an output gives them in a size that does not grow with the games:
    how many, how many distinct, the `OPENINGS_LISTED` most played with their counts (ties in the
    order of their texts) and the sha256 of their texts in play order, each ended by a newline (two
    runs compared at a glance). Held: a count per distinct opening, bounded by the positions 2-4
    plies from the start or by a store's first tiers, not by the games."""

    def __init__(self, game: Game):
        self.game = game
        self.counts: Counter[str] = Counter()
        self.digest = hashlib.sha256()

    def add(self, openings: Iterable[State]) -> None:
        """Count `openings`, in play order."""
        for position in openings:
            text = self.game.format(position)
            self.counts[text] += 1
            self.digest.update(text.encode() + b"\n")

    def counted(self, openings: Iterable[State]) -> Iterator[State]:
        """`openings`, each counted as it is drawn."""
        for position in openings:
            self.add((position,))
            yield position

    def summary(self) -> dict[str, Any]:
        """{"played", "distinct", "most_played": [{"opening", "count"}], "sha256"}: the same for the
        same openings in the same order, however many workers played them."""
        most = heapq.nsmallest(OPENINGS_LISTED, self.counts.items(), key=lambda item: (-item[1], item[0]))
        return {"played": self.counts.total(), "distinct": len(self.counts),
                "most_played": [{"opening": text, "count": count} for text, count in most],
                "sha256": self.digest.hexdigest()}


def stored_openings(store: Store, count: int, seed: int) -> Iterator[State]:
    """For a store that does not hold the start (`--down-to`): `count` seeded non-terminal
    positions drawn uniformly from its first tiers (those of the steps no other step leads into:
    a loopy group's tiers lead into each other). Every child of a stored tier is stored, so
    games from them stay inside the store. Held: at most what those tiers hold, whatever `count`.

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
    openings: list[State] = []
    for k in rng.permutation(len(found)):
        position = game.position_at(game.tier(found[k][0]), found[k][1])
        if not game.primitive(position):
            openings.append(position)
            if len(openings) == count:
                return iter(openings)
    if not openings:
        raise BadOption(f"store {str(store.path)!r}: its first tiers hold no position where the game goes on")
    return _drawn_again(openings, count, rng)


def _drawn_again(openings: list[State], count: int, rng: np.random.Generator) -> Iterator[State]:
    """`count` draws from `openings` (fewer than asked), `DRAWS` indices at a time (the same
    indices as one draw of `count`)."""
    for begin in range(0, count, DRAWS):
        for i in rng.integers(len(openings), size=min(DRAWS, count - begin)):
            yield openings[int(i)]


class Played(NamedTuple):
    """A game as a task returns it: the result for the agent that moved first, its plies, and
    who forfeited it (None where nobody did)."""

    result: str
    plies: int
    forfeit: Forfeited | None = None


def play_batch(worker: WorkerState, game_name: str, params: dict[str, Any], location: str | None,
               first: ResolvedAgent, second: ResolvedAgent, seed: int, starts: tuple[State, ...],
               max_plies: int) -> list[Played]:
    """One task: games of `first` (moving first) against `second` from each start. Both agents
    are built once for the batch, seeded from `seed`; where both have a kernel form, the games are
    played whole in the game's kernels (`match.kernel_results`: the same games), else move by move."""
    store = worker_store(worker, location) if location else None
    game = store.game if store is not None else make_game(game_name, params)
    agents = [resolved.build(game, seed=task_seed(seed, seat), store=store)
              for seat, resolved in enumerate((first, second))]
    played = kernel_results(*agents, list(starts), max_plies=max_plies,
                            scored=worker_scores(worker, store) if store is not None else None)
    if played is not None:
        return [Played(result, plies, None) for result, plies in played]
    records = [play_game(*agents, start, max_plies=max_plies) for start in starts]
    return [Played(record.result, record.plies, record.forfeit) for record in records]


def announce_forfeits(notices: ForfeitNotices, pairing: Pairing, records: Sequence[Played]) -> None:
    """A line on stderr for each forfeit among the games of a batch of `pairing`."""
    for record in records:
        if record.forfeit is not None:
            gave_up = record.forfeit
            notices.note((pairing.first, pairing.second)[gave_up.seat].spec, gave_up.reason, gave_up.detail,
                         gave_up.position)


@dataclass(frozen=True)
class Pairing:
    """Games of `first` (moving first) against `second` from one kind of start; `label` tells
    apart pairings of the same agents that must not play the same games (a match of an agent
    against itself)."""

    first: ResolvedAgent
    second: ResolvedAgent
    start: str
    games: int
    label: str = ""


def every_pairing(agents: Sequence[ResolvedAgent], games: int, *, openings: bool, initial: bool = True
                  ) -> list[Pairing]:
    """Every ordered pair of agents (an agent against itself too: the seat's advantage), from
    the start position (unless `initial` is False: a store without it) and, if asked, from the openings."""
    starts = (INITIAL,) * initial + (OPENINGS,) * openings
    return [Pairing(first, second, start, games) for start in starts for first in agents for second in agents]


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


def batch_games(pairing: Pairing, batch: int) -> int:
    """Games of batch `batch` of `pairing` (0 past its last)."""
    return max(0, min(BATCH, pairing.games - batch * BATCH))


def batch_task(game: Game, store: Store | None, p: int, pairing: Pairing, batch: int, seed: int,
               openings: Sequence[State], max_plies: int, start: State | None = None) -> Task:
    """Batch `batch` of pairing `p` (games BATCH*batch on): a task seeded by the run's seed,
    the agents' stream names, the start kind, the label and the batch; game i of an openings
    pairing starts at opening i (`openings`: the batch's, from its first game on)."""
    count = batch_games(pairing, batch)
    starts = (tuple(openings[:count]) if pairing.start == OPENINGS
              else (game.initial_position if start is None else start,) * count)
    seed_here = task_seed(seed, "games", pairing.first.stream, pairing.second.stream, pairing.start,
                          pairing.label, batch)
    return Task(f"games-{p}-{batch}", play_batch,
                (game.name, game.params, store.location if store is not None else None, pairing.first,
                 pairing.second, seed_here, starts, max_plies), cost=count)


def tournament_tasks(game: Game, store: Store | None, pairings: Sequence[Pairing], seed: int,
                     openings: Iterable[State], max_plies: int, start: State | None = None) -> Iterator[Task]:
    """Batches of `BATCH` games per pairing, made as they are asked for: batch b of every
    pairing, then batch b+1, so that a pairing's batch and its mirror's finish close together;
    each batch's openings are drawn from `openings` once, for every pairing that starts there."""
    drawn = iter(openings)
    for batch in range(max(map(batch_count, pairings), default=0)):
        starts = tuple(islice(drawn, max((batch_games(pairing, batch) for pairing in pairings
                                          if pairing.start == OPENINGS), default=0)))
        for p, pairing in enumerate(pairings):
            if batch < batch_count(pairing):
                yield batch_task(game, store, p, pairing, batch, seed, starts, max_plies, start)


@dataclass
class Tally:
    """A pairing's games counted as their batches finish (none of them kept): results, game
    lengths, games stopped at `max_plies`, each seat's forfeits by reason and, where `pairs` is
    given, the pentanomial counts of its pairs with its mirror's games."""

    max_plies: int
    pairs: list[int] | None = None
    games: int = 0
    wins: int = 0
    losses: int = 0
    capped: int = 0
    plies: int = 0
    forfeits: tuple[Counter[str], Counter[str]] = field(default_factory=lambda: (Counter(), Counter()))

    @classmethod
    def of(cls, max_plies: int, *, paired: bool) -> Tally:
        """Nothing counted yet; pairs counted if `paired` (the pairing has a mirror)."""
        return cls(max_plies, [0] * len(CELLS) if paired else None)

    def add(self, records: Sequence[Played]) -> None:
        """Count a batch's records."""
        self.games += len(records)
        self.wins += sum(record.result == "win" for record in records)
        self.losses += sum(record.result == "loss" for record in records)
        self.capped += sum(record.result == "draw" and record.plies >= self.max_plies for record in records)
        self.plies += sum(record.plies for record in records)
        for record in records:
            if record.forfeit is not None:
                self.forfeits[record.forfeit.seat][record.forfeit.reason] += 1

    def pair(self, records: Sequence[Played], mirror: Sequence[Played]) -> None:
        """Count the pairs of a batch with the same batch of the mirror (game i with game i)."""
        found = pentanomial([record.result for record in records], [record.result for record in mirror])
        self.pairs = [n + more for n, more in zip(self.pairs, found)]

    def entry(self, pairing: Pairing) -> dict[str, Any]:
        """The SPEC §7 tournament entry, with the start kind, game lengths, capped games
        (counted among the draws), each seat's forfeits by reason (counted among its losses;
        `by_reason`) and the pair statistics from `first`'s view
        (`pairs.pair_figures`; None without a mirror)."""
        draws = self.games - self.wins - self.losses
        return {"first": pairing.first.spec, "second": pairing.second.spec, "start": pairing.start, "games": self.games,
                "first_wins": self.wins, "draws": draws, "second_wins": self.losses,
                "first_win_ci95": list(wilson(self.wins, self.games)), "draw_ci95": list(wilson(draws, self.games)),
                "second_win_ci95": list(wilson(self.losses, self.games)), "capped": self.capped,
                "mean_plies": round(self.plies / self.games, 2) if self.games else None,
                **pair_figures(self.pairs),
                "forfeits": {seat: by_reason(counted) for seat, counted in zip(("first", "second"), self.forfeits)}}


def tally(pairing: Pairing, records: list[Played], max_plies: int,
          mirror: list[Played] | None = None) -> dict[str, Any]:
    """A pairing's tournament entry (`Tally.entry`) from all its records and, if given, its mirror's."""
    counted = Tally.of(max_plies, paired=mirror is not None)
    counted.add(records)
    if mirror is not None:
        counted.pair(records, mirror)
    return counted.entry(pairing)


def run_tournament(game: Game, store: Store | None, pairings: Sequence[Pairing], *, seed: int, executor,
                   max_plies: int, openings: Iterable[State] = (), start: State | None = None,
                   quiet: bool = False) -> list[dict[str, Any]]:
    """Play every pairing; one entry per pairing, in their order. A batch is counted as it
    finishes, its pairs once the same batch of the mirror is in (held until then); each forfeit
    gets a line on stderr (`ForfeitNotices`), `quiet` or not."""
    mirror_of = mirrors(pairings)
    tallies = [Tally.of(max_plies, paired=q is not None) for q in mirror_of]
    waiting: dict[tuple[int, int], list[Played]] = {}  # (pairing, batch): its mirror's is still out
    tasks = tournament_tasks(game, store, pairings, seed, openings, max_plies, start)
    progress = Progress("tournament", sum(pairing.games for pairing in pairings), quiet=quiet, unit="games")
    notices = ForfeitNotices()
    for task, records in executor.run(tasks):
        p, batch = (int(part) for part in task.key.split("-")[1:])  # batch_task's key: games-P-BATCH
        progress.advance(len(records), f"{task.args[3].spec} vs {task.args[4].spec}")
        announce_forfeits(notices, pairings[p], records)
        tallies[p].add(records)
        q = mirror_of[p]
        if q is None or batch >= batch_count(pairings[q]):
            continue
        if (q, batch) not in waiting:
            waiting[p, batch] = records
            continue
        mirror = waiting.pop((q, batch))
        tallies[p].pair(records, mirror)
        tallies[q].pair(mirror, records)
    progress.finish("done")
    return [counted.entry(pairing) for pairing, counted in zip(pairings, tallies)]


#: The most plies --max-plies may let a game run: a game so long takes over a quarter of an hour
#: at the kernels' 10^5 moves a second, a Python agent's days.
MAX_PLIES = 100_000_000


def check_max_plies(max_plies: int | None) -> None:
    """:raises BadOption: `max_plies` (None: the game's default) below 1 or above `MAX_PLIES`."""
    if max_plies is not None and not 1 <= max_plies <= MAX_PLIES:
        raise BadOption(f"--max-plies {max_plies}: must be from 1 to {MAX_PLIES:,} plies a game")


def check_games(games: int) -> None:
    """:raises BadOption: `games` below 1 or above `MAX_GAMES`."""
    if games < 1:
        raise BadOption(f"--games {games}: must be at least 1")
    if games > MAX_GAMES:
        raise BadOption(f"--games {games}: at most {MAX_GAMES:,} games a pairing (pairs with --sprt); "
                        "play a longer match as several, each with its own --seed")


def _check_match(spec_a, spec_b, game: Game, *, games: int, seed: int, store: Store | None,
                 max_plies: int | None, agent_defaults: dict | None = None) -> tuple[ResolvedAgent, ResolvedAgent, int]:
    """Every error of a match before any game: its two agents resolved (each built once; with
    `agent_defaults`, as `registry.resolve_agent` takes them) and its ply cap."""
    check_games(games)
    check_max_plies(max_plies)
    agents = []
    for spec in (spec_a, spec_b):
        agents.append(resolve_agent(spec, game, agent_defaults))
        agents[-1].build(game, seed=seed, store=store)
    return *agents, max_plies if max_plies is not None else default_max_plies(game)


def play_match(spec_a, spec_b, game: Game, *, games: int, seed: int, store: Store | None = None,
               start: State | None = None, max_plies: int | None = None, executor=None,
               quiet: bool = True, agent_defaults: dict | None = None) -> dict[str, Any]:
    """`games` games with A first and `games` with B first, from `start` (default: the game's
    start position). Returns {"game", "params", "seed", "max_plies", "start", "tournaments":
    [A first, B first]} with SPEC §7 tournament entries. A user's agent that forfeits a game
    loses it there (the entry's "forfeits" counts each seat's by reason).

    :raises BadAgent: a spec is wrong, or an agent cannot play the game or needs a store.
    :raises BadOption: games or max_plies below 1.
    :raises BadPosition: `start` is a position where the game is over.
    """
    if start is not None and game.primitive(start):
        raise BadPosition(f"{game.format(start)!r}: the game is over there, no match can start from it")
    a, b, cap = _check_match(spec_a, spec_b, game, games=games, seed=seed, store=store, max_plies=max_plies,
                             agent_defaults=agent_defaults)
    both = [Pairing(a, b, INITIAL, games, "A first"), Pairing(b, a, INITIAL, games, "B first")]
    entries = run_tournament(game, store, both, seed=seed, executor=executor or InProcessExecutor(),
                             max_plies=cap, start=start, quiet=quiet)
    return {"game": game.name, "params": game.params, "seed": seed, "max_plies": cap,
            "start": game.format(start if start is not None else game.initial_position), "tournaments": entries}


def play_sprt(spec_a, spec_b, game: Game, test: Sprt, *, pairs: int, seed: int, store: Store | None = None,
              max_plies: int | None = None, executor=None, quiet: bool = True,
              agent_defaults: dict | None = None) -> dict[str, Any]:
    """Pairs of games of A against B, pair i from seeded random opening i (A first, then B
    first), until `test` decides on the pairs so far or `pairs` pairs are played. Rounds of
    batches (1, 2, 4, ... up to `SPRT_ROUND_BATCHES` a seat) run on the executor; the test is
    read after each batch in batch order, so the verdict and the pairs counted depend on the
    seed alone, not on the workers (games a round played past the decision are not counted).
    Returns `play_match`'s object (its tournaments over the pairs counted, their start kind
    "openings") with "openings" (those of the pairs counted: `OpeningCount.summary`) and "sprt":
    `Sprt.report`.

    :raises BadAgent: a spec is wrong, or an agent cannot play the game or needs a store.
    :raises BadOption: pairs or max_plies below 1, or a game too short for openings.
    """
    a, b, cap = _check_match(spec_a, spec_b, game, games=pairs, seed=seed, store=store, max_plies=max_plies,
                             agent_defaults=agent_defaults)
    openings = random_openings(game, pairs, seed)
    both = [Pairing(a, b, OPENINGS, pairs, "A first"), Pairing(b, a, OPENINGS, pairs, "B first")]
    executor = executor or InProcessExecutor()
    progress = Progress("sprt", 2 * pairs, quiet=quiet, unit="games")
    notices = ForfeitNotices()
    tallies = (Tally.of(cap, paired=True), Tally.of(cap, paired=True))
    counted = OpeningCount(game)  # the openings of the pairs counted
    result, batch, size = "inconclusive", 0, 1
    while result == "inconclusive" and batch < batch_count(both[0]):
        batches = range(batch, min(batch + size, batch_count(both[0])))
        starts = {b: tuple(islice(openings, batch_games(both[0], b))) for b in batches}
        tasks = [batch_task(game, store, p, pairing, b, seed, starts[b], cap)
                 for b in batches for p, pairing in enumerate(both)]
        done = {}
        for task, played in executor.run(tasks):
            done[task.key] = played
            progress.advance(len(played), f"{task.args[3].spec} vs {task.args[4].spec}")
            announce_forfeits(notices, both[int(task.key.split("-")[1])], played)
        for b in batches:
            ours, theirs = done[f"games-0-{b}"], done[f"games-1-{b}"]
            for seat, records, mirror in ((tallies[0], ours, theirs), (tallies[1], theirs, ours)):
                seat.add(records)
                seat.pair(records, mirror)
            counted.add(starts[b])
            verdict = test.verdict(test.llr(tallies[0].pairs))
            if verdict is not None:
                result = verdict
                break
        batch, size = batches.stop, min(2 * size, SPRT_ROUND_BATCHES)
    progress.finish(result)
    return {"game": game.name, "params": game.params, "seed": seed, "max_plies": cap,
            "start": game.format(game.initial_position), "openings": counted.summary(),
            "tournaments": [tallies[0].entry(both[0]), tallies[1].entry(both[1])],
            "sprt": test.report(tallies[0].pairs, result)}
