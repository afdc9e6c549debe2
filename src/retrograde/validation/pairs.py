"""Game pairs: a match's statistics with the pair as the unit, as fishtest and cutechess count
them. A pair is one opening played twice, seats swapped; its score (points over 2: 0, 1/4, 1/2,
3/4 or 1) falls in one of five cells, the pentanomial counts LL, LD, DD_WL, WD, WW.

With N pairs, mu the mean pair score and var its per-pair variance (as fishtest computes them:
official-stockfish/fishtest, server/fishtest/stats/stat_util.py `get_elo` and LLRcalc.py; the
LLR after M. Van den Bergh, "A GSPRT approximation", cantate.be/Fishtest/GSPRT_approximation.pdf):

- Elo = -400 log10(1/mu - 1), the logistic Elo of mu, with mu clamped into [0.001, 0.999] as
  fishtest's `elo` does (so |Elo| <= 1200: a match won in every pair reads +1199.8);
- 95% interval: mu -+ Z95 sqrt(var / N), each end through the same Elo map (normal approximation);
- LOS (likelihood of superiority) = Phi((mu - 1/2) / sqrt(var / N));
- SPRT of H0: Elo = elo0 against H1: Elo = elo1, generalised LLR in its normal approximation
  (fishtest LLRcalc.LLR_alt2): LLR = N (mu1 - mu0) (2 mu - mu0 - mu1) / (2 var), with mu0, mu1
  the pair scores that elo0, elo1 give; H0 is accepted at LLR <= ln(beta / (1 - alpha)), H1 at
  LLR >= ln((1 - beta) / alpha) (Wald's bounds).

An empty cell counts as 1e-3 pairs (fishtest LLRcalc.regularize), so var > 0 from the first
pair on: a match won in every pair has a large finite LLR, not a division by zero. It moves mu
by at most 0.004 / N.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from retrograde.errors import BadOption
from retrograde.validation.rating import ELO, Z95

#: The pentanomial cells, from the pair's first agent's view, and each cell's pair score.
CELLS = ("LL", "LD", "DD_WL", "WD", "WW")
SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Pairs an empty cell counts for (fishtest's regularisation).
EMPTY_CELL = 1e-3
#: Mean pair scores are clamped this far from 0 and 1 before they become Elo.
SCORE_CLAMP = 1e-3
POINTS = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def pentanomial(results: Sequence[str], mirrored: Sequence[str]) -> list[int]:
    """Counts of LL, LD, DD_WL, WD, WW over the pairs (results[i], mirrored[i]): `results` are
    one agent's games (its result, "win"/"draw"/"loss"), `mirrored` those of the other agent
    from the same starts with seats swapped (the other agent's results). Pairs: the first
    min(len) games."""
    counts = [0] * 5
    for own, other in zip(results, mirrored):
        counts[round(2 * (POINTS[own] + 1 - POINTS[other]))] += 1
    return counts


def mean_variance(counts: Sequence[int]) -> tuple[float, float, float]:
    """(N, mu, var): pairs, mean pair score and per-pair variance, empty cells counting 1e-3."""
    weights = [c if c > 0 else EMPTY_CELL for c in counts]
    n = sum(weights)
    mu = sum(w * s for w, s in zip(weights, SCORES)) / n
    return n, mu, sum(w * (s - mu) ** 2 for w, s in zip(weights, SCORES)) / n


def elo(score: float) -> float:
    """Logistic Elo of an expected score, the score clamped into [0.001, 0.999]."""
    score = min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP)
    return ELO * math.log(score / (1 - score))


def expected_score(elo_difference: float) -> float:
    """The expected score (per game, hence per pair) of a logistic Elo difference."""
    return 1 / (1 + math.exp(-elo_difference / ELO))


def estimate(counts: Sequence[int]) -> dict[str, Any]:
    """{"elo", "elo_ci95", "los"} of the pair counts (None each when no pair was played)."""
    if sum(counts) == 0:
        return {"elo": None, "elo_ci95": None, "los": None}
    n, mu, var = mean_variance(counts)
    sd = math.sqrt(var / n)
    return {"elo": _tenth(elo(mu)), "elo_ci95": [_tenth(elo(mu - Z95 * sd)), _tenth(elo(mu + Z95 * sd))],
            "los": round(NormalDist().cdf((mu - 0.5) / sd), 4)}


def _tenth(x: float) -> float:
    return round(x, 1) + 0.0  # + 0.0: no "-0.0" for an even match


def pair_figures(counts: Sequence[int] | None) -> dict[str, Any]:
    """A tournament entry's pair keys: "pairs" (the pentanomial `counts` by cell) and their
    estimate, from its first agent's view; all None without a mirror (`counts` None)."""
    if counts is None:
        return {"pairs": None, "elo": None, "elo_ci95": None, "los": None}
    return {"pairs": dict(zip(CELLS, counts)), **estimate(counts)}


def pairs_line(entry: dict[str, Any]) -> str:
    """One line of an entry's pairs, e.g. "pairs of a vs b: LL 0, LD 1, DD/WL 5, WD 2, WW 2;
    Elo +70.4 (95% CI -31.2 to +181.5), LOS 91.2%"."""
    counts = ", ".join(f"{cell.replace('_', '/')} {entry['pairs'][cell]}" for cell in CELLS)
    low, high = entry["elo_ci95"]
    return (f"pairs of {entry['first']} vs {entry['second']}: {counts}; Elo {entry['elo']:+.1f} "
            f"(95% CI {low:+.1f} to {high:+.1f}), LOS {100 * entry['los']:.1f}%")


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1 (logistic
    Elo of the first agent over the second) on pentanomial pair counts, with error rates
    alpha (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """From `elo0,elo1[,alpha,beta]`.

        :raises BadOption: not 2 or 4 finite numbers, elo0 >= elo1, or alpha or beta outside (0, 0.5).
        """
        usage = f"--sprt {text!r}: give elo0,elo1 or elo0,elo1,alpha,beta (e.g. 0,50 or 0,50,0.05,0.05)"
        try:
            numbers = [float(part) for part in text.split(",")]
        except ValueError:
            raise BadOption(usage) from None
        if len(numbers) not in (2, 4) or not all(math.isfinite(x) for x in numbers):
            raise BadOption(usage)
        test = cls(*numbers)
        if test.elo0 >= test.elo1:
            raise BadOption(f"--sprt {text!r}: elo0 must be below elo1")
        if not (0 < test.alpha < 0.5 and 0 < test.beta < 0.5):
            raise BadOption(f"--sprt {text!r}: alpha and beta must lie strictly between 0 and 0.5")
        return test

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The normal-approximation GSPRT log-likelihood ratio of the counts (0 for no pairs)."""
        if sum(counts) == 0:
            return 0.0
        n, mu, var = mean_variance(counts)
        mu0, mu1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (mu1 - mu0) * (2 * mu - mu0 - mu1) / (2 * var)

    def verdict(self, llr: float) -> str | None:
        """"H0 accepted" or "H1 accepted" once the LLR reaches a bound, else None."""
        if llr <= self.lower:
            return "H0 accepted"
        if llr >= self.upper:
            return "H1 accepted"
        return None

    def report(self, counts: Sequence[int], result: str) -> dict[str, Any]:
        """The `match --json` "sprt" object after the pairs `counts` with `result`."""
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "llr": round(self.llr(counts), 4), "lower": round(self.lower, 4), "upper": round(self.upper, 4),
                "pairs": sum(counts), "result": result}


def sprt_line(sprt: dict[str, Any]) -> str:
    """E.g. "SPRT: H1 accepted, LLR 2.96 [-2.94, 2.94], 20 pairs (elo0 0, elo1 50, alpha 0.05, beta 0.05)"."""
    return (f"SPRT: {sprt['result']}, LLR {sprt['llr']:.2f} [{sprt['lower']:.2f}, {sprt['upper']:.2f}], "
            f"{sprt['pairs']} pairs (elo0 {sprt['elo0']:g}, elo1 {sprt['elo1']:g}, alpha {sprt['alpha']:g}, "
            f"beta {sprt['beta']:g})")
