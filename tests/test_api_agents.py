"""The Python API's agents take positions as `SolvedStore.probe` does (text or a `Position`) and
answer with the move and a `Position`; the game's internal state still gives the internal form.
Moves and values are checked against the slow references (tests/reference.py)."""

from __future__ import annotations

import random

import pytest

import reference as ref
import retrograde
from conftest import ttt_text
from retrograde.errors import BadPosition

FLIP = {ref.WIN: ref.LOSS, ref.LOSS: ref.WIN, ref.DRAW: ref.DRAW}


def _cells(position) -> str:
    return str(position).split()[0].replace("/", "")


@pytest.fixture
def ttt(solved):
    with retrograde.open_store(solved("tictactoe")) as store:
        yield store


def test_lookup_answers_text_and_positions_with_a_perfect_move_and_its_position(ttt):
    """In 150 seeded non-terminal boards: the move names an empty cell, the Position is the
    board with the mover's mark there, and its value (reference) is the best the board allows:
    the fastest win, a draw, or the slowest loss. A Position in gives the same answer."""
    boards = sorted(board for board in ref.ttt_reachable() if not ref.ttt_is_terminal(board))
    for board in random.Random(26).sample(boards, 150):
        by_text = retrograde.agent("lookup", store=ttt, seed=4).choose(ttt_text(board))
        by_position = retrograde.agent("lookup", store=ttt, seed=4).choose(ttt.position(ttt_text(board)))
        assert by_text == by_position
        move, child = by_text
        assert isinstance(child, retrograde.Position) and child.game.name == "tictactoe"
        cell = (int(move[1]) - 1) * 3 + "abc".index(move[0])
        assert board[cell] == "." and _cells(child) == board[:cell] + ref.ttt_to_move(board) + board[cell + 1:]
        outcome, remoteness = ref.ttt_value(board)
        got = ref.ttt_value(_cells(child))
        assert FLIP[got[0]] == outcome, board
        if outcome != ref.DRAW:
            assert got[1] + 1 == remoteness, board


def test_an_internal_state_still_gives_the_internal_form(ttt):
    """`agent.choose(position.state)` (the form docs showed before) gives (move, next state)."""
    position = ttt.position("xx./oo./... x")
    move, state = retrograde.agent("lookup", store=ttt, seed=1).choose(position.state)
    assert move == "c1" and not isinstance(state, retrograde.Position)
    assert retrograde.agent("lookup", store=ttt, seed=1).choose(position) == ("c1", retrograde.Position(
        ttt.game, state))
    assert str(retrograde.Position(ttt.game, state)) == "xxx/oo./... o"


def test_an_agent_without_a_store_answers_with_a_legal_child():
    """Random Nim on heaps 1,2 from text: every answer is one of the reference's children, and
    the same seed gives the same answers."""
    children = {",".join(map(str, child)) for child in ref.NimReference().children((1, 2))}
    seen = set()
    for seed in range(20):
        move, child = retrograde.agent("random", game="nim --heaps 1,2", seed=seed).choose("1,2")
        assert str(child) in children
        assert retrograde.agent("random", game="nim --heaps 1,2", seed=seed).choose("1,2") == (move, child)
        seen.add(str(child))
    assert len(seen) > 1


@pytest.mark.parametrize("given, words", [("xxx/oo./...", "the game is over"), ("xx./oo", "expected 3 rows"),
                                          ("nim", "is a position of 'nim --heaps 1,2'")])
def test_a_position_the_agent_cannot_play_is_one_clear_error(ttt, given, words):
    if given == "nim":
        given = retrograde.agent("random", game="nim --heaps 1,2", seed=0).choose("1,2")[1]
    with pytest.raises(BadPosition, match=words):
        retrograde.agent("random", store=ttt, seed=0).choose(given)
