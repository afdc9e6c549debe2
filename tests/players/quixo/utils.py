"""The helper module of the sample Quixo players (course API, 2023-24): the order they try
moves in, how they score a board, and the greedy choice most of them make. A student's own
helper, imported from the player's folder (`from utils import ...`) as students do."""

from copy import deepcopy

from game import Move

#: A score beyond any line length: the board holds a finished line.
WIN = 1000


def candidates(size):
    """Every (from_pos, slide) a player may answer, in the order the sample players try them:
    rows from the top, cells from the left, slides in Move's order. from_pos is (x, y)."""
    return [((x, y), slide) for y in range(size) for x in range(size)
            for slide in (Move.TOP, Move.BOTTOM, Move.LEFT, Move.RIGHT)]


def lines(board):
    """The rows, columns and both diagonals of a square board, as lists."""
    rows = board.tolist()
    size = len(rows)
    return [*rows, *map(list, zip(*rows)), [rows[i][i] for i in range(size)],
            [rows[i][size - 1 - i] for i in range(size)]]


def score(board, mover):
    """The board after `mover`'s move, from its side: -WIN where it holds the opponent's line
    (the mover loses even with a line of its own), WIN where it holds the mover's, else the
    most of the mover's cubes in one line."""
    counts = [(line.count(mover), line.count(1 - mover)) for line in lines(board)]
    size = len(board)
    if any(theirs == size for _, theirs in counts):
        return -WIN
    if any(mine == size for mine, _ in counts):
        return WIN
    return max(mine for mine, _ in counts)


def after_course_move(game, from_pos, slide, player):
    """The board after `player` takes from_pos and slides it in, on a deep copy of `game`
    played by the course's own `__move`; None where the move is not acceptable."""
    trial = deepcopy(game)
    return trial.get_board() if trial._Game__move(from_pos, slide, player) else None


def greedy_choice(game, mover, play=after_course_move):
    """The (from_pos, slide) after which `mover` scores best; ties go to the first tried.
    `play(game, from_pos, slide, player)` gives the board after a move (None: not acceptable)."""
    best, best_score = None, None
    for from_pos, slide in candidates(game.get_board().shape[0]):
        board = play(game, from_pos, slide, mover)
        if board is None:
            continue
        value = score(board, mover)
        if best_score is None or value > best_score:
            best, best_score = (from_pos, slide), value
    return best
