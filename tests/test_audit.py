"""The validate stage (validation/audit.py) and the `validate` command: the agents it takes when
none are named, the baselines it sets beside users' own agents, the executor it opens, the report
folder it makes (one writer at a time), the consistency checks of its move quality, what its
report says of the store and its tasks, the report it writes end to end, and bad input refused in
one line with nothing written."""

from __future__ import annotations

import contextlib
import json
import re

import pytest

from conftest import NIM, resolved
from retrograde.data.store import Store
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.planning import plan_stage
from retrograde.validation import audit, validate
from retrograde.validation.audit import consistency_checks


def test_a_report_from_a_store_names_the_store_and_the_positions_its_tasks_measured(open_solved, tmp_path):
    """validation/audit.py: the report's settings give the positions per move-quality task that
    its tasks measured (600 positions: a full task and a short one), and its `store` entry is
    the store validated (tic-tac-toe is a draw with perfect play)."""

    class Recording(InProcessExecutor):
        def run(self, tasks):
            tasks = list(tasks)
            ran.extend(tasks)
            return super().run(tasks)

    ran = []
    store = open_solved("tictactoe")
    report = validate(store, tmp_path / "report", "random", games=1, positions=600, openings=False,
                      executor=Recording(), quiet=True)
    measured = [task.cost for task in ran if task.key.startswith("quality-")]
    assert len(measured) == 2 and report["settings"]["positions_per_task"] == max(measured)
    assert report["store"]["path"] == str(store.path)
    assert report["store"]["value"] == "a draw with perfect play"


def test_default_agents_are_those_that_can_play_the_game():
    """validation/audit.py: with no agents named, validate takes the default agents that can play
    the game: for tic-tac-toe without a store, its own `expert` (the magic-square rules) but not
    `lookup` (it needs one), Nim's `rules` or Quarto's `endgame` (docs/agents.md)."""
    assert [agent.spec for agent in audit.default_agents(make_game("tictactoe"), None)] == [
        "random", "greedy", "expert", "minimax:depth=2", "minimax:depth=3", "mcts"]


def test_validate_sizes_its_executor_by_the_store(solved, tmp_path, monkeypatch):
    """validation/audit.py: a validation that opens its own executor tells `open_executor` the
    store's positions (a small store then runs in-process): for tic-tac-toe, every index of its
    tiers."""
    asked = []

    @contextlib.contextmanager
    def recording(**options):
        asked.append(options)
        yield InProcessExecutor()

    monkeypatch.setattr(audit, "open_executor", recording)
    path = solved("tictactoe")
    audit.validate(path, tmp_path / "report", "random", games=2, positions=20, quiet=True)
    with Store.open(path) as store:
        indices = sum(tier.size for tier in store.plan.tiers)
    assert [options["positions"] for options in asked] == [indices]


def test_validate_makes_the_report_folder_and_its_parents(solved, tmp_path, monkeypatch):
    """validation/audit.py: `--out a/b/report` makes a and b too (the lock goes beside the report)."""
    monkeypatch.setattr(audit, "open_executor", lambda **options: contextlib.nullcontext(InProcessExecutor()))
    audit.validate(solved("tictactoe"), tmp_path / "a" / "b" / "report", "random", games=2, positions=20, quiet=True)
    assert (tmp_path / "a" / "b" / "report" / "report.json").is_file()


def _quality(**figures):
    base = {"positions": 10, "value_kept": 1.0, "win_kept": 1.0, "draw_kept": None, "mean_remoteness_lost": 0.0,
            "mean_loss_shortfall": 0.0}
    return base | figures


def _checks(game, quality: dict) -> list[dict]:
    return consistency_checks(resolved(game, quality), quality)


def test_consistency_checks_fail_on_a_blundering_lookup_or_nim_expert():
    nim = make_game("nim", NIM)
    passing = _checks(nim, {"lookup": _quality(), "expert": _quality(), "random": _quality(value_kept=0.4)})
    assert [c["ok"] for c in passing] == [True, True]
    failing = _checks(nim, {"lookup": _quality(value_kept=0.999), "expert": _quality(win_kept=0.98)})
    assert [c["ok"] for c in failing] == [False, False]
    slow = _checks(nim, {"lookup:fallback=random": _quality(mean_remoteness_lost=0.5)})
    assert [c["ok"] for c in slow] == [False]
    assert _checks(make_game("tictactoe"), {"expert": _quality(win_kept=0.9)}) == []


def test_validate_writes_the_report(solved, tmp_path):
    out = tmp_path / "report"
    report = validate(solved("nim", NIM), out, "lookup,random:preset=000,expert,rules:preset=000", games=8, seed=5,
                      quiet=True)
    assert {"report.json", "report.md", "report.html"} <= {p.name for p in out.iterdir()}
    data = json.loads((out / "report.json").read_text())
    assert data == json.loads(json.dumps(report))
    assert {"game", "params", "seed", "agents", "tournaments"} <= set(data)
    assert data["game"] == "nim" and data["params"] == make_game("nim", NIM).rules and data["seed"] == 5
    for entry in data["agents"].values():
        quality = entry["move_quality"]
        assert {"positions", "value_kept", "win_kept", "draw_kept", "mean_remoteness_lost"} <= set(quality)
        assert all(0 <= quality[k] <= 1 for k in ("value_kept", "win_kept"))
    assert len(data["tournaments"]) == 2 * 4 * 4  # every ordered pair, from the start and from openings
    for t in data["tournaments"]:
        assert {"first", "second", "games", "first_wins", "draws", "second_wins", "first_win_ci95"} <= set(t)
        assert t["first_wins"] + t["draws"] + t["second_wins"] == t["games"] == 8
        assert 0 <= t["first_win_ci95"][0] <= t["first_win_ci95"][1] <= 1
    assert [c["ok"] for c in data["checks"]] == [True, True]
    assert any(row["agent"] == "rules:preset=000" for row in data["published"])
    page = (out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') >= 4
    # self-contained: nothing loaded from anywhere; the only addresses are links to the local explorer
    assert "<link" not in page and "<script" not in page and 'src="http' not in page
    assert set(re.findall(r"https?://[^/\"]*", page)) <= {"http://127.0.0.1:8000"}
    assert "| lookup |" in (out / "report.md").read_text()
    # the answer first: Nim 1,3,5,7 has nim-sum 0: the first player loses; lookup ranks first
    summary = data["summary"]
    assert summary["value"] == "loss" and summary["answer"].startswith("The first player loses in")
    assert summary["ranking"][0]["short"] == "lookup" and len(summary["ranking"]) == 4
    assert {row["short"] for row in summary["ranking"]} == {"lookup", "random-p000", "expert", "rules-p000"}
    assert all(data["agents"][row["agent"]]["short"] == row["short"] for row in summary["ranking"])
    assert 3 <= len(summary["findings"]) <= 5
    assert page.index(summary["answer"]) < page.index("How this was measured") < page.index("<h2>Tournaments")


def test_validate_command(solved, tmp_path, cli):
    out = tmp_path / "cli-report"
    code, stdout, stderr = cli("validate", "--store", str(solved("tictactoe")), "--out", str(out),
                               "--agents", "lookup,random", "--games", "4", "--seed", "1", "--quiet")
    assert code == 0, stderr
    assert str(out / "report.html") in stdout.strip().splitlines()[-1]
    assert json.loads((out / "report.json").read_text())["agents"]["lookup"]["move_quality"]["value_kept"] == 1.0


@pytest.mark.parametrize("case", ["unknown agent", "cannot play", "no store", "incomplete store", "out is a file",
                                  "bad games", "bad positions"])
def test_validate_refuses_bad_input_and_writes_nothing(solved, tmp_path, case, cli):
    store, out, extra = str(solved("tictactoe")), tmp_path / "out", []
    if case == "unknown agent":
        extra = ["--agents", "lookup,nosuch"]
    elif case == "cannot play":
        extra = ["--agents", "rules"]
    elif case == "no store":
        store = str(tmp_path / "missing.zarr")
    elif case == "incomplete store":
        store = str(tmp_path / "planned.zarr")
        plan_stage(make_game("tictactoe"), store).close()
    elif case == "out is a file":
        out.write_text("x")
    elif case == "bad games":
        extra = ["--games", "0"]
    else:
        extra = ["--positions", "-3"]
    code, _, stderr = cli("validate", "--store", store, "--out", str(out), *extra, "--quiet")
    assert code in (1, 2) and len(stderr.strip().splitlines()) == 1, stderr
    assert "Traceback" not in stderr and stderr.startswith("retrograde: error:")
    assert out.is_file() if case == "out is a file" else not out.exists()


def test_a_second_validate_writing_the_same_folder_is_refused(open_solved, tmp_path):
    """One writer per report folder: the second run names the holder and writes nothing."""
    from retrograde.data.lock import writer_lock
    from retrograde.errors import StoreError

    store = open_solved("tictactoe")
    out = tmp_path / "reports" / "ttt"
    (tmp_path / "reports").mkdir()
    with writer_lock(out, "report folder"):
        with pytest.raises(StoreError, match=r"report folder .* is being written by another run \(pid \d+ on "):
            validate(store, out, "random", games=1, positions=10, openings=False, quiet=True)
    assert not out.exists() and list((tmp_path / "reports").iterdir()) == []


def first_move(position):
    """A user's agent given to the Python API: the first legal move."""
    return position.moves[0]


def test_users_agents_alone_are_set_beside_the_baselines_that_can_play(open_solved):
    """validation/audit.py: where every agent named is a user's own, the baselines lookup,
    minimax:depth=2, minimax:depth=3, mcts and random follow them (lookup only with a store); an
    agent of ours named beside them adds none."""
    store, game = open_solved("tictactoe"), make_game("tictactoe")
    mine = audit.check_agents([first_move], game, store)
    assert [agent.spec for agent in audit.with_baselines(mine, game, store)] == [
        "first_move", "lookup", "minimax:depth=2", "minimax:depth=3", "mcts", "random"]
    assert [agent.spec for agent in audit.with_baselines(audit.check_agents([first_move], game, None), game, None)] \
        == ["first_move", "minimax:depth=2", "minimax:depth=3", "mcts", "random"]
    beside = audit.check_agents([first_move, "random"], game, store)
    assert audit.with_baselines(beside, game, store) == beside


def test_validate_of_a_users_agent_measures_the_baselines_too_unless_told_not_to(open_solved, tmp_path):
    store = open_solved("tictactoe")
    options = dict(games=1, positions=20, openings=False, quiet=True)
    alone = validate(store, tmp_path / "alone", [first_move], baselines=False, **options)
    assert alone["settings"]["agents"] == ["first_move"] and len(alone["tournaments"]) == 1
    beside = validate(store, tmp_path / "beside", [first_move], **options)
    assert beside["settings"]["agents"] == ["first_move", "lookup", "minimax:depth=2", "minimax:depth=3", "mcts",
                                            "random"]
    assert len(beside["tournaments"]) == 36
