"""Agents a game offers of its own (`Game.policies`: its theory's expert, the course reports'
fixed rules, players built on its own search), each a `games.capabilities.Policy` played as an agent."""

from __future__ import annotations

from retrograde.agents.base import Player
from retrograde.games.capabilities import Policy


class PolicyAgent(Player):
    """Plays the policy class `policy` of the game, built with the spec's options and this
    agent's generator."""

    def __init__(self, game, *, seed: int, store=None, policy: type[Policy], **options):
        super().__init__(game, seed=seed, store=store)
        self.policy = policy(game, self.rng, **options)
        self.name, self.summary = policy.name, policy.summary
        self.searches_to_end = policy.searches_to_end
        self.spec = self.name

    def exact_at(self, position) -> bool:
        return self.policy.exact_at(position)

    def choose(self, position):
        return self.policy.choose(position)

    def move_distribution(self, position):
        return self.policy.distribution(position)
