"""A slow, independent Quixo reference: rules written again from SPEC §3-4 and a retrograde
fixpoint over every board of a size. Nothing here imports retrograde.

A board is a string of N*N cells `x`, `o`, `.` (row-major from the top-left cell). Positions
are kept the way the store keeps them: from the side to move's view, shown with `x` to move
(a position with `o` to move is the same board with the symbols swapped). Outcomes are for
the side to move, with the codes of `reference.py`; remoteness counts plies to the end
(fastest win, slowest loss), 0 at terminal positions and for draws.

Rules (SPEC §4): the side to move takes a blank or own cube from the border (never the
opponent's) and pushes it back in at an end of the cube's row or column, not where it was
taken from; the cubes between shift one step toward the gap and the pushed-in cube shows the
mover's symbol. After a move, a line of the opponent's symbol makes the mover lose (even when
the board also holds the mover's line); a line of the mover's alone makes the mover win. So a
board holding a line of the side to move is won for it (the previous mover made that line),
and one holding only a line of the other side is lost. Endless play is a draw.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

UNDECIDED, LOSS, DRAW, WIN = 0, 1, 2, 3
COLUMNS = "abcde"


def swap(board: str) -> str:
    """The same board with x and o exchanged (the other side's view)."""
    return board.translate(str.maketrans("xo", "ox"))


def read(text: str) -> tuple[str, str]:
    """Notation `xo./.../... o` -> (board, side to move)."""
    rows, side = text.strip().split(" ")
    return rows.lower().replace("/", ""), side.lower()


def write(board: str, side: str) -> str:
    n = size_of(board)
    return "/".join(board[r * n:(r + 1) * n] for r in range(n)) + " " + side


def normalised(text: str) -> str:
    """The board of a position with the side to move shown as x."""
    board, side = read(text)
    return board if side == "x" else swap(board)


@lru_cache(maxsize=None)
def size_of_cells(cells: int) -> int:
    n = round(cells ** 0.5)
    assert n * n == cells, cells
    return n


def size_of(board: str) -> int:
    return size_of_cells(len(board))


def images(board: str) -> list[str]:
    """The board under the 8 symmetries of the square: 4 quarter turns, each also mirrored."""
    n = size_of(board)
    grid = [board[r * n:(r + 1) * n] for r in range(n)]
    found = []
    for _ in range(4):
        grid = ["".join(grid[n - 1 - r][c] for r in range(n)) for c in range(n)]  # a quarter turn
        found += ["".join(grid), "".join(row[::-1] for row in grid)]
    return found


def masks(board: str) -> tuple[int, int]:
    """(x mask, o mask): bit i set where cell i holds that symbol."""
    return (sum(1 << i for i, cell in enumerate(board) if cell == "x"),
            sum(1 << i for i, cell in enumerate(board) if cell == "o"))


def representative(board: str) -> str:
    """The image a store keeps for the board's class (x to move): the least (x mask, o mask)
    pair, as docs/STORE.md defines it."""
    return min(images(board), key=masks)


def cell_name(n: int, row: int, column: int) -> str:
    return COLUMNS[column] + str(row + 1)


@lru_cache(maxsize=None)
def lines(n: int) -> tuple[tuple[int, ...], ...]:
    """Every row, column and both diagonals, as tuples of cells r*n + c."""
    found = [[(r, c) for c in range(n)] for r in range(n)]
    found += [[(r, c) for r in range(n)] for c in range(n)]
    found += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    return tuple(tuple(r * n + c for r, c in line) for line in found)


def has_line(board: str, symbol: str) -> bool:
    return any(all(board[cell] == symbol for cell in line) for line in lines(size_of(board)))


def terminal_value(board: str) -> int | None:
    """WIN / LOSS for x (to move) if the game is over, else None.

    The opponent (o) made the last move. If the board holds a line of x, the last mover made
    its opponent's line and lost, whatever else is on the board; if it holds only o's line,
    the last mover won."""
    if has_line(board, "x"):
        return WIN
    if has_line(board, "o"):
        return LOSS
    return None


def on_border(n: int, r: int, c: int) -> bool:
    return r in (0, n - 1) or c in (0, n - 1)


def moves(board: str) -> dict[str, str]:
    """x to move: move text `SOURCE-DEST` -> the board after it (still written with x as the
    cube that moved; the side to move afterwards is o); none at a finished game."""
    if terminal_value(board) is not None:
        return {}
    n = size_of(board)
    out = {}
    for r, c in itertools.product(range(n), range(n)):
        if not on_border(n, r, c) or board[r * n + c] == "o":
            continue  # only border cubes, blank or the mover's own
        ends = {(r, 0), (r, n - 1), (0, c), (n - 1, c)} - {(r, c)}
        for er, ec in sorted(ends):
            # Walk from the gap at the source to the destination: each cell on the way takes
            # the cube of the next cell; the destination receives the mover's cube.
            dr = (er > r) - (er < r)
            dc = (ec > c) - (ec < c)
            path = [(r + k * dr) * n + c + k * dc for k in range(max(abs(er - r), abs(ec - c)) + 1)]
            after = list(board)
            for here, there in zip(path, path[1:]):
                after[here] = board[there]
            after[path[-1]] = "x"
            out[f"{cell_name(n, r, c)}-{cell_name(n, er, ec)}"] = "".join(after)
    return out


def children(board: str) -> list[str]:
    """The positions after each move, normalised (the opponent to move, shown as x)."""
    return [swap(after) for after in moves(board).values()]


def all_boards(n: int) -> list[str]:
    return ["".join(cells) for cells in itertools.product("xo.", repeat=n * n)]


def solve(n: int) -> dict[str, tuple[int, int]]:
    """board (x to move) -> (outcome, remoteness) for every one of the 3^(n*n) boards.

    Retrograde fixpoint, level by level: terminal boards are level 0. At level r+1 an
    undecided board is a WIN if one of its children is a LOSS at r (no faster one exists,
    or it would have been decided before), and a LOSS if every child is a WIN, the slowest at
    r. A level that decides nothing ends it (no board has that remoteness, so no later level
    finds a child at the level before it): what is left is a DRAW."""
    boards = all_boards(n)
    index = {board: i for i, board in enumerate(boards)}
    outcome = [UNDECIDED] * len(boards)
    remoteness = [0] * len(boards)
    kids: list[list[int]] = [[] for _ in boards]
    for i, board in enumerate(boards):
        value = terminal_value(board)
        if value is None:
            kids[i] = [index[child] for child in children(board)]
            assert kids[i], f"{board}: no moves but not over"
        else:
            outcome[i] = value
    undecided = [i for i in range(len(boards)) if outcome[i] == UNDECIDED]
    level = 0
    while undecided:
        settled = []
        for i in undecided:
            values = [(outcome[k], remoteness[k]) for k in kids[i]]
            if (LOSS, level) in values:
                settled.append((i, WIN))
            elif all(o == WIN for o, _ in values) and max(r for _, r in values) == level:
                settled.append((i, LOSS))
        if not settled:
            break
        for i, value in settled:  # after the scan: a level sees only the levels below it
            outcome[i], remoteness[i] = value, level + 1
        decided = {i for i, _ in settled}
        undecided = [i for i in undecided if i not in decided]
        level += 1
    for i in undecided:
        outcome[i] = DRAW
    return {board: (outcome[i], remoteness[i]) for i, board in enumerate(boards)}
