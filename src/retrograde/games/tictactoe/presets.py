"""The course reports' presets for tic-tac-toe: the workflow `retrograde run tictactoe` and the
match results report 001 published for its Q-learner (set beside ours by `validate`)."""

from retrograde.games.capabilities import AgentRef, Course, Figure, Workflow

WORKFLOWS = (
    Workflow("tictactoe", "solve, verify, train Q-learning, validate 7 agents on tic-tac-toe "
             "(5,478 reachable positions; about a minute)",
             train=(("rl:episodes=20000", "rl.npz"),),
             agents=("lookup", "random", "greedy", "expert", "minimax:depth=2", "mcts", "rl:params={folder}/rl.npz"),
             games=20),
)

#: Seed 001's tic-tac-toe Q-learning: alpha 0.1, gamma 0.9, rewards 10/-10/3, GLIE to 0.1 at 90%
#: of each of three trainings of 500,000 episodes: against random_strategy; against random, the
#: agent's own strategy and the magic strategy; against the agent's own and the magic strategy;
#: who starts drawn each episode.
LEARNER_PRESETS = {
    ("rl", "001"): {"episodes": "1500000", "alpha": "0.1", "gamma": "0.9", "epsilon": "0.1", "rewards": "10/-10/3",
                    "opponent": "random;random,copy,expert;copy,expert", "first": "random"},
}

S001_TTT = "001_00fce964e282ae09.txt, tic-tac-toe Q-learning, Table 2 (10000 games)"
Q_LEARNER = AgentRef("QLearningAgent", "rl", learner="rl:preset=001")
RANDOM = AgentRef("random_strategy", "random")
MAGIC = AgentRef("magic_strategy", "expert")

#: Seed 001: its QLearningAgent against random_strategy and magic_strategy.
FIGURES = (
    Figure({}, Q_LEARNER, RANDOM, "either", 0.9812, 0.00, 0.0188, 10000, S001_TTT),
    Figure({}, Q_LEARNER, RANDOM, "first", 0.9813, 0.00, 0.0187, 10000, S001_TTT),
    Figure({}, Q_LEARNER, RANDOM, "second", 0.9149, 0.00, 0.0851, 10000, S001_TTT),
    Figure({}, Q_LEARNER, MAGIC, "either", 0.7489, 0.00, 0.2511, 10000, S001_TTT),
    Figure({}, Q_LEARNER, MAGIC, "first", 0.7515, 0.00, 0.2485, 10000, S001_TTT),
    Figure({}, Q_LEARNER, MAGIC, "second", 0.0602, 0.00, 0.9398, 10000, S001_TTT),
)


class TicTacToeCourse(Course):
    """Report 001's workflow, figures and Q-learning settings."""

    workflows = WORKFLOWS
    figures = FIGURES
    learner_presets = LEARNER_PRESETS
