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
from collections import Counter
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


def boards_with_a_side_of(n: int, big: int) -> list[str]:
    """Every board (x to move) on which x or o has at least `big` cubes: a set moves never
    leave, since no move lowers a side's count (a blank taken becomes the mover's, an own cube
    stays). `big` is more than half the cells, so no board has two such sides."""
    cells = n * n
    assert 2 * big > cells, (n, big)
    found = []
    for many in range(big, cells + 1):
        for mine in itertools.combinations(range(cells), many):
            rest = [cell for cell in range(cells) if cell not in mine]
            for few in range(cells - many + 1):
                for theirs in itertools.combinations(rest, few):
                    for symbol, other in (("x", "o"), ("o", "x")):
                        board = ["."] * cells
                        for cell in mine:
                            board[cell] = symbol
                        for cell in theirs:
                            board[cell] = other
                        found.append("".join(board))
    return found


def tier_counts(n: int, big: int) -> dict[str, Counter]:
    """Tier name `m{x cubes}o{o cubes}` (x to move) -> Counter(win, loss, draw) over every
    position of the tiers where a side has at least `big` cubes (`boards_with_a_side_of`),
    solved by `solve_closed`."""
    counts: dict[str, Counter] = {}
    names = {WIN: "win", LOSS: "loss", DRAW: "draw"}
    for board, (value, _) in solve_closed(boards_with_a_side_of(n, big)).items():
        tier = f"m{board.count('x')}o{board.count('o')}"
        counts.setdefault(tier, Counter())[names[value]] += 1
    return counts


def solve_closed(boards: list[str]) -> dict[str, tuple[int, int]]:
    """board (x to move) -> (outcome, remoteness) for every board of `boards`, a set every move
    stays in (KeyError if not): the fixpoint of `solve` computed from the terminal boards
    outwards, level by level, each parent told once by each distinct child. A parent is a WIN
    at r+1 once a child at r is a LOSS, a LOSS at r+1 once its last child is decided at r (every
    child a WIN, the slowest at r: the children come level by level); the rest are DRAWs."""
    index = {board: i for i, board in enumerate(boards)}
    outcome = [UNDECIDED] * len(boards)
    remoteness = [0] * len(boards)
    parents: list[list[int]] = [[] for _ in boards]
    waiting = [0] * len(boards)  # children not decided yet
    level_boards = []
    for i, board in enumerate(boards):
        value = terminal_value(board)
        if value is not None:
            outcome[i] = value
            level_boards.append(i)
            continue
        kids = {index[child] for child in children(board)}
        assert kids, f"{board}: no moves but not over"
        waiting[i] = len(kids)
        for kid in kids:
            parents[kid].append(i)
    level = 0
    while level_boards:
        reached = []
        for kid in level_boards:
            for parent in parents[kid]:
                if outcome[parent] != UNDECIDED:
                    continue
                waiting[parent] -= 1
                if outcome[kid] == LOSS or waiting[parent] == 0:
                    outcome[parent] = WIN if outcome[kid] == LOSS else LOSS
                    remoteness[parent] = level + 1
                    reached.append(parent)
        level_boards, level = reached, level + 1
    return {board: (outcome[i] if outcome[i] != UNDECIDED else DRAW, remoteness[i]) for i, board in enumerate(boards)}


def full_board_counts(n: int) -> dict[str, Counter]:
    """Tier name -> Counter(win, loss, draw) over every full board of n x n, x to move: full
    boards are a set moves never leave (no blank to take: each move takes the mover's own cube).
    The same rules and level-by-level fixpoint as `moves` and `solve`, written again over bit
    masks with numpy for the 2^(n*n) boards (board i: the cells x holds, o the rest), since 5x5
    has 33,554,432 of them."""
    import numpy as np

    cells, full = n * n, (1 << (n * n)) - 1
    board = np.arange(1 << cells, dtype=np.int32)
    outcome = np.full(board.size, UNDECIDED, dtype=np.int8)
    for line in lines(n):  # an o line first: a board holding both is won by x (see terminal_value)
        mask = sum(1 << cell for cell in line)
        outcome[(board & mask) == 0] = LOSS
    for line in lines(n):
        mask = sum(1 << cell for cell in line)
        outcome[(board & mask) == mask] = WIN
    remoteness = np.zeros(board.size, dtype=np.int16)
    open_boards = np.flatnonzero(outcome == UNDECIDED).astype(np.int32)
    pushes = []  # (source cell, path from the source to the end the cube is pushed in at)
    for r, c in itertools.product(range(n), range(n)):
        if on_border(n, r, c):
            for er, ec in sorted({(r, 0), (r, n - 1), (0, c), (n - 1, c)} - {(r, c)}):
                dr, dc = (er > r) - (er < r), (ec > c) - (ec < c)
                pushes.append((r * n + c, [(r + k * dr) * n + c + k * dc
                                           for k in range(max(abs(er - r), abs(ec - c)) + 1)]))
    # a column a move: the child (o to move, shown as x), -1 where the cube taken is o's
    kids = np.empty((open_boards.size, len(pushes)), dtype=np.int32)
    for m, (source, path) in enumerate(pushes):
        mine = board[open_boards]
        after = mine.copy()
        for here, there in zip(path, path[1:]):
            after = (after & ~(1 << here)) | (((mine >> there) & 1) << here)
        after |= 1 << path[-1]
        kids[:, m] = np.where((mine >> source) & 1 == 1, full & ~after, -1)
    undecided = np.arange(open_boards.size)
    level = 0
    while undecided.size:
        settled, won = [], []
        for start in range(0, undecided.size, 1 << 18):  # a block at a time: 5x5 has millions
            rows = kids[undecided[start:start + (1 << 18)]]
            here = rows >= 0
            rows = np.where(here, rows, 0)
            kid_outcome, kid_remoteness = outcome[rows], remoteness[rows]
            win = (here & (kid_outcome == LOSS) & (kid_remoteness == level)).any(axis=1)
            loss = ((~here | (kid_outcome == WIN)).all(axis=1)
                    & (np.where(here, kid_remoteness, -1).max(axis=1) == level) & ~win)
            settled.append(win | loss)
            won.append(win[win | loss])
        settled = np.concatenate(settled)
        if not settled.any():
            break
        at = open_boards[undecided[settled]]  # after the scan: a level sees only the levels below it
        outcome[at] = np.where(np.concatenate(won), WIN, LOSS)
        remoteness[at] = level + 1
        undecided, level = undecided[~settled], level + 1
    outcome[open_boards[undecided]] = DRAW
    x_count = np.zeros(board.size, dtype=np.int8)
    for cell in range(cells):
        x_count += ((board >> cell) & 1).astype(np.int8)
    counts: dict[str, Counter] = {}
    names = {WIN: "win", LOSS: "loss", DRAW: "draw"}
    for x in range(cells + 1):
        found = np.bincount(outcome[x_count == x], minlength=4)
        counts[f"m{x}o{cells - x}"] = Counter({names[v]: int(found[v]) for v in names if found[v]})
    return counts


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
