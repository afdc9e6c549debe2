"""The course reports' presets for Nim: the workflows `retrograde run` offers and the match
results the reports published (set beside ours by `validate`)."""

from functools import cached_property

import numpy as np

from retrograde.games.capabilities import AgentRef, Course, Figure, Unplayed, Workflow

WORKFLOWS = (
    Workflow("nim", "solve and verify Nim 1,3,5,7 (normal play)", {"heaps": [1, 3, 5, 7]}),
    Workflow("nim-bounded", "solve and verify Nim 1,3,...,13 taking at most 4 (645,120 positions)",
             {"heaps": [1, 3, 5, 7, 9, 11, 13], "max_take": 4}),
)

#: The course reports' GA settings on Nim (`train ga:preset=NUMBER`). Seed 000: one probability
#: (`Report000Genome`), 50 + 300 a generation for 100 generations, parents by tournaments of 2, a
#: child the mean of two parents or (one in five) a new random genome, fitness the win share over
#: 100 matches moving first against the "optimal_strategy". Seed 001 (misère Nim): its rule
#: weights, 50 individuals, 200 generations, tournaments of 25, uniform crossover, Gaussian
#: mutation (one gene of a child in 0.15: here each gene in 0.025), fitness over 200 matches
#: against random or, with a chance rising over the generations, the optimal player. Seed 003:
#: its formula of 11 genes, 10 + 20 a generation for 100 generations, tournaments of 2, a child a
#: uniform crossover or (3 in 10) a parent with one gene flipped, fitness over 20 matches against
#: its optimal and random players, both seats.
LEARNER_PRESETS = {
    ("ga", "000"): {"genome": "000", "population": "50", "offspring": "300", "generations": "100",
                    "selection": "tournament-plus", "tournament": "2", "crossover": "mean", "mutant": "0.2",
                    "mutant_kind": "random", "mutation": "0", "games": "100", "seats": "first",
                    "opponents": "expert:preset=003", "fitness": "matches"},
    ("ga", "001"): {"population": "50", "offspring": "50", "generations": "200", "selection": "tournament-plus",
                    "tournament": "25", "crossover": "uniform", "mutation": "0.025", "games": "200",
                    "schedule": "rising", "opponents": "random:preset=003,expert:preset=003", "fitness": "matches"},
    ("ga", "003"): {"genome": "003", "population": "10", "offspring": "20", "generations": "100",
                    "selection": "tournament-plus", "tournament": "2", "crossover": "uniform", "mutant": "0.3",
                    "mutant_kind": "flip", "mutation": "0", "games": "20",
                    "opponents": "expert:preset=003,random:preset=003", "fitness": "matches"},
}

PURE_RANDOM = AgentRef("pure_random", "random", (("preset", "000"),), text="random")
S000_NIM = "000_d757dde743cebd34.txt, Lab 3 task 3.1 (NIM_SIZE = 4, 100 matches, agent first)"
HEAPS = {"heaps": [1, 3, 5, 7]}


#: Our rules named as report 000's prose names its rules (the row is the heap, highest the largest).
TEXT_000 = {"min-from-highest-row": "rules:rule=largest-min", "min-from-lowest-row": "rules:rule=smallest-min",
            "max-from-lowest-row": "rules:rule=smallest-max"}


def _report000(label: str, win: float, quote: str, *options: tuple[str, str]) -> Figure:
    """A figure of report 000's fixed rules against its pure_random, the rule moving first, as its
    code played them (`games/nim/reports.py`)."""
    agent = AgentRef(label, "rules", (("preset", "000"), *options), text=TEXT_000.get(dict(options)["rule"]))
    return Figure(HEAPS, agent, PURE_RANDOM, "first", win, round(1 - win, 2), 0.00, 100, S000_NIM, (quote,))


S000_GA = "000_d757dde743cebd34.txt, Lab 3 task 3.2 (the evolved probability's fitness: 100 matches, agent first)"
EVOLVED_000 = AgentRef("evolvable (the evolved probability)", "ga", learner="ga:preset=000")
OPTIMAL_000 = AgentRef("optimal_strategy", "expert", (("preset", "003"),), text="expert")


def _count_and_decide(odd: str, even: str, win: float) -> Figure:
    return _report000(f"count_and_decide (odd: {odd}, even: {even})", win, f"'{win:.0%} average win rate'",
                      ("rule", "count-and-decide"), ("odd", odd), ("even", even))


#: Seed 000, Nim 1,3,5,7 (normal play): fixed rules against pure_random, the rule moving first.
FIGURES = (
    _report000("pick_minimum_from_highest_row", 0.80, "'80% average win rate'", ("rule", "min-from-highest-row")),
    _report000("pick_minimum_from_lowest_row", 0.45, "'45% average win rate for both'",
               ("rule", "min-from-lowest-row")),
    _report000("pick_maximum_from_lowest_row", 0.45, "'45% average win rate for both'",
               ("rule", "max-from-lowest-row")),
    _count_and_decide("max-from-highest-row", "min-from-lowest-row", 0.85),
    _count_and_decide("max-from-highest-row", "max-from-lowest-row", 0.85),
    _count_and_decide("max-from-highest-row", "min-from-highest-row", 0.70),
    _count_and_decide("min-from-highest-row", "min-from-lowest-row", 0.85),
    _count_and_decide("min-from-highest-row", "max-from-lowest-row", 0.85),
    Figure(HEAPS, EVOLVED_000, OPTIMAL_000, "first", 0.41, 0.59, 0.00, 100, S000_GA,
           ("its log's best fitness from generation 25 on",
            "its optimal_strategy is not printed; here report 003's, from the same course template, which leaves a "
            "nim-sum of 0 where it can: from 1,3,5,7 (nim-sum 0) the first player then never wins")),
)

S000_FINAL = "000_d757dde743cebd34.txt, Lab 3 task 3.1 (the final count_and_decide, NIM_SIZE = 4, 100 matches)"
#: Report 000's last count_and_decide, one version a seat: all but one of a random row with an even
#: (agent first) or odd (agent second) number of non-empty rows, else all of it.
FINAL_FIRST = AgentRef("count_and_decide (final, playing first)", "rules",
                       (("preset", "000"), ("rule", "count-and-decide"), ("odd", "all-from-random-row"),
                        ("even", "all-but-one-from-random-row")))
FINAL_SECOND = AgentRef("count_and_decide (final, playing second)", "rules",
                        (("preset", "000"), ("rule", "count-and-decide"), ("odd", "all-but-one-from-random-row"),
                         ("even", "all-from-random-row")))
FINAL_NOTES = ("its pick_all_elements and pick_all_but_one_elements are described ('chose a random row and pick "
               "all elements', 'all but one') but not printed; here a non-empty row drawn evenly, and all of a "
               "row of one where all but one would take none",
               "its optimal_strategy is not printed; here report 003's, from the same course template")
SECOND_NOTE = ("its evaluate counts the first strategy's wins, so evaluate(pure_random or optimal_strategy, "
               "count_and_decide) printed as '100% win rate' is, as the code counts, the opponent's share; its "
               "prose says count_and_decide beat them every time, and that is the figure here")
S000_MINMAX = "000_d757dde743cebd34.txt, Lab 3 task 3.3 (minmax against the optimal strategy; matches not given)"
#: Its prose: an alpha-beta minmax, its code searching to the end: as named, a perfect player (our
#: lookup plays perfectly from the store).
MINMAX_000 = AgentRef("minmax_strategy", "minimax", (("preset", "000"),), text="lookup")
MINMAX_NOTES = ("the report says 'never' and 'always' and prints no evaluate call: the minmax moving first, as "
                "the template's evaluate(strategy, opponent) puts the strategy under test",
                "its optimal_strategy (its minmax's model of its own later moves, and the opponent) is not "
                "printed; here report 003's, from the same course template")

#: Report 000's final count_and_decide against pure_random and optimal_strategy in each seat, and
#: its minmax against optimal_strategy at NIM_SIZE 4 and 5.
FIGURES += tuple(
    Figure(HEAPS, agent, opponent, seat, 1.0, 0.0, 0.0, 100, S000_FINAL,
           (quote, *FINAL_NOTES, *((SECOND_NOTE,) if seat == "second" else ())))
    for agent, opponent, seat, quote in (
        (FINAL_FIRST, PURE_RANDOM, "first", "'print(evaluate(count_and_decide, pure_random)) # 100% win rate'"),
        (FINAL_FIRST, OPTIMAL_000, "first", "'print(evaluate(count_and_decide, optimal_strategy)) # 100% win rate'"),
        (FINAL_SECOND, PURE_RANDOM, "second", "'print(evaluate(pure_random, count_and_decide)) # 100% win rate'"),
        (FINAL_SECOND, OPTIMAL_000, "second",
         "'print(evaluate(optimal_strategy, count_and_decide)) # 100% win rate'"),
    )) + (
    Figure(HEAPS, MINMAX_000, OPTIMAL_000, "first", 0.0, 1.0, 0.0, None, S000_MINMAX,
           ("'if nim size is 4, I never beat the opponent'", *MINMAX_NOTES)),
    Figure({"heaps": [1, 3, 5, 7, 9]}, MINMAX_000, OPTIMAL_000, "first", 1.0, 0.0, 0.0, None, S000_MINMAX,
           ("'If nim size is 5, I always beat the opponent'", *MINMAX_NOTES)),
)

#: Report 000's figures no match plays.
UNPLAYED = tuple(
    Unplayed("000_d757dde743cebd34.txt, Lab 3 task 3.4 (Q-learning, NIM_SIZE = 4)",
             f"'the agent was capable to learn how to beat the opponent and win a good rate of matches (97% average "
             f"win rate)', against the {opponent} player",
             "a win share counted while it learned (Q_play: 10,000 games, the opponent moving first, a fresh QL_Agent "
             "a game sharing one Q table through a class attribute), not a match of a trained agent; its learning "
             "rate, discount and initial Q values are cut off in the printed code, and no artifact of it is kept")
    for opponent in ("random", "expert"))


def _instances_003(count: int, seed: int) -> tuple[dict, ...]:
    """Report 003's mixed benchmark, drawn again from `seed`: 3 to 10 rows of 1, 3, 5, ...
    objects, and no bound or a bound of 1 to 10, each half the time (its draws were unseeded)."""
    rng = np.random.default_rng(seed)
    instances = []
    for _ in range(count):
        rows = int(rng.integers(3, 11))
        bound = None if rng.random() < 0.5 else int(rng.integers(1, 11))
        instances.append({"heaps": [2 * i + 1 for i in range(rows)], "max_take": bound})
    return tuple(instances)


S003 = "003_f13b88c9e198dfb7.txt, Benchmarks (100 instances, one game a seat each)"
MIXED_003 = {"heaps": "3 to 10 rows of 1, 3, 5, ... objects", "max_take": "none, or 1 to 10 (half each)"}
INSTANCES_003 = _instances_003(100, 3)
RANDOM_003 = AgentRef("random_strategy", "random", (("preset", "003"),), text="random")
OPTIMAL_003 = AgentRef("optimal_strategy", "expert", (("preset", "003"),), text="expert")
FIXED_003 = AgentRef("fixed_strategy", "rules", (("preset", "003"),), text="rules:rule=fixed")
EVOLVED_003 = AgentRef("evolved_strategy", "ga", (("preset", "003"),))

#: Seed 003's benchmark over mixed instances: its fixed and evolved strategies against its random
#: and "optimal" players, each seat once an instance (its evaluate lets the second player move
#: first: both seats are played either way).
FIGURES += tuple(
    Figure(MIXED_003, agent, opponent, "either", win, round(1 - win, 3), 0.0, 200, S003, (quote,), INSTANCES_003)
    for agent, opponent, win, quote in (
        (FIXED_003, RANDOM_003, 0.825, "'Fixed strategy win rate against random strategy was 82.5 % (165.0/200)'"),
        (EVOLVED_003, RANDOM_003, 0.65, "'Evolved strategy win rate against random strategy was 65.0 % (130.0/200)'"),
        (FIXED_003, OPTIMAL_003, 0.045, "'Fixed strategy win rate against optimal strategy was 4.5 % (9.0/200)'"),
        (EVOLVED_003, OPTIMAL_003, 0.23, "'Evolved strategy win rate against optimal strategy was 23.0 % (46.0/200)'"),
    ))

S003_FITNESS = ("003_f13b88c9e198dfb7.txt, Task 3.2 (the evolved genome's fitness: 5 instances, one game a seat "
                "each against each opponent)")
#: Seed 003's fitness of the genome it evolved, (share won against optimal, against random), over
#: its GAME_PARS: 5 instances drawn unseeded and not printed; the benchmark's instances, drawn from
#: the same distribution, stand in.
FIGURES += tuple(
    Figure(MIXED_003, EVOLVED_003, opponent, "either", win, round(1 - win, 3), 0.0, 10, S003_FITNESS,
           ("'Best individual: (a & b) & (!a | b) | (!a & !b) with genome [...] fitness = (0.4, 1.0)'",
            "its 5 instances (GAME_PARS) were drawn unseeded and are not printed; here the benchmark's 100, drawn "
            "from the same distribution, so the instances differ as well as the games"), INSTANCES_003)
    for opponent, win in ((OPTIMAL_003, 0.4), (RANDOM_003, 1.0)))


class NimCourse(Course):
    """Reports 000, 001 and 003 on Nim: their workflows, figures (and those no match plays), GA settings,
    players and genomes."""

    workflows = WORKFLOWS
    figures = FIGURES
    unplayed = UNPLAYED
    learner_presets = LEARNER_PRESETS

    @cached_property
    def api(self):
        """The Nim lab's `nim` module (`course_api`)."""
        from retrograde.games.nim.course_api import NimApi

        return NimApi()

    @cached_property
    def players(self):
        from retrograde.games.nim.reports import (Report000Minmax, Report000Rules, Report003Fixed, Report003Formula,
                                                  Report003Optimal, RowFirstRandom)

        return {("random", "000"): RowFirstRandom, ("rules", "000"): Report000Rules, ("minimax", "000"): Report000Minmax,
                ("random", "003"): RowFirstRandom, ("rules", "003"): Report003Fixed,
                ("expert", "003"): Report003Optimal, ("ga", "003"): Report003Formula}

    @cached_property
    def genomes(self):
        from retrograde.games.nim.reports import Report000Genome, Report003Genome

        return {"000": Report000Genome, "003": Report003Genome}
