"""Students' players written against the course's APIs (Quixo 2023-24, Quarto 2022-23), run
unchanged from tests/players through `retrograde validate` and `match`: what a deterministic
player chooses is worked out here in our notation (its answer (x, y), Move read off our move
text), and its move quality is the store's, probed move by move; real students' habits (helper
modules called `utils` in two folders, a subclass of Game, a seat keyword, a pickled table of
`game.Move`, a private copy of the course's code under another name) work; misbehaving players
forfeit by reason and the run goes on, their prints in their log.
"""

from __future__ import annotations

import enum
import json
import pickle
import shutil
import sys
import types

from conftest import run_cli
from test_user_agents import (PLAYERS, assert_clean_run, assert_quality, assert_refused, entry, measured_positions,
                              move_quality, python_spec, validate)

#: The 4x4 store the suite solves (the tiers with 15 and 16 cubes: full boards hold draws).
QUIXO4 = {"size": 4, "down_to": 15}
#: 3x3 boards with 8 or 9 cubes: 74 positions to move in, every one measured.
QUIXO3 = {"size": 3, "down_to": 8}
#: The course's slides in Move's order (TOP=0, BOTTOM=1, LEFT=2, RIGHT=3).
SLIDES = ("TOP", "BOTTOM", "LEFT", "RIGHT")
#: The score of a board holding a finished line (tests/players/quixo/utils.py's WIN).
WIN = 1000
#: The pickled table's preferences: (x, y) and the slide, tried in this order.
TABLE = [((0, 0), "BOTTOM"), ((3, 3), "TOP"), ((3, 0), "LEFT"), ((0, 3), "RIGHT"), ((1, 0), "BOTTOM")]


# --- the course's answers, read off our moves ---------------------------------------------------------------
def course_answer(move: str) -> tuple[tuple[int, int], str]:
    """The course's ((x, y), slide) of our Quixo move SOURCE-DEST: x the column from the left, y
    the row from the top; the slide says where the cube is pushed in (TOP: row 0 of its column,
    LEFT: column 0 of its row, ...)."""
    source, dest = move.split("-")
    (sx, sy), (dx, dy) = (("abcde".index(cell[0]), int(cell[1:]) - 1) for cell in (source, dest))
    if sy == dy:
        return (sx, sy), "LEFT" if dx == 0 else "RIGHT"
    return (sx, sy), "TOP" if dy == 0 else "BOTTOM"


def tried_order(move: str) -> tuple[int, int, int]:
    """Where the sample players try a move: rows from the top, cells from the left, Move's order."""
    (x, y), slide = course_answer(move)
    return y, x, SLIDES.index(slide)


def board_lines(cells: str) -> list[str]:
    """The rows, columns and diagonals of a square board given as its cells row by row."""
    n = int(len(cells) ** 0.5)
    rows = [cells[r * n:(r + 1) * n] for r in range(n)]
    columns = [cells[c::n] for c in range(n)]
    return rows + columns + [cells[::n + 1][:n], "".join(cells[i * n + n - 1 - i] for i in range(n))]


def score(child, mover: str) -> int:
    """The board after `mover`'s move, from its side: -WIN where it holds the opponent's line,
    WIN where it holds the mover's, else the most of the mover's cubes in a line."""
    cells = str(child).split(" ")[0].replace("/", "")
    other = "o" if mover == "x" else "x"
    lines = board_lines(cells)
    if any(set(line) == {other} for line in lines):
        return -WIN
    if any(set(line) == {mover} for line in lines):
        return WIN
    return max(line.count(mover) for line in lines)


def mover_of(result) -> str:
    """The side to move (x or o) at a probed position."""
    return str(result.position).split(" ")[1]


def greedy_move(result) -> str:
    """The greedy players' move at a probed position: the best score, ties to the first tried."""
    mover = mover_of(result)
    return min(result.moves, key=lambda m: (-score(m.position, mover), tried_order(m.move))).move


def longest_line_move(result) -> str:
    """The native LongestLine's move: the best score, ties to the first of our moves."""
    mover = mover_of(result)
    return max(result.moves, key=lambda m: score(m.position, mover)).move


def corner_move(result) -> str:
    """CornerFirst's move: the first legal one with its cells in its order (corners clockwise from
    the top left, then the border row by row) and the slides in Move's order."""
    n = len(str(result.position).split("/"))
    last = n - 1
    corners = [(0, 0), (last, 0), (last, last), (0, last)]
    cells = corners + [(x, y) for y in range(n) for x in range(n)
                       if (x in (0, last) or y in (0, last)) and (x, y) not in corners]
    return min(result.moves, key=lambda m: (cells.index(course_answer(m.move)[0]),
                                            SLIDES.index(course_answer(m.move)[1]))).move


def table_move(result) -> str:
    """TablePlayer's move: the first of the table's answers that is legal, else greedy."""
    answers = {course_answer(m.move): m.move for m in result.moves}
    return next((answers[(cell, slide)] for cell, slide in TABLE if (cell, slide) in answers), None) or \
        greedy_move(result)


def minimax_move(result) -> str:
    """Minimax's move (depth 2, negamax on `score`): each move's score, or where the game goes
    on, the least the opponent's best reply leaves (its score negated); ties to the first tried."""
    mover = mover_of(result)
    other = "o" if mover == "x" else "x"

    def value(move):
        mine = score(move.position, mover)
        if abs(mine) == WIN:
            return mine
        return min(-score(reply, other) for reply in (move.position.play(text) for text in move.position.moves))

    return min(result.moves, key=lambda m: (-value(m), tried_order(m.move))).move


def pickled_table(preferences) -> bytes:
    """The table as a student pickles it offline: (x, y) and `game.Move` members, protocol 2,
    made with a stand-in `game` module of our own whose Move has the course's names and values
    (nothing of retrograde's: the pickle names `game.Move` and the value alone)."""
    module = types.ModuleType("game")
    module.Move = enum.Enum("Move", [(name, value) for value, name in enumerate(SLIDES)], module="game")
    saved = sys.modules.get("game")
    sys.modules["game"] = module
    try:
        return pickle.dumps([(cell, module.Move[slide]) for cell, slide in preferences], protocol=2)
    finally:
        if saved is None:
            del sys.modules["game"]
        else:
            sys.modules["game"] = saved


# --- Quixo: the deterministic players, measured exactly ------------------------------------------------------
def test_quixo_course_players_are_measured_exactly(solved, tmp_path):
    """On 4x4 boards of 15 and 16 cubes (a sample of over 100 positions, draws among them): the
    greedy player, the same greedy trying its moves on its own subclass of Game, told its seat by
    a constructor keyword, importing the course's code as `quixo_course` (alias=), and the table
    player reading a pickled table of game.Move; a player whose helper module is also called
    `utils` (another folder); a native object with `choose`. Each keeps exactly what the probed
    store says its moves keep, and none forfeits a move or a game."""
    store = solved("quixo", QUIXO4)
    folder = tmp_path / "quixo"
    shutil.copytree(PLAYERS / "quixo", folder)
    (folder / "table.pkl").write_bytes(pickled_table(TABLE))
    players = {  # the report's name -> (spec, the reference's choice)
        "Greedy": (python_spec(folder / "greedy.py", "Greedy", api="course"), greedy_move),
        "OwnSlideGreedy": (python_spec(folder / "own_game.py", "OwnSlideGreedy", api="course"), greedy_move),
        "Seated": (python_spec(folder / "seated.py", "Seated", api="course", seat="player_index"), greedy_move),
        "AliasedGreedy": (python_spec(folder / "aliased.py", "AliasedGreedy", api="course", alias="quixo_course"),
                          greedy_move),
        "TablePlayer": (python_spec(folder / "table_player.py", "TablePlayer", api="course"), table_move),
        "CornerFirst": (python_spec(PLAYERS / "quixo_corner" / "corner.py", "CornerFirst", api="course"), corner_move),
        "LongestLine": (python_spec(PLAYERS / "native" / "longest_line.py", "LongestLine"), longest_line_move),
    }
    result, report = validate(store, tmp_path / "report", [spec for spec, _ in players.values()] + ["random"],
                              "--games", "1", "--positions", "100")
    assert_clean_run(result)
    probed = measured_positions(store, 100)
    assert 100 < len(probed) == report["move_quality_sample"]["positions"]
    assert any(r.value == "draw" for r, _ in probed)
    expected = {choose: move_quality(probed, choose) for _, choose in players.values()}
    for name, (_, choose) in players.items():
        assert_quality(entry(report, name)["move_quality"], expected[choose], name)
    assert len({json.dumps(entry(report, name)["move_quality"]["value_kept"]) for name in players}) > 1
    for tournament in report["tournaments"]:
        assert tournament["forfeits"] == {"first": {}, "second": {}}, tournament


def test_the_seat_keyword_is_the_course_player_index(solved):
    """A player built for one seat (`seat=player_index`: it plays as that course player) against
    the greedy player it is, from the start of 3x3 Quixo, in either seat: no forfeit, and the two
    games are one game (the same result for the side moving first, in as many plies)."""
    store = solved("quixo", {"size": 3})
    seated = python_spec(PLAYERS / "quixo" / "seated.py", "Seated", api="course", seat="player_index")
    greedy = python_spec(PLAYERS / "quixo" / "greedy.py", "Greedy", api="course")
    result = run_cli("match", seated, greedy, "--store", str(store), "--games", "1", "--json", "--quiet")
    assert_clean_run(result)
    document = json.loads(result.stdout)
    seats = document["tournaments"] if isinstance(document, dict) else document
    for seat in seats:
        assert seat["forfeits"] == {"first": {}, "second": {}}, seat
    first, second = ((s["first_wins"], s["draws"], s["second_wins"], s["mean_plies"]) for s in seats)
    assert first == second


def test_misbehaving_quixo_players_forfeit_and_the_run_goes_on(solved, tmp_path):
    """On the 74 positions of 3x3 boards of 8 and 9 cubes: the depth-2 minimax (deep copies and
    `_Game__move`) measured exactly; a player raising at its third move, one answering only
    illegal moves, one answering 5x5 coordinates and one printing at every move. Forfeits are
    counted by reason (exception where it raised, illegal at every position: the 5x5 player is
    told so), the run ends with exit 0 and one line per forfeit on stderr, no traceback; what the printer prints is in its log, not on our stdout;
    the random player relying on the retries plays (nearly) every move."""
    store = solved("quixo", QUIXO3)
    quixo = PLAYERS / "quixo"
    specs = [python_spec(quixo / "minimax.py", "Minimax", api="course"),
             python_spec(quixo / "raises_third.py", "RaisesOnThird", api="course"),
             python_spec(quixo / "illegal.py", "Inner", api="course"),
             python_spec(quixo / "five_by_five.py", "FiveByFive", api="course"),
             python_spec(quixo / "chatty.py", "Chatty", api="course"),
             python_spec(quixo / "random_player.py", "RandomPlayer", api="course"), "random"]
    out = tmp_path / "report"
    result, report = validate(store, out, specs, "--games", "1", "--max-plies", "12")
    assert_clean_run(result)
    probed = measured_positions(store)
    assert len(probed) == 74
    assert_quality(entry(report, "Minimax")["move_quality"], move_quality(probed, minimax_move), "Minimax")
    raiser = entry(report, "RaisesOnThird")["move_quality"]["forfeits"]
    assert set(raiser) == {"exception"} and raiser["exception"] >= 1
    for name in ("Inner", "FiveByFive"):
        illegal = entry(report, name)["move_quality"]
        assert illegal["forfeits"] == {"illegal": 74} and illegal["win_kept"] == 0, (name, illegal)
    # any cell and slide: 2 of its 36 answers may be all a full board allows, so 100 tries fall
    # short at a position in a few hundred
    assert set(entry(report, "RandomPlayer")["move_quality"]["forfeits"]) <= {"illegal"}
    assert sum(entry(report, "RandomPlayer")["move_quality"]["forfeits"].values()) <= 2
    assert entry(report, "Chatty")["move_quality"]["forfeits"] == {}
    inner_name = next(spec for spec in report["agents"] if spec.startswith("Inner@"))
    for tournament in report["tournaments"]:
        if tournament["first"] == inner_name:
            assert tournament["forfeits"]["first"] == {"illegal": tournament["games"]}
            assert tournament["second_wins"] == tournament["games"]
    stderr = result.stderr.splitlines()
    assert any("forfeits (illegal)" in line and inner_name in line for line in stderr), result.stderr
    assert any("forfeits (exception)" in line and "ValueError" in line and "no idea" in line for line in stderr)
    assert any(line.startswith("agent 'FiveByFive@") and "5x5 coordinates" in line for line in stderr), result.stderr
    assert "chatty" not in result.stdout + result.stderr
    (log,) = (out / "logs").glob("Chatty*.log")
    text = log.read_text()
    assert "chatty move 1: board" in text and "chatty thinks on stderr" in text


def test_a_player_past_the_move_time_forfeits_by_timeout(solved, tmp_path):
    """A player that sleeps: with --move-time 0.5 each game it plays from the empty board is lost
    by a forfeit (timeout), in either seat, told in one line each; exit 0, no traceback."""
    store = solved("quixo", QUIXO3)
    sleeper = python_spec(PLAYERS / "quixo" / "sleeper.py", "Sleeper", api="course")
    result = run_cli("match", sleeper, "random", "--store", str(store), "--games", "1", "--move-time", "0.5",
                     "--json", "--quiet")
    assert_clean_run(result)
    document = json.loads(result.stdout)
    first, second = document["tournaments"] if isinstance(document, dict) else document
    assert first["forfeits"] == {"first": {"timeout": 1}, "second": {}} and first["second_wins"] == 1
    assert second["forfeits"] == {"first": {}, "second": {"timeout": 1}} and second["first_wins"] == 1
    told = [line for line in result.stderr.splitlines() if "forfeits (timeout)" in line]
    assert len(told) == 2 and all(line.startswith("agent 'Sleeper@") for line in told), result.stderr


def test_a_private_copy_without_alias_is_one_line(solved, tmp_path, cli):
    """Without alias= the player imports the private copy (which stands for the course's code and
    refuses here): one line naming the file and the import, nothing written."""
    assert_refused(cli, solved("quixo", QUIXO3), tmp_path / "report",
                   [python_spec(PLAYERS / "quixo" / "aliased.py", "AliasedGreedy", api="course"), "random"],
                   "aliased.py", "quixo_course")


# --- Quarto ----------------------------------------------------------------------------------------------------
#: A position with six empty cells (piece a in hand): the store holds every position below it.
QUARTO = {"root": "1f90/.6db/2..7/4... a"}


def course_index(piece: int) -> int:
    """The course's index of our piece (bit 0 coloured, bit 1 high, bit 2 square, bit 3 not solid):
    8*HIGH + 4*COLOURED + 2*SOLID + SQUARE."""
    coloured, high, square, hollow = ((piece >> bit) & 1 for bit in range(4))
    return 8 * high + 4 * coloured + 2 * (1 - hollow) + square


def quarto_line(cells: list) -> bool:
    """Whether a row, column or diagonal holds four pieces sharing an attribute."""
    lines = [[r * 4 + c for c in range(4)] for r in range(4)] + [[r * 4 + c for r in range(4)] for c in range(4)]
    lines += [[0, 5, 10, 15], [3, 6, 9, 12]]
    return any(all(cells[i] is not None for i in line) and
               any(len({(cells[i] >> bit) & 1 for i in line}) == 1 for bit in range(4)) for line in lines)


def careful_move(result) -> str:
    """Careful's turn in our notation: its piece where it completes a line, else on the first empty
    cell (rows from the top); then the first piece by the course's index that completes no line
    on any empty cell, else the first by that index."""
    board, hand = str(result.position).split(" ")
    cells = [None if c == "." else int(c, 16) for c in board.replace("/", "")]
    piece = int(hand, 16)
    empty = [i for i, c in enumerate(cells) if c is None]
    placed = lambda cell, p, on: [p if i == cell else c for i, c in enumerate(on)]  # noqa: E731
    cell = next((i for i in empty if quarto_line(placed(i, piece, cells))), empty[0])
    after = placed(cell, piece, cells)
    name = "abcd"[cell % 4] + str(cell // 4 + 1)
    left = sorted((p for p in range(16) if p not in after), key=course_index)
    if quarto_line(after) or not left:
        return name
    free = [i for i, c in enumerate(after) if c is None]
    safe = [p for p in left if not any(quarto_line(placed(i, p, after)) for i in free)]
    return f"{name}:{(safe or left)[0]:x}"


def test_quarto_course_players(solved, tmp_path):
    """Below a position with six empty cells: the careful player keeps exactly what the probed
    store says its turns keep; the random player (any piece, any cell, relying on the course
    loop's retries) plays every turn without a forfeit."""
    store = solved("quarto", QUARTO)
    quarto = PLAYERS / "quarto"
    result, report = validate(store, tmp_path / "report", [
        python_spec(quarto / "careful.py", "Careful", api="course"),
        python_spec(quarto / "random_quarto.py", "RandomPlayer", api="course"), "random"],
        "--games", "2", "--positions", "50")
    assert_clean_run(result)
    probed = measured_positions(store, 50)
    assert_quality(entry(report, "Careful")["move_quality"], move_quality(probed, careful_move), "Careful")
    assert entry(report, "RandomPlayer")["move_quality"]["forfeits"] == {}
    for tournament in report["tournaments"]:
        assert tournament["forfeits"] == {"first": {}, "second": {}}, tournament
