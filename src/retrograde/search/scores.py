"""Scores as agents read them, without numba: the score scale of every search, the kinds of agents
a game's kernels play whole games as, drawing a best move, and decoding exact scores into
outcome and remoteness. (`base` runs the searches; agents that only read their scores import
this module, so that naming an agent never loads a kernel.)"""

from __future__ import annotations

import numpy as np

from retrograde import outcome as oc

#: Score of a win at the root itself; a win `ply` plies below scores WIN_SCORE - ply.
WIN_SCORE = 1_000_000_000
#: "No exact value here": a score no search returns (past a position's moves, a tier not held).
UNKNOWN = -(1 << 62)

#: Agents a game's kernels play whole games with (`Player.kernel_agent`): the lookup agent (a best
#: exact score; by outcome alone), the greedy agent, the random agent.
LOOKUP, LOOKUP_BY_OUTCOME, GREEDY, RANDOM = range(4)


def pick_best(scores: np.ndarray, rng: np.random.Generator) -> int:
    """A move number drawn uniformly among the highest scores."""
    best = np.flatnonzero(scores == scores.max())
    return int(best[rng.integers(len(best))])


def pick_best_rows(scores: np.ndarray, rng: np.random.Generator, *, seeds: bool = False) -> np.ndarray:
    """`pick_best` at each row of `scores` (UNKNOWN past a row's moves, a move or more a row), drawing
    from `rng` in the order a player choosing row by row draws: one draw a row, or with `seeds` a
    search seed (`integers(1 << 63)`) before it, as a player whose choice is searched draws. In a
    kernel (`base.pick_rows`: numba's Generator draws numpy's stream), as its callers' scores are."""
    from retrograde.search.base import pick_rows  # numba: loaded by the kernels that scored the rows

    picked = np.empty(len(scores), dtype=np.int64)
    pick_rows(np.ascontiguousarray(scores, dtype=np.int64), rng, seeds, picked)
    return picked


def score_values(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes and remoteness (0 for a draw) of exact scores: a win `WIN_SCORE - r` (in r
    plies), a loss `r - WIN_SCORE`, a draw 0."""
    scores = np.asarray(scores, dtype=np.int64)
    outcome = np.where(scores > 0, oc.WIN, np.where(scores < 0, oc.LOSS, oc.DRAW)).astype(np.int8)
    return outcome, np.where(scores > 0, WIN_SCORE - scores, np.where(scores < 0, scores + WIN_SCORE, 0))
