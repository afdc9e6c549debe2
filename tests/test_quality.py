"""Move quality's figures (validation/quality.py), on arrays made by hand: the positions of each
value, the remoteness given away, and the trickiest positions."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde import outcome as oc
from retrograde.games import make_game
from retrograde.validation import quality


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
