"""The seeds' published match results, to set beside ours where the setting matches.

Each figure names the game instance, the seed's agent and opponent as our specs (by agent
name and the options that must hold, given or by default), the agent's seat ("first",
"second", or "either": the seeds drew who started), its win/loss/draw rates (None where the seed does
not give one), the number of games, and where it is printed. Ours come from the tournaments' games from the start
position, from the same agent's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from retrograde.agents import agent_class, parse_spec
from retrograde.errors import BadAgent
from retrograde.games import Game

QUIXO_MINIMAX = "seed 001's MiniMaxAgent(N): alpha-beta, heuristic N^Cmax - N^Omax"
SOLVED = ("seed 001's QuixoIsSolvedAgent played by win/loss/draw only (no remoteness), so it can "
          "circle in won positions where our lookup agent, playing the fastest win, converts")


@dataclass(frozen=True)
class AgentRef:
    """One of the seeds' agents as our spec: the agent `name` with `options` holding."""

    label: str
    name: str
    options: tuple[tuple[str, str], ...] = ()

    def matches(self, spec: str) -> bool:
        """Whether `spec` names this agent: same name, and each listed option has the listed
        value, given in the spec or as the agent's default (a default of None, the agent's own
        choice for the game, counts as the listed value: minimax's eval is cmax on Quixo)."""
        try:
            parsed = parse_spec(spec)
            if parsed.name != self.name:
                return False
            declared = {option.name: option.default for option in agent_class(parsed.name).options}
        except (BadAgent, ImportError):
            return False
        given = dict(parsed.options)
        return all(key in declared and (key not in given and declared[key] is None
                                        or str(given.get(key, declared[key])).lower() == value)
                   for key, value in self.options)


@dataclass(frozen=True)
class Published:
    game: str
    params: dict[str, Any]
    agent: AgentRef
    opponent: AgentRef
    seat: str
    win: float
    loss: float | None
    draw: float | None
    games: int | None
    source: str
    notes: tuple[str, ...] = field(default=())


def _minimax(depth: int) -> AgentRef:
    return AgentRef(f"MiniMaxAgent({depth})", "minimax", (("depth", str(depth)), ("eval", "cmax")))


RANDOM = AgentRef("RandomAgent", "random")
ADAPTIVE = AgentRef("MinMaxPlayer (advantage depth)", "minimax", (("adaptive", "1"),))
SOLVED_AGENT = AgentRef("QuixoIsSolvedAgent", "lookup")
Q4 = {"size": 4}
Q5 = {"size": 5}
S001_Q4 = "001_00fce964e282ae09.txt, Quixo, Tables 4 and 8 (N = 4)"
S001_Q5 = "001_00fce964e282ae09.txt, Quixo, Tables 3 and 7 (N = 5)"
S001_TTT = "001_00fce964e282ae09.txt, tic-tac-toe Q-learning, Table 2 (10000 games)"
S000_NIM = "000_d757dde743cebd34.txt, Lab 3 task 3.1 (NIM_SIZE = 4, 100 matches, agent first)"
S004 = "004_ceef9e29b3f605de.txt, results (MinMax with the 'advantage' variable depth, at most 4 plies)"
S002_GA = "002_1072cdb26db6d10d.txt, GA Agent, results over 1000 games (genome alpha 0.1, beta 0.2)"
S002_HYBRID = "002_1072cdb26db6d10d.txt, GA+MinMax Agent, results (1000 games a row, each side starting half)"
S002_RL = "002_1072cdb26db6d10d.txt, RL Agent, test results (the RL agent always moved second)"
S000_QUARTO = "000_d757dde743cebd34.txt, The Power of Wandering: a Genetic Algorithm for Quarto (300 matches)"
QUARTO_GA = AgentRef("GA Agent (alpha 0.1, beta 0.2)", "ga", (("alpha", "0.1"), ("beta", "0.2"), ("minimax", "0")))
RL_GA = AgentRef("GA Agent (alpha 0.1, beta 0.3)", "ga", (("alpha", "0.1"), ("beta", "0.3"), ("minimax", "0")))
RL_AGENT = AgentRef("RL Agent (placement by Q-learning, pieces by the GA)", "rl")


def _hybrid(depth: int) -> AgentRef:
    return AgentRef(f"GA+MinMax depth {depth} (alpha 0.1, beta 0.3)", "ga",
                    (("alpha", "0.1"), ("beta", "0.3"), ("minimax", str(depth))))


RANGE = "the report gives a range over its runs: {}; shown here at its middle"

FIGURES: tuple[Published, ...] = (
    # seed 001, Quixo 4x4: "initial player" 0 = the agent moves first
    Published("quixo", Q4, _minimax(2), RANDOM, "first", 1.00, 0.00, 0.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Published("quixo", Q4, _minimax(2), RANDOM, "second", 0.99, 0.01, 0.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Published("quixo", Q4, _minimax(2), _minimax(2), "first", 0.00, 0.00, 1.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Published("quixo", Q4, _minimax(2), _minimax(2), "second", 0.00, 0.00, 1.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Published("quixo", Q4, _minimax(3), _minimax(2), "first", 1.00, 0.00, 0.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Published("quixo", Q4, _minimax(3), _minimax(2), "second", 0.00, 0.00, 1.00, None, S001_Q4, (QUIXO_MINIMAX,)),
    Published("quixo", Q4, SOLVED_AGENT, _minimax(2), "first", 1.00, 0.00, 0.00, None, S001_Q4, (SOLVED,)),
    Published("quixo", Q4, SOLVED_AGENT, _minimax(2), "second", 0.276, 0.724, 0.00, None, S001_Q4, (SOLVED,)),
    Published("quixo", Q4, SOLVED_AGENT, _minimax(3), "first", 1.00, 0.00, 0.00, None, S001_Q4, (SOLVED,)),
    Published("quixo", Q4, SOLVED_AGENT, _minimax(3), "second", 0.232, 0.762, 0.006, None, S001_Q4, (SOLVED,)),
    Published("quixo", Q4, SOLVED_AGENT, SOLVED_AGENT, "first", 1.00, 0.00, 0.00, None, S001_Q4, (SOLVED,)),
    Published("quixo", Q4, SOLVED_AGENT, SOLVED_AGENT, "second", 0.00, 1.00, 0.00, None, S001_Q4, (SOLVED,)),
    # seed 001, Quixo 5x5: who started was not fixed
    Published("quixo", Q5, _minimax(2), RANDOM, "either", 1.00, 0.00, 0.00, None, S001_Q5, (QUIXO_MINIMAX,)),
    Published("quixo", Q5, _minimax(2), _minimax(2), "either", 0.49, 0.51, 0.00, None, S001_Q5, (QUIXO_MINIMAX,)),
    Published("quixo", Q5, _minimax(3), _minimax(2), "either", 1.00, 0.00, 0.00, None, S001_Q5, (QUIXO_MINIMAX,)),
    Published("quixo", Q5, SOLVED_AGENT, _minimax(2), "either", 0.182, 0.00, 0.818, None, S001_Q5, (SOLVED,)),
    Published("quixo", Q5, SOLVED_AGENT, _minimax(3), "either", 0.11, 0.00, 0.89, None, S001_Q5, (SOLVED,)),
    Published("quixo", Q5, SOLVED_AGENT, SOLVED_AGENT, "either", 0.00, 0.00, 1.00, None, S001_Q5, (SOLVED,)),
    # seed 004, Quixo 5x5: about 95% against MCTS "beginning first or second"
    Published("quixo", Q5, ADAPTIVE, RANDOM,
              "either", 1.00, 0.00, 0.00, 100, S004),
    Published("quixo", Q5, ADAPTIVE,
              AgentRef("MCTS (a colleague's)", "mcts"), "either", 0.95, 0.05, 0.00, None, S004,
              ("'about 95%'; the loss/draw split is not given",)),
    # seed 001, tic-tac-toe: QLearningAgent against random_strategy and magic_strategy
    Published("tictactoe", {}, AgentRef("QLearningAgent", "rl"), AgentRef("random_strategy", "random"),
              "either", 0.9812, 0.00, 0.0188, 10000, S001_TTT),
    Published("tictactoe", {}, AgentRef("QLearningAgent", "rl"), AgentRef("random_strategy", "random"),
              "first", 0.9813, 0.00, 0.0187, 10000, S001_TTT),
    Published("tictactoe", {}, AgentRef("QLearningAgent", "rl"), AgentRef("random_strategy", "random"),
              "second", 0.9149, 0.00, 0.0851, 10000, S001_TTT),
    Published("tictactoe", {}, AgentRef("QLearningAgent", "rl"), AgentRef("magic_strategy", "expert"),
              "either", 0.7489, 0.00, 0.2511, 10000, S001_TTT),
    Published("tictactoe", {}, AgentRef("QLearningAgent", "rl"), AgentRef("magic_strategy", "expert"),
              "first", 0.7515, 0.00, 0.2485, 10000, S001_TTT),
    Published("tictactoe", {}, AgentRef("QLearningAgent", "rl"), AgentRef("magic_strategy", "expert"),
              "second", 0.0602, 0.00, 0.9398, 10000, S001_TTT),
    # seed 000, Nim 1,3,5,7 (normal play): fixed rules against pure_random, the rule moving first
    Published("nim", {"heaps": [1, 3, 5, 7]}, AgentRef("pick_minimum_from_highest_row", "rules",
                                                        (("rule", "largest-min"),)),
              RANDOM, "first", 0.80, 0.20, 0.00, 100, S000_NIM, ("'80% average win rate'",)),
    Published("nim", {"heaps": [1, 3, 5, 7]}, AgentRef("pick_minimum_from_lowest_row", "rules",
                                                        (("rule", "smallest-min"),)),
              RANDOM, "first", 0.45, 0.55, 0.00, 100, S000_NIM, ("'45% average win rate'",)),
    Published("nim", {"heaps": [1, 3, 5, 7]}, AgentRef("pick_maximum_from_lowest_row", "rules",
                                                        (("rule", "smallest-max"),)),
              RANDOM, "first", 0.45, 0.55, 0.00, 100, S000_NIM, ("'45% average win rate'",)),
    Published("nim", {"heaps": [1, 3, 5, 7]}, AgentRef("count_and_decide", "rules",
                                                        (("rule", "count-and-decide"),)),
              RANDOM, "first", 0.85, 0.15, 0.00, 100, S000_NIM, ("'85% average win rate'",)),
    # seed 002, Quarto: the (alpha, beta) GA, its GA+minimax hybrid and the Q-learning placer
    Published("quarto", {}, QUARTO_GA, RANDOM, "first", 0.832, 0.155, 0.013, 1000, S002_GA),
    Published("quarto", {}, QUARTO_GA, RANDOM, "second", 0.84, 0.144, 0.016, 1000, S002_GA),
    Published("quarto", {}, QUARTO_GA, RANDOM, "either", 0.82, None, 0.025, 1000, S002_HYBRID,
              (RANGE.format("wins 80-84%"),)),
    Published("quarto", {}, _hybrid(1), RANDOM, "either", 0.9775, None, 0.0025, 1000, S002_HYBRID,
              (RANGE.format("wins 97.5-98%, draws 0-0.5%"),)),
    Published("quarto", {}, _hybrid(2), RANDOM, "either", 0.9825, None, 0.0075, 1000, S002_HYBRID,
              (RANGE.format("wins 98-98.5%, draws 0.5-1%"),)),
    Published("quarto", {}, _hybrid(1), QUARTO_GA, "either", 0.775, None, 0.085, 1000, S002_HYBRID,
              (RANGE.format("wins 75-80%, draws 6-11%"),)),
    Published("quarto", {}, _hybrid(2), _hybrid(1), "either", 0.444, None, 0.11, 1000, S002_HYBRID),
    Published("quarto", {}, RL_AGENT, RL_GA, "second", 0.7369, None, None, 30000, S002_RL,
              ("the average of its test run; best 78%",)),
    Published("quarto", {}, RL_AGENT, RANDOM, "second", 0.5636, None, None, 30000, S002_RL,
              ("the average of its test run; best 64%",)),
    Published("quarto", {}, AgentRef("the wandering GA (evolved each move)", "lookahead"), RANDOM,
              "either", 0.995, None, None, 300, S000_QUARTO, ("who started is not stated",)),
)


def _rules_match(figure: Published, game: str, rules: dict[str, Any]) -> bool:
    """The figure's game with the figure's rules: its parameters as given, the others off."""
    return figure.game == game and all(rules.get(key) == value for key, value in figure.params.items()) \
        and not any(value for key, value in rules.items() if key not in figure.params)


def _ours(tournaments: Sequence[dict[str, Any]], agent: str, opponent: str, seat: str) -> dict[str, Any] | None:
    """Our win/loss/draw rates of `agent` against `opponent` in `seat`, from games from the start."""
    won = lost = drawn = 0
    for entry in tournaments:
        if entry.get("start", "initial") != "initial":
            continue
        if entry["first"] == agent and entry["second"] == opponent and seat in ("first", "either"):
            won, lost, drawn = won + entry["first_wins"], lost + entry["second_wins"], drawn + entry["draws"]
        if entry["first"] == opponent and entry["second"] == agent and seat in ("second", "either"):
            won, lost, drawn = won + entry["second_wins"], lost + entry["first_wins"], drawn + entry["draws"]
    games = won + lost + drawn
    if not games:
        return None
    return {"win": won / games, "loss": lost / games, "draw": drawn / games, "games": games}


def _reads_store(*specs: str) -> bool:
    """Whether one of the agents plays from the store (so a partial store changes its play)."""
    return any(agent_class(parse_spec(spec).name).needs_store for spec in specs)


def compare(game: Game, specs: Sequence[str], tournaments: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows setting the seeds' figures beside ours, for every figure whose game (by its rules)
    matches and whose two agents are both among `specs` (one row per matching pair of our
    specs). A store of part of the game (e.g. Quixo --down-to) says so in the notes of each row
    with an agent that reads the store: lookup plays its fallback outside the stored tiers."""
    partial = {key: value for key, value in game.params.items() if key not in game.rules and value}
    extent = [f"our store holds part of the game ({', '.join(f'{k}={v}' for k, v in partial.items())}): "
              "our lookup agent plays its fallback outside it"] if partial else []
    rows = []
    for figure in FIGURES:
        if not _rules_match(figure, game.name, game.rules):
            continue
        for agent in (spec for spec in specs if figure.agent.matches(spec)):
            for opponent in (spec for spec in specs if figure.opponent.matches(spec)):
                ours = _ours(tournaments, agent, opponent, figure.seat)
                if ours is None:
                    continue
                rows.append({"agent": agent, "opponent": opponent, "seat": figure.seat,
                             "theirs": {"agent": figure.agent.label, "opponent": figure.opponent.label,
                                        "win": figure.win, "loss": figure.loss, "draw": figure.draw,
                                        "games": figure.games},
                             "ours": ours, "source": figure.source,
                             "notes": [*figure.notes, *(extent if _reads_store(agent, opponent) else [])]})
    return rows
