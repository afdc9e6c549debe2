"""Agents: players that choose moves. All share `Agent` and take an explicit seed."""

from retrograde.agents.base import Agent
from retrograde.agents.lookup import LookupAgent
from retrograde.agents.random_agent import RandomAgent

AGENTS = {"lookup": LookupAgent, "random": RandomAgent}

__all__ = ["AGENTS", "Agent", "LookupAgent", "RandomAgent"]
