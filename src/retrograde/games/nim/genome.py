"""Nim's genetic-algorithm genome (seed 001): six weights in [0, 1], [random heap, fattest heap,
random take, odd take, prime take, leave one]. Each move draws a heap rule, then a take rule,
each with probability proportional to its weights (uniform if they are all 0): random heap /
the fattest heap; take a random count, a random odd count, a random prime count (1 if none
fits), or leave one object in the heap (all of a one-object heap; as close as --max-take
allows). Seed 001 evolved it against a random and an optimal player (`expert`)."""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Genome, GenomePlayer
from retrograde.games.nim.players import after


def _draw(weights: np.ndarray, rng: np.random.Generator) -> int:
    """A rule drawn with probability proportional to its weight (uniform if all are 0)."""
    total = weights.sum()
    if total <= 0:
        return int(rng.integers(len(weights)))
    return min(int(np.searchsorted(np.cumsum(weights), rng.random() * total, side="right")), len(weights) - 1)


def _chances(weights: np.ndarray) -> list[float]:
    """The chance `_draw` draws each rule with."""
    total = weights.sum()
    return [1 / len(weights)] * len(weights) if total <= 0 else [float(w) / total for w in weights]


def _primes_upto(limit: int) -> list[int]:
    return [p for p in range(2, limit + 1) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


class RulePlayer(GenomePlayer):
    """A heap rule and a take rule, drawn by their weights each move."""

    def __init__(self, game, weights: np.ndarray):
        self.game = game
        self.weights = weights

    @staticmethod
    def _heaps(heaps) -> tuple[list[int], list[int]]:
        """The heaps each heap rule draws from: every non-empty heap, the fattest."""
        filled = [i for i, h in enumerate(heaps) if h]
        return filled, [i for i in filled if heaps[i] == max(heaps)]

    def _counts(self, rule: int, size: int) -> list[int]:
        """The counts take rule `rule` draws from, uniformly, at a heap of `size`."""
        limit = size if self.game.max_take is None else min(size, self.game.max_take)
        if rule == 3:  # leave one
            return [size if size == 1 else min(size - 1, limit)]
        return (list(range(1, limit + 1)), list(range(1, limit + 1, 2)), _primes_upto(limit) or [1])[rule]

    def take(self, heaps, rng: np.random.Generator) -> tuple[int, int]:
        """(heap, count) the rules choose (heap 0-based)."""
        filled, fattest = self._heaps(heaps)
        if _draw(self.weights[:2], rng) == 0:
            heap = filled[int(rng.integers(len(filled)))]
        else:
            heap = fattest[int(rng.integers(len(fattest)))] if len(fattest) > 1 else fattest[0]
        rule = _draw(self.weights[2:], rng)
        counts = self._counts(rule, heaps[heap])
        return heap, counts[0] if rule == 3 else counts[int(rng.integers(len(counts)))]

    def choose(self, position, rng):
        moves = self.game.moves(position)
        heap, count = self.take(position, rng)
        return next(move for move in moves if move[0] == f"{heap + 1}-{count}")

    def distribution(self, position):
        result, rule_chances = [], list(enumerate(_chances(self.weights[2:])))
        for heap_chance, heaps in zip(_chances(self.weights[:2]), self._heaps(position)):
            for heap in heaps:
                for rule, rule_chance in rule_chances:
                    counts = self._counts(rule, position[heap])
                    chance = heap_chance / len(heaps) * rule_chance / len(counts)
                    result += [(chance, after(position, heap, count)) for count in counts if chance]
        return result


class NimRules(Genome):
    names = ("random_heap", "fattest_heap", "random_take", "odd_take", "prime_take", "leave_one")
    kind = "nim-rules"
    opponents = "random,expert"

    def player(self, weights, **options):
        return RulePlayer(self.game, weights)
