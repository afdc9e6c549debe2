"""Shared fixtures: solved stores built once per test session, CLI runners; and a game of the
tests' own, registered for the whole suite, so that every test that goes through the registered
games takes in a game with the required part alone (`minimal_game`) and a loopy one with the
`loopy` capability alone (`loopy_game`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from loopy_game import Ring
from minimal_game import Treblecross
from retrograde.agents import ResolvedAgent, resolve_agent
from retrograde.cli import main
from retrograde.data.store import Store
from retrograde.games import make_game, register
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.planning import plan_stage
from retrograde.pipeline.stages import solve_stage


register(Treblecross)
register(Ring)


def solve_in_process(game_name: str, params: dict | None, path: Path, *, chunk_size: int | None = None) -> Path:
    """Plan and solve a game instance into `path` in this process; returns the path."""
    game = make_game(game_name, params or {})
    with plan_stage(game, path, chunk_size=chunk_size) as store:
        solve_stage(store, InProcessExecutor(), quiet=True)
    return path


@pytest.fixture(scope="session")
def solved(tmp_path_factory):
    """solved(game, params=None, chunk_size=None) -> path of a solved store (cached per session)."""
    cache: dict[str, Path] = {}

    def get(game_name: str, params: dict | None = None, *, chunk_size: int | None = None) -> Path:
        key = json.dumps([game_name, params, chunk_size], sort_keys=True)
        if key not in cache:
            path = tmp_path_factory.mktemp("store") / "store.zarr"
            cache[key] = solve_in_process(game_name, params, path, chunk_size=chunk_size)
        return cache[key]

    return get


@pytest.fixture
def open_solved(solved):
    """open_solved(game, params=None) -> an opened read-only Store (closed after the test)."""
    opened = []

    def get(game_name: str, params: dict | None = None, **kw):
        store = Store.open(solved(game_name, params, **kw))
        opened.append(store)
        return store

    yield get
    for store in opened:
        store.close()


@pytest.fixture
def cli(capsys):
    """cli(*args) -> (exit status, stdout, stderr) of the command run in this process (its signal
    handlers put back afterwards)."""
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def run(*args: str):
        with pytest.raises(SystemExit) as exit_:
            main(list(args))
        captured = capsys.readouterr()
        return exit_.value.code, captured.out, captured.err

    yield run
    for signum, handler in handlers.items():
        signal.signal(signum, handler)

NIM = {"heaps": [1, 3, 5, 7]}


def resolved(game, specs) -> list[ResolvedAgent]:
    """The agents `specs` name, resolved for `game` (as the validate stage does at its start)."""
    return [resolve_agent(spec, game) for spec in specs]


def ttt_text(board: str) -> str:
    """The tic-tac-toe position of a reference board (tests/reference.py's nine cells) as text."""
    return "/".join(board[row * 3:row * 3 + 3] for row in range(3))


def run_cli(*args: str, input: str | None = None, cwd: Path | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m retrograde ARGS` as a user would; returns the completed process."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "retrograde", *args], input=input, capture_output=True,
                          text=True, cwd=cwd, timeout=timeout, env=env)


class Killed(BaseException):
    """Stands for a kill arriving in the middle of a propagation."""


def solve_killed_in_propagation(path: Path, monkeypatch, level: int = 3) -> None:
    """Solve 3x3 Quixo into `path` with a checkpoint after every propagation level, killed (by
    `Killed`) when a propagation reaches `level`: the store is left with a loopy group's first
    passes and its checkpoint (every group's first passes go through scratch files, for the rest
    of the test too). The solver is whole again afterwards."""
    from retrograde.solvers import loopy

    monkeypatch.setenv("RETROGRADE_CHECKPOINT_SECONDS", "0")
    monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", "0")
    propagate = loopy.propagate

    def propagate_then_die(reached, *args, **kwargs):
        if reached == level:
            raise Killed
        return propagate(reached, *args, **kwargs)

    monkeypatch.setattr(loopy, "propagate", propagate_then_die)
    try:
        with pytest.raises(Killed):
            solve_in_process("quixo", {"size": 3}, path)
    finally:
        monkeypatch.setattr(loopy, "propagate", propagate)


def store_bytes(path: Path) -> dict[str, bytes]:
    """Every file of a store (relative path -> bytes): the exact on-disk state."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def assert_same_store(actual: Path, expected: Path, what: str = "") -> None:
    """Two stores hold the same files with the same bytes (a precise message if not)."""
    got, want = store_bytes(actual), store_bytes(expected)
    prefix = f"{what}: " if what else ""
    assert sorted(got) == sorted(want), (
        f"{prefix}files differ: only in {str(actual)!r} {sorted(set(got) - set(want))[:10]}, "
        f"only in {str(expected)!r} {sorted(set(want) - set(got))[:10]}")
    differing = [name for name in want if got[name] != want[name]]
    assert not differing, f"{prefix}{len(differing)} files differ in content, e.g. {differing[:10]}"


#: Debian's browser and driver, which selenium drives (it cannot download a driver here).
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium at 1280x800, driven by selenium. Skipped, with the reason, where
    Chromium, its driver or selenium is missing; under CI=true (where .ci/run installs them) a
    missing one fails instead."""
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install '.[test]')")
    if missing:
        message = f"needs {', '.join(missing)} (Debian: apt-get install chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    yield driver
    driver.quit()
