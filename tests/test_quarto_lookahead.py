"""Report 000's look-ahead GA as its code was printed (`lookahead:preset=000`) beside ours
(`lookahead`): its roulette over the raw fitness, its dropped fresh genomes, its genes when
handing over, and a seeded player's reproducibility.

The references are written from the printed code of /work/shared/seeds/000_*.txt (section 5.2:
`roulette_wheel_selection`, `tournament`, `my_move`, `initPopulation`) and Quarto's rules; only
the random stream (`random_bits`) is shared with the code under test, so that both read the
same draws.
"""

from __future__ import annotations

import numpy as np
import pytest

from retrograde.agents import build_agent
from retrograde.games import make_game
from retrograde.games.quarto.board import encode, line_tables
from retrograde.games.quarto.heuristics import CHOOSE, _parent, evolve
from retrograde.search.base import random_bits

LINES = ([tuple(r * 4 + c for c in range(4)) for r in range(4)] + [tuple(r * 4 + c for r in range(4)) for c in range(4)]
         + [(0, 5, 10, 15), (3, 6, 9, 12)])


def shares(pieces) -> bool:
    return any(len({piece >> bit & 1 for piece in pieces}) == 1 for bit in range(4))


def has_line(cells) -> bool:
    return any(min(cells[c] for c in line) >= 0 and shares([cells[c] for c in line]) for line in LINES)


def deadly(cells) -> set[int]:
    """Pieces off the board that complete a line of three sharing an attribute value."""
    found = set()
    for line in LINES:
        pieces = [cells[c] for c in line if cells[c] >= 0]
        if len(pieces) == 3:
            found |= {p for p in range(16) if p not in cells and shares(pieces + [p])}
    return found


def boards(placed: int, seed: int, keep) -> list[tuple[int, ...]]:
    """Seeded boards of `placed` pieces without a line, holding `keep(cells)`."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < 3:
        cells = [-1] * 16
        for cell, piece in zip(rng.permutation(16)[:placed], rng.permutation(16)):
            cells[cell] = int(piece)
        if not has_line(cells) and keep(cells):
            found.append(tuple(cells))
    return found


# --- the printed roulette ---------------------------------------------------------------------
def printed_roulette(fitness, state) -> int:
    """Report 000's `roulette_wheel_selection` (its `tournament` of 5 when the sum is 0), over
    fitness in quarters, its `random.random()` and `random.choices` read from `state`."""
    fitness = [f / 4 for f in fitness]
    fitness_sum = sum(fitness)
    if fitness_sum == 0:
        chosen = [int(random_bits(state)) % len(fitness) for _ in range(5)]
        return max(chosen, key=lambda i: fitness[i])  # max keeps the first of equals
    normalized = [f / fitness_sum for f in fitness]
    cumulative = [sum(normalized[:i + 1]) for i in range(len(normalized))]
    random_num = int(random_bits(state)) / 2147483648.0
    for i, prob in enumerate(cumulative):
        if random_num <= prob:
            return i
    raise AssertionError("the printed roulette returns None")


@pytest.mark.parametrize("fitness", [
    [-4, 1, 1, 2],  # sums to 0: a tournament (ours: a roulette over the positive 4)
    [-4, -2, 1],  # a negative sum: the first two, never the third (ours: only the third)
    [4, -2, 1],  # a mixed positive sum: the first cumulative share is over 1, always the first
    [1, 2, 4, 0, 1],
    [-1, -4, -2, -2],
])
def test_parents_as_the_printed_roulette(fitness):
    picked = set()
    for seed in range(400):
        state = np.full(1, seed * 7919 + 1, dtype=np.uint64)
        reference = state.copy()
        index = _parent(np.array(fitness, dtype=np.int64), len(fitness), True, state)
        assert index == printed_roulette(fitness, reference), (fitness, seed)
        assert state[0] == reference[0], "the same draws"
        picked.add(int(index))
    if fitness == [-4, -2, 1]:
        assert picked == {0, 1}


def test_ours_weights_only_positive_fitness():
    for seed in range(200):
        state = np.full(1, seed + 1, dtype=np.uint64)
        assert _parent(np.array([-4, -2, 1, 0], dtype=np.int64), 4, False, state) == 2


# --- evolve: the fresh genomes and the genes --------------------------------------------------
def choose_run(cells, printed, population, generations, offspring, seed):
    """The genome of a CHOOSE run (the piece to hand over) on `cells`."""
    board, occupied, _, _ = encode((cells, -1))
    lines, through = line_tables(False)
    state = np.full(1, seed, dtype=np.uint64)
    return evolve(board, occupied, -1, CHOOSE, population, generations, offspring, printed, lines, through, state)


def test_a_losing_population_keeps_no_fresh_genomes():
    """Two pieces left, one of them deadly; one genome, one generation, no offspring. The
    printed code hands over its one random genome's piece (the safe one half the time: the
    fresh genomes it draws for a negative best are dropped); ours adds them (7/8)."""
    for cells in boards(14, 5, lambda cells: len(deadly(cells)) == 1):
        safe = (set(range(16)) - set(cells) - deadly(cells)).pop()
        for printed, low, high in ((True, 70, 130), (False, 155, 200)):
            hits = sum(choose_run(cells, printed, 1, 1, 0, seed)[1] == safe for seed in range(1, 201))
            assert low <= hits <= high, (printed, hits)


@pytest.mark.parametrize("placed, printed_genes", [(13, 3), (12, 4), (14, 2)])
def test_genes_when_handing_over(placed, printed_genes):
    """The printed `initPopulation` sets `iterations = min(pieces not on the board, 4)` genes
    (pieces 0..iterations-1, cells 4..4+iterations-1), the rest stay -1; ours, one piece more."""
    for cells in boards(placed, placed, lambda cells: True):
        genome = choose_run(cells, True, 16, 3, 8, 9)
        assert [g >= 0 for g in genome[1:4]] == [i < printed_genes for i in range(1, 4)], genome
        assert [g >= 0 for g in genome[5:8]] == [i < printed_genes for i in range(1, 4)], genome
        genome = choose_run(cells, False, 16, 3, 8, 9)
        assert [g >= 0 for g in genome[1:4]] == [i <= printed_genes for i in range(1, 4)], genome


# --- the players ------------------------------------------------------------------------------
SPEC = "lookahead:preset=000,population=32,generations=4,offspring=10"


def positions(count, seed):
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        empty = int(rng.integers(2, 13))
        cells = [-1] * 16
        pieces = rng.permutation(16)
        for cell, piece in zip(rng.permutation(16)[:16 - empty], pieces):
            cells[cell] = int(piece)
        if not has_line(cells):
            found.append((tuple(cells), int(pieces[16 - empty])))
    return found


def test_the_printed_player_is_reproducible_and_legal():
    game = make_game("quarto")
    first, again = (build_agent(SPEC, game, seed=4) for _ in range(2))
    for position in positions(12, 8):
        move = first.choose(position)
        assert move == again.choose(position)
        assert move in game.moves(position)


def test_the_last_piece_is_handed_over():
    """Two cells empty, a piece in hand: placed, the one piece left goes over (the printed code,
    with one gene, would give -1)."""
    game = make_game("quarto")
    agent = build_agent(SPEC, game, seed=2)
    for cells in boards(14, 3, lambda cells: True):
        hand, left = sorted(set(range(16)) - set(cells))
        move, (after, handed) = agent.choose((cells, hand))
        assert (move, (after, handed)) in game.moves((cells, hand))
        if not has_line(after):
            assert handed == left
