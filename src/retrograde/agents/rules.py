"""The rules agent: the seeds' fixed Nim rules, one chosen by the option `rule`.

Each rule maps the heaps to (heap index, objects taken); no rule takes more than the
bound k. "Largest" is the heap holding the most objects and "smallest" the non-empty
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

from retrograde.agents.base import Agent
from retrograde.agents.spec import Option
from retrograde.games.base import Game

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
        left = [h for h in heaps[:i] + (heaps[i] - take,) + heaps[i + 1:] if h]
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


class RulesAgent(Agent):
    name = "rules"
    summary = "the seeds' fixed Nim rules (largest/smallest heap, leave one, count-and-decide, fixed)"
    options = (Option("rule", "which fixed rule to play (see the seeds: 000, 001, 003)", "fixed",
                      kind="choice", choices=tuple(RULES)),)

    def __init__(self, game: Game, *, seed: int, store=None, rule: str = "fixed"):
        super().__init__(game, seed=seed, store=store)
        self.rule = RULES[rule]

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        return None if game.name == "nim" else "its fixed rules are Nim rules"

    def choose(self, position):
        i, take = self.rule(tuple(position), self.game.max_take, self.game.misere)
        child = position[:i] + (position[i] - take,) + position[i + 1:]
        return next(move for move in self.game.moves(position) if move[1] == child)
