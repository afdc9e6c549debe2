"""Exact move quality: each agent chooses a move in stored positions, and the store says what
that move gives away.

For a position of value v (side to move's view) and the value c its chosen move achieves:

* value kept: c has the outcome of v (a loss is always kept: every move of a lost position
  loses);
* remoteness given away, in won positions where the win is kept: chosen win's remoteness minus
  the fastest win's (0 for a perfect move; `mean_remoteness_lost`);
* loss shortfall, in lost positions: the slowest loss's remoteness minus the chosen loss's
  (how much sooner the agent lets the game end; `mean_loss_shortfall`).

A user's agent that gives up a move (`agents.base.Forfeit`) loses at once: the chosen move's
value is a loss in 0 plies (a won or drawn position's value not kept, a lost position's whole
remoteness short); its forfeits are counted by reason, and each gets a line on stderr.

All non-terminal positions are measured when the store holds at most `limit` of them, else a
seeded sample per tier, proportional to the tier's share and at least `MIN_PER_TIER`; each
measured position then stands for `weight` positions of its tier so that the figures estimate
the whole game's: its symmetry class (a store of tic-tac-toe or Quixo keeps one position of
each), times the tier's stored positions per sampled one. The work runs as tasks of `CHUNK`
positions, all agents in each task (the store is read once per chunk), each agent seeded per chunk.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents import ResolvedAgent
from retrograde.agents.base import Forfeit
from retrograde.agents.lookup import optimal_moves
from retrograde.agents.match import ForfeitNotices, by_reason
from retrograde.data.probing import Analysis, MoveValue, analyse
from retrograde.data.store import Store
from retrograde.data.tablebase import StoredScores
from retrograde.pipeline.graph import Task
from retrograde.pipeline.progress import Progress
from retrograde.pipeline.worker import WorkerState
from retrograde.search.scores import UNKNOWN, score_values
from retrograde.validation.rating import wilson
from retrograde.validation.seeding import task_seed
from retrograde.validation.worker import worker_scores, worker_store

#: Positions measured by default (all of them in stores that hold fewer).
DEFAULT_POSITIONS = 20_000
#: A sampled tier contributes at least this many positions (or all it has).
MIN_PER_TIER = 5
#: Positions per task.
CHUNK = 500
#: An agent's worst positions the report shows.
WORST = 10


@dataclass(frozen=True)
class Selection:
    """The positions to measure: tier (index into `tiers`) and index of each, and the number of
    the tier's positions each one stands for."""

    tiers: tuple[str, ...]
    tier_of: np.ndarray
    index: np.ndarray
    weight: np.ndarray
    exhaustive: bool
    candidates: dict[str, int]

    def __len__(self) -> int:
        return len(self.index)


def select_positions(store: Store, limit: int, seed: int) -> Selection:
    """Every stored non-terminal position if there are at most `limit`, else a stratified sample.

    Terminal wins and losses (remoteness 0) are left out here; terminal draws cannot be told
    from others by their stored value and are dropped by the task that looks at them."""
    tiers = tuple(tier.name for tier in store.plan.tiers)
    found, codes_of = [], []  # per tier: the stored candidates, and the tier's outcome codes
    for name in tiers:
        codes, remoteness = store.read_tier(name)
        found.append(np.flatnonzero((codes == oc.DRAW) | ((codes != oc.UNDECIDED) & (remoteness > 0))))
        codes_of.append(codes)
    total = sum(len(candidates) for candidates in found)
    exhaustive = total <= limit
    rng = np.random.default_rng(task_seed(seed, "move-quality-sample"))
    tier_of, index, weight = [], [], []
    for t, candidates in enumerate(found):
        if exhaustive:
            picked = np.arange(len(candidates))
        else:
            quota = min(len(candidates), max(MIN_PER_TIER, int(limit * len(candidates) / total)))
            picked = np.sort(rng.choice(len(candidates), quota, replace=False))
        tier_of.append(np.full(len(picked), t, dtype=np.int32))
        index.append(candidates[picked].astype(np.int64))
        weight.append(_orbit_sizes(store.game, tiers[t], codes_of[t], index[-1], whole=exhaustive)
                      * (len(candidates) / max(len(picked), 1)))
    return Selection(tiers, np.concatenate(tier_of), np.concatenate(index), np.concatenate(weight), exhaustive,
                     {name: len(candidates) for name, candidates in zip(tiers, found)})


def _orbit_sizes(game, name: str, codes: np.ndarray, indices: np.ndarray, *, whole: bool) -> np.ndarray:
    """How many positions each of `indices` of a tier stands for (its symmetry class's size, 1
    without symmetry): from the whole tier's sizes where most indices are measured (`whole`),
    else at the sampled indices alone."""
    tier = game.tier(name)
    if whole:
        sizes = game.orbit_sizes(tier, 0, codes.size, codes)
        return np.ones(indices.size) if sizes is None else sizes[indices].astype(np.float64)
    sizes = game.orbit_sizes_at(tier, indices, codes[indices])
    return np.ones(indices.size) if sizes is None else sizes.astype(np.float64)


def choose_chunk(worker: WorkerState, location: str, agents: tuple[ResolvedAgent, ...], seed: int, chunk: int,
                 tiers: tuple[str, ...], tier_of: np.ndarray, index: np.ndarray) -> dict[str, Any]:
    """One task: the value of each position and of the move each agent chooses there.

    Returns `playable` (False for terminal draws, which have no move), `outcome`/`remoteness`
    of each playable position, and per agent the chosen move's `chosen_outcome` and
    `chosen_remoteness` (mover's view, plies from the position; a loss in 0 where it forfeits),
    its `seconds` choosing, its `forfeits` [(k, reason, detail, position text)] and its `worst`
    positions of the chunk [(k, `worst_entry`)] (`worst_order`: the chunk's share of the worst
    of all).

    Where the store's tablebase scores every move in kernels (`tablebase.StoredScores`), agents
    with a batch form (`Player.choose_scored`) choose at all positions at once and no position is
    analysed but the worst few; the others choose position by position from the store's analyses
    (`Player.choose_analysed`: the lookup agent reads none again), read once for all of them."""
    store = worker_store(worker, location)
    scored = worker_scores(worker, store)
    if scored is not None and scored.holds(tiers[t] for t in np.unique(tier_of).tolist()):
        return _choose_scored(store, scored, agents, seed, chunk, tiers, tier_of, index)
    game = store.game
    positions = [game.position_at(game.tier(tiers[t]), i) for t, i in zip(tier_of.tolist(), index.tolist())]
    playable = np.array([game.primitive(position) == 0 for position in positions], dtype=bool)
    analyses = analyse(store, [p for p, keep in zip(positions, playable) if keep])
    outcome = np.array([a.value.outcome for a in analyses], dtype=np.int8)
    remoteness = np.array([a.value.remoteness or 0 for a in analyses], dtype=np.int64)
    per_agent = []
    for resolved in agents:
        agent = resolved.build(game, seed=task_seed(seed, "move-quality", resolved.stream, chunk), store=store)
        per_agent.append(_choose_each(game, agent, analyses, outcome, remoteness))
    return {"playable": playable, "outcome": outcome, "remoteness": remoteness, "agents": per_agent}


def _choose_each(game, agent, analyses: list[Analysis], outcome: np.ndarray, remoteness: np.ndarray
                 ) -> dict[str, Any]:
    """An agent's entry of `choose_chunk`'s result, choosing position by position from `analyses`."""
    chosen_outcome = np.empty(len(analyses), dtype=np.int8)
    chosen_remoteness = np.empty(len(analyses), dtype=np.int64)
    chosen: list[MoveValue | None] = []  # the move and its value, None where the agent forfeits
    forfeits: list[tuple[int, str, str, str]] = []
    started = time.perf_counter()
    for k, analysis in enumerate(analyses):
        try:
            move, _ = agent.choose_analysed(analysis)
        except Forfeit as given_up:
            chosen_outcome[k], chosen_remoteness[k] = oc.LOSS, 0
            chosen.append(None)
            forfeits.append((k, given_up.reason, given_up.detail, game.format(analysis.position)))
            continue
        made = next((m for m in analysis.moves if m.move == move), None)
        if made is None:
            raise RuntimeError(f"agent {agent.spec} chose {move!r}, not a legal move in "
                               f"{game.format(analysis.position)!r}")
        chosen_outcome[k], chosen_remoteness[k] = made.value.outcome, made.value.remoteness or 0
        chosen.append(made)
    seconds = time.perf_counter() - started
    gave_up = {k: reason for k, reason, _, _ in forfeits}
    worst = [(k, worst_entry(game, analyses[k], chosen[k], gave_up.get(k)))
             for k in worst_order(outcome, remoteness, chosen_outcome, chosen_remoteness).tolist()]
    return {"chosen_outcome": chosen_outcome, "chosen_remoteness": chosen_remoteness,
            "seconds": seconds, "forfeits": forfeits, "worst": worst}


def _choose_scored(store: Store, scored: StoredScores, agents: tuple[ResolvedAgent, ...], seed: int, chunk: int,
                   tiers: tuple[str, ...], tier_of: np.ndarray, index: np.ndarray) -> dict[str, Any]:
    """`choose_chunk` with every move's exact score from kernels: the positions' own values read from
    the tablebase, a terminal position one without a scored move."""
    game = store.game
    rows, codes, stored = None, np.empty(len(index), np.int8), np.empty(len(index), np.int64)
    for t in np.unique(tier_of).tolist():
        at = np.flatnonzero(tier_of == t)
        tier_rows = scored.rows(tiers[t], index[at])
        rows = np.empty((len(index), tier_rows.shape[1]), np.int64) if rows is None else rows
        rows[at] = tier_rows
        codes[at], stored[at] = scored.values(tiers[t], index[at])
    exact = scored.move_scores(rows)
    playable = exact[:, 0] != UNKNOWN  # a position's scored moves fill a prefix of its row
    rows, exact = rows[playable], exact[playable]
    outcome = codes[playable]
    remoteness = np.where(outcome == oc.DRAW, 0, stored[playable])
    at_tier, at_index = tier_of[playable].tolist(), index[playable].tolist()
    analyses: dict[int, Analysis] = {}  # read where a position is shown or an agent chooses one by one

    def analysed(ks: list[int]) -> list[Analysis]:
        missing = [k for k in ks if k not in analyses]
        analyses.update(zip(missing, analyse(store, [game.position_at(game.tier(tiers[at_tier[k]]), at_index[k])
                                                     for k in missing])))
        return [analyses[k] for k in ks]

    per_agent = []
    for resolved in agents:
        agent = resolved.build(game, seed=task_seed(seed, "move-quality", resolved.stream, chunk), store=store)
        started = time.perf_counter()
        moves = agent.choose_scored(rows, exact)
        if moves is None:
            per_agent.append(_choose_each(game, agent, analysed(list(range(len(at_index)))), outcome, remoteness))
            continue
        chosen_outcome, chosen_remoteness = score_values(exact[np.arange(len(moves)), moves])
        seconds = time.perf_counter() - started
        order = worst_order(outcome, remoteness, chosen_outcome, chosen_remoteness).tolist()
        worst = [(k, worst_entry(game, analysis, analysis.moves[moves[k]], None))
                 for k, analysis in zip(order, analysed(order))]
        per_agent.append({"chosen_outcome": chosen_outcome, "chosen_remoteness": chosen_remoteness,
                          "seconds": seconds, "forfeits": [], "worst": worst})
    return {"playable": playable, "outcome": outcome, "remoteness": remoteness, "agents": per_agent}


def worst_order(outcome: np.ndarray, remoteness: np.ndarray, chosen_outcome: np.ndarray,
                chosen_remoteness: np.ndarray) -> np.ndarray:
    """Indices of the positions where the chosen move gives the most away, at most `WORST`,
    worst first: the value lost first (win->loss, then win->draw, then draw->loss), then the
    most remoteness given away (a won position kept: plies beyond the fastest win; a lost one:
    plies sooner than the slowest loss), then in the order given. Positions where nothing is
    given away are left out."""
    won, drawn, lost = outcome == oc.WIN, outcome == oc.DRAW, outcome == oc.LOSS
    value_lost = np.select([won & (chosen_outcome == oc.LOSS), won & (chosen_outcome == oc.DRAW),
                            drawn & (chosen_outcome == oc.LOSS)], [3, 2, 1], 0)
    given = np.select([won & (chosen_outcome == oc.WIN), lost], [chosen_remoteness - remoteness,
                                                                  remoteness - chosen_remoteness], 0)
    order = np.lexsort((-given, -value_lost))  # stable: ties stay in the order given
    return order[(value_lost[order] > 0) | (given[order] > 0)][:WORST]


def worst_entry(game, analysis: Analysis, made: MoveValue | None, forfeit: str | None) -> dict[str, Any]:
    """A worst position as the report lists it: the position, its value and remoteness, the move
    chosen (None where the agent forfeits: `forfeit` says why) with the value it achieves (a
    forfeit: a loss in 0), and the right moves (the lookup agent's: `optimal_moves`)."""
    return {"position": game.format(analysis.position), "value": analysis.value.name,
            "remoteness": analysis.value.remoteness, "chosen": None if made is None else made.move,
            "forfeit": forfeit, "achieves": oc.name(oc.LOSS) if made is None else made.value.name,
            "achieves_remoteness": 0 if made is None else made.value.remoteness,
            "best": [m.move for m in optimal_moves(analysis.moves)]}


def quality_tasks(store: Store, agents: tuple[ResolvedAgent, ...], selection: Selection, seed: int) -> list[Task]:
    """The chunk tasks measuring every agent on the selection."""
    return [Task(f"quality-{chunk}", choose_chunk,
                 (store.location, agents, seed, chunk, selection.tiers, selection.tier_of[start:start + CHUNK],
                  selection.index[start:start + CHUNK]), cost=min(CHUNK, len(selection) - start))
            for chunk, start in enumerate(range(0, len(selection), CHUNK))]


def run_chunks(executor, tasks: list[Task], label: str, quiet: bool, *, agents: int = 0,
               arrived: Callable[[Task, Any], None] | None = None) -> list[Any]:
    """Run tasks whose cost is their number of positions, with a progress line (counting moves,
    positions times `agents`, where `agents` choose at each); their results in the order of
    `tasks`. `arrived(task, result)` is called as each result comes in."""
    per_position, unit = (agents, "moves") if agents else (1, "positions")
    progress = Progress(label, sum(task.cost for task in tasks) * per_position, quiet=quiet, unit=unit)
    results = {}
    for task, result in executor.run(tasks):
        results[task.key] = result
        progress.advance(task.cost * per_position)
        if arrived is not None:
            arrived(task, result)
    progress.finish("done")
    return [results[task.key] for task in tasks]


def forfeit_lines(agents: list[ResolvedAgent]) -> Callable[[Task, Any], None]:
    """`run_chunks`'s `arrived` for chunks whose results list each agent's forfeits [(k, reason,
    detail, position text)]: a line on stderr for each (`ForfeitNotices`)."""
    notices = ForfeitNotices()

    def announce(task: Task, result: dict[str, Any]) -> None:
        for agent, chosen in zip(agents, result["agents"]):
            for _, reason, detail, position in chosen["forfeits"]:
                notices.note(agent.spec, reason, detail, position)

    return announce


def forfeit_counts(ordered: list[dict[str, Any]], a: int) -> dict[str, int]:
    """Agent `a`'s forfeits in the chunks' results, by reason (`by_reason`)."""
    return by_reason(Counter(reason for r in ordered for _, reason, _, _ in r["agents"][a]["forfeits"]))


def measure(store: Store, agents: list[ResolvedAgent], *, positions: int, seed: int, executor,
            quiet: bool = False) -> dict[str, Any]:
    """Move quality of every agent: the report's `agents[SPEC]` entries (with each agent's
    forfeits by reason and its `WORST` worst positions) and the sample's description. Each
    forfeit gets a line on stderr as its chunk comes in, `quiet` or not."""
    selection = select_positions(store, positions, seed)
    ordered = run_chunks(executor, quality_tasks(store, tuple(agents), selection, seed), "move quality", quiet,
                         agents=len(agents), arrived=forfeit_lines(agents))
    playable = np.concatenate([r["playable"] for r in ordered]) if ordered else np.zeros(0, bool)
    outcome = np.concatenate([r["outcome"] for r in ordered]) if ordered else np.zeros(0, np.int8)
    remoteness = np.concatenate([r["remoteness"] for r in ordered]) if ordered else np.zeros(0, np.int64)
    tier_of = selection.tier_of[playable]
    weight = selection.weight[playable]
    entries, chosen = {}, {}
    for a, spec in enumerate(agent.spec for agent in agents):
        chosen[spec] = chosen_outcome = np.concatenate([r["agents"][a]["chosen_outcome"] for r in ordered]) if ordered \
            else np.zeros(0, np.int8)
        chosen_remoteness = np.concatenate([r["agents"][a]["chosen_remoteness"] for r in ordered]) if ordered \
            else np.zeros(0, np.int64)
        entries[spec] = summarise(selection.tiers, tier_of, weight, outcome, remoteness, chosen_outcome,
                                 chosen_remoteness)
        entries[spec]["move_quality"]["seconds"] = round(sum(r["agents"][a]["seconds"] for r in ordered), 6)
        entries[spec]["move_quality"]["forfeits"] = forfeit_counts(ordered, a)
        entries[spec]["worst"] = worst(ordered, a, outcome, remoteness, chosen_outcome, chosen_remoteness)
    sample = {"positions": int(playable.sum()), "exhaustive": selection.exhaustive,
              "limit": positions, "min_per_tier": MIN_PER_TIER,
              "non_terminal_positions": sum(selection.candidates.values()),
              "per_tier": {name: {"positions": int((tier_of == t).sum()), "stored": selection.candidates[name]}
                           for t, name in enumerate(selection.tiers)}}
    return {"agents": entries, "sample": sample,
            "trickiest": trickiest(store.game, selection, playable, outcome, chosen)}


def worst(ordered: list[dict[str, Any]], a: int, outcome: np.ndarray, remoteness: np.ndarray,
          chosen_outcome: np.ndarray, chosen_remoteness: np.ndarray) -> list[dict[str, Any]]:
    """Agent `a`'s worst positions of all the chunks (`ordered`; the columns: every chunk's
    playable positions in turn), `worst_order`'s: each among its chunk's worst."""
    found, offset = {}, 0
    for result in ordered:
        found.update((offset + k, entry) for k, entry in result["agents"][a]["worst"])
        offset += len(result["outcome"])
    return [found[i] for i in worst_order(outcome, remoteness, chosen_outcome, chosen_remoteness).tolist()]


#: Positions the report names as the trickiest.
TRICKIEST = 5


def trickiest(game, selection: Selection, playable: np.ndarray, outcome: np.ndarray,
              chosen: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """The sampled positions where the most agents give the value away (most first, then the
    sample's order), with the agents that do: [{"position", "value", "agents"}]."""
    if not len(outcome):
        return []
    lost = np.array([chosen[spec] < outcome for spec in chosen])  # outcome codes: LOSS < DRAW < WIN
    counts = lost.sum(axis=0)
    order = np.argsort(-counts, kind="stable")[:TRICKIEST]
    tiers, index = selection.tier_of[playable], selection.index[playable]
    specs = list(chosen)
    return [{"position": game.format(game.position_at(game.tier(selection.tiers[tiers[k]]), int(index[k]))),
             "value": oc.name(outcome[k]), "agents": [specs[a] for a in np.flatnonzero(lost[:, k])]}
            for k in order.tolist() if counts[k]]


def _fraction(hit: np.ndarray, weight: np.ndarray) -> float | None:
    total = weight.sum()
    return float((weight * hit).sum() / total) if len(weight) and total > 0 else None


def _mean(values: np.ndarray, weight: np.ndarray) -> float | None:
    return float((weight * values).sum() / weight.sum()) if len(weight) and weight.sum() > 0 else None


def _figures(outcome: np.ndarray, remoteness: np.ndarray, chosen_outcome: np.ndarray,
             chosen_remoteness: np.ndarray, weight: np.ndarray) -> dict[str, Any]:
    """The move-quality figures of one set of positions (all, a tier, ...)."""
    kept = chosen_outcome == outcome
    won, drawn, lost = outcome == oc.WIN, outcome == oc.DRAW, outcome == oc.LOSS
    won_kept = won & kept
    return {
        "positions": int(len(outcome)),
        "value_kept": _fraction(kept, weight),
        "win_kept": _fraction(kept[won], weight[won]),
        "draw_kept": _fraction(kept[drawn], weight[drawn]),
        "mean_remoteness_lost": _mean((chosen_remoteness - remoteness)[won_kept], weight[won_kept]),
        "mean_loss_shortfall": _mean((remoteness - chosen_remoteness)[lost], weight[lost]),
        "won": int(won.sum()), "drawn": int(drawn.sum()), "lost": int(lost.sum()),
        "win_to_draw": int((won & (chosen_outcome == oc.DRAW)).sum()),
        "win_to_loss": int((won & (chosen_outcome == oc.LOSS)).sum()),
        "draw_to_loss": int((drawn & (chosen_outcome == oc.LOSS)).sum()),
    }


def summarise(tiers: tuple[str, ...], tier_of: np.ndarray, weight: np.ndarray, outcome: np.ndarray,
              remoteness: np.ndarray, chosen_outcome: np.ndarray, chosen_remoteness: np.ndarray) -> dict[str, Any]:
    """An agent's report entry: `move_quality` over all positions, `by_tier`, `by_value`, and the
    histogram of remoteness given away in won positions kept (sampled positions, unweighted)."""
    columns = (outcome, remoteness, chosen_outcome, chosen_remoteness, weight)
    by_tier = {}
    for t, name in enumerate(tiers):
        rows = tier_of == t
        if rows.any():
            by_tier[name] = _figures(*(column[rows] for column in columns))
    by_value = {}
    for code in (oc.WIN, oc.DRAW, oc.LOSS):
        rows = outcome == code
        by_value[oc.name(code)] = _figures(*(column[rows] for column in columns))
    given = (chosen_remoteness - remoteness)[(outcome == oc.WIN) & (chosen_outcome == oc.WIN)]
    lost_by, count = np.unique(given, return_counts=True)
    overall = _figures(*columns)
    overall["value_kept_ci95"] = value_kept_interval(overall["value_kept"], weight)
    return {"move_quality": overall, "by_tier": by_tier, "by_value": by_value,
            "remoteness_given_away": {str(k): int(n) for k, n in zip(lost_by.tolist(), count.tolist())}}


def value_kept_interval(value_kept: float | None, weight: np.ndarray) -> list[float] | None:
    """The 95% Wilson interval (`rating.wilson`) of the weighted share of values kept, counted
    over the measured positions' effective number (Kish: (sum of weights)^2 / sum of squared
    weights; the number of positions where every weight is the same); None where nothing is measured."""
    if value_kept is None:
        return None
    effective = float(weight.sum() ** 2 / (weight ** 2).sum())
    return list(wilson(value_kept * effective, effective))
