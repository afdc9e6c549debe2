"""games/nim/reports.py: report 000's minmax and final count_and_decide as its code plays them,
held against the printed code written out here (not imported from the code under test)."""

from __future__ import annotations

import random

import pytest

from retrograde.agents import build_agent
from retrograde.games import make_game


def printed_optimal(rows, k):
    """The course template's optimal_strategy (report 003 prints it): the first move leaving a
    nim-sum of 0, else a random one."""
    moves = [(r, o) for r, c in enumerate(rows) for o in range(1, c + 1) if k is None or o <= k]
    for r, o in moves:
        after = list(rows)
        after[r] -= o
        total = 0
        for heap in after:
            total ^= heap
        if total == 0:
            return r, o
    return random.choice(moves)


def printed_minmax(rows, maximizing_player, k, alpha=-1, beta=1):
    """Report 000's minmax, line by line."""
    if sum(rows) == 0:
        return -1 if maximizing_player else 1
    moves = [(r, o) for r, c in enumerate(rows) for o in range(1, c + 1) if k is None or o <= k]
    if maximizing_player:
        best_val = -float("inf")
        for r, o in moves:
            child = list(rows)
            child[r] -= o
            val = printed_minmax(child, not maximizing_player, k, alpha, beta)
            best_val = max(best_val, val)
            alpha = max(alpha, best_val)
            if beta <= alpha:
                break
        return best_val
    r, o = printed_optimal(rows, k)
    child = list(rows)
    child[r] -= o
    return min(float("inf"), printed_minmax(child, not maximizing_player, k, alpha, beta))


def printed_minmax_strategy(rows, k):
    moves = [(r, o) for r, c in enumerate(rows) for o in range(1, c + 1) if k is None or o <= k]
    for ply in moves:
        child = list(rows)
        child[ply[0]] -= ply[1]
        if printed_minmax(child, True, k) > 0:
            break
    after = list(rows)
    after[ply[0]] -= ply[1]
    return tuple(after)


def positions(game):
    """Every non-terminal position reached from the start."""
    seen, frontier = {game.initial_position}, [game.initial_position]
    while frontier:
        for _, child in game.moves(frontier.pop()):
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return sorted(position for position in seen if sum(position))


@pytest.mark.parametrize("heaps", [[1, 3, 5], [2, 2, 3], [1, 3, 4]])
def test_report_000_minmax_plays_the_printed_search_s_move_everywhere(heaps):
    """Without a bound the policy reads the search's score off the nim-sum; the printed search,
    run in full (its optimal_strategy's draws from `random`), picks the same move at every position."""
    random.seed(5)
    game = make_game("nim", {"heaps": heaps})
    minmax = build_agent("minimax:preset=000", game, seed=0)
    for position in positions(game):
        assert minmax.choose(position)[1] == printed_minmax_strategy(position, None), position


def test_report_000_minmax_under_a_bound_searches():
    """Under a bound the policy runs the search: where the optimal_strategy's draws cannot change
    a score (a position of one heap) it agrees with the printed code."""
    game = make_game("nim", {"heaps": [1, 3, 5], "max_take": 2})
    minmax = build_agent("minimax:preset=000", game, seed=0)
    assert minmax.move_distribution((0, 0, 5)) is None  # the search draws: not enumerated
    for position in [(0, 0, 5), (0, 0, 4), (0, 0, 2), (0, 3, 0)]:
        assert minmax.choose(position)[1] == printed_minmax_strategy(position, 2), position


@pytest.mark.parametrize("odd,even,position,expected", [
    # agent first: even rows -> all but one of a random row, odd -> all of it (a row of one: all)
    ("all-from-random-row", "all-but-one-from-random-row", (1, 3, 5, 7),
     {(0, 3, 5, 7), (1, 1, 5, 7), (1, 3, 1, 7), (1, 3, 5, 1)}),
    ("all-from-random-row", "all-but-one-from-random-row", (0, 3, 5, 7), {(0, 0, 5, 7), (0, 3, 0, 7), (0, 3, 5, 0)}),
    # agent second: the parities swapped
    ("all-but-one-from-random-row", "all-from-random-row", (0, 3, 5, 7), {(0, 1, 5, 7), (0, 3, 1, 7), (0, 3, 5, 1)}),
    ("all-but-one-from-random-row", "all-from-random-row", (0, 1, 0, 7), {(0, 0, 0, 7), (0, 1, 0, 0)}),
])
def test_report_000_final_count_and_decide_draws_a_row_evenly(odd, even, position, expected):
    game = make_game("nim", {"heaps": [1, 3, 5, 7]})
    agent = build_agent(f"rules:preset=000,rule=count-and-decide,odd={odd},even={even}", game, seed=0)
    distribution = agent.move_distribution(position)
    assert {child for _, child in distribution} == expected
    assert all(chance == pytest.approx(1 / len(expected)) for chance, _ in distribution)
    assert {agent.choose(position)[1] for _ in range(200)} == expected
