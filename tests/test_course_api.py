"""The course's game APIs served by our own modules (each game's course_game.py and course_api.py): every answer the course's
rules accept is one of our legal moves and leads to the child our game's `moves` gives (boards
compared cell by cell), every answer they refuse is refused with a reason, and students' players
(random with retries, always illegal, deep-copying, subclassing `Game`) run unchanged."""

from __future__ import annotations

import itertools
import pickle
import random
import sys
import types
from copy import deepcopy
from enum import Enum

import numpy as np
import pytest

from retrograde import outcome
from retrograde.errors import BadAgent
from retrograde.games import example_games, make_game
from retrograde.games.capabilities import course_of
from retrograde.games.course_api import IllegalAnswer
from retrograde.games.nim import course_game as nim
from retrograde.games.quarto import course_game as quarto
from retrograde.games.quixo import course_game as quixo

QUIXO, QUARTO, NIM = (course_of(example_games()[name]).api for name in ("quixo", "quarto", "nim"))
#: Our cell text of the course's player ids (player 0 is x, who moves first).
SYMBOL = {-1: ".", 0: "x", 1: "o"}


@pytest.fixture(autouse=True)
def configuration_kept(monkeypatch):
    """The tests configure the served modules for their games; later tests find them as they were."""
    monkeypatch.setattr(quixo, "size", quixo.size)
    monkeypatch.setattr(quarto, "lines", quarto.lines)


def walked(game, seed: int, count: int, steps: int) -> list:
    """Non-terminal positions met on seeded random games of `game` (up to `steps` plies each)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = game.initial_position
        for _ in range(rng.randrange(steps)):
            moves = game.moves(position)
            if not moves:
                break
            position = rng.choice(moves)[1]
        if game.moves(position):
            found.append(position)
    return found


def answering(answer):
    """A course player function that always answers `answer`."""
    return lambda *shown: answer


def course_quixo_board(cells: str, n: int) -> np.ndarray:
    """The course's board [y, x] of our cells (x -> 0, o -> 1, . -> -1)."""
    return np.array([{"x": 0, "o": 1, ".": -1}[cell] for cell in cells]).reshape(n, n)


# --- Quixo ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [3, 4, 5])
def test_quixo_accepted_answers_are_our_moves_to_the_same_child(size):
    game = make_game("quixo", {"size": size})
    QUIXO.module(game)
    for cells, side in walked(game, seed=size, count=6, steps=30):
        state = (cells, side)
        legal = dict(game.moves(state))
        me = "xo".index(side)
        accepted = set()
        for x, y, slide in itertools.product(range(size), range(size), quixo.Move):
            course = quixo.Game()
            course._board = course_quixo_board(cells, size)
            course.current_player_idx = me
            ok = course._Game__move((x, y), slide, me)
            if not ok:
                assert (course._board == course_quixo_board(cells, size)).all()
                with pytest.raises(IllegalAnswer):
                    QUIXO.ask(answering(((x, y), slide)), game, state, legal, 1)
                continue
            text = QUIXO.ask(answering(((x, y), slide)), game, state, legal, 1)
            child_cells = "".join(SYMBOL[int(v)] for v in course._board.flat)
            assert legal[text] == (child_cells, "o" if side == "x" else "x"), (cells, x, y, slide)
            assert text.startswith("abcde"[x] + str(y + 1) + "-")
            accepted.add(text)
        assert accepted == set(legal)


def test_quixo_slides_of_a_corner_and_an_edge_cube():
    QUIXO.module(make_game("quixo", {"size": 5}))
    blank = np.full((5, 5), -1)
    acceptable = {cell: {slide for slide in quixo.Move if quixo.refusal(blank, cell, slide, 0) is None}
                  for cell in [(0, 0), (2, 0), (4, 4), (0, 3)]}
    assert acceptable == {(0, 0): {quixo.Move.BOTTOM, quixo.Move.RIGHT},
                          (2, 0): {quixo.Move.BOTTOM, quixo.Move.LEFT, quixo.Move.RIGHT},
                          (4, 4): {quixo.Move.TOP, quixo.Move.LEFT},
                          (0, 3): {quixo.Move.TOP, quixo.Move.BOTTOM, quixo.Move.RIGHT}}


@pytest.mark.parametrize("size", [3, 4])
def test_quixo_check_winner_agrees_with_our_primitive(size):
    """Judged, as the course's loop judges it, just after the other player than the side to move
    moved: where both have a line, the side to move (who did not just move) wins."""
    game = make_game("quixo", {"size": size})
    QUIXO.module(game)
    rng = random.Random(size)
    both = 0
    for _ in range(3000):
        cells = "".join(rng.choice("xo.") for _ in range(size * size))
        for side in "xo":
            course = quixo.Game()
            course._board = course_quixo_board(cells, size)
            course.current_player_idx = 1 - "xo".index(side)  # the mover
            value = game.primitive((cells, side))
            expected = {outcome.WIN: "xo".index(side), outcome.LOSS: 1 - "xo".index(side), 0: -1}[value]
            assert course.check_winner() == expected, (cells, side)
        board = course_quixo_board(cells, size)
        lines = [*board, *board.T, board.diagonal(), np.fliplr(board).diagonal()]
        both += all(any((line == player).all() for line in lines) for player in (0, 1))
    assert both > 10  # boards where both players have a line were met


def test_quixo_board_is_signed_and_sized_by_the_game():
    for size in (3, 4, 5):
        QUIXO.module(make_game("quixo", {"size": size}))
        board = quixo.Game()._board
        assert board.shape == (size, size)
        assert np.issubdtype(board.dtype, np.signedinteger)
        assert (board == -1).all() and (board < 0).all()
        assert quixo.Game().get_board() is not quixo.Game().get_board()


def test_quixo_move_pickles_by_value_under_the_name_game(monkeypatch):
    course_game = types.ModuleType("game")

    class Move(Enum):  # the course's own Move, as a student's table was pickled with it
        TOP = 0
        BOTTOM = 1
        LEFT = 2
        RIGHT = 3

    Move.__module__, Move.__qualname__ = "game", "Move"
    course_game.Move = Move
    monkeypatch.setitem(sys.modules, "game", course_game)
    table = pickle.dumps({"opening": ((0, 0), Move.RIGHT), "later": [Move.TOP, Move.BOTTOM, Move.LEFT]})
    monkeypatch.setitem(sys.modules, "game", QUIXO.module(make_game("quixo", {"size": 5})))
    assert pickle.loads(table) == {"opening": ((0, 0), quixo.Move.RIGHT),
                                   "later": [quixo.Move.TOP, quixo.Move.BOTTOM, quixo.Move.LEFT]}
    ours = pickle.dumps(quixo.Move.LEFT)
    assert b"game" in ours and pickle.loads(ours) is quixo.Move.LEFT


def test_quixo_random_player_with_retries_gets_a_legal_move():
    game = make_game("quixo", {"size": 5})
    QUIXO.module(game)
    calls = []

    class RandomPlayer(quixo.Player):
        def __init__(self, seed):
            super().__init__()
            self.rng = random.Random(seed)

        def make_move(self, game):
            calls.append(1)
            return (self.rng.randint(0, 4), self.rng.randint(0, 4)), self.rng.choice(list(quixo.Move))

    player = QUIXO.construct(RandomPlayer, {"seed": 3})
    for state in walked(game, seed=1, count=10, steps=20):
        legal = dict(game.moves(state))
        assert QUIXO.ask(player, game, state, legal, 100) in legal
    assert len(calls) > 10  # some answers were refused and asked again


def test_quixo_always_illegal_player_gives_up_after_the_tries():
    game = make_game("quixo", {"size": 5})
    QUIXO.module(game)
    calls = []

    def make_move(game):
        calls.append(1)
        return (2, 2), quixo.Move.TOP

    state = game.initial_position
    with pytest.raises(IllegalAnswer, match=r"\(2, 2\) is not on the border \(7 answers, none legal\)"):
        QUIXO.ask(make_move, game, state, dict(game.moves(state)), 7)
    assert len(calls) == 7


def test_quixo_5x5_coordinates_on_a_4x4_board_are_named():
    game = make_game("quixo", {"size": 4})
    QUIXO.module(game)
    state = game.initial_position
    with pytest.raises(IllegalAnswer, match="off the 4x4 board; the player plays 5x5 coordinates"):
        QUIXO.ask(answering(((4, 0), quixo.Move.LEFT)), game, state, dict(game.moves(state)), 3)
    with pytest.raises(IllegalAnswer, match="game.Move"):
        QUIXO.ask(answering(((0, 0), 1)), game, state, dict(game.moves(state)), 1)
    with pytest.raises(IllegalAnswer, match="opponent's cube"):
        state = game.parse("o.../..../..../.... x")
        QUIXO.ask(answering(((0, 0), quixo.Move.RIGHT)), game, state, dict(game.moves(state)), 1)


def test_quixo_deep_copying_player_finds_the_win_and_leaves_the_game_alone():
    game = make_game("quixo", {"size": 3})
    QUIXO.module(game)
    seen = []

    class OnePly(quixo.Player):
        def make_move(self, game):
            before = game.get_board()
            me = game.get_current_player()
            candidates = [((x, y), slide) for x in range(3) for y in range(3) for slide in quixo.Move]
            for from_pos, slide in candidates:
                trial = deepcopy(game)
                if trial._Game__move(from_pos, slide, me) and trial.check_winner() == me:
                    seen.append((game.get_board() == before).all())
                    return from_pos, slide
            raise AssertionError("no winning move found")

    state = game.parse("xx./o../o.. x")
    legal = dict(game.moves(state))
    text = QUIXO.ask(QUIXO.construct(OnePly, {}), game, state, legal, 1)
    assert game.primitive(legal[text]) == outcome.LOSS  # the opponent, to move, has lost
    assert seen == [True]


def test_quixo_subclass_of_game_with_its_own_slide_code():
    game = make_game("quixo", {"size": 4})
    QUIXO.module(game)

    class MyGame(quixo.Game):
        def __init__(self, board=None):
            super().__init__()
            if board is not None:
                self._board = board

        def slide_right_along_top(self, x, player):
            """The student's own slide: push the cube at (x, 0) in at the right of row 0."""
            row = list(self._board[0])
            del row[x]
            self._board[0] = row + [player]

    class Player(quixo.Player):
        def make_move(self, game):
            mine = MyGame(game.get_board())
            assert mine._board.shape == (4, 4) and np.issubdtype(mine._board.dtype, np.signedinteger)
            mine.slide_right_along_top(0, game.current_player_idx)
            assert mine._board[0, 3] == game.current_player_idx
            copy = MyGame(game.get_board())
            assert copy._Game__move((0, 0), quixo.Move.RIGHT, game.current_player_idx)
            assert (copy._board == mine._board).all()
            return (0, 0), quixo.Move.RIGHT

    state = game.parse("..../.x../..../.... o")
    legal = dict(game.moves(state))
    text = QUIXO.ask(QUIXO.construct(Player, {}), game, state, legal, 1)
    assert text == "a1-d1" and legal[text] == ("...o.x..........", "x")


def test_quixo_player_exceptions_propagate_and_bad_players_are_refused():
    game = make_game("quixo", {"size": 3})
    QUIXO.module(game)
    state = game.initial_position

    def broken(game):
        return 1 / 0

    with pytest.raises(ZeroDivisionError):
        QUIXO.ask(broken, game, state, dict(game.moves(state)), 5)
    with pytest.raises(BadAgent, match="make_move"):
        QUIXO.construct(type("Nothing", (), {}), {})

    def keyed(game, corner):
        return corner, quixo.Move.BOTTOM

    bound = QUIXO.construct(keyed, {"corner": (2, 0)})
    assert QUIXO.ask(bound, game, state, dict(game.moves(state)), 1) == "c1-c3"


def test_quixo_play_runs_the_course_loop():
    QUIXO.module(make_game("quixo", {"size": 3}))
    rng = random.Random(5)

    class Random(quixo.Player):
        def make_move(self, game):
            return (rng.randrange(3), rng.randrange(3)), rng.choice(list(quixo.Move))

    course = quixo.Game()
    winner = course.play(Random(), Random())
    assert winner in (0, 1) and course.check_winner() == winner
    assert (course._board != -1).sum() >= 3


# --- Quarto --------------------------------------------------------------------------------------

def test_quarto_piece_mapping_is_the_documented_bijection():
    assert sorted(map(quarto.to_ours, range(16))) == list(range(16))
    shown = quarto.Quarto()
    for index in range(16):
        assert quarto.to_course(quarto.to_ours(index)) == index
        piece, ours = shown.get_piece_charachteristics(index), quarto.to_ours(index)
        assert index == 8 * piece.HIGH + 4 * piece.COLOURED + 2 * piece.SOLID + piece.SQUARE
        # ours: bit 0 dark (coloured), bit 1 tall (high), bit 2 square, bit 3 hollow (not solid)
        assert (bool(ours & 1), bool(ours & 2), bool(ours & 4), bool(ours & 8)) == \
            (piece.COLOURED, piece.HIGH, piece.SQUARE, not piece.SOLID)
    assert quarto.to_ours(0b1000) == 0b0010 + 0b1000  # HIGH alone: tall and hollow (not solid)


def test_quarto_four_course_pieces_sharing_an_attribute_are_our_line():
    game = make_game("quarto")
    shown = quarto.Quarto()
    lines = 0
    for four in itertools.combinations(range(16), 4):
        pieces = [shown.get_piece_charachteristics(index) for index in four]
        shared = any(len({getattr(piece, name) for piece in pieces}) == 1
                     for name in ("HIGH", "COLOURED", "SOLID", "SQUARE"))
        board = tuple(quarto.to_ours(index) for index in four) + (-1,) * 12
        assert game.has_line(board) == shared, four
        lines += shared
    assert 0 < lines < 1820


def test_quarto_accepted_answers_are_our_moves_to_the_same_child():
    game = make_game("quarto")
    QUARTO.module(game)
    positions = [game.initial_position, *walked(game, seed=7, count=8, steps=16)]
    for state in positions:
        board, hand = state
        legal = dict(game.moves(state))
        accepted = set()
        for x, y, index in itertools.product(range(4), range(4), range(16)):
            if hand == -1 and (x, y) != (0, 0):
                continue
            seen = []

            class Fixed(quarto.Player):
                def place_piece(self):
                    shown = self.get_game()
                    seen.append((shown.get_board_status(), shown.get_selected_piece(), shown.get_current_player()))
                    return x, y

                def choose_piece(self):
                    seen.append(("choose",))
                    return index

            seat = QUARTO.construct(Fixed, {})
            try:
                text = QUARTO.ask(seat, game, state, legal, 1)
            except IllegalAnswer:
                continue
            if hand == -1:
                assert text == ":" + "0123456789abcdef"[quarto.to_ours(index)]
                assert legal[text] == (board, quarto.to_ours(index))
                accepted.add(text)
                continue
            (shown_board, selected, current), *rest = seen
            assert [quarto.to_ours(i) if i >= 0 else -1 for i in shown_board.flat] == list(board)
            assert quarto.to_ours(selected) == hand
            assert current == (sum(piece >= 0 for piece in board) + 1) % 2
            cell = y * 4 + x
            placed = board[:cell] + (hand,) + board[cell + 1:]
            if rest:
                assert legal[text] == (placed, quarto.to_ours(index))
            else:  # the placement ends the game: no piece asked for
                assert text == "abcd"[x] + str(y + 1) and legal[text] == (placed, -1)
            accepted.add(text)
        assert accepted == set(legal), game.format(state)


def test_quarto_illegal_answers_and_the_players_game():
    game = make_game("quarto")
    QUARTO.module(game)
    state = game.parse("3.../..a./..../.... 7")
    legal = dict(game.moves(state))
    given = []

    class Stubborn(quarto.Player):
        def __init__(self, quarto_game, cell):
            super().__init__(quarto_game)
            given.append(quarto_game)
            self.cell = cell

        def place_piece(self):
            return self.cell

        def choose_piece(self):
            return quarto.to_course(3)  # on the board already

    seat = QUARTO.construct(Stubborn, {"cell": (0, 0)})
    assert isinstance(given[0], quarto.Quarto)
    with pytest.raises(IllegalAnswer, match=r"\(0, 0\) holds piece .* \(4 answers, none legal\)"):
        QUARTO.ask(seat, game, state, legal, 4)
    with pytest.raises(IllegalAnswer, match="off the 4x4 board"):
        QUARTO.ask(QUARTO.construct(Stubborn, {"cell": (4, 1)}), game, state, legal, 2)
    with pytest.raises(IllegalAnswer, match="is on the board already"):
        QUARTO.ask(QUARTO.construct(Stubborn, {"cell": (1, 0)}), game, state, legal, 2)
    with pytest.raises(BadAgent, match="choose_piece"):
        QUARTO.construct(lambda quarto_game: object(), {})


def test_quarto_check_winner_agrees_with_our_primitive():
    rng = random.Random(11)
    for squares in (False, True):
        game = make_game("quarto", {"squares": squares})
        QUARTO.module(game)
        shown = quarto.Quarto()
        for _ in range(1500):
            cells = rng.sample(range(16), rng.randrange(4, 17))
            pieces = rng.sample(range(16), len(cells))
            board = [-1] * 16
            for cell, piece in zip(cells, pieces):
                board[cell] = piece
            current = rng.randrange(2)
            shown._arrange(np.array([quarto.to_course(p) if p >= 0 else -1 for p in board]).reshape(4, 4), -1,
                           current)
            lost = game.primitive((tuple(board), -1)) == outcome.LOSS
            assert shown.check_winner() == (current if lost else -1)
            assert shown.check_finished() == (len(cells) == 16)


def test_quarto_run_and_select_place_rules():
    QUARTO.module(make_game("quarto"))
    shown = quarto.Quarto()
    assert np.issubdtype(shown.get_board_status().dtype, np.signedinteger)
    assert not shown.select(16) and shown.select(5) and shown.place(1, 2)
    assert shown.get_board_status()[2, 1] == 5 and not shown.place(1, 2) and not shown.place(0, 4)
    assert not shown.select(5)
    rng = random.Random(2)

    class Random(quarto.Player):
        def choose_piece(self):
            return rng.randrange(16)

        def place_piece(self):
            return rng.randrange(4), rng.randrange(4)

    table = quarto.Quarto()
    table.set_players((Random(table), Random(table)))
    winner = table.run()
    assert winner in (-1, 0, 1)
    assert winner >= 0 or table.check_finished()


# --- Nim -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [{"heaps": [1, 3, 5, 7]}, {"heaps": [2, 4, 6], "max_take": 3}])
def test_nim_accepted_answers_are_our_moves_to_the_same_child(params):
    game = make_game("nim", params)
    k = params.get("max_take")
    for state in [game.initial_position, *walked(game, seed=3, count=6, steps=8)]:
        legal = dict(game.moves(state))
        accepted = set()
        for row, num_objects in itertools.product(range(-1, len(state) + 1), range(-1, max(state) + 2)):
            shown = []

            def strategy(nim_state):
                shown.append((nim_state.rows, nim_state.k))
                return nim.Nimply(row, num_objects)

            try:
                text = NIM.ask(strategy, game, state, legal, 1)
            except IllegalAnswer:
                assert not (0 <= row < len(state) and 1 <= num_objects <= min(state[row], k or num_objects))
                continue
            assert shown == [(state, k)]
            assert legal[text] == state[:row] + (state[row] - num_objects,) + state[row + 1:]
            accepted.add(text)
        assert accepted == set(legal)


def test_nim_state_and_strategies():
    state = nim.Nim(4, 3)
    assert state.rows == (1, 3, 5, 7) and state.k == 3 and str(state) == "<1 3 5 7>" and state
    state.nimming(nim.Nimply(3, 2))
    assert state.rows == (1, 3, 5, 5)
    with pytest.raises(AssertionError, match="more than k = 3"):
        state.nimming(nim.Nimply(3, 4))
    with pytest.raises(AssertionError, match="holds 1"):
        state.nimming((0, 2))
    with pytest.raises(AssertionError, match="at least 1"):
        state.nimming((1, 0))
    assert state.rows == (1, 3, 5, 5)
    assert not nim.Nim.with_rows([0, 0])
    game = make_game("nim", {"heaps": [1, 3, 5, 7]})
    state = game.initial_position
    legal = dict(game.moves(state))

    def take(nim_state, row):  # a pair will do, and a keyword is bound by construct
        return row, nim_state.rows[row]

    assert NIM.ask(NIM.construct(take, {"row": 2}), game, state, legal, 1) == "3-5"
    with pytest.raises(IllegalAnswer, match=r"there is no row 9 .*\(2 answers"):
        NIM.ask(answering(nim.Nimply(9, 1)), game, state, legal, 2)
    with pytest.raises(BadAgent, match="strategy"):
        NIM.construct(type("Inert", (), {}), {})


@pytest.mark.parametrize("name, params, names", [("quixo", {"size": 4}, {"Game", "Move", "Player"}),
                                                 ("quarto", {}, {"Quarto", "Player", "Piece"}),
                                                 ("nim", {"heaps": [1, 2]}, {"Nim", "Nimply"})])
def test_served_modules_give_the_course_names(monkeypatch, name, params, names):
    api = course_of(example_games()[name]).api
    monkeypatch.setitem(sys.modules, api.served, api.module(make_game(name, params)))
    imported = {}
    exec(f"from {api.served} import *", imported)
    assert set(imported) - {"__builtins__"} == names
    assert all(imported[cls].__module__ == api.served for cls in names)
