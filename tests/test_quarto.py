"""Quarto: notation and rules against an independent reference (quarto_reference.py), the
expand kernel against the plain-Python rules, exact solves below small roots against the
reference's negamax, and bad input refused in one line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quarto_reference as ref
import retrograde
from conftest import run_cli
from retrograde import outcome as oc
from retrograde.data.probing import values
from retrograde.data.store import Store
from retrograde.errors import BadOption, BadPosition
from retrograde.games import make_game, parse_game
from retrograde.games.check import check_game
from retrograde.games.quarto.symmetry import board_symmetries, piece_maps, stabiliser_order, transform
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.stages import verify_stage

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

#: (root, squares, reference value): roots with 5-6 empty cells reached by seeded random play,
#: picked so that the values differ (a win in 5, a loss in 4, a draw, the 2x2-square variant).
ROOTS = [
    ("378b/.a.6/.f40/2..e 1", False, (ref.WIN, 5)),
    ("4e.b/a7d5/..1./.63f 0", False, (ref.LOSS, 4)),
    (".1fb/3e../.794/250. c", False, (ref.DRAW, 0)),
    ("..e6/1.../2.58/70ac d", True, (ref.WIN, 3)),
]


def playout_root(empty: int, seed: int, squares: bool = False) -> str:
    """A position with `empty` empty cells, no line and a piece in hand: seeded random play
    from the start (random cells, random pieces), played again until no line was made."""
    rng = random.Random(seed)
    while True:
        cells, pieces = rng.sample(range(16), 16), rng.sample(range(16), 16)
        board = [None] * 16
        for cell, piece in zip(cells[:16 - empty], pieces):
            board[cell] = piece
            if ref.won(tuple(board), squares):
                break
        else:
            return ref.write(tuple(board), pieces[16 - empty] if empty else None)


# --- notation ------------------------------------------------------------------------------
@st.composite
def positions(draw):
    """(squares, any position in notation): a random filling of the board, a free piece in hand,
    or '-' where nothing is in hand (the empty board, a board with a line, a full board)."""
    squares = draw(st.booleans())
    order = draw(st.permutations(range(16)))
    filled = draw(st.integers(0, (1 << 16) - 1))
    cells = tuple(order[cell] if filled >> cell & 1 else None for cell in range(16))
    free = [piece for piece in range(16) if piece not in cells]
    if ref.won(cells, squares) or not free or (not filled and draw(st.booleans())):
        return squares, ref.write(cells, None)
    return squares, ref.write(cells, draw(st.sampled_from(free)))


@SETTINGS
@given(drawn=positions())
def test_notation_round_trips_and_accepts_upper_case(drawn):
    squares, text = drawn
    game = make_game("quarto", {"squares": squares})
    cells, hand = ref.read(text)
    position = game.parse(text)
    assert position == (tuple(-1 if piece is None else piece for piece in cells), -1 if hand is None else hand)
    assert game.format(position) == text
    assert game.parse(text.upper()) == position


def test_a_finished_board_hands_nothing():
    game = make_game("quarto")
    assert game.format(game.parse("0123/..../..../.... 5")) == "0123/..../..../.... -"
    assert game.primitive(game.parse("0123/..../..../.... -")) == oc.LOSS


@pytest.mark.parametrize("text,message", [
    ("0123/..../..../...", "row 4 has 3 cells"),
    ("0123/..../....", "3 rows"),
    ("0123/..../..../..... 4", "row 4 has 5 cells"),
    ("0g../..../..../.... 4", "bad cell 'g' at b1"),
    ("01../..../..1./.... 4", "piece 1 stands twice, on b1 and c3"),
    ("01../..../..../.... 1", "piece 1 in hand already stands on b1"),
    ("01../..../..../.... x", "bad piece in hand 'x'"),
    ("01../..../..../.... 45", "bad piece in hand '45'"),
    ("01../..../..../....", "give the piece in hand"),
    ("01../..../..../.... -", "'-' .nothing in hand. is only for the empty board"),
])
def test_bad_positions_are_named(text, message):
    with pytest.raises(BadPosition, match=message):
        make_game("quarto").parse(text)


# --- rules -----------------------------------------------------------------------------------
@SETTINGS
@given(drawn=positions())
def test_moves_match_the_reference(drawn):
    squares, text = drawn
    game = make_game("quarto", {"squares": squares})
    moves = {move: game.format(child) for move, child in game.moves(game.parse(text))}
    assert moves == ref.successors(text, squares)
    code = game.primitive(game.parse(text))
    cells, _ = ref.read(text)
    assert code == (oc.LOSS if ref.won(cells, squares) else oc.DRAW if None not in cells else 0)


def test_the_squares_variant_adds_the_2x2_lines():
    # 0, 1, 2, 3 share a clear bit 3; in a 2x2 square they make a line only with --squares.
    squares = make_game("quarto", {"squares": True})
    assert squares.primitive(squares.parse("01../23../..../.... -")) == oc.LOSS
    plain = make_game("quarto")
    assert plain.primitive(plain.parse("01../23../..../.... 4")) == 0
    position = "01../2.../..../.... 3"  # 3 at b2 completes the square a1 b1 a2 b2
    assert "b2" in dict(squares.moves(squares.parse(position)))
    assert "b2" not in dict(plain.moves(plain.parse(position))) and "b2:4" in dict(plain.moves(plain.parse(position)))


def test_move_notation():
    game = make_game("quarto")
    start = dict(game.moves(game.initial_position))
    assert sorted(start) == [f":{d}" for d in "0123456789abcdef"]
    moves = dict(game.moves(game.parse("012./..../..../.... 4")))
    assert "d1" in moves and "d1:5" not in moves          # 0 1 2 4 share bit 3 clear: placing ends the game
    assert game.format(moves["b3:7"]) == "012./..../.4../.... 7"
    assert len(moves) == 1 + 12 * 12


@pytest.mark.parametrize("position,text,reason", [
    ("012./..../..../.... 4", "e1:5", "not a move"),
    ("012./..../..../.... 4", "a1:5", "a1 holds piece 0"),
    ("012./..../..../.... 4", "d1:5", "ends the game, so nothing is handed over: write d1"),
    ("012./..../..../.... 4", "b3", "hand a piece over: b3:PIECE"),
    ("012./..../..../.... 4", "b3:4", "the one you are placing"),
    ("012./..../..../.... 4", "b3:1", "already on the board"),
    ("012./..../..../.... 4", "b3:z", "'z' is not a piece"),
    ("..../..../..../.... -", "a1:3", "first hand a piece over, written :PIECE"),
    ("0123/..../..../.... -", "a2:4", "the game is over"),
])
def test_illegal_moves_say_why(position, text, reason):
    game = make_game("quarto")
    assert reason in game.display.why_illegal(game.parse(position), text)


# --- tiers, ranking, kernels -----------------------------------------------------------------
@pytest.mark.parametrize("empty,squares", [(3, False), (7, False), (8, True), (10, False)])
def test_check_game(empty, squares):
    game = make_game("quarto", {"root": playout_root(empty, empty, squares), "squares": squares})
    assert check_game(game, samples=60, seed=2) == []


def test_check_game_from_the_opening():
    assert check_game(make_game("quarto"), samples=8, seed=3) == []


@SETTINGS
@given(seed=st.integers(0, 10**6), empty=st.integers(1, 11), squares=st.booleans(),
       depth=st.floats(0, 1), where=st.floats(0, 1))
def test_kernel_matches_the_rules(seed, empty, squares, depth, where):
    game = make_game("quarto", {"root": playout_root(empty, seed, squares), "squares": squares})
    tiers = {tier.name: tier for tier in game.tiers()}
    tier = game.tier(game.tier_name(round(depth * empty)))
    index = min(int(where * tier.size), tier.size - 1)
    offsets = np.array([0], dtype=np.int64)
    expansion = game.expand(tier, index, index + 1, offsets)
    position = game.position_at(tier, index)
    if position is None:
        assert expansion.primitive[0] == oc.ILLEGAL
        return
    assert game.locate(position) == (tier.name, index)
    row = expansion.children[0].tolist()
    row = row[:row.index(-1)] if -1 in row else row
    expected = []
    for _, child in game.moves(position):
        name, child_index = game.locate(child)
        assert name in tier.children and game.position_at(tiers[name], child_index) == child
        expected.append(child_index)
    assert (int(expansion.primitive[0]), sorted(row)) == (game.primitive(position), sorted(expected))


def test_tier_sizes_count_the_index_space():
    game = make_game("quarto", {"root": playout_root(9, 9)})
    sizes = {tier.name: tier.size for tier in game.tiers()}
    # 9 empty cells, piece in hand placed first: C(9,k) cells x C(8,k-1) sets x k! orders x (9-k) hands.
    assert sizes == {"p7": 1, "p8": 72, "p9": 4032, "p10": 84672, "p11": 846720, "p12": 4233600,
                     "p13": 10160640, "p14": 10160640, "p15": 2903040, "p16": 362880}
    assert sum(sizes.values()) == 28_756_297
    assert [tier.name for tier in make_game("quarto").tiers()][-2:] == ["p0", "start"]


# --- symmetry -------------------------------------------------------------------------------
def test_symmetry_group_sizes_match_the_literature():
    assert len(board_symmetries(False)) == 32 and len(board_symmetries(True)) == 8
    assert len(set(piece_maps())) == 384
    assert stabiliser_order(make_game("quarto").initial_position, False) == 32 * 384
    assert stabiliser_order(make_game("quarto").parse(ROOTS[0][0]), False) == 1


@SETTINGS
@given(drawn=positions(), which=st.integers(0, 32 * 384 - 1))
def test_symmetries_keep_lines_and_moves(drawn, which):
    """Under every symmetry the reference sees the same lines and the same number of moves."""
    squares, text = drawn
    game = make_game("quarto", {"squares": squares})
    boards = board_symmetries(squares)
    image = game.format(transform(game.parse(text), boards[which % len(boards)], piece_maps()[which // 32]))
    assert ref.won(ref.read(image)[0], squares) == ref.won(ref.read(text)[0], squares)
    assert len(ref.successors(image, squares)) == len(ref.successors(text, squares))


def test_a_symmetric_image_of_a_root_solves_to_the_same_value(solved):
    root, _, (outcome, remoteness) = ROOTS[1]
    game = make_game("quarto", {"root": root})
    image = game.format(transform(game.root, board_symmetries(False)[5], piece_maps()[77]))
    assert image != root
    store = Store.open(solved("quarto", {"root": image}))
    try:
        assert values(store, [store.game.initial_position])[0] == (outcome, remoteness)
    finally:
        store.close()


# --- solves against the reference ------------------------------------------------------------
@pytest.mark.parametrize("root,squares,value", ROOTS, ids=[root for root, _, _ in ROOTS])
def test_every_stored_value_matches_the_reference(solved, root, squares, value):
    assert ref.value(root, squares) == value
    store = Store.open(solved("quarto", {"root": root, "squares": squares}, chunk_size=256))
    try:
        game = store.game
        stored = set()
        for tier in game.tiers():
            codes, remoteness = store.read_tier(tier.name)
            for index in range(tier.size):
                position = game.position_at(tier, index)
                if position is None:
                    assert codes[index] == oc.UNDECIDED, (tier.name, index)
                    continue
                text = game.format(position)
                stored.add(text)
                assert (int(codes[index]), int(remoteness[index])) == ref.value(text, squares), text
        assert stored == ref.below(root, squares)
        assert values(store, [game.initial_position])[0].outcome == value[0]
        result = verify_stage(store, InProcessExecutor(), quiet=True)
        assert result.ok
    finally:
        store.close()


def test_the_game_description_round_trips():
    game = make_game("quarto", {"root": "378B/.a.6/.F40/2..e 1", "squares": True})
    assert game.describe() == "quarto --from '378b/.a.6/.f40/2..e 1' --squares"
    assert parse_game(game.describe()).params == game.params == {"root": "378b/.a.6/.f40/2..e 1", "squares": True}
    whole = make_game("quarto", {"root": "..../..../..../.... -"})  # the whole game reads as plain `quarto`
    assert whole.describe() == "quarto" and whole.params == make_game("quarto").params == {"root": None, "squares": False}


@pytest.mark.parametrize("root,message", [
    ("0123/..../..../.... 4", "already holds a line"),
    ("01../..../..1./.... 4", "piece 1 stands twice"),
    ("01../..../..../.... 0", "piece 0 in hand already stands on a1"),
    ("0q../..../..../.... 4", "bad cell 'q'"),
    ("01./..../..../.... 4", "row 1 has 3 cells"),
])
def test_bad_roots_are_refused(root, message):
    with pytest.raises(BadOption, match=message):
        make_game("quarto", {"root": root})


def test_locate_refuses_positions_not_below_the_root():
    game = make_game("quarto", {"root": "378b/.a.6/.f40/2..e 1"})
    for text, message in [("378b/.a.6/.f40/2..e 5", "no piece placed, but another piece in hand"),
                          ("378b/1a.6/.f40/2..e 5", None),
                          ("378b/.a56/.f40/2..e 1", "the root's piece in hand, 1, is not on the board"),
                          ("3789/.a.6/.f40/2..e 1", "d1 holds piece b there, piece 9 here")]:
        position = game.parse(text)
        if message is None:
            assert game.locate(position)[0] == "p12"
        else:
            with pytest.raises(BadPosition, match=message):
                game.locate(position)


def test_store_doc_recipe_reads_quarto_values(solved, monkeypatch):
    """docs/STORE.md's Quarto block (after the shared one) finds every sampled position's value."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "STORE.md").read_text()
    section = text[text.index("## Reading one value with zarr and numpy"):]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0] + re.findall(r"```py\n(.*?)```", section,
                                                                               flags=re.S)[0]
    root, squares, _ = ROOTS[0]
    path = solved("quarto", {"root": root, "squares": squares}, chunk_size=256)
    rng = random.Random(4)
    with retrograde.open_store(path) as store:
        positions = [root]
        for name, info in store.tiers.items():
            found = [store.position_at(name, index) for index in rng.sample(range(info.size), min(40, info.size))]
            positions += [str(position) for position in found if position is not None]
        for position, value in zip(positions, store.values(positions)):
            out = io.StringIO()
            monkeypatch.setenv("STORE", str(path))
            monkeypatch.setenv("POSITION", position)
            with contextlib.redirect_stdout(out):
                exec(compile(code, "STORE.md", "exec"), {"__name__": "store_doc"})
            expected = (value.position.tier, str(value.position.index), value.value, str(value.remoteness))
            assert tuple(out.getvalue().split()) == expected, position
    alone = subprocess.run([sys.executable, "-c", code + "\nimport sys\nassert 'retrograde' not in sys.modules\n"],
                           capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, STORE=str(path), POSITION=root))
    assert alone.returncode == 0 and alone.stdout.split() == ["p11", "0", "win", "5"], alone.stderr


# --- command line --------------------------------------------------------------------------
def test_cli_solve_probe_and_bad_input(tmp_path):
    root, squares, (outcome, remoteness) = ROOTS[1]
    store = tmp_path / "q.zarr"
    result = run_cli("solve", "quarto", "--from", root, "--store", str(store), "--quiet")
    assert result.returncode == 0, result.stderr
    probe = json.loads(run_cli("probe", "--store", str(store), "--json", root).stdout)
    assert (probe["value"], probe["remoteness"]) == ("loss", remoteness)
    assert {move["value"] for move in probe["moves"]} == {"loss"}  # every move loses, the slowest in 4
    assert max(move["remoteness"] for move in probe["moves"]) == remoteness
    for args in (["probe", "--store", str(store), "378b/.a.6/.f40/2..e 1"],          # another root
                 ["probe", "--store", str(store), "4e.b/a7d5/..1./.63f 1"],          # hand on the board
                 ["solve", "quarto", "--from", "0123/..../..../.... 4", "--store", str(tmp_path / "x.zarr")],
                 ["solve", "quarto", "--from", "01../..../..0./.... 4", "--store", str(tmp_path / "x.zarr")]):
        failed = run_cli(*args)
        assert failed.returncode == 2 and len(failed.stderr.strip().splitlines()) == 1, (args, failed.stderr)
        assert "Traceback" not in failed.stderr
    assert not (tmp_path / "x.zarr").exists()


def test_cli_refuses_the_whole_game(tmp_path):
    result = run_cli("solve", "quarto", "--store", str(tmp_path / "all.zarr"))
    assert result.returncode != 0 and "--from POSITION" in result.stderr
    assert not (tmp_path / "all.zarr").exists()
