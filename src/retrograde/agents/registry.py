"""The agents by name, and `build_agent`: the one place a spec becomes an agent.

The generic agents (`AGENTS`) play any game that gives the hooks they need, and otherwise
refuse in one line; a game adds agents of its own (`Game.policies`). Agent classes are imported
when first named, so that naming `random` never loads numba.
"""

from __future__ import annotations

import hashlib
from importlib import import_module
from pathlib import Path

from retrograde.agents.base import Agent
from retrograde.agents.policy import PolicyAgent
from retrograde.errors import BadAgent
from retrograde.games import GAMES
from retrograde.games.base import Game
from retrograde.spec import AgentSpec, Option, parse_spec

#: name -> "module:Class" of every generic agent.
AGENTS: dict[str, str] = {
    "dqn": "retrograde.agents.dqn:DqnAgent",
    "ga": "retrograde.agents.ga:GaAgent",
    "greedy": "retrograde.agents.greedy:GreedyAgent",
    "lookup": "retrograde.agents.lookup:LookupAgent",
    "mcts": "retrograde.agents.mcts:MctsAgent",
    "minimax": "retrograde.agents.minimax:MinimaxAgent",
    "random": "retrograde.agents.random_agent:RandomAgent",
    "rl": "retrograde.agents.rl:RlAgent",
}
#: The option naming a course report whose code an agent plays as (`Game.seed_players`).
PRESET = "preset"


def agent_class(name: str) -> type[Agent]:
    """The class of the generic agent called `name` (BadAgent naming the known ones otherwise)."""
    try:
        module, _, attribute = AGENTS[name].partition(":")
    except KeyError:
        raise BadAgent(f"unknown agent {name!r}; agents: {', '.join(agent_names())}") from None
    return getattr(import_module(module), attribute)


def agent_names() -> list[str]:
    """Every agent name: the generic agents and those games offer of their own."""
    return sorted(set(AGENTS) | {name for game in GAMES.values() for name in game.policies})


def _resolve(name: str, game: Game, preset: str | None = None) -> tuple[type[Agent], dict]:
    """The class playing agent `name` for `game` (as course report `preset`'s code did, if
    given), and the keywords it takes beyond the options.

    :raises BadAgent: no such agent, one of another game's own, or no such preset of it."""
    if name in AGENTS:
        cls, extra = agent_class(name), {}
    elif game.policy(name) is not None:
        cls, extra = PolicyAgent, {"policy": game.policy(name)}
    else:
        offering = sorted(other for other, game_class in GAMES.items() if name in game_class.policies)
        if offering:
            raise BadAgent(f"agent {name!r} cannot play {game.describe()}: it is an agent of "
                           f"{' and '.join(offering)} only")
        raise BadAgent(f"unknown agent {name!r}; agents: {', '.join(agent_names())}")
    if preset is None:
        return cls, extra
    seed_player = game.seed_player(name, preset.lower())
    if seed_player is None:
        offered = game.presets(name)
        raise BadAgent(f"agent {name!r} has no preset {preset!r} for {game.name}: " +
                       (f"presets: {', '.join(offered)}" if offered else "it plays no course report's way here"))
    return PolicyAgent, {"policy": seed_player}


def agent_options(name: str, game: Game, preset: str | None = None) -> tuple[Option, ...]:
    """The options agent `name` takes when it plays `game` (as course report `preset`'s code
    did, if given): its own, or its seed player's, and `preset` where the game offers one.

    :raises BadAgent: as `build_agent` for an unknown agent, one of another game's own, or an
        unknown preset."""
    cls, extra = _resolve(name, game, preset)
    own = extra["policy"].options if extra else cls.options_for(game)
    presets = game.presets(name)
    return own + ((Option(PRESET, "play as course report NUMBER's code did (`retrograde agents` says how that "
                                  "differs)", None, kind="choice", choices=presets),) if presets else ())


def agent_claim(spec: str | AgentSpec, game: Game) -> str | None:
    """What the agent `spec` names guarantees when it plays `game`: that it never gives a win
    away, in the words of its `Policy.claim` (generic agents claim nothing; a report's player
    only what its own policy claims)."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    preset = parsed.get(PRESET)
    if preset is not None:
        policy = game.seed_player(parsed.name, preset.lower())
    else:
        policy = None if parsed.name in AGENTS else game.policy(parsed.name)
    return policy.claim if policy is not None else None


def reads_store(name: str) -> bool:
    """Whether agent `name` reads a solved store (a game's own agents never do)."""
    return name in AGENTS and agent_class(name).needs_store


def _given_values(parsed: AgentSpec, options: tuple[Option, ...]) -> dict:
    """The typed values of the options a spec gives, in the order the agent declares them.

    :raises BadAgent: an option the agent does not take, or a bad value."""
    declared = {option.name: option for option in options}
    given = dict(parsed.options)
    for key in given:
        if key not in declared:
            known = ", ".join(declared) or "none"
            raise BadAgent(f"agent spec {str(parsed)!r}: {parsed.name} has no option {key!r} (options: {known})")
    return {name: option.convert(given[name], str(parsed)) for name, option in declared.items() if name in given}


def stream_name(spec: str | AgentSpec, game: Game) -> str:
    """The name an agent's random streams derive from: its spec with the options in the order
    the agent declares them, numbers and choices written one way, each file replaced by a
    digest of its content and a nested spec by its own stream name. The same agent so plays
    the same games wherever its artifact lies and however its spec is spelt; a spec with no
    file, written in that order, is its own stream name.

    :raises BadAgent: as `build_agent` for a spec it would refuse on its grammar or options."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    values = _given_values(parsed, agent_options(parsed.name, game, parsed.get(PRESET)))
    for name, value in values.items():
        if isinstance(value, Path):
            try:
                content = value.read_bytes()
            except OSError as exc:
                raise BadAgent(f"agent spec {str(parsed)!r}: {name}={value}: cannot read it "
                               f"({exc.strerror or exc})") from None
            values[name] = "sha256:" + hashlib.sha256(content).hexdigest()[:32]
        elif isinstance(value, AgentSpec):
            values[name] = stream_name(value, game)
    return str(AgentSpec(parsed.name, tuple((name, str(value)) for name, value in values.items())))


def build_agent(spec: str | AgentSpec, game: Game, *, seed: int, store=None) -> Agent:
    """The agent named by `spec`, for `game`, seeded with `seed`; `store` (a read-only solved
    store of the same game instance) for agents that read one.

    :raises BadAgent: unknown agent or option, bad value, an agent that cannot play `game`,
        or one that needs a store given none.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    cls, extra = _resolve(parsed.name, game)
    where = str(parsed)
    reason = cls.cannot_play(game)
    if reason:
        raise BadAgent(f"agent {parsed.name!r} cannot play {game.describe()}: {reason}")
    preset = parsed.get(PRESET)
    if preset is not None:
        cls, extra = _resolve(parsed.name, game, preset)
    options = agent_options(parsed.name, game, preset)
    values = _given_values(parsed, options)
    values.pop(PRESET, None)
    for option in options:
        if option.name == PRESET:
            continue
        values.setdefault(option.name, option.default)
        if option.kind == "agent" and isinstance(values[option.name], AgentSpec):
            values[option.name] = build_agent(values[option.name], game, seed=seed, store=store)
    if cls.needs_store:
        if store is None:
            raise BadAgent(f"agent {parsed.name!r} reads a solved store: give one with --store PATH")
        if store.game.name != game.name or store.game.params != game.params:
            raise BadAgent(f"store {str(store.path)!r} holds {store.game.describe()}, not {game.describe()}")
    agent = cls(game, seed=seed, store=store, **extra, **values)
    agent.spec = where
    return agent


def describe_agents() -> list[str]:
    """Lines for `retrograde agents`: each generic agent, what it does and its options, with the
    options a game adds (asked of the game's first example instance); then the agents games offer
    of their own."""
    examples = {name: game(**game.examples[0]) for name, game in GAMES.items()}
    lines = []
    for name in sorted(AGENTS):
        cls = agent_class(name)
        store = " (reads a solved store)" if cls.needs_store else ""
        lines.append(f"{name}: {cls.summary}{store}")
        lines.extend(f"  {option.describe()}" for option in cls.options)
        for game_name, game in examples.items():
            if not cls.cannot_play(game):
                lines.extend(f"  {game_name}: {option.describe()}" for option in cls.options_for(game)
                             if option not in cls.options)
                lines.extend(_preset_lines(name, game_name, game))
    for game_name, game in GAMES.items():
        for name in sorted(game.policies):
            policy = game.policy(name)
            lines.append(f"{name} ({game_name} only): {policy.summary}")
            lines.extend(f"  {option.describe()}" for option in policy.options)
            lines.extend(_preset_lines(name, game_name, game))
    return lines


def _preset_lines(name: str, game_name: str, game: type[Game]) -> list[str]:
    """`retrograde agents` lines for agent `name`'s seed players in a game: how each differs."""
    lines = []
    for preset in game.presets(name):
        player = game.seed_player(name, preset)
        lines.append(f"  {game_name}: {PRESET}={preset}: {player.summary}")
        lines.extend(f"    {option.describe()}" for option in player.options)
    return lines
