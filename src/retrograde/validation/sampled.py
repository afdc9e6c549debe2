"""Move quality without a store, for a game no store holds whole: positions met in seeded games
between the baseline agents its `sampling` hook names, in the tiers it names, each solved by the
game's exact search.

Sampling: game k pits the k-th ordered pairing of the baselines (an agent against itself too,
in turn), both agents seeded from --seed and k, and gives the position it passes through in
one tier, the tiers not yet holding their share of the positions asked for taking turns (a
position met before is not kept twice), until every tier holds its share or `MAX_GAMES`
games per position asked for have been played. Games between baselines are cheap next to
the exact searches, so they are played here, in order: the sample depends on --seed alone.

The ruler: alpha-beta to the end of the game scoring every move exactly (the game's search,
`solve_scores(exact=True)`), so each move's outcome and remoteness are known, as a store would
give them; the tasks that run it (`CHUNK` positions each) also let every agent choose there.

Blunders, in positions not lost: the chosen move gives the value away. A placement blunder:
no move placing where the agent placed keeps the value, whatever it hands over; a piece
blunder: one does, but the piece the agent handed over gives the value away.
"""

from __future__ import annotations

import time
from itertools import product
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents import ResolvedAgent, resolve_agent
from retrograde.agents.base import Forfeit
from retrograde.agents.match import play_game
from retrograde.errors import BadOption
from retrograde.games import Game, make_game
from retrograde.games.base import State
from retrograde.pipeline.graph import Task
from retrograde.pipeline.worker import WorkerState
from retrograde.search.base import WIN_SCORE
from retrograde.validation import quality
from retrograde.validation.rating import wilson
from retrograde.validation.seeding import task_seed

#: Positions measured by default (shared evenly by the sampled tiers).
DEFAULT_POSITIONS = 300
#: Games played per position asked for, at most (a tier the baselines' games rarely reach
#: then ends with fewer positions, as the report says).
MAX_GAMES = 20
#: Positions per task (a drawn position with 10 empty cells takes seconds: BENCHMARKS.md).
CHUNK = 5
#: The move index recorded where a user's agent forfeits (a loss in 0 for its move quality).
FORFEITED = -1


def check_tiers(game: Game, tiers: tuple[str, ...] | None) -> tuple[str, ...]:
    """The tiers to sample (the game's `sampling` tiers when None), checked against the game's."""
    sampling = game.sampling
    if sampling is None:
        raise BadOption(f"{game.describe()} is validated against a solved store: solve it, then "
                        "validate --store PATH")
    chosen = sampling.tiers if tiers is None else tuple(tiers)
    known = [tier.name for tier in reversed(game.tiers())]
    for name in chosen:
        if name not in known:
            raise BadOption(f"--tiers: {game.describe()} has no tier {name!r} (tiers: {', '.join(known)})")
    if len(set(chosen)) != len(chosen):
        raise BadOption(f"--tiers {','.join(chosen)}: a tier is named twice")
    return chosen


def sample_positions(game: Game, tiers: tuple[str, ...], count: int, seed: int
                     ) -> tuple[list[tuple[int, State]], dict[str, Any]]:
    """Up to `count` distinct non-terminal positions from baseline games, shared evenly by
    `tiers`, as (tier number, position) in tier order; and the description of the sample.
    Each game gives at most one position, in the tier whose turn it is among those not full."""
    quota = [count // len(tiers) + (t < count % len(tiers)) for t in range(len(tiers))]
    kept: list[dict[State, None]] = [{} for _ in tiers]
    baselines = game.sampling.baselines
    pairings = list(product([resolve_agent(spec, game) for spec in baselines], repeat=2))
    played = 0
    while played < MAX_GAMES * count:
        wanted = [t for t in range(len(tiers)) if len(kept[t]) < quota[t]]
        if not wanted:
            break
        target = wanted[played % len(wanted)]
        agents = [resolved.build(game, seed=task_seed(seed, "sample", played, seat))
                  for seat, resolved in enumerate(pairings[played % len(pairings)])]
        record = play_game(*agents, game.initial_position, max_plies=game.max_remoteness)
        played += 1
        for position in record.positions:
            if not game.primitive(position) and game.locate(position)[0] == tiers[target]:
                kept[target].setdefault(position)
                break
    positions = [(t, position) for t, found in enumerate(kept) for position in found]
    description = {"positions": len(positions), "asked": count, "games": played, "baselines": list(baselines),
                   "ruler": "alpha-beta to the end of the game, every move scored exactly",
                   "per_tier": {name: {"positions": len(kept[t]), "asked": quota[t]} for t, name in enumerate(tiers)}}
    return positions, description


def _search(worker: WorkerState, game_name: str, rules: tuple):
    """The game and its search, kept by the worker: the search's transposition table serves every
    task after the first."""
    searches = worker.slot("sampled-searches", dict)
    if (game_name, rules) not in searches:
        game = make_game(game_name, dict(rules))
        searches.clear()  # one game at a time
        searches[(game_name, rules)] = game, game.search
    return searches[(game_name, rules)]


def solve_chunk(worker: WorkerState, game_name: str, rules: tuple, agents: tuple[ResolvedAgent, ...], seed: int,
                chunk: int, positions: tuple[State, ...]) -> dict[str, Any]:
    """One task: every move's exact score at each position ((WIN_SCORE - remoteness) for a win,
    its negative for a loss, 0 for a draw, mover's view) with the seconds its search took, and
    the move each agent chooses there (its index in `game.moves`; `FORFEITED` where a user's
    agent gives the move up, listed in its `forfeits` [(k, reason, detail, position text)]) with
    the seconds it took."""
    game, search = _search(worker, game_name, rules)
    scores, seconds = [], []
    for k, position in enumerate(positions):
        started = time.perf_counter()
        scores.append(search.solve_scores(position, seed=task_seed(seed, "ruler", chunk, k), exact=True))
        seconds.append(time.perf_counter() - started)
    per_agent = []
    for resolved in agents:
        agent = resolved.build(game, seed=task_seed(seed, "move-quality", resolved.stream, chunk))
        chosen = np.empty(len(positions), dtype=np.int64)
        forfeits = []
        started = time.perf_counter()
        for k, position in enumerate(positions):
            try:
                move, _ = agent.choose(position)
            except Forfeit as given_up:
                chosen[k] = FORFEITED
                forfeits.append((k, given_up.reason, given_up.detail, game.format(position)))
                continue
            chosen[k] = [name for name, _ in game.moves(position)].index(move)
        per_agent.append({"chosen": chosen, "seconds": time.perf_counter() - started, "forfeits": forfeits})
    return {"scores": scores, "ruler_seconds": seconds, "agents": per_agent}


def values(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(outcome, remoteness) of exact scores, mover's view (a draw's remoteness is 0)."""
    scores = np.asarray(scores, dtype=np.int64)
    outcome = np.where(scores > 0, oc.WIN, np.where(scores < 0, oc.LOSS, oc.DRAW)).astype(np.int8)
    return outcome, np.where(scores != 0, WIN_SCORE - np.abs(scores), 0)


def blunder_kinds(game: Game, position: State, scores: np.ndarray, chosen: int) -> str | None:
    """"placement" or "piece" if the chosen move gives the position's value away (see the
    module docstring), else None."""
    outcome, _ = values(scores)
    best = outcome.max()  # WIN > DRAW > LOSS as codes
    if chosen == FORFEITED or outcome[chosen] == best:  # a forfeit is counted as such, not as a blunder
        return None
    moves = game.moves(position)
    placement = game.sampling.placement or (lambda move: move)
    where = placement(moves[chosen][0])
    here = [k for k, (move, _) in enumerate(moves) if placement(move) == where]
    return "piece" if outcome[here].max() == best else "placement"


def _rate(count: int, chances: int) -> dict[str, Any]:
    return {"count": count, "rate": count / chances if chances else None, "ci95": list(wilson(count, chances))}


def blunder_figures(kinds: list[str | None], at_risk: np.ndarray) -> dict[str, Any]:
    """Placement and piece blunder counts and rates over the positions not lost (`at_risk`)."""
    chances = int(at_risk.sum())
    return {"positions_at_risk": chances,
            "placement": _rate(sum(kind == "placement" for kind in kinds), chances),
            "piece": _rate(sum(kind == "piece" for kind in kinds), chances)}


def perfect_play_checks(game: Game, agents: list[ResolvedAgent], positions: list[State], best: np.ndarray,
                        chosen_scores: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """What must hold: an agent that plays some positions by exact search (`exact_at`, the
    endgame agent) chooses there a move of the position's exact score (its value, the fastest
    win, the slowest loss)."""
    checks = []
    for resolved in agents:
        agent, spec = resolved.build(game, seed=0), resolved.spec
        if not agent.searches_to_end:
            continue
        rows = np.array([agent.exact_at(position) for position in positions], dtype=bool)
        wrong = int((rows & (chosen_scores[spec] != best)).sum())
        checks.append({"name": f"{spec} plays perfectly where it searches to the end", "ok": wrong == 0,
                       "detail": f"{wrong} of {int(rows.sum())} such positions with a move of another value "
                                 "or remoteness (must be 0)"})
    return checks


def measure(game: Game, agents: list[ResolvedAgent], *, tiers: tuple[str, ...], positions: int, seed: int, executor,
            quiet: bool = False) -> dict[str, Any]:
    """Move quality of every agent on sampled positions: the report's `agents` entries (with
    `blunders` overall and by tier), the sample's description, its tiers' values and the checks."""
    sampled, sample = sample_positions(game, tiers, positions, seed)
    rules = tuple(sorted(game.params.items()))
    tasks = [Task(f"sampled-{chunk}", solve_chunk,
                  (game.name, rules, tuple(agents), seed, chunk, tuple(p for _, p in sampled[start:start + CHUNK])),
                  cost=min(CHUNK, len(sampled) - start))
             for chunk, start in enumerate(range(0, len(sampled), CHUNK))]
    ordered = quality.run_chunks(executor, tasks, "exact move quality", quiet, agents=len(agents),
                                 arrived=quality.forfeit_lines(agents))
    scores = [s for r in ordered for s in r["scores"]]
    tier_of = np.array([t for t, _ in sampled], dtype=np.int32)
    position_list = [p for _, p in sampled]
    best = np.array([s.max() for s in scores], dtype=np.int64)
    outcome, remoteness = values(best)
    weight = np.ones(len(sampled))
    at_risk = outcome != oc.LOSS
    entries, chosen_scores = {}, {}
    for a, spec in enumerate(resolved.spec for resolved in agents):
        chosen = np.concatenate([r["agents"][a]["chosen"] for r in ordered]) if ordered else np.zeros(0, np.int64)
        chosen_scores[spec] = np.array([s[k] if k != FORFEITED else -WIN_SCORE for s, k in zip(scores, chosen)],
                                       dtype=np.int64)
        chosen_outcome, chosen_remoteness = values(chosen_scores[spec])
        entry = quality.summarise(tiers, tier_of, weight, outcome, remoteness, chosen_outcome, chosen_remoteness)
        entry["move_quality"]["seconds"] = round(sum(r["agents"][a]["seconds"] for r in ordered), 3)
        entry["move_quality"]["forfeits"] = quality.forfeit_counts(ordered, a)
        kinds = [blunder_kinds(game, p, s, k) for p, s, k in zip(position_list, scores, chosen)]
        entry["blunders"] = blunder_figures(kinds, at_risk)
        entry["blunders"]["by_tier"] = {
            name: blunder_figures([kind for kind, t in zip(kinds, tier_of) if t == n], at_risk[tier_of == n])
            for n, name in enumerate(tiers) if (tier_of == n).any()}
        entries[spec] = entry
    values_by_tier = {name: {key: int((outcome[tier_of == t] == code).sum())
                             for key, code in (("win", oc.WIN), ("loss", oc.LOSS), ("draw", oc.DRAW))}
                      for t, name in enumerate(tiers)}
    checks = perfect_play_checks(game, agents, position_list, best, chosen_scores)
    ruler_seconds = np.array([t for r in ordered for t in r["ruler_seconds"]])
    for n, name in enumerate(tiers):
        here = ruler_seconds[tier_of == n]
        sample["per_tier"][name].update(ruler_seconds_mean=round(float(here.mean()), 3) if len(here) else None,
                                        ruler_seconds_max=round(float(here.max()), 3) if len(here) else None)
    sample["tiers"] = list(tiers)
    return {"agents": entries, "sample": sample, "tiers": values_by_tier, "checks": checks,
            "positions": [game.format(p) for p in position_list]}
