"""Agents: players that choose moves. All share `Agent` and take an explicit seed. A spec
(see `retrograde.spec` for the grammar) is resolved once, at the edge, by `resolve_agent` into a
`ResolvedAgent` that builds the playing agent: the generic agents play any game giving the hooks
they need, and a game adds agents of its own."""

from retrograde.agents.base import Agent
from retrograde.agents.registry import (
                                        AGENTS,
                                        PRESET,
                                        agent_class,
                                        agent_names,
                                        agent_options,
                                        build_agent,
                                        describe_agents,
                                        reads_store,
                                        resolve_agent,
                                        resolve_agents,
)
from retrograde.agents.resolved import ResolvedAgent
from retrograde.spec import AgentSpec, Option, parse_spec, parse_spec_list

__all__ = ["AGENTS", "PRESET", "Agent", "AgentSpec", "Option", "ResolvedAgent", "agent_class", "agent_names",
           "agent_options", "build_agent", "describe_agents", "parse_spec", "parse_spec_list", "reads_store",
           "resolve_agent", "resolve_agents"]
