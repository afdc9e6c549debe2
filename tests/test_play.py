"""`retrograde play`: options, the ply cap, illegal input, commands, and stores it must refuse."""

import shutil
import subprocess
import sys

import numpy as np
import pytest
import zarr

from conftest import run_cli, store_bytes
from processes import assert_one_error_line
from reference import NimReference, ttt_value
from retrograde.agents import AGENTS
from retrograde.agents.lookup import LookupAgent
from retrograde.agents.play import play_in_terminal
from retrograde.data.probing import values
from retrograde.errors import StoreError
from retrograde.games import make_game
from retrograde.games.base import Game
from retrograde.games.capabilities import Display
from retrograde.outcome import DRAW, LOSS, WIN

NIM = {"heaps": [1, 3, 5, 7]}
BOUNDED_NIM = {"heaps": [1, 3, 5, 7], "max_take": 2}
QUIXO3 = {"size": 3}
#: 3x3 Quixo solved down to 8 cubes: the empty start board is not in the store.
QUIXO3_FROM_8 = {"size": 3, "down_to": 8}


@pytest.fixture
def play(capsys, open_solved):
    """play(game, params, typed=(...), start=None, ...) -> (result, what was printed): one game
    through play_in_terminal against the lookup agent; the human types `typed`, then end of input."""

    def run(game, params=None, typed=(), *, start=None, max_plies=1000):
        store = open_solved(game, params)
        position = store.game.parse(start) if start else store.game.initial_position
        answers = iter(typed)

        def read(prompt):
            try:
                return next(answers)
            except StopIteration:
                raise EOFError from None

        capsys.readouterr()
        result = play_in_terminal(store, LookupAgent(store.game, store=store, seed=0), position, human_first=True,
                                  max_plies=max_plies, read=read)
        return result, capsys.readouterr().out

    return run


# --- games played through the CLI ----------------------------------------------------------
def test_play_against_lookup(solved):
    store = str(solved("nim", NIM))
    win = run_cli("play", "--store", store, "--from", "0,0,0,2", input="9-9\n4-2\n")
    assert win.returncode == 0, win.stderr
    assert "there is no heap 9" in win.stdout and "Game over: you win." in win.stdout
    lose = run_cli("play", "--store", store, "--from", "0,0,0,1", "--human", "second")
    assert "lookup plays 4-1" in lose.stdout and "Game over: lookup wins." in lose.stdout
    quit_ = run_cli("play", "--store", store, input="quit\n")
    assert quit_.returncode == 0 and "Stopped." in quit_.stdout


def test_play_tictactoe_lookup_never_loses(solved):
    store = str(solved("tictactoe"))
    # The human tries every cell in order; the lookup agent must not lose.
    moves_in_order = "\n".join(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"] * 5) + "\n"
    result = run_cli("play", "--store", store, "--seed", "3", input=moves_in_order)
    assert result.returncode == 0
    assert "Game over: lookup wins." in result.stdout or "Game over: a draw." in result.stdout


def test_play_takes_upper_case_moves(solved):
    result = run_cli("play", "--store", str(solved("tictactoe")), input="B2\nquit\n")
    assert result.returncode == 0, result.stderr
    assert "2 . x ." in result.stdout and "lookup plays" in result.stdout
    quixo = run_cli("play", "--store", str(solved("quixo", QUIXO3)), input="A1-C1\nquit\n")
    assert "lookup plays" in quixo.stdout and "is not a move" not in quixo.stdout


# --- options -------------------------------------------------------------------------------
def test_agents_lists_every_agent_and_its_options():
    result = run_cli("agents")
    assert result.returncode == 0, result.stderr
    named = {line.split(":")[0].split(" (")[0] for line in result.stdout.splitlines() if not line.startswith(" ")}
    assert named == set(AGENTS) | {"expert", "rules", "endgame", "lookahead"}
    assert "  fallback=<agent>" in result.stdout


def test_agent_choices_do_not_slow_other_commands():
    # agents import zarr and numba when built: the CLI module alone must not.
    code = "import sys, retrograde.cli; print(sorted({'zarr', 'numpy'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("args,message", [
    (("--max-plies", "-5"), "'--max-plies': -5 is not in the range x>=1"),
    (("--max-plies", "0"), "'--max-plies': 0 is not in the range x>=1"),
    (("--agent", "oracle"), "unknown agent 'oracle'; agents: dqn, endgame, engine, expert, ga,"),
    (("--from", "8,0,0,0"), "heap 1 holds 8"),
])
def test_bad_play_options(tmp_path, solved, args, message):
    store = tmp_path / "store.zarr"
    shutil.copytree(solved("nim", NIM), store)
    before = store_bytes(store)
    result = run_cli("play", "--store", str(store), *args, input="4-1\n")
    assert result.returncode == 2, result.stderr
    assert_one_error_line(result.stderr, message)
    assert result.stdout == "" and store_bytes(store) == before


# --- the ply cap ---------------------------------------------------------------------------
def test_ply_cap_stops_the_game_with_the_positions_value(solved, open_solved):
    result = run_cli("play", "--store", str(solved("nim", NIM)), "--max-plies", "2", input="1-1\n")
    assert result.returncode == 0, result.stderr
    (value,) = values(open_solved("nim", NIM), [(0, 3, 5, 6)])  # after 1-1 and lookup's reply
    assert str(value) == "loss in 14"
    assert result.stdout.splitlines()[-1] == ("Stopped after 2 plies (--max-plies): "
                                              "the position is a loss in 14 for you (to move).")
    assert "Draw" not in result.stdout


def test_ply_cap_result_is_stopped_not_draw(play):
    result, out = play("nim", NIM, ["1-1"], max_plies=1)
    assert result == "stopped"
    assert "the position is a win in 15 for lookup (to move)." in out
    result, out = play("tictactoe", None, ["b2"], max_plies=1)  # a draw under perfect play
    assert result == "stopped" and out.splitlines()[-1].endswith("the position is a draw.")


def test_game_ended_on_the_last_allowed_ply_is_not_stopped(solved):
    result = run_cli("play", "--store", str(solved("nim", NIM)), "--from", "0,0,0,1", "--max-plies", "1",
                     input="4-1\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Game over: you win."


# --- illegal input and commands ----------------------------------------------------------
ILLEGAL = [
    ("tictactoe", None, "x../.../...", "a1", "a1 is taken by x"),
    ("tictactoe", None, "x../.../...", "zz", "'zz' is not a move: tic-tac-toe moves are cells a1..c3"),
    ("tictactoe", None, "x../.../...", "help me", "'help me' is not a move"),
    ("nim", NIM, "0,3,5,7", "1-1", "heap 1 is empty"),
    ("nim", NIM, "0,3,5,7", "2-4", "heap 2 holds only 3"),
    ("nim", NIM, "0,3,5,7", "5-1", "there is no heap 5: the heaps are 1 to 4"),
    ("nim", NIM, "0,3,5,7", "2-0", "take at least 1 object"),
    ("nim", NIM, "0,3,5,7", "take 2", "'take 2' is not a move: nim moves are HEAP-COUNT"),
    ("nim", BOUNDED_NIM, "0,3,5,7", "4-3", "at most 2 may be taken per turn (--max-take 2)"),
    ("quixo", QUIXO3, "o../.../... x", "b2-a2", "b2 is not on the border"),
    ("quixo", QUIXO3, "o../.../... x", "a1-c1", "a1 holds o's cube: take a blank or your own (x) cube"),
    ("quixo", QUIXO3, "o../.../... x", "b1-b2", "b2 is not an end of b1's row or column: "
                                                "push it in at a1 or c1 or b3"),
    ("quixo", QUIXO3, "o../.../... x", "c1-c1", "the cube cannot go back in where it came from"),
    ("quixo", QUIXO3, "o../.../... x", "d1-a1", "there is no cell d1 on the 3x3 board (a1..c3)"),
    ("quixo", QUIXO3, "o../.../... x", "a1c1", "'a1c1' is not a move: quixo moves are SOURCE-DEST"),
]


@pytest.mark.parametrize("game,params,start,typed,reason", ILLEGAL)
def test_illegal_input_says_why_and_asks_again(play, game, params, start, typed, reason):
    result, out = play(game, params, [typed, "quit"], start=start)
    lines = out.splitlines()
    assert len([line for line in lines if reason in line]) == 1, out
    assert "legal moves:" not in out and result == "quit" and lines[-1] == "Stopped.", out


def test_help_moves_and_hint(play):
    result, out = play("nim", NIM, ["help", "?", "moves", "hint", "4-2"], start="0,0,0,2")
    assert result == "win"
    lines = out.splitlines()
    for command in ("moves", "hint", "help, ?", "quit"):
        assert sum(line.split()[0:1] == command.split()[0:1] for line in lines) == 2, out
    assert "  a move, e.g. 4-1: play it" in out and "HEAP-COUNT" in out
    assert "legal moves: 4-1 4-2" in lines
    hints = lines[lines.index("legal moves: 4-1 4-2") + 1:][:2]
    assert hints == ["  win in 1: 4-2", "  loss in 2: 4-1"]


def sample_positions(game: Game, per_tier: int, rng: np.random.Generator):
    """Up to `per_tier` legal positions of each of the game's tiers."""
    for tier in game.tiers():
        for index in rng.choice(tier.size, size=min(per_tier, tier.size), replace=False).tolist():
            position = game.position_at(tier, index)
            if position is not None:
                yield position


def move_texts(letters: str, digits: str) -> list[str]:
    """Every SOURCE-DEST text over cells named by `letters` and `digits` (some off the board)."""
    cells = [letter + digit for letter in letters for digit in digits]
    return [f"{source}-{dest}" for source in cells for dest in cells]


@pytest.mark.parametrize("game,params,per_tier,texts", [
    ("nim", BOUNDED_NIM, 20, [f"{heap}-{take}" for heap in range(6) for take in range(9)]),
    ("tictactoe", None, 20, [f"{col}{row}" for col in "abcd" for row in "0123"]),
    ("quixo", QUIXO3, 5, move_texts("abcd", "1234")),
    ("quixo", {"size": 4}, 1, move_texts("abcde", "12345")),
])
def test_every_illegal_move_gets_a_precise_reason(game, params, per_tier, texts):
    game = make_game(game, params)
    for position in sample_positions(game, per_tier, np.random.default_rng(0)):
        legal = dict(game.moves(position))
        for text in texts:
            if text in legal:
                continue
            reason = game.display.why_illegal(position, text)
            generic = Display(game).why_illegal(position, text)
            assert reason and "\n" not in reason
            assert reason != generic or game.primitive(position), (game.format(position), text, reason)


# --- stores play must refuse ---------------------------------------------------------------
def test_partly_solved_store_is_refused_before_the_game(tmp_path, solved):
    store = tmp_path / "partial.zarr"
    shutil.copytree(solved("tictactoe"), store)
    group = zarr.open_group(str(store / "tiers" / "k3"), mode="r+")
    group.attrs.put({"tier": "k3", "place": group.attrs["place"], "status": "pending",
                     "chunks": [None] * len(group.attrs["chunks"])})
    before = store_bytes(store)
    result = run_cli("play", "--store", str(store), input="a1\nb1\nc1\na2\n")
    assert result.returncode == 1
    assert_one_error_line(result.stderr, "is not completely solved (9 of 10 tiers solved; not yet: k3)",
                          f"retrograde solve tictactoe --store {store}")
    assert result.stdout == "" and store_bytes(store) == before


def test_start_tier_missing_from_the_store_is_refused(solved):
    store = str(solved("quixo", QUIXO3_FROM_8))
    result = run_cli("play", "--store", store, input="b1-a1\n")
    assert result.returncode == 1
    assert_one_error_line(result.stderr, "(quixo --size 3 --down-to 8) does not hold the start position "
                          "'.../.../... x' (tier m0o0)", "--from positions must lie in its tiers: m0o9",
                          "m8o0 (19 in all)")
    assert result.stdout == ""


def test_lookup_plays_to_the_end_from_a_position_the_store_holds(solved):
    # The human tries every pair of cells in turn (the first legal one is played), 30 moves at most.
    pairs = [f"{a}{r}-{b}{s}" for a in "abc" for r in "123" for b in "abc" for s in "123"]
    result = run_cli("play", "--store", str(solved("quixo", QUIXO3_FROM_8)), "--from", "xox/oxo/.xo x",
                     "--max-plies", "60", input="\n".join(pairs * 30) + "\n")
    assert result.returncode == 0, result.stderr
    last = result.stdout.splitlines()[-1]
    assert last in ("Game over: you win.", "Game over: lookup wins.", "Game over: a draw.") or last.startswith("Stopped after 60 plies"), last


def test_check_playable_is_part_of_play_in_terminal(open_solved):
    store = open_solved("quixo", QUIXO3_FROM_8)
    with pytest.raises(StoreError, match="does not hold the start position"):
        play_in_terminal(store, LookupAgent(store.game, store=store, seed=0), store.game.initial_position, human_first=True,
                         max_plies=10, read=lambda prompt: "quit")


# --- what play says: sides, each move's effect on the value, hints, the end ------------------
def test_play_says_who_plays_which_side(solved):
    store = str(solved("nim", NIM))
    first = run_cli("play", "--store", store, input="quit\n")
    assert first.stdout.splitlines()[0] == "You play first; lookup plays second."
    second = run_cli("play", "--store", store, "--human", "second", "--agent", "random", input="quit\n")
    assert second.stdout.splitlines()[0] == "random plays first; you play second."


#: (start, move, what play says after it, the start's and the child's (outcome, remoteness) by
#: the reference solver). A move's value for its mover: the child's value turned over, one ply
#: later; what is left after it: one ply fewer.
MOVE_VERDICTS = [
    ("0,0,0,1", "4-1", "You kept the win (win in 1 -> game over).", (WIN, 1), (LOSS, 0)),
    ("0,0,1,2", "4-1", "You kept the win (win in 3 -> win in 2).", (WIN, 3), (LOSS, 2)),
    ("0,2,2,3", "2-1", "You kept the win, but it slowed by 2 plies (win in 5 -> win in 6).", (WIN, 5), (LOSS, 6)),
    ("0,0,0,2", "4-1", "You threw away the win: now a loss in 1.", (WIN, 1), (WIN, 1)),
    ("0,0,2,2", "3-2", "Your loss came 2 plies sooner (loss in 4 -> loss in 1).", (LOSS, 4), (WIN, 1)),
    ("0,0,1,1", "3-1", "You held the loss off as long as it goes (loss in 2 -> loss in 1).", (LOSS, 2), (WIN, 1)),
]


@pytest.mark.parametrize("start,move,said,before,child", MOVE_VERDICTS)
def test_each_move_says_whether_it_kept_the_value(play, start, move, said, before, child):
    reference = NimReference()
    heaps = [int(h) for h in start.split(",")]
    heap, take = map(int, move.split("-"))
    assert reference.solve(heaps) == before
    assert reference.solve(heaps[:heap - 1] + [heaps[heap - 1] - take] + heaps[heap:]) == child
    _, out = play("nim", NIM, [move], start=start)
    assert said in out.splitlines(), out


def test_a_move_that_throws_a_draw_away_says_how_soon_it_loses(play):
    # o to move after x took a corner: the centre keeps the draw, the edge beside the corner loses.
    assert ttt_value("x...o....") == (DRAW, 0)
    outcome, remoteness = ttt_value("xo.......")  # x to move after o's b1
    assert outcome == WIN
    _, kept = play("tictactoe", None, ["b2"], start="x../.../... o")
    assert "You kept the draw." in kept.splitlines()
    _, thrown = play("tictactoe", None, ["b1"], start="x../.../... o")
    assert f"You threw away the draw: now a loss in {remoteness}." in thrown.splitlines()


def test_hint_groups_moves_of_equal_value(play):
    # x to move with two in the top row: c1 wins at once; o has two in the middle row, so c2
    # (block it) draws and a3, b3, c3 let o complete it on its next move.
    _, out = play("tictactoe", None, ["hint", "quit"], start="xx./oo./... x")
    lines = out.splitlines()
    assert lines[lines.index("x to move") + 1:][:3] == ["  win in 1: c1", "  draw: c2", "  loss in 2: a3, b3, c3"]


@pytest.mark.parametrize("start,human,result,said", [
    ("xxx/oo./... o", "first", "loss", "Game over: lookup wins."),
    ("xxx/oo./... o", "second", "win", "Game over: you win."),
    ("xox/xoo/oxx", "first", "draw", "Game over: a draw."),
])
def test_a_finished_position_says_game_over_and_who_won(solved, open_solved, start, human, result, said):
    cli = run_cli("play", "--store", str(solved("tictactoe")), "--from", start, "--human", human)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.splitlines()[-1] == said
    store = open_solved("tictactoe")
    assert play_in_terminal(store, LookupAgent(store.game, store=store, seed=0), store.game.parse(start),
                            human_first=human == "first", max_plies=10, read=lambda prompt: "quit") == result
