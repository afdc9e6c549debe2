"""The course reports' presets for Nim: the workflows `retrograde run` offers and the match
results the reports published (set beside ours by `validate`)."""

from retrograde.games.hooks import AgentRef, Figure, Workflow

WORKFLOWS = (
    Workflow("nim", "solve and verify Nim 1,3,5,7 (normal play)", {"heaps": [1, 3, 5, 7]}),
    Workflow("nim-bounded", "solve and verify Nim 1,3,...,13 taking at most 4 (645,120 positions)",
             {"heaps": [1, 3, 5, 7, 9, 11, 13], "max_take": 4}),
)

RANDOM = AgentRef("RandomAgent", "random")
S000_NIM = "000_d757dde743cebd34.txt, Lab 3 task 3.1 (NIM_SIZE = 4, 100 matches, agent first)"
HEAPS = {"heaps": [1, 3, 5, 7]}

#: Seed 000, Nim 1,3,5,7 (normal play): fixed rules against pure_random, the rule moving first.
FIGURES = (
    Figure(HEAPS, AgentRef("pick_minimum_from_highest_row", "rules", (("rule", "largest-min"),)),
           RANDOM, "first", 0.80, 0.20, 0.00, 100, S000_NIM, ("'80% average win rate'",)),
    Figure(HEAPS, AgentRef("pick_minimum_from_lowest_row", "rules", (("rule", "smallest-min"),)),
           RANDOM, "first", 0.45, 0.55, 0.00, 100, S000_NIM, ("'45% average win rate'",)),
    Figure(HEAPS, AgentRef("pick_maximum_from_lowest_row", "rules", (("rule", "smallest-max"),)),
           RANDOM, "first", 0.45, 0.55, 0.00, 100, S000_NIM, ("'45% average win rate'",)),
    Figure(HEAPS, AgentRef("count_and_decide", "rules", (("rule", "count-and-decide"),)),
           RANDOM, "first", 0.85, 0.15, 0.00, 100, S000_NIM, ("'85% average win rate'",)),
)
