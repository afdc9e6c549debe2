"""Presets for Connect Four: the workflow `retrograde run connect4`. No course report played it,
so it has no published figures."""

from retrograde.games.capabilities import Course, Workflow

WORKFLOWS = (
    Workflow("connect4", "solve and verify 4x4 Connect Four (161,029 reachable positions), train a GA and a "
             "Q-learner, validate 7 agents", {"width": 4, "height": 4, "connect": 4},
             train=(("ga:generations=10", "ga.json"), ("rl:episodes=5000", "rl.npz")),
             agents=("lookup", "random", "greedy", "minimax:depth=4", "mcts", "ga:params={folder}/ga.json",
                     "rl:params={folder}/rl.npz"),
             games=20),
)


class Connect4Course(Course):
    """The workflow alone: no course report played Connect Four."""

    workflows = WORKFLOWS
