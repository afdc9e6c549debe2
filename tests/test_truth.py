"""Solved stores against published truths (FACTS.md) and independent references (reference.py)."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

import reference as ref
from retrograde import outcome as oc
from retrograde.data.probing import Value, values
from retrograde.data.store import Store
from retrograde.games import make_game


def test_reference_codes_match_package():
    assert (ref.UNDECIDED, ref.LOSS, ref.DRAW, ref.WIN, ref.ILLEGAL) == (
        oc.UNDECIDED, oc.LOSS, oc.DRAW, oc.WIN, oc.ILLEGAL)


# --------------------------------------------------------------------------------------
# Nim
# --------------------------------------------------------------------------------------
NAMED = [
    # (heaps, max_take, misere, chunk_size)
    ((1, 3, 5, 7), None, False, None),
    ((1, 3, 5, 7), None, True, None),
    ((2, 3, 3), None, True, 8),           # many chunks per tier
    ((1, 3, 5), 2, True, None),
    ((1, 3, 5), 2, False, None),
    ((1,), None, False, None),
    ((1,), None, True, None),
    ((1, 1), None, True, None),
    ((1, 1, 1), None, True, None),
    ((1, 1, 1, 1), None, False, None),
    ((2, 2), None, False, None),
    ((2, 2), None, True, None),
    ((9,), 3, True, None),                # single heap, misère bounded: loss iff n % 4 == 1
    ((9,), 3, False, None),
    ((4, 4, 4), 3, False, None),
    ((4, 4, 4), 3, True, None),
    ((1, 2, 2), 2, False, 4),             # smallest chunks
    ((3, 4, 5), None, False, None),
    ((3, 4, 5), None, True, None),
    ((1, 2, 3, 4), 1, True, None),        # k = 1: only parity matters
    ((5, 5), 10, True, None),             # bound above every heap = unbounded
    ((6, 6), 5, True, None),
]


def _random_instances(seed: int, count: int):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        heaps = tuple(rng.randint(1, 6) for _ in range(rng.randint(1, 4)))
        if math.prod(h + 1 for h in heaps) > 400:
            continue
        max_take = rng.choice([None, None, 1, 2, 3, 4, 5])
        misere = rng.random() < 0.5
        out.append((heaps, max_take, misere, None))
    return out


INSTANCES = NAMED + _random_instances(20240601, 14)


def _nim_id(case):
    heaps, k, misere, chunk = case
    return (",".join(map(str, heaps)) + (f"-k{k}" if k else "") + ("-misere" if misere else "")
            + (f"-c{chunk}" if chunk else ""))


@pytest.mark.parametrize("case", INSTANCES, ids=[_nim_id(c) for c in INSTANCES])
def test_nim_store_matches_closed_form_and_recursive_reference(open_solved, case):
    heaps, max_take, misere, chunk_size = case
    store = open_solved("nim", {"heaps": list(heaps), "max_take": max_take, "misere": misere},
                        chunk_size=chunk_size)
    game = store.game
    solver = ref.NimReference(max_take, misere)

    seen = []
    for tier in game.tiers():
        codes, remoteness = store.read_tier(tier.name)
        assert codes.shape == remoteness.shape == (tier.size,)
        for index in range(tier.size):
            position = game.position_at(tier, index)
            assert position is not None, f"{tier.name}[{index}]: every heap vector is legal"
            assert sum(position) == tier.key[0]
            seen.append(position)
            got = (int(codes[index]), int(remoteness[index]))
            assert got[0] == ref.nim_closed_form(position, max_take, misere), (position, got)
            assert got == solver.solve(position), (position, got)

    # The tiers enumerate every heap vector exactly once.
    expected = ref.nim_positions(heaps)
    assert len(seen) == len(expected)
    assert set(seen) == set(expected)

    # Probing by position (locate path) gives the same values.
    probed = values(store, expected)
    for position, value in zip(expected, probed):
        o, r = solver.solve(position)
        assert value == Value(o, r), position


def test_nim_reference_agrees_with_closed_forms():
    """The recursive reference itself reproduces every published closed form (sanity check)."""
    checked = 0
    for max_take in (None, 1, 2, 3, 4):
        for misere in (False, True):
            solver = ref.NimReference(max_take, misere)
            for position in ref.nim_positions((5, 5, 4)):
                assert solver.solve(position)[0] == ref.nim_closed_form(position, max_take, misere)
                checked += 1
    assert checked == 10 * 6 * 6 * 5


def test_nim_reference_known_values():
    # Normal play 1,3,5,7 has nim-sum 0: a loss; misère too (heaps > 1, XOR 0).
    assert ref.NimReference().solve((1, 3, 5, 7))[0] == ref.LOSS
    assert ref.NimReference(misere=True).solve((1, 3, 5, 7))[0] == ref.LOSS
    # A single heap of n: win in 1 ply (take all) in normal play.
    assert ref.NimReference().solve((6,)) == (ref.WIN, 1)
    # Misère single heap of n > 1: take n-1 leaving 1, opponent must take it: win in 2 plies.
    assert ref.NimReference(misere=True).solve((6,)) == (ref.WIN, 2)
    assert ref.NimReference(misere=True).solve((1,)) == (ref.LOSS, 1)
    assert ref.NimReference(misere=True).solve((0,)) == (ref.WIN, 0)
    assert ref.NimReference().solve((0, 0)) == (ref.LOSS, 0)
    # k = 1: every move takes one object; the parity decides and the game lasts `total` plies.
    assert ref.NimReference(max_take=1).solve((2, 3)) == (ref.WIN, 5)
    assert ref.NimReference(max_take=1).solve((2, 2)) == (ref.LOSS, 4)


# --------------------------------------------------------------------------------------
# Tic-tac-toe
# --------------------------------------------------------------------------------------
BY_MARKS = [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]


@pytest.fixture(scope="module")
def reachable():
    return ref.ttt_reachable()


@pytest.fixture(scope="module")
def ttt(solved):
    store = Store.open(solved("tictactoe"))
    yield store
    store.close()


@pytest.fixture(scope="module")
def ttt_tiers(ttt):
    """marks k -> (codes, remoteness, [position_at(i) for every index])."""
    game = ttt.game
    out = {}
    for tier in game.tiers():
        codes, remoteness = ttt.read_tier(tier.name)
        out[tier.key[0]] = (codes, remoteness, [game.position_at(tier, i) for i in range(tier.size)])
    return out


def test_ttt_reference_sanity(reachable):
    """The independent enumerator reproduces the published counts (checks the reference)."""
    assert len(reachable) == 5478
    assert [sum(b.count(".") == 9 - k for b in reachable) for k in range(10)] == BY_MARKS
    finished = [b for b in reachable if ref.ttt_is_terminal(b)]
    assert len(finished) == 958
    x_won = sum(ref.ttt_has_line(b, "x") for b in finished)
    o_won = sum(ref.ttt_has_line(b, "o") for b in finished)
    assert (x_won, o_won, len(finished) - x_won - o_won) == (626, 316, 16)
    assert ref.ttt_complete_games() == 255_168
    assert ref.ttt_value(ref.EMPTY_BOARD) == (ref.DRAW, 0)


def test_ttt_tiers_cover_all_marks(ttt):
    tiers = ttt.game.tiers()
    assert sorted(t.key[0] for t in tiers) == list(range(10))
    for t in tiers:
        k = t.key[0]
        assert t.size == math.comb(9, (k + 1) // 2) * math.comb(9 - (k + 1) // 2, k // 2)


def test_ttt_reachable_counts_by_marks(ttt, ttt_tiers, reachable):
    """Each tier's recorded counts cover every reachable board (a representative counts its
    whole class); the store holds one board per class: 765 for the 5,478 (FACTS.md)."""
    recorded = [sum(ttt.record(f"k{k}").count(key) for key in ("win", "loss", "draw")) for k in range(10)]
    assert recorded == BY_MARKS and sum(recorded) == 5478
    kept = [int(np.count_nonzero(ttt_tiers[k][0])) for k in range(10)]
    classes = Counter(9 - board.count(".") for board in {ref.ttt_representative(b) for b in reachable})
    assert kept == [classes[k] for k in range(10)] and sum(kept) == 765


def test_ttt_stored_positions_are_exactly_the_reachable_representatives(ttt_tiers, reachable):
    """Values are stored at the representatives of reachable boards (by the reference's own
    symmetry rule), every other index is a hole."""
    representatives = {ref.ttt_representative(b) for b in reachable}
    stored = set()
    for k, (codes, _, positions) in ttt_tiers.items():
        for index, position in enumerate(positions):
            kept = position is not None and ref.ttt_from_masks(*position) in representatives
            if not kept:
                assert codes[index] == oc.UNDECIDED, f"hole k{k}[{index}] stores {codes[index]}"
            else:
                assert codes[index] in (oc.WIN, oc.LOSS, oc.DRAW), f"k{k}[{index}] {position}"
                assert bin(position[0] | position[1]).count("1") == k
                stored.add(ref.ttt_from_masks(*position))
    assert stored == representatives


def test_ttt_terminal_counts_from_store(ttt_tiers):
    # Terminal: a loss at remoteness 0 (the previous mover made a line) or a full-board draw; a
    # stored board stands for its class (the reference's images).
    x_won = o_won = draws = 0
    for k, (codes, remoteness, positions) in ttt_tiers.items():
        lost_now = (codes == oc.LOSS) & (remoteness == 0)
        for index in np.flatnonzero(lost_now | (codes == oc.DRAW) & (k == 9)):
            board = ref.ttt_from_masks(*positions[index])
            count = len(ref.ttt_images(board))
            if not lost_now[index]:
                draws += count
            elif k % 2:  # x made the last move
                x_won += count
            else:
                o_won += count
            # Only terminal positions have remoteness 0 among decided ones, and those have no moves.
            assert ref.ttt_is_terminal(board) and not ref.ttt_successors(board)
    assert (x_won, o_won, draws) == (626, 316, 16)
    assert x_won + o_won + draws == 958


def test_ttt_game_moves_agree_with_reference_terminals(ttt_tiers):
    """The game's own Python rules: no moves exactly at the 958 finished boards, and the
    children it lists are the reference's successors."""
    terminal = 0
    game = make_game("tictactoe")
    for _, _, positions in ttt_tiers.values():
        for p in positions:
            if p is None:
                continue
            board = ref.ttt_from_masks(*p)
            children = sorted(ref.ttt_from_masks(*child) for _, child in game.moves(p))
            assert children == sorted(ref.ttt_successors(board)), board
            terminal += not children
    assert terminal == 958


def test_ttt_root_is_a_draw(ttt):
    assert values(ttt, [(0, 0)]) == [Value(oc.DRAW, None)]
    assert values(ttt, [ttt.game.initial_position]) == [Value(oc.DRAW, None)]


def test_ttt_every_value_matches_minimax(ttt, ttt_tiers, reachable):
    boards = sorted(reachable)
    positions = [ref.ttt_to_masks(b) for b in boards]
    probed = values(ttt, positions)
    outcomes = Counter()
    for board, position, value in zip(boards, positions, probed):
        o, r = ref.ttt_value(board)
        assert value == Value(o, None if o == ref.DRAW else r), (board, value, (o, r))
        # The whole-tier read at the board's representative agrees with the probe path.
        k = 9 - board.count(".")
        tier, index = ttt.game.locate(ref.ttt_to_masks(ref.ttt_representative(board)))
        assert tier == f"k{k}"
        codes, remoteness, tier_positions = ttt_tiers[k]
        assert tier_positions[index] == ref.ttt_to_masks(ref.ttt_representative(board))
        assert int(codes[index]) == o
        if o != ref.DRAW:
            assert int(remoteness[index]) == r
        outcomes[o] += 1
    assert sum(outcomes.values()) == 5478
    # Draw remoteness is stored as 0.
    for codes, remoteness, _ in ttt_tiers.values():
        assert not np.any(remoteness[codes == oc.DRAW])


def test_ttt_chunked_solve_matches_reference(solved, reachable):
    """Small chunks (many chunk boundaries per tier) give the same values."""
    store = Store.open(solved("tictactoe", None, chunk_size=200))
    try:
        assert any(store.plan.chunking(t.name).count > 1 for t in store.plan.tiers)
        boards = sorted(reachable)
        probed = values(store, [ref.ttt_to_masks(b) for b in boards])
        for board, value in zip(boards, probed):
            o, r = ref.ttt_value(board)
            assert value == Value(o, None if o == ref.DRAW else r), board
        for tier in store.game.tiers():
            record = store.record(tier.name)
            assert sum(record.count(key) for key in ("win", "loss", "draw")) == BY_MARKS[tier.key[0]]
    finally:
        store.close()


def test_nim_store_remoteness_dtype_holds_the_longest_game():
    """Nim with k = 1 lasts exactly `total` plies from the start (every ply takes one object),
    so the start position of heaps [70000], k = 1 is a normal-play loss at remoteness 70000
    (an even total). The store's remoteness array must be able to hold it, or the value
    silently wraps (70000 -> 4464 in uint16)."""
    from retrograde.data.plan import make_plan

    heaps, longest = [70000], 70000
    # The reference agrees on the rule for small totals: remoteness == total with k = 1.
    for total in range(1, 12):
        assert ref.NimReference(max_take=1).solve((total,))[1] == total
    game = make_game("nim", {"heaps": heaps, "max_take": 1})
    dtype = make_plan(game).remoteness_dtype
    capacity = int(np.iinfo(np.dtype(dtype)).max)
    assert capacity >= longest, (f"plan stores remoteness as {dtype} (max {capacity}), but "
                                 f"{game.describe()} has a position at remoteness {longest}")
