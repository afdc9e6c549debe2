"""A slow, independent Quarto reference: rules written again from SPEC §3-4, and a memoised
negamax over every position below a root. Nothing here imports retrograde.

A position is a notation string (`3.../..a./..../.... 7`); internally a tuple of 16 cells
(None or a piece 0..15, row-major from the top-left cell) and the piece in hand (None for
`-`). Outcomes are for the side to move, with the codes of `reference.py`; remoteness
counts plies to the end (fastest win, slowest loss), 0 for draws.
"""

from __future__ import annotations

from functools import lru_cache

UNDECIDED, LOSS, DRAW, WIN = 0, 1, 2, 3
DIGITS = "0123456789abcdef"


@lru_cache(maxsize=None)
def lines(squares: bool) -> tuple[tuple[int, ...], ...]:
    """Rows, columns, diagonals, and with `squares` every 2x2 block, as lists of cells."""
    grid = [[r * 4 + c for c in range(4)] for r in range(4)]
    found = [row for row in grid] + [[grid[r][c] for r in range(4)] for c in range(4)]
    found += [[grid[i][i] for i in range(4)], [grid[i][3 - i] for i in range(4)]]
    if squares:
        found += [[grid[r][c], grid[r][c + 1], grid[r + 1][c], grid[r + 1][c + 1]]
                  for r in range(3) for c in range(3)]
    return tuple(tuple(line) for line in found)


def read(text: str) -> tuple[tuple, int | None]:
    rows, hand = text.split(" ")
    cells = tuple(None if ch == "." else DIGITS.index(ch) for ch in rows.replace("/", "").lower())
    return cells, (None if hand == "-" else DIGITS.index(hand.lower()))


def write(cells: tuple, hand: int | None) -> str:
    flat = "".join("." if piece is None else DIGITS[piece] for piece in cells)
    return "/".join(flat[i:i + 4] for i in range(0, 16, 4)) + " " + ("-" if hand is None else DIGITS[hand])


def won(cells: tuple, squares: bool) -> bool:
    """Some line of four pieces agrees on some attribute (every piece has it, or none has)."""
    for line in lines(squares):
        pieces = [cells[cell] for cell in line]
        if None in pieces:
            continue
        for attribute in range(4):
            if len({piece >> attribute & 1 for piece in pieces}) == 1:
                return True
    return False


def successors(text: str, squares: bool) -> dict[str, str]:
    """move -> child notation, by the rules: place the piece in hand, then hand one over
    (nothing when the placement makes a line or fills the board)."""
    cells, hand = read(text)
    if won(cells, squares) or None not in cells:
        return {}
    free = [piece for piece in range(16) if piece not in cells and piece != hand]
    if hand is None:
        return {":" + DIGITS[piece]: write(cells, piece) for piece in free}
    out = {}
    for cell in (i for i, piece in enumerate(cells) if piece is None):
        name = "abcd"[cell % 4] + str(cell // 4 + 1)
        placed = cells[:cell] + (hand,) + cells[cell + 1:]
        if won(placed, squares) or not free:
            out[name] = write(placed, None)
        else:
            for piece in free:
                out[name + ":" + DIGITS[piece]] = write(placed, piece)
    return out


def value(text: str, squares: bool) -> tuple[int, int]:
    """(outcome, remoteness) by plain negamax over the children's values."""
    return _value(text, squares)


@lru_cache(maxsize=None)
def _value(text: str, squares: bool) -> tuple[int, int]:
    cells, _ = read(text)
    if won(cells, squares):
        return LOSS, 0
    children = [_value(child, squares) for child in successors(text, squares).values()]
    if not children:
        return DRAW, 0
    wins = [r for o, r in children if o == LOSS]
    if wins:
        return WIN, min(wins) + 1
    if any(o == DRAW for o, _ in children):
        return DRAW, 0
    return LOSS, max(r for _, r in children) + 1


def below(root: str, squares: bool) -> set[str]:
    """Every position reachable from `root` (itself included)."""
    seen, frontier = {root}, [root]
    while frontier:
        frontier = [child for text in frontier for child in successors(text, squares).values() if child not in seen]
        seen.update(frontier)
    return seen
