"""Fuzzing: hypothesis feeds random and mutated text to every position
parser (each game's `parse`, the move reader `why_illegal`, `--heaps`, `--game`, Quarto's
`--from` root), every agent spec (`parse_spec`, `parse_spec_list`, `build_agent`, then one
move by each agent built) and random option combinations to every CLI command, run in this
process through `retrograde.cli.main`, the entry point. The rules checked:

* a parser returns a value or raises its one documented error (BadPosition, BadOption,
  BadAgent), in one line; what parses formats back to the same text's position;
* a command exits 0 or with a documented status (1, 2, 3, 74), never with a traceback, and a
  failure says one `retrograde: error:` line (probe: one per bad position);
* no command changes a solved or partly solved store, or another input file, it is given; a
  usage error (exit 2) leaves nothing at all on disk.

Left out, because they start minutes of work or reach the network, not because they are
unchecked elsewhere: `--workers` above 0 (a dask LocalCluster: test_executors), `--scheduler`
(connects to an address), `run` with a real workflow name (test_cli runs them), solves of
anything but tiny instances (nim with at most 12 objects, tic-tac-toe, Quarto below roots
with at most 5 empty cells; bigger instances only against a store of another game, which
refuses them before any work: `solve quarto --force` without `--from` would plan 2e16
positions), `validate --game` (its positions are solved by search), training specs bigger than a
few episodes or generations (clamped) and negative seeds (`test_a_negative_seed_is_one_line`).

The examples run per command are counted: `python benchmarks/bench_fuzz.py` runs the same
strategies with more examples and prints the counts; `pytest -s` prints this file's.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import random
import shutil
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from retrograde.agents import agent_names, agent_options, build_agent, parse_spec, parse_spec_list
from retrograde.spec import AgentSpec
from retrograde.cli import OS_ERROR_EXIT, cli, main
from retrograde.errors import BadAgent, BadOption, BadPosition
from retrograde.data.plan import make_plan
from retrograde.games import GAMES, make_game, parse_game
from retrograde.games.capabilities import display_of
from retrograde.games.nim.game import parse_heaps
from retrograde.pipeline.executors import InProcessExecutor

#: Exit statuses the CLI documents: done, failed or damaged, usage error, verify's incomplete,
#: a file operation refused (disk full, read-only, permission denied).
DOCUMENTED_EXITS = {0, 1, 2, 3, OS_ERROR_EXIT}
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: Examples per command in the normal suite (about 40 s in all on 2 busy cores, numba caches
#: warm); benchmarks/bench_fuzz.py runs many more.
BUDGET = {"parse": 250, "spec": 200, "probe": 60, "status": 20, "verify": 10, "play": 50, "match": 25,
          "validate": 5, "train": 20, "solve": 25, "plan": 15, "run": 20, "games": 10, "agents": 10, "argv": 60,
          "analyze": 10, "upgrade": 10}
#: Commands that serve until stopped, which a fuzzed case cannot wait for: tests/test_explore.py
#: gives them their bad input (queries, ports, agents).
SERVERS = {"explore"}

# --- text -------------------------------------------------------------------------------------
#: Texts that break naive parsers: empty, blanks, NUL, a lone surrogate (a non-UTF-8 byte
#: on the command line), digits of other scripts, signs, huge numbers, paths.
ODD = ["", " ", "\t", "\n", "\x00", "\udcff", "é", "\u0663", "\uff11", "-", "--", "--help", "=", ",", ":",
       "(", ")", "()", "((", "/", "//", ".", "..", "~", "~nosuchuser/x", "nan", "inf", "-inf", "1e999", "-0",
       "0x10", "1_000", "9" * 4301, "-1", "0", "1", "2", "4", "a" * 300]
#: The characters notations, specs and options are made of.
ALPHABET = "xoXO.-/ ,:=()0123456789abcdefABCDEF"


@cache
def texts(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=max_size), st.sampled_from(ODD), st.text(alphabet=ALPHABET, max_size=max_size))


@st.composite
def mutated(draw, bases: list[str]) -> str:
    """A valid text with a few random edits: a character inserted, dropped, replaced, the case
    flipped, a piece doubled or the end cut off."""
    text = draw(st.sampled_from(bases))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        char = draw(st.one_of(st.sampled_from(ALPHABET), st.characters()))
        edit = draw(st.sampled_from(["insert", "drop", "replace", "case", "double", "cut"]))
        if edit == "insert":
            text = text[:at] + char + text[at:]
        elif edit == "drop":
            text = text[:at] + text[at + 1:]
        elif edit == "replace":
            text = text[:at] + char + text[at + 1:]
        elif edit == "case":
            text = text.swapcase()
        elif edit == "double":
            text = text[:at] + text[at:] + text[at:]
        else:
            text = text[:at]
    return text


# --- games and their valid texts -----------------------------------------------------------------
#: Game instances whose parsers are fuzzed (every game, every option that changes the notation
#: or what is legal: bounds, board sizes, a tier floor, a Quarto root and the squares variant).
QUARTO_ROOT = "9.../..bf/2d../c..6 8"
GAME_PARAMS = {
    "nim": ("nim", {"heaps": [1, 3, 5, 7]}),
    "nim-bounded": ("nim", {"heaps": [2, 4], "max_take": 2, "misere": True}),
    "tictactoe": ("tictactoe", {}),
    "quixo3": ("quixo", {"size": 3}),
    "quixo4": ("quixo", {"size": 4}),
    "quixo5": ("quixo", {"size": 5, "down_to": 20}),
    "quarto": ("quarto", {}),
    "quarto-root": ("quarto", {"root": QUARTO_ROOT}),
    "quarto-squares": ("quarto", {"squares": True}),
}


@cache
def game(key: str):
    name, params = GAME_PARAMS[key]
    return make_game(name, params)


@cache
def sample_play(key: str, plies: int = 12, games: int = 6) -> tuple[list[str], list[str]]:
    """(positions, moves) met in a few seeded random games: valid texts to mutate."""
    g, rng = game(key), random.Random(key)
    positions, moves = [g.format(g.initial_position)], []
    for _ in range(games):
        position = g.initial_position
        for _ in range(plies):
            legal = g.moves(position)
            if not legal:
                break
            move, position = rng.choice(legal)
            moves.append(move)
            positions.append(g.format(position))
    return positions, moves


@cache
def every_valid_position() -> list[str]:
    return sorted({text for key in GAME_PARAMS for text in sample_play(key)[0]})


@cache
def positions_for(key: str) -> st.SearchStrategy[str]:
    """Texts for a game's position parser: its own valid positions, mutations of them and of
    other games' positions, and random text."""
    own = sample_play(key)[0]
    return st.one_of(st.sampled_from(own), mutated(own), mutated(every_valid_position()), texts())


@cache
def moves_for(key: str) -> st.SearchStrategy[str]:
    return st.one_of(texts(12), mutated(sample_play(key)[1] + ["moves", "hint", "help", "quit"]))


GAME_TEXTS = ["tictactoe", "nim --heaps 1,3,5,7", "nim --heaps 2,4 --max-take 2 --misere", "quixo --size 3",
              "quixo --size 4", "quixo --size 5 --down-to 20", "quarto", "quarto --squares",
              f"quarto --from '{QUARTO_ROOT}'"]


# --- a sandbox: stores, artifacts and odd files the commands are given ------------------------------
@dataclass
class Sandbox:
    """A folder holding solved stores (tic-tac-toe, nim 1,3,5,7), a partly solved tic-tac-toe
    store, trained artifacts, odd files, and `out/`, the folder commands run in and write to
    (emptied before each example)."""

    root: Path
    counts: dict[str, int] = field(default_factory=dict)
    #: What the examples came to, by command: exit statuses (CLI), or parsed / built / moved / refused.
    outcomes: dict[str, Counter] = field(default_factory=dict)

    @property
    def stores(self) -> Path:
        return self.root / "stores"

    @property
    def files(self) -> Path:
        return self.root / "files"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def ttt(self) -> str:
        return str(self.stores / "ttt.zarr")

    @property
    def nim(self) -> str:
        return str(self.stores / "nim.zarr")

    @property
    def partial(self) -> str:
        return str(self.stores / "partial.zarr")

    @classmethod
    def build(cls, root: Path) -> Sandbox:
        from retrograde.api import train

        sandbox = cls(root)
        for folder in (sandbox.stores, sandbox.files, sandbox.out):
            folder.mkdir(parents=True)
        solve_into("tictactoe", {}, sandbox.ttt)
        solve_into("nim", {"heaps": [1, 3, 5, 7]}, sandbox.nim)
        solve_into("tictactoe", {}, sandbox.partial, stop_after=6)
        files = sandbox.files
        (files / "text.txt").write_text("hello\n")
        (files / "empty").write_bytes(b"")
        train("rl:episodes=30", "tictactoe", files / "rl-ttt.npz", seed=1)
        train("ga:generations=1,population=2,offspring=2,games=1", "nim --heaps 1,3,5,7", files / "ga-nim.json", seed=1)
        (files / "cut.npz").write_bytes((files / "rl-ttt.npz").read_bytes()[:200])
        (files / "cut.json").write_text((files / "ga-nim.json").read_text()[:40])
        (files / "list.json").write_text("[1, 2, 3]")
        return sandbox

    def reset_out(self) -> None:
        shutil.rmtree(self.out)
        self.out.mkdir()

    def inputs(self, *, contents: bool = False) -> dict[str, object]:
        """Every entry under the stores and files folders (and what the sandbox's top folder
        lists: a leftover lock or planning folder shows) with its size, inode and modification
        time: a write, a replacement or a new file shows. `contents`: with a hash of the bytes
        too (slower: once per fuzz run)."""
        found: dict[str, object] = {"top": sorted(os.listdir(self.root))}
        for folder in (self.stores, self.files):
            for where, dirs, names in os.walk(folder):
                for name in dirs + names:
                    path = os.path.join(where, name)
                    stat = os.lstat(path)
                    found[path] = (stat.st_size, stat.st_ino, stat.st_mtime_ns, stat.st_mode)
                    if contents and name in names:
                        with open(path, "rb") as f:
                            found[path] += (hashlib.blake2b(f.read(), digest_size=16).hexdigest(),)
        return found

    def written(self) -> list[str]:
        return sorted(str(p.relative_to(self.out)) for p in self.out.rglob("*"))

    # --- path options ---
    def store_paths(self, *, for_writing: bool) -> st.SearchStrategy[str]:
        """`--store` values: the stores (not the partial one for a solve: resuming it is a
        right to change it), fresh paths, paths through a file, odd and random names."""
        stores = [self.ttt, self.nim] + ([] if for_writing else [self.partial, "/", str(self.files)])
        odd = [str(self.out / "new.zarr"), "new.zarr", "sub/new.zarr", str(self.files / "text.txt"),
               str(self.files / "text.txt" / "x.zarr"), "/etc/passwd/x.zarr", "/proc/x.zarr", "", ".", "..",
               "a\nb.zarr", "x" * 300, "\x00", "\udcff.zarr"]
        return st.one_of(st.sampled_from(stores), st.sampled_from(stores), st.sampled_from(odd), relative_paths())

    def out_paths(self) -> st.SearchStrategy[str]:
        """`--out` values: fresh paths, existing stores and files (never to be written into),
        paths through a file and odd names."""
        odd = ["out", "sub/deeper/out", "report", "a.json", "a.npz", str(self.files / "text.txt"),
               str(self.files / "text.txt" / "x"), "/etc/passwd/x", "/proc/x", "", ".", "x" * 300, "\x00",
               self.ttt, self.nim, self.partial, str(self.files / "rl-ttt.npz"), str(self.files / "ga-nim.json")]
        return st.one_of(st.sampled_from(odd), relative_paths())

    def artifact_paths(self) -> list[str]:
        files = self.files
        return [str(files / name) for name in ("rl-ttt.npz", "ga-nim.json", "cut.npz", "cut.json", "list.json",
                                                "empty", "text.txt")] + [
            str(files), self.ttt + "/zarr.json", "/etc/passwd", "/nonexistent.json", "~nosuchuser/x.json"]


def relative_paths() -> st.SearchStrategy[str]:
    """Random names, made relative (commands run in the sandbox's out/): a fuzzed path never
    reaches outside it."""
    return st.text(max_size=20).map(lambda text: text.replace("..", "_").lstrip("/~") or "_")


class Stop(Exception):
    """Stops a solve part-way (a partial store for the fuzz)."""


class StopAfter(InProcessExecutor):
    """An in-process executor that stops the solve after `n` tasks (the last one's result is
    never handed to the driver)."""

    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def run(self, tasks):
        for done, (task, result) in enumerate(super().run(tasks)):
            if done == self.n:
                raise Stop
            yield task, result


def solve_into(name: str, params: dict, path: str, *, stop_after: int | None = None) -> None:
    from retrograde.pipeline.planning import plan_stage
    from retrograde.pipeline.stages import solve_stage

    executor = InProcessExecutor() if stop_after is None else StopAfter(stop_after)
    with contextlib.suppress(Stop), plan_stage(make_game(name, params), path) as store:
        solve_stage(store, executor, quiet=True)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    return Sandbox.build(tmp_path_factory.mktemp("fuzz"))


# --- running the CLI in this process ------------------------------------------------------------------
@dataclass
class Result:
    code: object
    out: str
    err: str


def invoke(argv: list[str], *, stdin: str = "", cwd: Path | None = None) -> Result:
    """Run `retrograde ARGV` through `main` with `stdin`, capturing its output and exit status (its
    signal handlers put back afterwards). An exception other than SystemExit is a bug: it goes up."""
    handlers = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    out, err, real_stdin = io.StringIO(), io.StringIO(), sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.chdir(cwd or Path.cwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(argv))
                code = 0
            except SystemExit as exc:
                code = 0 if exc.code is None else exc.code
    finally:
        sys.stdin = real_stdin
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    return Result(code, out.getvalue(), err.getvalue())


def check_result(command: str, argv: list[str], result: Result, before: dict, after: dict,
                 written: list[str]) -> None:
    """The house rules for any input: a documented exit status, no traceback, one error line, the
    inputs untouched, nothing written on a usage error."""
    said = f"retrograde {argv!r}: exit {result.code!r}\nstderr: {result.err[-2000:]}"
    assert isinstance(result.code, int) and result.code in DOCUMENTED_EXITS, said
    assert "Traceback" not in result.err + result.out, said
    errors = [line for line in result.err.split("\n") if line.startswith("retrograde: error:")]
    assert all(len(line.splitlines()) == 1 and "\r" not in line for line in errors), said  # one clean line
    if command == "probe" and len(errors) > 1:  # one line per bad position, each naming it
        assert all(line.startswith(("retrograde: error: position ", "retrograde: error: line "))
                   for line in errors[:-1]), said
    else:
        assert len(errors) <= 1, said
    if result.code:
        own_verdict = (command == "verify" and result.code in (1, 3)) or (
            command == "validate" and result.code == 1 and "retrograde: check failed:" in result.err)
        assert errors or own_verdict, said
        if errors and not own_verdict:
            assert result.err.rstrip("\n").split("\n")[-1].startswith("retrograde: error:"), said
    changed = sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))
    assert not changed, f"{said}\nchanged on disk: {changed[:10]}"
    if result.code == 2:
        assert not written, f"{said}\na usage error wrote {written[:10]}"


def run_case(sandbox: Sandbox, argv: list[str], stdin: str = "", *, key: str | None = None) -> Result:
    """Run one command line in the sandbox and check it; its exit status is counted under `key`
    (default: the command)."""
    command = next((arg for arg in argv if arg in cli.commands), "")
    sandbox.reset_out()
    before = sandbox.inputs()
    result = invoke(argv, stdin=stdin, cwd=sandbox.out)
    check_result(command, argv, result, before, sandbox.inputs(), sandbox.written())
    sandbox.outcomes.setdefault(key or command, Counter())[f"exit {result.code}"] += 1
    return result


# --- option combinations from each command's click parameters --------------------------------------
def mostly(valid: st.SearchStrategy[str], garbage: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A valid value about 85 times in 100: each option is then often right, so that a command
    line with several options gets past parsing to the work and its checks now and then.
    (`one_of(valid, valid, valid, garbage)` would not weigh: hypothesis picks its branches
    anyhow.)"""
    return st.integers(0, 99).flatmap(lambda k: garbage if k >= 85 else valid)


BAD_INTS = ["2" * 30, "-" + "9" * 30, "9" * 4301, "1.5", "x", "", "0x1", "\u0663", " 1", "1_0", "-0", "+1"]


def ints(low: int, high: int, *, wrong: tuple[int, int] = (-3, 0)) -> st.SearchStrategy[str]:
    """Integer option values: mostly in [low, high]; else out of range, huge, or no integer."""
    return mostly(st.integers(low, high).map(str), st.one_of(st.integers(*wrong).map(str), st.sampled_from(BAD_INTS),
                                                             texts(6)))


def workers() -> st.SearchStrategy[str]:
    """`--workers`: 0 (in-process) and values that must be refused; never a real cluster."""
    return mostly(st.just("0"), st.one_of(st.sampled_from(["-1", "-8", "x", "", "1.5", "-" + "9" * 30]),
                                          texts(4).filter(_not_positive)))


def _not_positive(text: str) -> bool:
    try:
        return int(text) <= 0
    except ValueError:
        return True


def seeds() -> st.SearchStrategy[str]:
    # negative seeds: test_a_negative_seed_is_one_line (a known traceback, see there)
    return mostly(st.integers(0, 2**70).map(str), st.sampled_from(["x", "", "1.5", "0x1", "9" * 4301]))


CHEAP_SPECS = ["random", "greedy", "expert", "lookup", "rules:rule=fixed", "minimax:depth=1", "mcts:iterations=5",
               "lookup:fallback=random", "lookup:remoteness=0", "minimax:depth=1,tablebase=1",
               "endgame:empty=2,depth=1"]


def cli_specs(sandbox: Sandbox) -> st.SearchStrategy[str]:
    """Agent specs for commands that play games: cheap valid ones, mutated ones, trained
    artifacts (of the right game or another) and random text."""
    artifacts = [f"{kind}:params={path}" for kind in ("ga", "rl") for path in sandbox.artifact_paths()]
    return mostly(st.sampled_from(CHEAP_SPECS), st.one_of(st.sampled_from(artifacts), mutated(CHEAP_SPECS), texts(20)))


def game_texts(*, quarto: bool = True) -> st.SearchStrategy[str]:
    """`--game` values; without `quarto`, none that names Quarto (`validate --game quarto` solves
    its sampled positions by search: seconds each)."""
    valid = [text for text in GAME_TEXTS if quarto or "quarto" not in text]
    found = mostly(st.sampled_from(valid), st.one_of(mutated(valid), texts(20)))
    return found if quarto else found.map(lambda text: "tictactoe" if _names_quarto(text) else text)


def _names_quarto(text: str) -> bool:
    try:
        return parse_game(text).name == "quarto"
    except BadOption:
        return False


def clamp_training(spec: str) -> str:
    """A training spec that would run longer than a moment gets small sizes (others unchanged)."""
    try:
        parsed = parse_spec(spec)
    except BadAgent:
        return spec
    small = {"rl": {"episodes": 5}, "ga": {"generations": 1, "population": 2, "offspring": 2, "games": 1}}
    if parsed.name not in small:
        return spec
    options = dict(parsed.options)
    for key, most in small[parsed.name].items():
        try:
            too_big = key not in options or float(options[key]) > most
        except ValueError:
            too_big = False
        if too_big:
            options[key] = str(most)
    options["every"] = "0" if "every" not in options else options["every"]
    return str(AgentSpec(parsed.name, tuple(options.items())))


def training_specs() -> st.SearchStrategy[str]:
    valid = ["rl:episodes=20", "rl:episodes=20,alpha=0.5,gamma=0.9,epsilon=0.2,opponent=random",
             "ga:generations=1,population=2,offspring=2,games=1", "ga:generations=1,population=2,offspring=2,games=1,"
             "selection=tournament,tournament=2,opponents=(random,expert)", "rl:episodes=20,opponent=(minimax:depth=1)"]
    return mostly(st.sampled_from(valid), st.one_of(mutated(valid), texts(20))).map(clamp_training)


@st.composite
def argv_from(draw, command_path: list[str], values: dict[str, st.SearchStrategy[str] | None],
              arguments: st.SearchStrategy[list[str]] | None = None, always: tuple[str, ...] = (),
              often: dict[str, int] | None = None) -> list[str]:
    """A command line for the click command at `command_path`: each of its options present or
    not (`always` ones present, others 9 times in 10 if required, else 5 or `often[name]` in 10; a
    `None` strategy: never), in random order, with a value from `values` (flags bare),
    positional `arguments`, and now and then a junk token, an option given twice, or the last
    value cut off. (Hypothesis starts from the smallest draws: those give the plain command.)"""
    command = cli
    for name in command_path:
        command = command.get_command(None, name) if hasattr(command, "get_command") else command
    pieces: list[list[str]] = []
    for param in command.params:
        if param.param_type_name != "option":
            continue
        flag = param.opts[0]
        if getattr(param, "is_flag", False):
            if draw(st.booleans()):
                pieces.append([flag])
            continue
        strategy = values.get(param.name, texts(12))
        if strategy is None:
            continue
        # the smallest draw (hypothesis starts there): required options present, others not
        draw_ = draw(st.integers(0, 9))
        if param.name in always or (draw_ < 9 if param.required else draw_ >= 10 - (often or {}).get(param.name, 5)):
            pieces.append([flag, draw(strategy)])
            if draw(st.integers(0, 19)) == 19:  # given twice
                pieces.append([flag, draw(strategy)])
    pieces = draw(st.permutations(pieces))
    tokens = [token for piece in pieces for token in piece]
    if arguments is not None:
        args = draw(arguments)
        if args and draw(st.booleans()):  # after "--": arguments that look like options
            tokens += ["--", *args]
        else:
            at = draw(st.integers(0, len(tokens)))
            tokens[at:at] = args
    junk = draw(st.integers(0, 19))
    if junk in (18, 19):
        tokens.insert(draw(st.integers(0, len(tokens))), draw(st.sampled_from(["--nope", "-x", "--", "--help", "-h"])))
    elif junk == 17 and tokens:
        tokens.pop()
    return [*command_path, *tokens]


def strategies(sandbox: Sandbox) -> dict[str, st.SearchStrategy]:
    """For each command, a strategy of (argv, stdin)."""
    no_stdin = st.just("")
    read_store = sandbox.store_paths(for_writing=False)
    common = {"workers": workers(), "scheduler": None, "seed": seeds()}
    ttt_moves = moves_for("tictactoe")

    def position_args(keys=("tictactoe", "nim")) -> st.SearchStrategy[list[str]]:
        return st.lists(st.one_of(*(positions_for(key) for key in keys)), max_size=4)

    stdin_lines = st.lists(st.one_of(positions_for("tictactoe"), positions_for("nim")), max_size=5).map("\n".join)
    play_lines = st.lists(st.one_of(ttt_moves, moves_for("nim")), max_size=12).map("\n".join)

    @st.composite
    def game_command(draw, command: str):
        """`solve GAME ...` (kept tiny by `guard_solve`) or `plan GAME ...` (writes nothing)."""
        name = draw(mostly(st.sampled_from(sorted(GAMES)), st.one_of(st.sampled_from(["", "Nim", "chess", "--help"]),
                                                                     texts(10))))
        if name not in GAMES:
            return [command, name, *draw(st.lists(texts(10), max_size=3))], ""
        game_values = {
            "heaps": mostly(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(lambda h: ",".join(map(str, h))),
                            st.one_of(st.lists(st.integers(-1, 9), max_size=5).map(lambda h: ",".join(map(str, h))),
                                      texts(10))),
            "max_take": ints(1, 4), "size": ints(3, 5, wrong=(-1, 6)), "down_to": ints(0, 25, wrong=(-2, 30)),
            "root": st.one_of(positions_for("quarto"), positions_for("quarto-root")),
            "chunk_size": mostly(st.sampled_from(["4", "8", "64", "1024"]), st.one_of(
                st.sampled_from(["0", "-4", "6", "1", "2" * 30]), texts(4))),
            "store_path": mostly(st.sampled_from(["new.zarr", "sub/new.zarr"]), sandbox.store_paths(for_writing=True)),
            **common}
        argv = draw(argv_from([command, name], game_values, often={"root": 8}))
        return (guard_solve(sandbox, argv) if command == "solve" else argv), ""

    stores = mostly(st.sampled_from([sandbox.ttt, sandbox.nim, sandbox.partial]), read_store)
    #: Games to play or train, each with its solved store if the sandbox has one.
    played = {"tictactoe": sandbox.ttt, "nim": sandbox.nim, "nim-bounded": None, "quixo3": None, "quixo5": None,
              "quarto": None}

    def texts_of(key: str) -> str:
        return game(key).describe()

    @st.composite
    def match(draw):
        key = draw(st.sampled_from(sorted(played)))
        store = played[key] or draw(read_store)
        specs = mostly(st.lists(cli_specs(sandbox), min_size=2, max_size=2).map(tuple),
                       st.lists(cli_specs(sandbox), max_size=3).map(tuple)).map(list)
        argv = draw(argv_from(["match"], {
            "store_path": mostly(st.just(store), read_store), "game_text": mostly(st.just(texts_of(key)), game_texts()),
            "games": ints(1, 3), "max_plies": ints(1, 30),
            "start": mostly(positions_for(key), st.one_of(*(positions_for(k) for k in GAME_PARAMS))), **common},
            specs, always=("games",), often={"store_path": 5 if played[key] else 1, "game_text": 6, "start": 3}))
        return argv, ""

    @st.composite
    def train(draw):
        key = draw(st.sampled_from(sorted(set(played) - {"quixo5"})))  # 5x5 episodes take seconds
        spec = draw(training_specs())
        kind = spec.partition(":")[0]
        out = mostly(st.sampled_from([f"{kind}.{'json' if kind == 'ga' else 'npz'}",
                                      f"sub/{kind}.{'json' if kind == 'ga' else 'npz'}"]), sandbox.out_paths())
        argv = draw(argv_from(["train"], {
            "game_text": mostly(st.just(texts_of(key)), game_texts()), "out": out,
            "store_path": mostly(st.just(played[key] or sandbox.ttt), read_store), **common},
            mostly(st.just([spec]), st.lists(training_specs(), max_size=2)), often={"store_path": 3}))
        return argv, ""

    workflows = texts(15).filter(lambda text: text not in _workflow_names())
    return {
        "status": st.tuples(argv_from(["status"], {"store_path": stores}), no_stdin),
        "verify": st.tuples(argv_from(["verify"], {"store_path": stores, **common}), no_stdin),
        "upgrade": st.tuples(argv_from(["upgrade"], {"store_path": stores}), no_stdin),
        "probe": st.tuples(argv_from(["probe"], {"store_path": stores},
                                     st.one_of(position_args(), st.just(["-"]), st.just([]))), stdin_lines),
        "play": st.tuples(argv_from(["play"], {"store_path": stores, "agent_spec": cli_specs(sandbox),
                                              "start": st.one_of(positions_for("tictactoe"), positions_for("nim")),
                                              "human": mostly(st.sampled_from(["first", "second"]), texts(8)),
                                              "max_plies": ints(1, 12), **common}), play_lines),
        "match": match(),
        "validate": st.tuples(argv_from(["validate"], {
            "store_path": stores, "game_text": game_texts(quarto=False), "out_dir": sandbox.out_paths(),
            "agent_specs": st.lists(cli_specs(sandbox), min_size=1, max_size=3).map(",".join),
            "games": ints(1, 2), "positions": ints(1, 40), "max_plies": ints(1, 20),
            "tier_text": mostly(st.sampled_from(["p6", "p6,p7", "k9"]), texts(8)), **common},
            always=("games", "positions", "agent_specs", "store_path"), often={"game_text": 1, "tier_text": 1}),
            no_stdin),
        "train": train(),
        "analyze": st.tuples(argv_from(["analyze"], {
            "store_path": stores, "out_dir": sandbox.out_paths(),
            "agent_specs": st.lists(cli_specs(sandbox), min_size=1, max_size=2).map(",".join), **common},
            often={"agent_specs": 2, "out_dir": 3}), no_stdin),
        "solve": game_command("solve"),
        "plan": game_command("plan"),
        "run": st.tuples(argv_from(["run"], {"out": sandbox.out_paths(), **common}, st.lists(workflows, max_size=2)),
                         no_stdin).filter(lambda case: not set(case[0][1:]) & _workflow_names()),
        "games": st.tuples(st.lists(texts(10), max_size=3).map(lambda extra: ["games", *extra]), no_stdin),
        "agents": st.tuples(st.lists(texts(10), max_size=3).map(lambda extra: ["agents", *extra]), no_stdin),
        "argv": st.tuples(st.lists(st.one_of(st.sampled_from(["games", "agents", "status", "verify", "probe", "play",
                                                             "--version", "--help", "-h", "--store", sandbox.ttt,
                                                             "--json", "x../.o./...", "help", "solve", "nim"]),
                                             texts(10)), max_size=5).filter(_harmless), stdin_lines),
    }


@cache
def _workflow_names() -> frozenset[str]:
    from retrograde.workflows.names import WORKFLOWS

    return frozenset(WORKFLOWS)


def _harmless(argv: list[str]) -> bool:
    """Random words as a whole command line, short of starting real work (a solve of something
    big, a workflow, games played or trained): those have their own strategies."""
    return not (set(argv) & {"run", "match", "validate", "train", "explore"}) and not ("solve" in argv and "--store" in argv)


#: A fuzzed solve of more indices than tic-tac-toe's 6,046 goes into a store of another game
#: (refused at once); one of at most `TINY_CHUNKS_LIMIT` may be cut into chunks under 256.
SOLVE_LIMIT, TINY_CHUNKS_LIMIT = 6_046, 1_000


def guard_solve(sandbox: Sandbox, argv: list[str]) -> list[str]:
    """Keep a fuzzed solve tiny, whatever the game: an instance whose plan holds more indices
    than `SOLVE_LIMIT` may only be solved into a store of another game (refused at once), and
    only one of at most `TINY_CHUNKS_LIMIT` in chunks of fewer than 256 positions (tic-tac-toe in
    chunks of 4: 1,512 chunks, a minute). An instance the options do not make is refused anyway."""
    name = argv[1]
    tokens = argv[2:]
    indices = _planned_indices(name, tokens)
    if indices > SOLVE_LIMIT:
        target = sandbox.nim if name != "nim" else sandbox.ttt
        tokens = [t for k, t in enumerate(tokens) if t != "--store" and (k == 0 or tokens[k - 1] != "--store")]
        tokens += ["--store", target]
    if indices > TINY_CHUNKS_LIMIT:
        tokens = [("256" if _tiny_chunks(t) else t) if k and tokens[k - 1] == "--chunk-size" else t
                  for k, t in enumerate(tokens)]
    return ["solve", name, *tokens]


def _planned_indices(name: str, tokens: list[str]) -> int:
    """The indices of the plan of the instance a solve's words name (by the game's own options,
    the last one given counting); 0 where they make none."""
    params: dict = {}
    for param in GAMES[name].params_spec:
        given = [k for k, token in enumerate(tokens) if token == param.option]
        if not given:
            continue
        if param.kind is bool:
            params[param.name] = True
        elif given[-1] + 1 < len(tokens):
            try:
                params[param.name] = param.kind(tokens[given[-1] + 1])
            except (ValueError, BadOption):
                return 0
    try:
        return make_plan(make_game(name, params)).positions
    except (BadOption, BadPosition):
        return 0


def _tiny_chunks(text: str) -> bool:
    try:
        return 0 < int(text) < 256
    except ValueError:
        return False


def fuzz_settings(max_examples: int, seed: int | None) -> settings:
    """The same examples at every run (derandomized) unless a `seed` asks for others; no example
    database, no deadline (a solve takes what it takes)."""
    return settings(max_examples=max_examples, deadline=None, derandomize=seed is None, database=None,
                    phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck))


def run_fuzz(fuzz, seed: int | None) -> None:
    (fuzz if seed is None else hypothesis_seed(seed)(fuzz))()


def fuzz_cli(command: str, sandbox: Sandbox, max_examples: int, seed: int | None = None) -> int:
    """Run `max_examples` fuzzed command lines of `command`, checking each; returns how many ran."""
    strategy = strategies(sandbox)[command]
    ran = 0

    @fuzz_settings(max_examples, seed)
    @given(strategy)
    def fuzz(case):
        nonlocal ran
        ran += 1
        argv, stdin = case
        argv = [arg.replace("\x00", "") for arg in argv]  # no command line holds a NUL (C strings end there)
        run_case(sandbox, argv, stdin, key=command)

    before = sandbox.inputs(contents=True)
    fsync = os.environ.get("RETROGRADE_FSYNC")
    os.environ["RETROGRADE_FSYNC"] = "0"  # what survives a power loss is not the question here: faster
    try:
        run_fuzz(fuzz, seed)
    finally:
        if fsync is None:
            os.environ.pop("RETROGRADE_FSYNC", None)
        else:
            os.environ["RETROGRADE_FSYNC"] = fsync
    assert sandbox.inputs(contents=True) == before, f"{command}: an input file changed"
    sandbox.counts[command] = sandbox.counts.get(command, 0) + ran
    return ran


# --- parsers ---------------------------------------------------------------------------------------
def fuzz_parsers(max_examples: int, outcomes: Counter | None = None, seed: int | None = None) -> int:
    """Random text to every position parser (and the --heaps, --game and Quarto root parsers);
    returns how many examples ran, `outcomes` counts parsed and refused texts."""
    ran, outcomes = 0, Counter() if outcomes is None else outcomes
    options = st.one_of(texts(), mutated(GAME_TEXTS + ["1,3,5,7", QUARTO_ROOT]))

    @fuzz_settings(max_examples, seed)
    @given(st.data())
    def fuzz(data):
        nonlocal ran
        ran += 1
        key = data.draw(st.sampled_from(sorted(GAME_PARAMS)), label="game")
        g = game(key)
        text = data.draw(positions_for(key), label="position")
        try:
            position = g.parse(text)
        except BadPosition as exc:
            assert "\n" not in str(exc) and str(exc), repr(text)
            outcomes["position refused"] += 1
        else:
            outcomes["position parsed"] += 1
            formatted = g.format(position)
            assert g.parse(formatted) == position, (text, formatted)
            assert g.format(g.parse(formatted)) == formatted
            with contextlib.suppress(BadPosition):  # Quarto: parsed, but not below the instance's root
                g.locate(position)
            legal = dict(g.moves(position))
            move = data.draw(moves_for(key), label="move")
            if move.lower() not in legal:
                reason = display_of(g).why_illegal(position, move.lower())
                assert isinstance(reason, str) and "\n" not in reason and reason, (text, move)
        for parse, errors in ((parse_heaps, BadOption), (parse_game, BadOption),
                              (lambda t: make_game("quarto", {"root": t}), BadOption)):
            other = data.draw(options, label="option")
            try:
                parse(other)
                outcomes["option parsed"] += 1
            except errors as exc:
                assert "\n" not in str(exc), repr(other)
                outcomes["option refused"] += 1

    run_fuzz(fuzz, seed)
    return ran


@cache
def declared_options(name: str) -> tuple:
    """The options agent `name` takes in any of the fuzzed games (each option once)."""
    found = {}
    for key in ("tictactoe", "nim", "quixo3", "quarto"):
        with contextlib.suppress(BadAgent):
            found.update({option.name: option for option in agent_options(name, game(key))})
    return tuple(found.values())


@cache
def agent_specs() -> st.SearchStrategy[str]:
    """Specs by the grammar (known and unknown names, keys and values, nested specs in
    parentheses or not), mutated valid specs, and random text."""
    names = agent_names() + ["Random", "nope", "", "mini max", "a:b"]
    keys = sorted({option.name for name in agent_names() for option in declared_options(name)}) + ["Depth", "x", ""]
    choices = sorted({choice for name in agent_names() for option in declared_options(name) for choice in option.choices})
    values = st.one_of(st.integers(-3, 20).map(str), st.sampled_from(
        ["0", "1", "16", "17", "100000", "100001", "0.5", "-0.5", "nan", "inf", "1e999", "", "()", "(", ")",
         "9" * 4301]),
        st.sampled_from(choices), texts(10))

    def spec_of(inner):
        def join(parts):
            name, options = parts
            body = ",".join(f"{key}={value}" if "," not in value or value.startswith("(") else f"{key}=({value})"
                            for key, value in options)
            return f"{name}:{body}" if options else name
        options = st.lists(st.tuples(st.sampled_from(keys), inner), max_size=4)
        return st.tuples(st.sampled_from(names), options).map(join)

    grammar = st.recursive(values, lambda inner: st.one_of(spec_of(inner), spec_of(inner).map(lambda s: f"({s})")),
                           max_leaves=6)
    return st.one_of(typed_specs(), spec_of(grammar),
                     mutated(CHEAP_SPECS + ["lookup:fallback=(minimax:depth=2,eval=lines)"]), texts())


def option_values(option) -> st.SearchStrategy[str]:
    """Values for one declared agent option: in its range and just outside, its choices and
    near misses, nested specs, and text."""
    if option.kind in ("int", "float"):
        low = -3 if option.low is None else int(option.low)
        high = low + 20 if option.high is None else int(option.high)
        numbers = st.integers(low - 1, min(high, low + 20) + 1)
        edges = [str(option.low), str(option.high), str(high + 1), "1.5", "nan", "inf", "-inf", "", "x"]
        return st.one_of(numbers.map(str), st.sampled_from(edges), st.floats(low - 1, high + 1).map(str))
    if option.kind == "choice":
        return st.one_of(st.sampled_from(option.choices), st.sampled_from(option.choices).map(str.upper), texts(6))
    if option.kind == "agent":
        return st.one_of(st.sampled_from(CHEAP_SPECS), mutated(CHEAP_SPECS))
    return texts(10)  # file: paths are drawn by fuzz_specs


@cache
def typed_specs() -> st.SearchStrategy[str]:
    """Specs of a known agent with its own options (often valid: they are built and move)."""
    def of(name):
        options = declared_options(name)
        if not options:
            return st.just(name)
        pairs = st.lists(st.sampled_from(options), max_size=len(options), unique_by=lambda o: o.name).flatmap(
            lambda chosen: st.tuples(*(option_values(o).map(lambda v, o=o: (o.name, v)) for o in chosen)))
        return pairs.map(lambda items: str(AgentSpec(name, tuple(items))) if items else name)

    return st.one_of(*(of(name) for name in agent_names()))


def fuzz_specs(sandbox: Sandbox, max_examples: int, seed: int | None = None) -> int:
    """Random specs to the spec parser and `build_agent` (and each agent built makes a move);
    returns how many examples ran, `sandbox.outcomes["spec"]` counts what they came to."""
    from retrograde.data.store import Store

    ran, outcomes = 0, sandbox.outcomes.setdefault("spec", Counter())
    stores = {"tictactoe": Store.open(sandbox.ttt), "nim": Store.open(sandbox.nim)}
    files = st.sampled_from(sandbox.artifact_paths())
    specs = st.one_of(agent_specs(), files.map(lambda path: f"ga:params={path}"),
                      files.map(lambda path: f"rl:params={path}"))
    lists = st.one_of(texts(), st.lists(agent_specs(), max_size=3).map(",".join))

    @fuzz_settings(max_examples, seed)
    @given(st.data())
    def fuzz(data):
        nonlocal ran
        ran += 1
        text = data.draw(specs, label="spec")
        try:
            spec = parse_spec(text)
        except BadAgent as exc:
            assert "\n" not in str(exc), repr(text)
        else:
            assert parse_spec(str(spec)) == spec, (text, str(spec))
        with contextlib.suppress(BadAgent):
            parse_spec_list(data.draw(lists, label="list"))
        key = data.draw(st.sampled_from(["tictactoe", "nim", "quixo3", "quarto"]), label="game")
        store = stores.get(key) if data.draw(st.booleans()) else None
        seed = data.draw(st.integers(0, 2**70), label="seed")
        try:
            agent = build_agent(text, game(key), seed=seed, store=store)
        except BadAgent as exc:
            assert "\n" not in str(exc), repr(text)
            outcomes["refused"] += 1
            return
        outcomes["built"] += 1
        deep = any(k == "depth" and int(v) > 4 for k, v in parse_spec(text).options)
        if key == "tictactoe" or (key == "nim" and not deep):  # one move (search is cheap here)
            position = game(key).parse(data.draw(st.sampled_from(
                [p for p in sample_play(key)[0] if game(key).moves(game(key).parse(p))]), label="from"))
            move, child = agent.choose(position)
            assert dict(game(key).moves(position)).get(move) == child, (text, move)
            outcomes["moved"] += 1

    try:
        run_fuzz(fuzz, seed)
    finally:
        for store in stores.values():
            store.close()
    return ran


# --- tests -------------------------------------------------------------------------------------------
def test_every_position_parser_takes_any_text(record_property):
    outcomes = Counter()
    ran = fuzz_parsers(BUDGET["parse"], outcomes)
    record_property("examples", ran)
    print(f"\nfuzz: parsers {ran} examples: {dict(outcomes)}")
    assert outcomes["position parsed"] and outcomes["position refused"]


def test_every_agent_spec_is_an_agent_or_one_bad_agent_line(sandbox, record_property):
    ran = fuzz_specs(sandbox, BUDGET["spec"])
    record_property("examples", ran)
    print(f"\nfuzz: agent specs {ran} examples: {dict(sandbox.outcomes['spec'])}")
    assert sandbox.outcomes["spec"]["moved"] and sandbox.outcomes["spec"]["refused"]


@pytest.mark.parametrize("command", [name for name in BUDGET if name not in ("parse", "spec")])
def test_every_command_takes_any_options(sandbox, command, record_property):
    started = time.perf_counter()
    ran = fuzz_cli(command, sandbox, BUDGET[command])
    record_property("examples", ran)
    print(f"\nfuzz: {command} {ran} examples in {time.perf_counter() - started:.1f} s: "
          f"{dict(sorted(sandbox.outcomes[command].items()))}")
    assert ran >= BUDGET[command] // 2


def test_the_fuzzed_commands_are_every_command():
    """A command added to the CLI must get a strategy here (or be a server, tested on its own)."""
    assert set(cli.commands) - SERVERS <= set(BUDGET)


@pytest.mark.parametrize("argv", [
    ["match", "random", "random", "--game", "tictactoe", "--games", "1", "--seed", "-1"],
    ["play", "--store", "{ttt}", "--seed", "-1"],
    ["train", "rl:episodes=5", "--game", "tictactoe", "--out", "rl.npz", "--seed", "-1"],
    ["validate", "--store", "{ttt}", "--out", "report", "--games", "1", "--agents", "random", "--seed", "-1"],
])
def test_a_negative_seed_is_one_line(sandbox, argv):
    result = run_case(sandbox, [arg.format(ttt=sandbox.ttt) for arg in argv])
    assert result.code == 2 and "--seed" in result.err
