"""The generic self-test on every game, and the game interface's contracts."""

import pytest

from retrograde.errors import BadOption, BadPosition
from retrograde.games import GAMES, make_game
from retrograde.games.check import check_game

#: Instances beyond the games' own examples, where a game's rules or kernels change with its options.
LARGER = [
    ("tictactoe", {}),
    ("quixo", {"size": 3}),
    ("quixo", {"size": 4}),
    ("quixo", {"size": 5, "down_to": 23}),
    ("nim", {"heaps": [1, 3, 5, 7]}),
    ("nim", {"heaps": [4, 4, 4], "max_take": 2}),
    ("nim", {"heaps": [2, 6, 1], "misere": True}),
    ("nim", {"heaps": [9, 2], "max_take": 3, "misere": True}),
    ("nim", {"heaps": [1]}),
    ("quarto", {"root": "378b/.a.6/.f40/2..e 1"}),
    ("quarto", {"root": "..e6/1.../2.58/70ac d", "squares": True}),
    ("connect4", {"width": 4, "height": 5, "connect": 4}),
    ("connect4", {"width": 5, "height": 4, "connect": 3}),
]
INSTANCES = [(name, params) for name, cls in GAMES.items() for params in cls.examples
             if (name, params) not in LARGER] + LARGER


@pytest.mark.parametrize("name,params", INSTANCES)
def test_check_game(name, params):
    samples = 40 if name == "quixo" and params["size"] > 3 else 400  # 4x4 and 5x5 tiers are slow to sample
    assert check_game(make_game(name, params), samples=samples, seed=1) == []


def test_every_registered_game_has_an_instance_under_test():
    assert {name for name, _ in INSTANCES} == set(GAMES) >= {name for name, _ in LARGER}


@pytest.mark.parametrize("name,params", INSTANCES)
def test_plan_solves_children_first(name, params):
    from retrograde.data.plan import make_plan

    plan = make_plan(make_game(name, params))
    wave_of = {t: step.wave for step in plan.steps for t in step.tiers}
    assert sorted(wave_of) == sorted(t.name for t in plan.tiers)
    for step in plan.steps:
        for tier in step.tiers:
            for child in plan.tier(tier).children:
                assert child in step.tiers or wave_of[child] < step.wave, (tier, child)
        # loopy exactly where a tier of the step moves into a tier of the same step
        assert step.loopy == any(child in step.tiers for tier in step.tiers for child in plan.tier(tier).children)


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


@pytest.mark.parametrize("params,message", [
    ({"size": 6}, "--size 6"),
    ({"size": 2}, "--size 2"),
    ({"size": 5, "down_to": 26}, "--down-to 26"),
    ({"size": 4, "down_to": -1}, "--down-to -1"),
])
def test_quixo_rejects_bad_options(params, message):
    with pytest.raises(BadOption, match=message):
        make_game("quixo", params)


@pytest.mark.parametrize("text,message", [
    ("..../..../.... x", "4 rows of 4 cells"),
    ("...../..../..../.... x", "4 rows of 4 cells"),
    ("..../..../..../..q. x", "bad cell 'q'"),
    ("..../..../..../....", "give the side to move"),
    ("..../..../..../.... z", "side to move must be x or o"),
])
def test_quixo_rejects_bad_positions(text, message):
    with pytest.raises(BadPosition, match=message):
        make_game("quixo", {"size": 4}).parse(text)


def test_quixo_plan_shape():
    from retrograde.data.plan import make_plan

    plan = make_plan(make_game("quixo", {"size": 4}))
    assert plan.positions == 3**16
    assert len(plan.waves()) == 17  # one wave per number of cubes, full boards first
    assert {len(step.tiers) for step in plan.steps} == {1, 2}  # m{a}o{a} alone, else pairs
    down = make_plan(make_game("quixo", {"size": 5, "down_to": 24}))
    assert down.positions == 452_984_832
    assert {t.name for t in down.tiers} == {f"m{a}o{25 - a}" for a in range(26)} | {f"m{a}o{24 - a}" for a in range(25)}
