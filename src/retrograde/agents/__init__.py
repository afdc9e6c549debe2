"""Agents: players that choose moves. All share `Agent`, take an explicit seed, and are
built from a spec string by `build_agent` (see `spec` for the grammar)."""

from retrograde.agents.base import Agent
from retrograde.agents.registry import AGENTS, agent_class, build_agent, describe_agents
from retrograde.agents.spec import AgentSpec, Option, parse_spec, parse_spec_list

__all__ = ["AGENTS", "Agent", "AgentSpec", "Option", "agent_class", "build_agent", "describe_agents",
           "parse_spec", "parse_spec_list"]
