"""Nim lab strategy: a random take from a random row that has objects, within the bound k.
It imports Nimply from the course's `nim` module (served by retrograde)."""

import random

from nim import Nimply


def pure_random(state):
    row = random.choice([r for r, count in enumerate(state.rows) if count > 0])
    most = state.rows[row] if state.k is None else min(state.rows[row], state.k)
    return Nimply(row, random.randint(1, most))
