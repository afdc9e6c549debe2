"""The course reports' Quarto policies, as numba kernels on nibble boards (`board`).

Seed 002's genetic-algorithm rule, genome (alpha, beta) in [0, 1], ours of its prose and the
one its code printed:

* piece, ours: with probability alpha the piece sharing the most attribute values with the
  pieces on the board ("correlated"), else the one sharing the fewest; ties at random.
* piece, printed (`printed_piece`): the eight attribute values (each attribute with and
  without, adding its bit or 0 to a piece's number) counted over the pieces on the board, and
  sorted by count, the most frequent first with probability alpha, else the least frequent
  (equal counts in the order high, not high, coloured, not coloured, solid, not solid,
  square, not square: its `cook_status` is not printed, so this order is our reading); a
  random one of the combinations of 4 of the first k values whose sum is a piece left, k = 4,
  5, ... 8 (its `choose_piece`: combinations of the first `elements`, shuffled, the first
  piece left). A combination may hold an attribute with and without (its sum is a piece all
  the same).
* Its GA+minimax hybrid hands over only pieces the opponent cannot win with at once, when
  there are some (both rules).
* cell: a placement that wins; else the empty cell of a line holding three pieces, diagonals
  first (the report's "risk 4": filling it wins or blocks it); else with probability beta a
  cell whose fullest line holds two pieces ("risk 3"), otherwise one whose lines hold at most
  one (falling back on the other kind), at random within the kind. The report's code fills a
  three-piece line before looking for wins; ours takes the win first.

Seed 000's look-ahead genetic algorithm ("the power of wandering"), run afresh every move: a
genome is 4 pieces and 4 cells (gene 0: the piece to place; 1: the piece handed over; 2 and 3:
the next two, predicted), each piece judged on the current board by whether placing it on its
cell wins and whether it could win somewhere. Fitness in quarters (the report's rewards times
4); placing: 4 if gene 0's cell wins, else 2 if the piece could win anywhere; handing over: -4
if gene 1 wins on its cell, -2 if it could win anywhere, else +1; then +1 if gene 2 wins or
could, -1 if gene 3 does. Population, generations and offspring as in the report (512, 40,
100): each offspring slot mutates a parent with probability 0.9 (each gene but the first
redrawn from what is free with probability 0.5; the child replaces its parent only if
fitter) and crosses two with probability 0.6 (each gene from either, evenly); duplicates
dropped and the fittest kept, earlier ones first on ties. The last piece left is handed over
without a run. Where the report's printed code and ours differ (`printed`):

* parents: printed, a roulette over the raw fitness (its `roulette_wheel_selection`: the first
  genome whose cumulative share of the sum reaches a uniform draw, so with a negative or mixed
  sum the weights are not probabilities: a negative sum picks the first genome whose running
  sum falls to the draw times the sum), a tournament of 5 only when the sum is 0; ours, a
  roulette over the positive fitness, a tournament of 5 when none is positive;
* a population whose best is negative: printed, nothing (its code draws twice the population
  of fresh genomes, then sorts the old population again, dropping them); ours, the fresh
  genomes join it (the report's text: "include them in the offspring");
* genes: printed, as many as the pieces not on the board, at most 4 (its `iterations`: when
  handing over, the pieces that could be handed over); ours, one more when handing over (the
  idle gene 0 counted), so it looks one piece further near the end.

Random draws come from the splitmix64 stream of `search.base.random_bits`, seeded by
the agent's generator.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.quarto.board import FULL, completes, deadly, piece_at, place
from retrograde.games.ranking_kernels import popcount
from retrograde.jit import njit
from retrograde.search.base import random_bits

#: The line indices of the two diagonals in `board_lines` (rows 0-3, columns 4-7).
DIAGONALS = (8, 9)


@njit
def uniform(state):
    """A float in [0, 1) from the stream."""
    return random_bits(state) / 2147483648.0


@njit
def pick(mask, state):
    """A uniformly random set bit of a non-zero 16-bit mask."""
    k = random_bits(state) % popcount(mask)
    for bit in range(16):
        if mask >> bit & 1:
            if k == 0:
                return bit
            k -= 1
    return -1


@njit
def correlation(board, occupied, piece):
    """Attribute values `piece` shares with the pieces on the board, summed over the pieces."""
    total = 0
    for cell in range(16):
        if occupied >> cell & 1:
            total += 4 - popcount((piece_at(board, cell) ^ piece) & 15)
    return total


@njit
def choose_piece(board, occupied, candidates, alpha, state):
    """Our piece rule of seed 002's prose over the non-empty set `candidates`."""
    correlated = uniform(state) < alpha
    best = -(1 << 30)
    ties = 0
    for piece in range(16):
        if candidates >> piece & 1:
            key = correlation(board, occupied, piece)
            key = key if correlated else -key
            if key > best:
                best, ties = key, 0
            if key == best:
                ties |= 1 << piece
    return pick(ties, state)


@njit
def printed_piece(board, occupied, candidates, alpha, state):
    """Seed 002's printed piece rule (see the module docstring) over the non-empty set `candidates`."""
    counts = np.zeros(8, dtype=np.int64)
    for cell in range(16):
        if occupied >> cell & 1:
            piece = piece_at(board, cell)
            for attribute in range(4):
                counts[2 * attribute + (0 if piece & 8 >> attribute else 1)] += 1
    frequent = uniform(state) < alpha
    order = np.argsort(-counts if frequent else counts, kind="mergesort")  # stable, as Python's sorted
    for first in range(4, 9):
        hits = np.zeros(70, dtype=np.int64)
        found = 0
        for chosen in range(1 << first):
            if popcount(chosen) != 4:
                continue
            piece = 0
            for i in range(first):
                if chosen >> i & 1 and order[i] % 2 == 0:
                    piece |= 8 >> (order[i] // 2)
            if candidates >> piece & 1:
                hits[found] = piece
                found += 1
        if found:
            return hits[random_bits(state) % found]
    return -1  # not reached: the first 8 values make every piece


@njit
def choose_cell(board, occupied, hand, beta, lines, through, state, win_first):
    """Seed 002's placement rule: a cell closing a diagonal, else a row or column, else by beta;
    `win_first`: ours, a winning cell before all (the report's closes a line whether it wins or not)."""
    wins = closing_diagonal = closing = risky = quiet = 0
    for cell in range(16):
        if occupied >> cell & 1:
            continue
        bit = 1 << cell
        if completes(board, occupied, cell, hand, lines, through):
            wins |= bit
        fullest = 0
        for k in range(through.shape[1]):
            i = through[cell, k]
            if i < 0:
                break
            count = 0
            for j in range(4):
                count += occupied >> lines[i, j] & 1
            fullest = max(fullest, count)
            if count == 3 and (i == DIAGONALS[0] or i == DIAGONALS[1]):
                closing_diagonal |= bit
        if fullest == 3:
            closing |= bit
        elif fullest == 2:
            risky |= bit
        else:
            quiet |= bit
    if win_first and wins:
        return pick(wins, state)
    for mask in (closing_diagonal, closing):
        if mask:
            return pick(mask, state)
    first, second = (risky, quiet) if uniform(state) < beta else (quiet, risky)
    return pick(first if first else second, state)


@njit
def hand_over(board, occupied, left, alpha, safe_only, printed, lines, state):
    """The piece seed 002's rule hands over from `left` after its placement: only safe ones where
    `safe_only` (the hybrid) and there are some; by its printed rule where `printed`, else ours."""
    if safe_only:
        safe = left & ~deadly(board, occupied, lines)
        if safe:
            left = safe
    if printed:
        return printed_piece(board, occupied, left, alpha, state)
    return choose_piece(board, occupied, left, alpha, state)


@njit
def placed_then_handed(board, occupied, hand, used, cell, alpha, safe_only, printed, lines, through, state):
    """The piece seed 002's rule hands over after placing `hand` on `cell` (-1 when that ends the game)."""
    if completes(board, occupied, cell, hand, lines, through) or popcount(occupied) == 15:
        return -1
    board, occupied = place(board, occupied, cell, hand)
    return hand_over(board, occupied, ~used & FULL, alpha, safe_only, printed, lines, state)


@njit
def ga_move(board, occupied, hand, used, alpha, beta, safe_only, printed, lines, through, state):
    """(cell, piece handed over) of seed 002's rule; cell -1 at the opening, piece -1 when the
    placement ends the game. `safe_only`: the hybrid's piece filter; `printed`: the report's
    code (its piece rule, and its placement: a three-piece line before a win), else ours."""
    if hand < 0:
        return -1, hand_over(board, occupied, ~used & FULL, alpha, False, printed, lines, state)
    cell = choose_cell(board, occupied, hand, beta, lines, through, state, not printed)
    return cell, placed_then_handed(board, occupied, hand, used, cell, alpha, safe_only, printed, lines, through,
                                    state)


# --- seed 000: the look-ahead GA ----------------------------------------------------------
GENES = 4
PLACE, CHOOSE = 0, 1


@njit
def _fitness(genome, genes, mode, board, occupied, threats, lines, through):
    """Seed 000's fitness of a genome, in quarters (see the module docstring)."""
    reward = 0
    for i in range(mode == CHOOSE, genes):  # when choosing, gene 0 (the piece just placed) is idle
        piece = genome[i]
        cell = genome[GENES + i]
        wins = cell >= 0 and not occupied >> cell & 1 and completes(board, occupied, cell, piece, lines, through)
        winnable = threats >> piece & 1
        if i == 0:
            if wins:
                return 4
            if winnable:
                return 2
        elif i == 1:
            if mode == CHOOSE:
                if wins:
                    return -4
                if winnable:
                    return reward - 2
                reward += 1
        elif i == 2 and (wins or winnable):
            reward += 1
        elif i == 3 and (wins or winnable):
            reward -= 1
    return reward


@njit
def _free(genome, genes, start, everything):
    """What a gene among slots start..start+genes-1 may take: `everything` less what the genome
    holds there."""
    free = everything
    for i in range(genes):
        if genome[start + i] >= 0:
            free &= ~(1 << genome[start + i])
    return free


@njit
def _random_genome(genome, genes, hand, pieces, cells, state):
    """Gene 0 the piece in hand (-1 when choosing), the others distinct free pieces and cells
    while there are some (-1 after)."""
    genome[:] = -1
    genome[0] = hand
    for i in range(1, genes):
        genome[i] = pick(_free(genome, genes, 0, pieces), state)
    for i in range(genes):
        free = _free(genome, genes, GENES, cells)
        if free:
            genome[GENES + i] = pick(free, state)


@njit
def _parent(fitness, size, printed, state):
    """A roulette over the raw fitness where `printed`, else over the positive fitness; a
    tournament of 5 when the roulette's sum is 0 (see the module docstring)."""
    total = 0
    for i in range(size):
        total += fitness[i] if printed else max(fitness[i], 0)
    if total == 0:
        best = random_bits(state) % size
        for _ in range(4):
            other = random_bits(state) % size
            if fitness[other] > fitness[best]:
                best = other
        return best
    spin = uniform(state) * total
    running = 0
    for i in range(size):
        running += fitness[i] if printed else max(fitness[i], 0)
        if (running - spin) * total >= 0:  # the draw <= the cumulative share running / total
            return i
    return size - 1


@njit
def _survive(genomes, fitness, count, keep):
    """Drop duplicate genomes, keep the `keep` fittest (earlier first on ties) at the front;
    returns how many are kept."""
    order = np.argsort(-fitness[:count], kind="mergesort")
    kept = 0
    chosen = np.empty(min(count, keep), dtype=np.int64)
    seen = {np.int64(-1)}  # (typed for numba; keys are never negative)
    for i in order:
        key = np.int64(0)
        for gene in genomes[i]:
            key = key * 32 + gene + 1
        if key not in seen:
            seen.add(key)
            chosen[kept] = i
            kept += 1
            if kept == keep:
                break
    genomes[:kept] = genomes[chosen[:kept]].copy()
    fitness[:kept] = fitness[chosen[:kept]].copy()
    return kept


@njit
def off_board(board, occupied):
    """The pieces not on the board."""
    pieces = FULL
    for cell in range(16):
        if occupied >> cell & 1:
            pieces &= ~(1 << piece_at(board, cell))
    return pieces


@njit
def evolve(board, occupied, hand, mode, population, generations, offspring, printed, lines, through, state):
    """Seed 000's GA on the current board: the fittest genome (gene 4: the cell to place `hand`
    on in mode PLACE; gene 1: the piece to hand over in mode CHOOSE); `printed`: as the report's
    code ran (see the module docstring), else ours."""
    pieces = off_board(board, occupied)
    cells = ~occupied & FULL
    if hand >= 0:
        pieces &= ~(1 << hand)
    # gene 0 and a gene for each piece left; printed, gene 0 only where it holds the piece in hand
    genes = min(GENES, popcount(pieces) + (1 if hand >= 0 or not printed else 0))
    threats = deadly(board, occupied, lines)
    room = population * 3 + 2 * offspring
    genomes = np.full((room, 2 * GENES), -1, dtype=np.int64)
    fitness = np.zeros(room, dtype=np.int64)
    for i in range(population):
        _random_genome(genomes[i], genes, hand, pieces, cells, state)
        fitness[i] = _fitness(genomes[i], genes, mode, board, occupied, threats, lines, through)
    size = population
    if genes > 1:
        for _ in range(generations):
            count = size
            for _ in range(offspring):
                if uniform(state) > 0.1:
                    parent = _parent(fitness, size, printed, state)
                    child = genomes[parent].copy()
                    for i in range(1, genes):
                        if random_bits(state) & 1:
                            free = _free(child, genes, 0, pieces)
                            if free:
                                child[i] = pick(free, state)
                    for i in range(genes):
                        if random_bits(state) & 1:
                            free = _free(child, genes, GENES, cells)
                            if free:
                                child[GENES + i] = pick(free, state)
                    score = _fitness(child, genes, mode, board, occupied, threats, lines, through)
                    genomes[count] = child if score > fitness[parent] else genomes[parent]
                    fitness[count] = max(score, fitness[parent])
                    count += 1
                if uniform(state) > 0.4:
                    first = genomes[_parent(fitness, size, printed, state)]
                    second = genomes[_parent(fitness, size, printed, state)]
                    for i in range(2 * GENES):
                        genomes[count, i] = first[i] if random_bits(state) & 1 else second[i]
                    fitness[count] = _fitness(genomes[count], genes, mode, board, occupied, threats, lines, through)
                    count += 1
            size = _survive(genomes, fitness, count, population)
            if fitness[0] < 0 and not printed:
                for i in range(size, size + 2 * population):
                    _random_genome(genomes[i], genes, hand, pieces, cells, state)
                    fitness[i] = _fitness(genomes[i], genes, mode, board, occupied, threats, lines, through)
                size = _survive(genomes, fitness, size + 2 * population, population)
    return genomes[0].copy()


@njit
def lookahead_move(board, occupied, hand, population, generations, offspring, printed, lines, through, state):
    """(cell, piece handed over) of seed 000's player: a GA run to place `hand` (none at the
    opening), then one on the new board to choose the piece (none when the placement ends the
    game; the last piece left without a run). `printed`: the report's code, else ours."""
    cell = -1
    if hand >= 0:
        cell = evolve(board, occupied, hand, PLACE, population, generations, offspring, printed, lines, through,
                      state)[GENES]
        if completes(board, occupied, cell, hand, lines, through) or popcount(occupied) == 15:
            return cell, -1
        board, occupied = place(board, occupied, cell, hand)
    left = off_board(board, occupied)
    if popcount(left) == 1:
        return cell, pick(left, state)
    return cell, evolve(board, occupied, -1, CHOOSE, population, generations, offspring, printed, lines,
                       through, state)[1]
