"""The course reports' presets for Nim: the workflows `retrograde run` offers and the match
results the reports published (set beside ours by `validate`)."""

from retrograde.games.hooks import AgentRef, Figure, Workflow

WORKFLOWS = (
    Workflow("nim", "solve and verify Nim 1,3,5,7 (normal play)", {"heaps": [1, 3, 5, 7]}),
    Workflow("nim-bounded", "solve and verify Nim 1,3,...,13 taking at most 4 (645,120 positions)",
             {"heaps": [1, 3, 5, 7, 9, 11, 13], "max_take": 4}),
)

PURE_RANDOM = AgentRef("pure_random", "random", (("preset", "000"),))
S000_NIM = "000_d757dde743cebd34.txt, Lab 3 task 3.1 (NIM_SIZE = 4, 100 matches, agent first)"
HEAPS = {"heaps": [1, 3, 5, 7]}


def _report000(label: str, win: float, quote: str, *options: tuple[str, str]) -> Figure:
    """A figure of report 000's fixed rules against its pure_random, the rule moving first, as its
    code played them (`games/nim/reports.py`)."""
    agent = AgentRef(label, "rules", (("preset", "000"), *options))
    return Figure(HEAPS, agent, PURE_RANDOM, "first", win, round(1 - win, 2), 0.00, 100, S000_NIM, (quote,))


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
)
