"""The validation report's opening and layout: short names, the summary's findings from the
numbers, capped games apart from real draws, tier groups, long tables collapsed, and links to the
explorer on the trickiest positions alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

from retrograde.agents import Player, ResolvedAgent, parse_spec
from retrograde.validation import report as reports
from retrograde.validation import validate
from retrograde.validation.summary import _trained, findings, short_names


def _resolved(specs: list[str], files: dict[str, list[Path]]) -> list[ResolvedAgent]:
    """The agents as resolved, as far as short names read them: the spec as written and its files."""
    return [ResolvedAgent(parse_spec(spec), Player, None, (), spec, tuple((path, "") for path in files.get(spec, ())))
            for spec in specs]


def test_short_names_are_short_and_unique():
    specs = ["lookup", "minimax:depth=2", "minimax:depth=3", "ga:params=runs/a/ga.json", "ga:params=runs/b/best.json",
             "mcts:iterations=500", "rl:params=rl.npz", "random:preset=000", "greedy"]
    files = {"ga:params=runs/a/ga.json": [Path("runs/a/ga.json")], "ga:params=runs/b/best.json": [Path("runs/b/best.json")],
             "rl:params=rl.npz": [Path("rl.npz")]}
    assert short_names(_resolved(specs, files)) == {
        "lookup": "lookup", "minimax:depth=2": "minimax-d2", "minimax:depth=3": "minimax-d3",
        "ga:params=runs/a/ga.json": "ga-ga", "ga:params=runs/b/best.json": "ga-best", "mcts:iterations=500": "mcts-i500",
        "rl:params=rl.npz": "rl", "random:preset=000": "random-p000", "greedy": "greedy"}
    # the same stem twice: numbered
    same = {"ga:params=a/ga.json": [Path("a/ga.json")], "ga:params=b/ga.json": [Path("b/ga.json")]}
    assert short_names(_resolved(list(same), same)) == {"ga:params=a/ga.json": "ga-ga", "ga:params=b/ga.json": "ga-ga-2"}


def _quality(kept: float, win: float, draw: float) -> dict:
    return {"positions": 100, "value_kept": kept, "win_kept": win, "draw_kept": draw, "mean_remoteness_lost": 0.0,
            "mean_loss_shortfall": 0.0, "win_to_draw": 3, "win_to_loss": 4, "draw_to_loss": 5}


def _report() -> dict:
    """A hand-made report of three agents over two tier groups: every figure below follows from it."""
    agents = {
        "lookup": {"move_quality": _quality(1.0, 1.0, 1.0), "short": "lookup",
                   "by_tier": {"m1o0": {"positions": 40, "value_kept": 1.0}, "m1o1": {"positions": 60, "value_kept": 1.0}}},
        "greedy": {"move_quality": _quality(0.8, 0.9, 0.25), "short": "greedy",
                   "by_tier": {"m1o0": {"positions": 40, "value_kept": 0.95}, "m1o1": {"positions": 60, "value_kept": 0.7}}},
        "random": {"move_quality": _quality(0.5, 0.4, 0.6), "short": "random",
                   "by_tier": {"m1o0": {"positions": 40, "value_kept": 0.5}, "m1o1": {"positions": 60, "value_kept": 0.5}}},
    }
    ratings = {"agents": {"lookup": {"elo": 400.0, "ci95": [350.0, 450.0]}, "greedy": {"elo": 150.0, "ci95": [100.0, 200.0]},
                          "random": {"elo": 0.0, "ci95": [0.0, 0.0]}}}
    tournaments = [{"first": "lookup", "second": "greedy", "start": "initial", "games": 10, "first_wins": 6,
                    "draws": 4, "second_wins": 0, "capped": 3, "first_win_ci95": [0.3, 0.8], "mean_plies": 50.0},
                   {"first": "greedy", "second": "lookup", "start": "initial", "games": 10, "first_wins": 1,
                    "draws": 2, "second_wins": 7, "capped": 0, "first_win_ci95": [0.0, 0.4], "mean_plies": 40.0}]
    return {"agents": agents, "ratings": ratings, "tournaments": tournaments, "max_plies": 200,
            "tiers": {"m1o0": {}, "m1o1": {}}, "tier_groups": {"label": "cubes on the board", "of": {"m1o0": 1, "m1o1": 2}},
            "tier_legend": "m{a}o{b}: a cubes of the mover, b of the opponent"}


def test_findings_follow_from_the_numbers():
    report = _report()
    short = {spec: entry["short"] for spec, entry in report["agents"].items()}
    found = findings(report, short, {spec: spec for spec in report["agents"]})
    # random is the floor: greedy is the best imperfect agent and has the weakness (25% of draws)
    assert found[0] == "Best imperfect agent: greedy keeps the value in 80.0% of positions; rated +150 [+100, +200]."
    assert found[1].startswith("Biggest weakness: greedy keeps only 25.0% of the draws")
    # greedy keeps 95% with 1 cube and 70% with 2: (40*.95+60*.7)/100 = 80% overall
    assert found[2] == ("Agents blunder most with 2 cubes on the board: together they keep the value in 70.0% of "
                        "those positions, against 80.0% overall.")
    assert found[3].startswith("3 of 20 tournament games reached the 200-ply cap")


def test_capped_games_are_shown_apart_from_real_draws():
    report = _report()
    head, rows = reports.tournament_table(report)
    row = dict(zip(head, rows[0]))
    assert (row["draws"], row["capped"], row["first wins"]) == ("1", "3", "6")
    head, rows = reports.tournament_matrix(report)
    # lookup against greedy over both seats: 6+7 wins, 4+2 draws, 0+1 losses of 20: (13 + 3) / 20 = 80%
    assert rows[0][head.index("greedy")] == "80% 13-6-1"
    assert rows[1][head.index("lookup")] == "20% 1-6-13"


def test_a_solved_quixo_report_groups_tiers_and_collapses_long_tables(solved, tmp_path):
    out = tmp_path / "q3"
    validate(solved("quixo", {"size": 3}), out, "lookup,random,greedy", games=2, positions=400, seed=1, quiet=True)
    data = json.loads((out / "report.json").read_text())
    groups = data["tier_groups"]
    assert groups["label"] == "cubes on the board"
    assert all(groups["of"][name] == sum(map(int, re.findall(r"\d+", name))) for name in groups["of"])
    assert data["summary"]["value"] in ("win", "loss", "draw") and len(data["summary"]["ranking"]) == 3
    page = (out / "report.html").read_text()
    # the tier table (more tiers than groups) opens as groups, its full rows collapsed
    tiers_section = page[page.index("<h2>Value kept by tier"):]
    assert "<th>cubes on the board</th>" in tiers_section and "<details><summary>All " in tiers_section
    assert "Tiers: m{a}o{b}" in page[:page.index("How this was measured")]
    # text cells are left-aligned (the style), numbers right
    assert "text-align:left" in page and '<td class="num">' in page


def test_the_report_opens_with_its_answer_and_fits_1280_px(solved, tmp_path, browser):
    """In a real browser at 1280x800: the value, the ranking and the findings are on the first
    screen, and no table or plot makes the page wider than the window."""
    out = tmp_path / "ttt"
    report = validate(solved("tictactoe"), out, "lookup,random,greedy,minimax:depth=2", games=4, positions=300,
                      seed=2, quiet=True)
    browser.set_window_size(1280, 800)
    browser.get((out / "report.html").as_uri())
    width = browser.execute_script("return window.innerWidth")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    answer = browser.find_element("css selector", ".answer")
    assert answer.text == report["summary"]["answer"] == "A draw with perfect play."
    height = browser.execute_script("return window.innerHeight")
    for selector in (".answer", ".top table", ".top ul"):
        bottom = browser.execute_script(f"return document.querySelector('{selector}').getBoundingClientRect().bottom")
        assert bottom <= height, f"{selector} ends at {bottom} px, below the first screen ({height} px)"
    ranked = browser.find_elements("css selector", ".top table tr")
    assert len(ranked) == 1 + 4 and ranked[1].text.split()[:2] == ["1", "lookup"]


def test_a_store_without_the_start_says_its_value_is_unknown(solved, tmp_path):
    """A --down-to store does not hold the start position: the summary says so, and why."""
    out = tmp_path / "down-to"
    report = validate(solved("quixo", {"size": 4, "down_to": 15}), out, "lookup,random", games=2, positions=200,
                      seed=3, quiet=True)
    # the games start from positions the store holds: 15 cubes (its first tiers), none from the start
    assert {entry["start"] for entry in report["tournaments"]} == {"openings"}
    played = report["openings"]
    assert played["played"] == 2 and sum(entry["count"] for entry in played["most_played"]) == 2
    assert all(sum(cell != "." for cell in entry["opening"].split()[0].replace("/", "")) == 15
               for entry in played["most_played"])
    data = report["summary"]
    assert data["value"] is None and data["remoteness"] is None
    assert data["why_unknown"] == "its start position (tier m0o0) is not in this store"
    assert data["answer"] == f"The value of the start position is unknown here: {data['why_unknown']}."
    assert data["answer"] in (out / "report.md").read_text()


def test_only_tables_of_positions_link_to_the_explorer():
    """validation/report.py: a table of positions (the trickiest, an agent's worst) links each
    position of its first column to the explorer (its text URL-quoted); no other table does."""
    head, rows = ["position", "value", "agents"], [["x.o/.../... x", "win", "random"]]
    tricky = reports._html_section(reports.Section("Trickiest positions", head, rows, links=0))
    other = reports._html_section(reports.Section("Positions", head, rows))
    assert f'<a href="{reports.EXPLORER}x.o/.../...%20x">' in tricky
    assert "<a href" not in other


def test_the_trained_finding_names_who_beats_the_best_baseline():
    """validation/summary.py: with two trained agents (ga keeps 80% of values, rl 50%) against
    greedy (60%, the best imperfect baseline) and random (30%, the floor), the finding says ga
    is above the best baseline, with each figure and rating."""
    kept = {"ga": 0.8, "rl": 0.5, "greedy": 0.6, "random": 0.3}
    elo = {"ga": 120.0, "rl": -10.0, "greedy": 40.0, "random": -150.0}
    report = {"agents": {spec: {"move_quality": {"value_kept": v}} for spec, v in kept.items()},
              "training": {"ga": {}, "rl": {}},
              "ratings": {"agents": {spec: {"elo": e} for spec, e in elo.items()}}}
    assert _trained(report, {spec: spec for spec in kept}, {spec: spec for spec in kept}) == (
        "Trained agents (value kept, rating): ga 80.0%, +120; rl 50.0%, -10: ga above the best baseline "
        "(best baseline greedy 60.0%, +40; floor random 30.0%, -150).")


def test_an_agents_own_section_gives_its_interval_forfeits_and_games():
    """validation/report.py: greedy's section in the hand-made report: value kept with its
    interval, where it errs (2 cubes: 70%, then 1 cube: 95%), its forfeits in move quality and
    in games (3 moving first against lookup, 2 moving second), and its score against lookup over
    both seats: 1 win, 2+4 draws, 7+6 losses of 20 games = (1 + 3) / 20 = 20%."""
    report = _report()
    report["agents"]["greedy"]["move_quality"] |= {"value_kept_ci95": [0.712, 0.866], "forfeits": {"timeout": 4}}
    report["tournaments"][0]["forfeits"] = {"first": {}, "second": {"died": 2}}
    report["tournaments"][1]["forfeits"] = {"first": {"exception": 1, "died": 2}, "second": {}}
    head, rows = reports.agent_table(report, "greedy")
    row = dict(rows)
    assert head == ["", "greedy"]
    assert row["value kept"] == "80.0% [71.2, 86.6]"
    assert row["where it errs most"] == ("2 cubes on the board: 70.0% of 60 positions; "
                                         "1 cubes on the board: 95.0% of 40 positions")
    assert row["forfeits"] == "timeout 4 of its moves measured; exception 1, died 4 of its games"
    assert row["against lookup"] == "20% 1-6-13"
    assert "against random" not in row  # no games between them
    assert row["rating"] == "+150 [+100, +200]"
