"""The generic self-test on every game, and the game interface's contracts."""

import pytest

from retrograde.errors import BadOption, BadPosition
from retrograde.games import GAMES, make_game
from retrograde.games.check import check_game

INSTANCES = [
    ("tictactoe", {}),
    ("nim", {"heaps": [1, 3, 5, 7]}),
    ("nim", {"heaps": [4, 4, 4], "max_take": 2}),
    ("nim", {"heaps": [2, 6, 1], "misere": True}),
    ("nim", {"heaps": [9, 2], "max_take": 3, "misere": True}),
    ("nim", {"heaps": [1]}),
]


@pytest.mark.parametrize("name,params", INSTANCES)
def test_check_game(name, params):
    assert check_game(make_game(name, params), samples=400, seed=1) == []


def test_every_registered_game_has_an_instance_under_test():
    assert {name for name, _ in INSTANCES} == set(GAMES)


@pytest.mark.parametrize("name,params", INSTANCES)
def test_tiers_are_listed_children_first(name, params):
    seen = set()
    for tier in make_game(name, params).tiers():
        assert all(child in seen or child == tier.name for child in tier.children), tier
        seen.add(tier.name)


@pytest.mark.parametrize("params,message", [
    ({"heaps": []}, "at least one heap"),
    ({"heaps": [1, -3]}, ">= 1"),
    ({"heaps": [0, 3]}, ">= 1"),
    ({"heaps": "1,,3"}, "separated by commas"),
    ({"heaps": [1, 3], "max_take": 0}, "--max-take 0"),
    ({"heaps": [10**6] * 4}, "positions"),
])
def test_nim_rejects_bad_options(params, message):
    with pytest.raises(BadOption, match=message):
        make_game("nim", params)


def test_unknown_game():
    with pytest.raises(BadOption, match="unknown game 'chess'"):
        make_game("chess")


@pytest.mark.parametrize("text,message", [
    ("x../.o.", "3 rows"),
    ("x../.o./....", "3 rows"),
    ("x../.q./...", "bad cell"),
    ("xx./.../...", "impossible"),
    ("o../.../...", "impossible"),
    ("xxx/ooo/...", "both sides"),
    ("xxx/oo./o..", "after x already had a line"),
    ("ooo/xx./xx.", "after o already had a line"),
    ("x../.../... x", "o.s turn"),
    ("x../.o./... z", "must be x or o"),
])
def test_tictactoe_rejects_bad_positions(text, message):
    with pytest.raises(BadPosition, match=message):
        make_game("tictactoe").parse(text)


def test_tictactoe_notation_accepts_side_and_upper_case():
    game = make_game("tictactoe")
    assert game.parse("X../.O./...") == game.parse("x../.o./... x") == (1, 16)
    assert game.format((1, 16)) == "x../.o./... x"


@pytest.mark.parametrize("text,message", [
    ("1,3,5", "3 heaps"),
    ("1,3,5,8", "heap 4 holds 8"),
    ("1,-1,5,7", "heap 2 holds -1"),
    ("1,x,5,7", "expected heap sizes"),
    ("", "expected heap sizes"),
])
def test_nim_rejects_bad_positions(text, message):
    with pytest.raises(BadPosition, match=message):
        make_game("nim", {"heaps": [1, 3, 5, 7]}).parse(text)
