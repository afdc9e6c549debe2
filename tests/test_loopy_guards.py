"""The loopy-group kernels (`solvers.loopy`) on tiny hand-made arrays: normal inputs solve as a
plain fixpoint does, and every overflow guard fires (remoteness + 1 past the remoteness dtype,
a pending-children count past its bits or below zero) instead of wrapping."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from retrograde.errors import RetrogradeError, StoreError
from retrograde.games.base import IN_GROUP, LOSING_CHILD, WINNING_CHILD
from retrograde.outcome import DRAW, ILLEGAL, LOSS, UNDECIDED, WIN
from retrograde.solvers import loopy
from retrograde.solvers.kernels import OVERFLOW


def first_pass(primitive, children, out_outcome=(), out_remoteness=(), *, group_size, dtype=np.uint8,
               base=0, rows=None, describe=None):
    """Run `settle_from_outside` over fresh arrays of `rows` positions (default: one a row)."""
    primitive = np.asarray(primitive, dtype=np.int8)
    children = np.asarray(children, dtype=np.int64).reshape(len(primitive), -1)
    n = rows if rows is not None else base + len(primitive)
    outcome = np.zeros(n, dtype=np.uint8)
    remoteness = np.zeros(n, dtype=dtype)
    pending = np.zeros(n, dtype=np.uint8)
    faults = loopy.settle_from_outside(primitive, children, group_size, np.asarray(out_outcome, dtype=np.uint8),
                                       np.asarray(out_remoteness, dtype=np.uint16), base, outcome, remoteness,
                                       pending, describe=describe)
    return faults, outcome, remoteness, pending


def ones(parents: np.ndarray) -> np.ndarray:
    """Weights of 1: each parent has one move into its child."""
    return np.ones(parents.shape, dtype=np.int8)


def propagate_all(parent_lists, outcome, remoteness, pending, *, level=0):
    """Levels as `pipeline.propagation.propagate_group` runs them, then draws."""
    width = max(1, max(map(len, parent_lists)))
    table = np.full((len(parent_lists), width + 1), -1, dtype=np.int64)
    for i, parents in enumerate(parent_lists):
        table[i, :len(parents)] = parents
    settled = (outcome == WIN) | (outcome == LOSS)
    highest = int(remoteness[settled].max(initial=0))
    while level <= highest:
        found = loopy.settled_at(outcome, remoteness, level, 0, outcome.size)
        highest = max(highest, loopy.propagate(level, outcome[found], table[found], ones(table[found]), outcome,
                                               remoteness, pending))
        level += 1
    loopy.finish_draws(outcome, remoteness, pending)


# --------------------------------------------------------------------------------------
# Normal inputs
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_a_hand_made_group_solves(dtype):
    """0 -> {1, out win in 3}; 1 -> {2}; 2 -> {out loss in 2}; 3 -> {3, out draw}; 4 terminal loss;
    5 -> {4}; 6 -> {5, 0}: by hand 2 wins in 3, 1 loses in 4, 0 wins in 5, 3 draws, 5 wins in 1,
    6 loses in 6 (its slowest winning child is 0)."""
    g = 7
    children = [[1, g + 0], [2, -1], [g + 1, -1], [3, g + 2], [-1, -1], [4, -1], [5, 0]]
    primitive = [0, 0, 0, 0, LOSS, 0, 0]
    faults, outcome, remoteness, pending = first_pass(primitive, children, [WIN, LOSS, DRAW], [3, 2, 0],
                                                      group_size=g, dtype=dtype)
    assert faults == 0
    assert outcome.tolist() == [0, 0, WIN, 0, LOSS, 0, 0]
    assert pending.tolist() == [1, 1, 0, 1 | loopy.HAS_DRAW, 0, 1, 2]
    assert remoteness.tolist()[:2] == [4, 0]  # 1 + the slowest winning child outside so far
    propagate_all([[6], [0], [1], [3], [5], [6], []], outcome, remoteness, pending)
    assert outcome.tolist() == [WIN, LOSS, WIN, DRAW, LOSS, WIN, LOSS]
    assert remoteness.tolist() == [5, 4, 3, 0, 0, 1, 6]
    assert remoteness.dtype == dtype


def _fixpoint(kinds, children):
    """Plain level-by-level fixpoint over a small graph: kinds[i] is ('terminal', value) or
    ('inner', None); children[i] a list of ('in', j) or ('out', (outcome, remoteness))."""
    n = len(kinds)
    value = [kind[1] if kind[0] == "terminal" else None for kind in kinds]

    def child_values(i):
        return [value[c] if where == "in" else c for where, c in children[i]]

    slowest_outside = max((c[1] for links in children for where, c in links if where == "out"), default=0)
    for level in range(slowest_outside + 2 * n + 2):  # past every level a value can reach
        decided = []
        for i in range(n):
            if value[i] is None:
                got = child_values(i)
                if (LOSS, level) in got:
                    decided.append((i, (WIN, level + 1)))
                elif all(v is not None and v[0] == WIN for v in got) and max(r for _, r in got) == level:
                    decided.append((i, (LOSS, level + 1)))
        for i, v in decided:  # after the scan: a level sees only the levels below it
            value[i] = v
    return [v if v is not None else (DRAW, 0) for v in value]


def test_random_groups_solve_as_a_plain_fixpoint():
    """Seeded random graphs (cycles, terminals, children outside with any value) through the
    first pass and the levels, against `_fixpoint`; uint8 and uint16 give the same values."""
    rng = random.Random(2024)
    for case in range(300):
        n = rng.randint(1, 12)
        kinds = [("terminal", (rng.choice([WIN, LOSS]), 0)) if rng.random() < 0.2 else ("inner", None)
                 for _ in range(n)]
        children = []
        for kind in kinds:
            links = []
            if kind[0] == "inner":
                for _ in range(rng.randint(1, 4)):
                    if rng.random() < 0.6:
                        links.append(("in", rng.randrange(n)))
                    else:
                        links.append(("out", (rng.choice([WIN, LOSS, DRAW]), rng.randint(0, 9))))
            children.append(links)
        outside = [c for links in children for where, c in links if where == "out"]
        refs, parents = [], [[] for _ in range(n)]
        for i, links in enumerate(children):
            row = []
            for where, c in links:
                if where == "in":
                    row.append(c)
                    parents[c].append(i)
                else:
                    row.append(n + outside.index(c))
            refs.append(row + [-1] * (5 - len(row)))
        primitive = [kind[1][0] if kind[0] == "terminal" else 0 for kind in kinds]
        out_outcome = [o for o, _ in outside]
        out_remoteness = [0 if o == DRAW else r for o, r in outside]
        expected = _fixpoint(kinds, [[(w, c if w == "in" else (c[0], 0 if c[0] == DRAW else c[1]))
                                      for w, c in links] for links in children])
        for dtype in (np.uint8, np.uint16):
            faults, outcome, remoteness, pending = first_pass(primitive, refs, out_outcome, out_remoteness,
                                                              group_size=n, dtype=dtype)
            assert faults == 0
            propagate_all(parents, outcome, remoteness, pending)
            got = list(zip(outcome.tolist(), remoteness.tolist()))
            assert got == expected, (case, kinds, children)


def test_terminal_children_given_by_value_and_the_old_fault_count():
    """LOSING_CHILD / WINNING_CHILD count as a loss / win at 0; a row without moves and an
    unsolved child outside are counted as before (no exception)."""
    faults, outcome, remoteness, pending = first_pass(
        [0, 0, 0, 0], [[WINNING_CHILD, IN_GROUP], [LOSING_CHILD, -1], [-1, -1], [4, -1]],
        [UNDECIDED], [0], group_size=4)
    assert faults == 3  # row 2 once; row 3 twice (its child, then a row left without a value)
    assert outcome.tolist()[:2] == [0, WIN] and remoteness.tolist()[:2] == [1, 1] and pending.tolist()[0] == 1


# --------------------------------------------------------------------------------------
# First pass guards
# --------------------------------------------------------------------------------------
def test_first_pass_win_past_the_dtype_faults_instead_of_wrapping():
    g = 1
    ok = first_pass([0], [[g + 0, -1]], [LOSS], [254], group_size=g)
    assert ok[1].tolist() == [WIN] and ok[2].tolist() == [255]  # the dtype's largest value fits
    with pytest.raises(loopy.LoopyFault) as caught:
        first_pass([0], [[g + 0, -1]], [LOSS], [255], group_size=g, base=3, rows=4,
                   describe=lambda i: f"m4o5[{i + 100}]")
    fault = caught.value
    assert (fault.code, fault.index, fault.value) == (OVERFLOW, 3, 256)
    assert isinstance(fault, StoreError) and isinstance(fault, RetrogradeError)
    message = str(fault)
    assert "m4o5[103]" in message and "256" in message and "uint8" in message and "\n" not in message
    copy = pickle.loads(pickle.dumps(fault))  # a dask worker's exception travels pickled
    assert (type(copy), str(copy), copy.code, copy.index, copy.value) == (loopy.LoopyFault, message, OVERFLOW, 3, 256)
    # The same row in a wider dtype is a win in 256.
    _, outcome, remoteness, _ = first_pass([0], [[g + 0, -1]], [LOSS], [255], group_size=g, dtype=np.uint16)
    assert outcome.tolist() == [WIN] and remoteness.tolist() == [256]


def test_first_pass_loss_past_the_dtype_faults():
    g = 1
    _, outcome, remoteness, _ = first_pass([0], [[g + 0, g + 1]], [WIN, WIN], [3, 254], group_size=g)
    assert outcome.tolist() == [LOSS] and remoteness.tolist() == [255]
    with pytest.raises(loopy.LoopyFault) as caught:
        first_pass([0], [[g + 0, g + 1]], [WIN, WIN], [3, 255], group_size=g)
    assert (caught.value.code, caught.value.index, caught.value.value) == (OVERFLOW, 0, 256)
    assert "index 0 needs a remoteness of 256" in str(caught.value)
    # A draw among the children: the slow win does not matter, nothing to fault.
    _, outcome, remoteness, _ = first_pass([0], [[g + 0, g + 1]], [WIN, DRAW], [255, 0], group_size=g)
    assert outcome.tolist() == [DRAW] and remoteness.tolist() == [0]


def test_first_pass_undecided_row_with_a_winning_child_at_the_dtype_max_faults():
    """Left undecided, its `remoteness` would hold 1 + 255: it could end a loss in 256."""
    _, _, remoteness, pending = first_pass([0], [[0, 1 + 0]], [WIN], [254], group_size=1)
    assert pending.tolist() == [1] and remoteness.tolist() == [255]
    with pytest.raises(loopy.LoopyFault) as caught:
        first_pass([0], [[0, 1 + 0]], [WIN], [255], group_size=1)
    assert (caught.value.code, caught.value.value) == (OVERFLOW, 256)


def test_first_pass_too_many_children_inside_the_group_faults():
    """`pending` counts in-group children in 7 bits (the 8th is HAS_DRAW): 127 fit, 128 do not."""
    for count in (127, 128):
        children = [[IN_GROUP] * count + [1 + 0]]
        if count == loopy.COUNT:
            _, outcome, _, pending = first_pass([0], children, [DRAW], [0], group_size=1)
            assert outcome.tolist() == [UNDECIDED] and pending.tolist() == [127 | loopy.HAS_DRAW]
        else:
            with pytest.raises(loopy.LoopyFault) as caught:
                first_pass([0], children, [DRAW], [0], group_size=1)
            assert (caught.value.code, caught.value.index, caught.value.value) == (loopy.TOO_MANY_CHILDREN, 0, 128)
            assert "128 children" in str(caught.value)


# --------------------------------------------------------------------------------------
# Propagation guards
# --------------------------------------------------------------------------------------
def _state(outcome, remoteness, pending, dtype=np.uint8):
    return (np.array(outcome, dtype=np.uint8), np.array(remoteness, dtype=dtype),
            np.array(pending, dtype=np.uint8))


def test_propagating_a_loss_past_the_dtype_faults_instead_of_wrapping():
    """A loss at 255 would make its undecided parent a win in 256 (uint8 would store 0)."""
    parents = np.array([[1, -1]], dtype=np.int64)
    weights = ones(parents)
    outcome, remoteness, pending = _state([LOSS, UNDECIDED], [254, 0], [0, 2])
    assert loopy.propagate(254, np.array([LOSS], dtype=np.uint8), parents, weights, outcome, remoteness, pending) == 255
    assert outcome.tolist() == [LOSS, WIN] and remoteness.tolist() == [254, 255]

    outcome, remoteness, pending = _state([LOSS, UNDECIDED], [255, 0], [0, 2])
    with pytest.raises(loopy.LoopyFault) as caught:
        loopy.propagate(255, np.array([LOSS], dtype=np.uint8), parents, weights, outcome, remoteness, pending,
                        describe=lambda i: f"group #{i}")
    assert (caught.value.code, caught.value.index, caught.value.value) == (OVERFLOW, 1, 256)
    assert "group #1 needs a remoteness of 256" in str(caught.value) and "level 255" in str(caught.value)
    assert outcome.tolist() == [LOSS, UNDECIDED] and remoteness.tolist() == [255, 0]  # not wrapped to 0
    # In uint16 the parent is a win in 256.
    outcome, remoteness, pending = _state([LOSS, UNDECIDED], [255, 0], [0, 2], np.uint16)
    assert loopy.propagate(255, np.array([LOSS], dtype=np.uint8), parents, weights, outcome, remoteness, pending) == 256
    assert outcome.tolist() == [LOSS, WIN] and remoteness.tolist() == [255, 256]


def test_propagating_a_win_past_the_dtype_faults_only_for_a_loss_it_decides():
    """A win at 255: a parent whose last unsettled child it is becomes a loss in 256 (a fault);
    a parent with more children left is only counted down, and may still end a draw."""
    parents = np.array([[1, 2]], dtype=np.int64)
    weights = ones(parents)
    outcome, remoteness, pending = _state([WIN, UNDECIDED, UNDECIDED], [255, 7, 0], [0, 2, 1 | loopy.HAS_DRAW])
    assert loopy.propagate(255, np.array([WIN], dtype=np.uint8), parents, weights, outcome, remoteness, pending) == 255
    assert outcome.tolist() == [WIN, UNDECIDED, UNDECIDED]
    assert pending.tolist() == [0, 1, loopy.HAS_DRAW] and remoteness.tolist() == [255, 7, 0]
    loopy.finish_draws(outcome, remoteness, pending)
    assert outcome.tolist() == [WIN, DRAW, DRAW] and remoteness.tolist() == [255, 0, 0]

    outcome, remoteness, pending = _state([WIN, UNDECIDED, UNDECIDED], [255, 7, 0], [0, 2, 1])
    with pytest.raises(loopy.LoopyFault) as caught:
        loopy.propagate(255, np.array([WIN], dtype=np.uint8), parents, weights, outcome, remoteness, pending)
    assert (caught.value.code, caught.value.index, caught.value.value) == (OVERFLOW, 2, 256)
    assert outcome.tolist()[2] == UNDECIDED  # never a loss in 0

    # One level lower everything fits: the last child decides a loss in 255.
    outcome, remoteness, pending = _state([WIN, UNDECIDED, UNDECIDED], [254, 7, 0], [0, 2, 1])
    assert loopy.propagate(254, np.array([WIN], dtype=np.uint8), parents, weights, outcome, remoteness, pending) == 255
    assert outcome.tolist() == [WIN, UNDECIDED, LOSS] and remoteness.tolist() == [254, 255, 255]
    assert pending.tolist() == [0, 1, 0]


@pytest.mark.parametrize("pending_before", [0, loopy.HAS_DRAW])
def test_a_winning_child_beyond_the_count_faults_instead_of_underflowing(pending_before):
    """An undecided parent whose count is already zero (with or without HAS_DRAW): decrementing
    would wrap to 255, or turn HAS_DRAW into a count of 127."""
    parents = np.array([[1, -1]], dtype=np.int64)
    weights = ones(parents)
    outcome, remoteness, pending = _state([WIN, UNDECIDED], [3, 0], [0, pending_before])
    with pytest.raises(loopy.LoopyFault) as caught:
        loopy.propagate(3, np.array([WIN], dtype=np.uint8), parents, weights, outcome, remoteness, pending)
    assert (caught.value.code, caught.value.index) == (loopy.COUNT_UNDERFLOW, 1)
    assert "more moves into it than its count of unsettled children" in str(caught.value)
    assert pending.tolist() == [0, pending_before] and outcome.tolist() == [WIN, UNDECIDED]


def test_a_parent_with_several_moves_into_a_child_counts_them_down_at_once():
    """A parent's weight is its moves into the child: a win there takes them all off its count (a
    loss once nothing is left), and a weight above the count faults."""
    parents = np.array([[1, 2]], dtype=np.int64)
    weights = np.array([[2, 2]], dtype=np.int8)
    outcome, remoteness, pending = _state([WIN, UNDECIDED, UNDECIDED], [3, 2, 0], [0, 2, 3])
    assert loopy.propagate(3, np.array([WIN], dtype=np.uint8), parents, weights, outcome, remoteness, pending) == 4
    assert outcome.tolist() == [WIN, LOSS, UNDECIDED] and pending.tolist() == [0, 0, 1]
    assert remoteness.tolist() == [3, 4, 4]

    outcome, remoteness, pending = _state([WIN, UNDECIDED], [3, 0], [0, 1])
    with pytest.raises(loopy.LoopyFault) as caught:
        loopy.propagate(3, np.array([WIN], dtype=np.uint8), parents[:, :1], weights[:, :1], outcome, remoteness,
                        pending)
    assert (caught.value.code, caught.value.index) == (loopy.COUNT_UNDERFLOW, 1)
    assert pending.tolist() == [0, 1]


def test_every_fault_code_has_a_reason():
    assert set(loopy.REASONS) == {OVERFLOW, loopy.TOO_MANY_CHILDREN, loopy.COUNT_UNDERFLOW}
    assert ILLEGAL == -1  # the first pass skips ILLEGAL rows (below): no fault, nothing set
    faults, outcome, remoteness, pending = first_pass([ILLEGAL], [[IN_GROUP] * 200], group_size=1)
    assert faults == 0 and outcome.tolist() == [0] and pending.tolist() == [0]


@pytest.mark.parametrize("rows", [1, 7, 4096])
def test_a_chunks_first_pass_in_one_kernel_call_is_its_batches_in_turn(rows):
    """`first_pass_chunk` (the game's expand kernel, `Members.locate` and the settling, a batch at
    a time inside one kernel call) gives what the three steps give called batch by batch from
    Python, over a 3x3 Quixo tier with random values outside the group; batches of 1, 7 (the
    last one short) and more rows than the range."""
    from retrograde.games import make_game
    from retrograde.games.base import Expansion
    from retrograde.solvers.members import Members

    game = make_game("quixo", {"size": 3})
    tier, group = game.tier("m2o3"), ("m2o3", "m3o2")
    size = sum(game.tier(name).size for name in group)
    outside = [name for name in tier.children if name not in group]
    total = sum(game.tier(name).size for name in outside)
    offsets = np.array([0 if name in group else size + sum(game.tier(o).size for o in outside[:outside.index(name)])
                        for name in tier.children], dtype=np.int64)
    rng = np.random.default_rng(5)
    members = Members(0, total)
    members.mark(0, rng.random(total) < 0.9)  # some children without a value: counted as faults
    members.number()
    out_outcome = np.concatenate([[0], rng.choice([WIN, LOSS, DRAW], members.count)]).astype(np.uint8)
    out_remoteness = np.concatenate([[0], rng.integers(0, 60, members.count)]).astype(np.uint8)
    start, stop = 5, tier.size - 3

    def fresh():
        return tuple(np.zeros(stop - start, dtype=np.uint8) for _ in range(3))

    expected, faults = fresh(), 0
    for first in range(start, stop, rows):
        expansion = game.expand(tier, first, min(first + rows, stop), offsets, group=group)
        members.locate(expansion.children, size)
        faults += loopy.settle_from_outside(expansion.primitive, expansion.children, size, out_outcome,
                                            out_remoteness, first - start, *expected)
    got, buffers = fresh(), Expansion.buffers(min(rows, stop - start), game.max_moves)
    assert loopy.first_pass_chunk(game.loopy.expand_kernel(tier, group), start, stop, offsets,
                                  (buffers.primitive, buffers.children), members, size, out_outcome, out_remoteness,
                                  *got) == faults
    assert faults > 0 and (expected[2] > 0).any()
    for want, have in zip(expected, got):
        np.testing.assert_array_equal(have, want)
