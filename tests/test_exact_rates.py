"""validation/exact.py: a pairing's exact rates, held against a slow reference of this file's own
(every line of play enumerated with fractions, each agent's chances written from the reports'
code, not from `move_distribution`) and against games the tournament really plays."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from retrograde.agents import resolve_agent
from retrograde.games import make_game
from retrograde.pipeline.executors import open_executor
from retrograde.training import train
from retrograde.validation.exact import exact_rates
from retrograde.validation.tournament import INITIAL, Pairing, run_tournament


def _moves(heaps, bound):
    """(row, count) as the reports' cook_status lists them: row by row, fewest first."""
    return [(row, count) for row, heap in enumerate(heaps) for count in range(1, heap + 1)
            if bound is None or count <= bound]


def _after(heaps, row, count):
    return tuple(heap - count if i == row else heap for i, heap in enumerate(heaps))


def uniform_move(heaps, bound):
    moves = _moves(heaps, bound)
    return [(Fraction(1, len(moves)), _after(heaps, *move)) for move in moves]


def row_first(heaps, bound):
    """pure_random: a non-empty row, then a count, each uniformly."""
    rows = [row for row, heap in enumerate(heaps) if heap]
    return [(Fraction(1, len(rows) * min(heaps[row], bound or heaps[row])), _after(heaps, row, count))
            for row in rows for count in range(1, min(heaps[row], bound or heaps[row]) + 1)]


def keyed(key):
    """Report 000's fixed rules: the largest legal move under `key`."""
    return lambda heaps, bound: [(Fraction(1), _after(heaps, *max(_moves(heaps, bound), key=lambda m: key(*m))))]


def count_and_decide(odd, even):
    return lambda heaps, bound: (odd if sum(1 for h in heaps if h) % 2 else even)(heaps, bound)


def optimal_003(heaps, bound):
    """Report 003's optimal_strategy: the first move leaving a raw nim-sum of 0, else a random one."""
    for move in _moves(heaps, bound):
        after = _after(heaps, *move)
        if _xor(after) == 0:
            return [(Fraction(1), after)]
    return uniform_move(heaps, bound)


def _xor(heaps):
    total = 0
    for heap in heaps:
        total ^= heap
    return total


MAX_HIGHEST = keyed(lambda row, count: (row, count))
MIN_HIGHEST = keyed(lambda row, count: (-row, count))
MIN_LOWEST = keyed(lambda row, count: (-row, -count))


def reference(heaps, bound, first, second):
    """The first mover's (win, draw, loss) in fractions: every line of play walked to its end,
    its chance the product of the moves' chances (no memo: each line on its own)."""
    def walk(position, mover, chance):
        if sum(position) == 0:  # the side to move lost: normal play
            won = mover == 1
            return (chance, 0, 0) if won else (0, 0, chance)
        total = (Fraction(0), Fraction(0), Fraction(0))
        for p, child in (first, second)[mover](position, bound):
            total = tuple(a + b for a, b in zip(total, walk(child, 1 - mover, chance * p)))
        return total
    return walk(tuple(heaps), 0, Fraction(1))


PAIRINGS = [  # (our spec, the reference's chances) of each side
    (("random", uniform_move), ("random:preset=000", row_first)),
    (("rules:preset=000,rule=count-and-decide,odd=max-from-highest-row,even=min-from-highest-row",
      count_and_decide(MAX_HIGHEST, MIN_HIGHEST)), ("random:preset=000", row_first)),
    (("rules:preset=000,rule=min-from-lowest-row", MIN_LOWEST), ("expert:preset=003", optimal_003)),
    (("expert:preset=003", optimal_003), ("random", uniform_move)),
]


@pytest.mark.parametrize("heaps,bound", [((1, 2, 3), None), ((2, 3, 3), 2)])
@pytest.mark.parametrize("pairing", PAIRINGS, ids=lambda pairing: f"{pairing[0][0]} vs {pairing[1][0]}")
def test_exact_rates_equal_every_line_of_play_enumerated(heaps, bound, pairing):
    (agent, agent_chances), (opponent, opponent_chances) = pairing
    game = make_game("nim", {"heaps": list(heaps), "max_take": bound})
    first = reference(heaps, bound, agent_chances, opponent_chances)
    second = reference(heaps, bound, opponent_chances, agent_chances)
    for seat, expected in (("first", first), ("second", second[::-1]),
                           ("either", tuple((a + b) / 2 for a, b in zip(first, second[::-1])))):
        found = exact_rates(game, agent, opponent, seat)
        assert [found["win"], found["draw"], found["loss"]] == pytest.approx([float(x) for x in expected], abs=1e-12)


def test_a_figure_over_instances_is_the_mean_of_its_instances_and_seats():
    instances = ({"heaps": [1, 2, 3]}, {"heaps": [2, 3, 3], "max_take": 2}, {"heaps": [1, 3]})
    expected = []
    for params in instances:
        heaps, bound = tuple(params["heaps"]), params.get("max_take")
        expected.append(reference(heaps, bound, MIN_LOWEST, row_first)[0])
        expected.append(reference(heaps, bound, row_first, MIN_LOWEST)[2])
    found = exact_rates("nim", "rules:preset=000,rule=min-from-lowest-row", "random:preset=000", "either", instances)
    assert found["win"] == pytest.approx(float(sum(expected) / len(expected)), abs=1e-12)
    assert found["win"] + found["draw"] + found["loss"] == pytest.approx(1.0)


@pytest.mark.parametrize("params,agent,opponent", [
    ({"heaps": [1, 3, 5, 7]}, "rules:preset=000,rule=count-and-decide,odd=max-from-highest-row,"
                              "even=min-from-highest-row", "random:preset=000"),
    ({"heaps": [1, 3, 5], "max_take": 3}, "ga:generations=1,population=4,offspring=4,games=4", "expert"),
    ({"heaps": [1, 3, 5, 7]}, "ga:preset=000,generations=1,population=4,offspring=4,games=4", "random:preset=000"),
    ({"heaps": [2, 3, 4]}, "ga:preset=003", "expert:preset=003"),
    ({"heaps": [1, 3, 5, 7]}, "rules:preset=000,rule=count-and-decide,odd=all-but-one-from-random-row,"
                              "even=all-from-random-row", "random:preset=000"),
    ({"heaps": [1, 3, 5, 7]}, "minimax:preset=000", "random"),
])
def test_exact_rates_lie_within_sampled_games_of_the_tournament(tmp_path, params, agent, opponent):
    """The tournament's games (4,000 a pairing, both seats) agree with the exact rates within 4
    standard errors: the distributions are those `choose` draws from. A `ga:generations=...` agent
    plays the genome a short training evolves (seed 001's rule weights, report 000's probability)."""
    game = make_game("nim", params)
    if "generations" in agent:
        agent = f"ga:params={train(agent, game, tmp_path / 'ga.json', seed=3)}"
    exact = exact_rates(game, agent, opponent, "either")
    games = 2000
    with open_executor(workers=0, positions=None) as executor:
        ours, theirs = resolve_agent(agent, game), resolve_agent(opponent, game)
        entries = run_tournament(game, None, [Pairing(ours, theirs, INITIAL, games, "agent first"),
                                              Pairing(theirs, ours, INITIAL, games, "agent second")],
                                 seed=7, executor=executor, max_plies=100, quiet=True)
    wins = entries[0]["first_wins"] + entries[1]["second_wins"]
    share = wins / (2 * games)
    error = math.sqrt(exact["win"] * (1 - exact["win"]) / (2 * games))
    assert abs(share - exact["win"]) <= 4 * error + 1e-9, (share, exact)
    assert exact["draw"] == 0.0


def test_agents_whose_draws_cannot_be_enumerated_give_none():
    game = make_game("nim", {"heaps": [1, 2, 3]})
    assert exact_rates(game, "mcts:iterations=20", "random", "first") is None  # random playouts
    assert exact_rates(game, "random", "random", "first", limit=5) is None  # more positions than allowed
    assert exact_rates(game, "random", "random", "first") is not None
    with pytest.raises(ValueError, match="seat 'middle'"):
        exact_rates(game, "random", "random", "middle")


def test_the_lookup_agents_tied_best_moves_give_the_tournaments_rates(open_solved):
    """Tic-tac-toe, lookup (its tied best moves drawn evenly, read from a solved store) against
    random: the exact rates, draws too, agree with the games the tournament plays from the store."""
    store = open_solved("tictactoe")
    game = store.game
    exact = exact_rates(game, "lookup", "random", "either", store=store)
    games = 2000
    with open_executor(workers=0, positions=None) as executor:
        ours, theirs = resolve_agent("lookup", game), resolve_agent("random", game)
        entries = run_tournament(game, store, [Pairing(ours, theirs, INITIAL, games, "agent first"),
                                               Pairing(theirs, ours, INITIAL, games, "agent second")],
                                 seed=11, executor=executor, max_plies=20, quiet=True)
    assert exact["loss"] == 0.0 and 0 < exact["draw"] < 1
    for outcome, count in (("win", entries[0]["first_wins"] + entries[1]["second_wins"]),
                           ("draw", entries[0]["draws"] + entries[1]["draws"])):
        error = math.sqrt(exact[outcome] * (1 - exact[outcome]) / (2 * games))
        assert abs(count / (2 * games) - exact[outcome]) <= 4 * error, (outcome, count, exact)
