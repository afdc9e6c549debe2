"""The course reports' presets for Quixo: the workflows `retrograde run` offers and the match
results reports 001 and 004 published (set beside ours by `validate`)."""

from functools import cached_property

from retrograde.games.capabilities import AgentRef, Course, Figure, Unplayed, Workflow
from retrograde.spec import AgentSpec

WORKFLOWS = (
    Workflow("quixo3", "solve and verify 3x3 Quixo (19,683 positions)", {"size": 3}),
    Workflow("quixo4", "solve, verify, train a GA and a Q-learner, validate 8 agents on 4x4 Quixo "
             "(43,046,721 positions; a few minutes on 2 cores)", {"size": 4},
             train=(("ga:generations=10", "ga.json"), ("rl:episodes=4000,alpha=0.05", "rl.npz")),
             agents=("lookup", "random", "greedy", "minimax:depth=2", "minimax:depth=3", "mcts:iterations=500",
                     "ga:params={folder}/ga.json", "rl:params={folder}/rl.npz"),
             games=20),
)

QUIXO_MINIMAX = ("seed 001's MiniMaxAgent(N): alpha-beta, heuristic N^Cmax - N^Omax, the first best move (no "
                 "shuffling of ties: two such agents replay one game)")
SOLVED = ("seed 001's QuixoIsSolvedAgent played by win/loss/draw only (no remoteness), so it can "
          "circle in won positions where our lookup agent, playing the fastest win, converts")


def _minimax(depth: int) -> AgentRef:
    return AgentRef(f"MiniMaxAgent({depth})", "minimax", (("depth", str(depth)), ("eval", "cmax"), ("ties", "first")),
                    text=f"minimax:depth={depth},eval=cmax")


#: Seed 001's MiniMaxAgent(2) as a spec (inside a list of specs).
_MINIMAX2 = str(AgentSpec(_minimax(2).name, _minimax(2).options))
#: Seed 001's deep Q-learning (§5.3): 100,000 episodes against its RandomAgent, then against it and
#: its MiniMaxAgent(2), then against MiniMaxAgent(2), a network of 256 hidden units and its 4N
#: outputs (`outputs=line`: a push along a row or column each; ours, one output a move, is `move`).
LEARNER_PRESETS = {
    ("dqn", "001"): {"episodes": "300000", "hidden": "256", "outputs": "line",
                     "opponents": f"random;random,{_MINIMAX2};{_MINIMAX2}"},
}
DQN = AgentRef("DeepQLearningAgent", "dqn", learner="dqn:preset=001")
REPLAYS = ("both agents are deterministic (the network's largest output, MiniMaxAgent's first best move): every "
           "game between them in a seat is the same game, so each rate is 0 or 1; the network trained against "
           "this very opponent in its last phase")
S001_DQN4 = "001_00fce964e282ae09.txt, Quixo deep Q-learning, Table 6 (N = 4)"
S001_DQN5 = "001_00fce964e282ae09.txt, Quixo deep Q-learning, Table 5 (N = 5)"
RANDOM = AgentRef("RandomAgent", "random")
#: Seed 004's MinMaxPlayer as its code played it (`reports.Report004Minimax`), and ours of its prose.
ADAPTIVE = AgentRef("MinMaxPlayer (advantage depth)", "minimax", (("preset", "004"),),
                    text="minimax:adaptive=1,depth=4,eval=inline")
#: Seed 004's opponent in its figure against MCTS: a colleague's, which it links but does not print.
COLLEAGUE_MCTS = AgentRef("MCTS (a colleague's)", "mcts",
                          unprinted="a colleague's MCTS (fgiacome/compint, quixo/mcts.py), linked but not printed "
                                    "in the report; ours (UCT, 1,000 iterations of random playouts) stands in")
SOLVED_AGENT = AgentRef("QuixoIsSolvedAgent", "lookup", (("remoteness", "0"),), text="lookup")
Q4 = {"size": 4}
Q5 = {"size": 5}
S001_Q4 = "001_00fce964e282ae09.txt, Quixo, Tables 4 and 8 (N = 4)"
S001_Q5 = "001_00fce964e282ae09.txt, Quixo, Tables 3 and 7 (N = 5)"
S004 = "004_ceef9e29b3f605de.txt, results (MinMax with the 'advantage' variable depth, at most 4 plies)"

FIGURES = (
    # seed 001, Quixo 4x4: "initial player" 0 = the agent moves first
    Figure(Q4, _minimax(2), RANDOM, "first", 1.00, 0.00, 0.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Figure(Q4, _minimax(2), RANDOM, "second", 0.99, 0.01, 0.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Figure(Q4, _minimax(2), _minimax(2), "first", 0.00, 0.00, 1.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Figure(Q4, _minimax(2), _minimax(2), "second", 0.00, 0.00, 1.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Figure(Q4, _minimax(3), _minimax(2), "first", 1.00, 0.00, 0.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Figure(Q4, _minimax(3), _minimax(2), "second", 0.00, 0.00, 1.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Figure(Q4, SOLVED_AGENT, _minimax(2), "first", 1.00, 0.00, 0.00, None, S001_Q4, (SOLVED,)),
    Figure(Q4, SOLVED_AGENT, _minimax(2), "second", 0.276, 0.724, 0.00, None, S001_Q4, (SOLVED,)),
    Figure(Q4, SOLVED_AGENT, _minimax(3), "first", 1.00, 0.00, 0.00, None, S001_Q4, (SOLVED,)),
    Figure(Q4, SOLVED_AGENT, _minimax(3), "second", 0.232, 0.762, 0.006, None, S001_Q4, (SOLVED,)),
    Figure(Q4, SOLVED_AGENT, SOLVED_AGENT, "first", 1.00, 0.00, 0.00, None, S001_Q4, (SOLVED,)),
    Figure(Q4, SOLVED_AGENT, SOLVED_AGENT, "second", 0.00, 1.00, 0.00, None, S001_Q4, (SOLVED,)),
    # seed 001, Quixo 5x5: who started was not fixed
    Figure(Q5, _minimax(2), RANDOM, "either", 1.00, 0.00, 0.00, None, S001_Q5, (QUIXO_MINIMAX,)),
    Figure(Q5, _minimax(2), _minimax(2), "either", 0.49, 0.51, 0.00, None, S001_Q5, (QUIXO_MINIMAX,)),
    Figure(Q5, _minimax(3), _minimax(2), "either", 1.00, 0.00, 0.00, None, S001_Q5, (QUIXO_MINIMAX,)),
    Figure(Q5, SOLVED_AGENT, _minimax(2), "either", 0.182, 0.00, 0.818, None, S001_Q5, (SOLVED,)),
    Figure(Q5, SOLVED_AGENT, _minimax(3), "either", 0.11, 0.00, 0.89, None, S001_Q5, (SOLVED,)),
    Figure(Q5, SOLVED_AGENT, SOLVED_AGENT, "either", 0.00, 0.00, 1.00, None, S001_Q5, (SOLVED,)),
    # seed 001, deep Q-learning: "initial player" 0 = the agent first; on 5x5 the seat is not given
    Figure(Q4, DQN, RANDOM, "first", 0.84, 0.16, 0.00, None, S001_DQN4),
    Figure(Q4, DQN, RANDOM, "second", 0.67, 0.33, 0.00, None, S001_DQN4),
    Figure(Q4, DQN, _minimax(2), "first", 0.00, 1.00, 0.00, None, S001_DQN4, (REPLAYS,)),
    Figure(Q4, DQN, _minimax(2), "second", 0.00, 1.00, 0.00, None, S001_DQN4, (REPLAYS,)),
    Figure(Q5, DQN, RANDOM, "either", 0.87, 0.13, 0.00, None, S001_DQN5),
    Figure(Q5, DQN, _minimax(2), "either", 0.00, 1.00, 0.00, None, S001_DQN5, (REPLAYS,)),
    # seed 004, Quixo 5x5: about 95% against MCTS "beginning first or second"
    Figure(Q5, ADAPTIVE, RANDOM, "either", 1.00, 0.00, 0.00, 100, S004),
    Figure(Q5, ADAPTIVE, COLLEAGUE_MCTS, "either", 0.95, 0.05, 0.00, None, S004,
           ("'about 95%'; the loss/draw split is not given",)),
)


#: Report 004's other figures, which no match plays.
UNPLAYED = (
    Unplayed(S004, "MinMax against itself: 'not able to always win against itself'",
             "no rate is given, nor which seat won"),
    Unplayed(S004, "about 15 seconds a game, 20 to 25 minutes for 100 games against random",
             "a running time on their machine, not a result of play"),
    Unplayed(S004, "44 moves on the empty board; 42 and 41 after a first cube in a corner and on a side; "
                   "44 x 42 = 1,848 two-ply lines; 400 with half the board",
             "counts of moves, not results of play (the suite checks 44: tests/test_quixo.py)"),
)


class QuixoCourse(Course):
    """Reports 000, 001 and 004 on Quixo: the workflows, figures, training settings and report
    004's player."""

    workflows = WORKFLOWS
    figures = FIGURES
    unplayed = UNPLAYED
    learner_presets = LEARNER_PRESETS

    @cached_property
    def players(self):
        from retrograde.games.quixo.reports import Report004Minimax

        return {("minimax", "004"): Report004Minimax}

    @cached_property
    def api(self):
        """The 2023-24 project's `game` module (`course_api`)."""
        from retrograde.games.quixo.course_api import QuixoApi

        return QuixoApi()
