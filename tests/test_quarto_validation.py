"""Quarto validated without a store: positions sampled from baseline games, each solved by exact
search, against the slow reference (tests/quarto_reference.py, which imports nothing of ours);
the placement/piece blunder split; the report; bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

import quarto_reference as ref
from retrograde.agents import resolve_agent
from retrograde.errors import BadOption
from retrograde.games import make_game
from retrograde.games.quarto.game import random_position
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.worker import WorkerState
from retrograde.validation import sampled

#: Late tiers (5 and 4 empty cells) the reference solves in moments.
LATE = ("p11", "p12")
#: Reference outcome of a child (its side to move) -> the mover's outcome, and sampled's codes.
MOVER = {ref.LOSS: "win", ref.WIN: "loss", ref.DRAW: "draw"}


def reference_moves(text: str) -> dict[str, tuple[str, int]]:
    """move -> (the mover's outcome, plies to the end) by the reference."""
    result = {}
    for move, child in ref.successors(text, False).items():
        outcome, remoteness = ref.value(child, False)
        result[move] = (MOVER[outcome], remoteness + 1 if outcome != ref.DRAW else 0)
    return result


def sampled_positions(count=12, seed=3):
    game = make_game("quarto")
    positions, description = sampled.sample_positions(game, LATE, count, seed)
    return game, positions, description


def test_sampled_positions_are_distinct_live_positions_of_the_asked_tiers():
    game, positions, description = sampled_positions()
    texts = [game.format(p) for _, p in positions]
    assert len(set(texts)) == len(texts) == description["positions"] == 12
    for (t, _), text in zip(positions, texts):
        cells, hand = ref.read(text)
        assert 16 - cells.count(None) == int(LATE[t][1:]) and hand is not None
        assert not ref.won(cells, False)
    assert [n["positions"] for n in description["per_tier"].values()] == [6, 6]
    assert description["games"] >= 12
    again = sampled.sample_positions(game, LATE, 12, 3)[0]
    assert [game.format(p) for _, p in again] == texts  # the seed alone decides the sample


def test_the_ruler_scores_every_move_exactly():
    """Every move's outcome and remoteness, as the reference says, at every sampled position."""
    game, positions, _ = sampled_positions()
    result = sampled.solve_chunk(WorkerState(), "quarto", tuple(sorted(game.params.items())),
                                 (resolve_agent("random", game),), 1, 0,
                                 tuple(p for _, p in positions))
    for (_, position), scores in zip(positions, result["scores"]):
        outcome, remoteness = sampled.values(scores)
        names = {1: "loss", 2: "draw", 3: "win"}
        ours = {move: (names[int(o)], int(r)) for (move, _), o, r in zip(game.moves(position), outcome, remoteness)}
        assert ours == reference_moves(game.format(position)), game.format(position)


def reference_blunder(text: str, chosen: str) -> str | None:
    """The blunder split, from the reference's values alone."""
    moves = reference_moves(text)
    rank = {"loss": 0, "draw": 1, "win": 2}
    best = max(rank[o] for o, _ in moves.values())
    if rank[moves[chosen][0]] == best:
        return None
    cell = chosen.split(":")[0]
    same_cell = [rank[o] for move, (o, _) in moves.items() if move.split(":")[0] == cell]
    return "piece" if max(same_cell) == best else "placement"


def test_placement_and_piece_blunders_as_the_reference_splits_them():
    game, positions, _ = sampled_positions(count=8, seed=5)
    seen = set()
    for _, position in positions:
        text = game.format(position)
        result = sampled.solve_chunk(WorkerState(), "quarto", tuple(sorted(game.params.items())), (), 1, 0, (position,))
        for k, (move, _) in enumerate(game.moves(position)):
            kind = sampled.blunder_kinds(game, position, result["scores"][0], k)
            assert kind == reference_blunder(text, move), (text, move)
            seen.add(kind)
    assert seen == {None, "placement", "piece"}  # the sample holds every case


def test_the_perfect_play_check_can_fail():
    game, positions, _ = sampled_positions(count=4)
    plain = [p for _, p in positions]
    best = np.array([5, 0, -3, 0])
    endgame, random = (resolve_agent(spec, game) for spec in ("endgame:empty=9", "random"))
    ok = sampled.perfect_play_checks(game, [endgame, random], plain, best, {"endgame:empty=9": best})
    assert [c["ok"] for c in ok] == [True]  # only the agent that searches to the end is checked
    worse = best.copy()
    worse[1] = -7
    failed = sampled.perfect_play_checks(game, [endgame], plain, best, {"endgame:empty=9": worse})
    assert [c["ok"] for c in failed] == [False] and "1 of 4" in failed[0]["detail"]


def test_measure_is_exact_for_the_endgame_agent_and_reproducible():
    game = make_game("quarto")
    agents = [resolve_agent(spec, game) for spec in ("random", "greedy", "endgame:empty=5")]
    run = lambda: sampled.measure(game, agents, tiers=LATE, positions=10, seed=2,  # noqa: E731
                                  executor=InProcessExecutor(), quiet=True)
    first, second = run(), run()
    for entry in (*first["agents"].values(), *second["agents"].values()):
        entry["move_quality"].pop("seconds")
    for entry in (*first["sample"]["per_tier"].values(), *second["sample"]["per_tier"].values()):
        assert entry.pop("ruler_seconds_mean") <= entry.pop("ruler_seconds_max")
    assert first == second
    endgame = first["agents"]["endgame:empty=5"]
    assert endgame["move_quality"]["value_kept"] == 1.0 and endgame["blunders"]["placement"]["count"] == 0
    assert [c["ok"] for c in first["checks"]] == [True]
    for entry in first["agents"].values():
        b = entry["blunders"]
        kept = entry["move_quality"]["value_kept"] * entry["move_quality"]["positions"]
        assert b["placement"]["count"] + b["piece"]["count"] == round(entry["move_quality"]["positions"] - kept)
        assert set(b["by_tier"]) <= set(LATE)
    assert sum(sum(v.values()) for v in first["tiers"].values()) == 10


def test_validate_game_quarto_writes_the_report(tmp_path, cli):
    out = tmp_path / "report"
    code, stdout, stderr = cli("validate", "--game", "quarto", "--tiers", ",".join(LATE), "--positions", "6",
                               "--agents", "random,greedy,endgame:empty=6", "--games", "2", "--workers", "0",
                               "--out", str(out), "--quiet")
    assert code == 0, stderr
    data = json.loads((out / "report.json").read_text())
    assert data["store"] is None and data["move_quality_sample"]["kind"] == "sampled"
    assert set(data["tiers"]) == set(LATE) and len(data["sampled_positions"]) == 6
    assert {"placement", "piece", "by_tier"} <= set(data["agents"]["greedy"]["blunders"])
    assert len(data["tournaments"]) == 2 * 3 * 3 and all(t["games"] == 2 for t in data["tournaments"])
    assert [c["ok"] for c in data["checks"]] == [True]
    # no store: the summary says the start's value is unknown, and why
    assert data["summary"]["value"] is None and data["summary"]["remoteness"] is None
    assert data["summary"]["answer"].startswith("The value of the start position is unknown here: no store")
    assert data["agents"]["endgame:empty=6"]["short"] == "endgame-e6"
    markdown = (out / "report.md").read_text()
    assert "## Blunders" in markdown and "| endgame:empty=6 |" in markdown
    assert (out / "report.html").read_text().count('src="data:image/png;base64,') >= 3


@pytest.mark.parametrize("args,words", [
    ((), "needs --store PATH"),
    (("--game", "quarto", "--store", "x.zarr"), "not both"),
    (("--game", "tictactoe"), "validated against a solved store"),
    (("--game", "quarto", "--tiers", "p6,p99"), "no tier 'p99'"),
    (("--game", "quarto", "--tiers", "p12,p12"), "named twice"),
    (("--game", f"quarto --from '{make_game('quarto').format(random_position(9, seed=1))}'"), "no tier 'p6'"),
    (("--game", "quarto", "--agents", "lookup"), "store"),
    (("--game", "quarto", "--positions", "0"), "--positions"),
    (("--store", "x.zarr", "--tiers", "p6"), "--tiers goes with --game"),
])
def test_validate_game_refuses_bad_input_and_writes_nothing(tmp_path, cli, args, words):
    out = tmp_path / "out"
    code, _, stderr = cli("validate", *args, "--out", str(out), "--quiet")
    assert code == 2 and len(stderr.strip().splitlines()) == 1 and words in stderr, stderr
    assert "Traceback" not in stderr and not out.exists()


def test_a_workflow_without_a_store_trains_then_validates_and_resumes(tmp_path, monkeypatch):
    """`run quarto`'s shape on a small budget: no plan/solve/verify, artifacts named by {folder},
    a report; a rerun skips both stages."""
    from retrograde.workflows import runner as workflows
    from retrograde.games import GAMES
    from retrograde.games.capabilities import Workflow
    from retrograde.pipeline.solve import SolveOptions

    small = Workflow("quarto-small", "a small quarto workflow", solves=False,
                               train=(("ga:generations=1,population=2,offspring=1,games=2", "ga.json"),
                                      ("rl:episodes=20,pieces={folder}/ga.json", "rl.npz")),
                               agents=("random", "ga:params={folder}/ga.json", "rl:params={folder}/rl.npz"),
                               games=1, positions=3)
    monkeypatch.setitem(workflows.WORKFLOWS, small.name, (GAMES["quarto"], small))
    state = workflows.run_workflow(small.name, tmp_path, options=SolveOptions(workers=0, quiet=True))
    folder = tmp_path / small.name
    assert state["stages"] == {"train": "done", "validate": "done"} and state["store"] is None
    assert state["report"] == str(folder / "report" / "report.html") and not (folder / "store.zarr").exists()
    report = json.loads((folder / "report" / "report.json").read_text())
    assert report["move_quality_sample"]["positions"] == 3 and len(report["agents"]) == 3
    written = (folder / "report" / "report.json").stat().st_mtime_ns
    again = workflows.run_workflow(small.name, tmp_path, options=SolveOptions(workers=0, quiet=True))
    assert again["stages"] == state["stages"] and (folder / "report" / "report.json").stat().st_mtime_ns == written


def test_the_python_api_validates_quarto_without_a_store(tmp_path):
    import retrograde

    report = retrograde.validate(None, tmp_path / "api", "random,greedy", game="quarto", tiers=("p12",), positions=3,
                                 games=1)
    assert report["move_quality_sample"]["per_tier"]["p12"]["positions"] == 3
    assert (tmp_path / "api" / "report.html").exists()
    with pytest.raises(BadOption):
        retrograde.validate(None, tmp_path / "none", "random")
