"""Agents as validation builds them: only an agent that reads a store by design (lookup) is
given the solved store. Others, such as minimax, would use its values too (minimax built
with a store plays perfectly), and the report must measure the baseline itself."""

from __future__ import annotations

from retrograde.agents import Agent, agent_class, build_agent, parse_spec
from retrograde.data.store import Store
from retrograde.games import Game


def build_player(spec: str, game: Game, *, seed: int, store: Store | None) -> Agent:
    """`build_agent`, with the store only for agents that declare `needs_store` (their nested
    agents, such as lookup's fallback, get it from `build_agent` as usual)."""
    needs = agent_class(parse_spec(spec).name).needs_store
    return build_agent(spec, game, seed=seed, store=store if needs else None)
