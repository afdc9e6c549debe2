"""Slow, independent pure-Python references the solver is checked against.

Nothing here imports retrograde's game rules or kernels: the rules are written
again from SPEC §4 / FACTS.md in the plainest way possible, so that agreement
with the solver means something. Outcome codes are restated (the tests assert
they match `retrograde.outcome`).

Convention (same as the store): outcome is for the side to move; remoteness is
the number of plies to the end under perfect play (fastest win, slowest loss),
0 at terminal positions; draws carry remoteness 0 here (probing reports None).
"""

from __future__ import annotations

import itertools
from functools import reduce
from operator import xor

UNDECIDED, LOSS, DRAW, WIN = 0, 1, 2, 3
ILLEGAL = -1

#: Fault codes of `combine_reference` (no moves at a non-terminal row; a child without value).
NO_MOVES, UNDECIDED_CHILD = 1, 2


# --------------------------------------------------------------------------------------
# Nim
# --------------------------------------------------------------------------------------
def nim_closed_form(heaps, max_take=None, misere=False) -> int:
    """WIN or LOSS for the side to move, from the published closed forms (FACTS.md).

    Normal play: loss iff XOR of heaps (of residues mod k+1 when bounded) is 0 (Bouton).
    Misère: loss iff (some residue > 1 and XOR = 0) or (all residues <= 1 and XOR = 1).
    """
    residues = [h if max_take is None else h % (max_take + 1) for h in heaps]
    nim_sum = reduce(xor, residues, 0)
    if not misere:
        return LOSS if nim_sum == 0 else WIN
    if any(r > 1 for r in residues):
        return LOSS if nim_sum == 0 else WIN
    return LOSS if nim_sum == 1 else WIN


def nim_positions(heaps):
    """Every heap vector 0 <= h_i <= H_i (all of them are legal Nim positions)."""
    return list(itertools.product(*(range(h + 1) for h in heaps)))


class NimReference:
    """Memoized recursive Nim solver giving (outcome, remoteness) of any heap vector."""

    def __init__(self, max_take=None, misere=False):
        self.max_take = max_take
        self.misere = misere
        self._memo: dict[tuple[int, ...], tuple[int, int]] = {}

    def children(self, heaps):
        heaps = tuple(heaps)
        out = []
        for i, h in enumerate(heaps):
            most = h if self.max_take is None else min(h, self.max_take)
            for take in range(1, most + 1):
                out.append(heaps[:i] + (h - take,) + heaps[i + 1:])
        return out

    def solve(self, heaps) -> tuple[int, int]:
        key = tuple(sorted(heaps))  # heap order does not matter
        if key in self._memo:
            return self._memo[key]
        if sum(key) == 0:
            # The previous player took the last object.
            result = (WIN if self.misere else LOSS, 0)
        else:
            values = [self.solve(child) for child in self.children(key)]
            losing = [r for o, r in values if o == LOSS]
            if losing:
                result = (WIN, 1 + min(losing))
            else:
                assert all(o == WIN for o, _ in values)
                result = (LOSS, 1 + max(r for _, r in values))
        self._memo[key] = result
        return result


# --------------------------------------------------------------------------------------
# Tic-tac-toe: boards are 9-char strings of 'x', 'o', '.', cell r*3+c
# --------------------------------------------------------------------------------------
EMPTY_BOARD = "." * 9
TTT_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),             # diagonals
)


def ttt_has_line(board: str, mark: str) -> bool:
    return any(all(board[c] == mark for c in line) for line in TTT_LINES)


def ttt_to_move(board: str) -> str:
    return "x" if board.count("x") == board.count("o") else "o"


def ttt_last_mover(board: str) -> str | None:
    if board == EMPTY_BOARD:
        return None
    return "o" if ttt_to_move(board) == "x" else "x"


def ttt_is_terminal(board: str) -> bool:
    return ttt_has_line(board, "x") or ttt_has_line(board, "o") or "." not in board


def ttt_successors(board: str) -> list[str]:
    if ttt_is_terminal(board):
        return []
    mark = ttt_to_move(board)
    return [board[:c] + mark + board[c + 1:] for c in range(9) if board[c] == "."]


def ttt_reachable() -> set[str]:
    """Every board reachable from the empty board by legal play (stopping at finished games)."""
    seen = {EMPTY_BOARD}
    frontier = [EMPTY_BOARD]
    while frontier:
        nxt = []
        for board in frontier:
            for child in ttt_successors(board):
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        frontier = nxt
    return seen


_TTT_MEMO: dict[str, tuple[int, int]] = {}


def ttt_value(board: str) -> tuple[int, int]:
    """(outcome, remoteness) for the side to move, by plain minimax."""
    if board in _TTT_MEMO:
        return _TTT_MEMO[board]
    last = ttt_last_mover(board)
    mover = ttt_to_move(board)
    if ttt_has_line(board, mover):
        raise ValueError(f"{board}: the side to move already has a line (unreachable)")
    if last is not None and ttt_has_line(board, last):
        result = (LOSS, 0)
    elif "." not in board:
        result = (DRAW, 0)
    else:
        values = [ttt_value(child) for child in ttt_successors(board)]
        losing = [r for o, r in values if o == LOSS]
        if losing:
            result = (WIN, 1 + min(losing))
        elif any(o == DRAW for o, _ in values):
            result = (DRAW, 0)
        else:
            result = (LOSS, 1 + max(r for _, r in values))
    _TTT_MEMO[board] = result
    return result


_GAMES_MEMO: dict[str, int] = {}


def ttt_complete_games(board: str = EMPTY_BOARD) -> int:
    """Number of distinct move sequences from `board` to a finished game."""
    if board not in _GAMES_MEMO:
        children = ttt_successors(board)
        _GAMES_MEMO[board] = 1 if not children else sum(ttt_complete_games(c) for c in children)
    return _GAMES_MEMO[board]


def ttt_to_masks(board: str) -> tuple[int, int]:
    """(x mask, o mask) with bit r*3+c, the package's position representation."""
    xs = sum(1 << c for c in range(9) if board[c] == "x")
    os = sum(1 << c for c in range(9) if board[c] == "o")
    return xs, os


def ttt_from_masks(xs: int, os: int) -> str:
    assert xs & os == 0
    return "".join("x" if xs >> c & 1 else "o" if os >> c & 1 else "." for c in range(9))


def ttt_images(board: str) -> set[str]:
    """The board under the 8 symmetries of the square (4 quarter turns, each also mirrored)."""
    grid = [board[r * 3:r * 3 + 3] for r in range(3)]
    found = set()
    for _ in range(4):
        grid = ["".join(grid[2 - r][c] for r in range(3)) for c in range(3)]  # a quarter turn
        found |= {"".join(grid), "".join(row[::-1] for row in grid)}
    return found


def ttt_representative(board: str) -> str:
    """The image a store keeps for the board's class: the least (x mask, o mask) pair, as
    docs/STORE.md defines it."""
    return min(ttt_images(board), key=ttt_to_masks)


# --------------------------------------------------------------------------------------
# The generic combine rule, over plain lists
# --------------------------------------------------------------------------------------
def combine_reference(primitive, children, child_outcome, child_remoteness):
    """(outcome, remoteness, faults) lists for rows of a chunk.

    primitive[i]: ILLEGAL (no position: 0/0/0), a terminal code (kept, remoteness 0),
    or 0 (decided from children). children[i]: child references, -1 pads (the
    first negative ends the list). A child without a decided value -> fault
    UNDECIDED_CHILD; a non-terminal row without children -> fault NO_MOVES; a
    faulty row has outcome 0 and remoteness 0.
    """
    outcomes, remotenesses, faults = [], [], []
    for p, refs in zip(primitive, children):
        p = int(p)
        if p == ILLEGAL:
            outcomes.append(UNDECIDED), remotenesses.append(0), faults.append(0)
            continue
        if p != 0:
            outcomes.append(p), remotenesses.append(0), faults.append(0)
            continue
        live = list(itertools.takewhile(lambda c: c >= 0, (int(c) for c in refs)))
        values = [(int(child_outcome[c]), int(child_remoteness[c])) for c in live]
        if any(o not in (LOSS, DRAW, WIN) for o, _ in values):
            outcomes.append(UNDECIDED), remotenesses.append(0), faults.append(UNDECIDED_CHILD)
            continue
        if not values:
            outcomes.append(UNDECIDED), remotenesses.append(0), faults.append(NO_MOVES)
            continue
        losing = [r for o, r in values if o == LOSS]
        if losing:
            outcomes.append(WIN), remotenesses.append(1 + min(losing))
        elif any(o == DRAW for o, _ in values):
            outcomes.append(DRAW), remotenesses.append(0)
        else:
            outcomes.append(LOSS), remotenesses.append(1 + max(r for _, r in values))
        faults.append(0)
    return outcomes, remotenesses, faults
