"""Agents: players that choose moves. All share `Agent`, take an explicit seed, and are
built from a spec string by `build_agent` (see `retrograde.spec` for the grammar): the generic
agents play any game giving the hooks they need, and a game adds agents of its own."""

from retrograde.agents.base import Agent
from retrograde.agents.registry import (
                                        AGENTS,
                                        PRESET,
                                        agent_claim,
                                        agent_class,
                                        agent_names,
                                        agent_options,
                                        build_agent,
                                        describe_agents,
                                        reads_store,
                                        stream_name,
)
from retrograde.spec import AgentSpec, Option, parse_spec, parse_spec_list

__all__ = ["AGENTS", "PRESET", "Agent", "AgentSpec", "Option", "agent_claim", "agent_class", "agent_names",
           "agent_options", "build_agent", "describe_agents", "parse_spec", "parse_spec_list", "reads_store",
           "stream_name"]
