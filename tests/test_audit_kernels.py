"""Move quality in kernels (issue 34): where a game's search scores many positions at once with
the store's tablebase (`data.tablebase.StoredScores`), the lookup and greedy agents choose at all
of a chunk's positions in one call (`Player.choose_scored`). Their figures must be those of the
position-by-position path, which reads each position's moves with the game's Python rules and
their values by probing the store (`data.probing.analyse`): the same sample, the same moves
drawn, the same worst positions. Also: the row-wise draw against the one-row draw it stands for,
and the decoding of exact scores."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import resolved
from retrograde import outcome as oc
from retrograde.agents import build_agent, match
from retrograde.data.store import Store
from retrograde.data.tablebase import StoredScores
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.search.scores import UNKNOWN, WIN_SCORE, pick_best, pick_best_rows, score_values
from retrograde.validation import quality

AGENTS = ["lookup", "lookup:remoteness=0", "greedy", "random"]


def measured(store: Store, *, scored: bool, monkeypatch, positions: int) -> dict:
    """`quality.measure` of `AGENTS` with the kernels' path, or with it turned off; the seconds
    each agent took left out (wall clock)."""
    with monkeypatch.context() as patch:
        if not scored:
            patch.setattr(StoredScores, "of", classmethod(lambda cls, store: None))
        result = quality.measure(store, resolved(store.game, AGENTS), positions=positions, seed=7,
                                 executor=InProcessExecutor(), quiet=True)
    for entry in result["agents"].values():
        entry["move_quality"].pop("seconds")
    return result


@pytest.mark.parametrize("game, params, positions", [
    ("tictactoe", None, 20_000),  # every position
    ("nim", {"heaps": [1, 3, 5, 7], "misere": True}, 20_000),
    ("connect4", {"width": 4, "height": 4, "connect": 3}, 3_000),  # a sample of each tier
    ("quixo", {"size": 3}, 2_000),  # a sample; a store in the one-ply encoding
])
def test_the_kernels_measure_what_choosing_position_by_position_measures(open_solved, monkeypatch, game, params,
                                                                         positions):
    store = open_solved(game, params)
    assert StoredScores.of(store) is not None  # the kernels' path is the one measured
    fast = measured(store, scored=True, monkeypatch=monkeypatch, positions=positions)
    slow = measured(store, scored=False, monkeypatch=monkeypatch, positions=positions)
    assert fast == slow
    kept = fast["agents"]["greedy"]["move_quality"]
    assert kept["positions"] > 100 and kept["value_kept"] < 1  # greedy errs: its moves are measured
    assert fast["agents"]["lookup"]["move_quality"]["value_kept"] == 1.0


def test_a_row_wise_draw_is_the_draw_of_each_row_in_turn():
    """`pick_best_rows` picks what `pick_best` picks row by row from a generator seeded alike, and
    leaves the generator where it would be (with `seeds`, a seed drawn before each row's pick)."""
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 3, size=(200, 7))
    scores[np.arange(7) >= rng.integers(1, 8, size=(200, 1))] = UNKNOWN  # rows of 1 to 7 moves
    for seeds in (False, True):
        batch, one = np.random.default_rng(11), np.random.default_rng(11)
        picked = pick_best_rows(scores, batch, seeds=seeds)
        expected = []
        for row in scores:
            if seeds:
                one.integers(1 << 63)
            expected.append(pick_best(row[row != UNKNOWN], one))
        assert picked.tolist() == expected
        assert batch.integers(1 << 30) == one.integers(1 << 30)


def test_exact_scores_decode_to_outcome_and_remoteness():
    outcome, remoteness = score_values(np.array([WIN_SCORE - 1, WIN_SCORE - 7, 0, 4 - WIN_SCORE, -WIN_SCORE]))
    assert outcome.tolist() == [oc.WIN, oc.WIN, oc.DRAW, oc.LOSS, oc.LOSS]
    assert remoteness.tolist() == [1, 7, 0, 4, 0]


PAIRS = [("lookup", "lookup"), ("lookup:remoteness=0", "greedy"), ("greedy", "random"), ("random", "lookup"),
         ("greedy", "greedy")]


@pytest.mark.parametrize("game, params", [("tictactoe", None), ("nim", {"heaps": [2, 3, 4], "max_take": 2}),
                                          ("connect4", {"width": 4, "height": 4, "connect": 3}),
                                          ("quixo", {"size": 3})])
def test_games_played_in_kernels_are_the_games_played_move_by_move(open_solved, game, params):
    """`match.kernel_results` plays whole games in the game's kernels; `match.play_game` plays each
    move through the agents' `choose` (the game's Python rules, the store probed): from the same
    seeds and starts (the start and positions a few random plies in), every game ends the same, and
    each agent's generator is left where it would be."""
    store = open_solved(game, params)
    play = np.random.default_rng(5)
    starts = [store.game.initial_position]
    while len(starts) < 40:
        position = store.game.initial_position
        for _ in range(int(play.integers(1, 4))):
            moves = store.game.moves(position)
            position = moves[int(play.integers(len(moves)))][1]
        if not store.game.primitive(position):
            starts.append(position)
    for a, b in PAIRS:
        fast = [build_agent(spec, store.game, seed=seed, store=store) for spec, seed in ((a, 1), (b, 2))]
        slow = [build_agent(spec, store.game, seed=seed, store=store) for spec, seed in ((a, 1), (b, 2))]
        played = match.kernel_results(*fast, starts, max_plies=60, scored=StoredScores.of(store))
        assert played is not None, (a, b)
        expected = [match.play_game(*slow, start, max_plies=60) for start in starts]
        assert played == [(record.result, record.plies) for record in expected], (a, b)
        assert [agent.rng.integers(1 << 40) for agent in fast] == [agent.rng.integers(1 << 40) for agent in slow]
    capped = [build_agent("random", store.game, seed=seed, store=store) for seed in (1, 2)]
    assert {plies for _, plies in match.kernel_results(*capped, starts, max_plies=2)} <= {1, 2}


def test_an_agent_without_a_kernel_form_plays_move_by_move(open_solved):
    store = open_solved("tictactoe")
    agents = [build_agent(spec, store.game, seed=1, store=store) for spec in ("lookup", "minimax:depth=2")]
    assert match.kernel_results(*agents, [store.game.initial_position], max_plies=9,
                                scored=StoredScores.of(store)) is None
