"""Forfeits (`agents.base.Forfeit`): a user's agent that gives up a move loses the game there
(`agents.match.play_game`), the tournament entries count each seat's forfeits by reason, move
quality counts a forfeit as a loss in 0 and by reason, each forfeit gets a line on stderr (at
most `FORFEIT_LINES` an agent and reason) and never a traceback; and the worst positions the
report lists for each agent, checked against a probe of the store done here.

The agents that forfeit are written here as `Player`s and registered for the test under names
of their own (`registered`)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from conftest import NIM
from retrograde import open_store
from retrograde import outcome as oc
from retrograde.agents import Option, Player, build_agent, registry
from retrograde.agents.base import Forfeit
from retrograde.agents.match import FORFEIT_LINES, ForfeitNotices, play_game
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.validation import quality, validate
from retrograde.validation.tournament import play_match

#: Nim where every move takes one object: 9 plies a game, so each side makes at least 4 moves.
ONE_BY_ONE = {"heaps": [3, 3, 3], "max_take": 1}


class Quitter(Player):
    """Forfeits every move, for `reason`."""

    name = "quitter"
    options = (Option("reason", "the forfeit's reason", "timeout", kind="choice", choices=Forfeit.REASONS),)

    def __init__(self, game, *, seed, store=None, reason):
        super().__init__(game, seed=seed, store=store)
        self.reason = reason

    def choose(self, position):
        raise Forfeit(self.reason, "no answer within 10 s")


class ThirdMove(Player):
    """Plays the first legal move, and raises (an exception forfeit) on its third move."""

    name = "third-move"

    def __init__(self, game, *, seed, store=None):
        super().__init__(game, seed=seed, store=store)
        self.moves = 0

    def choose(self, position):
        self.moves += 1
        if self.moves == 3:
            raise Forfeit("exception", "ZeroDivisionError: division by zero (player.py, line 3)")
        return self.game.moves(position)[0]


@pytest.fixture
def registered(monkeypatch):
    """The agents of this file, known to the registry by name for the test."""
    for cls in (Quitter, ThirdMove):
        monkeypatch.setitem(registry.AGENTS, cls.name, f"{__name__}:{cls.__name__}")


@pytest.mark.parametrize("seat", [0, 1])
def test_a_forfeit_loses_the_game_there_for_the_side_that_gives_up(seat):
    """The third move of the forfeiting side: ply 4 moving first, ply 5 moving second; the game
    stops there, a loss for that side, the record saying who, why and where."""
    game = make_game("nim", ONE_BY_ONE)
    players = [build_agent("random", game, seed=1), build_agent("random", game, seed=2)]
    players[seat] = ThirdMove(game, seed=3)
    record = play_game(*players, game.initial_position, max_plies=20)
    assert record.plies == 4 + seat and len(record.moves) == 4 + seat
    assert record.result == ("loss" if seat == 0 else "win")
    assert record.forfeit.seat == seat and record.forfeit.reason == "exception"
    assert record.forfeit.detail.startswith("ZeroDivisionError")
    assert record.forfeit.position == game.format(record.positions[-1])
    assert sum(map(int, record.forfeit.position.split(","))) == 9 - 4 - seat  # one object a ply


def test_a_match_counts_each_seats_forfeits_by_reason_and_says_so_on_stderr(registered, capsys):
    """Nim 1,3,5,7 (16 objects: no first move ends it): the quitter loses every game in either
    seat, at its first move; the entries count the forfeits of the seat it plays, by reason;
    stderr has `FORFEIT_LINES` lines then one saying the rest are counted, no traceback."""
    game = make_game("nim", NIM)
    found = play_match("quitter:reason=memory", "random", game, games=12, seed=4, quiet=True,
                       executor=InProcessExecutor())
    first, second = found["tournaments"]
    assert (first["first_wins"], first["draws"], first["second_wins"], first["mean_plies"]) == (0, 0, 12, 0)
    assert first["forfeits"] == {"first": {"memory": 12}, "second": {}}
    assert (second["first_wins"], second["draws"], second["second_wins"], second["mean_plies"]) == (12, 0, 0, 1)
    assert second["forfeits"] == {"first": {}, "second": {"memory": 12}}
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "Traceback" not in err
    assert len(lines) == FORFEIT_LINES + 1
    assert lines[0] == "agent 'quitter:reason=memory' forfeits (memory): no answer within 10 s at 1,3,5,7"
    assert lines[-1] == ("agent 'quitter:reason=memory': further forfeits (memory) are not shown; "
                         "the report counts them all")


def test_a_match_without_forfeits_counts_none():
    found = play_match("random", "greedy", make_game("nim", NIM), games=4, seed=1, executor=InProcessExecutor())
    assert [entry["forfeits"] for entry in found["tournaments"]] == [{"first": {}, "second": {}}] * 2


def test_forfeit_lines_are_counted_by_agent_and_reason():
    """Each agent and reason has its own `FORFEIT_LINES` lines and one line for the rest."""
    stream = io.StringIO()
    notices = ForfeitNotices(stream)
    for _ in range(FORFEIT_LINES + 3):
        notices.note("a", "timeout", "slow", "1,2")
        notices.note("b", "timeout", "slow", "1,2")
    notices.note("a", "died", "exit status -9", "1,2")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 * (FORFEIT_LINES + 1) + 1
    assert sum(line.startswith("agent 'a' forfeits (timeout)") for line in lines) == FORFEIT_LINES
    assert lines[-1] == "agent 'a' forfeits (died): exit status -9 at 1,2"


def test_the_worst_positions_put_the_value_lost_first_then_the_remoteness_given_away():
    """quality.worst_order on positions made by hand: win->loss, then win->draw, then
    draw->loss, then the most plies given away (a slower win, a faster loss), ties in the order
    given; a position where nothing is given away is not listed."""
    W, D, L = oc.WIN, oc.DRAW, oc.LOSS
    #               0       1       2        3       4       5       6       7
    outcome = np.array([W, D, W, L, W, W, W, D], dtype=np.int8)
    remoteness = np.array([3, 0, 1, 6, 5, 1, 9, 0])
    chosen = np.array([W, L, D, L, L, W, L, D], dtype=np.int8)
    chosen_remoteness = np.array([5, 4, 0, 2, 2, 1, 6, 0])
    # win->loss: 4, 6 (order given); win->draw: 2; draw->loss: 1; then 3 (4 plies short), 0 (2 beyond)
    order = quality.worst_order(outcome, remoteness, chosen, chosen_remoteness)
    assert order.tolist() == [4, 6, 2, 1, 3, 0]


def test_value_kept_has_a_wilson_interval_over_the_effective_count():
    """8 of 10 positions kept, each standing for 5: the effective count is 10, and the interval
    is Wilson's for 8 of 10, [0.490, 0.943] (to 3 places); one position weighing 91 of 100
    leaves an effective count near 1.2, a much wider interval around the same share."""
    kept = np.array([1] * 8 + [0] * 2, dtype=bool)
    outcome = np.full(10, oc.WIN, dtype=np.int8)
    chosen = np.where(kept, oc.WIN, oc.LOSS).astype(np.int8)
    remoteness = np.ones(10, dtype=np.int64)
    entry = quality.summarise(("t",), np.zeros(10, np.int64), np.full(10, 5.0), outcome, remoteness, chosen, remoteness)
    assert entry["move_quality"]["value_kept"] == pytest.approx(0.8)
    assert entry["move_quality"]["value_kept_ci95"] == pytest.approx([0.490, 0.943], abs=5e-4)
    heavy = np.array([91.0] + [1.0] * 9)  # the heavy position is kept
    skewed = quality.summarise(("t",), np.zeros(10, np.int64), heavy, outcome, remoteness, chosen, remoteness)
    low, high = skewed["move_quality"]["value_kept_ci95"]
    assert skewed["move_quality"]["value_kept"] == pytest.approx(0.98)
    assert low < 0.5 < 0.98 < high


def _best(moves) -> set[str]:
    """The right moves of a probe, worked out here: the fastest win, else a draw, else the slowest loss."""
    wins = [m for m in moves if m.value == "win"]
    if wins:
        return {m.move for m in wins if m.remoteness == min(w.remoteness for w in wins)}
    draws = {m.move for m in moves if m.value == "draw"}
    return draws or {m.move for m in moves if m.remoteness == max(m.remoteness for m in moves)}


def test_validate_counts_forfeits_and_lists_each_agents_worst_positions(registered, solved, tmp_path, capfd):
    """A validation of Nim 1,3,5,7 (every position measured) with an agent that always forfeits:
    its every measured move is a timeout forfeit, and its worst positions are won positions it
    gives up; random's worst positions match a probe of the store (the value, the move's value,
    the right moves), ordered as `worst_order` says; the report shows them and stderr has no traceback."""
    path = solved("nim", NIM)
    out = tmp_path / "report"
    report = validate(path, out, "lookup,random,quitter", games=4, seed=2, quiet=True, executor=InProcessExecutor())
    err = capfd.readouterr().err
    assert "Traceback" not in err and "agent 'quitter' forfeits (timeout): no answer within 10 s at" in err
    assert report == json.loads((out / "report.json").read_text())
    quitter = report["agents"]["quitter"]
    positions = quitter["move_quality"]["positions"]
    assert quitter["move_quality"]["forfeits"] == {"timeout": positions}
    assert report["agents"]["random"]["move_quality"]["forfeits"] == {}
    assert report["agents"]["lookup"]["worst"] == []  # the lookup agent gives nothing away
    store = open_store(path)
    for entry in quitter["worst"]:
        probed = store.probe(entry["position"])
        assert (entry["value"], entry["chosen"], entry["forfeit"]) == ("win", None, "timeout")
        assert (entry["achieves"], entry["achieves_remoteness"]) == ("loss", 0)
        assert probed.value == "win" and probed.remoteness == entry["remoteness"]
        assert set(entry["best"]) == _best(probed.moves)
    assert len(quitter["worst"]) == quality.WORST
    # every game it moves in lost at its first move: moving first at once; moving second from the
    # start (16 objects) always, from an opening only where the opponent's move does not end the game
    for t in report["tournaments"]:
        if t["first"] == "quitter":
            assert (t["second_wins"], t["forfeits"]) == (t["games"], {"first": {"timeout": t["games"]}, "second": {}})
        elif t["second"] == "quitter":
            assert t["first_wins"] == t["games"] and set(t["forfeits"]["second"]) == {"timeout"}
            given_up = t["forfeits"]["second"]["timeout"]
            assert given_up == t["games"] if t["start"] == "initial" else 0 < given_up <= t["games"]
        else:
            assert t["forfeits"] == {"first": {}, "second": {}}
    # random's worst: each consistent with the probe, in worst_order's order
    worst = report["agents"]["random"]["worst"]
    assert len(worst) == quality.WORST
    keys = []
    for entry in worst:
        probed = store.probe(entry["position"])
        assert (probed.value, probed.remoteness) == (entry["value"], entry["remoteness"])
        chosen = next(m for m in probed.moves if m.move == entry["chosen"])
        assert (chosen.value, chosen.remoteness) == (entry["achieves"], entry["achieves_remoteness"])
        assert set(entry["best"]) == _best(probed.moves) and entry["chosen"] not in entry["best"]
        lost = {("win", "loss"): 3, ("win", "draw"): 2, ("draw", "loss"): 1}.get((entry["value"], entry["achieves"]), 0)
        given = (chosen.remoteness - probed.remoteness if lost == 0 and entry["value"] == "win" else
                 probed.remoteness - chosen.remoteness if entry["value"] == "loss" else 0)
        assert lost or given > 0
        keys.append((-lost, -given))
    assert keys == sorted(keys)
    if report["agents"]["random"]["move_quality"]["win_to_loss"] >= quality.WORST:
        assert all(entry["achieves"] == "loss" and entry["value"] == "win" for entry in worst)
    page, markdown = (out / "report.html").read_text(), (out / "report.md").read_text()
    assert "## Agent quitter: its worst positions" in markdown and "| forfeit (timeout) |" in markdown
    assert f"timeout {positions:,} of its moves measured" in markdown
    assert markdown.index("- Forfeits: quitter") < markdown.index("## How this was measured")
    begin = page.index("<h2>Agent random: its worst positions")
    section = page[begin:page.index("<h2>", begin + 1)]
    assert section.count('<a href="http://127.0.0.1:8000/?position=') == quality.WORST
    timings = json.loads((out / "timings.json").read_text())
    assert set(timings["moves_per_second"]) == {"lookup", "random", "quitter"}
