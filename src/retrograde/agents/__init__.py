"""Agents: what chooses moves. A spec (see `retrograde.spec` for the grammar) is resolved once, at
the edge, by `resolve_agent` into a `ResolvedAgent`, which builds the agent's `Player` (the one
interface every agent plays through, with an explicit seed): the generic agents play any game
giving the capabilities they need, and a game adds agents of its own."""

from retrograde.agents.base import Player
from retrograde.agents.registry import (AGENTS, PRESET, agent_class, agent_names, agent_options, build_agent,
                                        describe_agents, reads_store, resolve_agent, resolve_agents)
from retrograde.agents.resolved import ResolvedAgent
from retrograde.spec import AgentSpec, Option, parse_spec, parse_spec_list

__all__ = ["AGENTS", "PRESET", "AgentSpec", "Option", "Player", "ResolvedAgent", "agent_class", "agent_names",
           "agent_options", "build_agent", "describe_agents", "parse_spec", "parse_spec_list", "reads_store",
           "resolve_agent", "resolve_agents"]
