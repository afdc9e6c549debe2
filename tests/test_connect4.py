"""Connect Four, the game added through one folder: every position of 4x4 boards with lines of 4
and of 3 against an independent reference (tests/connect4_reference.py, no code shared), the
published count of reachable 4x4 positions, the notation and its errors, and the commands."""

from __future__ import annotations

import json

import numpy as np
import pytest

import connect4_reference as reference
from retrograde.data.probing import values
from retrograde.errors import BadOption, BadPosition
from retrograde.games import make_game

FOUR = {"width": 4, "height": 4, "connect": 4}
THREE = {"width": 4, "height": 4, "connect": 3}


@pytest.mark.parametrize("params,reachable", [(FOUR, 161_029), (THREE, 41_750)])
def test_every_position_has_the_references_value_and_remoteness(open_solved, params, reachable):
    """The store counts exactly the positions the reference reaches from the empty board (John
    Tromp's 161,029 for 4x4, four in a row), and gives each its value and remoteness."""
    truth = reference.reachable(params["width"], params["height"], params["connect"])
    assert len(truth) == reachable
    store = open_solved("connect4", params)
    game = store.game
    counted = sum(info["win"] + info["loss"] + info["draw"] for info in
                  (store.record(tier.name).to_json() for tier in store.plan.tiers))
    assert counted == reachable
    texts = sorted(truth)
    found = values(store, [game.parse(text) for text in texts])
    wrong = [(text, truth[text], (value.name, value.remoteness)) for text, value in zip(texts, found)
             if (value.name, value.remoteness) != (truth[text][0], None if truth[text][0] == "draw" else truth[text][1])]
    assert not wrong, wrong[:5]


def test_the_start_is_a_draw_with_four_and_a_win_in_9_with_three(open_solved):
    four, three = open_solved("connect4", FOUR), open_solved("connect4", THREE)
    assert [(v.name, v.remoteness) for v in values(four, [four.game.initial_position])] == [("draw", None)]
    assert [(v.name, v.remoteness) for v in values(three, [three.game.initial_position])] == [("win", 9)]


def test_a_board_and_its_mirror_image_share_one_index():
    game = make_game("connect4", FOUR)
    left, right = game.parse("..../..../..../x... o"), game.parse("..../..../..../...x o")
    assert game.symmetry.representative(left) == game.symmetry.representative(right)
    assert game.locate(left) != game.locate(right)


@pytest.mark.parametrize("text,why", [
    ("..../..../x.../.... o", "above an empty cell"),
    ("..../..../..../xx.. o", "2 x and 0 o"),
    ("..../..../..../x... x", "it is o's turn"),
    ("..../..../oooo/xxxx x", "both sides have a line"),
    ("x.../x.../xo../xooo x", "already has a line"),
    ("..../..../x.../o... x", "no sequence of moves builds"),
    ("..../..../../.... x", "expected 4 rows of 4 cells"),
    ("..../..../..../..q. x", "bad cell"),
])
def test_bad_positions_get_one_line_naming_the_problem(text, why):
    with pytest.raises(BadPosition, match=why) as caught:
        make_game("connect4", FOUR).parse(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("params,why", [({"width": 3, "height": 4}, "--width 3"), ({"width": 4, "height": 8}, "--height 8"),
                                        ({"width": 4, "height": 4, "connect": 5}, "--connect 5")])
def test_bad_options_are_refused(params, why):
    with pytest.raises(BadOption, match=why):
        make_game("connect4", params)


def test_moves_are_column_letters_and_a_full_column_is_refused():
    game = make_game("connect4", FOUR)
    position = game.parse("o.../x.../o.../x... x")
    assert [text for text, _ in game.moves(position)] == ["b", "c", "d"]
    assert game.display.why_illegal(position, "a") == "column a is full"
    assert "not a move" in game.display.why_illegal(position, "a1")
    assert game.format(dict(game.moves(position))["b"]) == "o.../x.../o.../xx.. o"


def test_solve_probe_status_and_a_match_from_the_command_line(cli, solved, tmp_path):
    path = solved("connect4", FOUR)
    code, out, _ = cli("probe", "--store", str(path), "--json", "..../..../..../.... x")
    answer = json.loads(out)
    assert code == 0 and answer["value"] == "draw" and [move["move"] for move in answer["moves"]] == list("abcd")
    code, out, _ = cli("status", "--store", str(path), "--json")
    tiers = json.loads(out)["tiers"]
    assert code == 0 and sum(t["win"] + t["loss"] + t["draw"] for t in tiers) == 161_029
    code, out, _ = cli("match", "minimax:depth=4", "mcts:iterations=200", "--game",
                       "connect4 --width 4 --height 4", "--games", "4", "--json")
    assert code == 0 and len(json.loads(out)["tournaments"]) == 2


def test_a_board_too_big_for_the_machine_is_refused_before_anything_is_written(cli, tmp_path):
    store = tmp_path / "big.zarr"
    code, _, err = cli("solve", "connect4", "--width", "7", "--height", "7", "--store", str(store))
    assert code != 0 and err.count("\n") == 1 and "--width, --height" in err
    assert not store.exists()


@pytest.mark.parametrize("spec", ["random", "greedy", "minimax:depth=3", "minimax:depth=2,eval=zero",
                                  "mcts:iterations=100"])
def test_the_generic_agents_play_legal_moves(spec):
    from retrograde.agents import build_agent

    game = make_game("connect4", {"width": 5, "height": 4})
    agent = build_agent(spec, game, seed=1)
    position, rng = game.initial_position, np.random.default_rng(2)
    while not game.primitive(position):
        move, child = agent.choose(position)
        assert (move, child) in game.moves(position)
        moves = game.moves(child)
        position = moves[int(rng.integers(len(moves)))][1] if moves else child
