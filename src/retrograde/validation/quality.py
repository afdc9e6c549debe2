"""Exact move quality: each agent chooses a move in stored positions, and the store says what
that move gives away.

For a position of value v (side to move's view) and the value c its chosen move achieves:

* value kept: c has the outcome of v (a loss is always kept: every move of a lost position
  loses);
* remoteness given away, in won positions where the win is kept: chosen win's remoteness minus
  the fastest win's (0 for a perfect move; `mean_remoteness_lost`);
* loss shortfall, in lost positions: the slowest loss's remoteness minus the chosen loss's
  (how much sooner the agent lets the game end; `mean_loss_shortfall`).

All non-terminal positions are measured when the store holds at most `limit` of them, else a
seeded sample per tier, proportional to the tier's share and at least `MIN_PER_TIER`; each
measured position then stands for `weight` positions of its tier so that the figures estimate
the whole game's: its symmetry class (a store of tic-tac-toe or Quixo keeps one position of
each), times the tier's stored positions per sampled one. The work runs as tasks of `CHUNK`
positions, all agents in each task (the store is read once per chunk), each agent seeded per chunk.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents import ResolvedAgent
from retrograde.data.probing import analyse
from retrograde.data.store import Store
from retrograde.pipeline.graph import Task
from retrograde.pipeline.progress import Progress
from retrograde.pipeline.worker import WorkerState
from retrograde.validation.seeding import task_seed
from retrograde.validation.worker import worker_store

#: Positions measured by default (all of them in stores that hold fewer).
DEFAULT_POSITIONS = 20_000
#: A sampled tier contributes at least this many positions (or all it has).
MIN_PER_TIER = 5
#: Positions per task.
CHUNK = 500


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
    found, classes = [], []  # per tier: the stored candidates, and how many positions each stands for
    for name in tiers:
        codes, remoteness = store.read_tier(name)
        found.append(np.flatnonzero((codes == oc.DRAW) | ((codes != oc.UNDECIDED) & (remoteness > 0))))
        sizes = store.game.orbit_sizes(store.game.tier(name), 0, codes.size, codes)
        classes.append(np.ones(found[-1].size) if sizes is None else sizes[found[-1]].astype(np.float64))
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
        weight.append(classes[t][picked] * (len(candidates) / max(len(picked), 1)))
    return Selection(tiers, np.concatenate(tier_of), np.concatenate(index), np.concatenate(weight), exhaustive,
                     {name: len(candidates) for name, candidates in zip(tiers, found)})


def choose_chunk(worker: WorkerState, location: str, agents: tuple[ResolvedAgent, ...], seed: int, chunk: int,
                 tiers: tuple[str, ...], tier_of: np.ndarray, index: np.ndarray) -> dict[str, Any]:
    """One task: the value of each position and of the move each agent chooses there.

    Returns `playable` (False for terminal draws, which have no move), `outcome`/`remoteness`
    of each playable position, and per agent the chosen move's `chosen_outcome` and
    `chosen_remoteness` (mover's view, plies from the position) and its `seconds` choosing. Each
    agent chooses from the analysis read here (`Player.choose_analysed`): the lookup agent reads none again."""
    store = worker_store(worker, location)
    game = store.game
    positions = [game.position_at(game.tier(tiers[t]), i) for t, i in zip(tier_of.tolist(), index.tolist())]
    playable = np.array([game.primitive(position) == 0 for position in positions], dtype=bool)
    analyses = analyse(store, [p for p, keep in zip(positions, playable) if keep])
    outcome = np.array([a.value.outcome for a in analyses], dtype=np.int8)
    remoteness = np.array([a.value.remoteness or 0 for a in analyses], dtype=np.int64)
    per_agent = []
    for resolved in agents:
        agent = resolved.build(game, seed=task_seed(seed, "move-quality", resolved.stream, chunk), store=store)
        chosen_outcome = np.empty(len(analyses), dtype=np.int8)
        chosen_remoteness = np.empty(len(analyses), dtype=np.int64)
        started = time.perf_counter()
        for k, analysis in enumerate(analyses):
            move, _ = agent.choose_analysed(analysis)
            value = next((m.value for m in analysis.moves if m.move == move), None)
            if value is None:
                raise RuntimeError(f"agent {agent.spec} chose {move!r}, not a legal move in "
                                   f"{game.format(analysis.position)!r}")
            chosen_outcome[k], chosen_remoteness[k] = value.outcome, value.remoteness or 0
        per_agent.append({"chosen_outcome": chosen_outcome, "chosen_remoteness": chosen_remoteness,
                          "seconds": time.perf_counter() - started})
    return {"playable": playable, "outcome": outcome, "remoteness": remoteness, "agents": per_agent}


def quality_tasks(store: Store, agents: tuple[ResolvedAgent, ...], selection: Selection, seed: int) -> list[Task]:
    """The chunk tasks measuring every agent on the selection."""
    return [Task(f"quality-{chunk}", choose_chunk,
                 (store.location, agents, seed, chunk, selection.tiers, selection.tier_of[start:start + CHUNK],
                  selection.index[start:start + CHUNK]), cost=min(CHUNK, len(selection) - start))
            for chunk, start in enumerate(range(0, len(selection), CHUNK))]


def run_chunks(executor, tasks: list[Task], label: str, quiet: bool) -> list[Any]:
    """Run tasks whose cost is their number of positions, with a progress line; their results
    in the order of `tasks`."""
    progress = Progress(label, sum(task.cost for task in tasks), quiet=quiet)
    results = {}
    for task, result in executor.run(tasks):
        results[task.key] = result
        progress.advance(task.cost)
    progress.finish("done")
    return [results[task.key] for task in tasks]


def measure(store: Store, agents: list[ResolvedAgent], *, positions: int, seed: int, executor,
            quiet: bool = False) -> dict[str, Any]:
    """Move quality of every agent: the report's `agents[SPEC]` entries and the sample's description."""
    selection = select_positions(store, positions, seed)
    ordered = run_chunks(executor, quality_tasks(store, tuple(agents), selection, seed), "move quality", quiet)
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
        entries[spec]["move_quality"]["seconds"] = round(sum(r["agents"][a]["seconds"] for r in ordered), 3)
    sample = {"positions": int(playable.sum()), "exhaustive": selection.exhaustive,
              "limit": positions, "min_per_tier": MIN_PER_TIER,
              "non_terminal_positions": sum(selection.candidates.values()),
              "per_tier": {name: {"positions": int((tier_of == t).sum()), "stored": selection.candidates[name]}
                           for t, name in enumerate(selection.tiers)}}
    return {"agents": entries, "sample": sample,
            "trickiest": trickiest(store.game, selection, playable, outcome, chosen)}


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
    return {"move_quality": _figures(*columns), "by_tier": by_tier, "by_value": by_value,
            "remoteness_given_away": {str(k): int(n) for k, n in zip(lost_by.tolist(), count.tolist())}}
