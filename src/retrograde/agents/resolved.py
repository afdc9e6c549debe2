"""A resolved agent: an agent spec parsed and checked once, at the edge, for one game.

`registry.resolve_agent` makes it from spec text (the CLI, the Python API) or a parsed spec (a
workflow's preset, its artifacts' paths given as option values, never spliced into text); from
there on the agent is this object, never text parsed again: it travels through tasks (it
pickles to a class reference and a few values), reports, artifacts and the explorer, and builds
the playing agent (`build`) wherever a game is played.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrograde.agents.base import Player
from retrograde.errors import BadAgent
from retrograde.spec import AgentSpec


@dataclass(frozen=True)
class ResolvedAgent:
    """An agent spec resolved for one game.

    `written`: the spec as written (its text, `spec`, names the agent in reports and on the page,
    unless `label` is given: a user's agent is named by its code, never by its path);
    `cls`: the class that plays, with `policy` the game's `Policy` class a `PolicyAgent` plays (a
    game's own agent, or a course report's player: `preset=NUMBER`), else None; `values`: every
    option's typed value in the order the agent declares them (its default where the spec gives
    none; a nested agent resolved in turn); `stream`: the name its random streams derive from
    (`registry.resolve_agent` says how); `files`: each file its options name, as written in the
    spec's order, with the digest of its content."""

    written: AgentSpec
    cls: type[Player]
    policy: type | None
    values: tuple[tuple[str, Any], ...]
    stream: str
    files: tuple[tuple[Path, str], ...] = ()
    label: str | None = None

    @property
    def spec(self) -> str:
        """The agent's name in reports, artifacts and the explorer: the spec's text, or its label."""
        return self.label if self.label is not None else str(self.written)

    @property
    def name(self) -> str:
        return self.written.name

    @property
    def reads_store(self) -> bool:
        """Whether the agent plays from a solved store."""
        return self.cls.needs_store

    @property
    def claim(self) -> str | None:
        """What the agent guarantees (`Policy.claim`: that it never gives a win away); generic
        agents claim nothing, a report's player only what its own policy claims."""
        return self.policy.claim if self.policy is not None else None

    def build(self, game, *, seed: int, store=None) -> Player:
        """The playing agent for `game` (the game resolved for), seeded with `seed`; `store` (a
        read-only solved store of the same game instance) for agents that read one.

        :raises BadAgent: the agent (or one nested in it) reads a store and is given none, or a
            store of another game instance; or its artifact cannot be loaded."""
        values = {name: value.build(game, seed=seed, store=store) if isinstance(value, ResolvedAgent) else value
                  for name, value in self.values}
        if self.cls.needs_store:
            if store is None:
                raise BadAgent(f"agent {self.name!r} reads a solved store: give one with --store PATH")
            if store.game.name != game.name or store.game.params != game.params:
                raise BadAgent(f"store {str(store.path)!r} holds {store.game.describe()}, not {game.describe()}")
        extra = {"policy": self.policy} if self.policy is not None else {}
        agent = self.cls(game, seed=seed, store=store, **extra, **values)
        agent.spec = self.spec
        return agent
