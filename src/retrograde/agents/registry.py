"""The agents by name, and `resolve_agent`: the one place a spec becomes an agent.

The generic agents (`AGENTS`) play any game that gives the hooks they need, and otherwise
refuse in one line; a game adds agents of its own (its `policies` capability). Agents' classes are imported
when first named, so that naming `random` never loads numba.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from importlib import import_module
from pathlib import Path

from retrograde.agents.base import Player
from retrograde.agents.policy import PolicyAgent
from retrograde.agents.resolved import ResolvedAgent
from retrograde.errors import BadAgent
from retrograde.games import example_games
from retrograde.games.base import Game
from retrograde.games.capabilities import course_of
from retrograde.spec import AgentSpec, Option, parse_spec, parse_spec_list

#: name -> "module:Class" of every generic agent.
AGENTS: dict[str, str] = {
    "dqn": "retrograde.agents.dqn:DqnAgent",
    "engine": "retrograde.agents.user.agents:EngineAgent",
    "ga": "retrograde.agents.ga:GaAgent",
    "greedy": "retrograde.agents.greedy:GreedyAgent",
    "lookup": "retrograde.agents.lookup:LookupAgent",
    "mcts": "retrograde.agents.mcts:MctsAgent",
    "minimax": "retrograde.agents.minimax:MinimaxAgent",
    "python": "retrograde.agents.user.agents:PythonAgent",
    "random": "retrograde.agents.random_agent:RandomAgent",
    "rl": "retrograde.agents.rl:RlAgent",
}
#: The option naming a course report whose code an agent plays as (`Course.players`).
PRESET = "preset"


def agent_class(name: str) -> type[Player]:
    """The class of the generic agent called `name` (BadAgent naming the known ones otherwise)."""
    try:
        module, _, attribute = AGENTS[name].partition(":")
    except KeyError:
        raise BadAgent(f"unknown agent {name!r}; agents: {', '.join(agent_names())}") from None
    return getattr(import_module(module), attribute)


def agent_names() -> list[str]:
    """Every agent name: the generic agents and those games offer of their own."""
    return sorted(set(AGENTS) | {name for game in example_games().values() for name in game.policies or ()})


def _resolve(name: str, game: Game, preset: str | None = None) -> tuple[type[Player], dict]:
    """The class playing agent `name` for `game` (as course report `preset`'s code did, if
    given), and the keywords it takes beyond the options.

    :raises BadAgent: no such agent, one of another game's own, or no such preset of it."""
    if name in AGENTS:
        cls, extra = agent_class(name), {}
    elif name in (game.policies or {}):
        cls, extra = PolicyAgent, {"policy": game.policies[name]}
    else:
        offering = sorted(other for other, example in example_games().items() if name in (example.policies or ()))
        if offering:
            raise BadAgent(f"agent {name!r} cannot play {game.describe()}: it is an agent of "
                           f"{' and '.join(offering)} only")
        raise BadAgent(f"unknown agent {name!r}; agents: {', '.join(agent_names())}")
    if preset is None:
        return cls, extra
    player = course_of(game).players.get((name, preset.lower()))
    if player is None:
        offered = course_of(game).presets(name)
        raise BadAgent(f"agent {name!r} has no preset {preset!r} for {game.name}: " +
                       (f"presets: {', '.join(offered)}" if offered else "it plays no course report's way here"))
    return PolicyAgent, {"policy": player}


def agent_options(name: str, game: Game, preset: str | None = None) -> tuple[Option, ...]:
    """The options agent `name` takes when it plays `game` (as course report `preset`'s code
    did, if given): its own, or its seed player's, and `preset` where the game offers one.

    :raises BadAgent: as `build_agent` for an unknown agent, one of another game's own, or an
        unknown preset."""
    cls, extra = _resolve(name, game, preset)
    own = extra["policy"].options if extra else cls.options_for(game)
    presets = course_of(game).presets(name)
    return own + ((Option(PRESET, "play as course report NUMBER's code did (`retrograde agents` says how that "
                                  "differs)", None, kind="choice", choices=presets),) if presets else ())


def reads_store(name: str) -> bool:
    """Whether agent `name` reads a solved store (a game's own agents never do)."""
    return name in AGENTS and agent_class(name).needs_store


def _given_values(parsed: AgentSpec, options: tuple[Option, ...], open_options: bool = False
                  ) -> tuple[dict, tuple[tuple[str, str], ...]]:
    """The typed values of the options a spec gives, in the order the agent declares them, and
    (for an agent with open options: a user's, whose constructor takes any keyword) the others
    as written, in the spec's order.

    :raises BadAgent: an option the agent does not take, or a bad value."""
    declared = {option.name: option for option in options}
    given = dict(parsed.options)
    for key in given:
        if key not in declared and not open_options:
            known = ", ".join(declared) or "none"
            raise BadAgent(f"agent spec {str(parsed)!r}: {parsed.name} has no option {key!r} (options: {known})")
    return ({name: option.convert(given[name], str(parsed)) for name, option in declared.items() if name in given},
            tuple((key, value) for key, value in parsed.options if key not in declared))


def _digest(parsed: AgentSpec, name: str, path: Path) -> str:
    """"sha256:" and the first 32 hex digits of the file's content (BadAgent if it cannot be read)."""
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise BadAgent(f"agent spec {str(parsed)!r}: {name}={path}: cannot read it ({exc.strerror or exc})") from None
    return "sha256:" + hashlib.sha256(content).hexdigest()[:32]


def resolve_agent(spec: str | AgentSpec | object, game: Game, defaults: dict | None = None) -> ResolvedAgent:
    """The agent `spec` names, resolved for `game`: the one place spec text is parsed
    (`spec.parse_spec`; a nested spec, `lookup:fallback=(minimax:depth=2)`, resolved in the same
    pass) and checked against the agent's declared options.

    Its stream name (`ResolvedAgent.stream`) is the spec with the options in the order the agent
    declares them, numbers and choices written one way, each file replaced by a digest of its
    content and a nested spec by its own stream name. The same agent so plays the same games
    wherever its artifact lies and however its spec is spelt; a spec with no file, written in that
    order, is its own stream name.

    A user's agent (`python`, `engine`) is known by its code instead (its class's `identify`,
    which also starts it once: code that cannot load is refused here), and an object given to the
    Python API (any other `spec`) by its name and its source (`user.agents.ObjectAgent`).
    `defaults`: option values that replace the declared defaults of the agents that take them
    (the limits of users' agents: --move-time, the report's log folder); never in stream names.

    :raises BadAgent: a bad grammar, an unknown agent or option, a bad value, an unreadable file,
        or an agent that cannot play `game` (checks needing a store come with `ResolvedAgent.build`).
    """
    if not isinstance(spec, (str, AgentSpec)):
        return _resolve_object(spec, defaults or {})
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    cls, extra, options, given, keywords = _checked(parsed, game)
    values, streamed, digests = {}, {}, {}
    for option in options:
        value = given.get(option.name, (defaults or {}).get(option.name, option.default))
        if isinstance(value, AgentSpec):
            value = resolve_agent(value, game)
        if option.name in given:
            streamed[option.name] = value.stream if isinstance(value, ResolvedAgent) else value
        if option.name in given and isinstance(value, Path):
            digests[option.name] = streamed[option.name] = _digest(parsed, option.name, value)
        if option.name != PRESET:
            values[option.name] = value
    stream = str(AgentSpec(parsed.name, tuple((name, str(value)) for name, value in streamed.items())))
    files = tuple((given[key], digests[key]) for key, _ in parsed.options if key in digests)
    if hasattr(cls, "identify"):
        stream, label, built = cls.identify({**values, "keywords": keywords}, game)
        return ResolvedAgent(parsed, cls, None, tuple(built.items()), stream, files, label)
    return ResolvedAgent(parsed, cls, extra.get("policy"), tuple(values.items()), stream, files)


def _checked(parsed: AgentSpec, game: Game) -> tuple[type[Player], dict, tuple[Option, ...], dict, tuple]:
    """What `resolve_agent` checks of a spec before it reads a file or starts a user's code: the
    agent's class and keywords (`_resolve`), its options and the values given (`_given_values`).

    :raises BadAgent: an unknown agent, one that cannot play `game`, an unknown preset or option,
        or a bad value."""
    cls, extra = _resolve(parsed.name, game)
    reason = cls.cannot_play(game)
    if reason:
        raise BadAgent(f"agent {parsed.name!r} cannot play {game.describe()}: {reason}")
    preset = parsed.get(PRESET)
    if preset is not None:
        cls, extra = _resolve(parsed.name, game, preset)
    options = agent_options(parsed.name, game, preset)
    return cls, extra, options, *_given_values(parsed, options, getattr(cls, "open_options", False))


def check_spec(spec: str | AgentSpec, game: Game) -> None:
    """Refuse a spec that `resolve_agent` would refuse for `game` before anything runs (a nested
    spec, a file or a user's code are checked when the agent is resolved): a command's early
    answer, before it imports the machinery that plays.

    :raises BadAgent: as `resolve_agent`."""
    _checked(parse_spec(spec) if isinstance(spec, str) else spec, game)


def _resolve_object(target: object, defaults: dict) -> ResolvedAgent:
    """An object given to the Python API as an agent (`user.agents.ObjectAgent`).

    :raises BadAgent: it is neither callable nor has a `choose` method."""
    from retrograde.agents.user.agents import ObjectAgent, object_label, object_stream

    if not (callable(target) or callable(getattr(target, "choose", None))):
        raise BadAgent(f"{target!r} is not an agent: give a spec (text), a callable or an object with "
                       "choose(position)")
    label = object_label(target)
    values = {"target": target, "label": label, **{key: defaults[key] for key in ("move_time", "tries", "logs")
                                                   if key in defaults}}
    return ResolvedAgent(AgentSpec("object"), ObjectAgent, None, tuple(values.items()),
                         object_stream(target, label), (), label)


def resolve_agents(specs: str | Sequence[str | object], game: Game, store=None, defaults: dict | None = None
                   ) -> Iterator[tuple[ResolvedAgent, Player]]:
    """Each agent of a comma-separated list of specs (`parse_spec_list`) or of a list of specs
    (or objects: the Python API's), resolved for `game` (with `defaults`: `resolve_agent`) and
    built once (seed 0, with `store`), in turn: an edge's every error comes before any work.
    Yields (the resolved agent, the agent built)."""
    for spec in parse_spec_list(specs) if isinstance(specs, str) else specs:
        resolved = resolve_agent(spec, game, defaults)
        yield resolved, resolved.build(game, seed=0, store=store)


def playable_agents(specs: Sequence[str], game: Game, store=None) -> list[tuple[ResolvedAgent, Player]]:
    """Those of `specs` that can play `game` (with `store`), resolved and built as `resolve_agents`
    does: a command's default agents, which adapt to what the game offers (a game without a
    search has no minimax)."""
    playable = []
    for spec in specs:
        try:
            resolved = resolve_agent(spec, game)
            playable.append((resolved, resolved.build(game, seed=0, store=store)))
        except BadAgent:
            continue
    return playable


def build_agent(spec: str, game: Game, *, seed: int, store=None) -> Player:
    """The agent `spec` names, for `game`, seeded with `seed` (`resolve_agent`, then
    `ResolvedAgent.build`): for an agent played once, where no resolved agent is kept.

    :raises BadAgent: as `resolve_agent` and `ResolvedAgent.build`.
    """
    return resolve_agent(spec, game).build(game, seed=seed, store=store)


def describe_agents() -> list[str]:
    """Lines for `retrograde agents`: each generic agent, what it does and its options, with the
    options a game adds (asked of the game's first example instance); then the agents games offer
    of their own."""
    examples = example_games()
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
    for game_name, game in examples.items():
        for name, policy in sorted((game.policies or {}).items()):
            lines.append(f"{name} ({game_name} only): {policy.summary}")
            lines.extend(f"  {option.describe()}" for option in policy.options)
            lines.extend(_preset_lines(name, game_name, game))
    return lines


def _preset_lines(name: str, game_name: str, game: Game) -> list[str]:
    """`retrograde agents` lines for agent `name`'s seed players in a game: how each differs."""
    lines = []
    course = course_of(game)
    for preset in course.presets(name):
        player = course.players[(name, preset)]
        lines.append(f"  {game_name}: {PRESET}={preset}: {player.summary}")
        lines.extend(f"    {option.describe()}" for option in player.options)
    return lines
