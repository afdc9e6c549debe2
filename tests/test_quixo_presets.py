"""Report 004's Quixo player as its code played it (`minimax:preset=004`), against the rule read
off the report's printed `make_move`, `get_possible_moves` and `minmax`, written again here over
`quixo_reference`'s moves (plain minimax: the values alpha-beta returns at the root, whose window
the report never narrows): a winning move at once; a corner cube while no move makes a line of
two; else the best value at min(|C - O| + 1, O) plies, leaves C - O, and of the best the moves of
the highest order key (longest own line after the move, a blank cube before an own one)."""

from __future__ import annotations

import json

import pytest

import quixo_reference as qref
from conftest import run_cli
from retrograde.agents import build_agent
from retrograde.games import make_game

INF = float("inf")


def inline(board: str, symbol: str) -> int:
    """The report's max_inline_pieces: the most cubes of `symbol` in one row, column or diagonal."""
    return max(sum(board[cell] == symbol for cell in line) for line in qref.lines(qref.size_of(board)))


def value(board: str, depth: int) -> float:
    """The report's minmax value of `board` (x to move) for x: +-inf decided, C - O at depth 0."""
    decided = qref.terminal_value(board)
    if decided is not None:
        return INF if decided == qref.WIN else -INF
    if depth == 0:
        return inline(board, "x") - inline(board, "o")
    return max(-value(qref.swap(after), depth - 1) for after in qref.moves(board).values())


def printed_choices(board: str) -> set[str]:
    """The moves report 004's make_move may play at `board` (x to move)."""
    n = qref.size_of(board)
    moves = qref.moves(board)
    wins = {text for text, after in moves.items() if qref.has_line(after, "x") and not qref.has_line(after, "o")}
    if wins:
        return wins
    source = {text: text.split("-")[0] for text in moves}
    key = {text: (inline(after, "x"), int(board[_cell(n, source[text])] == ".")) for text, after in moves.items()}
    if max(own for own, _ in key.values()) <= 1:
        corners = {"a1", "a" + str(n), chr(ord("a") + n - 1) + "1", chr(ord("a") + n - 1) + str(n)}
        return {text for text in moves if source[text] in corners}
    own, other = inline(board, "x"), inline(board, "o")
    depth = min(abs(own - other) + 1, other)
    values = {text: -value(qref.swap(after), depth - 1) for text, after in moves.items()}
    best = [text for text in moves if values[text] == max(values.values())]
    top = max(key[text] for text in best)
    return {text for text in best if key[text] == top}


def _cell(n: int, name: str) -> int:
    return (int(name[1:]) - 1) * n + ord(name[0]) - ord("a")


def played(text: str, games: int = 24) -> set[str]:
    """The moves `minmax:preset=004` plays at the position `text` over `games` seeds."""
    game = make_game("quixo", {"size": 5})
    position = game.parse(text)
    return {build_agent("minimax:preset=004", game, seed=seed).choose(position)[0] for seed in range(games)}


def test_the_opening_takes_a_corner_cube_at_random():
    expected = printed_choices("." * 25)
    assert expected == {"a1-e1", "a1-a5", "e1-a1", "e1-e5", "a5-a1", "a5-e5", "e5-a5", "e5-e1"}
    assert played("...../...../...../...../..... x", 64) == expected


def test_a_winning_move_is_played_at_once():
    text = "xxxx./o..../o..../o..../..... x"
    expected = printed_choices(qref.read(text)[0])
    assert expected and played(text) <= expected


@pytest.mark.parametrize("text", [
    # C 2, O 1: one ply; several moves reach C - O = 2, and the longest own line breaks the tie
    "xx.../...../...../...../....o x",
    # C 3, O 2: two plies
    "xxx../...../...../o..../o.... x",
    # o to move, C 2, O 3: two plies, o must stop x's line
    "xxx../o..../o..../...../..... o",
    # two plies, where one ply's best moves are none of these (met in random play)
    "x.x.o/....x/...oo/....x/...oo x",
    # two plies, where N^C - N^O's best moves (report 001's leaves) are none of these
    "o...x/...../....x/o..../ox... x",
])
def test_the_search_plays_the_first_of_the_best_in_the_reports_order(text):
    board = qref.normalised(text)
    expected = printed_choices(board)
    assert played(text) <= expected < set(qref.moves(board))


def test_the_preset_plays_a_match():
    done = run_cli("match", "minimax:preset=004", "random", "--game", "quixo --size 5", "--games", "2", "--json",
                   "--quiet", "--workers", "0")
    assert done.returncode == 0, done.stderr
    seats = json.loads(done.stdout)["tournaments"]
    assert [seat["first"] for seat in seats] == ["minimax:preset=004", "random"]
    assert all(seat["games"] == 2 for seat in seats)
