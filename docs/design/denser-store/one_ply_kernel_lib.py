"""(library) Prototype of the bulk decoder the proposal needs: which indices of a Quixo chunk one ply of
moves decides (terminal, win in 1, loss in 1) and their values, holes marked, in one numba pass
(no canonicalisation, no ranking of children). Checked against features.py's classes for every
index of the store, and timed per store.
"""
from retrograde.games.quixo.kernels import SOURCE, has_line, play
from retrograde.games.ranking_arrays import BINOMIAL
from retrograde.games.ranking_kernels import next_pair, unrank_mask, unsqueeze
from retrograde.games.symmetry_kernels import is_least
from retrograde.jit import njit

HOLE, STORED, TERMINAL_WIN, TERMINAL_LOSS, WIN_IN_1, LOSS_IN_1 = range(6)


@njit
def one_ply(n, moves, lines, table, a, b, start, stop, out):
    """out[i] = HOLE, STORED (the store's value is needed) or how one ply decides index start+i."""
    cells = n * n
    block = BINOMIAL[cells - a, b]
    mover = unrank_mask(start // block, a, cells)
    packed = unrank_mask(start % block, b, cells - a)
    for row in range(stop - start):
        opponent = unsqueeze(packed, mover, cells)
        if not is_least(table, mover, opponent):
            out[row] = HOLE
        elif has_line(mover, n, lines):
            out[row] = TERMINAL_WIN
        elif has_line(opponent, n, lines):
            out[row] = TERMINAL_LOSS
        else:
            all_lose = True
            won = False
            for k in range(moves.shape[0]):
                if opponent & moves[k, SOURCE]:
                    continue
                new_mover, new_opponent = play(moves, k, mover, opponent)
                if has_line(new_opponent, n, lines):  # the child's mover has a line: a move that loses
                    continue
                all_lose = False
                if has_line(new_mover, n, lines):
                    won = True
                    break
            out[row] = WIN_IN_1 if won else LOSS_IN_1 if all_lose else STORED
        mover, packed = next_pair(mover, packed, a, b, cells)
