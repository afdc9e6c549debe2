"""`retrograde run seeds`: every match figure the course reports published for a game (each
game's `figures`), played again with the reports' agents as their code played them, into
DIR/seeds/report.json, report.md and report.html (`validation.seeds` makes the rows).

Each instance gets a solved store in DIR/seeds/stores (once) where the estimate says this
machine can solve it: the report's agent is audited on it (value kept), and agents that read a
store play from it (elsewhere their rows are not run); each finished row is kept in DIR/seeds/rows, so a rerun
plays only the rows not done yet, and `--only NUMBER` plays one report's rows (delete the
folder to play rows again).
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from retrograde.agents import build_agent, parse_spec, reads_store
from retrograde.data.durable import write_atomically
from retrograde.data.lock import writer_lock
from retrograde.data.store import Store
from retrograde.errors import BadAgent, BadOption
from retrograde.games import GAMES, Game, make_game
from retrograde.pipeline.executors import open_executor
from retrograde.pipeline.stages import check_solve, plan_stage, solve_stage, write_json
from retrograde.training.measure import ValueKeptSample
from retrograde.validation import report, seeds
from retrograde.validation.tournament import INITIAL, Pairing, default_max_plies, run_tournament

#: The seed every row's games derive from (with the agents' stream names and the seat).
SEED = 0
#: Wall-clock seconds of each row this run played (a solve of a store included in its first
#: row), kept apart from report.json, which does not vary from run to run.
TIMINGS = "timings.json"


def seed_figures(only: str | None = None) -> list[seeds.SeedFigure]:
    """Every game's published figures, in the registry's order of games.

    :raises BadOption: `only` (a report's file name or number) names no report with figures."""
    figures = [seeds.SeedFigure(name, figure) for name, game in GAMES.items() for figure in game.figures]
    if only is not None and not any(figure.seed.startswith(only) for figure in figures):
        known = sorted({figure.seed[:3] for figure in figures})
        raise BadOption(f"--only {only!r}: no course report of that name has figures; reports: {', '.join(known)}")
    return figures


def _key(figure: seeds.SeedFigure) -> str:
    """A row's name in DIR/seeds/rows: what it plays, and where it is printed."""
    what = [figure.seed, figure.where, figure.game, figure.figure.params, figure.agent, figure.opponent,
            figure.figure.seat, figure.games, SEED]
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:20]


class Stores:
    """The solved stores the rows read, solved on first use (None, with why, where this machine cannot)."""

    def __init__(self, folder: Path, executor, stack: ExitStack, quiet: bool, workers, scheduler):
        self.folder, self.executor, self.stack, self.quiet = folder, executor, stack, quiet
        self.workers, self.scheduler = workers, scheduler
        self.found: dict[str, tuple[Store | None, str | None, ValueKeptSample | None]] = {}

    def get(self, game: Game) -> tuple[Store | None, str | None, ValueKeptSample | None]:
        name = game.describe()
        if name not in self.found:
            path = self.folder / (hashlib.sha256(name.encode()).hexdigest()[:12] + ".zarr")
            self.folder.mkdir(parents=True, exist_ok=True)
            try:
                check_solve(game, path, workers=self.workers, scheduler=self.scheduler)
            except BadOption as exc:
                self.found[name] = None, f"needs a solved store of {name}, which this machine cannot solve: {exc}", None
                return self.found[name]
            with writer_lock(path), plan_stage(game, path) as store:
                solve_stage(store, self.executor, quiet=self.quiet)
            store = self.stack.enter_context(Store.open(path))
            self.found[name] = store, None, ValueKeptSample(store, game, SEED)
        return self.found[name]


def _play(figure: seeds.SeedFigure, game: Game, store: Store | None, executor, quiet: bool) -> tuple[int, int, int]:
    """(wins, draws, losses) of the report's agent in its seat: the games of `figure.games`,
    half a seat where the report drew who started."""
    agent, opponent, seat, games = figure.agent, figure.opponent, figure.figure.seat, figure.games
    pairings = []
    if seat in ("first", "either"):
        pairings.append(Pairing(agent, opponent, INITIAL, games if seat == "first" else games // 2, "agent first"))
    if seat in ("second", "either"):
        pairings.append(Pairing(opponent, agent, INITIAL, games if seat == "second" else games - games // 2,
                                "agent second"))
    entries = run_tournament(game, store, pairings, seed=SEED, executor=executor, max_plies=default_max_plies(game),
                             quiet=quiet)
    return _tally(pairings, entries)


def _tally(pairings: list[Pairing], entries: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(wins, draws, losses) of the report's agent over the pairings' tournament entries."""
    wins = draws = losses = 0
    for pairing, entry in zip(pairings, entries):
        first = pairing.label == "agent first"
        wins += entry["first_wins"] if first else entry["second_wins"]
        losses += entry["second_wins"] if first else entry["first_wins"]
        draws += entry["draws"]
    return wins, draws, losses


def _row_of_instances(figure: seeds.SeedFigure, executor) -> dict[str, Any]:
    """A figure over many instances: one game a seat on each (no store, no audit; no progress
    lines: a hundred two-game tournaments)."""
    wins = draws = losses = 0
    for params in figure.figure.instances:
        game = make_game(figure.game, params)
        pairings = [Pairing(figure.agent, figure.opponent, INITIAL, 1, "agent first"),
                    Pairing(figure.opponent, figure.agent, INITIAL, 1, "agent second")]
        won, drawn, lost = _tally(pairings, run_tournament(game, None, pairings, seed=SEED, executor=executor,
                                                           max_plies=default_max_plies(game), quiet=True))
        wins, draws, losses = wins + won, draws + drawn, losses + lost
    return seeds.row(figure, seeds.ours(wins, draws, losses, None))


def _row(figure: seeds.SeedFigure, stores: Stores, executor, quiet: bool) -> dict[str, Any]:
    if figure.figure.instances:
        return _row_of_instances(figure, executor)
    game = make_game(figure.game, figure.figure.params)
    store, why, sample = stores.get(game)  # for the exact audit, where this machine can solve the game
    if store is None and any(reads_store(parse_spec(spec).name) for spec in (figure.agent, figure.opponent)):
        return seeds.row(figure, None, why)
    try:
        for spec in (figure.agent, figure.opponent):
            build_agent(spec, game, seed=SEED, store=store)
    except BadAgent as exc:
        if "needs params=FILE" not in str(exc):
            raise
        return seeds.row(figure, None, f"{figure.figure.agent.label} needs an artifact trained as the report "
                                       f"trained it, and none is trained here yet ({exc})")
    wins, draws, losses = _play(figure, game, store, executor, quiet)
    kept = sample.value_kept(build_agent(figure.agent, game, seed=SEED, store=store)) if sample else None
    return seeds.row(figure, seeds.ours(wins, draws, losses, kept))


def run_seeds(out_dir: Path, *, only: str | None = None, workers: int | None = None, scheduler: str | None = None,
              quiet: bool = False) -> dict[str, Any]:
    """Play every published figure's row not played yet into `out_dir` (those of report `only`, if
    given: the report then holds them and the rows earlier runs played); returns report.json's
    document."""
    figures = seed_figures(only)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows_dir = out_dir / "rows"
    with writer_lock(out_dir / "report.json", "seeds report"), ExitStack() as stack, \
            open_executor(workers=workers, scheduler=scheduler, positions=None) as executor:
        stores = Stores(out_dir / "stores", executor, stack, quiet, workers, scheduler)
        rows, seconds = [], {}
        for figure in figures:
            done = rows_dir / f"{_key(figure)}.json"
            if done.exists():
                rows.append(json.loads(done.read_text()))
            elif only is None or figure.seed.startswith(only):
                started = time.monotonic()
                found = _row(figure, stores, executor, quiet)
                rows_dir.mkdir(exist_ok=True)
                write_json(done, found)
                rows.append(found)
                name = f"{figure.seed[:3]} {figure.where}: {figure.agent} vs {figure.opponent}, {figure.figure.seat}"
                seconds[name] = round(time.monotonic() - started, 2)
        document = {"rows": rows, "summary": seeds.summary(rows)}
        write_json(out_dir / "report.json", document)
        write_json(out_dir / TIMINGS, {"rows_played_s": seconds})
        for name, text in (("report.md", report.seeds_markdown(rows)), ("report.html", report.seeds_html(rows))):
            write_atomically(out_dir / name, lambda file, text=text: file.write(text.encode()))
    return document
