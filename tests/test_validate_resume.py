"""A stopped `validate` resumes (validation/resume.py): finished tasks' results are kept in the
report folder as JSON that comes back as it went and never makes an object the caller did not
name; a rerun of the same command runs only the tasks not finished and writes the bytes of an
uninterrupted run; another command clears the folder; the written report removes it. The last
test SIGKILLs the command with a user's (slow) agent mid-run and reruns it."""

from __future__ import annotations

import hashlib
import json
import math
import pickle
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from processes import kill_group, log_paths, run, start
from retrograde.errors import StoreError
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.graph import Task
from retrograde.validation import validate
from retrograde.validation.resume import FOLDER, IDENTITY, LOG, MISSING, ResumingExecutor, TaskResults


class Game(NamedTuple):
    result: str
    plies: int
    gave_up: Reason | None = None


@dataclass(frozen=True)
class Reason:
    seat: int
    why: str


RECORDS = (Game, Reason)


def square(worker, x: int) -> int:
    return x * x


def kept_keys(out: Path) -> set[str]:
    """The keys of the log's lines."""
    log = out / FOLDER / LOG
    return {line.split(b" ")[0].decode() for line in log.read_bytes().splitlines()} if log.exists() else set()


def killed_once_kept(args: list[str], out: Path, logs: Path) -> Path:
    """Start `retrograde ARGS --out OUT` and kill its process group once its resume log holds a
    result (or after 120 s); the file its stderr went to."""
    out_path, err_path = log_paths(logs)
    with open(out_path, "wb") as stdout, open(err_path, "wb") as stderr:
        proc = start([*args, "--out", str(out)], stdout=stdout, stderr=stderr)
    try:
        deadline = time.monotonic() + 120
        while not kept_keys(out) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        kill_group(proc)
    return err_path


def line(key: str, body: bytes) -> bytes:
    """A line of the log: the key, the digest of the JSON, the JSON."""
    return b"%s %s %s\n" % (key.encode(), hashlib.blake2b(body, digest_size=16).hexdigest().encode(), body)


# --- the results folder ---------------------------------------------------------------------
def test_results_come_back_as_they_went(tmp_path):
    """Arrays keep dtype, shape and values; numpy scalars, tuples, dicts with number keys and the
    named record classes keep their types; and the log's line holds JSON (no pickle)."""
    result = {"playable": np.array([True, False, True]), "outcome": np.array([-1, 0, 1], dtype=np.int8),
              "grid": np.arange(6, dtype=np.uint16).reshape(2, 3), "empty": np.zeros(0, dtype=np.int64),
              "seconds": 0.1 + 0.2, "inf": math.inf, "count": np.int64(7), "share": np.float32(0.25),
              3: ("a", 1, None, True), "records": [Game("win", 5), Game("loss", 2, Reason(1, "timeout"))],
              "nested": [[1, 2], {"x": (1.5,)}]}
    TaskResults(tmp_path, {"run": 1}, RECORDS).keep(Task("quality-0", square), result)
    written = (tmp_path / FOLDER / LOG).read_bytes()
    body = written.split(b" ", 2)[2][:-1]
    assert written == line("quality-0", body)
    json.loads(body)  # plain JSON
    back = TaskResults(tmp_path, {"run": 1}, RECORDS).load(Task("quality-0", square))
    assert list(back) == list(result)
    for key in ("playable", "outcome", "grid", "empty"):
        assert back[key].dtype == result[key].dtype and back[key].shape == result[key].shape
        assert back[key].tolist() == result[key].tolist()
    assert back["seconds"] == 0.30000000000000004 and back["inf"] == math.inf
    assert type(back["count"]) is np.int64 and back["count"] == 7
    assert type(back["share"]) is np.float32 and back["share"] == 0.25
    assert type(back[3]) is tuple and back[3] == ("a", 1, None, True)
    assert back["records"] == [Game("win", 5), Game("loss", 2, Reason(1, "timeout"))]
    assert [type(game) for game in back["records"]] == [Game, Game] and type(back["records"][1].gave_up) is Reason
    assert back["nested"] == [[1, 2], {"x": (1.5,)}] and type(back["nested"][1]["x"]) is tuple


@pytest.mark.parametrize("content", [
    pickle.dumps({"a": 1}),
    b'{"$": "array", "dtype": "|O", "shape": [1], "data": "AAAAAAAAAAA="}',
    b'{"$": "record", "type": "subprocess.Popen", "fields": {"args": "true"}}',
    json.dumps({"$": "record", "type": f"{Reason.__module__}.Reason", "fields": {"seat": 0, "nope": 1}}).encode(),
    b'{"$": "eval", "items": []}',
    b'{"$": "dict", "items": [[[1], 2]]}',
    b'{"$": "array", "dtype": "<i8", "shape": [2], "data": "AAAA"}',
    b'[' * 100000,
    b'{"trunc',
])
def test_a_line_that_is_not_a_kept_result_is_missing(tmp_path, content):
    """Whatever a report folder's log holds, loading it makes no object but the named records'
    and raises nothing: the task runs again."""
    TaskResults(tmp_path, {"run": 1}, RECORDS)
    (tmp_path / FOLDER / LOG).write_bytes(line("games-0-0", content))
    assert TaskResults(tmp_path, {"run": 1}, RECORDS).load(Task("games-0-0", square)) is MISSING


def test_lines_cut_short_or_damaged_are_missing_and_the_others_kept(tmp_path):
    """A line whose digest fails is missing; one cut short at the end is cut off, so that the next
    result kept starts a line of its own."""
    TaskResults(tmp_path, {"run": 1})
    log = tmp_path / FOLDER / LOG
    log.write_bytes(line("quality-0", b"1") + line("quality-1", b"2").replace(b" 2", b" 3")
                    + line("quality-2", b"[4]") + line("quality-3", b"[9]")[:-3])
    results = TaskResults(tmp_path, {"run": 1})
    assert [results.load(Task(f"quality-{k}", square)) for k in range(4)] == [1, MISSING, [4], MISSING]
    results.keep(Task("quality-3", square), [9])
    again = TaskResults(tmp_path, {"run": 1})
    assert [again.load(Task(f"quality-{k}", square)) for k in range(4)] == [1, MISSING, [4], [9]]
    assert log.read_bytes().endswith(line("quality-2", b"[4]") + line("quality-3", b"[9]"))


def test_a_result_of_another_type_is_not_kept(tmp_path):
    results = TaskResults(tmp_path, {"run": 1}, RECORDS)

    class Other(NamedTuple):  # not among the records named
        x: int

    for value in ({"agent": object()}, [Other(1)], np.array(["text"]), {1, 2}):
        results.keep(Task("games-0-0", square), value)
        assert results.load(Task("games-0-0", square)) is MISSING
    assert kept_keys(tmp_path) == set()


def test_another_run_clears_the_folder_and_the_same_run_keeps_it(tmp_path):
    first = TaskResults(tmp_path, {"seed": 1, "agents": ["random"]})
    first.keep(Task("quality-0", square), 4)
    assert TaskResults(tmp_path, {"agents": ["random"], "seed": 1}).load(Task("quality-0", square)) == 4
    other = TaskResults(tmp_path, {"seed": 2, "agents": ["random"]})
    assert other.load(Task("quality-0", square)) is MISSING
    assert sorted(path.name for path in (tmp_path / FOLDER).iterdir()) == [IDENTITY, LOG]
    assert kept_keys(tmp_path) == set()
    assert TaskResults(tmp_path, {"seed": 1, "agents": ["random"]}).load(Task("quality-0", square)) is MISSING
    other.remove()
    assert not (tmp_path / FOLDER).exists() and tmp_path.is_dir()


def test_a_link_for_the_folder_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / FOLDER).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StoreError, match="symbolic link"):
        TaskResults(tmp_path / "out", {"run": 1})
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_log_that_is_a_link_is_cleared_not_followed(tmp_path):
    target = tmp_path / "elsewhere.log"
    target.write_bytes(line("quality-0", b"5"))
    TaskResults(tmp_path / "out", {"run": 1})
    log = tmp_path / "out" / FOLDER / LOG
    log.unlink()
    log.symlink_to(target)
    results = TaskResults(tmp_path / "out", {"run": 1})
    assert results.load(Task("quality-0", square)) is MISSING
    results.keep(Task("quality-1", square), 6)
    assert not log.is_symlink() and kept_keys(tmp_path / "out") == {"quality-1"}
    assert target.read_bytes() == line("quality-0", b"5")


# --- the executor ---------------------------------------------------------------------------
class Recording(InProcessExecutor):
    """Runs tasks in process, noting each task it runs; with `stop_after`, raises
    KeyboardInterrupt (a Ctrl-C) instead of running more than that many."""

    def __init__(self, stop_after: int | None = None):
        super().__init__()
        self.ran: list[str] = []
        self.stop_after = stop_after

    def run(self, tasks):
        for task, result in super().run(tasks):
            self.ran.append(task.key)
            yield task, result
            if self.stop_after is not None and len(self.ran) >= self.stop_after:
                raise KeyboardInterrupt


def tasks_of(keys) -> list[Task]:
    return [Task(f"quality-{k}", square, (k,)) for k in keys]


def test_a_rerun_runs_only_the_tasks_not_finished_and_yields_every_result(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        for _ in ResumingExecutor(Recording(stop_after=3), TaskResults(tmp_path, {"run": 1})).run(tasks_of(range(8))):
            pass
    assert kept_keys(tmp_path) == {"quality-0", "quality-1", "quality-2"}
    again = Recording()
    results = dict((task.key, result) for task, result in
                   ResumingExecutor(again, TaskResults(tmp_path, {"run": 1})).run(tasks_of(range(8))))
    assert results == {f"quality-{k}": k * k for k in range(8)}
    assert again.ran == [f"quality-{k}" for k in range(3, 8)]


def test_an_iterator_of_tasks_is_drawn_as_before(tmp_path):
    """The kept results of the iterator's first tasks come at once; from the first task to run
    on, tasks are drawn as the executor asks for them (not all at once), and a kept result met
    on the way comes with the next result."""
    results = TaskResults(tmp_path, {"run": 1})
    for k in (0, 1, 2, 5):
        results.keep(Task(f"quality-{k}", square), -k)  # kept values tell kept from run
    drawn = []

    def stream():
        for task in tasks_of(range(10)):
            drawn.append(task.key)
            yield task

    executor = Recording()
    seen = []
    for task, result in ResumingExecutor(executor, results).run(stream()):
        seen.append((task.key, result, len(drawn)))
    assert [(key, result) for key, result, _ in seen] == [
        ("quality-0", 0), ("quality-1", -1), ("quality-2", -2), ("quality-3", 9), ("quality-4", 16),
        ("quality-5", -5), ("quality-6", 36), ("quality-7", 49), ("quality-8", 64), ("quality-9", 81)]
    assert [drawn_then for _, _, drawn_then in seen[:5]] == [1, 2, 3, 4, 5]
    assert executor.ran == ["quality-3", "quality-4", "quality-6", "quality-7", "quality-8", "quality-9"]


# --- validate -------------------------------------------------------------------------------
VALIDATION = dict(games=4, positions=600, seed=3, quiet=True)


def test_a_stopped_validate_reruns_only_its_unfinished_tasks_to_the_same_bytes(open_solved, tmp_path):
    """Move-quality chunks and tournament batches are kept as they finish; the rerun runs the
    others only and writes an uninterrupted run's report.json, and removes the folder."""
    store = open_solved("tictactoe")
    whole = Recording()
    validate(store, tmp_path / "whole", "minimax:depth=2,random", executor=whole, **VALIDATION)
    assert any(key.startswith("quality-") for key in whole.ran[:6])
    assert any(key.startswith("games-") for key in whole.ran[:6])

    out = tmp_path / "stopped"
    with pytest.raises(KeyboardInterrupt):
        validate(store, out, "minimax:depth=2,random", executor=Recording(stop_after=6), **VALIDATION)
    assert not (out / "report.json").exists()
    assert kept_keys(out) == set(whole.ran[:6])

    rerun = Recording()
    validate(store, out, "minimax:depth=2,random", executor=rerun, **VALIDATION)
    assert sorted(rerun.ran) == sorted(whole.ran[6:])
    assert (out / "report.json").read_bytes() == (tmp_path / "whole" / "report.json").read_bytes()
    assert not (out / FOLDER).exists()

    other = Recording()
    validate(store, out, "minimax:depth=2,random", executor=other, **{**VALIDATION, "seed": 4})
    assert sorted(other.ran) == sorted(whole.ran)  # another seed: nothing reused


def test_the_identity_of_a_run_holds_no_path_and_what_decides_results(tmp_path, open_solved):
    """The same agent's file elsewhere is the same run; its code changed, or its move time, is
    another (the limits decide forfeits, and stream names leave them out)."""
    from retrograde.games import make_game
    from retrograde.validation.audit import check_agents, results_identity

    store, game = open_solved("tictactoe"), make_game("tictactoe")
    for folder, code in (("a", SLOW_AGENT), ("b", SLOW_AGENT), ("c", SLOW_AGENT.replace("0.002", "0.003"))):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "slow.py").write_text(code)

    def identity(folder: str, extra: str = "") -> dict:
        agents = check_agents(f"python:file={tmp_path / folder / 'slow.py'},name=Slow{extra},random", game, store)
        return results_identity(game, store, agents, tiers=None, games=2, positions=600, seed=1, max_plies=9,
                                openings=True)

    assert identity("a") == identity("b")
    assert str(tmp_path) not in json.dumps(identity("a"))
    assert identity("c") != identity("a")
    assert identity("a", ",move_time=5") != identity("a")


SLOW_AGENT = '''import time


class Slow:
    """Plays the first legal move, slowly."""

    def choose(self, position):
        time.sleep(0.002)
        return position.moves[0]
'''


def test_a_killed_validate_of_a_users_agent_resumes_to_the_same_bytes(solved, tmp_path, cli):
    """`validate` of a user's slow agent, SIGKILLed with its whole process group (the agent's
    host process too) once a move-quality chunk's result is on the disk, then rerun: report.json
    is an uninterrupted run's, byte for byte, and the folder is gone."""
    (tmp_path / "slow.py").write_text(SLOW_AGENT)
    args = ["validate", "--store", str(solved("tictactoe")), "--agents",
            f"python:file={tmp_path / 'slow.py'},name=Slow,random", "--games", "2", "--positions", "600", "--seed", "2",
            "--workers", "0", "--quiet"]
    code, _, stderr = cli(*args, "--out", str(tmp_path / "whole"))
    assert code == 0, stderr

    out = tmp_path / "stopped"
    err_path = killed_once_kept(args, out, tmp_path / "logs")
    assert kept_keys(out), err_path.read_text()
    assert not (out / "report.json").exists()  # killed mid-run

    rerun = run([*args, "--out", str(out)], tmp_path / "logs")
    assert rerun.returncode == 0, rerun.stderr
    assert (out / "report.json").read_bytes() == (tmp_path / "whole" / "report.json").read_bytes()
    assert not (out / FOLDER).exists()
