"""The course reports' published match results, set beside ours where the setting matches.

Each figure (a game's `figures` hook, `games.hooks.Figure`) names the game instance, the report's
agent and opponent as our specs (by agent name and the options that must hold, given or by
default), the agent's seat ("first", "second", or "either": the report drew who started), its
win/loss/draw rates (None where the report does not give one), the number of games, and where it
is printed. Ours come from the tournaments' games from the start position, from the same agent's
view; each row is a `validation.seeds` row (the one `run seeds` writes), with its verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from retrograde.agents import PRESET, agent_options, parse_spec, reads_store
from retrograde.errors import BadAgent
from retrograde.games import Game
from retrograde.games.hooks import AgentRef, Figure
from retrograde.validation import seeds


def matches(ref: AgentRef, spec: str, game: Game) -> bool:
    """Whether `spec` names the report's agent `ref`: same name, and each listed option has the
    listed value, given in the spec or as the agent's default (a default of None, the agent's own
    choice for the game, counts as the listed value: minimax's eval is the game's first), and the
    same preset or none (`AGENT:preset=NUMBER` plays as that report's code did)."""
    try:
        parsed = parse_spec(spec)
        if parsed.name != ref.name or parsed.get(PRESET) != dict(ref.options).get(PRESET):
            return False  # a report's own player is another agent than ours of the same name
        declared = {option.name: option.default for option in agent_options(parsed.name, game, parsed.get(PRESET))}
    except (BadAgent, ImportError):
        return False
    given = dict(parsed.options)
    return all(key in declared and (key not in given and declared[key] is None
                                    or str(given.get(key, declared[key])).lower() == value)
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


def _reads_store(*specs: str) -> bool:
    """Whether one of the agents plays from the store (so a partial store changes its play)."""
    return any(reads_store(parse_spec(spec).name) for spec in specs)


def compare(game: Game, specs: Sequence[str], tournaments: Sequence[dict[str, Any]],
            value_kept: dict[str, float | None] | None = None) -> list[dict[str, Any]]:
    """Rows setting the seeds' figures beside ours (`validation.seeds.row`, with its verdict), for
    every figure whose game (by its rules) matches and whose two agents are both among `specs` (one
    row per matching pair of our specs, named by our specs); `value_kept`: each spec's exact audit.
    A store of part of the game (e.g. Quixo --down-to) says so in the notes of each row with an
    agent that reads the store: lookup plays its fallback outside the stored tiers."""
    partial = {key: value for key, value in game.params.items() if key not in game.rules and value}
    extent = [f"our store holds part of the game ({', '.join(f'{k}={v}' for k, v in partial.items())}): "
              "our lookup agent plays its fallback outside it"] if partial else []
    rows = []
    for figure in game.figures:
        if figure.instances or not _rules_match(figure, game.rules):
            continue  # a figure over many instances is `run seeds`' only
        for agent in (spec for spec in specs if matches(figure.agent, spec, game)):
            for opponent in (spec for spec in specs if matches(figure.opponent, spec, game)):
                counts = _ours(tournaments, agent, opponent, figure.seat)
                if not sum(counts):
                    continue
                ours = seeds.ours(*counts, (value_kept or {}).get(agent))
                row = seeds.row(seeds.SeedFigure(game.name, figure), ours)
                row.update(agent=agent, opponent=opponent,
                           notes=[*row["notes"], *(extent if _reads_store(agent, opponent) else [])])
                rows.append(row)
    return rows
