"""The validate stage: check every input, measure move quality, play the tournaments, rate the
agents, set the seeds' figures beside ours, then write the report (nothing is written before
all the work is done, and nothing at all when an input is wrong)."""

from __future__ import annotations

import os
import time
from importlib.metadata import version
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from retrograde.agents import ResolvedAgent, resolve_agents
from retrograde.agents.match import Forfeited
from retrograde.agents.registry import playable_agents
from retrograde.data.durable import check_writable
from retrograde.data.lock import writer_lock
from retrograde.data.probing import start_summary, start_value
from retrograde.data.store import Store
from retrograde.errors import BadAgent, BadOption, StoreError
from retrograde.games import Game
from retrograde.pipeline.executors import open_executor
from retrograde.validation import published, quality, rating, resume, sampled, summary, tournament
from retrograde.validation import report as reports
from retrograde.validation.artifacts import fitness_curves, learning_curves, step_units, training

DEFAULT_GAMES = 100
#: Agents validated when none are named, in this order: those that can play the game.
DEFAULT_AGENTS = ("lookup", "random", "greedy", "expert", "rules", "minimax:depth=2", "minimax:depth=3", "mcts",
                  "endgame")
#: The record classes the tasks' results hold (their results kept as such: `resume`).
RESULT_RECORDS = (tournament.Played, Forfeited)
#: The names of users' own agents: a Python file or module, an engine, an object from the API.
USER_AGENTS = ("python", "engine", "object")
#: The options of users' agents that decide their forfeits (`agents.user.agents.LIMITS`), which
#: their stream names leave out.
USER_LIMITS = ("move_time", "tries", "memory")
#: Set beside users' own agents when no other agent is named, in this order: those that can play the game.
BASELINES = ("lookup", "minimax:depth=2", "minimax:depth=3", "mcts", "random")


def default_agents(game: Game, store: Store | None, specs: Sequence[str] = DEFAULT_AGENTS) -> list[ResolvedAgent]:
    """The agents of `specs` (default: `DEFAULT_AGENTS`) that can play `game` (with `store`), resolved."""
    return [resolved for resolved, _ in playable_agents(specs, game, store)]


def with_baselines(agents: list[ResolvedAgent], game: Game, store: Store | None) -> list[ResolvedAgent]:
    """`agents`, and after them the `BASELINES` that can play `game` (with `store`) where every agent
    named is a user's own (`USER_AGENTS`): a student's agent alone says nothing until it is set
    beside agents of known strength."""
    if not all(agent.name in USER_AGENTS for agent in agents):
        return agents
    return agents + default_agents(game, store, BASELINES)


def check_out_dir(out_dir: Path) -> None:
    """Refuse an --out that cannot become the report's folder (before anything is written)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise BadOption(f"--out {str(out_dir)!r} exists and is not a folder")
    existing = out_dir.absolute()
    while not existing.exists():
        existing = existing.parent
    check_writable(existing)


def check_agents(specs: str | Sequence[str], game: Game, store: Store | None, agent_defaults: dict | None = None
                 ) -> list[ResolvedAgent]:
    """The agents of a comma-separated list of specs or a list of specs (or the API's objects),
    resolved (with `agent_defaults`: `registry.resolve_agent`) and each built once (every spec
    error before any work), none named twice."""
    agents: list[ResolvedAgent] = []
    for agent, _ in resolve_agents(specs, game, store, agent_defaults):
        if agent.spec in (known.spec for known in agents):
            raise BadAgent(f"agent {agent.spec!r} is named twice")
        agents.append(agent)
    if not agents:
        raise BadAgent("no agents to validate")
    return agents


def consistency_checks(agents: Sequence[ResolvedAgent], move_quality: dict[str, dict[str, Any]]
                       ) -> list[dict[str, Any]]:
    """What must hold whatever the run: the lookup agent keeps every value and plays perfect
    remoteness (by value alone with `remoteness=0`); an agent of the game's own that claims to
    never give a win away (`Policy.claim`: Nim's nim-sum expert) keeps every win. One entry per check."""
    checks = []
    for agent in agents:
        spec, q = agent.spec, move_quality[agent.spec]
        name = agent.name
        if name == "lookup" and agent.written.get("remoteness") == "0":
            checks.append({"name": f"{spec} keeps every value", "ok": q["value_kept"] == 1.0,
                           "detail": f"value kept {q['value_kept']} (must be 1)"})
        elif name == "lookup":
            ok = (q["value_kept"] == 1.0 and (q["mean_remoteness_lost"] or 0) == 0
                  and (q["mean_loss_shortfall"] or 0) == 0)
            checks.append({"name": f"{spec} plays perfectly", "ok": bool(ok),
                           "detail": f"value kept {q['value_kept']}, remoteness lost {q['mean_remoteness_lost']}, "
                                     f"loss shortfall {q['mean_loss_shortfall']} (must be 1, 0, 0)"})
        claim = agent.claim
        if claim:
            ok = q["win_kept"] in (None, 1.0)
            checks.append({"name": f"{spec} {claim}", "ok": bool(ok), "detail": f"win kept {q['win_kept']} (must be 1)"})
    return checks


def _store_tiers(store: Store) -> dict[str, dict[str, int]]:
    """Each tier's win/loss/draw counts, from the game's start to its end (the reverse of the
    solve order), the order the report's tables and plots show tiers in."""
    return {tier.name: {key: store.record(tier.name).count(key) for key in ("win", "loss", "draw")}
            for tier in reversed(store.plan.tiers)}


def tier_groups(game: Game, store: Store | None) -> dict[str, Any] | None:
    """{"label", "of": {tier: group}} where the game groups its tiers (`Game.tier_group`), else None."""
    if game.tier_group is None:
        return None
    tiers = store.plan.tiers if store is not None else game.tiers()
    return {"label": game.tier_group, "of": {tier.name: sum(tier.key) for tier in tiers}}


def _start(game: Game, store: Store | None) -> tuple[str | None, int | None, str | None]:
    """The start's value name and remoteness, or None, None and why they are not known."""
    if store is None:
        return None, None, "no store holds this game whole (its positions were sampled and solved by search)"
    value, why = start_value(store)
    return (None, None, why) if value is None else (value.name, value.remoteness, None)


def validate(store: Store | str | os.PathLike | None, out_dir: str | os.PathLike,
             agent_specs: str | list[str] | None = None, *, game: Game | None = None,
             tiers: tuple[str, ...] | None = None, games: int = DEFAULT_GAMES, positions: int | None = None,
             seed: int = 0, max_plies: int | None = None, openings: bool = True, baselines: bool = True,
             executor=None, workers: int | None = None, scheduler: str | None = None,
             quiet: bool = False, agent_defaults: dict | None = None) -> dict[str, Any]:
    """Validate agents and write report.json/.md/.html into `out_dir`.

    Move quality is exact either way: read from a solved `store`, or, with `store` None and a
    `game` no store holds whole (Quarto), measured on positions sampled from baseline games in
    `tiers` (default: the game's `sampled_tiers`), each solved by exact search (`sampled`).
    `positions`: how many are measured (default: `quality.DEFAULT_POSITIONS` from a store,
    `sampled.DEFAULT_POSITIONS` sampled). `agent_specs`: a comma-separated list of specs or a
    list of specs, resolved here (`check_agents`); None: the default agents for the game. Where
    every agent named is a user's own, the baselines that can play follow them (`with_baselines`)
    unless `baselines` is False. Tasks run on `executor`, else on the one `open_executor` gives for
    `workers`/`scheduler` (opened once the inputs are checked); their results are kept in the
    report folder as they finish, so that the same command, stopped and rerun, resumes (`resume`).
    `agent_defaults`: option values for the agents that take them (users' agents' move time);
    users' agents log to OUT/logs/ unless they say otherwise.
    Returns the report; its "checks" say whether the consistency checks passed ("ok" false in
    any: the CLI exits 1).

    :raises BadOption: games, positions or max_plies below 1, an --out that cannot be written,
        bad tiers, or a game without a store that is validated against one.
    :raises BadAgent: an unknown or bad spec, one that cannot play the game or needs a store.
    :raises StoreError: no store, or one not completely solved.
    """
    options = dict(games=games, positions=positions, seed=seed, max_plies=max_plies, openings=openings,
                   baselines=baselines, executor=executor, workers=workers, scheduler=scheduler, quiet=quiet,
                   agent_defaults={"logs": str(Path(out_dir).absolute() / "logs"), **(agent_defaults or {})})
    if store is None:
        if game is None:
            raise BadOption("validate needs a solved store, or a game whose positions it samples")
        return _validate(Path(out_dir), agent_specs, game=game, store=None, tiers=sampled.check_tiers(game, tiers),
                         **options)
    if isinstance(store, Store):
        return _validate(Path(out_dir), agent_specs, game=store.game, store=store, tiers=None, **options)
    with Store.open(store) as opened:
        return _validate(Path(out_dir), agent_specs, game=opened.game, store=opened, tiers=None, **options)


def _validate(out_dir: Path, agent_specs, *, game: Game, store: Store | None, tiers: tuple[str, ...] | None,
              games: int, positions: int | None, seed: int, max_plies: int | None, openings: bool, baselines: bool,
              executor, workers: int | None, scheduler: str | None, quiet: bool,
              agent_defaults: dict) -> dict[str, Any]:
    started = time.monotonic()
    tournament.check_games(games)
    if positions is None:
        positions = quality.DEFAULT_POSITIONS if store is not None else sampled.DEFAULT_POSITIONS
    if positions < 1:
        raise BadOption(f"--positions {positions}: must be at least 1")
    tournament.check_max_plies(max_plies)
    check_out_dir(out_dir)
    if store is not None and not store.complete:
        raise StoreError(f"store {str(store.path)!r} is not completely solved: finish the solve first "
                         f"(retrograde status --store {store.path} shows what is left)")
    if agent_specs is None:  # where none of the defaults can play, check_agents refuses the empty list
        agents = default_agents(game, store) or check_agents([], game, store)
    else:
        agents = check_agents(agent_specs, game, store, agent_defaults)
        if baselines:
            agents = with_baselines(agents, game, store)
    out_dir.parent.mkdir(parents=True, exist_ok=True)  # every input is good: the lock goes beside the report
    work = dict(agents=agents, tiers=tiers, games=games, positions=positions, seed=seed, max_plies=max_plies,
                openings=openings, quiet=quiet, started=started)
    with writer_lock(out_dir, "report folder"):
        if executor is None:  # sampled positions: exact searches of seconds each, worth a cluster
            with open_executor(workers=workers, scheduler=scheduler,
                               positions=store.plan.positions if store is not None else None) as opened:
                return _run(game, store, out_dir, executor=opened, **work)
        return _run(game, store, out_dir, executor=executor, **work)


def _run(game: Game, store: Store | None, out_dir: Path, *, agents: list[ResolvedAgent], tiers: tuple[str, ...] | None,
         games: int, positions: int, seed: int, max_plies: int | None, openings: bool, executor, quiet: bool,
         started: float) -> dict[str, Any]:
    """The work, once every input is known good; writes the report at the end. The tasks' results
    are kept in the report folder until then (`resume`): a rerun takes those of a stopped run."""
    cap = max_plies if max_plies is not None else tournament.default_max_plies(game)
    kept = resume.TaskResults(out_dir, results_identity(game, store, agents, tiers=tiers, games=games,
                                                        positions=positions, seed=seed, max_plies=cap,
                                                        openings=openings), RESULT_RECORDS)
    executor = resume.ResumingExecutor(executor, kept)
    specs = [agent.spec for agent in agents]
    if store is not None:
        measured = quality.measure(store, agents, positions=positions, seed=seed, executor=executor, quiet=quiet)
        measured["tiers"] = _store_tiers(store)
        measured["sample"]["kind"] = "store"
        measured["checks"] = []
    else:
        measured = sampled.measure(game, agents, tiers=tiers, positions=positions, seed=seed, executor=executor,
                                   quiet=quiet)
        measured["sample"]["kind"] = "sampled"
    quality_done = time.monotonic()
    start_stored = store is None or start_value(store)[0] is not None
    if start_stored:
        opening_positions = tournament.random_openings(game, games, seed) if openings else iter(())
    else:  # a --down-to store: games from positions it holds, none from the start
        opening_positions, openings = tournament.stored_openings(store, games, seed), True
    drawn = tournament.OpeningCount(game)  # the openings the tournament draws, as the report counts them
    entries = tournament.run_tournament(game, store, tournament.every_pairing(agents, games, openings=openings,
                                                                              initial=start_stored),
                                        seed=seed, executor=executor, max_plies=cap, quiet=quiet,
                                        openings=drawn.counted(opening_positions))
    games_done = time.monotonic()
    rated = rating.ratings(specs, entries, seed=seed)
    short = summary.short_names(agents)
    for spec in specs:
        measured["agents"][spec]["rating"] = rated["agents"][spec]
        measured["agents"][spec]["short"] = short[spec]
    report: dict[str, Any] = {
        "game": game.name, "params": game.params, "seed": seed,
        "agents": measured["agents"], "tournaments": entries,
        "game_description": game.describe(),
        "tier_legend": game.tier_legend,
        "ratings": rated,
        "published": published.compare(game, agents, entries, {spec: entry["move_quality"]["value_kept"]
                                                               for spec, entry in measured["agents"].items()}),
        "checks": consistency_checks(agents, {s: e["move_quality"] for s, e in measured["agents"].items()})
        + measured["checks"],
        "max_plies": cap,
        "openings": drawn.summary(),
        "move_quality_sample": measured["sample"],
        "tiers": measured["tiers"],
        "store": None if store is None else {"path": str(store.path), "positions": store.plan.positions,
                                             "value": start_summary(store)},
        "settings": {"agents": specs, "games": games, "positions": positions, "max_plies": max_plies,
                     "openings": openings, "opening_plies": list(tournament.OPENING_PLIES),
                     "from_start": start_stored,
                     "games_per_task": tournament.BATCH,
                     "positions_per_task": quality.CHUNK if store is not None else sampled.CHUNK},
        "trickiest": measured.get("trickiest", []),
        "tier_groups": tier_groups(game, store),
        "learning_curves": learning_curves(agents),
        "learning_units": step_units(agents),
        "fitness_curves": fitness_curves(agents),
        "training": training(agents),
    }
    if store is None:
        report["sampled_positions"] = measured["positions"]
    names = {agent.spec: agent.name for agent in agents}
    report = {"summary": summary.summary(report, short, names, *_start(game, store)), **report}
    finished = time.monotonic()
    timings = {"stages": {"move_quality_s": round(quality_done - started, 2),
                          "tournaments_s": round(games_done - quality_done, 2),
                          "ratings_s": round(finished - games_done, 2), "total_s": round(finished - started, 2)},
               **_wall_clock(report)}
    reports.write_report(out_dir, report, timings)
    kept.remove()
    return report


def results_identity(game: Game, store: Store | None, agents: Sequence[ResolvedAgent], *,
                     tiers: tuple[str, ...] | None, games: int, positions: int, seed: int, max_plies: int,
                     openings: bool) -> dict[str, Any]:
    """Everything that decides a validation's task results, and no path (a store or an agent's file
    moved is the same run): the game, the store's plan digest, the agents' stream names in order
    (an agent's file by its content) with the limits of users' agents, the counts, the seed and
    retrograde's version. An object given to the Python API is known by its class's source alone,
    not by how it was made: it gets a token of this run alone, so that no rerun takes its results."""
    return {"game": game.name, "params": game.params, "plan": store.plan_digest if store is not None else None,
            "agents": [[agent.stream, {name: value for name, value in agent.values if name in USER_LIMITS}]
                       + ([os.urandom(16).hex()] if agent.name == "object" else [])
                       for agent in agents],
            "tiers": list(tiers) if tiers is not None else None,
            "games": games, "positions": positions, "seed": seed, "max_plies": max_plies, "openings": openings,
            "version": version("retrograde")}


def _wall_clock(report: dict[str, Any]) -> dict[str, Any]:
    """Take the wall-clock figures out of the report (they differ from run to run; the report
    must not): each agent's seconds of move choice for move quality, and with sampled positions
    the exact search's mean and longest seconds a position per tier. Returned for timings.json."""
    taken: dict[str, Any] = {"move_quality_s": {spec: entry["move_quality"].pop("seconds", None)
                                                for spec, entry in report["agents"].items()}}
    sample = report["move_quality_sample"]
    if sample["kind"] == "sampled":
        taken["search_s_a_position"] = {name: {"mean": entry.pop("ruler_seconds_mean", None),
                                               "max": entry.pop("ruler_seconds_max", None)}
                                        for name, entry in sample["per_tier"].items()}
    return taken
