"""The course reports' presets for tic-tac-toe: the workflow `retrograde run tictactoe` and the
match results report 001 published for its Q-learner (set beside ours by `validate`)."""

from retrograde.games.hooks import AgentRef, Figure, Workflow

WORKFLOWS = (
    Workflow("tictactoe", "solve, verify, train Q-learning, validate 7 agents on tic-tac-toe "
             "(5,478 reachable positions; about a minute)",
             train=(("rl:episodes=20000", "rl.npz"),),
             agents=("lookup", "random", "greedy", "expert", "minimax:depth=2", "mcts", "rl:params={folder}/rl.npz"),
             games=20),
)

S001_TTT = "001_00fce964e282ae09.txt, tic-tac-toe Q-learning, Table 2 (10000 games)"
Q_LEARNER = AgentRef("QLearningAgent", "rl")
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
