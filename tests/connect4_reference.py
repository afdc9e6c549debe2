"""Independent reference solver for Connect Four on small boards.

This file is a deliberately plain, self-contained reference that the
project's Connect Four solver is tested against. It shares no code and no
representation with the ``retrograde`` package and imports nothing from it.

Rules: a board is ``width`` columns by ``height`` rows; a line is ``connect``
pieces of one side in a row horizontally, vertically or diagonally. x moves
first, then o. A move drops a piece into a column that is not full. A position
holding a line is over and lost by the side to move; a full board without a
line is a draw. No moves are played from a finished position.

Values are ``(outcome, remoteness)`` from the side to move's view:

* a position holding a line is ``("loss", 0)``; a full board without a line
  is ``("draw", 0)``;
* otherwise, if some child is a loss for its side to move, the position is a
  win in ``1 + min`` remoteness over such children (fastest win);
* otherwise, if some child is a draw, the position is ``("draw", None)``;
* otherwise every child is a win and the position is a loss in ``1 + max``
  remoteness over the children (slowest loss).

Notation: the rows from top to bottom joined by ``/``, each row ``width``
cells ``x``, ``o`` or ``.``, then a space and the side to move, e.g.
``..../..../..../x... o``.

Internally a board is a tuple of column strings, each listing that column's
pieces from the bottom up. Positions are enumerated layer by layer (by piece
count) from the empty board, then solved from the fullest layer back to the
empty one, so there is no recursion.

Run as a script: ``python tests/connect4_reference.py W H K``.
"""

import resource
import sys
import time

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _column_growth(height):
    """Map each column shorter than ``height`` to ``{piece: column with piece added}``.

    Every column string is built once here and shared by all boards using it.
    """
    growth = {}
    pending = [""]
    while pending:
        column = pending.pop()
        if len(column) < height:
            growth[column] = {piece: column + piece for piece in "xo"}
            pending.extend(growth[column].values())
    return growth


def _line_through(board, col, row, connect):
    """Whether the piece at (col, row) lies in ``connect`` in a row of its side."""
    piece = board[col][row]
    for dc, dr in _DIRECTIONS:
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while (
                0 <= c < len(board) and 0 <= r < len(board[c]) and board[c][r] == piece
            ):
                run += 1
                c, r = c + sign * dc, r + sign * dr
        if run >= connect:
            return True
    return False


def _children(board, mover, growth):
    """Yield ``(column index, child board)`` for each move of ``mover``."""
    for c, column in enumerate(board):
        if column in growth:
            yield c, board[:c] + (growth[column][mover],) + board[c + 1:]


def _layers(width, height, connect, growth):
    """Reachable boards by piece count: ``layers[n]`` maps each board with n
    pieces to whether it holds a line.

    Only boards without a line are expanded, so a child can hold a line only
    through the piece just dropped; that is the one place checked.
    """
    layers = [{("",) * width: False}]
    for n in range(width * height):
        mover = "xo"[n % 2]
        following = {}
        for board, over in layers[n].items():
            if over:
                continue
            for c, child in _children(board, mover, growth):
                if child not in following:
                    top = len(child[c]) - 1
                    following[child] = _line_through(child, c, top, connect)
        layers.append(following)
    return layers


def _notation(board, height, mover):
    """Notation string of ``board`` with ``mover`` to move."""
    bottom_up_rows = zip(*(column.ljust(height, ".") for column in board))
    return "/".join(map("".join, reversed(list(bottom_up_rows)))) + " " + mover


def _combine(child_values):
    """Value of a non-terminal position from its children's values."""
    outcomes = [outcome for outcome, _ in child_values]
    if "loss" in outcomes:
        return ("win", 1 + min(r for outcome, r in child_values if outcome == "loss"))
    if "draw" in outcomes:
        return ("draw", None)
    return ("loss", 1 + max(r for _, r in child_values))


def _check_size(width, height, connect):
    """Reject board sizes outside the supported range."""
    if not (4 <= width <= 7 and 4 <= height <= 7 and connect in (3, 4)):
        raise ValueError(f"unsupported size {width}x{height}, connect {connect}")


def reachable(width, height, connect):
    """Map the notation of every position reachable from the empty board to
    its ``(outcome, remoteness)`` value for the side to move."""
    _check_size(width, height, connect)
    growth = _column_growth(height)
    layers = _layers(width, height, connect, growth)
    shared = {}  # one tuple object per distinct value, to save memory
    result = {}
    values_after = {}
    while layers:
        layer = layers.pop()
        n = len(layers)
        mover = "xo"[n % 2]
        values = {}
        for board, over in layer.items():
            if over:
                value = ("loss", 0)
            elif n == width * height:
                value = ("draw", 0)
            else:
                children = _children(board, mover, growth)
                value = _combine([values_after[child] for _, child in children])
            value = shared.setdefault(value, value)
            values[board] = value
            result[_notation(board, height, mover)] = value
        values_after = values
    return result


def count_reachable(width, height, connect):
    """Number of positions reachable from the empty board (without solving)."""
    _check_size(width, height, connect)
    return sum(map(len, _layers(width, height, connect, _column_growth(height))))


def _main(argv):
    """Solve the size given on the command line and print a summary."""
    width, height, connect = map(int, argv)
    start = time.perf_counter()
    values = reachable(width, height, connect)
    elapsed = time.perf_counter() - start
    empty = "/".join(["." * width] * height) + " x"
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{width}x{height} connect {connect}")
    print(f"reachable positions: {len(values)}")
    print(f"empty board value:   {values[empty]}")
    print(f"time: {elapsed:.2f} s, peak RSS: {peak_mib:.0f} MiB")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python tests/connect4_reference.py WIDTH HEIGHT CONNECT")
    _main(sys.argv[1:])
