"""The course reports' presets for Quarto: the workflow `retrograde run quarto` and the match
results reports 000 and 002 published (set beside ours by `validate`)."""

from functools import cached_property

from retrograde.games.capabilities import AgentRef, Course, Figure, Sampling, Unplayed, Workflow


def placement(move: str) -> str:
    """The cell a move places at: b3:7 -> b3; b3 -> b3; the opening's :7 -> ''."""
    return move.partition(":")[0]


#: `validate --game quarto`: positions with 10, 9 and 8 empty cells (the exact search of a drawn
#: position from a real game takes seconds with 10 empty cells, under one with 9: BENCHMARKS.md),
#: met in games between seed 002's opponents and its GA.
SAMPLING = Sampling(("p6", "p7", "p8"), ("random", "greedy", "minimax:depth=2", "ga:alpha=0.1,beta=0.2"),
                    placement=placement)

WORKFLOWS = (
    Workflow("quarto", "train a GA and a Q-learning placer, validate 9 agents of the seeds on Quarto: "
             "150 positions with 10 to 8 empty cells met in baseline games, each solved exactly "
             "(no store; about 10 minutes on 2 cores)", solves=False,
             train=(("ga:generations=10,opponents=(random,greedy)", "ga.json"),
                    ("rl:episodes=4000,pieces={folder}/ga.json", "rl.npz")),
             agents=("random", "greedy", "minimax:depth=2", "ga:preset=002,alpha=0.1,beta=0.2",
                     "ga:preset=002,alpha=0.1,beta=0.3,minimax=1", "lookahead", "ga:params={folder}/ga.json",
                     "rl:params={folder}/rl.npz", "endgame"),
             games=10, positions=150),
)

RANDOM = AgentRef("RandomAgent", "random")
S002_GA = "002_1072cdb26db6d10d.txt, GA Agent, results over 1000 games (genome alpha 0.1, beta 0.2)"
S002_HYBRID = "002_1072cdb26db6d10d.txt, GA+MinMax Agent, results (1000 games a row, each side starting half)"
S002_RL = "002_1072cdb26db6d10d.txt, RL Agent, test results (the RL agent always moved second)"
S002_RL_TRAINING = "002_1072cdb26db6d10d.txt, RL Agent, training against its GA (the RL agent always moved second)"
S000_QUARTO = "000_d757dde743cebd34.txt, The Power of Wandering: a Genetic Algorithm for Quarto (300 matches)"
QUARTO_GA = AgentRef("GA Agent (alpha 0.1, beta 0.2)", "ga", (("preset", "002"), ("alpha", "0.1"), ("beta", "0.2")),
                     text="ga:alpha=0.1,beta=0.2")
RL_GA = AgentRef("GA Agent (alpha 0.1, beta 0.3)", "ga", (("preset", "002"), ("alpha", "0.1"), ("beta", "0.3")),
                 text="ga:alpha=0.1,beta=0.3")
#: Seed 002's GA and its Q-learned placement: a table of the positions met, 100,000 games as the second player
#: against its GA (alpha 0.1, beta 0.3), rewards +100/-100/0, alpha 0.1, gamma 0.9, epsilon from 1
#: times 0.9995 a game down to 0.1; the pieces handed over by the GA rule (0.1, 0.3).
LEARNER_PRESETS = {
    # its GA: 20 + 5 a generation for 100 generations, genes of one decimal, a child a one-point
    # crossover (alpha from one parent, beta from the other) or (one in three: its schedule is not
    # printed) a parent with one gene moved by 0.1, fitness the win share over 100 games moving
    # first against random (its "crossover2", a crossover with nudges, is left out)
    ("ga", "002"): {"genome": "002", "population": "20", "offspring": "5", "generations": "100", "selection": "tournament-plus",
                    "tournament": "2", "crossover": "onepoint", "mutant": "0.33", "mutant_kind": "step",
                    "sigma": "0.1", "mutation": "0", "decimals": "1", "games": "100", "seats": "first",
                    "opponents": "random", "fitness": "matches"},
    ("rl", "002"): {"episodes": "100000", "alpha": "0.1", "gamma": "0.9", "epsilon": "0.1", "decay": "0.9995",
                    "rewards": "100/-100/0", "opponent": "ga:preset=002,alpha=0.1,beta=0.3", "first": "never",
                    "model": "sparse", "pieces": "seed002"},
}
RL_AGENT = AgentRef("RL Agent (placement by Q-learning, pieces by the GA)", "rl", learner="rl:preset=002")
#: Where report 002 gives a range, it is a range over its runs (of 1,000 games each, it says).
RANGE = "a range over the report's runs"


def _hybrid(depth: int) -> AgentRef:
    return AgentRef(f"GA+MinMax depth {depth} (alpha 0.1, beta 0.3)", "ga",
                    (("preset", "002"), ("alpha", "0.1"), ("beta", "0.3"), ("minimax", str(depth))),
                    text=f"ga:alpha=0.1,beta=0.3,minimax={depth}")


FIGURES = (
    # seed 002, Quarto: the (alpha, beta) GA, its GA+minimax hybrid and the Q-learning placer
    Figure({}, QUARTO_GA, RANDOM, "first", 0.832, 0.155, 0.013, 1000, S002_GA),
    Figure({}, QUARTO_GA, RANDOM, "second", 0.84, 0.144, 0.016, 1000, S002_GA),
    Figure({}, QUARTO_GA, RANDOM, "either", (0.80, 0.84), None, 0.025, 1000, S002_HYBRID, (RANGE,)),
    Figure({}, _hybrid(1), RANDOM, "either", (0.975, 0.98), None, (0.0, 0.005), 1000, S002_HYBRID, (RANGE,)),
    Figure({}, _hybrid(2), RANDOM, "either", (0.98, 0.985), None, (0.005, 0.01), 1000, S002_HYBRID, (RANGE,)),
    Figure({}, _hybrid(1), QUARTO_GA, "either", (0.75, 0.80), None, (0.06, 0.11), 1000, S002_HYBRID, (RANGE,)),
    Figure({}, _hybrid(2), _hybrid(1), "either", 0.444, None, 0.11, 1000, S002_HYBRID),
    Figure({}, RL_AGENT, RL_GA, "second", 0.7369, None, None, 30000, S002_RL,
           ("the average of its test run; best 78%",)),
    Figure({}, RL_AGENT, RANDOM, "second", 0.5636, None, None, 30000, S002_RL,
           ("the average of its test run; best 64%",)),
    Figure({}, AgentRef("the wandering GA (evolved each move)", "lookahead", (("preset", "000"),), text="lookahead"),
           RANDOM, "either", 0.995, None, None, 300, S000_QUARTO, ("who started is not stated",)),
)


#: Report 002's other figures, which no match plays.
UNPLAYED = (
    Unplayed(S002_RL_TRAINING,
             "average win rate 64.08% over 100,000 training games (best 69.6% at game 58,000)",
             "an average over a training run, its exploration falling from 1 to 0.1 (epsilon 0.9995 a game) and "
             "its table learning as it goes: no fixed pair of agents plays it, so no match measures it"),
    Unplayed(S002_RL, "best win rates of the test runs: 78% (at game 1,800, against its GA) and 64% (at game 9,300, "
                      "against random)",
             "the best of 100 samples of 300 games each: a maximum over samples, not a rate a match estimates "
             "(the averages, 73.69% and 56.36%, are rows)"),
)


class QuartoCourse(Course):
    """Reports 000 and 002 on Quarto: the workflow, figures, training settings, report 002's GA
    player and its genome."""

    workflows = WORKFLOWS
    figures = FIGURES
    unplayed = UNPLAYED
    learner_presets = LEARNER_PRESETS

    @cached_property
    def api(self):
        """The 2022-23 project's `quarto` module (`course_api`)."""
        from retrograde.games.quarto.course_api import QuartoApi

        return QuartoApi()

    @cached_property
    def players(self):
        from retrograde.games.quarto.genome import Report002Ga
        from retrograde.games.quarto.players import Report000Lookahead

        return {("ga", "002"): Report002Ga, ("lookahead", "000"): Report000Lookahead}

    @cached_property
    def genomes(self):
        from retrograde.games.quarto.genome import Report002Rule

        return {"002": Report002Rule}
