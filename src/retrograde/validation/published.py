"""The course reports' published match results, set beside ours where the setting matches.

Each figure (a game's `figures` hook, `games.capabilities.Figure`) names the game instance, the report's
agent and opponent as our specs (by agent name and the options that must hold, given or by
default), the agent's seat ("first", "second", or "either": the report drew who started), its
win/loss/draw rates (None where the report does not give one), the number of games, and where it
is printed. Ours come from the tournaments' games from the start position, from the same agent's
view; each row is a `validation.course` row (the one `run seeds` writes), with its verdict, its
evidence the one version validate played (the agents of its own that match the report's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from retrograde.agents import PRESET, ResolvedAgent
from retrograde.games import Game
from retrograde.games.capabilities import AgentRef, Figure, course_of
from retrograde.validation import course


def matches(ref: AgentRef, agent: ResolvedAgent) -> bool:
    """Whether `agent` is the report's agent `ref`: same name, and each listed option has the
    listed value, given in the spec or as the agent's default (a default of None, the agent's own
    choice for the game, counts as the listed value: minimax's eval is the game's first), and the
    same preset or none (`AGENT:preset=NUMBER` plays as that report's code did)."""
    given = dict(agent.written.options)
    if agent.name != ref.name or given.get(PRESET) != dict(ref.options).get(PRESET):
        return False  # a report's own player is another agent than ours of the same name
    defaults = dict(agent.values)  # where the spec does not give an option, its value is the agent's default
    return all(str(given[key]).lower() == value if key in given else
               key in defaults and (defaults[key] is None or str(defaults[key]).lower() == value)
               for key, value in ref.options)


def _rules_match(figure: Figure, rules: dict[str, Any]) -> bool:
    """The figure's rules: its parameters as given, the others off."""
    return all(rules.get(key) == value for key, value in figure.params.items()) \
        and not any(value for key, value in rules.items() if key not in figure.params)


def _ours(tournaments: Sequence[dict[str, Any]], agent: str, opponent: str, seat: str) -> tuple[int, int, int]:
    """Our (wins, draws, losses) of `agent` against `opponent` in `seat`, from games from the start."""
    won = lost = drawn = 0
    for entry in tournaments:
        if entry.get("start", "initial") != "initial":
            continue
        if entry["first"] == agent and entry["second"] == opponent and seat in ("first", "either"):
            won, lost, drawn = won + entry["first_wins"], lost + entry["second_wins"], drawn + entry["draws"]
        if entry["first"] == opponent and entry["second"] == agent and seat in ("second", "either"):
            won, lost, drawn = won + entry["second_wins"], lost + entry["first_wins"], drawn + entry["draws"]
    return won, drawn, lost


def compare(game: Game, agents: Sequence[ResolvedAgent], tournaments: Sequence[dict[str, Any]],
            value_kept: dict[str, float | None] | None = None) -> list[dict[str, Any]]:
    """Rows setting the seeds' figures beside ours (`validation.course.row`, with its verdict), for
    every figure whose game (by its rules) matches and whose two agents are both among `agents` (one
    row per matching pair of our agents, named by their specs); `value_kept`: each spec's exact audit.
    A store of part of the game (e.g. Quixo --down-to) says so in the notes of each row with an
    agent that reads the store: lookup plays its fallback outside the stored tiers."""
    partial = {key: value for key, value in game.params.items() if key not in game.rules and value}
    extent = [f"our store holds part of the game ({', '.join(f'{k}={v}' for k, v in partial.items())}): "
              "our lookup agent plays its fallback outside it"] if partial else []
    rows = []
    for figure in course_of(game).figures:
        if figure.instances or not _rules_match(figure, game.rules):
            continue  # a figure over many instances is `run seeds`' only
        for agent in (agent for agent in agents if matches(figure.agent, agent)):
            for opponent in (other for other in agents if matches(figure.opponent, other)):
                counts = _ours(tournaments, agent.spec, opponent.spec, figure.seat)
                if not sum(counts):
                    continue
                reported = course.ReportFigure(game.name, figure)
                played = course.version(reported.versions()[0][0], agent.spec, opponent.spec, counts,
                                        reported.theirs(), (value_kept or {}).get(agent.spec))
                row = course.row(reported, [played])
                row["notes"] += extent if agent.reads_store or opponent.reads_store else []
                rows.append(row)
    return rows
