"""Validation: exact move quality, tournaments, ratings and the report (issue 9).

References here are independent of the code under test: positions are enumerated by
playing the rules (game.moves) from the start, values read with probing, intervals and
strengths checked against hand-computed values and simulated games."""

from __future__ import annotations

import json
import re
import math
from collections import Counter, deque

import numpy as np
import pytest

import quixo_reference as qref
import reference as ref

from retrograde import outcome as oc
from retrograde.agents import ResolvedAgent, build_agent, resolve_agent
from retrograde.errors import BadAgent
from retrograde.data.probing import values
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor, open_executor
from retrograde.pipeline.stages import plan_stage
from retrograde.training import train
from retrograde.data.artifact import read_metadata
from retrograde.validation import play_match, validate
from retrograde.validation.artifacts import read_curve
from retrograde.validation.published import compare
from retrograde.validation.quality import MIN_PER_TIER, measure, select_positions
from retrograde.validation.rating import ELO, ratings, wilson
from retrograde.validation.stage import consistency_checks
from retrograde.validation.tournament import INITIAL, Pairing, run_tournament

NIM = {"heaps": [1, 3, 5, 7]}


def resolved(game, specs) -> list[ResolvedAgent]:
    """The agents `specs` name, resolved for `game` (as the validate stage does at its start)."""
    return [resolve_agent(spec, game) for spec in specs]


def reachable(game) -> list:
    """Every position reachable from the start by the rules (breadth first)."""
    seen, queue = {game.initial_position}, deque([game.initial_position])
    while queue:
        for _, child in game.moves(queue.popleft()):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return list(seen)


# --- move quality ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, params, limit", [("tictactoe", None, 100_000), ("nim", NIM, 100_000),
                                                 ("quixo", {"size": 3}, 600)])
def test_lookup_keeps_every_value_at_perfect_remoteness(open_solved, name, params, limit):
    store = open_solved(name, params)
    result = measure(store, resolved(store.game, ["lookup"]), positions=limit, seed=3, executor=InProcessExecutor(), quiet=True)
    quality = result["agents"]["lookup"]["move_quality"]
    assert quality["positions"] > 0
    assert quality["value_kept"] == 1.0 and quality["win_kept"] == 1.0
    assert quality["draw_kept"] == (1.0 if quality["drawn"] else None)
    assert quality["drawn"] > 0 if name == "tictactoe" else quality["drawn"] == 0  # nim, 3x3 quixo: no draws
    assert quality["mean_remoteness_lost"] == 0.0 and quality["mean_loss_shortfall"] == 0.0
    assert all(t["value_kept"] == 1.0 for t in result["agents"]["lookup"]["by_tier"].values())


def test_random_agent_keeps_values_as_often_as_theory_says(open_solved):
    """Over every tic-tac-toe position, the measured share of kept values equals, within
    sampling error, the exact mean over positions of (moves keeping the value / moves)."""
    store = open_solved("tictactoe")
    game = store.game
    positions = [p for p in reachable(game) if not game.primitive(p)]
    own = values(store, positions)
    children = [[child for _, child in game.moves(p)] for p in positions]
    child_values = iter(values(store, [c for cs in children for c in cs]))
    flip = {oc.WIN: oc.LOSS, oc.LOSS: oc.WIN, oc.DRAW: oc.DRAW}
    keep = np.array([np.mean([flip[next(child_values).outcome] == value.outcome for _ in cs])
                     for value, cs in zip(own, children)])
    won = np.array([value.outcome == oc.WIN for value in own])

    result = measure(store, resolved(store.game, ["random"]), positions=100_000, seed=11, executor=InProcessExecutor(), quiet=True)
    quality = result["agents"]["random"]["move_quality"]
    # The store keeps one position per symmetry class; each measured one stands for its class, whose
    # members share its share of kept values (the reference's own symmetry rule groups them).
    representative = np.array([ref.ttt_representative(ref.ttt_from_masks(*p)) for p in positions])
    assert quality["positions"] == len(set(representative)) == 627 and len(positions) == 4520
    for measured, where in ((quality["value_kept"], np.ones(len(keep), dtype=bool)), (quality["win_kept"], won)):
        kept = dict(zip(representative[where], keep[where]))
        size = Counter(representative[where])
        q, w = np.array(list(kept.values())), np.array([size[r] for r in kept])
        sigma = math.sqrt((w ** 2 * q * (1 - q)).sum()) / w.sum()
        assert abs(measured - keep[where].mean()) < 5 * sigma, (measured, keep[where].mean(), sigma)
    assert quality["draw_kept"] < 1 and quality["mean_remoteness_lost"] > 0


def test_large_stores_are_sampled_per_tier(open_solved):
    store = open_solved("quixo", {"size": 3})
    selection = select_positions(store, 1_000, seed=5)
    assert not selection.exhaustive
    assert 1_000 <= len(selection) <= 1_000 + MIN_PER_TIER * len(selection.tiers)
    for t, name in enumerate(selection.tiers):
        assert (selection.tier_of == t).sum() == min(selection.candidates[name], max(
            MIN_PER_TIER, int(1_000 * selection.candidates[name] / sum(selection.candidates.values()))))
    # A sampled position stands for its symmetry class (the reference's images), times the stored
    # positions of its tier per sampled one; the weights estimate the game's non-terminal boards.
    for t, name in enumerate(selection.tiers):
        rows = selection.tier_of == t
        per = selection.candidates[name] / max(int(rows.sum()), 1)
        for index, weight in zip(selection.index[rows].tolist(), selection.weight[rows].tolist()):
            board = qref.normalised(store.game.format(store.game.position_at(store.game.tier(name), index)))
            assert weight == pytest.approx(len(set(qref.images(board))) * per)
    boards = sum(qref.terminal_value(board) is None for board in qref.all_boards(3))
    assert abs(selection.weight.sum() - boards) < 0.1 * boards
    again = select_positions(store, 1_000, seed=5)
    assert np.array_equal(again.index, selection.index) and np.array_equal(again.tier_of, selection.tier_of)


# --- intervals and ratings ---------------------------------------------------------------------
def test_wilson_interval_known_values():
    # hand-computed: 0 of 10 -> [0, z²/(n+z²)]; 5 of 10 -> 0.5 ± 0.2634; 10 of 10 mirrors 0 of 10
    assert wilson(0, 10) == pytest.approx((0.0, 3.841459 / 13.841459), abs=1e-6)
    assert wilson(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    assert wilson(10, 10) == pytest.approx((1 - 3.841459 / 13.841459, 1.0), abs=1e-6)
    assert wilson(10, 10)[1] == 1.0 and wilson(0, 10)[0] == 0.0  # exact, not 0.9999999999999999
    # 81 of 263 by hand: centre (p + z²/2n)/(1 + z²/n) = 0.310744, half-width 0.055460
    assert wilson(81, 263) == pytest.approx((0.255284, 0.366204), abs=2e-5)


def test_bradley_terry_recovers_known_strengths():
    names = ["random", "a", "b", "c"]
    true = np.array([0.0, 150.0, 300.0, 600.0])
    rng = np.random.default_rng(7)
    entries = []
    for i, first in enumerate(names):
        for j, second in enumerate(names):
            if i != j:
                p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
                wins = int(rng.binomial(3000, p))
                entries.append({"first": first, "second": second, "first_wins": wins, "draws": 0,
                                "second_wins": 3000 - wins})
    fitted = ratings(names, entries, seed=1, bootstrap=40)
    for name, want in zip(names, true):
        got = fitted["agents"][name]
        assert got["elo"] == pytest.approx(want, abs=25)
        assert got["ci95"][0] <= got["elo"] <= got["ci95"][1]
    assert fitted["agents"]["random"]["elo"] == 0.0 and ELO == pytest.approx(173.7178, abs=1e-4)


# --- tournaments ---------------------------------------------------------------------------------
def test_tournament_results_do_not_depend_on_workers(solved):
    from retrograde.data.store import Store

    with Store.open(solved("tictactoe")) as store:
        agents = resolved(store.game, ["random", "lookup"])
        plan = [Pairing(a, b, INITIAL, 25) for a in agents for b in agents]
        alone = run_tournament(store.game, store, plan, seed=4, executor=InProcessExecutor(), max_plies=10,
                               quiet=True)
        with open_executor(workers=2) as executor:
            cluster = run_tournament(store.game, store, plan, seed=4, executor=executor, max_plies=10, quiet=True)
    assert alone == cluster
    by_pair = {(e["first"], e["second"]): e for e in alone}
    assert by_pair["lookup", "lookup"]["draws"] == 25  # tic-tac-toe is a draw
    assert by_pair["random", "lookup"]["first_wins"] == 0 and by_pair["lookup", "random"]["second_wins"] == 0


def test_play_match_plays_both_seats_from_a_given_start():
    game = make_game("nim", NIM)
    start = game.parse("0,0,0,2")  # the mover takes both and wins
    result = play_match("expert", "random", game, games=7, seed=2, start=start)
    a_first, b_first = result["tournaments"]
    assert (a_first["first"], a_first["second"], a_first["games"]) == ("expert", "random", 7)
    assert (b_first["first"], b_first["second"]) == ("random", "expert")
    assert a_first["first_wins"] == 7
    assert 0 < b_first["first_wins"] < 7  # random takes both with probability 1/2
    assert a_first["first_win_ci95"] == list(wilson(7, 7))


# --- consistency checks and the seeds' figures -------------------------------------------------
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


def test_report_holds_the_learning_curves_train_writes(solved, tmp_path):
    """Artifacts `train` wrote with a store and checkpoints: the report draws their curves, the
    step being the units trained (generations, episodes), the value kept as measured then."""
    store = solved("nim", NIM)
    ga = train("ga:population=3,offspring=3,generations=3,games=2,every=1", "nim --heaps 1,3,5,7",
               tmp_path / "ga.json", seed=1, store=store)
    rl = train("rl:episodes=300,every=100", "nim --heaps 1,3,5,7", tmp_path / "rl.npz", seed=1, store=store)
    unmeasured = train("rl:episodes=20,every=10", "nim --heaps 1,3,5,7", tmp_path / "bare.npz", seed=1)
    specs = [f"ga:params={ga}", f"rl:params={rl}", f"rl:params={unmeasured}"]
    report = validate(store, tmp_path / "report", ",".join(["random", *specs]), games=2, positions=200, seed=1,
                      quiet=True)
    curves = json.loads((tmp_path / "report" / "report.json").read_text())["learning_curves"]
    assert curves == json.loads(json.dumps(report["learning_curves"]))
    steps = {specs[0]: ("generations", [1, 2, 3]), specs[1]: ("episodes", [100, 200, 300])}
    assert list(curves) == list(steps)  # an artifact trained without a store has no curve
    for (spec, (unit, expected)), path in zip(steps.items(), (ga, rl)):
        written = read_metadata(path)["learning_curve"]
        assert [point[unit] for point in written] == expected
        assert curves[spec] == [{"step": point[unit], "value_kept": point["value_kept"]} for point in written]
    assert 'alt="Learning curves"' in (tmp_path / "report" / "report.html").read_text()
    # the GA's fitness by generation (report 001's Figure 1), as its artifact recorded it
    fitness = json.loads((tmp_path / "report" / "report.json").read_text())["fitness_curves"]
    assert list(fitness) == [specs[0]] and [point["generation"] for point in fitness[specs[0]]] == [1, 2, 3]
    assert [point["best"] for point in fitness[specs[0]]] == [p["best_fitness"] for p in read_metadata(ga)["learning_curve"]]
    assert all(point["mean"] <= point["best"] for point in fitness[specs[0]])
    assert 'alt="GA fitness by generation"' in (tmp_path / "report" / "report.html").read_text()
    trained = json.loads((tmp_path / "report" / "report.json").read_text())["training"]
    assert list(trained) == specs  # every artifact says how it learnt, measured or not
    assert trained[specs[0]].startswith("GA, 3 generations of 3 + 3; fitness exact: the share of a sample of 2,000")
    assert trained[specs[1]].startswith("Q-learning, 300 episodes against self, alpha 0.1")
    assert "## Training" in (tmp_path / "report" / "report.md").read_text()


def test_a_report_does_not_depend_on_where_its_artifacts_lie(solved, tmp_path):
    """The same artifacts copied to another folder give the same report.json, but for the text
    of the paths (SPEC §6 specs name them)."""
    store = solved("nim", NIM)
    trained = {"ga": train("ga:population=3,offspring=3,generations=2,games=2", "nim --heaps 1,3,5,7",
                           tmp_path / "ga.json", seed=1),
               "rl": train("rl:episodes=100", "nim --heaps 1,3,5,7", tmp_path / "rl.npz", seed=1)}
    texts = []
    for place in ("here", "elsewhere/deeper"):
        folder = tmp_path / place
        folder.mkdir(parents=True)
        paths = {name: folder / f"copy-{name}{path.suffix}" for name, path in trained.items()}
        for name, path in paths.items():
            path.write_bytes(trained[name].read_bytes())
        specs = ["random", f"ga:params={paths['ga']}", f"rl:params={paths['rl']}"]
        validate(store, folder / "report", ",".join(specs), games=6, positions=200, seed=3, quiet=True)
        text = (folder / "report" / "report.json").read_text()
        for name, path in paths.items():
            text = text.replace(str(path), name.upper())
        texts.append(text.replace(str(folder), "FOLDER"))
    assert "GA" in texts[0] and texts[0] == texts[1]


def test_learning_curves_are_read_defensively(tmp_path):
    point = {"generations": 1, "best_fitness": 0.5, "value_kept": 0.5}
    document = {"format": "retrograde-training", "learner": "ga", "learning_curve": [point]}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document))
    assert read_curve(good) == [{"step": 1.0, "value_kept": 0.5}]
    out_of_range = [point, {**point, "generations": 2, "value_kept": 1.5}, {**point, "generations": 3,
                                                                            "value_kept": float("nan")}]
    (tmp_path / "latin.json").write_bytes(b"\xff")
    assert read_curve(tmp_path / "latin.json") is None
    for text in ("not json", json.dumps([1, 2]), json.dumps({**document, "format": "other"}),
                 json.dumps({**document, "learner": "xx"}), json.dumps({**document, "learner": ["ga"]}),
                 json.dumps({**document, "learning_curve": 3}), json.dumps({**document, "learning_curve": [7]}),
                 json.dumps({**document, "learning_curve": [{"value_kept": 0.5}]}),
                 json.dumps({**document, "learning_curve": [{**point, "value_kept": "x"}]}),
                 json.dumps({**document, "learning_curve": [{**point, "value_kept": 2}]})):
        (tmp_path / "bad.json").write_text(text)
        assert read_curve(tmp_path / "bad.json") is None, text
    (tmp_path / "mixed.json").write_text(json.dumps({**document, "learning_curve": out_of_range}))
    assert read_curve(tmp_path / "mixed.json") == [{"step": 1.0, "value_kept": 0.5}]  # bad points are dropped
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npz").write_bytes((tmp_path / "array.npy").read_bytes())
    np.savez(tmp_path / "plain.npz", q=np.zeros(3))
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "folder.npz").mkdir()
    for name in ("array.npz", "plain.npz", "empty.npz", "folder.npz", "missing.npz"):
        assert read_curve(tmp_path / name) is None, name


# --- the report and the command ----------------------------------------------------------------
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


def test_match_command(solved, cli):
    code, stdout, stderr = cli("match", "lookup", "random", "--store", str(solved("tictactoe")), "--games", "6",
                               "--json", "--quiet")
    assert code == 0, stderr
    result = json.loads(stdout)
    assert [(t["first"], t["games"]) for t in result["tournaments"]] == [("lookup", 6), ("random", 6)]
    assert result["tournaments"][1]["first_wins"] == 0
    code, _, stderr = cli("match", "lookup", "random", "--game", "tictactoe")
    assert code == 2 and "store" in stderr


def test_minimax_reads_the_store_only_when_its_spec_asks(open_solved):
    """validate hands every agent the store; minimax must measure its own search unless told."""
    store = open_solved("tictactoe")
    assert build_agent("lookup", store.game, seed=0, store=store).store is store
    assert build_agent("minimax:depth=1", store.game, seed=0, store=store).store is None  # would play perfectly
    assert build_agent("minimax:depth=1,tablebase=1", store.game, seed=0, store=store).store is store
    with pytest.raises(BadAgent, match="tablebase=1 reads a solved store"):
        build_agent("minimax:tablebase=1", store.game, seed=0)


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


# --- figures pinned by independent computations (issue 26) ------------------------------------
def _ttt_text(board: str) -> str:
    return "/".join(board[row * 3:row * 3 + 3] for row in range(3))


def _replayed_figures(game, spec: str) -> dict[str, dict[str, float]]:
    """The move-quality figures of a deterministic agent over every non-terminal tic-tac-toe
    board, from the reference alone: the agent only names its move in each class's
    representative (the board the store keeps), the reference gives every value, and each
    board counts once (`weighted`) or each symmetry class once (`classes`)."""
    flip = {ref.WIN: ref.LOSS, ref.LOSS: ref.WIN, ref.DRAW: ref.DRAW}
    agent = build_agent(spec, game, seed=0)
    boards = [board for board in ref.ttt_reachable() if not ref.ttt_is_terminal(board)]
    chosen = {}  # representative -> (outcome, remoteness, chosen outcome, chosen remoteness)
    for rep in {ref.ttt_representative(board) for board in boards}:
        move, _ = agent.choose(game.parse(_ttt_text(rep)))
        cell = (int(move[1]) - 1) * 3 + "abc".index(move[0])
        assert rep[cell] == "."
        child = ref.ttt_value(rep[:cell] + ref.ttt_to_move(rep) + rep[cell + 1:])
        chosen[rep] = (*ref.ttt_value(rep), flip[child[0]], child[1] + 1)

    def figures(rows):
        rows = np.array(rows)
        outcome, remoteness, chosen_outcome, chosen_remoteness = rows.T
        won, lost = outcome == ref.WIN, outcome == ref.LOSS
        won_kept = won & (chosen_outcome == ref.WIN)
        return {"value_kept": float(np.mean(chosen_outcome == outcome)),
                "win_kept": float(np.mean(chosen_outcome[won] == ref.WIN)),
                "mean_remoteness_lost": float(np.mean((chosen_remoteness - remoteness)[won_kept])),
                "mean_loss_shortfall": float(np.mean((remoteness - chosen_remoteness)[lost]))}

    return {"weighted": figures([chosen[ref.ttt_representative(board)] for board in boards]),
            "classes": figures(list(chosen.values()))}


def test_move_quality_weighs_each_class_by_its_boards(open_solved):
    """Exhaustive move quality on tic-tac-toe is the mean over all 4,520 non-terminal boards,
    not over the 627 classes the store keeps: for two deterministic agents every figure equals
    the reference's board-weighted one, which differs from the class mean by far more than the
    tolerance. The loss shortfall (slowest loss's remoteness minus the chosen loss's) is
    positive for minimax at depth 1."""
    store = open_solved("tictactoe")
    specs = ["minimax:depth=1,ties=first", "minimax:depth=2,eval=zero,ties=first"]
    result = measure(store, resolved(store.game, specs), positions=100_000, seed=3, executor=InProcessExecutor(), quiet=True)
    expected = {spec: _replayed_figures(store.game, spec) for spec in specs}
    for spec in specs:
        measured = result["agents"][spec]["move_quality"]
        for name, value in expected[spec]["weighted"].items():
            assert measured[name] == pytest.approx(value, rel=1e-12, abs=1e-12), (spec, name)
    assert expected[specs[0]]["weighted"]["mean_loss_shortfall"] > 0.1
    for spec, name in ((specs[0], "mean_loss_shortfall"), (specs[1], "value_kept")):
        assert abs(expected[spec]["weighted"][name] - expected[spec]["classes"][name]) > 1e-3, (spec, name)


#: Tic-tac-toe openings of 2 to 4 plies (not over), with values the reference gives: wins,
#: losses and draws at several remoteness.
OPENINGS_BY_HAND = (".x.....o.", ".o..x....", ".x.ox....", "..x.o.x..", "...xox...", ".o.xox...",
                    "..xx..o.o", "..ox.xo..", "..xx...oo", "..xx..oo.", ".xox....o", "..xx.o..o")


def test_games_of_an_openings_pairing_start_from_the_openings(open_solved):
    """Lookup against lookup from each opening plays it out perfectly: the side to move there
    (`first`) gets the opening's value, after its remoteness in plies (a draw fills the board).
    From the start every game would be a 9-ply draw. Twelve openings: two batches of games."""
    from retrograde.validation.tournament import OPENINGS

    store = open_solved("tictactoe")
    game = store.game
    openings = [game.parse(_ttt_text(board)) for board in OPENINGS_BY_HAND]
    (entry,) = run_tournament(game, store, [Pairing(*resolved(game, ["lookup", "lookup"]), OPENINGS, len(openings))], seed=2,
                              executor=InProcessExecutor(), max_plies=10, openings=openings, quiet=True)
    values = [ref.ttt_value(board) for board in OPENINGS_BY_HAND]
    plies = [remoteness if outcome != ref.DRAW else board.count(".")
             for board, (outcome, remoteness) in zip(OPENINGS_BY_HAND, values)]
    outcomes = Counter(outcome for outcome, _ in values)
    assert outcomes[ref.WIN] and outcomes[ref.LOSS] and outcomes[ref.DRAW]
    assert (entry["games"], entry["first_wins"], entry["draws"], entry["second_wins"]) == (
        len(openings), outcomes[ref.WIN], outcomes[ref.DRAW], outcomes[ref.LOSS])
    assert entry["mean_plies"] == pytest.approx(np.mean(plies), abs=0.005)
