"""The agents by name, and `build_agent`: the one place a spec becomes an agent.

Agent classes are imported when first named, so that naming `random` never loads numba.
"""

from __future__ import annotations

from importlib import import_module

from retrograde.agents.base import Agent
from retrograde.agents.spec import AgentSpec, parse_spec
from retrograde.errors import BadAgent
from retrograde.games.base import Game

#: name -> "module:Class" of every agent.
AGENTS: dict[str, str] = {
    "endgame": "retrograde.agents.endgame:EndgameAgent",
    "expert": "retrograde.agents.expert:ExpertAgent",
    "ga": "retrograde.agents.ga:GaAgent",
    "greedy": "retrograde.agents.greedy:GreedyAgent",
    "lookahead": "retrograde.agents.lookahead:LookaheadAgent",
    "lookup": "retrograde.agents.lookup:LookupAgent",
    "mcts": "retrograde.agents.mcts:MctsAgent",
    "minimax": "retrograde.agents.minimax:MinimaxAgent",
    "random": "retrograde.agents.random_agent:RandomAgent",
    "rl": "retrograde.agents.rl:RlAgent",
    "rules": "retrograde.agents.rules:RulesAgent",
}


def agent_class(name: str) -> type[Agent]:
    """The class of the agent called `name` (BadAgent naming the known ones otherwise)."""
    try:
        module, _, attribute = AGENTS[name].partition(":")
    except KeyError:
        raise BadAgent(f"unknown agent {name!r}; agents: {', '.join(sorted(AGENTS))}") from None
    return getattr(import_module(module), attribute)


def build_agent(spec: str | AgentSpec, game: Game, *, seed: int, store=None) -> Agent:
    """The agent named by `spec`, for `game`, seeded with `seed`; `store` (a read-only solved
    store of the same game instance) for agents that read one.

    :raises BadAgent: unknown agent or option, bad value, an agent that cannot play `game`,
        or one that needs a store given none.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    cls = agent_class(parsed.name)
    where = str(parsed)
    reason = cls.cannot_play(game)
    if reason:
        raise BadAgent(f"agent {parsed.name!r} cannot play {game.describe()}: {reason}")
    declared = {option.name: option for option in cls.options}
    values = {}
    for key, text in parsed.options:
        if key not in declared:
            known = ", ".join(declared) or "none"
            raise BadAgent(f"agent spec {where!r}: {parsed.name} has no option {key!r} (options: {known})")
        values[key] = declared[key].convert(text, where)
    for option in cls.options:
        values.setdefault(option.name, option.default)
        if option.kind == "agent" and isinstance(values[option.name], AgentSpec):
            values[option.name] = build_agent(values[option.name], game, seed=seed, store=store)
    if cls.needs_store:
        if store is None:
            raise BadAgent(f"agent {parsed.name!r} reads a solved store: give one with --store PATH")
        if store.game.name != game.name or store.game.params != game.params:
            raise BadAgent(f"store {str(store.path)!r} holds {store.game.describe()}, not {game.describe()}")
    agent = cls(game, seed=seed, store=store, **values)
    agent.spec = where
    return agent


def describe_agents() -> list[str]:
    """Lines for `retrograde agents`: each agent, what it does, and its options."""
    lines = []
    for name in sorted(AGENTS):
        cls = agent_class(name)
        store = " (reads a solved store)" if cls.needs_store else ""
        lines.append(f"{name}: {cls.summary}{store}")
        lines.extend(f"  {option.describe()}" for option in cls.options)
    return lines
