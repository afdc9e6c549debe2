"""Nim's own agents: the theory's strategy (`expert`) and the course reports' fixed rules (`rules`).

The expert (seed 000/003 task 3.1, the nim-sum expert): every heap h has the Grundy value
g(h) = h mod (k+1) under a bound k on objects taken (g(h) = h unbounded). The mover is lost
exactly when
  - normal play: the XOR of the g's is 0;
  - misère play: the XOR is 0 and some g >= 2, or the XOR is 1 and every g <= 1.
The misère rule with a bound is the misère-Nim rule applied to the g's. Why it holds: a
move changes one g (a take of 1..k cannot keep h mod (k+1)); from a heap it reaches
every smaller g, and every g but its own once h >= k. Then no move leads from one
lost class to another, and from any other non-empty position one does (the nim move on
the g's while two g's are >= 2; with one, set it to make the XOR 1; with none, flip one
g between 0 and 1: take 1, or take k from a heap of a multiple of k+1). The tests
check it on every position of solved normal, misère, bounded and misère-bounded stores.
The expert moves to a lost position for the opponent (one such move at random); from
a lost position it plays a random legal move, as the seeds' expert did.

The fixed rules (`rules`, option `rule`): each maps the heaps to (heap index, objects taken);
no rule takes more than the bound k. "Largest" is the heap holding the most objects and "smallest" the non-empty
heap holding the fewest, ties going to the first such heap; "min" takes one object,
"max" as many as allowed (the whole heap, or k).

* `largest-min`, `largest-max`, `smallest-min`, `smallest-max`: seed 000's fixed rules
  (it found taking one object from the largest heap the best against random play).
* `count-and-decide`: seed 000's rule by the parity of the non-empty heaps: with an odd
  number the most from the largest heap, with an even number one from the smallest (one
  of the variants it reported best against random play).
* `leave-one`: seed 001's best evolved genome: take from the fattest heap, leaving it one
  object (one object from a heap of one).
* `fixed`: seed 003's fixed strategy, in the order the moves are listed (heap by heap,
  fewest objects first): a move that wins at once (normal play: it empties the board);
  else the first move that neither loses at once (misère: it empties the board) nor lets
  the opponent win at once (normal play: it leaves a single non-empty heap of at most k
  objects); else the first move. It implements the rule as the seed describes it; the
  seed's code tested the position before the move, so in effect it rarely discarded any.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import xor

from retrograde.games.capabilities import Policy, uniform
from retrograde.spec import Option


def grundy(heap: int, max_take: int | None) -> int:
    """The normal-play Grundy value of one heap when at most `max_take` may be taken."""
    return heap if max_take is None else heap % (max_take + 1)


def nim_lost(heaps: tuple[int, ...], max_take: int | None, misere: bool) -> bool:
    """Whether the side to move loses `heaps` under perfect play (see the module docstring);
    the empty position is lost under normal play and won under misère play."""
    values = [grundy(h, max_take) for h in heaps]
    total = reduce(xor, values, 0)
    if not misere:
        return total == 0
    if any(v >= 2 for v in values):
        return total == 0
    return total == 1


class NimExpert(Policy):
    name = "expert"
    summary = "the theory's strategy: nim-sum (Grundy values h mod k+1, normal and misère)"
    claim = "never gives a Nim win away"

    def _candidates(self, position):
        """The moves it draws from: those leaving the opponent lost, else every move."""
        moves = self.game.moves(position)
        winning = [move for move in moves if nim_lost(move[1], self.game.max_take, self.game.misere)]
        return winning or moves

    def choose(self, position):
        moves = self._candidates(position)
        return moves[int(self.rng.integers(len(moves)))]

    def distribution(self, position):
        return uniform(self._candidates(position))


Heaps = tuple[int, ...]
Rule = Callable[[Heaps, int | None, bool], tuple[int, int]]


def _limit(heap: int, max_take: int | None) -> int:
    return heap if max_take is None else min(heap, max_take)


def _largest(heaps: Heaps) -> int:
    return max(range(len(heaps)), key=lambda i: (heaps[i], -i))


def _smallest(heaps: Heaps) -> int:
    return min((i for i, h in enumerate(heaps) if h), key=lambda i: (heaps[i], i))


def largest_min(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    return _largest(heaps), 1


def largest_max(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    i = _largest(heaps)
    return i, _limit(heaps[i], max_take)


def smallest_min(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    return _smallest(heaps), 1


def smallest_max(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    i = _smallest(heaps)
    return i, _limit(heaps[i], max_take)


def count_and_decide(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    active = sum(1 for h in heaps if h)
    return largest_max(heaps, max_take, misere) if active % 2 else smallest_min(heaps, max_take, misere)


def leave_one(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    i = _largest(heaps)
    return i, _limit(max(heaps[i] - 1, 1), max_take)


def fixed(heaps: Heaps, max_take: int | None, misere: bool) -> tuple[int, int]:
    moves = [(i, take) for i, h in enumerate(heaps) for take in range(1, _limit(h, max_take) + 1)]
    total = sum(heaps)
    if not misere:
        for i, take in moves:
            if take == total:
                return i, take

    def safe(i: int, take: int) -> bool:
        left = [h for h in after(heaps, i, take) if h]
        if misere:
            return bool(left)
        return not (len(left) == 1 and _limit(left[0], max_take) == left[0])

    return next((move for move in moves if safe(*move)), moves[0])


#: The rules by option value.
RULES: dict[str, Rule] = {
    "fixed": fixed,
    "largest-min": largest_min,
    "largest-max": largest_max,
    "smallest-min": smallest_min,
    "smallest-max": smallest_max,
    "leave-one": leave_one,
    "count-and-decide": count_and_decide,
}


class FixedRules(Policy):
    name = "rules"
    deterministic = True
    summary = "the seeds' fixed Nim rules (largest/smallest heap, leave one, count-and-decide, fixed)"
    options = (Option("rule", "which fixed rule to play (see the seeds: 000, 001, 003)", "fixed",
                      kind="choice", choices=tuple(RULES)),)

    def __init__(self, game, rng, *, rule: str = "fixed"):
        super().__init__(game, rng)
        self.rule = RULES[rule]

    def choose(self, position):
        return take(self.game, position, *self.rule(tuple(position), self.game.max_take, self.game.misere))


def after(heaps: tuple[int, ...], heap: int, count: int) -> tuple[int, ...]:
    """The heaps once `count` objects are taken from heap `heap` (0 first)."""
    return heaps[:heap] + (heaps[heap] - count,) + heaps[heap + 1:]


def take(game, position, heap: int, count: int):
    """The move (text, child) taking `count` objects from heap `heap` (0 first)."""
    child = after(position, heap, count)
    return next(move for move in game.moves(position) if move[1] == child)
