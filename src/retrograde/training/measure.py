"""The exact learning curve: how often a player keeps the value of positions of a solved store.

A fixed sample of non-terminal positions is drawn once from the seed (tiers weighted by their
size, indices uniform, holes and terminal positions skipped, repeats allowed), and the store
says which moves keep each position's value (to a losing child from a win, a drawing child
from a draw; every move from a loss). A player's share is the fraction of the sample where
its move is one of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from retrograde.agents.base import Player
from retrograde.errors import BadAgent, StoreError
from retrograde.games.base import Game

if TYPE_CHECKING:  # the store's modules (zarr) are imported once a sample is drawn, not with training's
    from retrograde.data.store import Store

SAMPLE_SIZE = 2_000
#: The sample's own random stream, apart from training's: resuming does not depend on it.
_STREAM = 0x5A4D


class ValueKeptSample:
    """A seeded sample of a store's positions and the value-keeping moves of each (`stream`
    tells apart samples of one seed: the learning curve's, the GA's exact fitness)."""

    def __init__(self, store: Store, game: Game, seed: int, size: int = SAMPLE_SIZE, stream: int = _STREAM):
        if store.game.name != game.name or store.game.params != game.params:
            raise BadAgent(f"store {str(store.path)!r} holds {store.game.describe()}, not {game.describe()}")
        from retrograde.data.probing import analyse

        self.positions = self._draw(store, game, np.random.default_rng([seed, stream]), size)
        self.keep = [frozenset(move.move for move in analysis.moves if move.value.outcome == analysis.value.outcome)
                     for analysis in analyse(store, self.positions)]

    @staticmethod
    def _draw(store: Store, game: Game, rng: np.random.Generator, size: int) -> list:
        """`size` non-terminal positions whose tier and children's tiers the store has solved."""
        from retrograde.data.store import SOLVED

        solved = {tier.name for tier in store.plan.tiers if store.record(tier.name).status == SOLVED}
        tiers = [tier for tier in game.tiers()
                 if tier.name in solved and tier.size and all(child in solved for child in tier.children)]
        sizes = np.array([tier.size for tier in tiers], dtype=np.float64)
        positions: list = []
        for _ in range(20):  # batches: holes and terminal positions are skipped
            if not tiers or len(positions) == size:
                break
            picks = rng.choice(len(tiers), size=2 * size, p=sizes / sizes.sum())
            indices = (rng.random(2 * size) * sizes[picks]).astype(np.int64)
            for pick, index in zip(picks.tolist(), indices.tolist()):
                position = game.position_at(tiers[pick], index)
                if position is not None and not game.primitive(position):
                    positions.append(position)
                    if len(positions) == size:
                        break
        if not positions:
            raise StoreError(f"store {str(store.path)!r} holds no solved non-terminal position to measure with")
        return positions

    def value_kept(self, agent: Player) -> float:
        """The share of the sample where `agent`'s move keeps the position's value."""
        kept = sum(agent.choose(position)[0] in keep for position, keep in zip(self.positions, self.keep))
        return kept / len(self.positions)
