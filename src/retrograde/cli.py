"""The `retrograde` command line (SPEC §2): its commands. Each command checks its arguments
before it imports its machinery (numba, dask, zarr, matplotlib, ...), so that `--help`, a usage
error or a refusal that needs no store answers at once, and quick commands (probe, status, games)
never load numba or dask; tests/test_cli_imports.py holds the import list. How a command ends
(one line and an exit status for every expected failure, Ctrl-C and stop signals) is `exits`'s.
"""

from __future__ import annotations

import json
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import click

from retrograde import exits
from retrograde.errors import BadOption
from retrograde.exits import OS_ERROR_EXIT


class _Path(click.Path):
    """A path option's value; an empty one (`--store ''`) is a usage error, not the current folder."""

    def convert(self, value, param, ctx):
        if value == "":
            self.fail("an empty path", param, ctx)
        return super().convert(value, param, ctx)


PATH = _Path()


#: `verify`'s exit status by verdict.
VERIFY_EXIT = {"ok": 0, "failed": 1, "incomplete": 3}

__all__ = ["OS_ERROR_EXIT", "VERIFY_EXIT", "cli", "main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; every expected error ends as one line and an exit status (`exits`)."""
    argv = sys.argv[1:] if argv is None else argv
    exits.run(lambda: cli.main(args=argv, prog_name="retrograde", standalone_mode=False), argv)


@click.group(cls=exits.Commands, context_settings={"help_option_names": ["-h", "--help"]}, epilog="""\b
Start here:
  retrograde games                          the games and their options
  retrograde run --help                     the named workflows: solve, verify, train, validate
  retrograde solve GAME [OPTIONS] --store STORE
  retrograde probe --store STORE POSITION   a position's value and every move's
  retrograde play --store STORE             play against perfect play from the store
Each command's --help lists its options.""")
@click.version_option(package_name="retrograde")
def cli() -> None:
    """Strongly solve two-player games by retrograde analysis."""


# --- shared options -------------------------------------------------------------------
def store_option(fn):
    return click.option("--store", "store_path", required=True, type=PATH,
                        help="Path of the zarr store (a folder).")(fn)


def cluster_options(fn):
    fn = click.option("--scheduler", default=None, metavar="ADDR",
                      help="Run on an existing dask cluster (tcp://host:port).")(fn)
    fn = click.option("--workers", type=int, default=None, metavar="N",
                      help="Local workers (0: run in-process; default: in-process for small games, else one "
                           "per core): threads of this process for solve, verify and analyze (their numba "
                           "kernels release the GIL; RETROGRADE_WORKER_PROCESSES=1 makes them processes), "
                           "processes of a local dask cluster otherwise.")(fn)
    fn = click.option("--quiet", is_flag=True, help="No progress lines.")(fn)
    return fn


def _open_read(path: str):
    """The store at `path`, opened to read; a path with no store is refused before zarr and numpy
    are imported."""
    from retrograde.data.locate import find_store

    find_store(Path(path))
    from retrograde.data.store import Store

    return Store.open(path)


def _named_game(game_text: str | None):
    """The game a --game option names (None where it is not given: the games' modules, numpy
    among them, are then not imported)."""
    if game_text is None:
        return None
    from retrograde.games import parse_game

    return parse_game(game_text)


# --- games ------------------------------------------------------------------------------
@cli.command()
def games() -> None:
    """List the games and their options."""
    from retrograde.games import GAMES

    for name, cls in GAMES.items():
        click.echo(f"{name}: {cls.summary}")
        for param in cls.params_spec:
            kind = "" if param.kind is bool else f" {param.metavar}"
            need = " (required)" if param.required else ""
            click.echo(f"  {param.option}{kind}{need}: {param.help}")
        click.echo(f"  positions: {cls.notation}")


@cli.command()
def agents() -> None:
    """List the agents and their options (specs: NAME or NAME:key=value,...)."""
    from retrograde.agents import describe_agents

    click.echo("\n".join(describe_agents()))


# --- solve ------------------------------------------------------------------------------
class GameGroup(click.Group):
    """`solve GAME` and `plan GAME`: one subcommand per game, built from the game's parameter list
    by the group's `command_for(game class)`."""

    def command_for(self, cls) -> click.Command:
        raise NotImplementedError

    def list_commands(self, ctx):
        from retrograde.games import GAMES

        return sorted(GAMES)

    def get_command(self, ctx, name):
        from retrograde.games import GAMES

        if name not in GAMES:
            return None
        return self.command_for(GAMES[name])

    def parse_args(self, ctx, args):
        if not args and not ctx.resilient_parsing:  # (shell completion parses partial lines)
            raise BadOption(f"{ctx.info_name} needs a game; known games: {', '.join(self.list_commands(ctx))}")
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx, args):
        name = args[0] if args else ""
        if self.get_command(ctx, name) is None:
            raise BadOption(f"unknown game {name!r}; known games: {', '.join(self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)


def _game(cls, options: dict):
    """The game instance that a `solve GAME`/`plan GAME` command line names."""
    from retrograde.games import make_game

    params = {p.name: (p.kind(options[p.name]) if p.kind not in (bool, int) and options[p.name] is not None
                       else options[p.name]) for p in cls.params_spec}
    return make_game(cls.name, {k: v for k, v in params.items() if v is not None})


def _game_params(cls) -> list[click.Option]:
    """The game's options, for its `solve`/`plan` subcommand."""
    return [click.Option([p.option, p.name], is_flag=True, help=p.help)
            if p.kind is bool else
            click.Option([p.option, p.name], type=int if p.kind is int else str,
                         metavar=p.metavar, required=p.required, help=p.help)
            for p in cls.params_spec]


_chunk_size_option = click.option("--chunk-size", type=int, default=None, metavar="N",
                                  help="Positions per chunk (multiple of 4; fixed when the store is planned).")


def _split_options(fn):
    """--partitions and --worker-memory: how loopy groups' propagations are split across workers."""
    fn = click.option("--worker-memory", default=None, metavar="SIZE",
                      help="Memory one worker may use (4GB, 512MiB): a loopy group's propagation is split into "
                           "as many partitions as it takes to fit (default: what the workers report, or a local "
                           "worker's share of the available memory).")(fn)
    fn = click.option("--partitions", type=int, default=1, metavar="N",
                      help="Split every loopy group's propagation into at least N partitions, run level by "
                           "level on several workers (default 1; a resumed propagation keeps its own).")(fn)
    return fn


def _split(partitions: int, worker_memory: str | None) -> tuple[int, int | None]:
    """The checked --partitions and --worker-memory (bytes)."""
    if partitions < 1:
        raise BadOption(f"--partitions {partitions}: must be >= 1")
    if worker_memory is None:
        return partitions, None
    from retrograde.pipeline.memory import parse_bytes

    return partitions, parse_bytes(worker_memory, "--worker-memory")


def _check_workers(workers: int | None) -> None:
    """:raises BadOption: a negative --workers."""
    if workers is not None and workers < 0:
        raise BadOption(f"--workers {workers}: must be >= 0")


def _solve_command(cls) -> click.Command:
    def callback(store_path, workers, scheduler, quiet, chunk_size, force, partitions, worker_memory, **options):
        from retrograde.data.plan import validate_chunk_size

        game = _game(cls, options)
        if chunk_size is not None:
            validate_chunk_size(chunk_size)
        _check_workers(workers)
        partitions, worker_memory = _split(partitions, worker_memory)
        from retrograde.pipeline.progress import clock
        from retrograde.pipeline.solve import SolveOptions, solve

        settings = SolveOptions(chunk_size=chunk_size, workers=workers, scheduler=scheduler, partitions=partitions,
                                worker_memory=worker_memory, force=force, quiet=quiet)

        def planned(solving) -> None:
            if not quiet and solving.estimate.to_solve:
                click.echo(f"plan: {solving.estimate.describe()}", err=True)

        with solve(game, store_path, settings, planned=planned) as solved:
            from retrograde.data.probing import start_summary

            done = "already solved" if solved.seconds is None else f"solved in {clock(solved.seconds)}"
            click.echo(f"{game.describe()}: {start_summary(solved.store)}; {done}, store {store_path}")

    command = click.Command(cls.name, callback=callback, params=_game_params(cls), help=cls.summary)
    for decorate in (store_option, cluster_options, _chunk_size_option, _split_options,
                     click.option("--force", is_flag=True,
                                  help="Start even if the estimate says the solve needs more disk, memory "
                                       "or time than this machine has.")):
        command = decorate(command)
    return command


class SolveGroup(GameGroup):
    def command_for(self, cls) -> click.Command:
        return _solve_command(cls)


@cli.group(cls=SolveGroup)
def solve() -> None:
    """Solve a game instance into a store (resumes a partial solve of the same instance)."""


def _plan_command(cls) -> click.Command:
    def callback(workers, chunk_size, as_json, partitions, worker_memory, **options):
        from retrograde.data.plan import DEFAULT_CHUNK_SIZE, make_plan

        _check_workers(workers)
        partitions, worker_memory = _split(partitions, worker_memory)
        plan = make_plan(_game(cls, options), chunk_size=DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size)
        from retrograde.pipeline.estimate import estimate, task_peaks
        from retrograde.pipeline.executors import worker_processes
        from retrograde.pipeline.memory import available_memory, human_bytes

        split = {"partitions": partitions,
                 "worker_memory": worker_memory or available_memory() // worker_processes(workers, plan.positions)}
        found = estimate(plan, workers=workers, **split)
        tasks = task_peaks(plan, workers=found.workers, **split)
        if as_json:
            click.echo(json.dumps({"game": plan.game, "params": plan.params, "positions": found.positions,
                                   "disk_bytes": found.disk_bytes, "scratch_bytes": found.scratch_bytes,
                                   "workers": found.workers, "seconds": round(found.seconds, 1),
                                   "peak_bytes": found.peak_bytes, "peak_task": found.peak_task,
                                   "tasks": [{"task": task, "peak_bytes": peak} for peak, task in tasks]}))
            return
        click.echo(f"plan: {found.describe()}")
        click.echo(f"largest tasks, a worker process at its peak (--json lists all {len(tasks):,}):")
        for peak, task in sorted(tasks, reverse=True)[:10]:
            click.echo(f"  {human_bytes(peak):>8}  {task}")

    command = click.Command(cls.name, callback=callback, params=_game_params(cls),
                            help=f"What solving {cls.name} takes, before anything runs: {cls.summary}")
    for decorate in (_chunk_size_option, _split_options,
                     click.option("--workers", type=int, default=None, metavar="N",
                                  help="Worker processes the time is estimated for (default: one per core)."),
                     click.option("--json", "as_json", is_flag=True,
                                  help="Print JSON: the estimate and every kind of task with its peak memory.")):
        command = decorate(command)
    return command


class PlanGroup(GameGroup):
    def command_for(self, cls) -> click.Command:
        return _plan_command(cls)


@cli.group(cls=PlanGroup)
def plan() -> None:
    """What a solve takes before anything runs: positions, disk, time, and each task's peak memory."""


# --- status / verify ----------------------------------------------------------------------
@cli.command()
@store_option
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: game, params, complete, positions, and per tier its name, size, status, "
                   "chunks done and win/loss/draw counts.")
def status(store_path: str, as_json: bool) -> None:
    """Tiers, sizes, progress and win/loss/draw counts of a store."""
    with _open_read(store_path) as store:
        from retrograde.data.probing import start_summary
        from retrograde.pipeline.stages import status as store_status

        report = store_status(store)
        if as_json:
            click.echo(json.dumps(report))
            return
        tiers = report["tiers"]
        done = sum(tier["positions_done"] for tier in tiers)
        solved = sum(tier["status"] == "solved" for tier in tiers)
        state = ("complete" if report["complete"] else
                 f"incomplete: {done:,} of {report['positions']:,} positions solved "
                 f"({100 * done / max(report['positions'], 1):.1f}%), {solved} of {len(tiers)} tiers")
        click.echo(f"{store.game.describe()} in {store_path}: {state}")
        if not report["complete"]:
            from retrograde.pipeline.estimate import estimate

            click.echo(f"to finish: {estimate(store.plan, workers=None, done_positions=done).describe()}")
        rows = [(t["name"], t["size"], t["win"] + t["loss"] + t["draw"], t["status"],
                 f"{t['chunks_done']}/{t['chunks']}", t["win"], t["loss"], t["draw"]) for t in tiers]
        rows.append(("total", report["positions"], sum(r[2] for r in rows), "complete" if report["complete"]
                     else "incomplete", f"{sum(t['chunks_done'] for t in tiers)}/{sum(t['chunks'] for t in tiers)}",
                     *(sum(t[key] for t in tiers) for key in ("win", "loss", "draw"))))
        header = ("tier", "indexed", "positions", "status", "chunks", "win", "loss", "draw")
        widths = [max(len(f"{row[k]:,}" if isinstance(row[k], int) else row[k]) for row in [header, *rows])
                  for k in range(len(header))]
        for row in [header, *rows]:
            click.echo("  ".join((f"{cell:,}" if isinstance(cell, int) else cell).rjust(width)
                                 for cell, width in zip(row, widths)))
        click.echo(f"Tiers: {store.game.tier_legend}. 'indexed' counts every index of a tier, "
                   "'positions' the legal positions among them (in solved chunks).")
        if report["complete"]:
            click.echo(f"Value: {start_summary(store)}.")


@cli.command()
@store_option
def upgrade(store_path: str) -> None:
    """Convert a store of the previous format (3) to this one (4) in place: atomically (the old
    store stays whole until the converted one replaces it), resumably (rerun after an
    interruption) and verified. A format-4 store written before tier records named their tier has
    them bound, once verify finds every value right; any other format-4 store is left as it is."""
    from retrograde.data.locate import find_upgradable

    find_upgradable(Path(store_path))  # before zarr and numpy are imported
    from retrograde.data.upgrade import upgrade as upgrade_store

    def verified(store):  # the verify stage's machinery, imported only where a store is to be bound
        from retrograde.pipeline.stages import verified as found

        return found(store)

    click.echo(upgrade_store(store_path, verified))


@cli.command()
@store_option
@cluster_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def verify(store_path: str, workers, scheduler, quiet, as_json) -> None:
    """Re-check every stored position against the rules and its children, and every checksum.

    Exit status: 0 all checked and right, 1 damage found, 3 nothing wrong but some tiers not
    solved yet (so not checked)."""
    from retrograde.pipeline.executors import open_executor

    with _open_read(store_path) as store:
        from retrograde.pipeline.stages import verify_stage

        with open_executor(workers=workers, scheduler=scheduler, positions=store.plan.positions,
                           kernels=True) as executor:
            result = verify_stage(store, executor, quiet=quiet)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        click.echo(f"{store_path}: {result.verdict.upper()}: {result.positions:,} positions checked, "
                   f"{result.wrong:,} wrong, {len(result.bad_checksums)} bad checksums, "
                   f"{len(result.damaged)} damaged documents, chunks or records"
                   + (f"; not solved yet, so not checked: {' '.join(result.unsolved)}" if result.unsolved else ""))
        for line in result.damaged:
            click.echo(f"  {line}")
        for where in result.bad_checksums:
            tier, _, chunk = where.partition("/")
            click.echo(f"  tier {tier} chunk {chunk}: its data does not match its recorded checksum")
        for example in result.examples:
            click.echo(f"  {example}")
    sys.exit(VERIFY_EXIT[result.verdict])


# --- analyze ------------------------------------------------------------------------------
@cli.command()
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as one JSON object.")
@click.option("--out", "out_dir", default=None, type=PATH, metavar="DIR",
              help="Also write DIR/analysis.html (tables and plots) and DIR/analysis.json.")
@click.option("--agents", "agent_specs", default=None, metavar="AGENT,...",
              help="Find the trickiest positions for these agents (comma-separated NAME[:key=value,...]): in a "
                   "seeded sample of up to 1,000 won or drawn positions where some move gives the value away, "
                   "each agent chooses 8 times with different seeds; ranked by the share of its choices that "
                   "give the value away.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the sample and of the agents (--agents).")
@cluster_options
def analyze(store_path, as_json, out_dir, agent_specs, seed, workers, scheduler, quiet) -> None:
    """Statistics of a solved game over all its positions, each counted once: remoteness histograms,
    the longest wins and losses, only moves, the positions with most moves, and (--agents) the
    trickiest positions. An incomplete store's solved tiers are analysed, the missing ones named."""
    if out_dir is not None:
        from retrograde.validation.audit import check_out_dir

        check_out_dir(Path(out_dir))
    with _open_read(store_path) as store:
        from retrograde.analysis import analyze as run_analysis
        from retrograde.analysis.tables import text, tier_list

        report = run_analysis(store, agent_specs, seed=seed, workers=workers, scheduler=scheduler, quiet=quiet)
    if report["missing_tiers"]:
        click.echo(f"analyze: tiers {tier_list(report['missing_tiers'])} not solved; analysing the rest", err=True)
    if out_dir is not None:
        from retrograde.analysis.page import write_page

        write_page(Path(out_dir), report)
    click.echo(json.dumps(report) if as_json else text(report))


# --- probe --------------------------------------------------------------------------------
@cli.command()
@store_option
@click.argument("positions", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per position (JSON Lines).")
@click.option("--line", "perfect", is_flag=True,
              help="The perfect-play line from the one POSITION: the lookup agent's moves, ties to the first "
                   "move listed, until the game ends, a position repeats or --max-plies.")
@click.option("--max-plies", type=click.IntRange(min=1), default=200, show_default=True, help="--line: at most so many plies.")
def probe(store_path: str, positions: tuple[str, ...], as_json: bool, perfect: bool, max_plies: int) -> None:
    """Value, remoteness and every move's outcome of POSITIONS (none or '-': read stdin, one per line;
    on a terminal each is answered as it is typed). A finished position says "game over" and who won.

    A bad position is reported on stderr (naming its line) and the others are still answered;
    the exit status is then 2. Positions after '--' are never read as options, so one that
    starts with '-' goes there: retrograde probe --store S -- -1,3,5,7."""
    if perfect:
        _probe_line(store_path, positions, as_json, max_plies)
        return
    from retrograde.errors import BadPosition

    stdin = not positions or positions == ("-",)
    with _open_read(store_path) as store:
        from retrograde.data.answers import answer_as_typed, answer_lines
        from retrograde.data.probing import analyse, json_blocks
        from retrograde.games.base import parse_each

        if stdin and sys.stdin.isatty():
            if answer_as_typed(store, sys.stdin, as_json=as_json, say=click.echo):
                sys.exit(BadPosition.exit_code)
            return
        game = store.game
        given = _ProbeInput(((n, line.strip()) for n, line in enumerate(sys.stdin, start=1) if line.strip())
                            if stdin else enumerate(positions, start=1))
        blocks = json_blocks(store, given.batches(game.parse_many)) if as_json else (
            "".join(line + "\n" for analysis in analyse(store, batch)
                    for line in answer_lines(game, analysis, as_json=False)).encode()
            for batch in given.batches(lambda texts: parse_each(game, texts)))
        binary = getattr(sys.stdout, "buffer", None)  # none where stdout is text only (a test's capture)
        for block in blocks:
            if binary is None:
                click.echo(block.decode(), nl=False)
            else:
                binary.write(block)
    if given.bad:
        where = "line" if stdin else "position"
        messages = [f"{where} {n}: {exc}" if given.count > 1 else str(exc) for n, exc in given.bad]
        for message in messages[:-1]:
            click.echo(f"retrograde: error: {message}", err=True)
        raise BadPosition(messages[-1])


class _ProbeInput:
    """The numbered position texts a probe answers, read `batch` at a time: how many were read,
    and (number, error) of each that does not parse."""

    batch = 1 << 13

    def __init__(self, numbered):
        self.numbered, self.count, self.bad = numbered, 0, []

    def batches(self, parse):
        """`parse` (texts -> a batch of positions, (slot, error) of the refused) of each batch read."""
        from itertools import islice

        while numbered := list(islice(self.numbered, self.batch)):
            self.count += len(numbered)
            positions, refused = parse([text for _, text in numbered])
            self.bad.extend((numbered[slot][0], exc) for slot, exc in refused)
            yield positions


def _probe_line(store_path: str, positions: tuple[str, ...], as_json: bool, max_plies: int) -> None:
    """`probe --line`: one ply a line, or {"line": [...], "end": ...} with --json."""
    if len(positions) > 1:
        raise BadOption(f"--line follows one position, not {len(positions)}")
    with _open_read(store_path) as store:
        from retrograde.agents.lookup import perfect_line
        from retrograde.data.probing import analyse

        game = store.game
        start = game.parse(positions[0]) if positions else game.initial_position
        line, end = perfect_line(store, start, max_plies)
        if as_json:
            click.echo(json.dumps({"line": [{"move": move, "position": game.format(position), "value": value.name,
                                             "remoteness": value.remoteness} for move, position, value in line],
                                   "end": end}))
            return
        click.echo(f"{game.format(start)}: {analyse(store, [start])[0].value}")
        for ply, (move, position, value) in enumerate(line, start=1):
            click.echo(f"{ply:>4}. {move:<8} {game.format(position)}  ({value} for the side to move)")
        click.echo({"terminal": "the game is over", "repetition": "a position repeats: the line goes on forever",
                    "max-plies": f"stopped after {max_plies} plies (--max-plies)"}[end])


# --- play ---------------------------------------------------------------------------------
@cli.command()
@store_option
@click.option("--agent", "agent_spec", default="lookup", show_default=True, metavar="AGENT",
              help="Opponent agent, NAME[:key=value,...] ('retrograde agents' lists them; "
                   "lookup: perfect play read from the store).")
@click.option("--human", type=click.Choice(["first", "second"]), default="first", show_default=True,
              help="Whether you move first or second.")
@click.option("--from", "start", default=None, metavar="POSITION", help="Start from this position.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the agent's tie-breaks.")
@click.option("--max-plies", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Stop the game after this many plies and show the position's stored value "
                   "(games with cycles can go on forever).")
def play(store_path, agent_spec, human, start, seed, max_plies) -> None:
    """Play against an agent in the terminal; type a move, or 'help' for the commands.

    After each of your moves it says whether the move kept your value (win, draw or loss) and by
    how many plies a win slowed or a loss came sooner; 'hint' groups the moves by value.
    The store must be completely solved and hold the start position's tier."""
    with _open_read(store_path) as store:
        from retrograde.agents import build_agent
        from retrograde.agents.play import play_in_terminal

        position = store.game.parse(start) if start else store.game.initial_position
        agent = build_agent(agent_spec, store.game, seed=seed, store=store)
        play_in_terminal(store, agent, position, human_first=human == "first", max_plies=max_plies)


# --- explore ------------------------------------------------------------------------------
@cli.command()
@store_option
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: a free one; the URL printed names it).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--agents", "agent_specs", default=None, metavar="AGENT,...",
              help="The agents the page can play against, built once at start (default: those of lookup, random, "
                   "greedy and minimax:depth=2 that can play the game).")
def explore(store_path, port, host, agent_specs) -> None:
    """Serve a web explorer of the store's positions on http://HOST:PORT/ until Ctrl-C (read-only).

    GET /?position=P shows a position; GET /api/probe?position=P answers as 'probe --json';
    GET /api/move?position=P&agent=A&p=0.8&seed=1 gives an agent's move."""
    with _open_read(store_path) as store:
        from retrograde.explorer.server import serve

        serve(store, host=host, port=port, agent_specs=agent_specs, say=click.echo)


# --- validate / match ---------------------------------------------------------------------
def _finite(ctx, param, value: float | None) -> float | None:
    """A float option's value, refused where it is nan (which every range check lets through)."""
    if value is not None and value != value:
        raise click.BadParameter("nan is not a number of seconds", ctx=ctx, param=param)
    return value


move_time_option = click.option(
    "--move-time", type=click.FloatRange(min=0.001, max=86400), callback=_finite, default=10.0, show_default=True,
    metavar="SECONDS",
    help="Seconds your own agents (python:, engine:) may take over a move before forfeiting it (a spec's "
         "move_time=... wins).")

@cli.command()
@click.option("--store", "store_path", default=None, type=PATH,
              help="The solved store whose values judge every move.")
@click.option("--game", "game_text", default=None, metavar="GAME",
              help="Instead of a store, for a game no store holds whole: positions met in games "
                   "between baselines, each solved exactly by search.")
@click.option("--tiers", "tier_text", default=None, metavar="TIER,...",
              help="With --game: the tiers positions are sampled from (default: those the game names).")
@click.option("--out", "out_dir", required=True, type=PATH, metavar="DIR",
              help="Folder for report.html, report.md and report.json (created if needed).")
@click.option("--agents", "agent_specs", default=None, metavar="AGENT,...",
              help="Agents to validate, comma-separated NAME[:key=value,...] (default: lookup, random and the baselines "
                   "that can play the game; 'retrograde agents' lists them).")
@click.option("--games", type=int, default=100, show_default=True,
              help="Games per ordered pair of agents, from the start position and again from random openings "
                   "(at most 10,000,000).")
@click.option("--positions", type=int, default=None,
              help="Positions measured for move quality: from a store 20,000 (all of them if it holds fewer, "
                   "else a sample per tier); with --game 300, shared by the tiers.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of agents, samples and openings.")
@click.option("--max-plies", type=int, default=None, metavar="P",
              help="Games still going after P plies count as draws (default: 200 for a game that can go on "
                   "for ever; beyond any game's end otherwise).")
@move_time_option
@click.option("--no-baselines", "no_baselines", is_flag=True,
              help="Where only your own agents are named, measure them alone (by default the baselines lookup, "
                   "minimax:depth=2, minimax:depth=3, mcts and random that can play the game follow them).")
@cluster_options
def validate(store_path, game_text, tier_text, out_dir, agent_specs, games, positions, seed, max_plies, move_time,
             no_baselines, workers, scheduler, quiet) -> None:
    """Exact move quality of agents, tournaments between them, ratings and a report.

    Exit status: 0 done and every consistency check passed (the lookup agent plays perfectly, an
    agent that claims never to give a win away keeps every win, one that searches to the end plays
    perfectly there), 1 a check failed (the report is still written)."""
    if store_path is None and game_text is None:
        raise BadOption("validate needs --store PATH (a solved store) or --game GAME (sampled positions)")
    if store_path is not None and game_text is not None:
        raise BadOption("validate takes --store PATH or --game GAME, not both")
    if tier_text is not None and store_path is not None:
        raise BadOption("--tiers goes with --game: a store's positions are sampled from all its tiers")
    game = _named_game(game_text)
    tiers = None if tier_text is None else tuple(t.strip() for t in tier_text.split(","))
    with (_open_read(store_path) if store_path is not None else nullcontext()) as store:
        if agent_specs is not None:  # before the machinery that validates is imported
            from retrograde.agents.registry import check_spec
            from retrograde.spec import parse_spec_list

            for spec in parse_spec_list(agent_specs):
                check_spec(spec, game or store.game)
        from retrograde.validation import validate as run_validation

        report = run_validation(store, out_dir, agent_specs, game=game, tiers=tiers, games=games, positions=positions,
                                seed=seed, max_plies=max_plies, workers=workers, scheduler=scheduler, quiet=quiet,
                                baselines=not no_baselines, agent_defaults={"move_time": move_time})
    failed = [check for check in report["checks"] if not check["ok"]]
    for check in failed:
        click.echo(f"retrograde: check failed: {check['name']}: {check['detail']}", err=True)
    _say_speed(Path(out_dir))
    click.echo(f"report written to {out_dir}/report.html (also report.md, report.json)")
    if failed:
        sys.exit(1)


def _say_speed(out_dir: Path) -> None:
    """One line: each agent's moves a second in move quality, from timings.json (the report's
    pages leave wall-clock figures out, so that a rerun writes the same bytes)."""
    try:
        speeds = json.loads((out_dir / "timings.json").read_text()).get("moves_per_second", {})
    except (OSError, ValueError):
        return
    if speeds:
        click.echo("moves a second in move quality (timings.json): " +
                   ", ".join(f"{spec} {speed:,}" for spec, speed in speeds.items()))


@cli.command()
@click.argument("agent_a", metavar="AGENT_A")
@click.argument("agent_b", metavar="AGENT_B")
@click.option("--store", "store_path", default=None, type=PATH,
              help="A solved store: the game, and the values agents such as lookup read.")
@click.option("--game", "game_text", default=None, metavar="GAME",
              help="The game without a store, quoted, as on the command line: its name and options.")
@click.option("--games", type=int, default=100, show_default=True, help="Games in each seat (at most 10,000,000).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the agents.")
@click.option("--from", "start", default=None, metavar="POSITION", help="Start from this position.")
@click.option("--max-plies", type=int, default=None, metavar="P",
              help="Games still going after P plies count as draws (default: 200 for a game that can go on "
                   "for ever).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--sprt", "sprt_text", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Play pairs from seeded random openings until a sequential probability ratio test of "
                   "Elo0 against Elo1 (logistic Elo of A over B; alpha, beta 0.05) decides; --games caps the "
                   "pairs. Not with --from.")
@move_time_option
@cluster_options
def match(agent_a, agent_b, store_path, game_text, games, seed, start, max_plies, as_json, sprt_text, move_time,
          workers, scheduler, quiet) -> None:
    """Play AGENT_A against AGENT_B (each NAME[:key=value,...]): GAMES games with each moving first; wins, draws and losses
    of the first mover with 95% Wilson intervals, and the pairs (game i of each seat), Elo and LOS of A over B."""
    if store_path is None and game_text is None:
        raise BadOption("match needs --store PATH or --game GAME")
    if sprt_text is not None and start:
        raise BadOption("--sprt plays its pairs from seeded random openings of the start position: "
                        "it does not take --from")
    test = None
    if sprt_text is not None:
        from retrograde.validation.pairs import Sprt

        test = Sprt.parse(sprt_text)
    named = _named_game(game_text)
    with (_open_read(store_path) if store_path else nullcontext()) as store:
        game = store.game if store else named
        if store and named is not None and named.describe() != game.describe():
            raise BadOption(f"--game {game_text!r}: store {store_path!r} holds {game.describe()}")
        position = game.parse(start) if start else None
        from retrograde.agents.registry import check_spec

        for spec in (agent_a, agent_b):  # before the machinery that plays is imported
            check_spec(spec, game)
        from retrograde.pipeline.executors import open_executor
        from retrograde.validation import play_match, play_sprt

        with open_executor(workers=workers, scheduler=scheduler) as executor:
            defaults = {"move_time": move_time}
            result = (play_sprt(agent_a, agent_b, game, test, pairs=games, seed=seed, store=store,
                                max_plies=max_plies, executor=executor, quiet=quiet, agent_defaults=defaults) if test
                      else play_match(agent_a, agent_b, game, games=games, seed=seed, store=store, start=position,
                                      max_plies=max_plies, executor=executor, quiet=quiet, agent_defaults=defaults))
    if as_json:
        click.echo(json.dumps(result))
        return
    from retrograde.validation.pairs import pairs_line, sprt_line

    played = (f"{result['openings']['played']} seeded random openings of {result['start']}, each played in both seats"
              if test else f"{result['start']}, {games} games a seat")
    click.echo(f"{game.describe()} from {played}, seed {seed}, draw after {result['max_plies']} plies")
    for entry in result["tournaments"]:
        n = entry["games"]
        parts = [f"{entry['first']} (first) vs {entry['second']}:"]
        for label, key, ci in (("first wins", "first_wins", "first_win_ci95"), ("draws", "draws", "draw_ci95"),
                               ("second wins", "second_wins", "second_win_ci95")):
            low, high = entry[ci]
            parts.append(f"{label} {entry[key]}/{n} ({100 * entry[key] / n:.1f}%, 95% CI {100 * low:.1f}-{100 * high:.1f}%)")
        click.echo(" ".join(parts[:1]) + " " + ", ".join(parts[1:]))
        for seat in ("first", "second"):
            given_up = entry.get("forfeits", {}).get(seat)
            if given_up:
                click.echo(f"  {entry[seat]} forfeited " + ", ".join(f"{n} by {reason}" for reason, n in given_up.items()))
    click.echo(pairs_line(result["tournaments"][0]))
    if test:
        click.echo(sprt_line(result["sprt"]))


# --- train --------------------------------------------------------------------------------
@cli.command()
@click.argument("spec", metavar="LEARNER")
@click.option("--game", "game_text", required=True, metavar="GAME",
              help="The game, quoted, as on the command line: its name and options ('retrograde games' lists them).")
@click.option("--out", required=True, type=PATH, metavar="PATH",
              help="The artifact to write: a .json for ga, an .npz for rl and dqn (checkpoints go to PATH.partial/).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the whole training.")
@click.option("--store", "store_path", default=None, type=PATH,
              help="A solved store of the same game: measure the learning curve exactly (value-kept share).")
@click.option("--quiet", is_flag=True, help="No progress lines.")
def train(spec, game_text, out, seed, store_path, quiet) -> None:
    """Train a ga, rl or dqn player into an artifact (resumes a stopped run of the same command).

    \b
    LEARNER: ga[:population=20,offspring=20,generations=20,selection=plus|tournament,tournament=5,
                mutation=0.15,sigma=0.2,games=20,opponents=(random,expert),plies=200,every=0]
             rl[:episodes=20000,alpha=0.1,gamma=0.9,epsilon=0.1,opponent=self|AGENT,plies=200,every=0]
             dqn[:episodes=300000,opponents=(random;random,minimax:depth=2;minimax:depth=2),hidden=256,
                 gamma=0.9,rate=0.001,epsilon=0.1,memory=10000,batch=64,sync=1000,plies=200,every=0]
                 (the extra [dqn]: pip install 'retrograde[dqn]')
    LEARNER:preset=NUMBER trains as course report NUMBER did (its settings as defaults): on nim
    ga:preset=000, 001 or 003; on tictactoe rl:preset=001; on quixo dqn:preset=001; on quarto
    ga:preset=002 and rl:preset=002.
    Then play it: --agent ga:params=PATH, rl:params=PATH or dqn:params=PATH."""
    game = _named_game(game_text)
    from retrograde.training.resumable import train as train_stage

    path = train_stage(spec, game, out, seed=seed, store=store_path, quiet=quiet)
    click.echo(f"trained {spec.partition(':')[0]} for {game_text}: {path}")


# --- run ----------------------------------------------------------------------------------
class WorkflowCommand(click.Command):
    """`run`: its help lists the workflows (read only when the help is shown)."""

    def format_epilog(self, ctx, formatter):
        from retrograde.workflows.names import SEEDS, WORKFLOWS

        with formatter.section("Workflows"):
            formatter.write_dl([(w.name, w.description) for _, w in WORKFLOWS.values()] +
                               [(SEEDS, "every match figure the course reports published, played again with their "
                                        "agents as their code played them; a verdict on each (--only NUMBER: one "
                                        "report's rows)")])


@cli.command(cls=WorkflowCommand)
@click.argument("workflow", required=False)
@click.option("--out", default=None, type=PATH, metavar="DIR",
              help="Keep the workflow's folder in DIR/WORKFLOW (default: retrograde-out/WORKFLOW).")
@click.option("--only", default=None, metavar="NUMBER", help="seeds: play the rows of this course report only.")
@click.option("--skip-training", is_flag=True,
              help="seeds: train nothing; rows whose agents need an artifact no earlier run trained are not run.")
@cluster_options
@_split_options
def run(workflow, out, only, skip_training, workers, scheduler, quiet, partitions, worker_memory) -> None:
    """Run a named end-to-end workflow (plan, solve, verify, then train and validate where it
    names learners and agents); rerun to resume. It solves as `solve` does, on worker processes
    rather than threads: its workers also train and validate, Python work that needs processes."""
    from retrograde.workflows.names import SEEDS, WORKFLOWS, check_workflow

    if workflow is None:
        raise BadOption(f"run needs a workflow: {', '.join([*WORKFLOWS, SEEDS])} ('retrograde run --help' says what "
                        "each does)")
    check_workflow(workflow)  # before the machinery is imported: a usage error answers at once
    for given, flag in ((only is not None, "--only"), (skip_training, "--skip-training")):
        if given and workflow != SEEDS:
            raise BadOption(f"{flag}: only the {SEEDS} workflow takes it")
    _check_workers(workers)
    partitions, worker_memory = _split(partitions, worker_memory)
    from retrograde.pipeline.progress import clock
    from retrograde.pipeline.solve import SolveOptions
    from retrograde.workflows.runner import run_workflow, workflow_folder
    options = SolveOptions(workers=workers, scheduler=scheduler, partitions=partitions, worker_memory=worker_memory,
                           quiet=quiet)
    started = time.monotonic()
    if workflow == SEEDS:
        from retrograde.workflows.course import run_seeds

        folder = workflow_folder(SEEDS, out)
        document = run_seeds(folder, only=only, train=not skip_training, options=options)
        click.echo(f"{SEEDS}: {document['summary']} in {clock(time.monotonic() - started)}; "
                   f"report: {folder / 'report.html'}")
        return
    state = run_workflow(workflow, out, options=options,
                         announce=None if quiet else lambda plan: click.echo(plan.line, err=True))
    value = f"{state['value']}; " if state["value"] else ""
    done = (f"{', '.join(state['stages'])} done in {clock(time.monotonic() - started)}" if state["to_do"] else
            "nothing to do, every stage was done before")
    click.echo(f"{workflow}: {value}{done}, results in {workflow_folder(workflow, out)}")
    if state["report"]:
        click.echo(f"report: {state['report']}")
