"""Agent ratings (validation/rating.py): a Bradley-Terry fit of two agents' games, worked out by
hand."""

from __future__ import annotations

import math

import pytest

from retrograde.validation import rating


def test_ratings_count_draws_among_the_games():
    """rating.py: a pair's games are its wins, draws and losses. x scores 20 wins + 60 draws +
    10 losses first, and the mirror second: 100 points of 180 games, plus the virtual draw: a
    two-agent Bradley-Terry fit gives p = 100.5 / 181, Elo 400 log10(p / (1 - p))."""
    tournaments = [{"first": "x", "second": "random", "first_wins": 20, "draws": 60, "second_wins": 10},
                   {"first": "random", "second": "x", "first_wins": 10, "draws": 60, "second_wins": 20}]
    found = rating.ratings(["random", "x"], tournaments, seed=1, bootstrap=0)
    assert found["agents"]["random"]["elo"] == 0.0
    assert found["agents"]["x"]["elo"] == pytest.approx(400 * math.log10(100.5 / 80.5), abs=0.05)
