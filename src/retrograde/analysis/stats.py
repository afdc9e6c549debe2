"""`analyze`: statistics of a solved game over every position of its store, and where agents go wrong.

Every stored position counts for its symmetry class (`Game.orbit_sizes`, as `status` and the
validation's move quality count), so the figures are those of the whole game. Tiers are read
chunk by chunk, as `verify` reads them: a task expands a chunk with the game's kernel, locates
its children's stored values (`pipeline.tasks.ChildValues`) and counts each position's moves
and the moves that keep its value (`analysis.kernels`); the rest is array work. Only the few
example positions are turned into positions in Python.

The trickiest positions (`--agents`) are measured by the validation's exact audit
(`validation.quality.choose_chunk`); see TRICKIEST_METHOD.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.agents import ResolvedAgent
from retrograde.analysis import kernels
from retrograde.data import packing
from retrograde.data.probing import analyse, values
from retrograde.data.store import SOLVED, Store
from retrograde.errors import MissingTierError
from retrograde.games import make_game
from retrograde.games.base import Expansion
from retrograde.pipeline.graph import Task
from retrograde.pipeline.sizing import BATCH
from retrograde.pipeline.tasks import solved_values
from retrograde.pipeline.worker import WorkerState
from retrograde.validation.quality import CHUNK, choose_chunk, run_chunks
from retrograde.validation.seeding import task_seed

#: Examples of each kind.
EXAMPLES = 5
#: Positions sampled for the trickiest positions (all candidates where there are fewer).
TRICKY_POSITIONS = 1_000
#: Times each agent chooses in each sampled position, each time seeded anew.
TRIES = 8
TRICKIEST_METHOD = (f"a seeded uniform sample of up to {TRICKY_POSITIONS:,} stored positions (one per symmetry "
                    f"class) among the won and drawn ones where some move gives the value away; in each, every "
                    f"agent chooses {TRIES} times, each time with another seed; lost_rate is the share of its "
                    f"choices whose value for the mover is worse than the position's (a win turned into a draw "
                    f"or a loss, a draw into a loss). Ranked by lost_rate, then by the share of the moves that "
                    f"keep the value (the easier to keep, the trickier the position)")


def coverage(store: Store) -> tuple[list[str], list[str]]:
    """(tiers analysed, tiers missing): a tier is analysed when it and its child tiers are solved;
    missing are the others, and the tiers of the whole game the store does not hold at all (a
    store of part of a game, e.g. 5x5 Quixo `--down-to`)."""
    solved = {tier.name for tier in store.plan.tiers if store.record(tier.name).status == SOLVED}
    ready = [tier.name for tier in store.plan.tiers if tier.name in solved and set(tier.children) <= solved]
    game = store.game
    whole = game if game.rules == game.params else make_game(game.name, game.rules)
    names = [tier.name for tier in whole.tiers()]
    names += [tier.name for tier in store.plan.tiers if tier.name not in set(names)]
    analysed = set(ready)
    return ready, [name for name in names if name not in analysed]


def _top(key: np.ndarray, where: np.ndarray, k: int) -> np.ndarray:
    """Rows of the `k` largest `key` (int64) among rows `where`, largest first, ties to the lower row."""
    rows = np.flatnonzero(where)
    if rows.size > k:
        values = key[rows]
        threshold = np.partition(values, values.size - k)[values.size - k]
        above = rows[values > threshold]
        rows = np.concatenate([above, rows[values == threshold][:k - above.size]])
    return rows[np.lexsort((rows, -key[rows]))]


def analyze_chunk(worker: WorkerState, store_path: str, tier_name: str, chunk: int, seed: int,
                  sample: int) -> dict[str, Any]:
    """One chunk's counts (each position weighted by its symmetry class), its candidate examples,
    and with `sample` > 0 its part of the seeded sample of positions for the trickiest search."""
    with Store.open(store_path) as store:
        game = store.game
        tier = game.tier(tier_name)
        start, stop = store.plan.chunking(tier_name).bounds(chunk)
        packed, remoteness = store.read_chunk_raw(tier_name, chunk)
        outcome = packing.unpack(packed, stop - start)
        sizes = game.orbit_sizes(tier, start, stop, outcome)
        weight = (outcome != oc.UNDECIDED).astype(np.int64) if sizes is None else sizes.astype(np.int64)
        children = solved_values(worker, store, tier.children)
        moves = np.zeros(stop - start, dtype=np.int64)
        kept = np.zeros(stop - start, dtype=np.int64)
        buffers = Expansion.buffers(min(BATCH, stop - start), game.max_moves)
        for first in range(start, stop, BATCH):
            expansion = game.expand(tier, first, min(first + BATCH, stop), children.offsets, out=buffers)
            children.locate(expansion.children, 0)
            kernels.moves_kept(outcome, expansion.children, children.outcome, moves, kept, first - start)
    remoteness = remoteness.astype(np.int64)
    won, lost, drawn = outcome == oc.WIN, outcome == oc.LOSS, outcome == oc.DRAW
    choosing = (won | drawn) & (moves >= 2)
    only = choosing & (kept == 1)

    def histogram(rows: np.ndarray) -> np.ndarray:
        return np.bincount(remoteness[rows], weights=weight[rows]).round().astype(np.int64)

    def examples(key: np.ndarray, where: np.ndarray) -> list[dict[str, int]]:
        return [{"tier": tier_name, "index": start + int(i), "key": int(key[i]), "outcome": int(outcome[i]),
                 "remoteness": int(remoteness[i]), "moves": int(moves[i]), "kept": int(kept[i])}
                for i in _top(key, where, EXAMPLES)]

    result = {
        "win": histogram(won), "loss": histogram(lost), "draw": int(weight[drawn].sum()),
        "only_move": {"win": int(weight[only & won].sum()), "draw": int(weight[only & drawn].sum())},
        "longest_win": examples(remoteness, won), "longest_loss": examples(remoteness, lost),
        "most_moves": examples(moves, weight > 0),
        "only_examples": examples(moves << 32 | remoteness, only),
        "tier": tier_name, "sample": None,
    }
    if sample:
        candidates = np.flatnonzero(choosing & (kept < moves))
        keys = np.random.default_rng(task_seed(seed, "analyze-trickiest-sample", tier_name, chunk)).random(stop - start)
        picked = candidates[np.argsort(keys[candidates], kind="stable")[:sample]]
        result["sample"] = {"key": keys[picked], "index": start + picked, "outcome": outcome[picked],
                            "remoteness": remoteness[picked], "moves": moves[picked], "kept": kept[picked]}
        result["candidates"] = int(candidates.size)
    return result


def analyze(store: Store, agent_specs: str | list[str] | None = None, *, seed: int = 0, executor=None,
            workers: int | None = None, scheduler: str | None = None, quiet: bool = False) -> dict[str, Any]:
    """The analysis of every position in the store's analysable tiers (see `coverage`), as
    `analyze --json` prints it; with `agent_specs` (a comma-separated list or a list of specs),
    the trickiest positions for those agents. Tasks run on `executor`, else on the one
    `open_executor` gives for `workers`/`scheduler`.

    :raises BadAgent: a bad spec, or an agent that cannot play the game (before any work)."""
    from retrograde.pipeline.executors import open_executor
    from retrograde.validation.audit import check_agents

    agents = check_agents(agent_specs, store.game, store) if agent_specs is not None else []
    if executor is None:
        with open_executor(workers=workers, scheduler=scheduler, positions=store.plan.positions,
                           kernels=True) as opened:
            return _analyze(store, agents, seed, opened, quiet)
    return _analyze(store, agents, seed, executor, quiet)


def _analyze(store: Store, agents: list[ResolvedAgent], seed: int, executor, quiet: bool) -> dict[str, Any]:
    game = store.game
    ready, missing = coverage(store)
    tasks = [Task(f"analyze-{name}-{chunk}", analyze_chunk,
                  (store.location, name, chunk, seed, TRICKY_POSITIONS if agents else 0),
                  cost=store.plan.chunking(name).length(chunk))
             for name in ready for chunk in range(store.plan.chunking(name).count)]
    results = run_chunks(executor, tasks, "analyze", quiet)
    order = {name: n for n, name in enumerate(ready)}

    def best(kind: str) -> list[dict[str, int]]:
        found = [example for result in results for example in result[kind]]
        return sorted(found, key=lambda e: (-e["key"], order[e["tier"]], e["index"]))[:EXAMPLES]

    def position(example: dict[str, int]):
        return game.position_at(game.tier(example["tier"]), example["index"])

    win, loss = (_add([result[value] for result in results]) for value in ("win", "loss"))
    draw = sum(result["draw"] for result in results)
    only = best("only_examples")
    only_moves = analyse(store, [position(example) for example in only])
    report: dict[str, Any] = {
        "game": game.name, "params": game.params, "description": game.describe(),
        "tier_legend": game.tier_legend,
        "positions": int(win.sum() + loss.sum()) + draw,
        "win": int(win.sum()), "loss": int(loss.sum()), "draw": draw,
        "start": _start(store),
        "histogram": {"win": _counts(win), "loss": _counts(loss), "draw": draw},
        "longest": {value: [{"position": game.format(position(e)), "remoteness": e["key"]}
                            for e in best(f"longest_{value}")] for value in ("win", "loss")},
        "only_move": {
            "count": sum(result["only_move"][value] for result in results for value in ("win", "draw")),
            **{value: sum(result["only_move"][value] for result in results) for value in ("win", "draw")},
            "examples": [{"position": game.format(analysis.position), "value": analysis.value.name,
                          "remoteness": analysis.value.remoteness, "moves": example["moves"],
                          "move": next(m.move for m in analysis.moves if m.value.outcome == analysis.value.outcome)}
                         for example, analysis in zip(only, only_moves)]},
        "most_moves": [{"position": game.format(position(e)), "moves": e["key"]} for e in best("most_moves")],
        "tiers_analysed": len(ready),
        "missing_tiers": missing,
    }
    if agents:
        report.update(_trickiest(store, agents, results, order, seed, executor, quiet))
    return report


def _add(histograms: list[np.ndarray]) -> np.ndarray:
    """The sum of histograms of different lengths."""
    total = np.zeros(max((h.size for h in histograms), default=0), dtype=np.int64)
    for histogram in histograms:
        total[:histogram.size] += histogram
    return total


def _counts(histogram: np.ndarray) -> dict[str, int]:
    """{remoteness (text): positions} where there are any."""
    return {str(r): int(n) for r, n in enumerate(histogram.tolist()) if n}


def _start(store: Store) -> dict[str, Any] | None:
    """The start position and its value, or None where the store does not hold its tier."""
    start = store.game.initial_position
    try:
        (value,) = values(store, [start])
    except MissingTierError:
        return None
    return {"position": store.game.format(start), "value": value.name, "remoteness": value.remoteness}


def _trickiest(store: Store, agents: list[ResolvedAgent], results: list[dict[str, Any]], order: dict[str, int],
               seed: int, executor, quiet: bool) -> dict[str, Any]:
    """The sampled positions where the agents most often give the value away (TRICKIEST_METHOD)."""
    game, specs = store.game, [agent.spec for agent in agents]
    parts = [result for result in results if result["sample"] is not None]
    sample = {key: np.concatenate([part["sample"][key] for part in parts] or [np.zeros(0)])
              for key in ("key", "index", "outcome", "remoteness", "moves", "kept")}
    sample["tier"] = np.concatenate([np.full(part["sample"]["key"].size, order[part["tier"]], dtype=np.int32)
                                     for part in parts] or [np.zeros(0, dtype=np.int32)])
    picked = np.argsort(sample["key"], kind="stable")[:TRICKY_POSITIONS]
    picked = picked[np.lexsort((sample["index"][picked], sample["tier"][picked]))]
    sample = {key: column[picked] for key, column in sample.items()}
    tier_of, index = sample["tier"], sample["index"].astype(np.int64)
    tiers, n = tuple(order), index.size
    tasks = [Task(f"trickiest-{attempt}-{chunk}", choose_chunk,
                  (store.location, tuple(agents), task_seed(seed, "analyze-trickiest", attempt), chunk, tiers,
                   tier_of[first:first + CHUNK], index[first:first + CHUNK]), cost=min(CHUNK, n - first))
             for attempt in range(TRIES) for chunk, first in enumerate(range(0, n, CHUNK))]
    lost = np.zeros((len(specs), n), dtype=np.int64)
    chunks = -(-n // CHUNK)
    for t, result in enumerate(run_chunks(executor, tasks, "trickiest", quiet)):
        first = t % chunks * CHUNK
        for a, chosen in enumerate(result["agents"]):
            lost[a, first:first + chosen["chosen_outcome"].size] += chosen["chosen_outcome"] < result["outcome"]
    rate = lost / TRIES
    share = sample["kept"] / np.maximum(sample["moves"], 1)

    def ranked(agents: np.ndarray, rows: np.ndarray) -> list[dict[str, Any]]:
        keep = rate[agents, rows] > 0
        agents, rows = agents[keep], rows[keep]
        top = np.lexsort((agents, rows, -share[rows], -rate[agents, rows]))[:EXAMPLES]
        return [{"position": game.format(game.position_at(game.tier(tiers[int(tier_of[i])]), int(index[i]))),
                 "agent": specs[a], "lost_rate": float(rate[a, i]), "value": oc.name(int(sample["outcome"][i])),
                 "remoteness": None if sample["outcome"][i] == oc.DRAW else int(sample["remoteness"][i]),
                 "moves": int(sample["moves"][i]), "keeping": int(sample["kept"][i])}
                for a, i in zip(agents[top].tolist(), rows[top].tolist())]

    every_agent, every_row = np.divmod(np.arange(len(specs) * n), max(n, 1))
    return {
        "trickiest": ranked(every_agent, every_row),
        "trickiest_by_agent": {spec: ranked(np.full(n, a), np.arange(n)) for a, spec in enumerate(specs)},
        "trickiest_method": TRICKIEST_METHOD,
        "trickiest_sample": {"agents": specs, "seed": seed, "tries": TRIES, "positions": int(n),
                             "candidates": sum(part["candidates"] for part in parts),
                             "mean_lost_rate": {spec: float(rate[a].mean()) if n else None
                                                for a, spec in enumerate(specs)}},
    }
