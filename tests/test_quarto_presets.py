"""Report 002's Quarto agents as its code printed them (`ga:preset=002`), against rules written
again here from the report's printed `choose_piece` and `place_piece` (no retrograde import in
the references): its piece from combinations of the most or least frequent attribute values, a
three-piece line closed before a win, and its hybrid's search of every placement with a line of
three pieces on the board, the first of the best played whether it wins or not."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from conftest import run_cli
from retrograde.agents import build_agent
from retrograde.games import make_game
from retrograde.games.capabilities import course_of
from test_quarto_agents import deadly, has_line, random_positions, reference_scores

#: The attributes in the order we read report 002's `elements_per_type` (high first): each
#: attribute's value with its bit, then without (0).
BITS = (8, 4, 2, 1)
W = 10**9


def printed_pieces(board, left, most: bool) -> set[int]:
    """The pieces report 002's choose_piece may hand over from `left`: the 8 attribute values
    (count on the board, binary value) sorted by count (most frequent first if `most`), then the
    sums of combinations of 4 of the first 4, 5, ... that are pieces left."""
    on_board = [piece for piece in board if piece >= 0]
    elements = []
    for bit in BITS:
        elements += [(sum(1 for piece in on_board if piece & bit), bit),
                     (sum(1 for piece in on_board if not piece & bit), 0)]
    ordered = sorted(elements, key=lambda element: element[0], reverse=most)
    for first in range(4, 9):
        hits = {sum(value for _, value in combination)
                for combination in itertools.combinations(ordered[:first], 4)} & set(left)
        if hits:
            return hits
    raise AssertionError("every piece is a sum of 4 of the 8 values")


def three_in_a_line(board) -> bool:
    return any(sum(board[cell] < 0 for cell in line) == 1
               for line in [tuple(r * 4 + c for c in range(4)) for r in range(4)]
               + [tuple(r * 4 + c for r in range(4)) for c in range(4)] + [(0, 5, 10, 15), (3, 6, 9, 12)])


def test_the_opening_piece_is_the_first_four_values():
    game = make_game("quarto")
    assert printed_pieces((-1,) * 16, range(16), False) == {12}
    handed = {build_agent("ga:preset=002", game, seed=seed).choose(game.initial_position)[1][1] for seed in range(20)}
    assert handed == {12}


@pytest.mark.parametrize("alpha", [0, 1])
def test_the_printed_piece_rule(alpha):
    game = make_game("quarto")
    agent = f"ga:preset=002,alpha={alpha},beta=0"
    several = 0
    for position in random_positions(30, (4, 13), seed=5, quiet=True):
        for seed in range(6):
            _, (after, handed) = build_agent(agent, game, seed=seed).choose(position)
            if handed >= 0:
                left = [piece for piece in range(16) if piece not in after]
                expected = printed_pieces(after, left, most=alpha == 1)
                assert handed in expected, (position, after, handed, expected)
                several += len(expected) < len(left) - 1
    assert several > 20  # the rule rules out most pieces often


def test_a_three_piece_diagonal_is_closed_before_a_win():
    game = make_game("quarto")
    board = [-1] * 16
    for cell, piece in ((6, 0), (9, 15), (12, 3), (13, 1), (14, 5)):  # a dead anti-diagonal; row 4 shares bit 1
        board[cell] = piece
    position = (tuple(board), 7)
    assert has_line(board[:15] + [7], False)
    printed = {build_agent("ga:preset=002,beta=0", game, seed=seed).choose(position)[0][:2] for seed in range(10)}
    ours = {build_agent("ga:alpha=0.1,beta=0", game, seed=seed).choose(position)[0][:2] for seed in range(10)}
    assert printed == {"d1"} and ours == {"d4"}


@pytest.mark.parametrize("depth,empty", [(1, (8, 12)), (2, (5, 8))])
def test_the_printed_hybrid_plays_the_first_best_placement(depth, empty):
    """With a line of three pieces: each cell's best outcome over its handovers, `depth` + 1 plies
    (1 + 1 with 8 or more empty cells), the first cell of the best; the piece by the printed rule
    among the safe ones."""
    game = make_game("quarto")
    found = 0
    for position in random_positions(40, empty, seed=11):
        board, hand = position
        if not three_in_a_line(board):
            continue
        moves = game.moves(position)
        outcome = {}
        for (text, _), score in zip(moves, reference_scores(position, depth + 1, False, "zero")):
            cell = "abcd".index(text[0]) + 4 * (int(text[1]) - 1)
            outcome[cell] = max(outcome.get(cell, -1), (score > W // 2) - (score < -W // 2))
        cell = min(cell for cell, value in outcome.items() if value == max(outcome.values()))
        move, (after, handed) = build_agent(f"ga:preset=002,alpha=0,beta=0,minimax={depth}", game,
                                            seed=found).choose(position)
        assert after[cell] == hand, (position, move, outcome)
        if handed >= 0:
            left = [piece for piece in range(16) if piece not in after]
            safe = [piece for piece in left if piece not in deadly(after, False)]
            assert handed in printed_pieces(after, safe or left, most=False)
        found += 1
    assert found > 5


@pytest.mark.parametrize("alpha", [0, 1])
def test_the_reports_rl_agent_hands_over_by_the_printed_rule(alpha):
    """Its placements' handovers (the `rl` features of preset seed002: the genome and a 1 after it)
    are the printed rule's among the safe pieces; at the opening, the first four values' sum."""
    features = make_game("quarto").features.with_genome(np.array([alpha, 0.3, 1.0]))
    assert [move for move, _ in features(((-1,) * 16, -1), np.random.default_rng(0))[0]] == [":c"]
    checked = 0
    for position in random_positions(20, (4, 12), seed=9, quiet=True):
        for _, (after, handed) in features(position, np.random.default_rng(checked))[0]:
            if handed >= 0:
                left = [piece for piece in range(16) if piece not in after]
                safe = [piece for piece in left if piece not in deadly(after, False)]
                assert handed in printed_pieces(after, safe or left, most=alpha == 1)
                checked += 1
    assert checked > 100


def test_our_rule_hands_a_random_opening_piece_drawn_as_it_always_was():
    """Ours (a ga artifact's (alpha, beta)) ties every piece on the empty board: the one a draw of
    16 gives, and nothing else drawn, so that our rl artifacts keep their bytes."""
    features = make_game("quarto").features.with_genome(np.array([0.1, 0.3]))
    for seed in range(20):
        rng = np.random.default_rng(seed)
        (((move, _),), _, _) = features(((-1,) * 16, -1), rng)
        expected = np.random.default_rng(seed)
        assert move == f":{'0123456789abcdef'[int(expected.integers(16))]}"
        assert rng.integers(1 << 62) == expected.integers(1 << 62)


def test_every_published_figure_is_played_or_listed():
    course = course_of(make_game("quarto"))
    for figure in course.figures:
        for rate in (figure.win, figure.loss, figure.draw):
            assert rate is None or isinstance(rate, float) or (isinstance(rate, tuple) and rate[0] <= rate[1])
    assert any("64.08%" in unplayed.figure for unplayed in course.unplayed)


def test_the_printed_hybrid_plays_a_match():
    done = run_cli("match", "ga:preset=002,alpha=0.1,beta=0.3,minimax=2", "ga:preset=002", "--game", "quarto",
                   "--games", "2", "--json", "--quiet", "--workers", "0")
    assert done.returncode == 0, done.stderr
    assert [seat["games"] for seat in json.loads(done.stdout)["tournaments"]] == [2, 2]
