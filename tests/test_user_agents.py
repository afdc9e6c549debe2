"""Users' own agents measured unchanged (issue 33), through the command line and the Python API:
the sample players of tests/players (native callables, the Nim lab's strategies, a test engine
over the line protocol). What a deterministic player chooses is worked out here, in our
notation, and every figure of its move quality is checked against the store probed move by
move; misbehaving agents forfeit, counted by reason, and the run goes on; code that cannot load
is one line naming the file; an agent is known by its code, never by its path.

The course's Quixo and Quarto players are in test_user_agents_course.py (it uses the helpers here).
"""

from __future__ import annotations

import json
import shutil
import sys
from functools import reduce
from operator import xor
from pathlib import Path
from typing import NamedTuple

import pytest

import retrograde
from conftest import run_cli
from retrograde.data.store import Store
from retrograde.validation.quality import DEFAULT_POSITIONS, select_positions

PLAYERS = Path(__file__).parent / "players"
ENGINE = PLAYERS / "engine.py"
#: The figures of `move_quality` a reference gives (the report has more: its interval, seconds).
FIGURES = ("positions", "won", "drawn", "lost", "win_to_draw", "win_to_loss", "draw_to_loss", "value_kept",
           "win_kept", "draw_kept", "mean_remoteness_lost", "mean_loss_shortfall")


# --- running the command line ---------------------------------------------------------------------
def python_spec(file: Path, name: str, **options) -> str:
    """The spec of a user's Python agent: `python:file=(PATH),name=NAME,KEY=VALUE...`."""
    return ",".join([f"python:file=({file}),name={name}", *(f"{key}={value}" for key, value in options.items())])


def engine_spec(*arguments: str, **options) -> str:
    """The spec of the test engine, run with this interpreter and `arguments`."""
    command = " ".join([sys.executable, str(ENGINE), *arguments])
    return ",".join([f"engine:command=({command})", *(f"{key}={value}" for key, value in options.items())])


def validate(store: Path, out: Path, specs: list[str], *options: str, cwd: Path | None = None):
    """Run `retrograde validate` on `store` with the agents `specs` (no progress lines), in
    folder `cwd`: the completed process and report.json (None where it wrote none)."""
    result = run_cli("validate", "--store", str(store), "--out", str(out), "--agents", ",".join(specs), "--quiet",
                     *options, cwd=cwd)
    report_file = out / "report.json"
    return result, json.loads(report_file.read_text()) if report_file.exists() else None


def entry(report: dict, name: str) -> dict:
    """The report's entry of the user's agent whose class or function is `name` (named
    `NAME@DIGEST` or `NAME(KEYWORDS)@DIGEST`)."""
    found = [spec for spec in report["agents"] if spec.split("@")[0].split("(")[0] == name]
    assert len(found) == 1, f"{name!r} among {list(report['agents'])}"
    return report["agents"][found[0]]


def engine_name(report: dict, kind: str | None = None) -> str:
    """The test engine's name in `report` (`id` and digest; a misbehaving one names its KIND)."""
    prefix = "nimsum-engine" + (f"-{kind}" if kind else "") + " 1.0@"
    (name,) = [spec for spec in report["agents"] if spec.startswith(prefix)]
    return name


def assert_clean_run(result) -> None:
    """The run finished (exit 0) and no traceback came out."""
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout, result.stderr


# --- the reference: move quality worked out by probing the store -------------------------------------
def measured_positions(store: Path, positions: int | None = None, seed: int = 0) -> list[tuple]:
    """The positions `validate --positions` measures (every one where the store holds fewer) with
    the number of positions each stands for, probed: [(ProbeResult, weight)], terminal ones left out."""
    with Store.open(store) as raw:
        selection = select_positions(raw, DEFAULT_POSITIONS if positions is None else positions, seed)
    probed = []
    with retrograde.open_store(store) as solved:
        for tier, index, weight in zip(selection.tier_of.tolist(), selection.index.tolist(), selection.weight):
            result = solved.probe(solved.position_at(selection.tiers[tier], index))
            if result.moves:
                probed.append((result, float(weight)))
    return probed


class Measured(NamedTuple):
    """One measured position: its value and remoteness, what the chosen move achieves (the
    mover's view, plies from the position), and how many positions it stands for."""

    value: str
    remoteness: int
    chosen: str
    chosen_remoteness: int
    weight: float

    @property
    def kept(self) -> bool:
        return self.chosen == self.value


def move_quality(probed: list[tuple], choose) -> dict:
    """The `move_quality` figures of a player choosing `choose(ProbeResult) -> move text`: the
    shares weighted by the positions each measured one stands for, the counts not."""
    rows = []
    for result, weight in probed:
        chosen = next(move for move in result.moves if move.move == choose(result))
        rows.append(Measured(result.value, result.remoteness or 0, chosen.value, chosen.remoteness or 0, weight))

    def share(rows, hit=Measured.kept.fget):
        total = sum(row.weight for row in rows)
        return sum(row.weight for row in rows if hit(row)) / total if total else None

    def mean(rows, value):
        total = sum(row.weight for row in rows)
        return sum(row.weight * value(row) for row in rows) / total if total else None

    won, drawn, lost = ([row for row in rows if row.value == value] for value in ("win", "draw", "loss"))
    return {"positions": len(rows), "won": len(won), "drawn": len(drawn), "lost": len(lost),
            "win_to_draw": sum(row.chosen == "draw" for row in won),
            "win_to_loss": sum(row.chosen == "loss" for row in won),
            "draw_to_loss": sum(row.chosen == "loss" for row in drawn),
            "value_kept": share(rows), "win_kept": share(won), "draw_kept": share(drawn),
            "mean_remoteness_lost": mean([row for row in won if row.kept],
                                         lambda row: row.chosen_remoteness - row.remoteness),
            "mean_loss_shortfall": mean(lost, lambda row: row.remoteness - row.chosen_remoteness)}


def assert_quality(got: dict, expected: dict, who: str) -> None:
    """The report's move quality of `who` is the reference's, figure by figure."""
    for figure in FIGURES:
        want = expected[figure] if expected[figure] is None else pytest.approx(expected[figure], rel=1e-9, abs=1e-12)
        assert got[figure] == want, (who, figure, got, expected)
    assert got.get("forfeits", {}) == {}, (who, got)


def nim_sum_move(text: str, k: int | None) -> str:
    """The nim-sum player's move (HEAP-COUNT, 1-based) in Nim position `text`: the first take,
    heaps in order and fewest objects first, after which the heaps' Grundy values (h mod k+1
    where takes are bounded by k) sum to 0; else one object from the first heap holding any."""
    heaps = [int(h) for h in text.split(",")]
    grundy = (lambda h: h) if k is None else (lambda h: h % (k + 1))
    total = reduce(xor, map(grundy, heaps))
    for i, h in enumerate(heaps):
        for n in range(1, (h if k is None else min(h, k)) + 1):
            if total ^ grundy(h) ^ grundy(h - n) == 0:
                return f"{i + 1}-{n}"
    return f"{next(i for i, h in enumerate(heaps) if h) + 1}-1"


# --- the Nim lab's strategies and the engine, measured exactly -----------------------------------------
@pytest.mark.parametrize("params", [{"heaps": [1, 3, 5, 7]}, {"heaps": [2, 3, 4], "max_take": 2}],
                         ids=["unbounded", "k=2"])
def test_the_nim_sum_strategy_and_engine_are_measured_exactly(solved, tmp_path, params):
    """The lab's `optimal(state) -> Nimply` (api=course) and the engine, both nim-sum players
    honouring k, keep exactly the values a probe of every position says their moves keep; the
    native `RandomMover(rng)` plays every move legally."""
    store = solved("nim", params)
    result, report = validate(store, tmp_path / "report", [
        python_spec(PLAYERS / "nim" / "nimsum.py", "optimal", api="course"), engine_spec(),
        python_spec(PLAYERS / "native" / "random_mover.py", "RandomMover"), "random"], "--games", "1")
    assert_clean_run(result)
    probed = measured_positions(store)
    expected = move_quality(probed, lambda r: nim_sum_move(str(r.position), params.get("max_take")))
    assert expected["positions"] == report["move_quality_sample"]["positions"]
    assert_quality(entry(report, "optimal")["move_quality"], expected, "optimal")
    assert_quality(report["agents"][engine_name(report)]["move_quality"], expected, "engine")
    assert entry(report, "RandomMover")["move_quality"]["forfeits"] == {}
    for tournament in report["tournaments"]:
        assert tournament["forfeits"] == {"first": {}, "second": {}}


def test_copies_of_a_player_in_other_folders_give_the_same_report(solved, tmp_path):
    """The random lab strategy and the native `RandomMover(rng)`, copied into two folders and
    measured from each, the second time on two local worker processes (each with its own host
    processes): report.json is the same bytes (an agent is known, and its random streams seeded,
    by its code, not its path nor the process it runs in; the host seeds `random` for the lab's
    strategy), and no path is written in it. Neither forfeits a move (their answers are legal)."""
    store = solved("nim", {"heaps": [1, 3, 5, 7]})
    reports = []
    for folder, workers in (("one", "0"), ("two/deeper", "2")):
        copies = tmp_path / folder
        copies.mkdir(parents=True)
        for player in (PLAYERS / "nim" / "random_strategy.py", PLAYERS / "native" / "random_mover.py"):
            shutil.copy(player, copies)
        result, report = validate(store, copies / "report", [
            python_spec(copies / "random_strategy.py", "pure_random", api="course"),
            python_spec(copies / "random_mover.py", "RandomMover"), "random"], "--games", "2", "--workers", workers)
        assert_clean_run(result)
        for name in ("pure_random", "RandomMover"):
            assert entry(report, name)["move_quality"]["forfeits"] == {}
        reports.append((copies / "report" / "report.json").read_bytes())
    assert reports[0] == reports[1]
    assert str(tmp_path).encode() not in reports[0]


def test_an_engine_is_spoken_to_by_the_protocol(solved, tmp_path):
    """The engine against itself from 1,3,5,7 (nim-sum 0): the second player wins every game,
    and its log (its stderr) shows the handshake, the game's parameters, a new game per seat,
    the positions of the game played by the nim-sum and a clean quit."""
    store = solved("nim", {"heaps": [1, 3, 5, 7]})
    logs = tmp_path / "logs"
    spec = engine_spec(logs=f"({logs})")
    result = run_cli("match", spec, spec, "--store", str(store), "--games", "2", "--json", "--quiet")
    assert_clean_run(result)
    document = json.loads(result.stdout)
    for seat in document["tournaments"] if isinstance(document, dict) else document:
        assert (seat["first_wins"], seat["draws"], seat["second_wins"]) == (0, 0, 2)
    (log,) = logs.glob("*.log")
    got = [line.removeprefix("engine got: ") for line in log.read_text().splitlines()]
    assert got[:2] == ["retrograde 1", 'game nim {"heaps": [1, 3, 5, 7], "max_take": null, "misere": false}']
    assert got[-1] == "quit" and got.count("retrograde 1") == got.count("quit")
    assert any(line.startswith("new ") and line.endswith((" 0", " 1")) for line in got)
    game, position = [], "1,3,5,7"
    while position != "0,0,0,0":
        game.append(f"position {position}")
        heap, take = map(int, nim_sum_move(position, None).split("-"))
        heaps = [int(h) for h in position.split(",")]
        heaps[heap - 1] -= take
        position = ",".join(map(str, heaps))
    asked = [line for line in got if line.startswith("position ")]
    assert asked[:len(game)] == game


#: How the test engine misbehaves -> the forfeit it earns.
MISBEHAVIOUR = {"crash": "died", "hang": "timeout", "garbage": "illegal", "forfeit": "exception"}


def test_misbehaving_agents_forfeit_and_the_run_goes_on(solved, tmp_path):
    """Engines that crash, hang past the move time, answer garbage or give up, and a Python agent
    asking for more memory than its limit, at every move: each move measured is a forfeit with
    its reason, and so is every game such an agent plays (lost by it); forfeits are told on
    stderr in one line each (naming the agent and the reason), no traceback, exit 0."""
    store = solved("nim", {"heaps": [1, 2]})
    specs = [engine_spec("--misbehave", kind, move_time="0.25", tries="3") for kind in MISBEHAVIOUR]
    hog = python_spec(PLAYERS / "native" / "hog.py", "hog", memory="1024")
    result, report = validate(store, tmp_path / "report", [*specs, hog, "random"], "--games", "1")
    assert_clean_run(result)
    reasons = {engine_name(report, kind): reason for kind, reason in MISBEHAVIOUR.items()}
    reasons[next(spec for spec in report["agents"] if spec.startswith("hog@"))] = "memory"
    for name, reason in reasons.items():
        quality = report["agents"][name]["move_quality"]
        assert quality["forfeits"] == {reason: 5} and quality["positions"] == 5, (name, quality)
        assert quality["win_kept"] == 0
    for tournament in report["tournaments"]:
        forfeits, games = tournament["forfeits"], tournament["games"]
        first, second = reasons.get(tournament["first"]), reasons.get(tournament["second"])
        if first:  # it forfeits its first move, and the game
            assert forfeits["first"] == {first: games} and tournament["second_wins"] == games, tournament
            assert forfeits["second"] == {}
        elif second and tournament["start"] == "initial":  # from 1,2 it always gets a move
            assert forfeits["second"] == {second: games} and tournament["first_wins"] == games, tournament
        elif second:  # an opening may end the game before it moves
            assert set(forfeits["second"]) <= {second} and tournament["second_wins"] == 0, tournament
        else:
            assert forfeits == {"first": {}, "second": {}}
    told = [line for line in result.stderr.splitlines() if "forfeit" in line]
    for name, reason in reasons.items():
        assert any(name in line and f"({reason})" in line for line in told), (name, result.stderr)


def favourite_move(text: str, heap: int, whole: bool) -> str:
    """Favourite's move: from heap `heap` (1-based) while it holds objects, else from the first
    heap holding any; all of them where `whole`, else one."""
    heaps = [int(h) for h in text.split(",")]
    i = heap - 1 if heaps[heap - 1] else next(i for i, h in enumerate(heaps) if h)
    return f"{i + 1}-{heaps[i] if whole else 1}"


def test_constructor_keywords_are_python_literals(solved, tmp_path):
    """`heap=3,whole=True,note=hello` reach the constructor as 3, True and 'hello' (the player
    refuses other types), the name in the report says them, and two settings are two agents,
    each measured exactly; the second is named as a module (`python:module=native.favourite`,
    found on the path of the folder validate runs in)."""
    store = solved("nim", {"heaps": [1, 3, 5, 7]})
    result, report = validate(store, tmp_path / "report", [
        python_spec(PLAYERS / "native" / "favourite.py", "Favourite", heap="3", whole="True", note="hello"),
        "python:module=native.favourite,name=Favourite,heap=2", "random"], "--games", "1", cwd=PLAYERS)
    assert_clean_run(result)
    names = [spec for spec in report["agents"] if spec.startswith("Favourite")]
    assert len(names) == 2 and any("heap=3" in name and "whole=True" in name for name in names), names
    probed = measured_positions(store)
    for name in names:
        heap, whole = (3, True) if "heap=3" in name else (2, False)
        expected = move_quality(probed, lambda r: favourite_move(str(r.position), heap, whole))
        assert_quality(report["agents"][name]["move_quality"], expected, name)


# --- native agents in the Python API ------------------------------------------------------------------------------
def test_objects_are_agents_in_the_python_api(solved, tmp_path, capfd):
    """A plain function, a class taking `rng` and an object whose `choose` raises: validate,
    match and agent take them where they take specs. The function is measured exactly; the
    raising object forfeits every move (exception), told on stderr, and the report is written."""
    sys.path.insert(0, str(PLAYERS / "native"))
    try:
        from random_mover import RandomMover
    finally:
        sys.path.remove(str(PLAYERS / "native"))

    def nim_sum(position):
        return nim_sum_move(str(position), None)

    class Broken:
        def choose(self, position):
            raise RuntimeError("broken on purpose")

    store_path = solved("nim", {"heaps": [1, 3, 5, 7]})
    with retrograde.open_store(store_path) as store:
        report = retrograde.validate(store, tmp_path / "report", agents=[nim_sum, RandomMover, Broken(), "random"],
                                     games=1)
        expected = move_quality(measured_positions(store_path), lambda r: nim_sum_move(str(r.position), None))
        assert_quality(report["agents"]["nim_sum"]["move_quality"], expected, "nim_sum")
        assert report["agents"]["RandomMover"]["move_quality"]["forfeits"] == {}
        assert report["agents"]["Broken"]["move_quality"]["forfeits"] == {"exception": expected["positions"]}
        assert "RuntimeError: broken on purpose" in capfd.readouterr().err
        first, second = retrograde.match(nim_sum, "random", store=store, games=3)
        assert first["first"] == "nim_sum" and second["second"] == "nim_sum"
        assert second["second_wins"] == 3  # nim-sum 0 at the start: the nim-sum player wins moving second
        move, child = retrograde.agent(nim_sum, store=store).choose("1,3,5,6")
        assert (move, str(child)) == ("1-1", "0,3,5,6")


# --- what cannot load or play: one line, nothing written ---------------------------------------------------------
def assert_refused(cli, store: Path, out: Path, specs: list[str], *needles: str) -> str:
    """`validate` (in this process) exits 2 with one line on stderr holding every needle, no
    traceback, and no report folder; returns the line."""
    code, stdout, stderr = cli("validate", "--store", str(store), "--out", str(out), "--agents", ",".join(specs),
                               "--quiet")
    assert code == 2 and not out.exists(), (code, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_an_engine_that_refuses_the_game_is_one_line(solved, tmp_path, cli):
    """The test engine plays normal Nim only: on a misère store it refuses, in one line."""
    assert_refused(cli, solved("nim", {"heaps": [1, 2], "misere": True}), tmp_path / "report",
                   [engine_spec(), "random"], "normal nim only")


BROKEN = {
    "missing": (None, "Greedy", ["no such file"]),
    "no-class": ("def choose(position):\n    return position.moves[0]\n", "Greedy", ["has no 'Greedy'", "choose"]),
    "syntax": ("def choose(position)\n    return position.moves[0]\n", "choose", ["player.py:1", "SyntaxError"]),
    "import": ("import no_such_module_anywhere\n", "choose", ["player.py:1", "no_such_module_anywhere"]),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_player_that_cannot_load_is_one_line_and_nothing_is_written(solved, tmp_path, cli, case):
    """A missing file, no such class, a syntax error, a failing import: one line naming the
    file (and the line where the error is), nothing written."""
    source, name, needles = BROKEN[case]
    player = tmp_path / "mine" / "player.py"
    player.parent.mkdir()
    if source is not None:
        player.write_text(source)
    assert_refused(cli, solved("nim", {"heaps": [1, 2]}), tmp_path / "report", [python_spec(player, name), "random"],
                   "player.py", *needles)
