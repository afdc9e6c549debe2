"""Confidence intervals and ratings: Wilson score intervals for rates, and a Bradley-Terry fit of
all agents' strengths from their games, on the Elo scale, with bootstrap intervals.

Bradley-Terry: P(i beats j) = e^θi / (e^θi + e^θj); a draw counts half a win for each side.
Every pair that met gets one virtual draw (a weak prior), so that an agent that won or lost
every game still has a finite rating. The fit is Newton's method on the concave
log-likelihood; ratings are 400/ln 10 · θ, anchored at random = 0 when random played, else
at mean 0. Intervals: 95% percentiles of refits on games resampled within each pairing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The 97.5% quantile of the standard normal distribution.
Z95 = 1.959963984540054
ELO = 400 / math.log(10)
#: Virtual draws added per pair that met.
PRIOR_GAMES = 1.0
BOOTSTRAP = 200


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (0, 1 when n is 0); `n` may be an effective count
    (a weighted sample's), not a whole number."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At p = 0 or 1 the bound is exactly 0 or 1; rounding would print 0.9999999999999999.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def fit_strengths(score: np.ndarray, games: np.ndarray, *, iterations: int = 100,
                  tolerance: float = 1e-10) -> np.ndarray:
    """Bradley-Terry log-strengths θ (mean 0) from `score[i, j]` (points of i against j: wins plus
    half the draws) and `games[i, j]` (games between i and j, symmetric)."""
    k = len(score)
    theta = np.zeros(k)
    total = score.sum(axis=1)

    def log_likelihood(t: np.ndarray) -> float:
        gap = t[:, None] - t[None, :]
        return float((score * -np.logaddexp(0, -gap)).sum())

    current = log_likelihood(theta)
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
        gradient = total - (games * p).sum(axis=1)
        weights = games * p * p.T
        laplacian = np.diag(weights.sum(axis=1)) - weights
        step = np.linalg.solve(laplacian + np.ones((k, k)) / k, gradient)
        size = 1.0
        while size > 1e-6:
            trial = theta + size * step
            value = log_likelihood(trial)
            if value >= current - 1e-12:
                break
            size /= 2
        theta, current = trial - trial.mean(), value
        if np.abs(size * step).max() < tolerance:
            break
    return theta


def _matrices(names: Sequence[str], tournaments: Sequence[dict[str, Any]],
              counts: Sequence[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Score and games matrices from tournament entries and their (first wins, draws, second wins)."""
    at = {name: i for i, name in enumerate(names)}
    k = len(names)
    score, games = np.zeros((k, k)), np.zeros((k, k))
    for entry, (wins, draws, losses) in zip(tournaments, counts):
        i, j = at[entry["first"]], at[entry["second"]]
        if i == j:
            continue  # self-play says nothing about relative strength
        score[i, j] += wins + draws / 2
        score[j, i] += losses + draws / 2
        games[i, j] += wins + draws + losses
        games[j, i] += wins + draws + losses
    met = (games > 0) & ~np.eye(k, dtype=bool)
    score += met * PRIOR_GAMES / 2
    games += met * PRIOR_GAMES
    return score, games


def ratings(names: Sequence[str], tournaments: Sequence[dict[str, Any]], *, seed: int,
            bootstrap: int = BOOTSTRAP, anchor: str = "random") -> dict[str, Any]:
    """Elo-scale ratings of `names` with 95% bootstrap intervals, from SPEC §7 tournament entries."""
    counts = [(e["first_wins"], e["draws"], e["second_wins"]) for e in tournaments]
    anchored = anchor if anchor in names else None
    reference = (lambda theta: theta[list(names).index(anchored)]) if anchored else (lambda theta: theta.mean())

    def elo(count_list) -> np.ndarray:
        theta = fit_strengths(*_matrices(names, tournaments, count_list))
        return ELO * (theta - reference(theta))

    point = elo(counts)
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(bootstrap):
        resampled = []
        for wins, draws, losses in counts:
            n = wins + draws + losses
            resampled.append(tuple(rng.multinomial(n, [wins / n, draws / n, losses / n]).tolist()) if n else (0, 0, 0))
        samples.append(elo(resampled))
    low, high = np.percentile(np.array(samples), [2.5, 97.5], axis=0) if samples else (point, point)
    capped = sum(entry.get("capped", 0) for entry in tournaments)
    return {"scale": "Elo (400/ln10 × Bradley-Terry log-strength); draws count half a win; "
                     f"one virtual draw per pair that met; {bootstrap} bootstrap refits; games stopped at the ply "
                     f"cap count as draws ({capped:,} of {sum(sum(c) for c in counts):,} games)",
            "capped": capped,
            "anchor": f"{anchored} = 0" if anchored else "mean 0",
            "agents": {name: {"elo": round(float(point[i]), 1),
                              "ci95": [round(float(low[i]), 1), round(float(high[i]), 1)]}
                       for i, name in enumerate(names)}}
