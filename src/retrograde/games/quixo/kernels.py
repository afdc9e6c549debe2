"""Numba bitboard kernels for Quixo: moves, un-moves (parents) and chunk expansion, over
the representatives of the board's symmetry classes (`games.symmetry`).

Cell (r, c) is bit r*N + c. A move (source s, dest e) removes the cube at s, shifts
the cells from e up to s (e included, s excluded) one step toward s, and puts the
mover's cube at e. With `seg` those shifting cells and `shift` the signed bit
distance of the step, for either side's mask:
    after(mask) = (mask & ~(seg | s)) | shifted(mask & seg)
and the mover's mask also gets e.
"""

import numpy as np

from retrograde.games.base import (HOLE, IN_GROUP, LOSING_CHILD, LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN,
                                   WIN_IN_1, WINNING_CHILD)
from retrograde.games.expand_kernel import EXPAND
from retrograde.games.quixo.moves import DEST, SEG, SHIFT, SOURCE
from retrograde.games.ranking_arrays import BINOMIAL
from retrograde.games.ranking_kernels import next_combination, next_pair, popcount, rank_counted, unrank_mask, unsqueeze
from retrograde.games.symmetry_kernels import image, is_least, least_image
from retrograde.jit import njit
from retrograde.outcome import ILLEGAL, LOSS, WIN


@njit
def has_line(mask, n, lines):
    """Whether `mask` holds a full row, column or diagonal of an n x n board (3 <= n <= 5).

    `rows` keeps the cells whose next n-1 cells to the right are set, `columns` those
    whose next n-1 cells below are set: a row start or a top cell left means a line.
    """
    rows = mask & (mask >> 1) & (mask >> 2)
    columns = mask & (mask >> n) & (mask >> 2 * n)
    if n >= 4:
        rows &= mask >> 3
        columns &= mask >> 3 * n
    if n >= 5:
        rows &= mask >> 4
        columns &= mask >> 4 * n
    return (rows & lines[0]) | (columns & lines[1]) != 0 or mask & lines[2] == lines[2] or \
        mask & lines[3] == lines[3]


@njit
def shifted(mask, shift):
    return mask << shift if shift > 0 else mask >> -shift


@njit
def play(moves, k, mover, opponent):
    """The board after move row k of the move table, still from the mover's view:
    (mover mask, opponent mask); the pushed-in cube is the mover's."""
    seg, s, shift = moves[k, SEG], moves[k, SOURCE], moves[k, SHIFT]
    keep = ~(seg | s)
    return ((mover & keep) | shifted(mover & seg, shift) | moves[k, DEST],
            (opponent & keep) | shifted(opponent & seg, shift))


@njit
def expand(n, moves, lines, table, a, b, start, stop, child_offsets, count_only, primitive, children):
    """Primitive outcomes and child references of indices start..stop-1 of tier m{a}o{b}.

    Only a symmetry class's representative is a position (`games.symmetry`, `table` its
    tables); any other index is ILLEGAL (a hole). Children are referenced by their
    representatives. child_offsets[0] locates the partner tier m{b}o{a} (own cube taken),
    [1] the tier m{b}o{a+1} (blank taken). With `count_only` (the partner is in the loopy
    group being solved), partner children are neither canonicalised nor ranked: a terminal
    one is given by value (a move completing an opponent's line as WINNING_CHILD; one
    completing only the mover's line makes the row the single reference LOSING_CHILD, a win
    in one), any other as IN_GROUP, once per move (the count the loopy solver keeps, which
    `parents` matches with each parent's weight).
    """
    cells = n * n
    width = children.shape[1]
    block = BINOMIAL[cells - a, b]
    mover = unrank_mask(start // block, a, cells)
    packed = unrank_mask(start % block, b, cells - a)
    for row in range(stop - start):
        opponent = unsqueeze(packed, mover, cells)
        primitive[row] = 0
        children[row, 0] = -1
        if not is_least(table, mover, opponent):
            primitive[row] = ILLEGAL
        elif has_line(mover, n, lines):
            primitive[row] = WIN
        elif has_line(opponent, n, lines):
            primitive[row] = LOSS
        else:
            j = 0
            for k in range(moves.shape[0]):
                s = moves[k, SOURCE]
                if opponent & s:
                    continue
                new_mover, new_opponent = play(moves, k, mover, opponent)
                if not mover & s:
                    child_mover, child_opponent, _ = least_image(table, new_opponent, new_mover)
                    children[row, j] = child_offsets[1] + rank_counted(child_mover, child_opponent, b, a + 1, cells)
                elif not count_only:
                    child_mover, child_opponent, _ = least_image(table, new_opponent, new_mover)
                    children[row, j] = child_offsets[0] + rank_counted(child_mover, child_opponent, b, a, cells)
                elif has_line(new_opponent, n, lines):
                    children[row, j] = WINNING_CHILD
                elif has_line(new_mover, n, lines):
                    children[row, 0] = LOSING_CHILD
                    j = 1
                    break
                else:
                    children[row, j] = IN_GROUP
                j += 1
            if j < width:
                children[row, j] = -1
        mover, packed = next_pair(mover, packed, a, b, cells)


@njit(EXPAND)
def expand_in_group(params, moves, lines, table, start, stop, child_offsets, primitive, children):
    """`expand` as a first-class kernel (`games.expand_kernel`): params = (n, a, b, count_only),
    `table` the symmetry tables by piece (`symmetry.tables` of a wide board)."""
    expand(params[0], moves, lines, table, params[1], params[2], start, stop, child_offsets, params[3] != 0,
           primitive, children)


@njit(EXPAND)
def expand_in_group_narrow(params, moves, lines, table, start, stop, child_offsets, primitive, children):
    """`expand_in_group` on a narrow board (16 cells or fewer), whose kernels read the symmetry
    tables as one row of 512 a symmetry (`symmetry.tables`)."""
    expand(params[0], moves, lines, table.reshape((table.shape[0], table.shape[1] * table.shape[2])), params[1],
           params[2], start, stop, child_offsets, params[3] != 0, primitive, children)


@njit
def longest_line(mask, every_line):
    """The most cells of `mask` in one line (`every_line`: every row, column and diagonal mask)."""
    most = 0
    for line in every_line:
        count = popcount(mask & line)
        if count > most:
            most = count
    return most


@njit
def one_ply(n, moves, lines, every_line, table, a, b, start, stop, out):
    """out[i] = the one-ply class (`games.base`) of index start+i of tier m{a}o{b}: HOLE, a
    terminal win or loss, a win in 1, a loss in 1 (every move completes the opponent's line),
    or STORED (one ply does not decide it). Children are played and looked at for lines only,
    never canonicalised or ranked.

    Two shortcuts make it 2.6x faster (4x4 Quixo, every chunk: 0.58 -> 0.22 s):
    * the indices of one mover mask form a run (its opponents in order); where a symmetry maps
      the mover to a smaller mask the whole run is holes, and where none maps it to itself
      no index of the run is a hole;
    * a move changes at most one cell of any line (a pushed row or column loses its source
      cube and gains the mover's; every crossing line has one cell in it), so a side makes a
      line in one move only if a line holds n - 1 of its cubes (`one_move` is told which side can)."""
    cells = n * n
    block = BINOMIAL[cells - a, b]
    mover = unrank_mask(start // block, a, cells)
    packed = unrank_mask(start % block, b, cells - a)
    row, offset, count = 0, start % block, stop - start
    while row < count:
        run = min(block - offset, count - row)  # the indices left with this mover mask
        smaller = symmetric = False
        for g in range(1, table.shape[0]):
            f = image(table, g, mover)
            smaller |= f < mover
            symmetric |= f == mover
        if smaller:
            out[row:row + run] = HOLE
        else:
            can_win = longest_line(mover, every_line) >= n - 1
            for i in range(row, row + run):
                opponent = unsqueeze(packed, mover, cells)
                packed = next_combination(packed)
                if symmetric and not is_least(table, mover, opponent):
                    out[i] = HOLE
                elif has_line(mover, n, lines):
                    out[i] = TERMINAL_WIN
                elif has_line(opponent, n, lines):
                    out[i] = TERMINAL_LOSS
                else:
                    can_lose = longest_line(opponent, every_line) >= n - 1
                    # STORED if neither side can make a line: some move does not lose (a board
                    # with no line has a move, as its border holds a whole row)
                    out[i] = one_move(n, moves, lines, mover, opponent, can_win, can_lose) if can_win or can_lose \
                        else STORED
        row += run
        offset = 0
        mover, packed = next_combination(mover), (1 << b) - 1


@njit
def one_move(n, moves, lines, mover, opponent, can_win, can_lose):
    """WIN_IN_1, LOSS_IN_1 or STORED for a board with no line: whether a move completes only the
    mover's line, or every move completes the opponent's. `can_win` / `can_lose`: whether a line
    holds n - 1 cubes of the mover / of the opponent (no move completes a line of that side
    otherwise)."""
    all_lose = True
    for k in range(moves.shape[0]):
        if opponent & moves[k, SOURCE]:
            continue
        new_mover, new_opponent = play(moves, k, mover, opponent)
        if can_lose and has_line(new_opponent, n, lines):  # the opponent's line: this move loses
            continue
        if not can_win:  # a move that does not lose, and none wins
            return STORED
        if has_line(new_mover, n, lines):
            return WIN_IN_1
        all_lose = False
    return LOSS_IN_1 if all_lose else STORED


@njit
def _find(values, count, value):
    """Where values[:count] holds `value`, or -1."""
    for i in range(count):
        if values[i] == value:
            return i
    return -1


@njit
def parents(n, moves, table, a, b, indices, parent_offset, out, weights):
    """For representatives of tier m{a}o{b}, their distinct parents' representatives in tier
    m{b}o{a} (moves that took an own cube), each named once, with its weight: how many of its
    moves lead into the position's class (what a win there takes off its count, which `expand`
    keeps a move each).

    The child's opponent just moved: the cube it pushed in sits at the move's dest. Undoing
    shifts the segment back and returns that cube to the source. Each un-move is one move from
    a member of the parent's class into the position. The parent's class (8 / s_parent boards,
    s the order of a class's stabiliser) makes (8 / s_parent) * weight moves into the
    position's class, which takes (8 / s_position) * un-moves from the parent's class: so
    weight = un-moves * s_parent / s_position.
    """
    cells = n * n
    width = BINOMIAL[cells - a, b]
    stabilisers = np.empty(out.shape[1], dtype=np.int64)  # per parent: s_parent summed over its un-moves
    for row in range(indices.shape[0]):
        index = indices[row]
        child_mover = unrank_mask(index // width, a, cells)
        child_opponent = unsqueeze(unrank_mask(index % width, b, cells - a), child_mover, cells)
        own = least_image(table, child_mover, child_opponent)[2]
        j = 0
        for k in range(moves.shape[0]):
            e = moves[k, DEST]
            if not child_opponent & e:
                continue
            s = moves[k, SOURCE]
            seg = moves[k, SEG]
            moved = shifted(seg, moves[k, SHIFT])  # where the segment ended up: s included, e not
            keep = ~(seg | s)
            parent_mover = (child_opponent & keep) | shifted(child_opponent & moved, -moves[k, SHIFT]) | s
            parent_opponent = (child_mover & keep) | shifted(child_mover & moved, -moves[k, SHIFT])
            parent_mover, parent_opponent, same = least_image(table, parent_mover, parent_opponent)
            parent = parent_offset + rank_counted(parent_mover, parent_opponent, b, a, cells)
            i = _find(out[row], j, parent)
            if i < 0:
                out[row, j] = parent
                stabilisers[j] = same
                j += 1
            else:
                stabilisers[i] += same
        for i in range(j):
            weights[row, i] = stabilisers[i] // own
        if j < out.shape[1]:
            out[row, j] = -1
