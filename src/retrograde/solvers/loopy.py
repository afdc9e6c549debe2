"""Retrograde analysis of a loopy group: tiers whose positions lead into each other.

Used for games with cycles (Quixo): a group's tiers are solved together once the
tiers they lead out to are solved. Positions are settled level by level, in
increasing remoteness, by propagating from each settled position to its parents
inside the group (a game's `parents` kernel):

* a loss at level r makes every parent a win at r + 1 (unless it already wins faster);
* a win at level r takes each undecided parent's weight (its moves into the position)
  off its count of unsettled children (a move each); a parent whose count reaches zero,
  with no drawing child, is a loss at 1 + the slowest of its winning children.

What is never settled is a draw (endless play). Terminal positions (level 0) have
nothing to propagate when the game gives terminal children by value: their parents
took their values in the first pass. These are the kernels; the tasks
`pipeline.tasks.settle_chunk` (first pass, chunk by chunk, in parallel) and
`pipeline.propagation.propagate_group` (the levels, over the whole group) run them. No I/O,
no dask.

Guards: the kernels never let a value wrap. A remoteness that would exceed the largest
value of the remoteness array's dtype, more children inside the group than `pending`
counts, or a winning child reported to a parent whose count is below its weight (a game's
`parents` disagreeing with its `expand`) stop the kernel at that position; the Python
functions `first_pass_chunk`, `settle_from_outside` (its settling, one batch of expanded rows)
and `propagate` then raise `LoopyFault`, naming the
position (by its index in the arrays, or in the caller's words with `describe`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import types

from retrograde.errors import StoreError
from retrograde.games.base import IN_GROUP, LOSING_CHILD, WINNING_CHILD
from retrograde.games.expand_kernel import EXPAND_FN, SYMMETRY
from retrograde.jit import njit
from retrograde.outcome import DRAW, ILLEGAL, LOSS, UNDECIDED, WIN
from retrograde.solvers.kernels import OVERFLOW
from retrograde.solvers.members import Members, locate_refs

#: Low bits of `pending`: moves into the group whose child is not yet settled as a win.
COUNT = 0x7F
#: High bit of `pending`: a drawing child outside the group (the position can never be a loss).
HAS_DRAW = 0x80

#: Fault codes in `fault[0]` (after `kernels.NO_MOVES`, `UNDECIDED_CHILD` and `OVERFLOW`, the
#: last meaning here: 1 + a child's remoteness does not fit the remoteness dtype).
TOO_MANY_CHILDREN = 4
#: A winning child reported to an undecided parent with a weight above its count of unsettled children.
COUNT_UNDERFLOW = 5
#: What `LoopyFault` says of the position, by fault code (`{value}`, `{limit}`, `{dtype}` filled in).
REASONS = {
    OVERFLOW: "needs a remoteness of {value}, more than the remoteness dtype {dtype} holds (at most {limit})",
    TOO_MANY_CHILDREN: "has {value} children inside its loopy group, more than the pending-children count "
                       f"holds (at most {COUNT})",
    COUNT_UNDERFLOW: "has a winning child reported with more moves into it than its count of unsettled "
                     "children holds (the game's parents and moves disagree)",
}


class LoopyFault(StoreError):
    """A loopy kernel stopped at a position whose value would not fit its arrays (or whose
    children were miscounted). `code` is a fault code, `index` the position's index in the
    kernel's `outcome` array, `value` the remoteness or count that did not fit."""

    def __init__(self, message: str, code: int, index: int, value: int):
        super().__init__(message)
        self.code, self.index, self.value = code, index, value

    def __reduce__(self):  # rebuilt whole where a worker's exception reaches the driver
        return type(self), (str(self), self.code, self.index, self.value)


def _raise_fault(fault: np.ndarray, remoteness: np.ndarray, stage: str,
                 describe: Callable[[int], str] | None) -> None:
    code, index, value = (int(x) for x in fault)
    where = describe(index) if describe is not None else f"index {index}"
    dtype = np.dtype(remoteness.dtype)
    reason = REASONS[code].format(value=value, limit=np.iinfo(dtype).max, dtype=dtype.name)
    raise LoopyFault(f"loopy {stage}: position {where} {reason}", code, index, value)


def settle_from_outside(primitive, children, group_size, out_outcome, out_remoteness, base,
                        outcome, remoteness, pending, *, describe: Callable[[int], str] | None = None):
    """First pass over rows base..: terminal values, children outside the group, and counts.

    Children with references below `group_size` (or IN_GROUP) are inside the group
    and only counted; terminal children given by value count as a win or a loss at 0;
    the others index `out_*` after subtracting `group_size`.
    For an undecided position, `remoteness` holds 1 + its slowest winning child so far.
    Returns the number of faults: non-terminal rows without moves (a game bug) and
    children outside the group without a value (not solved; a row is read up to its
    first losing child at remoteness 0, a win in one).

    :raises LoopyFault: a remoteness that does not fit `remoteness`'s dtype (for a position
        left undecided: a winning child outside the group at the dtype's largest value, as it
        could end a loss one ply slower), or more children inside the group than `pending`
        counts. `describe(index into outcome)` names the position in the message.
    """
    fault = np.zeros(3, dtype=np.int64)
    faults = _settle_from_outside(primitive, children, group_size, out_outcome, out_remoteness, base,
                                  outcome, remoteness, pending, np.iinfo(remoteness.dtype).max, fault)
    if fault[0]:
        _raise_fault(fault, remoteness, "first pass", describe)
    return faults


@njit
def _settle_from_outside(primitive, children, group_size, out_outcome, out_remoteness, base,
                         outcome, remoteness, pending, limit, fault):
    """`settle_from_outside`'s kernel: on a guard, `fault` = (code, index, value) and it returns."""
    faults = 0
    for row in range(primitive.shape[0]):
        i = base + row
        p = primitive[row]
        if p == ILLEGAL:
            continue
        if p != 0:
            outcome[i] = p
            remoteness[i] = 0
            continue
        fastest_loss = -1
        slowest_win = -1
        draw = False
        inside = 0
        for j in range(children.shape[1]):
            c = children[row, j]
            if c == -1:
                break
            if c == LOSING_CHILD:
                o, r = LOSS, 0
            elif c == WINNING_CHILD:
                o, r = WIN, 0
            elif c == IN_GROUP or c < group_size:
                inside += 1
                continue
            else:
                o, r = out_outcome[c - group_size], np.int64(out_remoteness[c - group_size])
            if o == LOSS:
                if fastest_loss < 0 or r < fastest_loss:
                    fastest_loss = r
                if r == 0:
                    break  # a win in one: nothing faster, no other child matters
            elif o == WIN:
                slowest_win = max(slowest_win, r)
            elif o == DRAW:
                draw = True
            else:
                faults += 1  # an unsolved child outside the group
        if fastest_loss >= 0:
            if fastest_loss >= limit:
                return _fail(fault, OVERFLOW, i, fastest_loss + 1, faults)
            outcome[i] = WIN  # tentative: a loss inside the group may give a faster win
            remoteness[i] = fastest_loss + 1
        elif inside == 0:
            if draw:
                outcome[i] = DRAW
            elif slowest_win >= 0:
                if slowest_win >= limit:
                    return _fail(fault, OVERFLOW, i, slowest_win + 1, faults)
                outcome[i] = LOSS
                remoteness[i] = slowest_win + 1
            else:
                faults += 1
        else:
            if inside > COUNT:
                return _fail(fault, TOO_MANY_CHILDREN, i, inside, faults)
            if slowest_win >= limit:  # a loss, if it ends one, would be slower still
                return _fail(fault, OVERFLOW, i, slowest_win + 1, faults)
            pending[i] = inside | (HAS_DRAW if draw else 0)
            remoteness[i] = slowest_win + 1
    return faults


@njit
def _fail(fault, code, index, value, result):
    fault[0], fault[1], fault[2] = code, index, value
    return result


def first_pass_chunk(expand: tuple, start: int, stop: int, child_offsets: np.ndarray,
                     buffers: tuple[np.ndarray, np.ndarray], out_members: Members, group_size: int,
                     out_outcome: np.ndarray, out_remoteness: np.ndarray, outcome: np.ndarray,
                     remoteness: np.ndarray, pending: np.ndarray, *,
                     describe: Callable[[int], str] | None = None) -> int:
    """The first pass over rows start..stop-1 of a tier, in one kernel call: a batch of rows at a
    time (as many as `buffers`, the game's (primitive, children) arrays, hold), expanded by the
    game's kernel (`expand`: `Game.expand_kernel`'s tuple), its references outside the group
    (at or above `group_size`) made slots of `out_*` (`out_members`, as `Members.locate`
    does), then settled (`settle_from_outside`) into outcome, remoteness and pending[0..].
    One call, not three a batch: each call takes the interpreter's lock back when it returns,
    and two worker threads waited on each other for it (4x4 Quixo: 31,000 calls a solve).

    :raises LoopyFault: as `settle_from_outside`."""
    kernel, params, table, lines, symmetry = expand
    fault = np.zeros(3, dtype=np.int64)
    faults = _first_pass_chunk(kernel, params, table, lines, symmetry, start, stop, child_offsets, *buffers,
                               out_members.words, out_members.before, out_members.lo, out_members.hi, group_size,
                               out_outcome, out_remoteness, outcome, remoteness, pending,
                               np.iinfo(remoteness.dtype).max, fault)
    if fault[0]:
        _raise_fault(fault, remoteness, "first pass", describe)
    return faults


def _first_pass_signatures() -> list:
    """`_first_pass_chunk`'s signatures: the state's remoteness in each dtype a plan uses
    (`data.plan.remoteness_dtype`), the values read outside the group in a byte or the same."""
    signatures = []
    for stored in (types.uint8, types.uint16, types.uint32):
        for read in dict.fromkeys((types.uint8, stored)):
            signatures.append(types.int64(
                EXPAND_FN, types.int64[::1], types.int64[:, ::1], types.int64[::1], SYMMETRY, types.int64,
                types.int64, types.int64[::1], types.int8[::1], types.int64[:, ::1], types.int64[::1],
                types.int64[::1], types.int64, types.int64, types.int64, types.uint8[::1], read[::1],
                types.uint8[::1], stored[::1], types.uint8[::1], types.int64, types.int64[::1]))
    return signatures


@njit(_first_pass_signatures())
def _first_pass_chunk(expand, params, table, lines, symmetry, start, stop, child_offsets, primitive, children,
                      words, before, lo, hi, group_size, out_outcome, out_remoteness, outcome, remoteness, pending,
                      limit, fault):
    """`first_pass_chunk`'s kernel: on a guard, `fault` = (code, index, value) and it returns."""
    faults = 0
    batch = primitive.shape[0]
    for first in range(start, stop, batch):
        rows = min(batch, stop - first)
        expand(params, table, lines, symmetry, first, first + rows, child_offsets, primitive, children)
        locate_refs(words, before, lo, hi, children[:rows], group_size)
        faults += _settle_from_outside(primitive[:rows], children[:rows], group_size, out_outcome, out_remoteness,
                                       first - start, outcome, remoteness, pending, limit, fault)
        if fault[0]:
            break
    return faults


def propagate(level, settled_outcome, parents, weights, outcome, remoteness, pending, *,
              describe: Callable[[int], str] | None = None):
    """Propagate positions settled at `level` to their parents (`weights`: each parent's moves
    into the position); returns the highest level set.

    :raises LoopyFault: a parent would need a remoteness above the largest value of
        `remoteness`'s dtype, or a winning child reaches a parent whose count of unsettled
        children is below the child's weight. The parents before it in the batch are updated, the
        rest not. `describe(index into outcome)` names the position in the message.
    """
    fault = np.zeros(3, dtype=np.int64)
    highest = _propagate(level, settled_outcome, parents, weights, outcome, remoteness, pending,
                         np.iinfo(remoteness.dtype).max, fault)
    if fault[0]:
        _raise_fault(fault, remoteness, f"propagation at level {level}", describe)
    return highest


@njit
def _propagate(level, settled_outcome, parents, weights, outcome, remoteness, pending, limit, fault):
    """`propagate`'s kernel: on a guard, `fault` = (code, index, value) and it returns."""
    highest = level
    fits = level < limit  # level + 1 fits the remoteness dtype
    for row in range(parents.shape[0]):
        settled = settled_outcome[row]
        for j in range(parents.shape[1]):
            q = parents[row, j]
            if q < 0:
                break
            if settled == LOSS:
                if outcome[q] == UNDECIDED or (outcome[q] == WIN and remoteness[q] > level + 1):
                    if not fits:
                        return _fail(fault, OVERFLOW, q, level + 1, highest)
                    outcome[q] = WIN
                    remoteness[q] = level + 1
                    highest = max(highest, level + 1)
            elif outcome[q] == UNDECIDED:
                weight = weights[row, j]
                if pending[q] & COUNT < weight:
                    return _fail(fault, COUNT_UNDERFLOW, q, -1, highest)
                pending[q] -= weight
                if not fits:
                    # Only a loss decided now would need level + 1; otherwise the parent ends a
                    # draw (remoteness 0) or a win at a later level (caught there).
                    if pending[q] == 0:
                        return _fail(fault, OVERFLOW, q, level + 1, highest)
                    continue
                if remoteness[q] < level + 1:
                    remoteness[q] = level + 1
                if pending[q] == 0:  # no drawing child and every child a win
                    outcome[q] = LOSS  # remoteness already holds 1 + its slowest winning child
                    highest = max(highest, np.int64(remoteness[q]))
    return highest


@njit
def settled_at(outcome, remoteness, level, start, stop):
    """Indices (relative to start) of wins and losses at exactly `level` in start..stop-1."""
    found = np.empty(stop - start, dtype=np.int64)
    n = 0
    for i in range(start, stop):
        if remoteness[i] == level and (outcome[i] == WIN or outcome[i] == LOSS):
            found[n] = i - start
            n += 1
    return found[:n]


@njit
def finish_draws(outcome, remoteness, pending):
    """Whatever is still undecided (and is a position) is a draw."""
    for i in range(outcome.shape[0]):
        if outcome[i] == UNDECIDED and pending[i] != 0:
            outcome[i] = DRAW
            remoteness[i] = 0
