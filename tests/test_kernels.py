"""Property tests: numba kernels against plain-Python references.

ranking_kernels vs games.ranking, games.nim.kernels vs the Nim game's Python ranking,
packing round trips, and solvers.kernels.combine vs reference.combine_reference
under arbitrary chunkings.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as ref
from retrograde.data import packing
from retrograde.games import bits, make_game, ranking, ranking_arrays, ranking_kernels
from retrograde.games.ranking_kernels import rank_composition, unrank_composition
from retrograde.solvers import kernels

SETTINGS = settings(derandomize=True, max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------------------
# Board ranking
# --------------------------------------------------------------------------------------
@st.composite
def cells_and_mask(draw, low=1, high=25):
    cells = draw(st.integers(low, high))
    mask = draw(st.integers(0, (1 << cells) - 1))
    return cells, mask


@SETTINGS
@given(cells_and_mask())
def test_rank_mask_matches_reference_and_round_trips(case):
    cells, mask = case
    count = bin(mask).count("1")
    rank = ranking_kernels.rank_mask(mask)
    assert rank == ranking.rank_mask(mask)
    assert 0 <= rank < comb(cells, count)
    assert ranking_kernels.unrank_mask(rank, count) == mask
    assert ranking.unrank_mask(rank, count) == mask


@SETTINGS
@given(st.data())
def test_unrank_mask_matches_reference(data):
    cells = data.draw(st.integers(1, 25))
    count = data.draw(st.integers(0, cells))
    rank = data.draw(st.integers(0, comb(cells, count) - 1))
    mask = ranking_kernels.unrank_mask(rank, count)
    assert mask == ranking.unrank_mask(rank, count)
    assert bin(mask).count("1") == count
    assert mask < 1 << cells  # colex: ranks below C(cells, count) stay inside `cells` bits
    assert ranking_kernels.rank_mask(mask) == rank


@st.composite
def boards(draw):
    """(cells, first, second): two disjoint masks over 9..25 cells."""
    cells = draw(st.integers(9, 25))
    owner = draw(st.lists(st.integers(0, 2), min_size=cells, max_size=cells))
    first = sum(1 << c for c, o in enumerate(owner) if o == 1)
    second = sum(1 << c for c, o in enumerate(owner) if o == 2)
    return cells, first, second


@SETTINGS
@given(boards())
def test_rank_pair_matches_reference_and_round_trips(board):
    cells, first, second = board
    a, b = bin(first).count("1"), bin(second).count("1")
    index = ranking_kernels.rank_pair(first, second, cells)
    assert index == ranking.rank_pair(first, second, cells)
    assert 0 <= index < ranking.pair_size(a, b, cells)
    assert tuple(ranking_kernels.unrank_pair(index, a, b, cells)) == (first, second)
    assert ranking.unrank_pair(index, a, b, cells) == (first, second)


@SETTINGS
@given(boards())
def test_squeeze_by_tables_and_by_bmi2_match_reference(board):
    """Both ways of squeezing (byte tables everywhere; PEXT/PDEP where the host runs BMI2 fast,
    the one the kernels then use) agree with the plain-Python reference, and so does popcount."""
    cells, first, second = board
    packed = ranking.squeeze(second, first, cells)
    ways = [(ranking_kernels.squeeze_by_table, ranking_kernels.unsqueeze_by_table)]
    if bits.HAS_FAST_BMI2:
        ways.append((ranking_kernels.squeeze_by_bmi2, ranking_kernels.unsqueeze_by_bmi2))
    for squeeze, unsqueeze in ways:
        assert squeeze(second, first, cells) == packed
        assert unsqueeze(packed, first, cells) == second
    assert (ranking_kernels.squeeze, ranking_kernels.unsqueeze) == ways[-1]
    assert ranking_kernels.popcount(first) == bin(first).count("1")
    assert ranking_kernels.popcount(-1) == 64 and ranking_kernels.popcount(-(1 << 63)) == 1  # all 64 bits


@SETTINGS
@given(st.data())
def test_unrank_pair_matches_reference(data):
    cells = data.draw(st.integers(9, 25))
    a = data.draw(st.integers(0, cells))
    b = data.draw(st.integers(0, cells - a))
    index = data.draw(st.integers(0, ranking.pair_size(a, b, cells) - 1))
    first, second = ranking_kernels.unrank_pair(index, a, b, cells)
    assert (first, second) == ranking.unrank_pair(index, a, b, cells)
    assert first & second == 0
    assert (bin(first).count("1"), bin(second).count("1")) == (a, b)
    assert first | second < 1 << cells
    assert ranking_kernels.rank_pair(first, second, cells) == index


@SETTINGS
@given(st.lists(boards(), min_size=1, max_size=20))
def test_rank_pairs_over_arrays_matches_reference(batch):
    """The numpy batch ranking (the probe path) gives the reference index of every board."""
    for cells in {cells for cells, _, _ in batch}:
        firsts = np.array([first for c, first, _ in batch if c == cells], dtype=np.int64)
        seconds = np.array([second for c, _, second in batch if c == cells], dtype=np.int64)
        expected = [ranking.rank_pair(int(f), int(s), cells) for f, s in zip(firsts, seconds)]
        assert ranking_arrays.rank_pairs(firsts, seconds, cells).tolist() == expected


@SETTINGS
@given(st.data())
def test_unrank_pairs_over_arrays_matches_reference(data):
    """The numpy batch unranking (a format-4 probe's one-ply classes) gives the reference boards."""
    cells = data.draw(st.integers(9, 25))
    a = data.draw(st.integers(0, cells))
    b = data.draw(st.integers(0, cells - a))
    indices = data.draw(st.lists(st.integers(0, ranking.pair_size(a, b, cells) - 1), min_size=1, max_size=20))
    firsts, seconds = ranking_arrays.unrank_pairs(np.array(indices, dtype=np.int64), a, b, cells)
    assert list(zip(firsts.tolist(), seconds.tolist())) == [ranking.unrank_pair(i, a, b, cells) for i in indices]


@pytest.mark.parametrize("a,b", [(1, 0), (2, 1), (3, 3), (5, 4), (4, 4), (0, 0)])
def test_rank_pair_is_a_bijection_on_9_cells(a, b):
    """Exhaustively: every board of a class gets a distinct index in 0..size-1."""
    cells = 9
    indices = set()
    for owned in itertools.combinations(range(cells), a + b):
        for first_cells in itertools.combinations(owned, a):
            first = sum(1 << c for c in first_cells)
            second = sum(1 << c for c in owned if c not in first_cells)
            indices.add(ranking_kernels.rank_pair(first, second, cells))
    assert indices == set(range(ranking.pair_size(a, b, cells)))


# --------------------------------------------------------------------------------------
# Nim ranking
# --------------------------------------------------------------------------------------
@st.composite
def nim_cases(draw):
    heaps = draw(st.lists(st.integers(1, 7), min_size=1, max_size=5))
    position = tuple(draw(st.integers(0, h)) for h in heaps)
    return tuple(heaps), position


@SETTINGS
@given(nim_cases())
def test_nim_rank_unrank_match_python_rules(case):
    heaps, position = case
    game = make_game("nim", {"heaps": list(heaps)})
    ways = game._ways
    total = sum(position)
    name, index = game.locate(position)
    assert name == f"s{total}"
    tier = game.tier(name)
    assert 0 <= index < tier.size
    assert rank_composition(np.array(position, dtype=np.int64), ways, total) == index
    out = np.empty(len(heaps), dtype=np.int64)
    unrank_composition(index, total, ways, out)
    assert tuple(out.tolist()) == position
    assert game.position_at(tier, index) == position


@pytest.mark.parametrize("heaps", [(1, 3, 5, 7), (2, 2, 2), (6,), (4, 1, 3)])
def test_nim_kernel_ranks_are_a_bijection_per_tier(heaps):
    game = make_game("nim", {"heaps": list(heaps)})
    ways = game._ways
    by_tier: dict[int, list[int]] = {}
    for position in ref.nim_positions(heaps):
        total = sum(position)
        by_tier.setdefault(total, []).append(
            int(rank_composition(np.array(position, dtype=np.int64), ways, total)))
    for tier in game.tiers():
        assert sorted(by_tier[tier.key[0]]) == list(range(tier.size))


# --------------------------------------------------------------------------------------
# Packing
# --------------------------------------------------------------------------------------
@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=0, max_size=70), st.data())
def test_pack_unpack_round_trip(codes, data):
    array = np.array(codes, dtype=np.uint8)
    n = array.size
    packed = packing.pack(array)
    assert packed.dtype == np.uint8
    assert packed.size == packing.packed_length(n) == (n + 3) // 4
    # Documented layout: position i in byte i // 4 at bits 2 * (i % 4); padding bits zero.
    for i, code in enumerate(codes):
        assert (int(packed[i // 4]) >> (2 * (i % 4))) & 3 == code
    if n % 4:
        assert int(packed[-1]) >> (2 * (n % 4)) == 0
    unpacked = packing.unpack(packed, n)
    assert unpacked.dtype == np.uint8
    assert unpacked.tolist() == codes
    if n:
        offsets = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=20)),
                           dtype=np.int64)
        got = packing.unpack_at(packed[offsets // 4], offsets)
        assert got.tolist() == array[offsets].tolist()


def test_unpack_of_a_slice_starting_mid_array():
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 4, size=101, dtype=np.uint8)
    packed = packing.pack(codes)
    for start in (0, 4, 8, 52, 100):
        sub = packing.unpack(packed[start // 4:], codes.size - start)
        assert sub.tolist() == codes[start:].tolist()


# --------------------------------------------------------------------------------------
# combine
# --------------------------------------------------------------------------------------
PRIMITIVES = [ref.ILLEGAL, 0, 0, 0, ref.LOSS, ref.DRAW, ref.WIN]


@st.composite
def combine_cases(draw):
    n_pool = draw(st.integers(0, 30))
    allow_undecided = draw(st.booleans())
    outcome_codes = [ref.LOSS, ref.DRAW, ref.WIN] + ([ref.UNDECIDED] if allow_undecided else [])
    child_outcome = draw(st.lists(st.sampled_from(outcome_codes), min_size=n_pool, max_size=n_pool))
    child_remoteness = draw(st.lists(st.integers(0, 1000), min_size=n_pool, max_size=n_pool))
    n_rows = draw(st.integers(0, 40))
    width = draw(st.integers(0, 6))
    primitive, children = [], []
    for _ in range(n_rows):
        primitive.append(draw(st.sampled_from(PRIMITIVES)))
        count = draw(st.integers(0, width)) if n_pool else 0
        refs = draw(st.lists(st.integers(0, n_pool - 1), min_size=count, max_size=count)) if count else []
        children.append(refs + [-1] * (width - count))
    # Random chunk boundaries over the rows.
    cuts = sorted(set(draw(st.lists(st.integers(0, n_rows), max_size=6))) | {0, n_rows})
    return (np.array(primitive, dtype=np.int8),
            np.array(children, dtype=np.int64).reshape(n_rows, width),
            np.array(child_outcome, dtype=np.uint8),
            np.array(child_remoteness, dtype=np.uint16),
            cuts)


def _run(primitive, children, child_outcome, child_remoteness):
    n = primitive.shape[0]
    outcome = np.full(n, 99, dtype=np.uint8)  # garbage: the kernel must overwrite every row
    remoteness = np.full(n, 777, dtype=np.uint16)
    faults = np.full(n, 99, dtype=np.uint8)
    kernels.combine(primitive, children, child_outcome, child_remoteness, outcome, remoteness, faults,
                    np.iinfo(np.uint16).max)
    return outcome, remoteness, faults


@SETTINGS
@given(combine_cases())
def test_combine_matches_reference_under_any_chunking(case):
    primitive, children, child_outcome, child_remoteness, cuts = case
    expected = ref.combine_reference(primitive.tolist(), children.tolist(),
                                     child_outcome.tolist(), child_remoteness.tolist())
    whole = _run(primitive, children, child_outcome, child_remoteness)
    for got, want in zip(whole, expected):
        assert got.tolist() == want

    pieces = [_run(primitive[a:b], children[a:b], child_outcome, child_remoteness)
              for a, b in zip(cuts, cuts[1:])]
    for k in range(3):
        joined = np.concatenate([p[k] for p in pieces]) if pieces else np.zeros(0)
        assert joined.tolist() == whole[k].tolist()

    o, r, f = kernels.solve_rows(primitive, children, child_outcome, child_remoteness, np.uint16)
    assert (o.tolist(), r.tolist(), f.tolist()) == expected


def test_combine_handcrafted_rows():
    """Each rule once, with the expected answers written out."""
    L, D, W, U = ref.LOSS, ref.DRAW, ref.WIN, ref.UNDECIDED
    child_outcome = np.array([L, L, W, W, D, U], dtype=np.uint8)
    child_remoteness = np.array([4, 2, 7, 3, 0, 0], dtype=np.uint16)
    rows = [
        (ref.ILLEGAL, [0, 1, -1]),  # no position: 0/0, no fault even with children
        (L, [-1, -1, -1]),          # terminal loss
        (D, [-1, -1, -1]),          # terminal draw
        (W, [5, -1, -1]),           # terminal win: children ignored (even undecided)
        (0, [0, 1, 2]),             # fastest losing child 2 -> win in 3
        (0, [2, 3, 4]),             # a draw beats losing
        (0, [2, 3, -1]),            # only wins -> loss, slowest 7 -> 8
        (0, [3, -1, 0]),            # padding ends the list: child 0 after -1 is ignored
        (0, [0, 5, -1]),            # undecided child: fault 2 even with a losing child
        (0, [-1, -1, -1]),          # non-terminal, no moves: fault 1
        (0, [4, 4, -1]),            # only draws -> draw
    ]
    primitive = np.array([p for p, _ in rows], dtype=np.int8)
    children = np.array([c for _, c in rows], dtype=np.int64)
    outcome, remoteness, faults = _run(primitive, children, child_outcome, child_remoteness)
    assert outcome.tolist() == [0, L, D, W, W, D, L, L, 0, 0, D]
    assert remoteness.tolist() == [0, 0, 0, 0, 3, 0, 8, 4, 0, 0, 0]
    assert faults.tolist() == [0, 0, 0, 0, 0, 0, 0, 0, kernels.UNDECIDED_CHILD, kernels.NO_MOVES, 0]
    assert (kernels.NO_MOVES, kernels.UNDECIDED_CHILD) == (ref.NO_MOVES, ref.UNDECIDED_CHILD)
    expected = ref.combine_reference(primitive.tolist(), children.tolist(),
                                     child_outcome.tolist(), child_remoteness.tolist())
    assert expected == (outcome.tolist(), remoteness.tolist(), faults.tolist())


def test_combine_flags_remoteness_overflow_instead_of_wrapping():
    primitive = np.zeros(3, dtype=np.int8)
    children = np.array([[0, -1], [1, -1], [0, 2]], dtype=np.int64)
    child_outcome = np.array([1, 3, 3], dtype=np.uint8)        # loss, win, win
    child_remoteness = np.array([255, 255, 3], dtype=np.uint16)
    outcome, remoteness, faults = kernels.solve_rows(primitive, children, child_outcome, child_remoteness, np.uint8)
    # win in 256 and loss in 256 do not fit uint8; the third row is a win in 256 too.
    assert faults.tolist() == [kernels.OVERFLOW] * 3 and outcome.tolist() == [0, 0, 0]
    outcome, remoteness, faults = kernels.solve_rows(primitive, children, child_outcome, child_remoteness, np.uint16)
    assert faults.tolist() == [0, 0, 0]
    assert outcome.tolist() == [3, 1, 3] and remoteness.tolist() == [256, 256, 256]
