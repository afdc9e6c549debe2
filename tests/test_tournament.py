"""Tournaments and matches (validation/tournament.py): the openings drawn from a store without the
start, and games from given openings played out as the reference values them; results that do
not depend on the workers; a match playing both seats, from the API and the `match` command; and
the checks of a match's options."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

import reference as ref
from conftest import NIM, resolved, ttt_text
from retrograde.data.store import Store
from retrograde.errors import BadOption
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor, open_executor
from retrograde.validation import play_match, tournament
from retrograde.validation.rating import wilson
from retrograde.validation.tournament import INITIAL, Pairing, run_tournament


def test_stored_openings_are_as_many_as_asked_and_distinct(solved):
    """tournament.py: a store that does not hold the start gives `count` openings, drawn without
    repeats while its first tiers hold enough positions where the game goes on (3x3 Quixo down to
    7 pieces holds thousands)."""
    store = Store.open(solved("quixo", {"size": 3, "down_to": 7}))
    try:
        openings = list(tournament.stored_openings(store, 20, 5))
        texts = {store.game.format(position) for position in openings}
        assert len(openings) == 20 and len(texts) == 20
        assert not any(store.game.primitive(position) for position in openings)
    finally:
        store.close()


def test_a_match_may_cap_its_games_at_one_ply():
    """validation/tournament.py: `--max-plies 1` is the least cap a match takes (0 is refused)."""
    game = make_game("tictactoe")
    assert tournament._check_match("random", "random", game, games=1, seed=0, store=None, max_plies=1)[-1] == 1
    with pytest.raises(BadOption, match="--max-plies 0"):
        tournament._check_match("random", "random", game, games=1, seed=0, store=None, max_plies=0)


def test_tournament_results_do_not_depend_on_workers(solved):
    from retrograde.data.store import Store

    with Store.open(solved("tictactoe")) as store:
        agents = resolved(store.game, ["random", "lookup"])
        plan = [Pairing(a, b, INITIAL, 25) for a in agents for b in agents]
        alone = run_tournament(store.game, store, plan, seed=4, executor=InProcessExecutor(), max_plies=10,
                               quiet=True)
        with open_executor(workers=2) as executor:
            cluster = run_tournament(store.game, store, plan, seed=4, executor=executor, max_plies=10, quiet=True)
    assert alone == cluster
    by_pair = {(e["first"], e["second"]): e for e in alone}
    assert by_pair["lookup", "lookup"]["draws"] == 25  # tic-tac-toe is a draw
    assert by_pair["random", "lookup"]["first_wins"] == 0 and by_pair["lookup", "random"]["second_wins"] == 0


def test_play_match_plays_both_seats_from_a_given_start():
    game = make_game("nim", NIM)
    start = game.parse("0,0,0,2")  # the mover takes both and wins
    result = play_match("expert", "random", game, games=7, seed=2, start=start)
    a_first, b_first = result["tournaments"]
    assert (a_first["first"], a_first["second"], a_first["games"]) == ("expert", "random", 7)
    assert (b_first["first"], b_first["second"]) == ("random", "expert")
    assert a_first["first_wins"] == 7
    assert 0 < b_first["first_wins"] < 7  # random takes both with probability 1/2
    assert a_first["first_win_ci95"] == list(wilson(7, 7))


def test_match_command(solved, cli):
    code, stdout, stderr = cli("match", "lookup", "random", "--store", str(solved("tictactoe")), "--games", "6",
                               "--json", "--quiet")
    assert code == 0, stderr
    result = json.loads(stdout)
    assert [(t["first"], t["games"]) for t in result["tournaments"]] == [("lookup", 6), ("random", 6)]
    assert result["tournaments"][1]["first_wins"] == 0
    code, _, stderr = cli("match", "lookup", "random", "--game", "tictactoe")
    assert code == 2 and "store" in stderr


#: Tic-tac-toe openings of 2 to 4 plies (not over), with values the reference gives: wins,
#: losses and draws at several remoteness.
OPENINGS_BY_HAND = (".x.....o.", ".o..x....", ".x.ox....", "..x.o.x..", "...xox...", ".o.xox...",
                    "..xx..o.o", "..ox.xo..", "..xx...oo", "..xx..oo.", ".xox....o", "..xx.o..o")


def test_games_of_an_openings_pairing_start_from_the_openings(open_solved):
    """Lookup against lookup from each opening plays it out perfectly: the side to move there
    (`first`) gets the opening's value, after its remoteness in plies (a draw fills the board).
    From the start every game would be a 9-ply draw. Twelve openings: two batches of games."""
    from retrograde.validation.tournament import OPENINGS

    store = open_solved("tictactoe")
    game = store.game
    openings = [game.parse(ttt_text(board)) for board in OPENINGS_BY_HAND]
    (entry,) = run_tournament(game, store, [Pairing(*resolved(game, ["lookup", "lookup"]), OPENINGS, len(openings))], seed=2,
                              executor=InProcessExecutor(), max_plies=10, openings=openings, quiet=True)
    values = [ref.ttt_value(board) for board in OPENINGS_BY_HAND]
    plies = [remoteness if outcome != ref.DRAW else board.count(".")
             for board, (outcome, remoteness) in zip(OPENINGS_BY_HAND, values)]
    outcomes = Counter(outcome for outcome, _ in values)
    assert outcomes[ref.WIN] and outcomes[ref.LOSS] and outcomes[ref.DRAW]
    assert (entry["games"], entry["first_wins"], entry["draws"], entry["second_wins"]) == (
        len(openings), outcomes[ref.WIN], outcomes[ref.DRAW], outcomes[ref.LOSS])
    assert entry["mean_plies"] == pytest.approx(np.mean(plies), abs=0.005)
