"""The course reports' Nim players as their code played them (`AGENT:preset=000` or `=003`),
beside our agents named after their prose (`random`, `rules:rule=...`, `expert`). Moves are
(row r, count o), rows numbered from the top, 0 first, listed row by row, fewest first.

Report 000's fixed rules each take the largest legal move under a sort key, and the keys, not
the names, say what they play: "min" and "max" pick the first or the last non-empty row,
"highest" and "lowest" take the whole row or one object. Its `pick_minimum_from_highest_row`
so empties the first non-empty row, where our `rules:rule=largest-min` takes one object from
the largest heap. `pick_maximum_from_highest_row` is called but not printed; its key is read
off the other three (the last row, all of it). `count_and_decide` plays one rule with an odd
number of non-empty rows and another with an even one; the report printed five pairs, and a last
version of each seat over its `pick_all_elements` and `pick_all_but_one_elements` of a random row
(described, not printed: `all-from-random-row`, `all-but-one-from-random-row`). Its
`minmax_strategy` (`minimax:preset=000`) plays the first move after which its search says the
opponent wins (`Report000Minmax` says why).

Report 003's `fixed_strategy` tests the position before the move where its comment means the
position after it, so it discards no move but where a single heap is left: it empties the board
where one move does, else takes one object from the first non-empty heap. Its
`optimal_strategy` plays the first move leaving a nim-sum of 0 over the raw heaps, the bound
ignored, else a random move: a perfect player only without a bound, under normal play.

Report 003's evolved strategy (`ga:preset=003`) scores each move by folding the heaps it leaves
with a two-argument boolean formula over the integers' bits (a genome of 4n+3 numbers, each
below or above 0.5: a or !a, & or |, b or !b, then & or | to the next clause; !a is Python's
~a, so scores can be negative) and plays the first move of the lowest score. By default it
plays the genome the report evolved, (a & b) & (!a | b) | (!a & !b).

The genomes the two reports evolved train with `ga:preset=000` and `ga:preset=003`
(`Report000Genome`, `Report003Genome`): report 000's is one probability, that of emptying a
randomly drawn row rather than leaving one object in it, evolved against an "optimal_strategy" its
text does not print (we use report 003's, from the same course template); report 003's is the
formula above, of 11 genes.

Both reports' random player (`pure_random`, `random_strategy`) draws a non-empty row, then a
count, where our `random` draws a move: from heaps 1,3,5,7 it takes the single object a
quarter of the time, not a sixteenth. Under a bound k the moves are those taking at most k (as
the reports' `cook_status` lists them); report 000 played 1,3,5,7 unbounded.
"""

from __future__ import annotations

import math
from functools import reduce
from operator import xor

from retrograde.errors import BadAgent
from retrograde.games.capabilities import Genome, GenomePlayer, Policy, uniform
from retrograde.games.nim.players import after, take
from retrograde.spec import Option

#: The report's rules by name: the sort key over (row, count) whose largest legal move it takes.
KEYS = {
    "min-from-highest-row": lambda row, count: (-row, count),
    "min-from-lowest-row": lambda row, count: (-row, -count),
    "max-from-lowest-row": lambda row, count: (row, -count),
    "max-from-highest-row": lambda row, count: (row, count),
}
#: Report 000's rules on a non-empty row drawn at random (its `pick_all_elements` and
#: `pick_all_but_one_elements`, which its prose describes and its code calls but does not print):
#: whether each empties the row.
RANDOM_ROW = {"all-from-random-row": True, "all-but-one-from-random-row": False}
COUNT_AND_DECIDE = "count-and-decide"


def row_take(heap: int, empties: bool, max_take: int | None) -> int:
    """Objects report 000's helpers take from a row of `heap`: all of it where it `empties` (or
    holds one: what all but one takes there is not printed), else all but one; at most the bound."""
    count = heap if empties or heap == 1 else heap - 1
    return count if max_take is None else min(count, max_take)


def optimal_003(heaps: tuple[int, ...], max_take: int | None, rng) -> tuple[int, int] | list[tuple[int, int]]:
    """Report 003's optimal_strategy (the course template's): the first move (row, count) leaving a
    nim-sum of 0 over the raw heaps; else, with `rng` None, every move it draws from, else one drawn."""
    moves = _legal(heaps, max_take)
    zero = next((move for move in moves if reduce(xor, after(heaps, *move), 0) == 0), None)
    if zero is not None:
        return zero
    return moves if rng is None else moves[int(rng.integers(len(moves)))]


def _legal(heaps: tuple[int, ...], max_take: int | None) -> list[tuple[int, int]]:
    return [(row, count) for row, heap in enumerate(heaps) for count in range(1, heap + 1)
            if max_take is None or count <= max_take]


class RowFirstRandom(Policy):
    name = "random"
    summary = ("the reports' random player (000's pure_random, 003's random_strategy): a non-empty heap "
               "uniformly, then how many to take uniformly (ours draws one of the moves uniformly)")

    def choose(self, position):
        rows = [row for row, heap in enumerate(position) if heap]
        row = rows[int(self.rng.integers(len(rows)))]
        return take(self.game, position, row, 1 + int(self.rng.integers(self._most(position, row))))

    def _most(self, position, row: int) -> int:
        return position[row] if self.game.max_take is None else min(position[row], self.game.max_take)

    def distribution(self, position):
        rows = [row for row, heap in enumerate(position) if heap]
        return [(1 / len(rows) / self._most(position, row), after(position, row, count))
                for row in rows for count in range(1, self._most(position, row) + 1)]


class Report000Rules(Policy):
    name = "rules"
    summary = ("report 000's fixed rules as its code ran them: 'min'/'max' pick the first/last non-empty "
               "heap, 'highest'/'lowest' take all of it/one (ours follow the names: the largest or smallest "
               "heap); all or all but one of a random row; count-and-decide by the parity of the non-empty heaps")
    options = (Option("rule", "which of the report's rules", "min-from-highest-row", kind="choice",
                      choices=(*KEYS, *RANDOM_ROW, COUNT_AND_DECIDE)),
               Option("odd", "count-and-decide: the rule with an odd number of non-empty heaps",
                      "max-from-highest-row", kind="choice", choices=(*KEYS, *RANDOM_ROW)),
               Option("even", "count-and-decide: the rule with an even number", "min-from-lowest-row",
                      kind="choice", choices=(*KEYS, *RANDOM_ROW)))

    def __init__(self, game, rng, *, rule: str, odd: str, even: str):
        super().__init__(game, rng)
        self.rule, self.odd, self.even = rule, odd, even

    def _rule(self, position) -> str:
        """The rule played at `position` (count-and-decide's by the parity of the non-empty heaps)."""
        if self.rule == COUNT_AND_DECIDE:
            return self.odd if sum(1 for heap in position if heap) % 2 else self.even
        return self.rule

    def choose(self, position):
        rule = self._rule(position)
        if rule in RANDOM_ROW:
            rows = [row for row, heap in enumerate(position) if heap]
            row = rows[int(self.rng.integers(len(rows)))]
            return take(self.game, position, row, row_take(position[row], RANDOM_ROW[rule], self.game.max_take))
        key = KEYS[rule]
        row, count = max(_legal(tuple(position), self.game.max_take), key=lambda move: key(*move))
        return take(self.game, position, row, count)

    def distribution(self, position):
        rule = self._rule(position)
        if rule not in RANDOM_ROW:
            return [(1.0, self.choose(position)[1])]
        rows = [row for row, heap in enumerate(position) if heap]
        return [(1 / len(rows), after(position, row, row_take(position[row], RANDOM_ROW[rule], self.game.max_take)))
                for row in rows]


class Report003Fixed(Policy):
    name = "rules"
    deterministic = True
    summary = ("report 003's fixed_strategy as its code ran it: empty the board where one move does, else "
               "one object from the first non-empty heap (ours discards the moves that lose at once, as its "
               "comment says)")

    def choose(self, position):
        moves = _legal(tuple(position), self.game.max_take)
        row, count = next((move for move in moves if sum(position) == move[1]), moves[0])
        return take(self.game, position, row, count)


class Report003Optimal(Policy):
    name = "expert"
    summary = ("report 003's optimal_strategy: the first move leaving a nim-sum of 0 over the raw heaps "
               "(the bound and misère play ignored), else a random move (ours: Grundy values h mod k+1, "
               "misère too)")

    def choose(self, position):
        return take(self.game, position, *optimal_003(tuple(position), self.game.max_take, self.rng))

    def distribution(self, position):
        moves = optimal_003(tuple(position), self.game.max_take, None)
        if isinstance(moves, tuple):
            return [(1.0, after(position, *moves))]
        return uniform([(None, after(position, *move)) for move in moves])


class Report000Minmax(Policy):
    """Report 000's `minmax_strategy` as printed: for each move in turn (row by row, fewest first) it
    calls `minmax(after the move, maximizing_player=True)`, an alpha-beta search over every move at
    a maximizing node and the optimal_strategy's one move at a minimizing node, and plays the first
    move scoring above 0, else the last move. An empty position scores -1 at a maximizing node and
    +1 at a minimizing one. After its own move the opponent is to move, so the maximizing side is
    the opponent and its own later moves are the optimal_strategy's: a score above 0 says the
    opponent wins, and it plays the first move after which it does. The optimal_strategy is not
    printed in report 000: report 003's (the same course template's) stands in, drawing from the
    policy's generator where it draws.

    Without a bound the search's score is known without searching: above 0 exactly where the
    position left is not empty and its nim-sum is not 0 (the opponent then moves to a nim-sum of 0
    and wins, whatever the optimal_strategy's draws; from a nim-sum of 0 the optimal_strategy keeps
    it 0 and wins). The search (exponential: half a minute a move from 1,3,5,7,9) runs only under a
    bound, where its draws can change scores; tests/test_nim_reports.py holds the two equal."""

    name = "minimax"
    summary = ("report 000's minmax as printed: the first move after which an alpha-beta search (every move "
               "for the side to move next, the optimal_strategy's one move for itself) scores above 0, which is "
               "the opponent's win; else the last move (ours: depth-limited negamax, the best move)")

    def choose(self, position):
        moves = _legal(tuple(position), self.game.max_take)
        move = next((move for move in moves if self._opponent_wins(after(tuple(position), *move))), moves[-1])
        return take(self.game, position, *move)

    def distribution(self, position):
        return [(1.0, self.choose(position)[1])] if self.game.max_take is None else None

    def _opponent_wins(self, heaps: tuple[int, ...]) -> bool:
        """Whether `minmax(heaps, maximizing_player=True)` scores above 0."""
        if self.game.max_take is None:
            return any(heaps) and reduce(xor, heaps) != 0
        return self._minmax(heaps, True, -1, 1) > 0

    def _minmax(self, heaps: tuple[int, ...], maximizing: bool, alpha: float, beta: float) -> float:
        if not any(heaps):
            return -1 if maximizing else 1
        if not maximizing:
            return self._minmax(after(heaps, *optimal_003(heaps, self.game.max_take, self.rng)), True, alpha, beta)
        best = -math.inf
        for move in _legal(heaps, self.game.max_take):
            best = max(best, self._minmax(after(heaps, *move), False, alpha, beta))
            alpha = max(alpha, best)
            if beta <= alpha:
                break
        return best


#: The genome report 003 evolved (its log's "Best individual").
EVOLVED_003 = "0.49,0.09,0.38,0.11,0.88,0.64,0.47,0.79,0.63,0.06,0.68"


def _formula(genome: list[float]):
    """Report 003's genetic_op: clause i is (a or !a) (& or |) (b or !b) by genes 4i..4i+2, joined
    to the clauses before it, left to right, by gene 4i+3."""
    def fold(a: int, b: int) -> int:
        result, join = None, None
        for start in range(0, len(genome), 4):
            x = a if genome[start] < 0.5 else ~a
            y = b if genome[start + 2] < 0.5 else ~b
            clause = x & y if genome[start + 1] < 0.5 else x | y
            result = clause if join is None else join(result, clause)
            if start + 3 < len(genome):
                join = (lambda p, q: p & q) if genome[start + 3] < 0.5 else (lambda p, q: p | q)
        return result
    return fold


class FormulaPlayer(GenomePlayer):
    """Report 003's evolved strategy of a genome: the first move of the lowest folded score."""

    deterministic = True

    def __init__(self, game, genes):
        self.game = game
        self.fold = _formula(list(genes))

    def choose(self, position, rng=None):
        def score(move):
            return reduce(self.fold, after(position, *move))
        return take(self.game, position, *min(_legal(tuple(position), self.game.max_take), key=score))


class Report003Formula(Policy):
    name = "ga"
    deterministic = True
    summary = ("report 003's evolved strategy: the first move whose heaps, folded by a boolean formula of "
               "their bits, score lowest (ours, report 001's genome: heap and take rules drawn by weight)")
    options = (Option("genome", "4n+3 numbers in [0, 1], comma-separated in parentheses (default: the genome "
                                "the report evolved)", EVOLVED_003, kind="text"),)

    def __init__(self, game, rng, *, genome: str):
        super().__init__(game, rng)
        try:
            genes = [float(gene) for gene in genome.split(",")]
        except ValueError:
            genes = []
        if len(genes) < 7 or (len(genes) - 3) % 4 or not all(0 <= gene <= 1 for gene in genes):
            raise BadAgent(f"ga:preset=003: genome={genome}: give 4n+3 numbers (n >= 1) in [0, 1], "
                           "comma-separated in parentheses")
        self.player = FormulaPlayer(game, genes)

    def choose(self, position):
        return self.player.choose(position)


class Report003Genome(Genome):
    """Report 003's genome as its GA evolved it: 11 numbers (two clauses and the join), each read as
    below or above 0.5 (`train ga:preset=003`)."""

    names = tuple(f"gene_{i}" for i in range(11))
    kind = "nim-003-formula"
    opponents = "expert:preset=003,random:preset=003"

    def player(self, weights, **options):
        return FormulaPlayer(self.game, weights)


class OneProbabilityPlayer(GenomePlayer):
    """Report 000's evolved strategy: with probability p, a random non-empty row emptied, else
    all of it but one object (all of a one-object row: its helpers are not printed)."""

    def __init__(self, game, p: float):
        self.game, self.p = game, p

    def choose(self, position, rng):
        rows = [row for row, heap in enumerate(position) if heap]
        row = rows[int(rng.integers(len(rows)))]
        return take(self.game, position, row, row_take(position[row], rng.random() < self.p, self.game.max_take))

    def distribution(self, position):
        rows = [row for row, heap in enumerate(position) if heap]
        return [(chance / len(rows), after(position, row, row_take(position[row], empties, self.game.max_take)))
                for row in rows for chance, empties in ((self.p, True), (1 - self.p, False)) if chance]


class Report000Genome(Genome):
    """Report 000's genome: one probability, that of emptying the drawn row (`train ga:preset=000`)."""

    names = ("p_take_all",)
    kind = "nim-000-probability"
    opponents = "expert:preset=003"

    def player(self, weights, **options):
        return OneProbabilityPlayer(self.game, float(weights[0]))
