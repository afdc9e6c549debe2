"""`retrograde run seeds`: the course reports' figures played again, with a verdict on each.

The verdict rule is tests/test_verdicts.py's; here the run is checked end to end on report 000's
rows (Nim's fixed rules as its code ran them, and its Quarto GA) and report 003's, with the
figures no match plays listed and the rows resumed from what they played. The course reports'
published figures are set beside ours by seat, and a report's agent is matched only by a spec of
ours (validation/published.py)."""

from __future__ import annotations

import html
import json

import numpy as np
import pytest

from conftest import NIM, resolved, run_cli
from processes import assert_one_error_line
from retrograde.agents import resolve_agent
from retrograde.errors import BadAgent
from retrograde.games import make_game
from retrograde.games.capabilities import AgentRef, Figure
from retrograde.validation import course, published
from retrograde.validation.published import compare
from retrograde.validation.tournament import INITIAL
from retrograde.workflows import course as seeds
from retrograde.workflows.course import report_unplayed


def figure(win, draw, loss, games, seat="first"):
    return course.ReportFigure("nim", Figure({"heaps": [1, 3, 5, 7]}, AgentRef("theirs", "rules", (("rule", "fixed"),)),
                                          AgentRef("pure_random", "random", (("preset", "000"),)), seat, win, loss,
                                          draw, games, "000_x.txt, Table 9 (a note)"))


def test_we_play_at_least_the_reports_games_and_200_a_seat():
    assert figure(0.8, 0, 0.2, 100).games == 200
    assert figure(0.8, 0, 0.2, 1000).games == 1000
    assert figure(0.8, 0, 0.2, None, seat="either").games == 400


def test_run_seeds_plays_report_000s_rows_and_resumes(tmp_path):
    first = run_cli("run", "seeds", "--only", "000", "--out", str(tmp_path), "--workers", "0", "--quiet",
                    "--skip-training")
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "seeds"
    document = json.loads((folder / "report.json").read_text())
    rows = document["rows"]
    assert {row["seed"][:3] for row in rows} == {"000"}
    assert len(rows) == sum(figure.seed.startswith("000") for figure in seeds.report_figures("000"))
    (evolved,) = [row for row in rows if row["verdict"] == "not run"]  # its GA trains for minutes: skipped here
    assert "ga:preset=000" in evolved["why"] and "--skip-training" in evolved["why"] and evolved["ours"] is None
    assert not (folder / "artifacts").exists()
    rows = [row for row in rows if row is not evolved]
    for row in rows:
        assert set(row) >= {"seed", "where", "game", "agent", "opponent", "seat", "theirs", "ours", "verdict", "why",
                            "test", "evidence"}
        assert row["verdict"] in ("consistent", "differs") and row["ours"]["games"] >= 200
        assert row["evidence"][0]["ours"] == row["ours"] and row["evidence"][0]["agent"] == row["agent"]
    nim = [row for row in rows if row["game"] == "nim"]
    assert all(row["ours"]["value_kept"] is not None for row in nim)  # Nim 1,3,5,7 is solved for the audit
    # Nim's pairings are enumerated: their sample (100 games given) is tested against the exact rates.
    assert all(row["exact"] is not None and row["test"]["kind"] == course.THEIRS_EXACT for row in nim
               if row["theirs"]["games"])
    assert sum(row["verdict"] == "consistent" for row in nim) >= 6  # as their code played, the figures hold
    highest = next(row for row in nim if "rule=min-from-highest-row" in row["agent"])
    code, text = highest["evidence"]
    assert (code["version"], text["version"]) == (course.AS_CODE, course.AS_TEXT)
    assert text["agent"] == "rules:rule=largest-min" and text["opponent"] == "random"
    assert text["ours"]["games"] == code["ours"]["games"]
    assert highest["verdict"] == "consistent" and not text["consistent"]  # 80% only as their code plays
    assert highest["why"].startswith("Consistent as their code played them, and not as their text names them")
    # Every figure of report 000 that no match plays is listed, with why, in every form of the report.
    assert document["unplayed"] == report_unplayed("000")
    markdown, page = (folder / "report.md").read_text(), (folder / "report.html").read_text()
    for entry in document["unplayed"]:
        assert entry["seed"].startswith("000") and entry["why"]
        assert entry["why"] in markdown and html.escape(entry["why"], quote=False) in page.replace("<wbr>", "")
    assert page.count("<details><summary>evidence: ") == len(rows)
    played = {path.name: path.read_bytes() for path in (folder / "rows").iterdir()}
    assert len(played) == len(rows)  # the not-run row is played again by a later run
    again = run_cli("run", "seeds", "--only", "000", "--out", str(tmp_path), "--workers", "0", "--skip-training")
    assert again.returncode == 0 and "tournament" not in again.stderr  # every row was done: none is played
    assert json.loads((folder / "report.json").read_text()) == document
    assert (folder / "report.md").read_text() == markdown and (folder / "report.html").read_text() == page


def test_a_row_resumes_from_what_it_played_keyed_by_the_rows_format(monkeypatch):
    """DIR/seeds/rows keeps a row's counts, not its verdict: the row is made again from them and
    the figure; the file's name holds ROW_FORMAT, so a file of another format is never read."""
    found = figure(0.80, 0.0, 0.20, 100)
    played = {"versions": [{"version": course.AS_GIVEN, "agent": found.agent, "opponent": found.opponent,
                            "counts": [160, 0, 40]}], "value_kept": 0.5, "not_run": None}
    row = seeds._row(found, played)
    assert row["verdict"] == "consistent" and row["ours"]["win"] == 0.8 and row["ours"]["value_kept"] == 0.5
    assert seeds._row(figure(0.95, 0.0, 0.05, 1000), played)["verdict"] == "differs"  # the figure as it is now
    key = seeds._key(found)
    monkeypatch.setattr(seeds, "ROW_FORMAT", seeds.ROW_FORMAT + 1)
    assert seeds._key(found) != key


def test_bad_seeds_input_is_one_line(tmp_path):
    result = run_cli("run", "seeds", "--only", "999", "--out", str(tmp_path))
    assert result.returncode == 2
    assert_one_error_line(result.stderr, "--only '999': no course report of that name has figures")
    result = run_cli("run", "quixo3", "--only", "000", "--out", str(tmp_path))
    assert result.returncode == 2
    assert_one_error_line(result.stderr, "--only: only the seeds workflow takes it")
    result = run_cli("run", "quixo3", "--skip-training", "--out", str(tmp_path))
    assert result.returncode == 2
    assert_one_error_line(result.stderr, "--skip-training: only the seeds workflow takes it")
    assert list(tmp_path.iterdir()) == []


def test_report_003s_benchmark_over_mixed_instances_is_played_one_game_a_seat_each(tmp_path):
    """Its fixed and evolved strategies against its random and raw nim-sum players, on 100 drawn
    instances (bounded ones among them): as its code played, its figures hold (4.5% and 23% against
    its 'optimal' player, which the bound misleads)."""
    result = run_cli("run", "seeds", "--only", "003", "--out", str(tmp_path), "--workers", "0", "--quiet")
    assert result.returncode == 0, result.stderr
    rows = [row for row in json.loads((tmp_path / "seeds" / "report.json").read_text())["rows"]
            if row["where"].startswith("Benchmarks")]
    assert len(rows) == 4 and all(row["ours"]["games"] == 200 and row["seat"] == "either" for row in rows)
    assert {row["agent"] for row in rows} == {"rules:preset=003", "ga:preset=003"}
    against_optimal = [row for row in rows if row["opponent"] == "expert:preset=003"]
    assert [row["verdict"] for row in against_optimal] == ["consistent", "consistent"]
    assert sum(row["verdict"] == "consistent" for row in rows) >= 3


def test_trained_agents_are_trained_once_as_the_report_trained_and_found_again(tmp_path):
    """A report's trained agent (`AgentRef.learner`) gets an artifact in DIR/seeds/artifacts, named
    from its game, settings and seed: trained on the first run, found (not retrained) on the next;
    the row shows the artifact's path relative to the report's folder."""
    from contextlib import ExitStack

    from retrograde.games import make_game
    from retrograde.pipeline.executors import open_executor
    from retrograde.pipeline.solve import SolveOptions
    from retrograde.workflows.course import Artifacts, Stores, _played, _row

    learner = AgentRef("QLearningAgent", "rl", learner="rl:episodes=300,rewards=10/-10/3,opponent=random")
    ttt = course.ReportFigure("tictactoe", Figure({}, learner, AgentRef("random_strategy", "random"), "first", 0.9, 0.0,
                                               0.1, 10, "001_x.txt, Table 2"))
    with ExitStack() as stack, open_executor(workers=0, positions=None) as executor:
        stores = Stores(tmp_path / "stores", executor, stack, SolveOptions(workers=0, quiet=True))
        artifacts = Artifacts(tmp_path / "artifacts", stores)
        first = artifacts.train_all([ttt, ttt], executor, quiet=True)
        assert len(first) == 1 and list(first.values())[0] > 0
        (artifact,) = (tmp_path / "artifacts").iterdir()
        made = artifact.stat().st_mtime_ns
        again = artifacts.train_all([ttt], executor, quiet=True)
        assert artifact.stat().st_mtime_ns == made and len(again) == 1  # found, not trained again
        row = _row(ttt, _played(ttt, stores, artifacts, executor, quiet=True))
    settings = json.loads(str(np.load(artifact)["metadata"]))["settings"]
    assert settings["rewards"] == "10/-10/3" and settings["episodes"] == 300
    assert row["agent"] == f"rl:params=artifacts/{artifact.name}" and row["ours"]["games"] == 200
    assert row["ours"]["value_kept"] is not None  # tic-tac-toe is solved for the audit
    other = Artifacts(tmp_path / "artifacts", stores).path("rl:episodes=301,opponent=random", make_game("tictactoe"))
    assert other[0] != artifact  # other settings, another artifact


def test_a_spec_of_an_agent_no_game_knows_is_not_the_reports_agent():
    """validation/published.py: a spec of the report's agent's name that is no agent of ours (its
    options cannot be known) is refused where it is resolved, and none of our agents matches it."""
    game = make_game("tictactoe")
    with pytest.raises(BadAgent, match="unknown agent 'nosuchagent'"):
        resolve_agent("nosuchagent", game)
    assert published.matches(AgentRef("theirs", "nosuchagent"), resolve_agent("random", game)) is False


def _compare(game, specs: list[str], *args) -> list[dict]:
    return compare(game, resolved(game, specs), *args)


def test_published_figures_are_set_beside_ours_by_seat():
    quixo4 = make_game("quixo", {"size": 4})
    solved = "lookup:remoteness=0"  # report 001's solved agent played by value alone
    entry = {"first": solved, "second": solved, "start": INITIAL, "games": 10, "first_wins": 9, "draws": 1,
             "second_wins": 0}
    assert _compare(quixo4, ["lookup"], [{**entry, "first": "lookup", "second": "lookup"}]) == []
    rows = {row["seat"]: row for row in _compare(quixo4, [solved], [entry], {solved: 1.0})}
    rates = ("win", "loss", "draw", "games", "value_kept")
    assert rows["first"]["theirs"]["win"] == 1.0
    assert [rows["first"]["ours"][key] for key in rates] == [0.9, 0.0, 0.1, 10, 1.0]
    assert rows["second"]["theirs"]["loss"] == 1.0
    assert [rows["second"]["ours"][key] for key in rates] == [0.0, 0.9, 0.1, 10, 1.0]
    # The verdict `run seeds` gives: the report gives no number of games, so our 9 wins and 1 draw
    # in 10 are tested against their 100% wins as a point, which allows no draw.
    assert rows["first"]["verdict"] == "differs" and rows["first"]["test"]["kind"] == course.OURS_POINT
    assert rows["first"]["test"]["differs"] == ["win", "draw"]
    assert rows["first"]["why"].startswith("Unexplained: differs as their code played them (their win 100.0% vs "
                                           "ours 90.0% (p 0), their draw 0.0% vs ours 10.0% (p 0);")
    assert rows["first"]["seed"].startswith("001") and rows["first"]["where"].startswith("Quixo, Tables 4 and 8")
    # A 5x5 store solved --down-to 23 holds part of the game, whose rules are those of seed 001's 5x5.
    partial = _compare(make_game("quixo", {"size": 5, "down_to": 23}), [solved], [entry])
    assert [row["seat"] for row in partial] == ["either"]
    assert "part of the game (down_to=23)" in partial[0]["notes"][-1]
    assert [entry["version"] for entry in partial[0]["evidence"]] == [course.AS_CODE]
    assert not any("part of the game" in note for row in rows.values() for note in row["notes"])
    # Nim: report 000's rules and random player as its code played them; ours of the same names are
    # other agents.
    faithful = ["rules:preset=000,rule=min-from-highest-row", "random:preset=000"]
    rules = {"first": faithful[0], "second": faithful[1], "start": INITIAL, "games": 4,
             "first_wins": 3, "draws": 0, "second_wins": 1}
    nim = _compare(make_game("nim", NIM), faithful, [rules])
    assert [(r["theirs"]["win"], r["ours"]["win"]) for r in nim] == [(0.80, 0.75)]
    ours = {**rules, "first": "rules:rule=largest-min", "second": "random"}
    assert _compare(make_game("nim", NIM), ["rules:rule=largest-min", "random"], [ours]) == []
    assert _compare(make_game("nim", NIM), [faithful[0], "random"], [{**rules, "second": "random"}]) == []
    # Quarto: seed 002's GA (0.1, 0.2) as its code placed, against random; the hybrid (minimax=1) and
    # our GA of those genes (a win placed first) are other agents.
    theirs = "ga:preset=002,alpha=0.1,beta=0.2"
    ga = {"first": theirs, "second": "random", "start": INITIAL, "games": 10, "first_wins": 8, "draws": 1,
          "second_wins": 1}
    specs = [theirs, "ga:alpha=0.1,beta=0.2", "ga:preset=002,alpha=0.1,beta=0.3,minimax=1", "random"]
    quarto = _compare(make_game("quarto"), specs, [ga, {**ga, "first": "ga:alpha=0.1,beta=0.2"}])
    assert sorted((r["agent"], r["seat"]) for r in quarto) == [(theirs, "either"), (theirs, "first")]
    assert [r["theirs"]["win"] for r in quarto if r["seat"] == "first"] == [0.832]
    misere = make_game("nim", {"heaps": [1, 3, 5, 7], "misere": True})
    assert _compare(misere, faithful, [rules]) == []
    lowest = "rules:preset=000,rule=min-from-lowest-row"
    rows = _compare(make_game("nim", NIM), [lowest, faithful[1]], [{**rules, "first": lowest}])
    assert [(r["their_agents"], r["theirs"]["win"]) for r in rows] == [("pick_minimum_from_lowest_row vs pure_random",
                                                                        0.45)]
