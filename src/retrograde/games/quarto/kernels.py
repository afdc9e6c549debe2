"""Numba kernels for Quarto below a root: expand a chunk of a tier.

An instance reaches the kernels as plain arrays (`instance_tables`): the root's board,
its empty cells and the pieces off its board (the ranking's cell and piece slots), the
slot of the piece placed first, the lines, and per number of pieces placed below the root
the factors of the tier's index (piece sets, orders, hands; see `games.quarto.game`).
Boards are arrays of 16 pieces, -1 for empty; piece and cell sets are slot masks.
"""

import numpy as np

from retrograde.games.ranking_kernels import popcount, rank_mask, squeeze, unrank_mask, unsqueeze
from retrograde.jit import njit
from retrograde.outcome import DRAW, ILLEGAL, LOSS

CELLS = 16


def instance_tables(game) -> tuple:
    """The arrays the kernels take for a `Quarto` instance, in their argument order:
    root board, empty cells, free pieces, first piece's slot (-1: any), opening (0/1),
    lines (L x 4 cells), lines through each cell (bit masks), sets, orders, hands (per k)."""
    e = len(game.empty_cells)
    lines = np.array(game.lines, dtype=np.int64)
    cell_lines = np.zeros(CELLS, dtype=np.int64)
    for number, line in enumerate(game.lines):
        for cell in line:
            cell_lines[cell] |= 1 << number
    counts = np.array([game.tier_counts(k)[1:] for k in range(e + 1)], dtype=np.int64).reshape(e + 1, 3)
    first_slot = game.free_pieces.index(game.first_piece) if game.first_piece >= 0 else -1
    return (np.array(game.root[0], dtype=np.int64), np.array(game.empty_cells, dtype=np.int64),
            np.array(game.free_pieces, dtype=np.int64), np.int64(first_slot), np.int64(game.opening),
            lines, cell_lines, counts[:, 0].copy(), counts[:, 1].copy(), counts[:, 2].copy())


@njit
def is_line(board, line):
    """Four pieces on the line's cells sharing an attribute value."""
    common = 15
    either = 0
    for j in range(4):
        piece = board[line[j]]
        if piece < 0:
            return False
        common &= piece
        either |= piece
    return common != 0 or either != 15


@njit
def nth_bit(mask, n):
    """The position of the n-th (from 0) set bit of `mask`."""
    for _ in range(n):
        mask &= mask - 1
    low = mask & -mask
    bit = 0
    while low > 1:
        low >>= 1
        bit += 1
    return bit


@njit
def order_rank(filled, piece_of_slot, piece_mask, e):
    """Lehmer rank of the order of the placed pieces over the filled slots (ascending),
    each piece counted by its rank within `piece_mask`."""
    k = popcount(filled)
    rank = 0
    used = 0
    i = 0
    for slot in range(e):
        if filled >> slot & 1:
            local = popcount(piece_mask & ((1 << piece_of_slot[slot]) - 1))
            rank = rank * (k - i) + popcount(~used & ((1 << local) - 1))
            used |= 1 << local
            i += 1
    return rank


@njit
def set_rank(piece_mask, first_slot):
    """Rank of the set of placed pieces; the first piece, in every set, squeezed out."""
    if first_slot < 0 or piece_mask == 0:
        return rank_mask(piece_mask)
    return rank_mask(squeeze(piece_mask, 1 << first_slot, CELLS))


@njit
def expand(root_board, empty_cells, free_pieces, first_slot, opening, lines, cell_lines, sets, orders, hands,
           k, start, stop, child_offsets, primitive, children):
    """Terminal outcomes and child references of indices start..stop-1 of the tier with k
    pieces placed below the root (k = -1: the opening position, before any handover)."""
    e = empty_cells.shape[0]
    board = np.empty(CELLS, dtype=np.int64)
    piece_of_slot = np.zeros(CELLS, dtype=np.int64)  # piece slot standing on each cell slot
    digits = np.zeros(CELLS, dtype=np.int64)
    for row in range(stop - start):
        primitive[row] = 0
        children[row, 0] = -1
        if k < 0:
            for piece in range(e):
                children[row, piece] = child_offsets[0] + piece
            continue
        rest = start + row
        hand_rank = rest % hands[k]
        rest //= hands[k]
        order = rest % orders[k]
        rest //= orders[k]
        filled = unrank_mask(rest // sets[k], k, e)
        if first_slot >= 0 and k > 0:
            piece_mask = unsqueeze(unrank_mask(rest % sets[k], k - 1, e - 1), 1 << first_slot, CELLS) \
                | (1 << first_slot)
        else:
            piece_mask = unrank_mask(rest % sets[k], k, e)
        # the order's Lehmer digits, then each filled slot's piece: the digit-th unused one
        for i in range(k - 1, -1, -1):
            digits[i] = order % (k - i)
            order //= k - i
        for cell in range(CELLS):
            board[cell] = root_board[cell]
        unused = piece_mask
        i = 0
        for slot in range(e):
            if filled >> slot & 1:
                piece_slot = nth_bit(unused, digits[i])
                unused &= ~(1 << piece_slot)
                piece_of_slot[slot] = piece_slot
                board[empty_cells[slot]] = free_pieces[piece_slot]
                i += 1
        made = 0
        for number in range(lines.shape[0]):
            if is_line(board, lines[number]):
                made |= 1 << number
        if made:
            reachable = False
            for slot in range(e):
                if filled >> slot & 1 and cell_lines[empty_cells[slot]] & made == made \
                        and (piece_of_slot[slot] != first_slot or k == 1):
                    reachable = True
            primitive[row] = LOSS if reachable and hand_rank == 0 else ILLEGAL
            continue
        if k == e:
            primitive[row] = DRAW
            continue
        if k == 0 and opening == 0:
            hand_slot = first_slot
        else:
            hand_slot = nth_bit(~piece_mask & ((1 << e) - 1), hand_rank)
        child_pieces = piece_mask | (1 << hand_slot)
        child_set = set_rank(child_pieces, first_slot)
        j = 0
        for slot in range(e):
            if filled >> slot & 1:
                continue
            cell = empty_cells[slot]
            board[cell] = free_pieces[hand_slot]
            piece_of_slot[slot] = hand_slot
            child_filled = filled | (1 << slot)
            base = (rank_mask(child_filled) * sets[k + 1] + child_set) * orders[k + 1] \
                + order_rank(child_filled, piece_of_slot, child_pieces, e)
            base = child_offsets[0] + base * hands[k + 1]
            ends = False  # (a full board has one hand slot: hands[e] is 1)
            for number in range(lines.shape[0]):
                if cell_lines[cell] >> number & 1 and is_line(board, lines[number]):
                    ends = True
            if ends:
                children[row, j] = base
                j += 1
            else:
                for hand in range(hands[k + 1]):
                    children[row, j] = base + hand
                    j += 1
            board[cell] = -1
        if j < children.shape[1]:
            children[row, j] = -1
