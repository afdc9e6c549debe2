"""Move quality (validation/quality.py): its figures on arrays made by hand (the positions of each
value, the remoteness given away, the trickiest positions); the figures it measures on solved
stores against independent references (positions enumerated by playing the rules from the
start, values read by probing, each board's move replayed against tests/reference.py); and the
per-tier sample of a large store, weighed by symmetry class against tests/quixo_reference.py."""

from __future__ import annotations

import math
from collections import Counter, deque

import numpy as np
import pytest

import quixo_reference as qref
import reference as ref
from conftest import NIM, resolved, ttt_text
from retrograde import outcome as oc
from retrograde.agents import build_agent
from retrograde.data.probing import values
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.validation import quality
from retrograde.validation.quality import MIN_PER_TIER, measure, select_positions


def test_move_quality_by_value_takes_the_positions_of_that_value():
    """quality.py: `by_value` splits the positions by their value. Three won positions (one
    thrown to a draw), a draw kept, a loss; every weight 1."""
    outcome = np.array([oc.WIN, oc.WIN, oc.WIN, oc.DRAW, oc.LOSS], dtype=np.int8)
    remoteness = np.array([1, 3, 5, 0, 2])
    chosen_outcome = np.array([oc.WIN, oc.WIN, oc.DRAW, oc.DRAW, oc.LOSS], dtype=np.int8)
    chosen_remoteness = np.array([1, 5, 0, 0, 2])
    found = quality.summarise(("t",), np.zeros(5, np.int64), np.ones(5), outcome, remoteness, chosen_outcome,
                              chosen_remoteness)["by_value"]
    assert {value: found[value]["positions"] for value in ("win", "draw", "loss")} == {"win": 3, "draw": 1, "loss": 1}
    assert found["win"]["value_kept"] == pytest.approx(2 / 3)
    assert (found["win"]["won"], found["win"]["win_to_draw"]) == (3, 1)
    assert found["draw"]["value_kept"] == found["loss"]["value_kept"] == 1.0


def test_remoteness_given_away_counts_the_won_positions_kept():
    """quality.py: the histogram of remoteness given away is over won positions whose move kept
    the win: a win in 3 played as a win in 5 gives 2, a win in 1 kept as a win in 1 gives 0; a
    win thrown to a draw and a loss are not in it."""
    outcome = np.array([oc.WIN, oc.WIN, oc.WIN, oc.LOSS], dtype=np.int8)
    remoteness = np.array([3, 1, 3, 2])
    chosen_outcome = np.array([oc.WIN, oc.WIN, oc.DRAW, oc.LOSS], dtype=np.int8)
    chosen_remoteness = np.array([5, 1, 0, 2])
    summary = quality.summarise(("t",), np.zeros(4, dtype=np.int64), np.ones(4), outcome, remoteness,
                                chosen_outcome, chosen_remoteness)
    assert summary["remoteness_given_away"] == {"0": 1, "2": 1}


def test_the_trickiest_positions_are_at_most_five():
    """validation/quality.py: of seven sampled Nim positions that an agent throws away, the report
    lists the first five (`TRICKIEST`), in the sample's order."""
    game = make_game("nim", {"heaps": [1, 3, 5, 7]})
    selection = quality.Selection(("s8",), np.zeros(7, dtype=np.int64), np.arange(7), np.ones(7), False, {"s8": 46})
    outcome = np.full(7, oc.WIN, dtype=np.int8)
    found = quality.trickiest(game, selection, np.ones(7, dtype=bool), outcome,
                              {"a": np.full(7, oc.LOSS, dtype=np.int8)})
    assert quality.TRICKIEST == 5
    assert [entry["position"] for entry in found] == ["0,0,1,7", "0,0,2,6", "0,0,3,5", "0,0,4,4", "0,0,5,3"]


def reachable(game) -> list:
    """Every position reachable from the start by the rules (breadth first)."""
    seen, queue = {game.initial_position}, deque([game.initial_position])
    while queue:
        for _, child in game.moves(queue.popleft()):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return list(seen)


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
        move, _ = agent.choose(game.parse(ttt_text(rep)))
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
