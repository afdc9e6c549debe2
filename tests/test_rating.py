"""Agent ratings (validation/rating.py): Wilson intervals against values computed by hand, and
Bradley-Terry fits: two agents' games worked out by hand, and known strengths recovered from
simulated games."""

from __future__ import annotations

import math

import numpy as np
import pytest

from retrograde.validation import rating
from retrograde.validation.rating import ELO, ratings, wilson


def test_ratings_count_draws_among_the_games():
    """rating.py: a pair's games are its wins, draws and losses. x scores 20 wins + 60 draws +
    10 losses first, and the mirror second: 100 points of 180 games, plus the virtual draw: a
    two-agent Bradley-Terry fit gives p = 100.5 / 181, Elo 400 log10(p / (1 - p))."""
    tournaments = [{"first": "x", "second": "random", "first_wins": 20, "draws": 60, "second_wins": 10},
                   {"first": "random", "second": "x", "first_wins": 10, "draws": 60, "second_wins": 20}]
    found = rating.ratings(["random", "x"], tournaments, seed=1, bootstrap=0)
    assert found["agents"]["random"]["elo"] == 0.0
    assert found["agents"]["x"]["elo"] == pytest.approx(400 * math.log10(100.5 / 80.5), abs=0.05)


def test_wilson_interval_known_values():
    # hand-computed: 0 of 10 -> [0, z²/(n+z²)]; 5 of 10 -> 0.5 ± 0.2634; 10 of 10 mirrors 0 of 10
    assert wilson(0, 10) == pytest.approx((0.0, 3.841459 / 13.841459), abs=1e-6)
    assert wilson(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    assert wilson(10, 10) == pytest.approx((1 - 3.841459 / 13.841459, 1.0), abs=1e-6)
    assert wilson(10, 10)[1] == 1.0 and wilson(0, 10)[0] == 0.0  # exact, not 0.9999999999999999
    # 81 of 263 by hand: centre (p + z²/2n)/(1 + z²/n) = 0.310744, half-width 0.055460
    assert wilson(81, 263) == pytest.approx((0.255284, 0.366204), abs=2e-5)


def test_bradley_terry_recovers_known_strengths():
    names = ["random", "a", "b", "c"]
    true = np.array([0.0, 150.0, 300.0, 600.0])
    rng = np.random.default_rng(7)
    entries = []
    for i, first in enumerate(names):
        for j, second in enumerate(names):
            if i != j:
                p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
                wins = int(rng.binomial(3000, p))
                entries.append({"first": first, "second": second, "first_wins": wins, "draws": 0,
                                "second_wins": 3000 - wins})
    fitted = ratings(names, entries, seed=1, bootstrap=40)
    for name, want in zip(names, true):
        got = fitted["agents"][name]
        assert got["elo"] == pytest.approx(want, abs=25)
        assert got["ci95"][0] <= got["elo"] <= got["ci95"][1]
    assert fitted["agents"]["random"]["elo"] == 0.0 and ELO == pytest.approx(173.7178, abs=1e-4)
