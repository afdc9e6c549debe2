"""Tournaments (validation/tournament.py): the openings drawn from a store without the start, and
the checks of a match's options."""

from __future__ import annotations

import pytest

from retrograde.data.store import Store
from retrograde.errors import BadOption
from retrograde.games import make_game
from retrograde.validation import tournament


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
