"""`retrograde run seeds`: the course reports' figures played again, with a verdict on each.

The verdicts are checked against Wilson intervals computed here by hand; the run is checked
end to end on report 000's rows (Nim's fixed rules as its code ran them, and its Quarto GA). The
summary line counts the verdicts. The course reports' published figures are set beside ours
by seat, and a report's agent is matched only by a spec of ours (validation/published.py)."""

from __future__ import annotations

import json
import math

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


def interval(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def figure(win, draw, loss, games, seat="first"):
    return course.ReportFigure("nim", Figure({"heaps": [1, 3, 5, 7]}, AgentRef("theirs", "rules", (("rule", "fixed"),)),
                                          AgentRef("pure_random", "random", (("preset", "000"),)), seat, win, loss,
                                          draw, games, "000_x.txt, Table 9 (a note)"))


def test_a_figure_is_reproduced_when_each_rate_it_gives_lies_in_our_interval():
    ours = course.ours(153, 0, 47, None)
    assert ours["win_ci95"] == pytest.approx(interval(153, 200)) and ours["loss"] == 47 / 200
    row = course.row(figure(0.80, 0.0, 0.20, 100), ours)
    assert (row["seed"], row["where"], row["verdict"], row["why"]) == ("000_x.txt", "Table 9 (a note)", "reproduced",
                                                                        None)
    assert row["agent"] == "rules:rule=fixed" and row["opponent"] == "random:preset=000"
    # A rate the report leaves out (None) is not held to anything.
    assert course.row(figure(0.80, None, None, 100), ours)["verdict"] == "reproduced"


def test_a_figure_not_reproduced_says_why_from_both_samples():
    low, high = interval(120, 200)  # ours: 60% wins
    small = course.row(figure(0.70, 0.0, 0.30, 100), course.ours(120, 0, 80, None))
    assert small["verdict"] == "not reproduced"
    assert f"their win rate 70.0% lies outside our 95% interval [{low:.1%}, {high:.1%}] over 200 games" in small["why"]
    assert "overlaps ours: their sample was small" in small["why"]
    far = course.row(figure(0.95, 0.0, 0.05, 1000), course.ours(120, 0, 80, None))
    assert "does not overlap ours: their agents, opponents or rules differ" in far["why"]
    unknown = course.row(figure(0.95, 0.0, 0.05, None), course.ours(120, 0, 80, None))
    assert unknown["verdict"] == "not reproduced" and "their own interval" not in unknown["why"]


def test_the_games_as_their_text_names_the_agents_say_which_version_made_the_figure():
    theirs = figure(0.80, 0.0, 0.20, 100)
    code, text = course.ours(160, 0, 40, None), course.ours(100, 0, 100, None)
    as_text = {"agent": "rules:rule=largest-min", "opponent": "random", "ours": text}
    reproduced = course.row(theirs, code, as_text=as_text)
    assert reproduced["verdict"] == "reproduced" and reproduced["why"] is None
    assert "does not: their code, not their text, made their figure." in reproduced["notes"][-1]
    assert "50.0% / 0.0% / 50.0% over 200" in reproduced["notes"][-1]
    flipped = course.row(theirs, text, as_text={**as_text, "ours": code})
    assert flipped["verdict"] == "not reproduced"
    assert flipped["why"].endswith("reproduces it: their figure matches their text, not their code.")
    assert flipped["as_text"]["ours"] == code


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
    assert {row["seed"][:3] for row in rows} == {"000"} and len(rows) == 10
    (evolved,) = [row for row in rows if row["verdict"] == "not run"]  # its GA trains for minutes: skipped here
    assert "ga:preset=000" in evolved["why"] and "--skip-training" in evolved["why"] and evolved["ours"] is None
    assert not (folder / "artifacts").exists()
    rows = [row for row in rows if row is not evolved]
    for row in rows:
        assert set(row) >= {"seed", "where", "game", "agent", "opponent", "seat", "theirs", "ours", "verdict", "why"}
        assert row["verdict"] in ("reproduced", "not reproduced") and row["ours"]["games"] >= 200
        assert (row["why"] is None) == (row["verdict"] == "reproduced")
    nim = [row for row in rows if row["game"] == "nim"]
    assert all(row["ours"]["value_kept"] is not None for row in nim)  # Nim 1,3,5,7 is solved for the audit
    assert sum(row["verdict"] == "reproduced" for row in nim) >= 6  # as their code played, the figures hold
    highest = next(row for row in nim if "rule=min-from-highest-row" in row["agent"])
    assert highest["as_text"]["agent"] == "rules:rule=largest-min" and highest["as_text"]["opponent"] == "random"
    assert highest["as_text"]["ours"]["games"] == highest["ours"]["games"]
    assert any("As their text names the agents" in text for text in [highest["why"] or "", *highest["notes"]])
    assert {"report.md", "report.html"} <= {path.name for path in folder.iterdir()}
    again = run_cli("run", "seeds", "--only", "000", "--out", str(tmp_path), "--workers", "0", "--skip-training")
    assert again.returncode == 0 and "tournament" not in again.stderr  # every row was done: none is played
    assert json.loads((folder / "report.json").read_text()) == document


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
    rows = json.loads((tmp_path / "seeds" / "report.json").read_text())["rows"]
    assert len(rows) == 4 and all(row["ours"]["games"] == 200 and row["seat"] == "either" for row in rows)
    assert {row["agent"] for row in rows} == {"rules:preset=003", "ga:preset=003"}
    against_optimal = [row for row in rows if row["opponent"] == "expert:preset=003"]
    assert [row["verdict"] for row in against_optimal] == ["reproduced", "reproduced"]
    assert sum(row["verdict"] == "reproduced" for row in rows) >= 3


def test_trained_agents_are_trained_once_as_the_report_trained_and_found_again(tmp_path):
    """A report's trained agent (`AgentRef.learner`) gets an artifact in DIR/seeds/artifacts, named
    from its game, settings and seed: trained on the first run, found (not retrained) on the next;
    the row shows the artifact's path relative to the report's folder."""
    from contextlib import ExitStack

    from retrograde.games import make_game
    from retrograde.pipeline.executors import open_executor
    from retrograde.pipeline.solve import SolveOptions
    from retrograde.workflows.course import Artifacts, Stores, _row

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
        row = _row(ttt, stores, artifacts, executor, quiet=True)
    settings = json.loads(str(np.load(artifact)["metadata"]))["settings"]
    assert settings["rewards"] == "10/-10/3" and settings["episodes"] == 300
    assert row["agent"] == f"rl:params=artifacts/{artifact.name}" and row["ours"]["games"] == 200
    assert row["ours"]["value_kept"] is not None  # tic-tac-toe is solved for the audit
    other = Artifacts(tmp_path / "artifacts", stores).path("rl:episodes=301,opponent=random", make_game("tictactoe"))
    assert other[0] != artifact  # other settings, another artifact


def test_the_seeds_summary_counts_each_verdict():
    """validation/course.py: the summary line counts the rows of each verdict."""
    rows = [{"verdict": "reproduced"}, {"verdict": "not run"}, {"verdict": "reproduced"}]
    assert course.summary(rows) == "3 published figures: 2 reproduced, 0 not reproduced, 1 not run"


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
    # The verdict `run seeds` gives: neither their 100% wins nor their 0% draws lie in our intervals
    # of 9 wins and 1 draw in 10 games; the report gives no number of games.
    assert rows["first"]["verdict"] == "not reproduced"
    assert rows["first"]["why"] == ("their win rate 100.0% lies outside our 95% interval [59.6%, 98.2%] over 10 "
                                    "games; their draw rate 0.0% lies outside our 95% interval [1.8%, 40.4%] over "
                                    "10 games.")
    assert rows["first"]["seed"].startswith("001") and rows["first"]["where"].startswith("Quixo, Tables 4 and 8")
    # A 5x5 store solved --down-to 23 holds part of the game, whose rules are those of seed 001's 5x5.
    partial = _compare(make_game("quixo", {"size": 5, "down_to": 23}), [solved], [entry])
    assert [row["seat"] for row in partial] == ["either"]
    assert "part of the game (down_to=23)" in partial[0]["notes"][-1]
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
    assert sorted((r["agent"], r["seat"], r["theirs"]["win"]) for r in quarto) == [
        (theirs, "either", 0.82), (theirs, "first", 0.832)]
    misere = make_game("nim", {"heaps": [1, 3, 5, 7], "misere": True})
    assert _compare(misere, faithful, [rules]) == []
    lowest = "rules:preset=000,rule=min-from-lowest-row"
    rows = _compare(make_game("nim", NIM), [lowest, faithful[1]], [{**rules, "first": lowest}])
    assert [(r["their_agents"], r["theirs"]["win"]) for r in rows] == [("pick_minimum_from_lowest_row vs pure_random",
                                                                        0.45)]
